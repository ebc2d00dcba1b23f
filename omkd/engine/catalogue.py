"""What a catalogue figure is (``figures.SkillTotals`` is the catalogue): how one segment adds to
it, and where it is shown. Kept apart from the catalogue so that a family of figures (the outcomes
of spec §8, one per label value) can be declared by a helper without a cycle."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from omkd.engine.summary import SegmentSummary

FIGURE: Final = "figure"
"""Field metadata key of a catalogue figure (a ``Figure``)."""


@dataclass(frozen=True, slots=True)
class Figure:
    """What one catalogue field is: how a segment adds to it, and where it is shown."""

    of: Callable[[SegmentSummary], float]
    """The segment's share of the figure (never negative)."""
    counter: tuple[str, str] | None = None
    """An all-time counter per skill: (metric name without ``_total``, help)."""
    gauge: tuple[str, str] | None = None
    """A window gauge per skill: (metric name, help)."""
    report: bool = False
    """Shown as the ``SkillHealth`` field of the same name (which has a default)."""
    labels: tuple[tuple[str, str], ...] = ()
    """Label names and values of its samples besides ``skill`` and ``agent``: the figures that name
    the same metric with other label values are one family (``omkd_gap_outcome_segments{outcome}``).
    Every figure of a family has the same help and the same label names."""
    settled: bool = False
    """Provisional while its segment is open (an outcome of spec §8, decided as the stream's end where
    it was read to would decide it): its counter counts a segment once it is settled (``settle``)."""
    partition: bool = False
    """One member of a partition by ``outcome``: the figures of its counter with the same other labels
    split one count between them (a segment by its worst outcome, an anchor by its outcome), so an
    outcome revised after it was counted moves nothing there (``settle``)."""


def figure(
    of: Callable[[SegmentSummary], float],
    *,
    counter: tuple[str, str] | None = None,
    gauge: tuple[str, str] | None = None,
    report: bool = False,
    labels: tuple[tuple[str, str], ...] = (),
    default: float = 0,
    settled: bool = False,
    partition: bool = False,
) -> Any:
    """A catalogue field (see ``figures``' docstring)."""
    spec = Figure(of, counter, gauge, report, labels, settled, partition)
    return field(default=default, metadata={FIGURE: spec})


def tally(name: str) -> Callable[[SegmentSummary], float]:
    """A figure counted into ``Segment.tallies[name]`` where it happens."""
    return lambda segment: segment.tally(name)
