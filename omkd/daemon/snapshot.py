"""The fold as it is at one moment, its window's summaries read over several turns of the event
loop: what a status report, a gap list or the wiki is built from.

A report reads every summary of the window, and the daemon keeps most of them in its state store,
encoded; decoding them all at once held the loop about 25 µs a summary (half a second for a
window of 20,000 segments), while nothing was read and no scrape answered. ``take_window`` takes
what the report needs at once — the fold's totals copied, the summaries in memory, the saved ones
still encoded — and ``Taken.read`` decodes the saved ones ``DECODE_STEP`` at a time, letting the
loop run between. What the loop does meanwhile is not in the copy: the report is of the moment the
window was taken.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Final

from omkd.daemon.stored_segments import StoredSegments
from omkd.engine.fold import Fold
from omkd.engine.segment_book import HeldBook

DECODE_STEP: Final = 256
"""Saved summaries decoded per turn of the loop (about 6 ms of work)."""


@dataclass(slots=True)
class Taken:
    """A fold's window taken at one moment, its saved summaries not decoded yet."""

    fold: Fold
    """``Fold.snapshot()``: the totals as they were, the summaries in memory held already."""
    book: HeldBook
    rows: list[bytes]
    """The saved summaries memory did not override then, encoded."""
    with_signals: bool

    async def read(self, step: int = DECODE_STEP) -> Fold:
        """The fold of that moment, every summary of its window held."""
        rows = self.rows
        for start in range(0, len(rows), step):
            await asyncio.sleep(0)
            self.book.hold(StoredSegments.readable(rows[start : start + step], self.with_signals))
        self.rows = []
        return self.fold


def take_window(fold: Fold, with_signals: bool = False) -> Taken:
    """``fold``'s window as it is now (``with_signals``: only the summaries holding a signal, for a
    list of gaps), to be read by ``Taken.read``."""
    copy = fold.snapshot()
    held = copy.segments
    assert isinstance(held, HeldBook)
    book, window = fold.segments, fold.window
    if not isinstance(book, StoredSegments):  # all in memory: nothing to decode
        held.hold(book.gapped_inside(window) if with_signals else book.inside(window))
        return Taken(copy, held, [], with_signals)
    in_memory, rows = book.inside_now(window, with_signals)
    held.hold(in_memory)
    return Taken(copy, held, rows, with_signals)


async def read_window(fold: Fold, with_signals: bool = False, step: int = DECODE_STEP) -> Fold:
    """``fold``'s window as it is when called, read across turns of the loop."""
    return await take_window(fold, with_signals).read(step)
