"""Bounded sets of names: skills as metric labels, knowledge bases, unknown record types.

Names that come from transcript text must never grow a set without bound (a Prometheus
label, a counter key in the state). ``CappedLabels`` hands out the name itself while there
is room, and ``__other__`` afterwards, remembering which names overflowed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from omkd.engine.native import mypyc_attr

OTHER: Final = "__other__"


OVERFLOW_KEPT: Final = 10_000
"""Names remembered beyond the cap (for their count): a hostile stream of new names stays bounded."""


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
class CappedLabels:
    """At most ``cap`` distinct names; later ones share ``OTHER``. First come, first kept."""

    __slots__ = ("cap", "labelled", "other", "overflowed")

    def __init__(self, cap: int, known: Iterable[str] = (), other: str = OTHER) -> None:
        if cap < 1:
            raise ValueError(f"cap must be at least 1, got {cap}")
        self.cap = cap
        self.other = other
        self.labelled: dict[str, None] = dict.fromkeys(list(known)[:cap])
        self.overflowed: set[str] = set()

    def label(self, name: str) -> str:
        if name in self.labelled:
            return name
        if len(self.labelled) < self.cap:
            self.labelled[name] = None
            return name
        if len(self.overflowed) < OVERFLOW_KEPT:
            self.overflowed.add(name)
        return self.other

    def __getstate__(self) -> dict[str, Any]:
        return {
            "cap": self.cap,
            "other": self.other,
            "labelled": list(self.labelled),
            "overflowed": sorted(self.overflowed),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.cap = int(state["cap"])
        self.other = str(state["other"])
        self.labelled = dict.fromkeys(str(name) for name in state["labelled"])
        self.overflowed = {str(name) for name in state["overflowed"]}
