"""The HTML page's chart of a skill: its daily gap rates with their intervals, and the knowledge
changes marked on it, as inline SVG (nothing fetched when the page is viewed).

Colour never carries information alone: the two rates differ by dash and point shape as well as
colour, and every point, band and change has its title.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from html import escape
from typing import Final

from omkd.engine.figures import LEVEL
from omkd.engine.intervals import rate_interval
from omkd.engine.report.schema import SkillHealth

CHART_WIDTH: Final = 1040
CHART_HEIGHT: Final = 260
_PAD_LEFT, _PAD_RIGHT, _PAD_TOP, _PAD_BOTTOM = 44, 16, 12, 36
MONTHS_FROM: Final = 62
"""From a span of this many days the axis is labelled by month (with its year) between the ends."""
TICK_CLEAR: Final = 100
"""Pixels (of the chart's width) kept free of month labels beside each end's date."""
_EPOCH: Final = date(1970, 1, 1).toordinal()


@dataclass(frozen=True, slots=True)
class Change:
    """A change of a skill's knowledge files, as its chart marks it."""

    timestamp: float
    commit: str
    """Short hash; empty for a change known by a file's mtime."""
    subject: str
    files: tuple[str, ...]


def _day(iso_day: str) -> int:
    return date.fromisoformat(iso_day).toordinal() - _EPOCH


def _day_of(timestamp: float) -> int:
    return datetime.fromtimestamp(timestamp, UTC).date().toordinal() - _EPOCH


def iso_day(day: int) -> str:
    """A day (days since 1970-01-01) as ``YYYY-MM-DD``."""
    return date.fromordinal(day + _EPOCH).isoformat()


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


@dataclass(frozen=True, slots=True)
class DayPoint:
    day: int
    segments: int
    gap_rate: float
    weighted: float
    gap_band: tuple[float, float]
    weighted_band: tuple[float, float]


def day_points(skill: SkillHealth) -> list[DayPoint]:
    """Each day with segments: its rates and their intervals (at the report's level). A report
    without the days' segment counts (a daemon of an earlier omkd) gives the rates alone: each
    day's interval is then its rate (``segments`` 0), never a band made up."""
    trend = skill.certainty.trend
    counts: list[int | None] = list(trend.daily_segments)
    if len(counts) != len(trend.days):
        counts = [None] * len(trend.days)
    points = []
    for iso_day, n, rate, weighted in zip(
        trend.days, counts, trend.daily_gap_rate, trend.daily_weighted_gap_rate, strict=True
    ):
        if n is None:
            points.append(DayPoint(_day(iso_day), 0, rate, weighted, (rate, rate), (weighted, weighted)))
            continue
        gaps = min(n, round(rate * n))
        weight_sum = min(float(n), max(0.0, weighted * n))
        gap_band, weighted_band = rate_interval(gaps, n, LEVEL), rate_interval(weight_sum, n, LEVEL)
        points.append(DayPoint(_day(iso_day), n, rate, weighted, gap_band, weighted_band))
    return points


def _polyline(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def runs(points: Sequence[DayPoint]) -> list[list[int]]:
    """The indices of ``points`` in runs of consecutive days: a day without data breaks a line
    (it is never drawn as a slope between the days around it)."""
    made: list[list[int]] = []
    for i, point in enumerate(points):
        if made and point.day == points[made[-1][-1]].day + 1:
            made[-1].append(i)
        else:
            made.append([i])
    return made


def _ticks(lo: int, hi: int) -> list[int]:
    """Days labelled between the ends: the first of each month on a long span (at most 12)."""
    if hi - lo < MONTHS_FROM:
        return []
    firsts = [d for d in range(lo + 1, hi) if date.fromordinal(d + _EPOCH).day == 1]
    step = max(1, -(-len(firsts) // 12))
    clear = TICK_CLEAR * (hi - lo) / (CHART_WIDTH - _PAD_LEFT - _PAD_RIGHT)  # days the end labels take
    return [d for d in firsts[::step] if d - lo > clear and hi - d > clear]


def marked(changes: Sequence[Change], points: Sequence[DayPoint]) -> list[tuple[Change, int]]:
    """The changes a chart of ``points`` marks (from the day before its first to the day after its
    last), with their UTC day; numbered in this order on the chart and in the list."""
    if not points:
        return []
    first, last = points[0].day, points[-1].day
    return [(c, d) for c in changes if first - 1 <= (d := _day_of(c.timestamp)) <= last + 1]


def chart(skill: SkillHealth, points: Sequence[DayPoint], marks: Sequence[tuple[Change, int]], title_id: str) -> str:
    """Daily gap rate and weighted gap rate with their interval bands, and a marker per change."""
    if not points:
        return '<p class="note">No day with segments in the window: nothing to draw.</p>'
    first, last = points[0].day, points[-1].day
    lo = min([first, *(d for _, d in marks)])
    hi = max([last, *(d for _, d in marks)])
    span = max(1, hi - lo)
    inner_w = CHART_WIDTH - _PAD_LEFT - _PAD_RIGHT
    inner_h = CHART_HEIGHT - _PAD_TOP - _PAD_BOTTOM

    def x(day: float) -> float:
        return _PAD_LEFT + inner_w * (day - lo) / span if hi > lo else _PAD_LEFT + inner_w / 2

    def y(rate: float) -> float:
        return _PAD_TOP + inner_h * (1 - rate)

    parts = [
        f'<svg class="chart" viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}" role="img" '
        f'aria-labelledby="{title_id}" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{title_id}">Daily gap rate and weighted gap rate of {escape(skill.skill)}, with '
        f"{LEVEL:.0%} intervals; {len(marks)} knowledge change(s) marked</title>",
    ]
    parts.extend(
        f'<line class="grid" x1="{_PAD_LEFT}" x2="{CHART_WIDTH - _PAD_RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}"/>'
        f'<text class="axis" x="{_PAD_LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.0%}</text>'
        for tick in (0.0, 0.25, 0.5, 0.75, 1.0)
    )
    series: list[tuple[str, str, list[tuple[float, float, float]]]] = [  # the weighted rate, thinner, on top
        ("gap rate", "gap", [(p.gap_rate, *p.gap_band) for p in points]),
        ("weighted gap rate", "weighted", [(p.weighted, *p.weighted_band) for p in points]),
    ]
    for name, cls, values in series:
        for run in runs(points):
            upper = [(x(points[i].day), y(values[i][2])) for i in run]
            lower = [(x(points[i].day), y(values[i][1])) for i in run][::-1]
            if len(run) == 1:  # one day alone: its interval as a bar, no line
                (cx, top), (_, bottom) = upper[0], lower[0]
                height = max(0.0, bottom - top)
                parts.append(f'<rect class="band {cls}" x="{cx - 4:.1f}" y="{top:.1f}" width="8" height="{height:.1f}">'
                             f"<title>{name}: {LEVEL:.0%} interval</title></rect>")  # fmt: skip
                continue
            line = _polyline((x(points[i].day), y(values[i][0])) for i in run)
            parts.append(f'<polygon class="band {cls}" points="{_polyline(upper + lower)}">'
                         f"<title>{name}: {LEVEL:.0%} interval</title></polygon>"
                         f'<polyline class="line {cls}" points="{line}"/>')  # fmt: skip
        for p, (rate, _, _) in zip(points, values, strict=True):
            cx, cy = x(p.day), y(rate)
            label = escape(f"{iso_day(p.day)}: {name} {pct(rate)} of {p.segments} segment(s)")
            if cls == "gap":
                parts.append(
                    f'<circle class="point gap" cx="{cx:.1f}" cy="{cy:.1f}" r="3.5"><title>{label}</title></circle>'
                )
            else:
                parts.append(f'<rect class="point weighted" x="{cx - 3.5:.1f}" y="{cy - 3.5:.1f}" width="7" height="7">'
                             f"<title>{label}</title></rect>")  # fmt: skip
    for n, (change, day) in enumerate(marks, 1):
        cx = x(day)
        what = f"{change.commit} {change.subject}".strip()
        parts.append(f'<g class="change"><line x1="{cx:.1f}" x2="{cx:.1f}" y1="{_PAD_TOP}" y2="{y(0):.1f}"/>'
                     f'<text x="{cx + 3:.1f}" y="{_PAD_TOP + 10}">{n}</text>'
                     f"<title>{escape(f'{iso_day(day)}: {what}')}</title></g>")  # fmt: skip
    # the ends with their year, anchored inward (never clipped); months between them on a long span
    parts.append(f'<text class="axis" x="{x(lo):.1f}" y="{CHART_HEIGHT - 18}" text-anchor="start">{iso_day(lo)}</text>')
    if hi > lo:
        parts.append(
            f'<text class="axis" x="{x(hi):.1f}" y="{CHART_HEIGHT - 18}" text-anchor="end">{iso_day(hi)}</text>'
        )
    parts.extend(
        f'<line class="grid" x1="{x(day):.1f}" x2="{x(day):.1f}" y1="{y(1):.1f}" y2="{y(0):.1f}"/>'
        f'<text class="axis" x="{x(day):.1f}" y="{CHART_HEIGHT - 18}" text-anchor="middle">{iso_day(day)[:7]}</text>'
        for day in _ticks(lo, hi)
    )
    parts.append(
        f'<text class="axis" x="{_PAD_LEFT}" y="{CHART_HEIGHT - 4}">UTC days, {iso_day(lo)} to {iso_day(hi)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
