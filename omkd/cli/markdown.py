"""The report as GitHub-flavoured Markdown: a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

The same overview as the terminal (skill table with intervals, tiers and bands, the gate results,
the top failed searches, the warnings, the watermark). Every text that comes from a transcript
(skill names, tool names, patterns) is escaped: it is shown as text, never read as Markdown or
HTML (a pattern such as ``a|b`` or ``<img src=x>`` cannot break the table or inject markup).
"""

from __future__ import annotations

import html
from typing import Any, Final

from omkd.cli import cells, render
from omkd.engine import skills
from omkd.engine.figures import BAND_LEGEND
from omkd.engine.gates import GateFailure
from omkd.engine.report.schema import Report, SkillHealth
from omkd.render import columns, metacog
from omkd.render.columns import Band, Column

PATTERNS_SHOWN: Final = 10
MAX_CHARS: Final = 65_000
"""A pull-request comment's size (GitHub takes 65,536), with room for a bot's header."""
LISTED_WHEN_CUT: Final = 50
"""Gate failures, and warnings, listed in a summary cut to fit."""
CUT_NOTE: Final = "*The summary was cut here to fit a pull-request comment; `omkd scan --json` has it all.*"
_MARKDOWN: Final = str.maketrans({c: f"\\{c}" for c in "\\`*_[]|~"})


def text(value: str) -> str:
    """``value`` as literal text in a table cell: HTML escaped, the Markdown of a cell (emphasis,
    code, links, the cell separator) escaped, on one line."""
    return html.escape(" ".join(value.split()), quote=False).translate(_MARKDOWN)


def _rate(value: float | None, lower: float, upper: float) -> str:
    if value is None:
        return "—"
    return f"{100 * value:.1f} % [{100 * lower:.1f}–{100 * upper:.1f}]"


def _band(value: Band) -> str:
    return text(value.label)


def _cell(column: Column, skill: SkillHealth, overall: bool) -> str:
    """One cell of the skill table: the column's value as Markdown shows its kind."""
    value: Any = column.read(skill)
    kind = column.kind
    if kind == columns.NAME:
        return "**overall**" if overall else text(value)
    if kind == columns.AGENT:
        return text(value or "")
    if kind == columns.RATE:
        return _rate(value.value, value.interval.lower, value.interval.upper)
    if kind == columns.BAND:
        return _band(value)
    if kind == columns.COVERAGE:
        return cells.coverage(value)
    if kind == columns.OUTCOMES:
        return text(metacog.described(value))
    return str(value)


def summary(
    report: Report, failures: list[GateFailure] | None = None, gated: str | None = None, limit: int = MAX_CHARS
) -> str:
    """The Markdown document; ``failures`` and ``gated`` (the "N skills gated" line) when gates ran.
    At most ``limit`` characters (a pull-request comment's): past it the failures are cut to
    ``LISTED_WHEN_CUT`` (and the warnings too) and the skill table to as many rows as fit, each cut
    said in the text; past it even then, the text is cut at a line with a note."""
    failed, warned = len(failures or []), len(render.warnings(report))
    whole = _document(report, failures, gated, len(report.skills), failed, warned)
    if len(whole) <= limit:
        return whole
    failed, warned = min(failed, LISTED_WHEN_CUT), min(warned, LISTED_WHEN_CUT)
    fits, over = 0, len(report.skills)
    while fits < over:  # the most skill rows (largest skills first) that keep it under the limit
        middle = (fits + over + 1) // 2
        if len(_document(report, failures, gated, middle, failed, warned)) <= limit:
            fits = middle
        else:
            over = middle - 1
    document = _document(report, failures, gated, fits, failed, warned)
    if len(document) > limit:  # even without skill rows (names of thousands of characters): cut
        document = document[: document.rfind("\n", 0, limit - len(CUT_NOTE) - 1) + 1] + CUT_NOTE + "\n"
    return document


def _document(
    report: Report,
    failures: list[GateFailure] | None,
    gated: str | None,
    skills_shown: int,
    failures_shown: int,
    warnings_shown: int,
) -> str:
    agents = render.several_agents(report)
    lines = ["## omkd: knowledge-gap report", ""]
    if failures is not None:
        if failures:
            lines.append(f"**Gates failed** ({len(failures)}):")
            lines.append("")
            lines += [f"- {text(failure.describe())}" for failure in failures[:failures_shown]]
            if failures_shown < len(failures):
                lines.append(f"- … and {len(failures) - failures_shown} more (`omkd scan` prints them all)")
        else:
            lines.append("**Gates passed.**")
        if gated:
            lines += ["", text(gated)]
        lines.append("")
    shown = columns.chosen(columns.MARKDOWN, () if agents else ("agent",))
    lines += [
        "| " + " | ".join(column.header for column in shown) + " |",
        "|" + "|".join("---:" if column.kind == columns.COUNT else "---" for column in shown) + "|",
    ]
    for skill in [*report.skills[:skills_shown], report.overall]:
        lines.append("| " + " | ".join(_cell(column, skill, skill is report.overall) for column in shown) + " |")
    hidden = len(report.skills) - skills_shown
    if hidden:
        noun = "skill" if hidden == 1 else "skills"
        lines += ["", f"*{hidden} more {noun} not shown (the smallest): a pull-request comment holds "
                  f"{MAX_CHARS:,} characters; `omkd scan --json` has them all.*"]  # fmt: skip
    lines += [
        "",
        f"Rates with their 95 % intervals (Wilson, continuity-corrected); {text(BAND_LEGEND)}.",
    ]
    lines += _at_gap(report, skills_shown, agents)
    patterns = report.top_failed_searches[:PATTERNS_SHOWN]
    if patterns:
        lines += [
            "",
            "### Top failed searches",
            "",
            "| skill | looked for | tools | count | last seen |",
            "|---|---|---|---:|---|",
        ]
        for p in patterns:
            tools = ", ".join(p.tools or [p.tool])
            lines.append(
                f"| {text(skills.row_label(p.skill, p.agent))} | {text(p.pattern)} | {text(tools)} | {p.count} "
                f"| {p.last_seen or '—'} |"
            )
    warnings = render.warnings(report)
    if warnings:
        lines += ["", "### Warnings", ""]
        lines += [f"- {text(warning)}" for warning in warnings[:warnings_shown]]
        if warnings_shown < len(warnings):
            lines.append(f"- … and {len(warnings) - warnings_shown} more (`omkd scan` prints them all)")
    mark = report.watermark
    lines += [
        "",
        f"<sub>roots: {text(', '.join(mark.roots)) or '—'}; "
        f"{mark.segments} segments, {mark.sessions} sessions, window {mark.window_from or '—'} → "
        f"{mark.window_to or '—'}, fingerprint `{mark.fingerprint}`. {html.escape(mark.statement)}</sub>",
        "",
    ]
    return "\n".join(lines)


def _at_gap(report: Report, skills_shown: int, agents: bool) -> list[str]:
    """What the agents did at a gap, beside the gap rate (spec §8.7), for the skills shown above."""
    rows = [s for s in report.skills[:skills_shown] if metacog.shown(s)]
    if not rows and not metacog.shown(report.overall):
        return []
    shown = columns.chosen(columns.AT_A_GAP, () if agents else ("agent",))
    lines = ["", "### What the agents did at a gap", ""]
    lines += ["| " + " | ".join(column.header for column in shown) + " |", "|" + "|".join("---" for _ in shown) + "|"]
    for skill in [*rows, report.overall]:
        lines.append("| " + " | ".join(_cell(column, skill, skill is report.overall) for column in shown) + " |")
    return [*lines, "", f"*{text(metacog.LEGEND)}.*"]


def publish(
    report: Report,
    failures: list[GateFailure] | None,
    gated: str | None,
    path: str | None,
    step_summary: bool,
    extra: str = "",
) -> None:
    """Write the summary to ``path`` (``-``: stdout) and, with ``step_summary``, append it to the file
    ``$GITHUB_STEP_SUMMARY`` names (a warning on stderr when it is not set). ``extra`` (the knowledge
    changes of the span) follows the summary when both fit a pull-request comment."""
    import os
    import sys

    import click

    document = summary(report, failures, gated)
    if extra:
        fits = len(document) + len(extra) + 1 <= MAX_CHARS
        document += "\n" + (extra if fits else "*The knowledge changes did not fit: `omkd impact` lists them.*\n")
    if path == "-":
        sys.stdout.write(document)
    elif path is not None:
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(document)
        except OSError as error:
            raise click.BadParameter(f"{path}: {error.strerror}", param_hint="--markdown") from None
    if step_summary:
        target = os.environ.get("GITHUB_STEP_SUMMARY")
        if not target:
            click.echo("warning: --step-summary: GITHUB_STEP_SUMMARY is not set; no summary written", err=True)
            return
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(document)
