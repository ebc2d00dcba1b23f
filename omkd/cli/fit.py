"""What the terminal's skill table shows at a given width, decided from what its cells hold.

The figures are never cut: a rate cut to ``33.6…`` reads as another number. So the table gives up,
in this order, what a reader needs least, until every figure column fits at its full width beside
a skill column of at least ``SKILL_MIN_WIDTH``: the stability column, the coverage column, the rates'
intervals, then the long labels (``segments`` as ``segs``, ``claude_code`` as ``claude``,
``underpowered`` as ``under``). Only the skill name is cut, with an ellipsis, on its one line.

The widths come from the cells themselves, not from fixed thresholds: a table with an agent column,
or a skill with 10,000 segments, needs more room than one without.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from rich.cells import cell_len
from rich.text import Text

from omkd.render import columns
from omkd.render.columns import Column

SKILL_MIN_WIDTH: Final = 14
SKILL_MAX_WIDTH: Final = 40
"""The skill column's room: at least this (a name is cut with an ellipsis below its length), at
most that much on a wide terminal (the figures keep their place however long a name is)."""
BORDERS_PER_COLUMN: Final = 3
"""A rich table's vertical line and a space of padding either side, per column (one more line closes it)."""

STEPS: Final = ("stability", "coverage", "intervals", "short labels")
"""What the table gives up when the figures do not fit, least needed first."""
SHORT_HEADERS: Final = {"segments": "segs"}
SHORT_VALUES: Final = {"claude_code": "claude", "underpowered": "under"}
MEANING: Final = {"segs": "segments", "claude": "claude_code", "under": "underpowered (< 5 segments)"}
"""What each short label stands for (the note under the table names those the table uses)."""


@dataclass(frozen=True, slots=True)
class Fit:
    """The table at one width: which columns, with or without intervals, long or short labels,
    and the skill column's widest (None: as wide as its longest name needs)."""

    shown: tuple[Column, ...]
    intervals: bool
    short: bool
    skill_width: int | None
    given_up: tuple[str, ...]
    """The steps taken (``STEPS``' names), for the note under the table."""
    abbreviations: tuple[str, ...] = ()
    """The short labels the table uses ("segs = segments", …)."""


Cells = Callable[[Column, bool, bool], Sequence[str | Text]]
"""The cells of one column, every row, with or without intervals, long or short labels."""


def header(column: Column, short: bool) -> str:
    return SHORT_HEADERS.get(column.name, column.header) if short else column.header


def label(value: str, short: bool) -> str:
    """An agent's or a tier's name as a short-label table writes it."""
    return SHORT_VALUES.get(value, value) if short else value


def fit(wanted: Sequence[Column], cells: Cells, width: int | None) -> Fit:
    """The first arrangement, giving up ``STEPS`` in order, whose figure columns all fit at ``width``
    beside a skill column of ``SKILL_MIN_WIDTH``; the last one when none does. ``width`` None (a
    pipe, a CI log): everything, the skill column as wide as it needs."""
    if width is None:
        return Fit(tuple(wanted), True, False, None, ())
    arrangement = Fit(tuple(wanted), True, False, None, ())
    for taken in range(len(STEPS) + 1):
        given_up = STEPS[:taken]
        shown = tuple(c for c in wanted if c.name not in given_up)
        intervals, short = "intervals" not in given_up, "short labels" in given_up
        others = _figures_width(shown, cells, intervals, short)
        room = width - others - BORDERS_PER_COLUMN * len(shown) - 1
        skill_width = max(SKILL_MIN_WIDTH, min(room, SKILL_MAX_WIDTH))
        used = _abbreviations(shown, cells, intervals) if short else ()
        arrangement = Fit(shown, intervals, short, skill_width, given_up, used)
        if room >= SKILL_MIN_WIDTH:
            return arrangement
    return arrangement


def _abbreviations(shown: Sequence[Column], cells: Cells, intervals: bool) -> tuple[str, ...]:
    """``short = long`` for each short label the table shows: a header, or a value some row holds."""
    used = [f"{SHORT_HEADERS[c.name]} = {MEANING[SHORT_HEADERS[c.name]]}" for c in shown if c.name in SHORT_HEADERS]
    for column in shown:
        if column.kind not in (columns.AGENT, columns.TIER):
            continue
        held = {cell.plain if isinstance(cell, Text) else cell for cell in cells(column, intervals, False)}
        used += [f"{short} = {MEANING[short]}" for value, short in SHORT_VALUES.items() if value in held]
    return tuple(used)


def _figures_width(shown: Sequence[Column], cells: Cells, intervals: bool, short: bool) -> int:
    """The room every column but the skill's needs to show its header and each cell whole."""
    total = 0
    for column in shown:
        if column.kind == columns.NAME:
            continue
        texts = [cell.plain if isinstance(cell, Text) else cell for cell in cells(column, intervals, short)]
        total += max([cell_len(header(column, short)), *(cell_len(text) for text in texts)])
    return total
