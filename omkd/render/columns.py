"""The skill table's columns, declared once: the terminal, Markdown and HTML views read them.

A column has a name, its header (``header`` in the terminal and in Markdown, ``title`` on the
HTML page), how its value is read from a ``SkillHealth`` (read, never computed: the report holds
every figure), and its kind, which says how a view formats the value (each view has one formatter
per kind; ``RATE`` values carry their interval, ``BAND`` values whether the band is indicative).

Each view chooses the columns it shows, by name, from this list (``TERMINAL``, ``MARKDOWN``,
``HTML``): the three views showed different sets before the columns were declared here, and
each keeps its own. A new column is one entry here and its name in the views that show it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from omkd.engine.certainty import Interval
from omkd.engine.figures import LEVEL, NO_BAND, band_label
from omkd.engine.report.schema import SkillHealth

NAME: Final = "name"
"""The skill (each view marks the overall row its own way)."""
AGENT: Final = "agent"
"""The agent (None on the overall row)."""
COUNT: Final = "count"
RATE: Final = "rate"
"""A ``Rate``: the value and its interval."""
TIER: Final = "tier"
BAND: Final = "band"
"""A ``Band``."""
COVERAGE: Final = "coverage"
"""The ``CoverageReport``: knowledge files read of those known."""
TEXT: Final = "text"
OUTCOMES: Final = "outcomes"
"""The ``MetacogReport`` (or None): what the agents did at a gap, said by ``render.metacog``."""


@dataclass(frozen=True, slots=True)
class Rate:
    value: float | None
    """None without a segment in the window: no rate (never a 0.0 that reads as healthy)."""
    interval: Interval


@dataclass(frozen=True, slots=True)
class Band:
    health: str
    indicative: bool
    """Underpowered: the band is only indicative."""
    confident: bool
    """The band is backed by the intervals (when not, a view marks it)."""

    @property
    def label(self) -> str:
        """The band as every view writes it (``figures.band_label``): ``red``, ``red~``, ``(red?)``, ``—``."""
        return band_label(self.health, self.indicative, self.confident)


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    header: str
    title: str
    read: Callable[[SkillHealth], object]
    kind: str
    right: bool = False
    """Aligned right in the terminal (figures that are compared down the column)."""


COLUMNS: Final = (
    Column("skill", "skill", "Skill", lambda s: s.skill, NAME),
    Column("agent", "agent", "Agent", lambda s: s.agent, AGENT),
    Column("segments", "segments", "Segments", lambda s: s.segments, COUNT, right=True),
    Column(
        "gap rate", "gap rate", f"Gap rate [{LEVEL:.0%} interval]",
        lambda s: Rate(s.gap_rate if s.segments else None, s.certainty.gap_rate_interval), RATE, right=True,
    ),
    Column(
        "weighted", "weighted", f"Weighted gap rate [{LEVEL:.0%} interval]",
        lambda s: Rate(s.weighted_gap_rate if s.segments else None, s.certainty.weighted_gap_rate_interval), RATE,
        right=True,
    ),
    Column("tier", "tier", "Tier", lambda s: s.confidence, TIER),
    Column(
        "band", "band", "Band",
        lambda s: Band(s.health if s.segments else NO_BAND, s.health_indicative, s.certainty.health_confident), BAND,
    ),
    Column("coverage", "coverage", "Knowledge files read", lambda s: s.coverage, COVERAGE, right=True),
    Column("stability", "stability", "Tools", lambda s: s.tools.stability, TEXT),
    Column("at a gap", "at a gap", "What the agents did at a gap", lambda s: s.metacognition, OUTCOMES),
)  # fmt: skip
"""Every column of the skill table, in the order the views show them."""
BY_NAME: Final = {column.name: column for column in COLUMNS}

TERMINAL: Final = ("skill", "agent", "segments", "gap rate", "weighted", "tier", "band", "coverage", "stability")
"""``omkd scan``'s table (the agent column only when a row is not Claude Code's; coverage and
stability left out on a narrow terminal)."""
MARKDOWN: Final = ("skill", "agent", "segments", "gap rate", "weighted", "tier", "band", "coverage")
"""The pull-request comment's table (the agent column only when a row is not Claude Code's); coverage
stands beside the gap rate, as spec §5 asks of every view."""
HTML: Final = TERMINAL
"""The HTML page's table (the agent column always)."""
AT_A_GAP: Final = ("skill", "agent", "gap rate", "at a gap")
"""The table every view shows below the skill table: the outcome partition beside the gap rate
(spec §8.7), for the rows ``render.metacog.shown`` keeps."""


def chosen(names: Sequence[str], without: Sequence[str] = ()) -> list[Column]:
    """The columns of a view, in its order, but those named in ``without``."""
    return [BY_NAME[name] for name in names if name not in without]
