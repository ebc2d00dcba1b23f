"""How certain each skill's figures are: intervals, bands that respect them, saturation,
the day-to-day trend and the sample-evolution nudge (the statistical-rigour notes).

``daily_series`` groups a window's segments by UTC day; ``assess`` turns a skill's totals
and its days into the report's ``Certainty``. The arithmetic lives in ``stats.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

from pydantic import BaseModel, ConfigDict

from omkd.engine import stats
from omkd.engine.health import SkillTotals
from omkd.engine.live import DAY, day_of
from omkd.engine.segment import SegmentSummary

LEVEL: Final = stats.DEFAULT_CONFIDENCE


@dataclass(slots=True)
class Day:
    segments: int = 0
    gap_segments: int = 0
    weight_sum: float = 0.0


@dataclass(slots=True)
class DailySeries:
    """Per skill (and ``None`` for overall): day number -> that day's figures."""

    by_skill: dict[str | None, dict[int, Day]] = field(default_factory=dict)

    def days(self, skill: str | None) -> list[tuple[int, Day]]:
        return sorted(self.by_skill.get(skill, {}).items())


def daily_series(segments: Iterable[SegmentSummary]) -> DailySeries:
    series = DailySeries()
    for segment in segments:
        if segment.first_ts is None:
            continue
        day = day_of(segment.first_ts)
        weight = segment.weight
        for key in (segment.skill, None):
            entry = series.by_skill.setdefault(key, {}).setdefault(day, Day())
            entry.segments += 1
            entry.gap_segments += 1 if segment.signals else 0
            entry.weight_sum += weight
    return series


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Interval(_Model):
    lower: float
    upper: float
    level: float
    method: str


class Saturation(_Model):
    widths: list[float]
    """Width of the gap rate's Wilson interval after each day, cumulatively."""
    saturated: bool
    """The width changed by under 5 % over the last 3 days: more segments will not change
    the conclusion."""


class Trend(_Model):
    days: list[str]
    daily_gap_rate: list[float]
    daily_weighted_gap_rate: list[float]
    cv: float | None
    """Coefficient of variation of the daily weighted gap rate (sample standard deviation)."""
    unstable: bool
    """cv above 0.15."""


class Certainty(_Model):
    gap_rate_interval: Interval
    weighted_gap_rate_interval: Interval
    health_confident: bool
    """The band is backed by the interval (red: lower bound >= 0.30; green: upper < 0.10)."""
    saturation: Saturation
    trend: Trend
    nudge: bool
    """Gap rate <= 10 % on each of the last 3 days with data (spec §7): widen the tasks."""


def _iso_day(day: int) -> str:
    return datetime.fromtimestamp(day * DAY, UTC).date().isoformat()


def assess(totals: SkillTotals, days: list[tuple[int, Day]]) -> Certainty:
    n, k = totals.segments, totals.gap_segments
    gap_lower, gap_upper = stats.wilson_interval(k, n, LEVEL)
    weight_lower, weight_upper = stats.bootstrap_weighted_interval(*totals.weight_counts, confidence=LEVEL)
    _, confident = stats.confident_band(
        # A bootstrap of a sample without variation collapses to a point; Wilson's bounds on
        # the gap rate keep a tiny sample from looking certain.
        min(weight_lower, gap_lower),
        max(weight_upper, gap_upper),
        totals.weighted_gap_rate,
    )
    cumulative: list[tuple[int, int]] = []
    seen_n = seen_k = 0
    for _, day in days:
        seen_n += day.segments
        seen_k += day.gap_segments
        cumulative.append((seen_k, seen_n))
    widths = stats.interval_widths(cumulative, LEVEL)
    daily_rate = [d.gap_segments / d.segments for _, d in days]
    daily_weighted = [d.weight_sum / d.segments for _, d in days]
    cv = stats.coefficient_of_variation(daily_weighted)
    return Certainty(
        gap_rate_interval=Interval(lower=gap_lower, upper=gap_upper, level=LEVEL, method="wilson"),
        weighted_gap_rate_interval=Interval(
            lower=weight_lower, upper=weight_upper, level=LEVEL, method=f"bootstrap-{stats.DEFAULT_RESAMPLES}"
        ),
        health_confident=confident and n > 0,
        saturation=Saturation(widths=widths, saturated=stats.is_saturated(widths)),
        trend=Trend(
            days=[_iso_day(day) for day, _ in days],
            daily_gap_rate=daily_rate,
            daily_weighted_gap_rate=daily_weighted,
            cv=cv,
            unstable=stats.trend_unstable(cv),
        ),
        nudge=stats.nudge(daily_rate),
    )
