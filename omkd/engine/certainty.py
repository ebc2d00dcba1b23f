"""How certain each skill's figures are: intervals, bands that respect them, saturation,
the day-to-day trend and the sample-evolution nudge (the statistical-rigour notes).

``daily_series`` groups a window's segments by UTC day; ``assess`` turns a skill's totals
and its days into the report's ``Certainty``. The arithmetic lives in ``stats.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import Final

from omkd.engine import stats
from omkd.engine.counters import GapCounts
from omkd.engine.figures import LEVEL, WindowFigures
from omkd.engine.intervals import METHOD
from omkd.engine.records import Record
from omkd.engine.summary import SegmentSummary
from omkd.engine.timespec import day_of


@dataclass(slots=True)
class DailySeries:
    """Per skill (and ``None`` for overall): day number -> that day's gap counts."""

    by_skill: dict[str | None, dict[int, GapCounts]] = field(default_factory=dict)

    def days(self, skill: str | None) -> list[tuple[int, GapCounts]]:
        return sorted(self.by_skill.get(skill, {}).items())


def daily_series(segments: Iterable[SegmentSummary]) -> DailySeries:
    series = DailySeries()
    for segment in segments:
        if segment.first_ts is None:
            continue
        day = day_of(segment.first_ts)
        weight = segment.weight
        for key in (segment.row, None):
            series.by_skill.setdefault(key, {}).setdefault(day, GapCounts()).count(weight)
    return series


@dataclass(frozen=True, slots=True, kw_only=True)
class Interval(Record):
    lower: float
    upper: float
    level: float
    method: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Saturation(Record):
    widths: list[float]
    """Width of the gap rate's Wilson interval after each day, cumulatively."""
    saturated: bool
    """The width changed by under 5 % over the last 3 days and the band is backed by the
    interval: more segments will not change the conclusion (never for an underpowered skill)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Trend(Record):
    days: list[str]
    daily_gap_rate: list[float]
    daily_weighted_gap_rate: list[float]
    cv: float | None
    """Coefficient of variation of the daily weighted gap rate (sample standard deviation);
    None for an underpowered skill or under 3 days with segments."""
    unstable: bool
    """cv above 0.15."""
    daily_segments: list[int] = field(default_factory=list)
    """Segments of each day (what each day's rates and their intervals are of)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Certainty(Record):
    gap_rate_interval: Interval
    weighted_gap_rate_interval: Interval
    health_confident: bool
    """The band is backed by the interval (red: lower bound >= 0.30; green: upper < 0.10)."""
    saturation: Saturation
    trend: Trend
    nudge: bool
    """Gap rate <= 10 % on each of the last 3 days with data: widen the tasks."""


TREND_DAYS: Final = 3
"""Days with segments a trend (its coefficient of variation) needs."""


_EPOCH_ORDINAL: Final = date(1970, 1, 1).toordinal()


@lru_cache(maxsize=4096)
def _iso_day(day: int) -> str:
    """The ISO date of day number ``day`` (days since 1970-01-01, UTC); every skill of a report
    shares the same few days."""
    return date.fromordinal(_EPOCH_ORDINAL + day).isoformat()


def assess(derived: WindowFigures, days: list[tuple[int, GapCounts]]) -> Certainty:
    gap_lower, gap_upper = derived.gap_interval
    weight_lower, weight_upper = derived.weighted_interval
    cumulative: list[tuple[int, int]] = []
    seen_n = seen_k = 0
    for _, day in days:
        seen_n += day.segments
        seen_k += day.gap_segments
        cumulative.append((seen_k, seen_n))
    widths = stats.interval_widths(cumulative, LEVEL)
    daily_rate = [d.gap_rate for _, d in days]
    daily_weighted = [d.weighted_gap_rate for _, d in days]
    # No verdict on a sample too small to carry one: an underpowered skill has no trend and is
    # never saturated, a trend needs TREND_DAYS days, and "more segments will not change the
    # conclusion" is never said of a band its interval does not back.
    powered = not derived.indicative
    cv = stats.coefficient_of_variation(daily_weighted) if powered and len(days) >= TREND_DAYS else None
    return Certainty(
        gap_rate_interval=Interval(lower=gap_lower, upper=gap_upper, level=LEVEL, method=METHOD),
        weighted_gap_rate_interval=Interval(lower=weight_lower, upper=weight_upper, level=LEVEL, method=METHOD),
        health_confident=derived.confident,
        saturation=Saturation(widths=widths, saturated=powered and derived.confident and stats.is_saturated(widths)),
        trend=Trend(
            days=[_iso_day(day) for day, _ in days],
            daily_gap_rate=daily_rate,
            daily_weighted_gap_rate=daily_weighted,
            cv=cv,
            unstable=stats.trend_unstable(cv),
            daily_segments=[d.segments for _, d in days],
        ),
        nudge=powered and stats.nudge(daily_rate),
    )
