"""The daemon's segment book: few summaries in memory, the rest in the state store.

A summary stays in memory while it can still be needed at once — it changed since the last
checkpoint (the store does not have it yet), or its segment is open (its stream is being
written, and /metrics counts open segments on every rebuild). After each checkpoint every
closed one is let go: the store holds it, and the fold reads it back when it is asked for
(a segment read again, a window that moves past it, a status or gaps request). Memory then
grows with the streams being written, not with the segments of the window and retention.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from omkd.daemon.state.queries import summary_of
from omkd.daemon.state.store import StateStore
from omkd.engine.report.gaps import count_gaps
from omkd.engine.segment_book import SegmentBook
from omkd.engine.settle import Counted, CountedBook
from omkd.engine.summary import SegmentSummary
from omkd.engine.window import Window


def _given(summary: SegmentSummary, with_signals: bool = False) -> bool:
    """A saved summary the book gives: not one still waiting for its sub-agent link (the store
    keeps those too: ``LinkBook``'s); ``with_signals``: only one that holds a signal."""
    return not summary.inherit and (bool(summary.signals) or not with_signals)


class StoredSegments(SegmentBook):
    """``SegmentBook``'s answers, from the summaries in memory and those in ``store``."""

    def __init__(self, store: StateStore) -> None:
        super().__init__()
        self._store = store
        self._count = 0
        self._gone: set[str] = set()
        """Forgotten since the last checkpoint: the store still holds them until it deletes them."""
        self._looked_up: tuple[str | None, SegmentSummary | None] = (None, None)
        """The last key read from the store and what it gave: folding a summary asks for its key
        three times in a row (the copy rule, the fold, the upsert). Any change forgets it."""

    @property
    def in_memory(self) -> int:
        return super().__len__()

    def __len__(self) -> int:
        return self._count

    def get(self, key: str) -> SegmentSummary | None:
        summary = self._summaries.get(key)
        if summary is not None or key in self._gone:
            return summary
        looked_up, found = self._looked_up
        if looked_up == key:
            return found
        saved = self._store.segment(key)
        found = None if saved is None or saved.inherit else saved
        self._looked_up = (key, found)
        return found

    def put(self, summary: SegmentSummary, old: SegmentSummary | None) -> None:
        self._looked_up = (None, None)
        if old is None:
            self._count += 1
        self._gone.discard(summary.key)
        super().put(summary, self._summaries.get(summary.key))

    def adopt(self, summary: SegmentSummary) -> None:
        self._looked_up = (None, None)
        self._count += 1
        if summary.open:
            super().put(summary, None)

    def pop(self, key: str) -> SegmentSummary | None:
        old = self.get(key)
        if old is None:
            return None
        self._count -= 1
        self._looked_up = (None, None)
        super().pop(key)
        self._gone.add(key)
        return old

    def _overridden(self, key: str) -> bool:
        """Memory holds a newer version of this saved summary (changed since), or forgot it."""
        return key in self._summaries or key in self._gone

    def _saved(self, summaries: Iterable[SegmentSummary], with_signals: bool = False) -> Iterator[SegmentSummary]:
        """Saved summaries the book gives (``_given``) that memory does not override."""
        for summary in summaries:
            if _given(summary, with_signals) and not self._overridden(summary.key):
                yield summary

    def values(self) -> Iterator[SegmentSummary]:
        yield from super().values()
        yield from self._saved(self._store.segments())

    def inside(self, window: Window) -> Iterator[SegmentSummary]:
        yield from super().inside(window)
        yield from self._saved(self._store.segments(window.since, window.until))

    def gapped_inside(self, window: Window) -> Iterator[SegmentSummary]:
        yield from super().gapped_inside(window)
        yield from self._saved(self._store.segments(window.since, window.until, with_signals=True), with_signals=True)

    def inside_now(self, window: Window, with_signals: bool = False) -> tuple[list[SegmentSummary], list[bytes]]:
        """What ``inside`` (``gapped_inside``: ``with_signals``) gives, as the book holds it now and
        to be decoded later: the summaries in memory, and the saved ones not overridden by memory,
        still encoded (``readable`` decodes them)."""
        held = list(super().gapped_inside(window) if with_signals else super().inside(window))
        rows = self._store.segment_rows(window.since, window.until, with_signals)
        return held, [blob for key, blob in rows if not self._overridden(key)]

    @staticmethod
    def readable(rows: Iterable[bytes], with_signals: bool = False) -> Iterator[SegmentSummary]:
        """The summaries of ``inside_now``'s saved rows that ``inside`` (``gapped_inside``) gives."""
        for blob in rows:
            summary = summary_of(blob)
            if summary is not None and _given(summary, with_signals):
                yield summary

    def outside(self, window: Window) -> Iterator[SegmentSummary]:
        yield from super().outside(window)
        yield from self._saved(self._store.segments(window.since, window.until, inside=False))

    def newest_outside(self, window: Window) -> float | None:
        held = super().newest_outside(window)
        for summary in self._saved(self._store.segments_by_recency(window.since, window.until)):
            if summary.last_ts is not None:  # the newest saved one the book still holds
                return summary.last_ts if held is None else max(held, summary.last_ts)
        return held

    def open_inside(self, window: Window) -> Iterator[SegmentSummary]:
        return super().open_inside(window)  # an open summary is never let go

    def leaving(self, since: float | None, before: float) -> Iterator[SegmentSummary]:
        yield from super().leaving(since, before)
        yield from self._saved(self._store.segments(since, before))

    def count_outside_gaps(
        self, window: Window, skill: str | None, kind: str | None, since: float | None, agent: str | None
    ) -> int:
        """``report.count_gaps`` of the summaries outside ``window``: the saved ones counted by the
        store (without decoding them) but those memory holds a newer version of or has forgotten,
        plus memory's own."""

        def count(summaries: Iterable[SegmentSummary]) -> int:
            return count_gaps(summaries, skill, kind, since, agent)

        held = [*self._summaries, *self._gone]
        stored = self._store.count_signals(window.since, window.until, skill, agent, kind, since, held)
        legacy = self._saved(self._store.legacy_segments())
        stored += count(s for s in legacy if not window.contains(s.first_ts))
        return stored + count(super().outside(window))

    def stale(self, horizon: float) -> list[str]:
        held, gone = self._summaries, self._gone
        saved = [k for k in self._store.segment_keys_seen_before(horizon) if k not in held and k not in gone]
        return super().stale(horizon) + saved  # a waiting one among them is not the book's: popped, it is None

    def checkpointed(self) -> None:
        """Every change is in the store now: let go of the closed summaries."""
        self._looked_up = (None, None)
        self._gone.clear()
        kept = [s for s in self._summaries.values() if s.open]
        self._summaries.clear()
        self._by_start.clear()
        for summary in kept:
            super().put(summary, None)


class StoredCounted(CountedBook):
    """``CountedBook``'s answers, from what changed since the last checkpoint and from ``store``
    (after each checkpoint memory lets go of all of it: the store holds it)."""

    def __init__(self, store: StateStore) -> None:
        super().__init__()
        self._store = store

    def get(self, key: str) -> Counted | None:
        if key in self._counted:
            return self._counted[key]
        return self._store.counted(key)

    def checkpointed(self) -> None:
        self._counted.clear()
        self.changed.clear()
