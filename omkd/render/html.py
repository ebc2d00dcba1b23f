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
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape
from pathlib import PurePosixPath as Path
from typing import Any, Final

from omkd.engine import patterns
from omkd.engine.figures import BAND_LEGEND
from omkd.engine.health import BANDS
from omkd.engine.impact.schema import ImpactResult
from omkd.engine.report.build import grouped_searches
from omkd.engine.report.schema import OVERALL, GapEntry, Report, SkillHealth
from omkd.engine.report.schema import iso as iso_of
from omkd.engine.stats import NUDGE_MESSAGE
from omkd.render import columns, metacog, notes
from omkd.render.chart import Change, chart, day_points, iso_day, marked, pct
from omkd.render.columns import Band, Column
from omkd.render.impact_html import effect
from omkd.render.inline import code_spans
from omkd.render.style import STYLE

GAPS_SHOWN: Final = 50
"""Newest gaps listed per skill (the rest counted)."""
PATTERNS_SHOWN: Final = 10

Row = tuple[str, str | None]
"""A skill as (name, agent): how the page keys what it shows."""


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
    impacts: dict[Row, list[ImpactResult]] = field(default_factory=dict)
    """The effect of each change on the skill (spec §9), shown beside its chart marker."""


def slug(skill: SkillHealth) -> str:
    """An id for the skill's section: readable letters and digits, and a hash of (agent, skill)
    that keeps two names cleaned alike apart."""
    text = f"{skill.agent or ''}\0{skill.skill}"
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]
    return f"skill-{cleaned}-{hashlib.blake2b(text.encode(), digest_size=6).hexdigest()}"


# --- sections -----------------------------------------------------------------------------------


BAND_MEANING: Final = {"~": "indicative: its interval crosses a threshold", "?": "indicative: under 5 segments"}


def _band(value: Band) -> str:
    """The band's label (``Band.label``, as every view writes it) in a chip; a hard colour only
    when its interval backs it (an indicative chip is outlined, dashed)."""
    label = value.label
    chip = value.health if value.health in BANDS else "unknown"  # a daemon's document is read as it comes
    hard = value.confident and not value.indicative and chip != "unknown"
    meaning = next((text for mark, text in BAND_MEANING.items() if mark in label), "")
    if chip == "unknown":
        meaning = "no segment in the window" if label == "—" else ""
    title = f' title="{escape(meaning, quote=True)}"' if meaning else ""
    return f'<span class="band-chip {chip}{"" if hard else " soft"}"{title}>{escape(label)}</span>'


def _rate_cell(rate: float | None, lower: float, upper: float) -> str:
    if rate is None:
        return "<span class='rate'>–</span>"
    low, high = (pct(bound).replace(" ", "&nbsp;") for bound in (lower, upper))  # a bound never split
    return f"<span class='rate'>{pct(rate)}</span> <span class='ci'>[{low}, {high}]</span>"


def _when(iso: str | None) -> str:
    """``2026-11-08T12:00:00.000Z`` as ``2026-11-08 12:00``: the minute is what a reader needs."""
    return iso[:16].replace("T", " ") if iso else "–"


def _short_watermark(report: Report) -> str:
    """The watermark a skill's section carries: one line, the whole one at the top of the page."""
    w = report.watermark
    return (f'<p class="watermark short">Only the traces observed in the window {escape(_when(w.window_from))} to '
            f"{escape(_when(w.window_to))} (fingerprint <code>{escape(w.fingerprint)}</code>): not the "
            'completeness of the knowledge base. <a href="#overview">The whole watermark</a>.</p>')  # fmt: skip


def _watermark(report: Report, source: str) -> str:
    """The whole watermark (spec §1): the trace roots are the report's (a daemon's, for a page read
    from its URL), and where the page read them from when that is elsewhere."""
    w = report.watermark
    read_from = f", read from {escape(source)}" if source != ", ".join(w.roots) else ""
    return (f'<p class="watermark"><strong>Watermark.</strong> {escape(w.statement)} Window '
            f"{escape(w.window_from or '–')} to {escape(w.window_to or '–')}; {w.sessions} session(s), "
            f"{w.segments} segment(s); fingerprint <code>{escape(w.fingerprint)}</code>; "
            f"trace roots {escape(', '.join(w.roots) or '–')}{read_from}.</p>")  # fmt: skip


SHOWN: Final = columns.chosen(columns.HTML)
"""The table's columns (the skill's is the row's header cell)."""


def _cell(column: Column, skill: SkillHealth, link: bool) -> str:
    """One cell of the skill table: the column's value as the page shows its kind."""
    value: Any = column.read(skill)
    kind = column.kind
    if kind == columns.NAME:
        name = escape("overall" if value == OVERALL else value)
        return f'<a href="#{slug(skill)}">{name}</a>' if link else f"<strong>{name}</strong>"
    if kind == columns.AGENT:
        return escape(value or "all")
    if kind == columns.COUNT:
        return f"<span class='num'>{value}</span>"
    if kind == columns.RATE:
        return _rate_cell(value.value, value.interval.lower, value.interval.upper)
    if kind == columns.BAND:
        return _band(value)
    if kind == columns.COVERAGE:
        return f"{value.accessed}/{value.files} ({pct(value.ratio)})" if value.files else "–"
    if kind == columns.OUTCOMES:
        return escape(metacog.described(value))
    return escape(value)


AT_GAP: Final = columns.chosen(columns.AT_A_GAP)
"""What the agents did at a gap, beside the gap rate (spec §8.7)."""


def _skill_row(skill: SkillHealth, link: bool, shown: Sequence[Column] = SHOWN) -> str:
    first, *rest = (_cell(column, skill, link) for column in shown)
    return f"<tr><th scope='row'>{first}</th>" + "".join(f"<td>{c}</td>" for c in rest) + "</tr>"


def _head(*names: str) -> str:
    return "<thead><tr>" + "".join(f"<th scope='col'>{name}</th>" for name in names) + "</tr></thead>"


_TABLE_HEAD: Final = _head(*(column.title for column in SHOWN))
_AT_GAP_HEAD: Final = _head(*(column.title for column in AT_GAP))


def _top_patterns(gaps: Sequence[GapEntry]) -> list[tuple[str, str, int, str]]:
    """The failed-search patterns of these gaps, grouped by the pattern (``grouped_searches``, as
    every view), most frequent first: (tools, pattern, count, last)."""
    seen = (
        ("", "", str(g.evidence.get("tool", "")), str(g.evidence.get("pattern", "")), g.timestamp)
        for g in gaps
        if g.type == patterns.FAILED_SEARCH
    )
    return [
        (", ".join(tools), pattern, n, last or "")
        for _, _, _, tools, pattern, n, last in grouped_searches(seen, PATTERNS_SHOWN)
    ]


def _file_line(gap: GapEntry) -> str:
    """``file:line`` to open the transcript at; a link when the file is named by its absolute path
    (a daemon's streams), as text when it is named below the root a scan was given."""
    text = escape(f"{gap.file}:{gap.line}" if gap.line else gap.file).replace("/", "/<wbr>")  # breaks at a /
    where = f"<code>{text}</code>"
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
            _short_watermark(report),
            f"<table class='figures'>{_TABLE_HEAD}<tbody>{_skill_row(skill, False)}</tbody></table>"]  # fmt: skip
    if skill.certainty.nudge:
        html.append(f'<p class="nudge"><strong>Nudge.</strong> {escape(NUDGE_MESSAGE)}</p>')
    if skill.metacognition is not None:
        html.append(f"<h3>What its agents did at a gap</h3><p>{escape(metacog.described(skill.metacognition))}.</p>")
    html.append('<h3>Gap rate by day</h3><p class="legend"><span class="key gap">● solid: gap rate</span> '
                '<span class="key weighted">■ dashed: weighted gap rate</span> '
                "shaded: their intervals; numbered vertical lines: knowledge changes (listed below)</p>")  # fmt: skip
    html.append(chart(skill, points, marks, f"{ident}-chart"))
    if points:
        rows = "".join(
            f"<tr><td>{iso_day(p.day)}</td><td class='num'>{p.segments}</td>"
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
    at = {iso_of(c.timestamp): n for n, (c, _) in enumerate(marks, 1)}
    html.extend(effect(result, at.get(result.change.at)) for result in inputs.impacts.get(key, []))
    top = _top_patterns(gaps)
    html.append("<h3>What its agents looked for and did not find</h3>")
    if top:
        rows = "".join(
            f"<tr><td><code>{escape(pattern)}</code></td><td>{escape(tool)}</td><td class='num'>{n}</td>"
            f"<td>{escape(_when(last))}</td></tr>"
            for tool, pattern, n, last in top
        )
        html.append(f"<table>{_head('Looked for', 'Tools', 'Times', 'Last seen')}<tbody>{rows}</tbody></table>")
    else:
        html.append("<p class='note'>No failed search in the window.</p>")
    html.append(f"<h3>Gap inventory ({len(gaps)})</h3>")
    if gaps:
        rows = "".join(
            f"<tr><td>{escape(_when(g.timestamp))}</td><td>{escape(g.type)}</td><td class='num'>{g.weight:g}</td>"
            f"<td>{escape(g.context)}</td><td>{escape(metacog.outcome_of(g))}</td><td>{_file_line(g)}</td></tr>"
            for g in gaps[:GAPS_SHOWN]
        )
        more = (
            f"<p class='note'>{len(gaps) - GAPS_SHOWN} older gap(s) not listed.</p>" if len(gaps) > GAPS_SHOWN else ""
        )
        head = _head("When (UTC)", "Signal", "Weight", "Context", "What came of it", "Transcript")
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
            f"<style>{STYLE}</style></head><body>",
            '<a href="#skills">Skip to the skill table</a>',
            '<header id="overview"><h1>Where the agents\' knowledge runs out</h1>',
            _watermark(report, inputs.source), "</header><main>",
            '<section aria-labelledby="skills"><h2 id="skills">Skills in the window</h2>']  # fmt: skip
    if report.skills:
        html.append(f"<table class='overview'>{_TABLE_HEAD}<tbody>{rows}{overall}</tbody></table>")
        html.append(f"<p class='note'>Rates with their 95 % intervals; {escape(BAND_LEGEND)}. "
                    "Tiers: underpowered under 5 segments, low under 20, high from 20.</p>")  # fmt: skip
        gaps_at = "".join(
            _skill_row(s, s is not report.overall, AT_GAP) for s in [*report.skills, report.overall] if metacog.shown(s)
        )
        html.append(f"<h3>What the agents did at a gap</h3><table class='at-gap'>{_AT_GAP_HEAD}<tbody>{gaps_at}"
                    f"</tbody></table><p class='note'>{escape(metacog.LEGEND)}.</p>" if gaps_at else "")  # fmt: skip
    else:
        pipeline, mark = report.pipeline, report.watermark
        why = (
            notes.outside_window(
                pipeline.segments_outside_window, pipeline.newest_outside_window, (mark.window_from, mark.window_to)
            )
            if pipeline.segments_outside_window
            else "nothing was read"
        )
        html.append(f"<p class='note'>No segment in the window: {code_spans(why)}.</p>")
    html += [f"<p class='note'>{code_spans(notes.missing_root(root))}.</p>" for root in report.pipeline.missing_roots]
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
