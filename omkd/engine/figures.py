"""The figures derived from a set of segments' gap counts, computed in one place.

The report (``omkd scan``, ``/api/v1/status``) and the daemon's window gauges show the same
rates, tier, band and intervals for a skill; they all come from ``derive`` so they cannot
drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from omkd.engine import health, stats
from omkd.engine.counters import GapCounts
from omkd.engine.intervals import rate_interval

LEVEL: Final = stats.DEFAULT_CONFIDENCE


@dataclass(frozen=True, slots=True)
class WindowFigures:
    segments: int
    gap_segments: int
    gap_rate: float
    weighted_gap_rate: float
    soft_share: float
    """gap_rate - weighted_gap_rate: the part of the rate carried by weak signals (>= 0)."""
    tier: str
    band: str
    gap_interval: tuple[float, float]
    """The gap rate's interval at ``LEVEL`` (``intervals.rate_interval``)."""
    weighted_interval: tuple[float, float]
    """The weighted gap rate's interval at ``LEVEL``, the weight sum standing in for successes."""
    confident: bool
    """The band is backed by the intervals (red: lower bound >= 0.30; green: upper < 0.10)."""

    @property
    def indicative(self) -> bool:
        """An underpowered skill's band is shown as indicative only, never as a hard colour."""
        return self.tier == "underpowered"

    @property
    def soft_share_warning(self) -> bool:
        return self.segments > 0 and self.soft_share >= health.SOFT_SHARE_WARN_AT


def derive(counts: GapCounts) -> WindowFigures:
    n, k = counts.segments, counts.gap_segments
    weighted = counts.weighted_gap_rate
    gap_rate = counts.gap_rate
    gap_lower, gap_upper = rate_interval(k, n, LEVEL)
    weight_lower, weight_upper = rate_interval(counts.weight_sum, n, LEVEL)
    _, confident = stats.confident_band(weight_lower, weight_upper, weighted)
    return WindowFigures(
        segments=n,
        gap_segments=k,
        gap_rate=gap_rate,
        weighted_gap_rate=weighted,
        # Exact: (2k - halves)/(2n) - ... computed from integers, so never below 0.
        soft_share=(2 * k - counts.weight_halves) / (2 * n) if n else 0.0,
        tier=health.confidence_tier(n),
        band=health.health_band(weighted),
        gap_interval=(gap_lower, gap_upper),
        weighted_interval=(weight_lower, weight_upper),
        confident=confident and n > 0,
    )
