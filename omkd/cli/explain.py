"""``omkd explain``: why a transcript's figures are what they are (README "omkd explain")."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click
import orjson
from rich.console import Console
from rich.table import Table
from rich.text import Text

from omkd.cli import render
from omkd.cli.gating import EXIT_INPUT
from omkd.engine import cues
from omkd.engine.explain import Explanation
from omkd.engine.hedge_judge import embedded_judge
from omkd.engine.signals import collapse
from omkd.shell.explain import explain
from omkd.shell.scan import ScanInputError, discover

GAP_VERDICTS = frozenset({"failed_search"})
VERDICT_STYLES = {
    "failed_search": "bold red",
    "deduplicated": "red",
    "user_given": "yellow",
    "cancelled": "dim",
    "harness_refused": "dim",
    "tool_fault": "yellow",
    "found": "green",
    "not_a_search": "dim",
}


def restrict(found: Explanation, skill: str | None, only: str | None) -> Explanation:
    segments, calls, candidates, uncovered = found.segments, found.calls, found.candidates, found.uncovered
    episodes, writes = found.episodes, found.writes
    if skill is not None:
        segments = [s for s in segments if s.skill == skill]
        keys = {s.key for s in segments}
        calls = [c for c in calls if c.segment in keys]
        episodes = [e for e in episodes if e.segment in keys]
        writes = [w for w in writes if w.segment in keys]
        spans = {(s.file, s.start_line, s.end_line) for s in segments}
        candidates = [c for c in candidates if any(f == c.file and a <= c.line <= b for f, a, b in spans)]
        uncovered = [u for u in uncovered if any(f == u.file and a <= u.line <= b for f, a, b in spans)]
    if only == "gaps":
        segments = []
        calls = [c for c in calls if c.verdict in GAP_VERDICTS]
        candidates = [c for c in candidates if c.is_uncertainty]
        writes = []
    elif only == "calls":
        segments, candidates, uncovered, episodes, writes = [], [], [], [], []
    elif only == "segments":
        calls, candidates, uncovered, episodes, writes = [], [], [], [], []
    update = {
        "segments": segments, "calls": calls, "candidates": candidates, "uncovered": uncovered,
        "episodes": episodes, "writes": writes,
    }  # fmt: skip
    return found.model_copy(update=update)


Row = tuple[int, int, int, str, Text]
"""(line, order at that line, indent, location after the file name, what is said there)."""


def show(found: Explanation) -> None:
    """Per file, its rows in line order. Piped (a log, ``grep``), each row is one line that starts
    with ``file:line``; on a terminal the file is said once above its rows, each row starts with
    ``:line`` and wraps under itself at the terminal's width (the call's id is left to ``--json``)."""
    console = render.stdout_console()
    terminal = console.is_terminal and sys.stdout.isatty()  # FORCE_COLOR in a pipe keeps the log's form
    files = sorted(
        {s.file for s in found.segments} | {c.file for c in found.calls} | {c.file for c in found.candidates}
    )

    judge = embedded_judge()
    for file in files:
        console.print(Text(file, style="bold"))
        rows: list[Row] = []
        untuned: Counter[str] = Counter()  # candidates judged in a language the judge has no threshold for
        for seg in (s for s in found.segments if s.file == file and s.counted):
            ended = f", ended by {seg.ended_by}" if seg.ended_by else ", still open"
            counted = "" if seg.counted else " (empty: not counted)"
            line = Text("segment ", style="cyan")
            line.append(seg.skill, style="bold cyan")
            line.append(f"  started by {seg.started_by}{ended}{counted}")
            rows.append((seg.start_line, 0, 2, f":{seg.start_line}-{seg.end_line}", line))
        for call in (c for c in found.calls if c.file == file):
            line = Text(f"{call.tool} → " if terminal else f"{call.tool} {call.call_id}  → ")
            line.append(call.verdict, style=VERDICT_STYLES.get(call.verdict, ""))
            if call.looked_for:
                line.append(f": {call.looked_for}", style="bold")
            if call.typed:
                line.append(f" (the person typed “{call.typed}”)")
            line.append(f"  [{call.rule}]", style="dim")
            rows.append((call.line, 1, 4, f":{call.line}", line))
        for cand in (c for c in found.candidates if c.file == file):
            verdict = "uncertain" if cand.is_uncertainty else "not uncertain"
            part = " (thinking)" if cand.thinking else ""
            line = Text(f"text{part} cue “{cand.cue}” → ")
            line.append(f"{verdict} {cand.confidence:.2f}", style="yellow" if cand.is_uncertainty else "dim")
            lang = cues.language_of(cand.sentence)
            tuned = cand.judge != judge.name or judge.tuned(cand.thinking, lang)
            untuned.update(() if tuned else (lang,))
            line.append(f" [{cand.judge}{'' if tuned else f', not tuned on {lang}'}]: ", style="dim")
            line.append(cand.sentence, style="italic")
            if cand.reason:
                line.append(f"  ({cand.reason})", style="dim")
            rows.append((cand.line, 2, 4, f":{cand.line}", line))
        rows += _metacog_rows(found, file)
        rows.sort(key=lambda r: (r[0], r[1]))
        if terminal:
            _print_wrapped(console, rows)
        else:
            for _, _, indent, where, row in rows:
                console.print(Text(f"{' ' * indent}{file}{where}  ").append_text(row), soft_wrap=True)
        unread = Counter(u.language for u in found.uncovered if u.file == file)
        if unread:
            said = ", ".join(f"{lang} {n}" for lang, n in sorted(unread.items()))
            console.print(
                Text(f"  {sum(unread.values())} text parts in languages the hedging net has no cues for ({said}): "
                     "their hedges are not looked for, not counted as certain", style="yellow"),
                soft_wrap=not terminal,
            )  # fmt: skip
        if untuned:
            said = ", ".join(f"{lang} {n}" for lang, n in sorted(untuned.items()))
            console.print(
                Text(f"  {sum(untuned.values())} hedging candidates in languages the judge was not tuned on ({said}): "
                     "it keeps few uncertain sentences of such a language, so their hedges are a floor",
                     style="yellow"),
                soft_wrap=not terminal,
            )  # fmt: skip


def _print_wrapped(console: Console, rows: list[Row]) -> None:
    """Rows as a grid: the location, then what is said there, wrapped under itself."""
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for _, _, indent, where, row in rows:
        grid.add_row(Text(" " * indent + where, style="cyan" if indent == 2 else ""), row)
    if rows:
        console.print(grid)


HOW_CHARS = 100
"""What decided an outcome (the recovering call, the write, the question), cut at its end."""
OUTCOME_STYLES = {
    "recovered": "green",
    "created": "green",
    "asked": "cyan",
    "proceeded": "bold red",
    "dropped": "yellow",
}


def _metacog_rows(found: Explanation, file: str) -> list[Row]:
    """Each anchor's episode (spec §8) after its result, each project write with its load."""
    rows: list[Row] = []
    for ep in (e for e in found.episodes if e.file == file):
        looked = collapse(", ".join(ep.tokens), 60) if ep.anchor == "failed_search" else ep.anchor
        line = Text(f"at this gap{f' ({looked})' if looked else ''}: ")
        line.append(ep.outcome or "window open", style=OUTCOME_STYLES.get(ep.outcome or "", "dim"))
        if ep.outcome == "proceeded":
            line.append(" (a candidate: only a judge reading the write could confirm it)", style="dim")
        if ep.outcome_line is not None and ep.outcome != "dropped":
            line.append(f" at :{ep.outcome_line}")
        if ep.outcome_how:
            line.append(f" ({collapse(ep.outcome_how, HOW_CHARS)})", style="dim")
        flags = [f for f, on in (("acknowledged", ep.acknowledged), ("related", ep.related),
                                 ("rejected", ep.rejected), ("failed", ep.failed)) if on]  # fmt: skip
        if flags:
            line.append(f" [{', '.join(flags)}]")
        if ep.eligible is False:
            line.append(f"; not eligible: {ep.not_eligible_because}", style="dim")
        if ep.window_end is not None:
            line.append(f"; window to :{ep.window_end} ({ep.window_ended_by})", style="dim")
        rows.append((ep.result_line, 3, 4, f":{ep.result_line}", line))
    for write in (w for w in found.writes if w.file == file):
        where = collapse(", ".join("/".join(p.rsplit("/", 2)[-2:]) for p in write.paths), 60)
        line = Text(f"write {write.kind} {where}  load ")
        line.append(f"{write.load:g}", style="bold red" if write.load >= 2 else "")
        if write.anchors:
            line.append(f" (gaps at {', '.join(f':{a}' for a in write.anchors)})", style="dim")
        if write.rejected or write.failed:
            line.append(" [rejected]" if write.rejected else " [failed]")
        rows.append((write.line, 4, 4, f":{write.line}", line))
    return rows


@click.command("explain")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON (schema in the README).")
@click.option("--skill", help="Only this skill's segments and what happened in them.")
@click.option(
    "--only",
    type=click.Choice(["gaps", "calls", "segments"]),
    help="Only the gaps (failed searches, uncertain sentences), the tool calls, or the segments.",
)
def explain_command(paths: tuple[Path, ...], as_json: bool, skill: str | None, only: str | None) -> None:
    """Explain transcripts: each segment and why it started and ended, each tool call's verdict and
    the rule that decided it, each uncertainty candidate. Give a session with its sub-agent files
    (a folder) so that they find the skill that launched them."""
    try:
        found, _, _ = explain(discover(paths))
    except ScanInputError as error:
        click.echo(f"omkd explain: {error}", err=True)
        sys.exit(EXIT_INPUT)
    found = restrict(found, skill, only)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(found.model_dump(mode="json"), option=orjson.OPT_INDENT_2) + b"\n")
    else:
        show(found)
