"""Terminal rendering of a report with rich: the skill table, warnings, patterns, watermark."""

from __future__ import annotations

from typing import Final

from rich.console import Console
from rich.table import Table
from rich.text import Text

from omkd.cli import fit
from omkd.cli.cells import cell, percent
from omkd.engine import formats, gates, skills, stats
from omkd.engine.figures import BAND_LEGEND
from omkd.engine.gates import GateFailure, Regression
from omkd.engine.report.schema import Report, SkillHealth
from omkd.render import columns, metacog, notes

PIPE_WIDTH = 160
UNDERPOWERED_SHOWN = 12
NOT_COMPARABLE = (
    "the baseline was computed by other detection rules (its rules hash differs): "
    "a move against it may be a change of rules, not of the knowledge"
)


def stdout_console() -> Console:
    """The terminal's width on a terminal; wide enough for every column in a CI log."""
    console = Console()
    return console if console.is_terminal else Console(width=PIPE_WIDTH)


def widen_for(console: Console, table: Table) -> None:
    """A console writing to a pipe or a file (a CI log) made as wide as ``table`` needs: a log has no
    right edge, and a table squeezed into ``PIPE_WIDTH`` cut its figures (a rate's interval, a band)
    when its skill names were long and an agent column was shown."""
    needed = console.measure(table, options=console.options.update_width(UNBOUNDED)).maximum
    console.width = max(console.width, needed)


UNBOUNDED: Final = 100_000
"""A width no table reaches: what a table would take with no edge."""


def several_agents(report: Report) -> bool:
    """Rows of an agent other than Claude Code: the table names each row's agent."""
    return any(s.agent not in (None, formats.CLAUDE_CODE) for s in report.skills)


SKILL_NARROW_WIDTH: Final = 18
"""The skill column's width on a narrow terminal in the tables whose text wraps (at a gap, patterns)."""
NARROW_BELOW: Final = 120
INTERVALS_FROM: Final = 100
"""Below this width the at-a-gap table shows its rates without their intervals."""


def shows_intervals(width: int | None) -> bool:
    return width is None or width >= INTERVALS_FROM


def skill_fit(report: Report, width: int | None) -> fit.Fit:
    """What the skill table shows at this width (``fit.py``): the figures whole, the least needed
    columns and the intervals left out first; the agent column only when a row is not Claude Code's."""
    wanted = columns.chosen(columns.TERMINAL, () if several_agents(report) else ("agent",))
    rows = [*report.skills, report.overall]

    def cells(column: columns.Column, intervals: bool, short: bool) -> list[str | Text]:
        return [cell(column, skill, skill is report.overall, intervals, short) for skill in rows]

    return fit.fit(wanted, cells, width)


def skill_table(report: Report, arrangement: fit.Fit) -> Table:
    """The skill table as ``arrangement`` (``skill_fit``) lays it out."""
    table = Table(title="Skill health", title_justify="left")
    for column in arrangement.shown:
        header = fit.header(column, arrangement.short)
        if column.kind == columns.NAME:  # one line a row: a long name is cut with an ellipsis
            table.add_column(
                header, justify="left", min_width=fit.SKILL_MIN_WIDTH, no_wrap=True, overflow="ellipsis",
                max_width=arrangement.skill_width,
            )  # fmt: skip
        else:
            table.add_column(header, justify="right" if column.right else "left", no_wrap=True)
    rows = [*report.skills, report.overall]
    intervals, short = arrangement.intervals, arrangement.short
    for skill in rows:
        table.add_row(
            *(cell(c, skill, skill is report.overall, intervals, short) for c in arrangement.shown),
            end_section=skill is rows[-2] if len(rows) > 1 else False,
        )
    return table


def given_up_note(arrangement: fit.Fit, width: int | None) -> str | None:
    """What the skill table left out or shortened at this width, and where to find it whole."""
    if not arrangement.given_up:
        return None
    dropped = [step for step in arrangement.given_up if step != "short labels"]
    parts = [f"left out at this width ({width} columns): {', '.join(dropped)}"]
    if arrangement.abbreviations:
        parts.append(f"short labels: {', '.join(arrangement.abbreviations)}")
    return "; ".join(parts) + " — a wider terminal or --json has them"


def at_gap_table(report: Report, width: int | None = None) -> Table | None:
    """What the agents did at a gap, beside the gap rate (spec §8.7): one row per skill that hit a
    gap (``metacog.shown``) and the overall row; the text wraps, so it reads at 80 columns."""
    rows = [s for s in report.skills if metacog.shown(s)]
    if not rows and not metacog.shown(report.overall):
        return None
    table = Table(title="What the agents did at a gap", title_justify="left", expand=width is not None)
    dropped = () if several_agents(report) else ("agent",)
    shown = columns.chosen(columns.AT_A_GAP, dropped)
    narrow = width is not None and width < NARROW_BELOW
    for column in shown:
        if column.kind == columns.NAME:
            table.add_column(
                column.header, no_wrap=True, overflow="ellipsis", max_width=SKILL_NARROW_WIDTH if narrow else 40
            )
        elif column.kind == columns.OUTCOMES:
            table.add_column(column.header, ratio=1, overflow="fold", min_width=24)
        else:
            table.add_column(column.header, justify="right" if column.right else "left", no_wrap=True)
    intervals = shows_intervals(width)
    for skill in [*rows, report.overall]:
        table.add_row(*(cell(column, skill, skill is report.overall, intervals) for column in shown))
    return table


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def warnings(report: Report) -> list[str]:
    """Warnings a reader must see, each once; none that the sample size cannot carry (an
    underpowered skill gets no trend, saturation or nudge verdict, only the one summary line)."""
    lines: list[str] = []
    pipeline, mark = report.pipeline, report.watermark
    lines += [notes.missing_root(root) for root in pipeline.missing_roots]
    if report.overall.segments == 0 and pipeline.segments_outside_window:
        lines.append(
            notes.outside_window(
                pipeline.segments_outside_window, pipeline.newest_outside_window, (mark.window_from, mark.window_to)
            )
        )
    agents = several_agents(report)

    def name(skill: SkillHealth) -> str:
        """The row's name, its agent named whenever rows are per skill and agent."""
        return f"{skill.skill} ({skill.agent})" if agents and skill.agent else skill.label

    underpowered = [name(s) for s in report.skills if s.confidence == "underpowered" and s.segments > 0]
    for skill in [*report.skills, report.overall]:
        label = "overall" if skill is report.overall else name(skill)
        if skill.soft_share_warning:
            lines.append(
                f"{label}: weak signals carry {percent(skill.soft_share)} of the gap rate — review the inventory"
            )
        if skill.confidence == "underpowered":
            continue
        sure = skill.certainty
        if sure.saturation.saturated:
            lines.append(f"{label}: saturated — more segments will not change the conclusion")
        if sure.trend.unstable and sure.trend.cv is not None:
            days = plural(len(sure.trend.days), "day")
            lines.append(
                f"{label}: trend unstable — the daily weighted gap rate varies by {percent(sure.trend.cv)}"
                f" (CV over {days})"
            )
        if sure.nudge:
            lines.append(f"{label}: {stats.NUDGE_MESSAGE}")
    if underpowered:
        shown = ", ".join(underpowered[:UNDERPOWERED_SHOWN]) + (", …" if len(underpowered) > UNDERPOWERED_SHOWN else "")
        lines.append(
            f"{plural(len(underpowered), 'skill')} underpowered (< 5 segments), their bands indicative only: {shown}"
        )
    return lines


def marker_note(report: Report) -> str | None:
    """Whether a marker rate means anything: the agents must have been asked to write markers."""
    not_asked = [c.cwd for c in report.conventions if not c.asked]
    if not report.conventions or not not_asked:
        return None
    if len(not_asked) == len(report.conventions):
        where = "no project asks for them"
    else:
        where = f"{len(not_asked)} of {len(report.conventions)} projects do not ask for them"
    return (
        f'explicit markers: {where}, so a marker count of 0 there means "not asked", not "no guesses" '
        "(`omkd conventions` prints the block for CLAUDE.md / AGENTS.md)"
    )


def patterns_table(report: Report, width: int | None = None) -> Table | None:
    """What was looked for, one line a row: a long name or pattern is cut with an ellipsis."""
    if not report.top_failed_searches:
        return None
    table = Table(
        title="Top failed searches (what was looked for; the commands are in --json)",
        title_justify="left",
        expand=width is not None,
    )
    narrow = width is not None and width < NARROW_BELOW
    table.add_column("skill", no_wrap=True, overflow="ellipsis", max_width=SKILL_NARROW_WIDTH if narrow else 40)
    table.add_column("looked for", no_wrap=True, overflow="ellipsis", ratio=1, min_width=12)
    table.add_column("tools", no_wrap=True, overflow="ellipsis", max_width=12 if narrow else 16)
    table.add_column("count", justify="right", no_wrap=True)
    table.add_column("last seen", no_wrap=True)
    for pattern in report.top_failed_searches:
        name = skills.row_label(pattern.skill, pattern.agent)
        tools = ", ".join(pattern.tools or [pattern.tool])
        seen = short_time(pattern.last_seen)
        # narrow: the day is enough, and what was looked for (the column that says what is missing) gets the room
        table.add_row(name, " ".join(pattern.pattern.split()), tools, str(pattern.count), seen[:10] if narrow else seen)
    return table


def short_time(iso: str | None) -> str:
    """``2026-11-08T12:00:00.000Z`` as ``2026-11-08 12:00`` (UTC): what a table needs, on one line."""
    return iso[:16].replace("T", " ") if iso else "—"


def watermark_sections(report: Report) -> list[tuple[str, Text]]:
    """The watermark (spec §1) and how the figures were computed, each a label and its lines."""
    mark = report.watermark
    text = Text()
    text.append(f"roots: {', '.join(mark.roots)}\n")
    text.append(f"window: {mark.window_from or '—'} → {mark.window_to or '—'}\n")
    text.append(f"sessions: {mark.sessions}  segments: {mark.segments}  fingerprint: {mark.fingerprint}\n")
    text.append(mark.statement, style="italic")
    sections = [("Watermark", text)]
    audit = report.reproducibility
    if audit is not None:
        methods = audit.methods
        computed = Text(
            f"omkd {audit.omkd_version}  schema {audit.schema_version}  rules {audit.rules_hash}  "
            f"judge {audit.judge}\n"
            f"intervals: {methods.rate_interval}; rise: {methods.rise_interval}; "
            f"gates: {methods.gates}; seeds: {audit.seeds}",
            style="dim",
        )
        sections.append(("Computed", computed))
    return sections


def watermark(report: Report) -> Table:
    """The watermark block: labels on the left, their lines wrapped within the right column (so a
    line that wraps on a narrow terminal keeps its indent)."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(overflow="fold")
    for label, text in watermark_sections(report):
        grid.add_row(label, text)
    return grid


def pipeline_line(report: Report) -> str:
    p = report.pipeline
    bad = sum(p.bad_lines.values())
    unknown = sum(p.unknown_types.values())
    parts = [plural(p.files, "file"), plural(p.records, "record"), plural(bad, "bad line")]
    parts.append(f"{plural(unknown, 'record')} of unknown type")
    if bad:
        parts.append("(" + ", ".join(f"{k}: {v}" for k, v in p.bad_lines.items()) + ")")
    return "Read " + ", ".join(parts)


def regression_json(moved: Regression) -> dict[str, object]:
    return {
        "skill": moved.skill,
        "before": moved.before,
        "after": moved.after,
        "rise": moved.rise,
        "interval": list(moved.interval) if moved.interval is not None else None,
        "level": moved.level,
        "significant": moved.significant,
    }


def regressions_table(moved: list[Regression]) -> Table:
    table = Table(title="Gap rate against the baseline", title_justify="left")
    for column in ("skill", "before", "now", "rise", "interval of the rise", "significant"):
        table.add_column(column, justify="left" if column in ("skill", "significant") else "right")
    for entry in moved:
        interval = "—"
        if entry.interval is not None:
            interval = f"[{100 * entry.interval[0]:+.1f}, {100 * entry.interval[1]:+.1f}] points"
        verdict = "—" if entry.significant is None else ("yes" if entry.significant else "no")
        level = stats.confidence_label(entry.level)
        table.add_row(
            entry.skill,
            percent(entry.before),
            percent(entry.after),
            gates.points(entry.rise),
            f"{interval} {level}",
            verdict,
        )
    return table


def render(
    report: Report,
    console: Console,
    failures: list[GateFailure],
    moved: list[Regression] | None = None,
    comparable: bool | None = None,
) -> None:
    """The whole terminal view; ``comparable`` False warns that the baseline's rules differ."""
    width = console.width if console.is_terminal else None
    arrangement = skill_fit(report, width)
    skills = skill_table(report, arrangement)
    if width is None:
        widen_for(console, skills)
    console.print(skills)
    given_up = given_up_note(arrangement, width)
    if given_up is not None:
        console.print(given_up, style="dim", markup=False)
    console.print(
        ("rates with their 95 % intervals (Wilson, continuity-corrected); " if arrangement.intervals else "")
        + BAND_LEGEND,
        style="dim",
        markup=False,
    )
    gaps = at_gap_table(report, width)
    if gaps is not None:
        console.print(gaps)
        console.print(metacog.LEGEND, style="dim", markup=False)
    for line in warnings(report):
        console.print(Text("warning: ", style="yellow") + Text(line))
    note = marker_note(report)
    if note is not None:
        console.print(Text("note: ", style="cyan") + Text(note))
    table = patterns_table(report, width)
    if table is not None:
        if width is None:
            widen_for(console, table)
        console.print(table)
    if moved:
        console.print(regressions_table(moved))
    if comparable is False:
        console.print(Text("warning: ", style="yellow") + Text(NOT_COMPARABLE))
    console.print(pipeline_line(report), style="dim")
    console.print(watermark(report))
    for failure in failures:
        console.print(Text("gate failed: ", style="bold red") + Text(failure.describe()))
