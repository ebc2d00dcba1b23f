"""What ``omkd impact`` and ``/api/v1/impact`` are asked (spec §9): a plain record, apart from the
report's building so that a scan, the config and the daemon name it without importing that."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from omkd.engine.impact.changes import DEFAULT_MERGE_WITHIN, DEFAULT_SPAN


@dataclass(frozen=True, slots=True)
class ImpactQuery:
    """What ``omkd impact`` and ``/api/v1/impact`` are asked: the span each side, the merge
    distance, the changes since a moment, some skills, some agents (None: all)."""

    span: float = DEFAULT_SPAN
    merge_within: float = DEFAULT_MERGE_WITHIN
    since: float | None = None
    skills: Collection[str] | None = None
    agents: Collection[str] | None = None
    roots: Sequence[str] = field(default_factory=tuple)
