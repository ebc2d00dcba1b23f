"""M4's load at a project write (spec §8.6): the weight of the unresolved anchors since the last
checkpoint, and the bucket of a segment's maximum load."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from omkd.engine.metacog import rules


class Weighed(Protocol):
    """What the load reads of an anchor (``episodes.Anchor``)."""

    @property
    def seq(self) -> int: ...
    @property
    def outcome(self) -> str | None: ...
    @property
    def outcome_seq(self) -> int: ...
    @property
    def miss(self) -> bool: ...
    @property
    def eligible(self) -> bool: ...
    @property
    def message_id(self) -> str: ...


A = TypeVar("A", bound=Weighed)

RESOLVING = frozenset({"recovered", "created", "asked"})


def load_at(anchors: Iterable[A], checkpoint: int, position: int) -> tuple[float, list[A]]:
    """The load of a write at ``position``: anchors after the checkpoint, known before it, not
    resolved at or before it — eligible misses 1.0 (one per assistant message), hedges 0.5."""
    total = 0.0
    messages: set[str] = set()
    making: list[A] = []
    for anchor in anchors:
        if anchor.seq <= checkpoint or anchor.seq >= position:
            continue
        if anchor.outcome in RESOLVING and anchor.outcome_seq <= position:
            continue
        if anchor.miss:
            if not anchor.eligible or anchor.message_id in messages:
                continue
            messages.add(anchor.message_id)
            total += rules.MISS_WEIGHT
        else:
            total += rules.HEDGE_WEIGHT
        making.append(anchor)
    return total, making


def bucket(load: float) -> str:
    """The bucket of a maximum load (``rules.LOAD_BUCKETS``)."""
    if load >= 2:
        return rules.LOAD_BUCKETS[-1]
    return rules.LOAD_BUCKETS[int(load * 2)]
