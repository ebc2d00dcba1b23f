"""What the reader hands what it reads to: the ``Sink`` protocol (the keeper answers it)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Protocol

from omkd.engine.counters import StreamCounters
from omkd.engine.links import Link
from omkd.engine.summary import SegmentSummary


class Sink(Protocol):
    """Where the reader hands what it read (``keeper.Keeper``): the segments that changed, the last ones
    of a stream that ended (``close``) — ``again``: read from a file read before, they replace what
    its earlier reading gave — a stream's launch left unanswered (``tentative``, settled
    once quiet), that a stream ended or a file was renamed, the links learnt, the pipeline counters
    (a stream's and a file's enter with ``sign`` 1, leave with -1), and that a metric could show a
    change."""

    def take(self, summaries: Iterable[SegmentSummary], again: bool = False) -> None: ...
    def close(self, summaries: Iterable[SegmentSummary], again: bool = False) -> None: ...
    def tentative(
        self, stream: str, summary: SegmentSummary | None, handed: Collection[str], again: bool = False
    ) -> None: ...
    def ended(self, stream: str) -> None: ...
    def rename(self, old: str, new: str, stream_key: str) -> None: ...
    def learn(self, links: Iterable[Link]) -> None: ...
    def count(self, counters: StreamCounters, sign: int) -> None: ...
    def count_file(self, sign: int = 1) -> None: ...
    def changed(self) -> None: ...
