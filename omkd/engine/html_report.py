"""The report as one self-contained HTML page: the overview, then a section per skill.

Nothing is fetched when the page is viewed (no script, font or style from elsewhere; it works
from ``file://``): the charts are inline SVG drawn here. Every view that shows a rate carries the
watermark (spec §1). Colour never carries information alone: a band is written out, the two rates
differ by dash and point shape as well as colour, each chart has a table of its figures, and each
knowledge change is listed under its chart. The page is deterministic (no "generated at").
Pure: the report and what the shell found (knowledge changes, installed skills) in, text out.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from html import escape
from pathlib import PurePosixPath as Path
from typing import Final

from omkd.engine import patterns
from omkd.engine.figures import LEVEL
from omkd.engine.health import BANDS
from omkd.engine.intervals import rate_interval
from omkd.engine.report.schema import GapEntry, Report, SkillHealth
from omkd.engine.stats import NUDGE_MESSAGE

GAPS_SHOWN: Final = 50
"""Newest gaps listed per skill (the rest counted)."""
PATTERNS_SHOWN: Final = 10
CHART_WIDTH: Final = 640
CHART_HEIGHT: Final = 220
_PAD_LEFT, _PAD_RIGHT, _PAD_TOP, _PAD_BOTTOM = 44, 12, 12, 36
_EPOCH: Final = date(1970, 1, 1).toordinal()

Row = tuple[str, str | None]
"""A skill as (name, agent): how the page keys what it shows."""


@dataclass(frozen=True, slots=True)
class Change:
    """A change of a skill's knowledge files, as its chart marks it."""

    timestamp: float
    commit: str
    """Short hash; empty for a change known by a file's mtime."""
    subject: str
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class InstalledSkill:
    name: str
    agent: str
    path: str
    """Its ``SKILL.md`` (or directory)."""


@dataclass(frozen=True, slots=True)
class PageInputs:
    """What the page shows besides the report."""

    source: str
    """What was read: the paths scanned, or the daemon's URL."""
    changes: dict[Row, list[Change]] = field(default_factory=dict)
    installed: list[InstalledSkill] = field(default_factory=list)


def _day(iso_day: str) -> int:
    return date.fromisoformat(iso_day).toordinal() - _EPOCH


def _day_of(timestamp: float) -> int:
    return datetime.fromtimestamp(timestamp, UTC).date().toordinal() - _EPOCH


def _iso(day: int) -> str:
    return date.fromordinal(day + _EPOCH).isoformat()


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


def slug(skill: SkillHealth) -> str:
    """An id for the skill's section: readable letters and digits, and a hash of (agent, skill)
    that keeps two names cleaned alike apart."""
    text = f"{skill.agent or ''}\0{skill.skill}"
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]
    return f"skill-{cleaned}-{hashlib.blake2b(text.encode(), digest_size=6).hexdigest()}"


# --- the chart ----------------------------------------------------------------------------------


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
    series: list[tuple[str, str, list[tuple[float, float, float]]]] = [  # the gap rate drawn on top
        ("weighted gap rate", "weighted", [(p.weighted, *p.weighted_band) for p in points]),
        ("gap rate", "gap", [(p.gap_rate, *p.gap_band) for p in points]),
    ]
    for name, cls, values in series:
        upper = [(x(p.day), y(v[2])) for p, v in zip(points, values, strict=True)]
        lower = [(x(p.day), y(v[1])) for p, v in zip(points, values, strict=True)][::-1]
        line = _polyline((x(p.day), y(v[0])) for p, v in zip(points, values, strict=True))
        parts.append(f'<polygon class="band {cls}" points="{_polyline(upper + lower)}">'
                     f"<title>{name}: {LEVEL:.0%} interval</title></polygon>"
                     f'<polyline class="line {cls}" points="{line}"/>')  # fmt: skip
        for p, (rate, _, _) in zip(points, values, strict=True):
            cx, cy = x(p.day), y(rate)
            label = escape(f"{_iso(p.day)}: {name} {_pct(rate)} of {p.segments} segment(s)")
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
                     f"<title>{escape(f'{_iso(day)}: {what}')}</title></g>")  # fmt: skip
    parts.extend(
        f'<text class="axis" x="{x(day):.1f}" y="{CHART_HEIGHT - 18}" text-anchor="middle">{_iso(day)[5:]}</text>'
        for day in sorted({first, last, *(d for _, d in marks)})
    )
    parts.append(f'<text class="axis" x="{_PAD_LEFT}" y="{CHART_HEIGHT - 4}">UTC days, {_iso(lo)} to {_iso(hi)}</text>')
    parts.append("</svg>")
    return "".join(parts)


# --- sections -----------------------------------------------------------------------------------


def _band(skill: SkillHealth) -> str:
    indicative = " (indicative)" if skill.health_indicative else ""
    band = escape(skill.health)  # a daemon's document is read as it comes
    chip = skill.health if skill.health in BANDS else "unknown"
    return f'<span class="band-chip {chip}">{band}</span>{indicative}'


def _rate_cell(rate: float, lower: float, upper: float) -> str:
    return f"<span class='rate'>{_pct(rate)}</span> <span class='ci'>[{_pct(lower)},&nbsp;{_pct(upper)}]</span>"


def _when(iso: str | None) -> str:
    """``2026-11-08T12:00:00.000Z`` as ``2026-11-08 12:00``: the minute is what a reader needs."""
    return iso[:16].replace("T", " ") if iso else "–"


def _watermark(report: Report, source: str) -> str:
    w = report.watermark
    return (f'<p class="watermark"><strong>Watermark.</strong> {escape(w.statement)} Window '
            f"{escape(w.window_from or '–')} to {escape(w.window_to or '–')}; {w.sessions} session(s), "
            f"{w.segments} segment(s); fingerprint <code>{escape(w.fingerprint)}</code>; "
            f"read from {escape(source)}.</p>")  # fmt: skip


def _skill_row(skill: SkillHealth, link: bool) -> str:
    c = skill.certainty
    name = escape(skill.skill)
    cell = f'<a href="#{slug(skill)}">{name}</a>' if link else f"<strong>{name}</strong>"
    coverage = skill.coverage
    covered = f"{coverage.accessed}/{coverage.files} ({_pct(coverage.ratio)})" if coverage.files else "–"
    gap, weighted = c.gap_rate_interval, c.weighted_gap_rate_interval
    cells = [
        escape(skill.agent or "all"),
        f"<span class='num'>{skill.segments}</span>",
        _rate_cell(skill.gap_rate, gap.lower, gap.upper),
        _rate_cell(skill.weighted_gap_rate, weighted.lower, weighted.upper),
        escape(skill.confidence),
        _band(skill),
        covered,
        escape(skill.tools.stability),
    ]
    return f"<tr><th scope='row'>{cell}</th>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _head(*names: str) -> str:
    return "<thead><tr>" + "".join(f"<th scope='col'>{name}</th>" for name in names) + "</tr></thead>"


_TABLE_HEAD: Final = _head(
    "Skill", "Agent", "Segments", f"Gap rate [{LEVEL:.0%} interval]", f"Weighted gap rate [{LEVEL:.0%} interval]",
    "Tier", "Band", "Knowledge files read", "Tools",
)  # fmt: skip


def _top_patterns(gaps: Sequence[GapEntry]) -> list[tuple[str, str, int, str]]:
    """The failed-search patterns of these gaps, most frequent first: (tool, pattern, count, last)."""
    counts: Counter[tuple[str, str]] = Counter()
    last: dict[tuple[str, str], str] = {}
    for gap in gaps:
        if gap.type == patterns.FAILED_SEARCH:
            key = (str(gap.evidence.get("tool", "")), str(gap.evidence.get("pattern", "")))
            counts[key] += 1
            last[key] = max(last.get(key, ""), gap.timestamp or "")
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(tool, pattern, n, last[(tool, pattern)]) for (tool, pattern), n in ranked[:PATTERNS_SHOWN]]


def _file_line(gap: GapEntry) -> str:
    """``file:line`` to open the transcript at; a link when the file is named by its absolute path
    (a daemon's streams), as text when it is named below the root a scan was given."""
    where = f"<code>{escape(f'{gap.file}:{gap.line}' if gap.line else gap.file)}</code>"
    if gap.file.startswith("/"):
        return f'<a href="{escape(Path(gap.file).as_uri(), quote=True)}">{where}</a>'
    return where


def _skill_section(skill: SkillHealth, report: Report, inputs: PageInputs, gaps: list[GapEntry]) -> str:
    key: Row = (skill.skill, skill.agent)
    ident = slug(skill)
    changes = inputs.changes.get(key, [])
    points = day_points(skill)
    marks = marked(changes, points)
    html = [f'<section class="skill" id="{ident}" aria-labelledby="{ident}-h">',
            f'<h2 id="{ident}-h">{escape(skill.skill)} '
            f'<span class="agent">({escape(skill.agent or "all")})</span></h2>',
            _watermark(report, inputs.source),
            f"<table class='figures'>{_TABLE_HEAD}<tbody>{_skill_row(skill, False)}</tbody></table>"]  # fmt: skip
    if skill.certainty.nudge:
        html.append(f'<p class="nudge"><strong>Nudge.</strong> {escape(NUDGE_MESSAGE)}</p>')
    html.append('<h3>Gap rate by day</h3><p class="legend"><span class="key gap">● solid: gap rate</span> '
                '<span class="key weighted">■ dashed: weighted gap rate</span> '
                "shaded: their intervals; numbered vertical lines: knowledge changes (listed below)</p>")  # fmt: skip
    html.append(chart(skill, points, marks, f"{ident}-chart"))
    if points:
        rows = "".join(
            f"<tr><td>{_iso(p.day)}</td><td class='num'>{p.segments}</td>"
            f"<td class='num'>{_rate_cell(p.gap_rate, *p.gap_band)}</td>"
            f"<td class='num'>{_rate_cell(p.weighted, *p.weighted_band)}</td></tr>"
            for p in points
        )
        head = _head("Day (UTC)", "Segments", "Gap rate", "Weighted gap rate")
        html.append(f"<details><summary>The chart's figures as a table</summary><table>{head}"
                    f"<tbody>{rows}</tbody></table></details>")  # fmt: skip
    html.append("<h3>Knowledge changes</h3>")
    if changes:
        shown = {id(c): n for n, (c, _) in enumerate(marks, 1)}
        items = "".join(
            f"<li>{f'<strong>[{shown[id(c)]}]</strong> ' if id(c) in shown else ''}"
            f"{escape(datetime.fromtimestamp(c.timestamp, UTC).strftime('%Y-%m-%d %H:%M'))} UTC "
            f"{f'<code>{escape(c.commit)}</code> ' if c.commit else ''}{escape(c.subject)}"
            f"<span class='files'> — {escape(', '.join(c.files[:5]))}{' …' if len(c.files) > 5 else ''}</span></li>"
            for c in changes
        )
        html.append(f"<ul class='changes'>{items}</ul>")
    else:
        html.append("<p class='note'>No change of this skill's knowledge files found (git history or mtimes).</p>")
    top = _top_patterns(gaps)
    html.append("<h3>What its agents looked for and did not find</h3>")
    if top:
        rows = "".join(
            f"<tr><td>{escape(tool)}</td><td><code>{escape(pattern)}</code></td><td class='num'>{n}</td>"
            f"<td>{escape(_when(last))}</td></tr>"
            for tool, pattern, n, last in top
        )
        html.append(f"<table>{_head('Tool', 'Pattern', 'Times', 'Last seen')}<tbody>{rows}</tbody></table>")
    else:
        html.append("<p class='note'>No failed search in the window.</p>")
    html.append(f"<h3>Gap inventory ({len(gaps)})</h3>")
    if gaps:
        rows = "".join(
            f"<tr><td>{escape(_when(g.timestamp))}</td><td>{escape(g.type)}</td><td class='num'>{g.weight:g}</td>"
            f"<td>{escape(g.context)}</td><td>{_file_line(g)}</td></tr>"
            for g in gaps[:GAPS_SHOWN]
        )
        more = (
            f"<p class='note'>{len(gaps) - GAPS_SHOWN} older gap(s) not listed.</p>" if len(gaps) > GAPS_SHOWN else ""
        )
        head = _head("When (UTC)", "Signal", "Weight", "Context", "Transcript")
        html.append(f"<table class='inventory'>{head}<tbody>{rows}</tbody></table>{more}")
    else:
        html.append("<p class='note'>No gap signal in the window.</p>")
    never = skill.coverage.never_accessed
    html.append(
        f"<h3>Knowledge files never read ({skill.coverage.never_accessed_total} of {skill.coverage.files})</h3>"
    )
    if never:
        items = "".join(f"<li><code>{escape(path)}</code></li>" for path in never)
        rest = skill.coverage.never_accessed_total - len(never)
        html.append(f"<ul class='files'>{items}</ul>" + (f"<p class='note'>and {rest} more.</p>" if rest > 0 else ""))
    else:
        html.append("<p class='note'>None: every knowledge file known for its projects was read, or none is known.</p>")
    html.append('<p class="top"><a href="#overview">Back to the overview</a></p></section>')
    return "".join(html)


_STYLE: Final = """
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --rule: #c8c8c8; --gap: #1f4e9c; --weighted: #8a3b00; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #fff;
       max-width: 70rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 2.5rem; border-top: 2px solid var(--rule);
     padding-top: 1rem; } h3 { font-size: 1.05rem; margin-top: 1.4rem; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .92rem; }
th, td { border: 1px solid var(--rule); padding: .25rem .5rem; text-align: left; vertical-align: top; }
thead th { background: #f0f0f0; } td.num { text-align: right; white-space: nowrap; }
.ci { color: var(--muted); font-size: .85em; display: block; } .rate { white-space: nowrap; }
.agent { color: var(--muted); font-weight: normal; }
.watermark { background: #f6f6f6; border-left: 4px solid #777; padding: .4rem .7rem; font-size: .88rem; }
.nudge { background: #fff7e0; border-left: 4px solid #8a6d00; padding: .4rem .7rem; }
.note { color: var(--muted); }
.band-chip { display: inline-block; padding: 0 .45rem; border-radius: .6rem; font-weight: 600; border: 1px solid; }
.band-chip.green { background: #e3f4e6; color: #0b5a1e; } .band-chip.yellow { background: #fff3c4; color: #5c4500; }
.band-chip.red { background: #fde2e0; color: #8c1a10; }
a { color: #0b4fa8; } a:focus-visible, summary:focus-visible { outline: 3px solid #0b4fa8; outline-offset: 2px; }
svg.chart { width: 100%; max-width: 640px; height: auto; border: 1px solid var(--rule); background: #fff; }
svg .grid { stroke: #e2e2e2; } svg .axis { font-size: 11px; fill: var(--muted); }
svg .line { fill: none; stroke-width: 2; } svg .line.gap { stroke: var(--gap); }
svg .line.weighted { stroke: var(--weighted); stroke-dasharray: 6 4; }
svg .band { stroke: none; } svg .band.gap { fill: var(--gap); fill-opacity: .13; }
svg .band.weighted { fill: var(--weighted); fill-opacity: .11; }
svg .point.gap { fill: var(--gap); stroke: #fff; stroke-width: 1; } svg .point.weighted { fill: var(--weighted); }
svg .change line { stroke: #333; stroke-dasharray: 2 3; } svg .change text { font-size: 11px; fill: #333; }
.key.gap { color: var(--gap); } .key.weighted { color: var(--weighted); }
code { font-size: .88em; word-break: break-all; }
.inventory td:nth-child(-n+2) { white-space: nowrap; } .inventory td:nth-child(4) { min-width: 18rem; }
@media print { body { max-width: none; padding: 0; } h2 { break-before: page; } details { display: block; }
  details > summary { display: none; } a { color: inherit; text-decoration: none; } .top { display: none; } }
"""


def render(report: Report, gaps: Sequence[GapEntry], inputs: PageInputs) -> str:
    """The whole page: ``gaps`` are the window's (newest first), ``inputs`` what the shell found."""
    by_row: dict[Row, list[GapEntry]] = {}
    for gap in gaps:
        by_row.setdefault((gap.skill, gap.agent), []).append(gap)
    active = {s.skill for s in report.skills}
    dormant = sorted({(s.name, s.agent, s.path) for s in inputs.installed if s.name not in active})
    rows = "".join(_skill_row(s, True) for s in report.skills)
    overall = _skill_row(report.overall, False) if report.overall.segments else ""
    html = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>omkd report: where the agents' knowledge runs out</title>",
            f"<style>{_STYLE}</style></head><body>",
            '<a href="#skills">Skip to the skill table</a>',
            '<header id="overview"><h1>Where the agents\' knowledge runs out</h1>',
            _watermark(report, inputs.source), "</header><main>",
            '<section aria-labelledby="skills"><h2 id="skills">Skills in the window</h2>']  # fmt: skip
    if report.skills:
        html.append(f"<table class='overview'>{_TABLE_HEAD}<tbody>{rows}{overall}</tbody></table>")
        html.append("<p class='note'>Bands: green under 10 %, yellow from 10 %, red from 30 % weighted gap rate; "
                    "“indicative” when the interval does not back the band. Tiers: underpowered under 5 segments, "
                    "low under 20, high from 20.</p>")  # fmt: skip
    else:
        html.append("<p class='note'>No segment in the window.</p>")
    html.append('</section><section aria-labelledby="dormant"><h2 id="dormant">Installed skills that never fired</h2>')
    if dormant:
        items = "".join(f"<li><strong>{escape(name)}</strong> ({escape(agent)}) — <code>{escape(path)}</code></li>"
                        for name, agent, path in dormant)  # fmt: skip
        html.append(f"<p>Found under the skill directories, with no segment in the window:</p><ul>{items}</ul>")
    else:
        html.append(
            "<p class='note'>None: every installed skill found has segments in the window (or none was found).</p>"
        )
    html.append("</section>")
    html.extend(_skill_section(s, report, inputs, by_row.get((s.skill, s.agent), [])) for s in report.skills)
    html.append("</main></body></html>\n")
    return "".join(html)
