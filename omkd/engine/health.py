"""Fold segment summaries into per-skill totals, and the thresholds that judge them.

``SkillTotals`` keeps running sums with ``add`` (sign +1 or -1), so a live fold can replace
a segment whose figures grew; every rate is derived from the sums when asked, so a ratio is
always of totals, never an average of ratios. The thresholds (tiers, bands, stability,
soft share) are the README's "How omkd computes" rules, written once here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from omkd.engine.counters import GapCounts
from omkd.engine.plain import add_into

if TYPE_CHECKING:
    from omkd.engine.summary import SegmentSummary

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


@dataclass(slots=True)
class SkillTotals(GapCounts):
    """Running sums over the counted segments of one skill (or of all, for overall)."""

    by_type: Counter[str] = field(default_factory=Counter)
    tool_calls: int = 0
    tool_answered: int = 0
    tool_failures: int = 0
    tool_cancelled: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    duration: float = 0.0
    turns: int = 0
    sessions: Counter[str] = field(default_factory=Counter)
    accessed: Counter[str] = field(default_factory=Counter)
    cwds: Counter[str] = field(default_factory=Counter)
    user_given_misses: int = 0

    def add(self, segment: SegmentSummary, sign: int = 1) -> None:
        self.count(segment.weight, sign)
        self.tool_calls += sign * segment.tool_calls
        self.tool_answered += sign * segment.tool_answered
        self.tool_failures += sign * segment.tool_failures
        self.tool_cancelled += sign * segment.tool_cancelled
        tokens = segment.tokens
        self.input_tokens += sign * tokens[0]
        self.output_tokens += sign * tokens[1]
        self.cache_read_tokens += sign * tokens[2]
        self.cache_creation_tokens += sign * tokens[3]
        self.duration += sign * segment.duration
        self.turns += sign * segment.turns
        self.user_given_misses += sign * len(segment.user_given)
        _bump(self.by_type, (s.type for s in segment.signals), sign)
        _bump(self.sessions, (segment.session_id or "-",), sign)
        _bump(self.accessed, segment.accessed, sign)
        if segment.cwd:
            _bump(self.cwds, (segment.cwd,), sign)

    def merge(self, other: SkillTotals) -> None:
        """Add another skill's totals (skills sharing a metric label)."""
        add_into(self, other)

    @property
    def tokens(self) -> tuple[int, int, int, int]:
        return (self.input_tokens, self.output_tokens, self.cache_read_tokens, self.cache_creation_tokens)

    @property
    def comparable_calls(self) -> int:
        """Answered calls that were not cancelled: the failure rate's denominator."""
        return self.tool_answered - self.tool_cancelled

    @property
    def tool_failure_rate(self) -> float | None:
        comparable = self.comparable_calls
        return self.tool_failures / comparable if comparable else None


def _bump(counter: Counter[str], keys: Iterable[str], sign: int) -> None:
    for key in keys:
        total = counter[key] + sign
        if total:
            counter[key] = total
        else:
            del counter[key]


@dataclass(frozen=True, slots=True)
class Coverage:
    accessed: int
    files: int
    never_accessed: tuple[str, ...]

    @property
    def ratio(self) -> float | None:
        return self.accessed / self.files if self.files else None


def coverage(knowledge_files: frozenset[str], accessed: Counter[str]) -> Coverage:
    """Accessed knowledge files over all knowledge files."""
    hit = knowledge_files.intersection(accessed)
    never = tuple(sorted(knowledge_files - hit))
    return Coverage(len(hit), len(knowledge_files), never)
