"""When a segment's provisional figures are counted: the live fold's all-time counters of spec §8.

An open segment's outcomes are decided as the stream's end where it was read to would decide them:
a miss left now may be found by a later read, and a ``dropped`` becomes a ``recovered``. An all-time
counter never falls, so the figures an outcome can revise (``Figure.settled``: ``SETTLED``) count a
segment only once it is *settled*: closed (a later segment began in its stream, or the stream ended)
or idle (its last record older than ``segments.idle_close`` before now: what a report no longer
calls open). A settled segment that grows again (its file appended after an idle pause; a failed
launch undone) adds only what exceeds what was counted of it, figure by figure — and within a partition
by outcome only as far as the partition's total grew (``within_partitions``): what was counted is
kept by segment key (``CountedBook``), saved with the counters, forgotten with the segment. The
window gauges show the provisional figures at once.
"""

from __future__ import annotations

from typing import TypeAlias

from omkd.engine.figures import COUNTED
from omkd.engine.summary import SegmentSummary

SETTLED = tuple((name, spec) for name, spec in COUNTED if spec.settled)
"""The counter figures counted once a segment is settled."""


def _partitions() -> dict[str, tuple[str, ...]]:
    """Each partition member's figures (``Figure.partition``): same counter, same labels but ``outcome``."""
    families: dict[tuple[object, ...], list[str]] = {}
    for name, spec in SETTLED:
        if spec.partition:
            others = tuple(label for label in spec.labels if label[0] != "outcome")
            families.setdefault((spec.counter, others), []).append(name)
    return {name: tuple(members) for members in families.values() for name in members}


PARTITION_OF = _partitions()
"""A partition member's name -> its partition's members, in the catalogue's order."""

Counted: TypeAlias = tuple[str, tuple[tuple[str, int], ...]]
"""What the counters counted of one segment: its row, and each settled figure's value (not 0)."""


def settled(summary: SegmentSummary, open_after: float | None) -> bool:
    """Closed, or idle: its last record (none: 0) older than ``open_after`` (None: only closed)."""
    return not summary.open or (open_after is not None and (summary.last_ts or 0.0) < open_after)


def figures_of(summary: SegmentSummary) -> dict[str, int]:
    """The settled figures a summary holds (those not 0)."""
    return {name: value for name, spec in SETTLED if (value := int(spec.of(summary)))}


class CountedBook:
    """What was counted of each settled segment, by key, all in memory (the daemon's keeps only what
    changed since its last checkpoint and reads the rest from its state store: ``StoredCounted``)."""

    def __init__(self) -> None:
        self._counted: dict[str, Counted | None] = {}
        """None: forgotten (a book kept in a store must not read the store's copy back)."""
        self.changed: set[str] = set()

    def get(self, key: str) -> Counted | None:
        return self._counted.get(key)

    def put(self, key: str, counted: Counted | None) -> None:
        self._counted[key] = counted
        self.changed.add(key)

    def changes(self) -> dict[str, Counted | None]:
        """What changed since the last checkpoint (None: to delete)."""
        return {key: self._counted.get(key) for key in self.changed}

    def checkpointed(self) -> None:
        """Every change is saved."""
        for key in self.changed:
            if self._counted.get(key) is None:
                self._counted.pop(key, None)
        self.changed.clear()


class Settler:
    """Which segments wait to settle, and what settling one adds to its row's counters."""

    def __init__(self, book: CountedBook | None = None) -> None:
        self.book = book if book is not None else CountedBook()
        self.waiting: dict[str, float] = {}
        """Open segments folded and not settled: key -> last record (0.0: none)."""

    def count(self, summary: SegmentSummary, open_after: float | None = None, new: bool = False) -> dict[str, int]:
        """What ``summary`` adds to the counters of its row: nothing until it is settled (it waits),
        then what its settled figures hold beyond what was counted of it (``new``: a segment the
        fold did not hold, of which nothing was counted: the book is not asked)."""
        key, row = summary.key, summary.row
        if not settled(summary, open_after):
            self.waiting[key] = summary.last_ts or 0.0
            return {}
        self.waiting.pop(key, None)
        now = figures_of(summary)
        if not now:
            return {}
        held = None if new else self.book.get(key)
        before = dict(held[1]) if held is not None and held[0] == row else {}
        grown = within_partitions(
            before,
            now,
            {name: value - before.get(name, 0) for name, value in now.items() if value > before.get(name, 0)},
        )
        if grown or (held is not None and held[0] != row):
            counted = before | {name: before.get(name, 0) + more for name, more in grown.items()}
            self.book.put(key, (row, tuple(sorted(counted.items()))))
        return grown

    def assume(self, summary: SegmentSummary) -> None:
        """``summary``'s settled figures were counted already (a pruned segment read again)."""
        now = figures_of(summary)
        held = self.book.get(summary.key)
        before = dict(held[1]) if held is not None and held[0] == summary.row else {}
        merged = before | grown_to(before, now)
        if merged and merged != before:
            self.book.put(summary.key, (summary.row, tuple(sorted(merged.items()))))

    def idle(self, open_after: float) -> list[str]:
        """The waiting segments idle now (no longer waiting): to settle."""
        keys = [key for key, last in self.waiting.items() if last < open_after]
        for key in keys:
            del self.waiting[key]
        return keys

    def rename(self, old: str, new: str) -> None:
        """A segment's key changed (its file was renamed): what waits and what was counted move."""
        if old in self.waiting:
            self.waiting[new] = self.waiting.pop(old)
        held = self.book.get(old)
        if held is not None:
            self.book.put(new, held)
            self.book.put(old, None)

    def forget(self, key: str) -> None:
        """The segment is forgotten (pruned, or no longer cut): what was counted of it too."""
        self.waiting.pop(key, None)
        self.book.put(key, None)


def within_partitions(before: dict[str, int], now: dict[str, int], grown: dict[str, int]) -> dict[str, int]:
    """``grown`` with each partition's members growing together only as far as the partition's total
    grew. A counter cannot take a count back: a segment (an anchor) counted as ``dropped`` whose outcome
    is revised to ``recovered`` after it settled stays counted as dropped, so the five outcomes still
    sum to the lookup-gap segments (the window gauges show the revised outcome)."""
    kept = dict(grown)
    done: set[tuple[str, ...]] = set()
    for name in grown:
        members = PARTITION_OF.get(name)
        if members is None or members in done:
            continue
        done.add(members)
        allowance = sum(now.get(m, 0) for m in members) - sum(before.get(m, 0) for m in members)
        for member in members:
            if member in kept:
                take = min(kept[member], max(0, allowance))
                allowance -= take
                if take:
                    kept[member] = take
                else:
                    del kept[member]
    return kept


def grown_to(before: dict[str, int], now: dict[str, int]) -> dict[str, int]:
    """The figures of ``now`` above ``before``, at their value in ``now``."""
    return {name: value for name, value in now.items() if value > before.get(name, 0)}
