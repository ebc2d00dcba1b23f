"""The daemon's periodic chores: move the window, prune retention, checkpoint, evict, relist
knowledge. Each has its own timer on the monotonic clock."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from omkd.daemon.clock import Clock
from omkd.daemon.exporter import Exporter
from omkd.daemon.knowledge import KnowledgeView
from omkd.daemon.parts import Parts

EVICT_EVERY: Final = 60.0
WINDOW_EVERY: Final = 10.0
PRUNE_EVERY: Final = 600.0
BURST_CHECKPOINT_GAP: Final = 0.2
"""At least this long between two checkpoints taken because a read burst ended: a busy host
writing 50 records a second gets at most 5 fsyncs a second, not 50, and /metrics still shows a
write within a fraction of a second."""


class Chores:
    def __init__(self, parts: Parts, knowledge: KnowledgeView, exporter: Exporter, clock: Clock) -> None:
        self._reader, self._keeper, self._history = parts.reader, parts.keeper, parts.history
        self._knowledge = knowledge
        self._exporter = exporter
        self._clock = clock
        now = clock.monotonic()
        self.checkpoint_due = now + self._keeper.config.state.checkpoint_interval
        self.evict_due = now + EVICT_EVERY
        self.window_due = now + WINDOW_EVERY
        self.prune_due = now
        self.last_checkpoint = -BURST_CHECKPOINT_GAP

    def next_due(self) -> float:
        """The earliest of the timers the main loop must wake for."""
        return min(self.checkpoint_due, self.window_due)

    def run(self, cwds: Iterable[str], replaying: bool = False) -> bool:
        """Do what is due; True when a checkpoint was saved (or tried)."""
        keeper, now = self._keeper, self._clock.monotonic()
        saved = False
        if now >= self.window_due:
            if keeper.advance():
                self._exporter.dirty = True
            if not replaying:
                self.give_up_waiting()
            self.window_due = now + WINDOW_EVERY
        if now >= self.prune_due and not replaying and not self._history.recounting:
            # Never while history is read: what is pruned must not depend on how far reading got.
            keeper.pruned()
            self.prune_due = now + PRUNE_EVERY
        if now >= self.checkpoint_due or keeper.wants_checkpoint():
            saved = self.checkpoint()
        if now >= self.evict_due:
            self._reader.evict_idle()
            self.evict_due = now + EVICT_EVERY
        if self._knowledge.due() and self._knowledge.refresh(cwds):
            self._exporter.dirty = True
        return saved

    def give_up_waiting(self) -> None:
        """Sub-agent segments whose link did not come within the timeout count as ``general``; the
        launches of streams quiet for ``segments.idle_close`` settle; the open segments idle now settle
        (never while history is read: more of their streams may be on disk, and what settles must not
        depend on how far reading got)."""
        if self._keeper.give_up_waiting() + self._keeper.settle_quiet():
            self._exporter.dirty = True
        if not self._history.recounting:
            self._keeper.settle()

    def checkpoint(self) -> bool:
        """Save what changed since the last checkpoint; True when something had (saved or tried)."""
        keeper = self._keeper
        now = self._clock.monotonic()
        saved = keeper.dirty
        if saved:
            keeper.checkpoint()
            self._reader.evict_excess()
            self.last_checkpoint = now
        self.checkpoint_due = now + self._keeper.config.state.checkpoint_interval
        return saved

    def burst_ended(self) -> None:
        """A read burst ended: checkpoint now, or within BURST_CHECKPOINT_GAP of the last one."""
        soonest = self.last_checkpoint + BURST_CHECKPOINT_GAP
        if self._clock.monotonic() >= soonest:
            self.checkpoint()
        else:
            self.checkpoint_due = min(self.checkpoint_due, soonest)
