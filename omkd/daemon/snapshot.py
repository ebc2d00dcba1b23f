"""The fold as it is at one moment, its window's summaries read over several turns of the event
loop: what a status report or a gap list is built from.

A report reads every summary of the window, and the daemon keeps most of them in its state store,
encoded; decoding them all at once held the loop about 25 µs a summary (half a second for a
window of 20,000 segments), while nothing was read and no scrape answered. ``read_window`` takes
what the report needs at once — the fold's totals copied, the summaries in memory, the saved ones
still encoded — then decodes the saved ones ``DECODE_STEP`` at a time, letting the loop run
between. What the loop does meanwhile is not in the copy: the report is of the moment it began.
"""

from __future__ import annotations

import asyncio
from typing import Final

from omkd.daemon.stored_segments import StoredSegments
from omkd.engine.pipeline import Fold
from omkd.engine.segment_book import HeldBook

DECODE_STEP: Final = 256
"""Saved summaries decoded per turn of the loop (about 6 ms of work)."""


async def read_window(fold: Fold, with_signals: bool = False, step: int = DECODE_STEP) -> Fold:
    """``fold.snapshot()`` holding the window's summaries (``with_signals``: only those holding a
    signal, for a gap list) as ``fold`` holds them when called."""
    copy = fold.snapshot()
    held = copy.segments
    assert isinstance(held, HeldBook)
    book, window = fold.segments, fold.window
    if not isinstance(book, StoredSegments):  # all in memory: nothing to decode
        held.hold(list(book.gapped_inside(window) if with_signals else book.inside(window)))
        return copy
    in_memory, rows = book.inside_now(window, with_signals)
    held.hold(in_memory)
    for start in range(0, len(rows), step):
        await asyncio.sleep(0)
        held.hold(StoredSegments.readable(rows[start : start + step], with_signals))
    return copy
