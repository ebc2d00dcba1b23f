"""Segment summaries in, per-skill totals out: ``Fold``.

The fold keeps the latest summary of every segment and the per-skill totals of those inside its
event-time window. A segment's figures only grow, and the fold replaces its old summary by the new
one, so folding after every chunk or once at the end gives the same totals.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from typing import Final

from omkd.engine.counters import PastRetention, PipelineCounters
from omkd.engine.figures import SkillTotals
from omkd.engine.links import Link, LinkBook
from omkd.engine.plain import copy_record
from omkd.engine.segment_book import HeldBook, SegmentBook
from omkd.engine.stream import StreamProcessor, StreamRead
from omkd.engine.summary import SegmentSummary
from omkd.engine.window import Window

_FINGERPRINT_MOD: Final = 1 << 64


def kept_copy(held: SegmentSummary, other: SegmentSummary) -> bool:
    """Of two files' summaries of one segment (two copies of a stream: a session copied, or kept
    at two moments), ``held`` is the one to keep: read further, or as far and later in the order a
    scan discovers files (a folder's files, sorted, before its sub-folders); of two as far under one
    name (the same file read again, or two roots' files of one relative path) the later."""
    if held.end_line != other.end_line:
        return held.end_line > other.end_line
    return discovery_order(held.stream) > discovery_order(other.stream)


def discovery_order(name: str) -> tuple[tuple[int, str], ...]:
    """A sort key of a file's name (its path below its root) in ``omkd scan``'s walk order."""
    *folders, file = name.split("/")
    return (*((1, folder) for folder in folders), (0, file))


def segment_fingerprint(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")


def short_fingerprint(value: int) -> str:
    """The fingerprint of a segment set as the watermark writes it (spec §1): 12 hex digits."""
    return f"{value:016x}"[:12]


class Fold:
    """The latest summary of every segment, and totals of those inside the window."""

    def __init__(self, window: Window | None = None, book: SegmentBook | None = None) -> None:
        self.window = window or Window()
        self.segments = book if book is not None else SegmentBook()
        """Every segment's latest summary (in memory, or mostly in the daemon's state store)."""
        self.skills: dict[str, SkillTotals] = {}
        """Totals by row (``skills.row_key``: the skill, for its agent)."""
        self.overall = SkillTotals()
        self.fingerprint = 0
        self.counters = PipelineCounters()
        self.links = LinkBook()

    @property
    def outside_window(self) -> int:
        """Segments kept but outside the window (older than it, or newer)."""
        return len(self.segments) - self.overall.segments

    def outside(self, past: PastRetention) -> tuple[int, float | None]:
        """Segments read outside the window (kept here, or forgotten past retention: ``past``), and
        the newest one's last event: what an empty window must say, in every view and on /metrics."""
        kept = self.outside_window
        newest = [t for t in (self.segments.newest_outside(self.window) if kept else None, past.newest) if t]
        return kept + past.segments, max(newest, default=None)

    def snapshot(self) -> Fold:
        """The fold's figures as they are now, for a report built while this fold goes on: the
        totals copied, and a ``HeldBook`` answering as this book does now, which holds the window's
        summaries the caller reads now and gives it (``daemon/snapshot.py``)."""
        newest = self.segments.newest_outside(self.window) if self.outside_window else None
        copy = Fold(self.window, HeldBook(len(self.segments), newest))
        copy.skills = {row: copy_record(totals) for row, totals in self.skills.items()}
        copy.overall = copy_record(self.overall)
        copy.fingerprint = self.fingerprint
        copy.counters = copy_record(self.counters)
        return copy

    def add_stream(self, stream: StreamProcessor) -> None:
        """Fold a stream read to its end (``StreamRead.of``)."""
        self.add_read(StreamRead.of(stream))

    def add_read(self, read: StreamRead) -> None:
        """Fold what a stream read to its end gave: its segments, its links and its counters.

        A sub-agent segment whose launching stream is not folded yet waits in ``links``;
        ``finish`` folds what still waits once every stream is in. Two copies of one stream (a
        session kept at two moments) give the same segment keys: the copy read further wins, in
        whatever order they come.
        """
        for summary in read.summaries:
            folded = self.segments.get(summary.key) or self.links.pending.get(summary.key)
            if folded is not None and kept_copy(folded, summary):
                continue  # another copy of the same stream, read further: its figures include these
            self.offer(summary)
        for link in read.links:
            self.learn(link)
        self.counters.add_stream(read.counters)
        self.counters.files += 1
        if read.partial_at_end:
            self.counters.partial_at_end += 1

    def offer(self, summary: SegmentSummary) -> None:
        """Fold a summary, or hold it while its skill is a link not learnt yet."""
        ready = self.settle(summary)
        if ready is not None:
            self.upsert(ready)

    def settle(self, summary: SegmentSummary) -> SegmentSummary | None:
        """The summary with its skill known, or None while it waits. A segment folded before keeps
        the skill it was folded with (resolved, or given up on): later growth does not wait again."""
        if summary.inherit:
            folded = self.segments.get(summary.key)
            if folded is not None:
                return dataclasses.replace(summary, skill=folded.skill, inherit=())
        return self.links.offer(summary)

    def learn(self, link: Link) -> None:
        for ready in self.links.learn(link):
            self.upsert(ready)

    def finish(self) -> None:
        """Every stream is in: sub-agent segments still without their link count as ``general``."""
        for ready in self.links.flush():
            self.upsert(ready)

    def upsert(self, summary: SegmentSummary) -> None:
        """Add a new segment or replace an older summary of it."""
        old = self.segments.get(summary.key)
        self.segments.put(summary, old)
        if old is not None and self.window.contains(old.first_ts):
            self._count(old, -1)
        if self.window.contains(summary.first_ts):
            self._count(summary, 1)

    def adopt(self, summary: SegmentSummary) -> None:
        """Take back a saved summary (a restart): counted in the window, nothing to replace."""
        self.segments.adopt(summary)
        if self.window.contains(summary.first_ts):
            self._count(summary, 1)

    def forget(self, key: str) -> SegmentSummary | None:
        """Drop a segment entirely (retention); the summary dropped."""
        old = self.segments.pop(key)
        if old is not None and self.window.contains(old.first_ts):
            self._count(old, -1)
        return old

    def advance(self, since: float) -> int:
        """Move the window's start forward to ``since``; the number of segments that fell out."""
        current = self.window.since
        if current is not None and since <= current:
            return 0
        leaving = self.window
        self.window = Window(since, leaving.until)
        dropped = 0
        for summary in self.segments.leaving(current, since):
            if leaving.contains(summary.first_ts):
                self._count(summary, -1)
                dropped += 1
        return dropped

    def rewindow(self, window: Window) -> None:
        """Use another window, recounting every segment (for a changed window length)."""
        self.window = window
        self.skills.clear()
        self.overall = SkillTotals()
        self.fingerprint = 0
        self.segments.reindex()
        for summary in self.segments.inside(window):
            self._count(summary, 1)

    def _count(self, summary: SegmentSummary, sign: int) -> None:
        row = summary.row
        totals = self.skills.get(row)
        if totals is None:
            totals = self.skills[row] = SkillTotals()
        totals.add(summary, sign)
        self.overall.add(summary, sign)
        if totals.segments == 0:
            del self.skills[row]
        self.fingerprint = (self.fingerprint + sign * segment_fingerprint(summary.key)) % _FINGERPRINT_MOD

    def in_window(self) -> Iterator[SegmentSummary]:
        return self.segments.inside(self.window)

    def gapped_in_window(self) -> Iterator[SegmentSummary]:
        """The segments in the window that hold a signal."""
        return self.segments.gapped_inside(self.window)

    def open_in_window(self) -> Iterator[SegmentSummary]:
        """The open segments in the window: those of a stream still being written."""
        return self.segments.open_inside(self.window)
