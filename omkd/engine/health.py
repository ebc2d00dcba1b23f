"""Fold segment summaries into SkillHealth figures (spec §4) and coverage (spec §5).

``SkillTotals`` keeps running sums with ``add`` and ``remove``, so a live fold can replace
a segment whose figures grew; every rate is derived from the sums when asked, so a ratio
is always of totals, never an average of ratios.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from omkd.engine.segment import SegmentSummary

UNDERPOWERED_BELOW: Final = 5
LOW_BELOW: Final = 20
RED_AT: Final = 0.30
YELLOW_AT: Final = 0.10
SOFT_SHARE_WARN_AT: Final = 0.10
UNSTABLE_AT: Final = 0.20
VERY_UNSTABLE_AT: Final = 0.40
VERY_UNSTABLE_MIN_CALLS: Final = 5
TIERS: Final = ("underpowered", "low", "high")
BANDS: Final = ("green", "yellow", "red")


def confidence_tier(segments: int) -> str:
    """``underpowered`` below 5 segments, ``low`` below 20, ``high`` from 20."""
    if segments < UNDERPOWERED_BELOW:
        return "underpowered"
    if segments < LOW_BELOW:
        return "low"
    return "high"


def health_band(weighted_gap_rate: float) -> str:
    if weighted_gap_rate >= RED_AT:
        return "red"
    if weighted_gap_rate >= YELLOW_AT:
        return "yellow"
    return "green"


def stability(comparable_calls: int, failures: int) -> str:
    """``unknown`` without comparable calls; ``very-unstable`` needs at least 5 of them."""
    if comparable_calls == 0:
        return "unknown"
    rate = failures / comparable_calls
    if rate >= VERY_UNSTABLE_AT and comparable_calls >= VERY_UNSTABLE_MIN_CALLS:
        return "very-unstable"
    if rate >= UNSTABLE_AT:
        return "unstable"
    return "stable"


def _drop_empty(counter: Counter[str]) -> None:
    for key in [k for k, v in counter.items() if v <= 0]:
        del counter[key]


@dataclass(slots=True)
class SkillTotals:
    """Running sums over the counted segments of one skill (or of all, for overall)."""

    segments: int = 0
    gap_segments: int = 0
    weight_sum: float = 0.0
    half_weight_segments: int = 0
    """Segments whose strongest signal is weak (weight 0.5); the rest of the gap segments weigh 1."""
    by_type: Counter[str] = field(default_factory=Counter)
    tool_calls: int = 0
    tool_answered: int = 0
    tool_failures: int = 0
    tool_cancelled: int = 0
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    duration: float = 0.0
    turns: int = 0
    sessions: Counter[str] = field(default_factory=Counter)
    accessed: Counter[str] = field(default_factory=Counter)
    cwds: Counter[str] = field(default_factory=Counter)
    user_given_misses: int = 0

    def add(self, segment: SegmentSummary, sign: int = 1) -> None:
        self.segments += sign
        if segment.signals:
            self.gap_segments += sign
        weight = segment.weight
        self.weight_sum += sign * weight
        if weight == 0.5:
            self.half_weight_segments += sign
        for signal in segment.signals:
            self.by_type[signal.type] += sign
        self.tool_calls += sign * segment.tool_calls
        self.tool_answered += sign * segment.tool_answered
        self.tool_failures += sign * segment.tool_failures
        self.tool_cancelled += sign * segment.tool_cancelled
        for i, value in enumerate(segment.tokens):
            self.tokens[i] += sign * value
        self.duration += sign * segment.duration
        self.turns += sign * segment.turns
        self.user_given_misses += sign * len(segment.user_given)
        self.sessions[segment.session_id or "-"] += sign
        for path in segment.accessed:
            self.accessed[path] += sign
        if segment.cwd:
            self.cwds[segment.cwd] += sign
        if sign < 0:
            for counter in (self.by_type, self.sessions, self.accessed, self.cwds):
                _drop_empty(counter)

    def remove(self, segment: SegmentSummary) -> None:
        self.add(segment, -1)

    @property
    def gap_rate(self) -> float:
        return self.gap_segments / self.segments if self.segments else 0.0

    @property
    def weighted_gap_rate(self) -> float:
        # Rounded so that sums folded in another order (or with removals) compare equal.
        return round(self.weight_sum / self.segments, 9) if self.segments else 0.0

    @property
    def weight_counts(self) -> tuple[int, int, int]:
        """Segments of weight 0, 0.5 and 1: all a bootstrap of the weighted rate needs."""
        full = self.gap_segments - self.half_weight_segments
        return (self.segments - self.gap_segments, self.half_weight_segments, full)

    @property
    def comparable_calls(self) -> int:
        """Answered calls that were not cancelled: the failure rate's denominator."""
        return self.tool_answered - self.tool_cancelled

    @property
    def tool_failure_rate(self) -> float | None:
        comparable = self.comparable_calls
        return self.tool_failures / comparable if comparable else None


@dataclass(frozen=True, slots=True)
class Coverage:
    accessed: int
    files: int
    never_accessed: tuple[str, ...]

    @property
    def ratio(self) -> float | None:
        return self.accessed / self.files if self.files else None


def coverage(knowledge_files: frozenset[str], accessed: Counter[str]) -> Coverage:
    """Accessed knowledge files over all knowledge files (spec §5)."""
    hit = knowledge_files.intersection(accessed)
    never = tuple(sorted(knowledge_files - hit))
    return Coverage(len(hit), len(knowledge_files), never)
