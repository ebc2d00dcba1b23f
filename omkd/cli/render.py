"""Terminal rendering of a report with rich: the skill table, warnings, patterns, watermark."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from omkd.engine.gates import GateFailure
from omkd.engine.report import Report, SkillHealth

BAND_STYLES = {"red": "bold red", "yellow": "yellow", "green": "green"}


def percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def band(skill: SkillHealth) -> Text:
    if skill.health_indicative:
        return Text(f"({skill.health}?)", style="dim")
    return Text(skill.health, style=BAND_STYLES[skill.health])


def tier(skill: SkillHealth) -> Text:
    return Text(skill.confidence, style="dim" if skill.confidence == "underpowered" else "")


def coverage(skill: SkillHealth) -> str:
    cov = skill.coverage
    if cov.files == 0:
        return "—"
    return f"{percent(cov.ratio)} ({cov.accessed}/{cov.files})"


def skill_table(report: Report) -> Table:
    table = Table(title="Skill health", title_justify="left")
    for column in ("skill", "segments", "gap rate", "weighted", "tier", "band", "coverage", "stability"):
        table.add_column(column, justify="left" if column in ("skill", "tier", "band", "stability") else "right")
    rows = [*report.skills, report.overall]
    for skill in rows:
        name = Text("overall", style="bold") if skill is report.overall else Text(skill.skill)
        table.add_row(
            name,
            str(skill.segments),
            percent(skill.gap_rate),
            percent(skill.weighted_gap_rate),
            tier(skill),
            band(skill),
            coverage(skill),
            skill.tools.stability,
            end_section=skill is rows[-2] if len(rows) > 1 else False,
        )
    return table


def warnings(report: Report) -> list[str]:
    lines: list[str] = []
    for skill in [*report.skills, report.overall]:
        label = "overall" if skill is report.overall else skill.skill
        if skill.soft_share_warning:
            lines.append(
                f"{label}: weak signals carry {percent(skill.soft_share)} of the gap rate — review the inventory"
            )
        if skill.confidence == "underpowered" and skill.segments > 0:
            lines.append(f"{label}: underpowered ({skill.segments} segments < 5) — its band is indicative only")
    return lines


def patterns_table(report: Report) -> Table | None:
    if not report.top_failed_searches:
        return None
    table = Table(title="Top failed searches", title_justify="left")
    for column in ("skill", "tool", "pattern", "count", "last seen"):
        table.add_column(column, justify="right" if column == "count" else "left", overflow="fold")
    for pattern in report.top_failed_searches:
        table.add_row(pattern.skill, pattern.tool, pattern.pattern, str(pattern.count), pattern.last_seen or "—")
    return table


def watermark(report: Report) -> Text:
    mark = report.watermark
    text = Text()
    text.append("Watermark  ", style="bold")
    text.append(f"roots: {', '.join(mark.roots)}\n")
    text.append(f"           window: {mark.window_from or '—'} → {mark.window_to or '—'}\n")
    text.append(f"           sessions: {mark.sessions}  segments: {mark.segments}  fingerprint: {mark.fingerprint}\n")
    text.append(f"           {mark.statement}", style="italic")
    return text


def pipeline_line(report: Report) -> str:
    p = report.pipeline
    bad = sum(p.bad_lines.values())
    unknown = sum(p.unknown_types.values())
    parts = [f"{p.files} files", f"{p.records} records", f"{bad} bad lines", f"{unknown} records of unknown type"]
    if bad:
        parts.append("(" + ", ".join(f"{k}: {v}" for k, v in p.bad_lines.items()) + ")")
    return "Read " + ", ".join(parts)


def render(report: Report, console: Console, failures: list[GateFailure]) -> None:
    console.print(skill_table(report))
    for line in warnings(report):
        console.print(Text("warning: ", style="yellow") + Text(line))
    table = patterns_table(report)
    if table is not None:
        console.print(table)
    console.print(pipeline_line(report), style="dim")
    console.print(watermark(report))
    for failure in failures:
        console.print(Text("gate failed: ", style="bold red") + Text(failure.describe()))
