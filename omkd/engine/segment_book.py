"""Where a fold keeps every segment's latest summary: the book it looks summaries up in.

``SegmentBook`` holds them all in memory (a scan: it ends). The daemon's book keeps most of
them in its state store instead (``daemon/stored_segments.py``): a busy host writes segments
all day, and a summary in memory for each would grow without bound. Both answer the same
questions, so the fold neither knows nor cares where a summary lives:

- a summary by key, how many there are, every one of them;
- those whose start lies in a window, or outside it;
- those that leave a window whose start moves forward (the fold subtracts them);
- the keys of those whose last record is older than a retention horizon.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator

from omkd.engine.summary import SegmentSummary
from omkd.engine.window import Window


def last_seen(summary: SegmentSummary) -> float | None:
    """When a segment was last active (its last record, else its first): what retention reads."""
    return summary.last_ts if summary.last_ts is not None else summary.first_ts


class SegmentBook:
    """Every summary in memory, with a heap of starts for a window moving forward."""

    def __init__(self) -> None:
        self._summaries: dict[str, SegmentSummary] = {}
        self._by_start: list[tuple[float, str]] = []
        """(first_ts, key), a heap; an entry whose summary has since moved or gone is skipped."""

    def __len__(self) -> int:
        return len(self._summaries)

    def get(self, key: str) -> SegmentSummary | None:
        return self._summaries.get(key)

    def put(self, summary: SegmentSummary, old: SegmentSummary | None) -> None:
        """Keep ``summary`` in place of ``old`` (its key's summary until now, or None)."""
        self._summaries[summary.key] = summary
        if summary.first_ts is not None and (old is None or old.first_ts != summary.first_ts):
            heapq.heappush(self._by_start, (summary.first_ts, summary.key))

    def adopt(self, summary: SegmentSummary) -> None:
        """Keep a summary the book's store holds already (a restart's): no older one to replace."""
        self.put(summary, None)

    def pop(self, key: str) -> SegmentSummary | None:
        return self._summaries.pop(key, None)

    def values(self) -> Iterator[SegmentSummary]:
        return iter(list(self._summaries.values()))

    def items(self) -> Iterator[tuple[str, SegmentSummary]]:
        return ((s.key, s) for s in self.values())

    def inside(self, window: Window) -> Iterator[SegmentSummary]:
        contains = window.contains
        return (s for s in self._summaries.values() if contains(s.first_ts))

    def outside(self, window: Window) -> Iterator[SegmentSummary]:
        contains = window.contains
        return (s for s in self._summaries.values() if not contains(s.first_ts))

    def gapped_inside(self, window: Window) -> Iterator[SegmentSummary]:
        """The summaries in ``window`` that hold a signal (what a list of gaps reads)."""
        contains = window.contains
        return (s for s in self._summaries.values() if s.signals and contains(s.first_ts))

    def newest_outside(self, window: Window) -> float | None:
        """The newest last record of the summaries outside ``window``."""
        contains = window.contains
        return max(
            (s.last_ts for s in self._summaries.values() if s.last_ts is not None and not contains(s.first_ts)),
            default=None,
        )

    def open_inside(self, window: Window) -> Iterator[SegmentSummary]:
        """The open segments in ``window`` (a stream still being written)."""
        contains = window.contains
        return (s for s in self._summaries.values() if s.open and contains(s.first_ts))

    def leaving(self, since: float | None, before: float) -> Iterator[SegmentSummary]:
        """Summaries whose start lies in ``[since, before)``: what a window starting at ``since``
        loses when its start moves to ``before`` (``since`` None: no lower bound). Each is given
        once: the window only ever moves forward."""
        heap = self._by_start
        given: set[str] = set()  # a key forgotten and put back with the same start is in twice
        while heap and heap[0][0] < before:
            start, key = heapq.heappop(heap)
            summary = self._summaries.get(key)
            if summary is None or summary.first_ts != start or (since is not None and start < since):
                continue
            if key not in given:
                given.add(key)
                yield summary

    def reindex(self) -> None:
        """Every start in the heap again (the window moved back: a longer window)."""
        self._by_start = [(s.first_ts, k) for k, s in self._summaries.items() if s.first_ts is not None]
        heapq.heapify(self._by_start)

    def stale(self, horizon: float) -> list[str]:
        """Keys of the summaries last active before ``horizon`` (none without a timestamp)."""
        return [key for key, s in self._summaries.items() if (seen := last_seen(s)) is not None and seen < horizon]

    def checkpointed(self) -> None:
        """Every change is saved (a book kept only in memory has nothing to let go)."""


class HeldBook(SegmentBook):
    """The summaries of a window as another book held them at one moment (``Fold.snapshot``): a
    report's book, not a fold's. It holds what it is given (the window's summaries, or only those
    holding a signal) and answers what a report asks of the book beyond them — how many that book
    held and its newest outside the window — as that book did; its other answers (``outside``,
    ``values``, ``leaving``, ``stale``) are of what it holds alone."""

    def __init__(self, size: int, newest_outside: float | None) -> None:
        super().__init__()
        self._size = size
        self._newest_outside = newest_outside

    def hold(self, summaries: Iterable[SegmentSummary]) -> None:
        for summary in summaries:
            self._summaries[summary.key] = summary

    def __len__(self) -> int:
        return self._size

    def newest_outside(self, window: Window) -> float | None:
        return self._newest_outside
