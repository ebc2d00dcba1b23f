"""The thresholds that judge a skill's figures: tiers, bands, stability, soft share, coverage.

They are the README's "How omkd computes" rules, written once here; the running sums they judge
are the figure catalogue's ``SkillTotals`` (``figures.py``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    pass

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
