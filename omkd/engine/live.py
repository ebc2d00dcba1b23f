"""The live fold: what the daemon keeps on top of ``Fold`` (still pure: no I/O, no clock).

Everything per skill is kept per row (``skills.row_key``: a skill, for the agent that ran it).

- all-time per-skill counters for Prometheus, which only ever rise: a segment's figures
  only grow, and when a replaced file is read again from the start its segments' smaller
  early figures are not subtracted (only what exceeds the earlier high-water mark counts); the
  figures an outcome of spec §8 can revise count a segment once it is settled (``settle.py``);
- daily roll-ups per skill (by the UTC day a segment starts) for trends;
- a window that moves with the clock and a retention that forgets old segments.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable

from omkd.engine.counters import GapCounts, PastRetention
from omkd.engine.figures import AllTimeCounts, SkillCounters, reaches
from omkd.engine.fold import Fold, kept_copy
from omkd.engine.links import Link
from omkd.engine.segment_book import SegmentBook
from omkd.engine.settle import CountedBook, Settler
from omkd.engine.summary import SegmentSummary
from omkd.engine.timespec import day_of
from omkd.engine.window import Window


def _signal_counts(summary: SegmentSummary | None) -> Counter[str]:
    return Counter(s.type for s in summary.signals) if summary is not None else Counter()


def _stream_key(key: str) -> str:
    """The stream key in a segment key (``Segment.summary``: session, stream key, ordinal)."""
    return key.split("|", 1)[1].rsplit("|", 1)[0]


def _renamed(summary: SegmentSummary, old: str, new: str) -> SegmentSummary:
    """``summary`` of a file renamed from ``old`` to ``new``; its key has the new name when the
    stream is keyed by its name."""
    session, rest = summary.key.split("|", 1)
    stream_key, ordinal = rest.rsplit("|", 1)
    key = f"{session}|{new}|{ordinal}" if stream_key == old else summary.key
    return dataclasses.replace(summary, stream=new, key=key)


class LiveFold:
    """Per-skill counters, the windowed fold and daily roll-ups, kept in step."""

    def __init__(
        self,
        window_length: float,
        retention: float,
        rollup_days: int,
        now: float,
        book: SegmentBook | None = None,
        counted: CountedBook | None = None,
    ) -> None:
        self.window_length = window_length
        self.retention = retention
        self.rollup_days = rollup_days
        self.fold = Fold(Window(since=now - window_length), book)
        self.counters: dict[str, AllTimeCounts] = {}
        self.rollups: dict[tuple[int, str], GapCounts] = {}
        self.last_event_ts: float | None = None
        self.past_retention = PastRetention()
        """The segments pruned past retention (saved with each checkpoint; counted anew when the
        history on disk is read again)."""
        #: keys of segments changed or forgotten since the last checkpoint took them.
        self.changed_segments: set[str] = set()
        self.changed_links: set[str] = set()
        self.changed_rollups: set[tuple[int, str]] = set()
        self.changed_skills: set[str] = set()
        #: While pruned history is read again (``recount``): segments last active before this had
        #: been counted and pruned; read again they are kept, not counted again.
        self.recount_before: float | None = None
        self._recounted: set[str] = set()
        """Keys of pruned segments read again during the recount (every update of theirs is kept
        uncounted until it ends)."""
        self._unconfirmed: set[str] = set()
        """Keys of the streams read again that the new reading has not given yet: at the end of the
        recount, those it never gave (other rules cut other segments) are forgotten."""
        self._counted: dict[str, SegmentSummary] = {}
        """What the counters counted of a segment, where the fold now holds less of it (a stream read
        again from its start hands out smaller summaries first): the high-water mark its growth is
        measured from, until the new reading passes it."""
        self.settler = Settler(counted)
        """The segments waiting to settle, and what was counted of the settled ones."""
        self._held_since: dict[str, float] = {}
        """Waiting sub-agent summaries without any timestamp: the event time they were first seen
        waiting at (``give_up_waiting``), from which their wait is measured."""

    def recount(self, before: float, streams: Iterable[str] = ()) -> None:
        """These streams are about to be read again from their start: do not count twice what was
        counted (pruned segments last active before ``before`` included)."""
        self.recount_before = before if self.recount_before is None else max(self.recount_before, before)
        self.past_retention = PastRetention()  # what is still past retention is pruned, and counted, again
        names = set(streams)
        self._unconfirmed |= {key for key, s in self.fold.segments.items() if s.stream in names}

    def end_recount(self, reread: set[str] | None = None) -> tuple[int, int]:
        """The history on disk has been read again (the streams ``reread`` to their end; None: all):
        (pruned segments it gave back, segments it no longer gives, forgotten)."""
        recovered = len(self._recounted)
        gone = [
            key
            for key in self._unconfirmed
            if (summary := self.fold.segments.get(key)) is not None and (reread is None or summary.stream in reread)
        ]
        for key in gone:
            self._rollup(self.fold.segments.get(key), -1)
            self.fold.forget(key)
            self._counted.pop(key, None)
            self.settler.forget(key)
            self.changed_segments.add(key)
        self.recount_before = None
        self._recounted.clear()
        self._unconfirmed.clear()
        return recovered, len(gone)

    def restore(
        self,
        segments: Iterable[SegmentSummary],
        counters: dict[str, AllTimeCounts],
        rollups: dict[tuple[int, str], GapCounts],
        links: Iterable[Link] = (),
    ) -> None:
        """Take back what a checkpoint saved (nothing of it counts as changed)."""
        for link in links:
            self.fold.links.known[link.key] = link
        latest: float | None = None
        for summary in segments:
            if summary.inherit:
                self.fold.links.pending[summary.key] = summary
            else:
                self.fold.adopt(summary)
                if summary.open:  # counted as it was saved; it settles when it closes or idles
                    self.settler.waiting[summary.key] = summary.last_ts or 0.0
            if summary.last_ts is not None and (latest is None or summary.last_ts > latest):
                latest = summary.last_ts
        self.counters.update(counters)
        self.rollups.update(rollups)
        self.last_event_ts = latest
        self.clear_changes()

    def clear_changes(self) -> None:
        """Every change is saved (or was restored): the book may let go of what the store holds."""
        self.fold.segments.checkpointed()
        self.changed_segments.clear()
        self.changed_links.clear()
        self.changed_rollups.clear()
        self.changed_skills.clear()
        self.settler.book.checkpointed()

    def apply(self, summary: SegmentSummary, again: bool = False) -> None:
        """Fold a segment's latest summary, or hold it while its skill is a link not learnt yet.

        Two files that hold one stream (a session copied, or kept at two moments; under one name in
        two roots, or one after the other) give the same segment keys: the copy a scan keeps wins,
        read further, whichever is read first (``kept_copy``). A file read ``again`` (a new version
        of it: truncated, rewritten, replaced; or its parser state lost) gives what the file now
        says: it replaces, as does the history read again (``recount``)."""
        if self.recount_before is None and not again:
            held = self.stored(summary.key)
            if held is not None and kept_copy(held, summary):
                return
        self.changed_segments.add(summary.key)
        if summary.last_ts is not None and (self.last_event_ts is None or summary.last_ts > self.last_event_ts):
            self.last_event_ts = summary.last_ts
        ready = self.fold.settle(summary)
        if ready is not None:
            self._fold(ready)

    def learn(self, link: Link) -> None:
        """A launching stream names a sub-agent's skill: fold what waited for it."""
        self.changed_links.add(link.key)
        for ready in self.fold.links.learn(link):
            self._fold(ready)

    def give_up_waiting(self, now: float, timeout: float) -> int:
        """Sub-agent segments that started more than ``timeout`` before ``now`` (event time: the later
        of the clock and the newest record) without a link count as ``general``. One without any
        timestamp counts from the first time it is seen waiting here: as in a batch read, where
        every waiting segment counts as ``general`` at the end, it never waits for ever."""
        latest = max(now, self.last_event_ts or now)
        pending = self.fold.links.pending
        held = self._held_since
        for key in [k for k in held if k not in pending]:
            del held[key]
        for key, summary in pending.items():
            if summary.first_ts is None:
                held.setdefault(key, latest)
        given_up = self.fold.links.flush(latest - timeout, held)
        for summary in given_up:
            self._fold(summary)
        return len(given_up)

    def take_back(self, key: str) -> None:
        """Forget a segment folded before its launch was decided (``quiet.py``), the launch since
        undone: the window and the roll-ups lose it; the all-time counters, which only rise, keep it."""
        old = self.fold.forget(key)
        self.fold.links.pending.pop(key, None)
        self._rollup(old, -1)
        self._counted.pop(key, None)
        self.settler.forget(key)
        self.changed_segments.add(key)

    def rename(self, old: str, new: str, stream_key: str) -> None:
        """A file was renamed: the segments of its stream (``stream_key``; another file once under
        its name keeps it) take its new name, and those keyed by the name (nothing in the stream's
        content tells it apart) the key a reading of the file now gives them. No figure changes: the
        window and the counters count them once, under their new key."""
        fold = self.fold

        def ours(summary: SegmentSummary) -> bool:
            return summary.stream == old and _stream_key(summary.key) == stream_key

        for summary in [s for s in fold.segments.values() if ours(s)]:
            renamed = _renamed(summary, old, new)
            fold.forget(summary.key)
            fold.upsert(renamed)
            if summary.key in self._counted:
                self._counted[renamed.key] = self._counted.pop(summary.key)
            self.settler.rename(summary.key, renamed.key)
            self.changed_segments.update((summary.key, renamed.key))
        pending = fold.links.pending
        for summary in [s for s in pending.values() if ours(s)]:
            del pending[summary.key]
            renamed = _renamed(summary, old, new)
            pending[renamed.key] = renamed
            self.changed_segments.update((summary.key, renamed.key))

    def stored(self, key: str) -> SegmentSummary | None:
        """The summary to save under ``key``: folded, or still waiting for its link."""
        return self.fold.segments.get(key) or self.fold.links.pending.get(key)

    def _fold(self, summary: SegmentSummary) -> None:
        fold = self.fold
        key = summary.key
        old = fold.segments.get(key)
        self._unconfirmed.discard(key)
        if self._recounted_again(summary, old):
            fold.upsert(summary)  # in the fold (and the window) again; counters and roll-ups had it
            self.settler.assume(summary)
            self.changed_segments.add(key)
            return
        counted = self._counted.get(key, old)
        self._count(counted, summary)
        if counted is not None and not reaches(summary, counted):
            self._counted[key] = counted
        else:
            self._counted.pop(key, None)
        self._rollup(old, -1)
        self._rollup(summary, 1)
        fold.upsert(summary)
        self.changed_segments.add(summary.key)
        self._settle(summary, None, new=old is None)

    def _settle(self, summary: SegmentSummary, open_after: float | None, new: bool = False) -> None:
        grown = self.settler.count(summary, open_after, new)
        if grown:
            counters = self.counters.get(summary.row) or self.counters.setdefault(summary.row, SkillCounters())
            for name, value in grown.items():
                setattr(counters, name, getattr(counters, name) + value)
            self.changed_skills.add(summary.row)

    def settle_idle(self, open_after: float) -> None:
        """Count the open segments whose last record is older than ``open_after`` (idle: settled)."""
        for key in self.settler.idle(open_after):
            summary = self.fold.segments.get(key)
            if summary is not None:
                self._settle(summary, open_after)

    def _recounted_again(self, summary: SegmentSummary, old: SegmentSummary | None) -> bool:
        if summary.key in self._recounted:
            return True
        before = self.recount_before
        if old is not None or before is None:
            return False
        last = summary.last_ts if summary.last_ts is not None else summary.first_ts
        if last is None or last >= before:
            return False
        self._recounted.add(summary.key)
        return True

    def _count(self, old: SegmentSummary | None, new: SegmentSummary) -> None:
        row = new.row
        counters = self.counters.get(row)
        if counters is None:
            counters = self.counters[row] = SkillCounters()
        self.changed_skills.add(row)
        if old is None or old.row != row:
            counters.segments += 1
            old = None
        if new.signals and (old is None or not old.signals):
            counters.gap_segments += 1
        old_halves = round(2 * old.weight) if old is not None else 0
        counters.weight_halves += max(0, round(2 * new.weight) - old_halves)
        old_signals = _signal_counts(old)
        for kind, count in _signal_counts(new).items():
            counters.signals[kind] += max(0, count - old_signals[kind])
        counters.grow(old, new)

    def _rollup(self, summary: SegmentSummary | None, sign: int) -> None:
        if summary is None or summary.first_ts is None:
            return
        key = (day_of(summary.first_ts), summary.row)
        rollup = self.rollups.get(key)
        if rollup is None:
            rollup = self.rollups[key] = GapCounts()
        rollup.count(summary.weight, sign)
        self.changed_rollups.add(key)

    def advance(self, now: float) -> bool:
        """Move the window to end at ``now``; True when a segment left it."""
        return self.fold.advance(now - self.window_length) > 0

    def prune(self, now: float) -> None:
        """Forget segments and roll-ups past retention (a walk over every segment: seldom)."""
        horizon = now - self.retention
        for key in self.fold.segments.stale(horizon):
            old = self.fold.forget(key)
            if old is not None:
                self.past_retention.forgot(old.last_ts if old.last_ts is not None else old.first_ts)
            self._counted.pop(key, None)
            self.settler.forget(key)
            self.changed_segments.add(key)
        self.changed_links.update(self.fold.links.forget_before(horizon))  # deleted from the store too
        oldest_day = day_of(now) - self.rollup_days
        for day_key in [k for k in self.rollups if k[0] < oldest_day]:
            del self.rollups[day_key]
            self.changed_rollups.add(day_key)

    def unrecoverable(self, since: float, until: float) -> int:
        """Segments the daily roll-ups count from day ``since`` to the day before ``until`` that the
        fold does not hold: pruned, and not read again (their transcripts are gone). Days are UTC
        days of a segment's start, so the edges are counted to the day."""
        first, last = day_of(since), day_of(until)
        counted = sum(r.segments for (day, _), r in self.rollups.items() if first <= day < last)
        held = sum(
            1 for s in self.fold.segments.values() if s.first_ts is not None and first <= day_of(s.first_ts) < last
        )
        return max(0, counted - held)

    def window(self) -> Window:
        return self.fold.window
