"""``omkd scan``: fold transcript files once and report, with CI gates.

Exit codes (``gating.py``): 0 fine, 1 a gate failed (the offending skills are printed), 2 bad
usage or unreadable input (the message names the path).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import orjson
from rich.console import Console

from omkd.cli.gating import EXIT_INPUT, GateOptions, apply_gates, check_usage, gate_options, publish
from omkd.cli.options import home_option, kb_option, since_option, until_option
from omkd.engine import gates
from omkd.engine.hedge_judge import judge_identity
from omkd.engine.impact.query import ImpactQuery
from omkd.engine.report.build import build_report
from omkd.engine.report.schema import Report
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.timespec import parse_moment
from omkd.engine.window import Window
from omkd.shell.discovery import SKIP_REASONS, Skip
from omkd.shell.knowledge import FileKnowledgeIndex
from omkd.shell.scan import ScanInputError, Source, discover, scan, usable_cores

if TYPE_CHECKING:
    from rich.progress import Progress

    from omkd.engine.fold import Fold
    from omkd.shell.llm_judge import LlmRefiner

PROGRESS_AFTER_SECONDS = 0.5


class LazyProgress:
    """A byte progress bar on stderr that appears only once scanning takes a moment."""

    def __init__(self, total: int, console: Console) -> None:
        self._total = total
        self._console = console
        self._started = time.monotonic()
        self._done = 0
        self._bar: Progress | None = None
        self._task: Any = None

    def __call__(self, read: int) -> None:
        self._done += read
        if self._bar is None:
            if time.monotonic() - self._started < PROGRESS_AFTER_SECONDS:
                return
            from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn

            self._bar = Progress(
                "scanning", BarColumn(), DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn(),
                console=self._console, transient=True,
            )  # fmt: skip
            self._bar.start()
            self._task = self._bar.add_task("scan", total=self._total)
        self._bar.update(self._task, completed=self._done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def _moment(option: str, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return parse_moment(value, time.time())
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=option) from None


def _rules(
    config_path: Path | None, command: str = "scan"
) -> tuple[SegmenterRules | None, LlmRefiner | None, ImpactQuery]:
    """The detection rules (and the LLM judge) of a daemon config file, and what it sets of
    ``omkd impact``'s query (``[impact]``); defaults without one."""
    if config_path is None:
        return None, None, ImpactQuery()
    from omkd.config import ConfigError, load_config
    from omkd.shell.llm_judge import open_refiner

    try:
        config = load_config(config_path)
    except ConfigError as error:
        click.echo(f"omkd {command}: {error}", err=True)
        sys.exit(EXIT_INPUT)
    return config.segmenter_rules(), open_refiner(config.hedging.llm, config.state_dir()), config.impact.query()


@click.command("scan")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@kb_option
@since_option
@until_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (schema in the README).")
@gate_options
@click.option("--save-baseline", type=click.Path(path_type=Path, dir_okay=False), help="Write this scan's rates here.")
@click.option(
    "--gap-limit",
    type=click.IntRange(0),
    default=100,
    show_default=True,
    help="Newest gaps listed in the JSON inventory (0: all).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Read [segments], [hedging] (the LLM judge included) and [impact] from this daemon config file.",
)
@click.option(
    "--jobs",
    type=click.IntRange(1),
    default=None,
    help="Worker processes reading files (default: the usable cores; 1 reads serially). The report is "
    "the same whatever the number.",
)
@home_option
def scan_command(
    paths: tuple[Path, ...],
    knowledge_roots: tuple[Path, ...],
    since: str | None,
    until: str | None,
    as_json: bool,
    gate: GateOptions,
    save_baseline: Path | None,
    gap_limit: int,
    config_path: Path | None,
    jobs: int | None,
    home: Path,
) -> None:
    """Scan transcript files or directories (recursively) and report skill health.

    Without PATH: every agent's default folders ($CLAUDE_CONFIG_DIR/projects, ~/.claude/projects,
    ~/.config/claude/projects, $CODEX_HOME/sessions or ~/.codex/sessions, ~/.gemini/tmp: those
    that exist)."""
    baseline = check_usage(gate)
    report, index, read = read_report_and_fold(
        "scan", paths, knowledge_roots, since, until, config_path, jobs, home, gap_limit or None
    )
    report = gate.restrict(report)
    result = apply_gates(report, gate, baseline)
    if save_baseline is not None:
        save_baseline.write_bytes(orjson.dumps(gates.baseline_of(report), option=orjson.OPT_INDENT_2))
    publish(report, result, as_json, gate, lambda: changes_in_span(report, index, read))


def changes_in_span(report: Report, index: FileKnowledgeIndex, read: Read) -> str:
    """The knowledge changes inside the scanned span, with their effect (spec §9), as Markdown: of
    the skills the report shows (a gate's ``--exclude-skill`` and agents respected)."""
    from omkd.cli.impact_markdown import impact_markdown
    from omkd.shell.impact import impact_of

    mark = report.watermark
    if mark.window_from is None or mark.window_to is None:
        return ""
    start = datetime.fromisoformat(mark.window_from.replace("Z", "+00:00")).timestamp()
    rows = {(s.skill, s.agent) for s in report.skills}
    query = dataclasses.replace(read.impact, since=start, roots=tuple(mark.roots))
    found = impact_of(read.fold.in_window(), index, query)
    kept = [r for r in found.results if (r.skill, r.agent) in rows and r.change.at <= mark.window_to]
    if not kept:
        return ""
    return impact_markdown(dataclasses.replace(found, results=kept), heading="###")


@dataclass(frozen=True, slots=True)
class Read:
    """Transcripts read into a fold (``read_fold``), with what the report of them needs."""

    fold: Fold
    files: list[Source]
    paths: tuple[Path, ...]
    """The paths meant (the agents' default folders when none was given)."""
    skipped: list[Skip]
    rules: SegmenterRules | None
    judge: str
    impact: ImpactQuery
    """``omkd impact``'s query as the config sets it (its span and merge distance)."""


def read_fold(
    command: str,
    paths: tuple[Path, ...],
    since: str | None,
    until: str | None,
    config_path: Path | None = None,
    jobs: int | None = None,
) -> Read:
    """Read the transcripts below ``paths`` (none: the agents' default folders) into a fold, with
    the rules (and the LLM judge) of ``config_path``; bad input: a message naming it, exit 2."""
    if not paths:
        from omkd.config_values import default_roots  # deferred: the config's pydantic models

        paths = tuple(root.expanduser() for root in default_roots())
        if not any(path.is_dir() for path in paths):
            click.echo(f"omkd {command}: no PATH given and no transcripts at {paths[0]}: name a directory", err=True)
            sys.exit(EXIT_INPUT)
    window = Window(_moment("--since", since), _moment("--until", until))
    rules, refiner, impact = _rules(config_path, command)
    err = Console(stderr=True)
    try:
        skipped: list[Skip] = []
        files = discover(paths, skipped)
        for entry in skipped:
            click.echo(f"omkd {command}: skipped {entry.path}: {SKIP_REASONS[entry.reason]}", err=True)
        total = sum(f.path.stat().st_size for f in files)
        progress = LazyProgress(total, err) if err.is_terminal else None
        try:
            fold = scan(files, window, rules, progress=progress, refiner=refiner, jobs=jobs or usable_cores())
        finally:
            if progress is not None:
                progress.close()
            if refiner is not None:
                refiner.cache.close()
    except ScanInputError as error:
        click.echo(f"omkd {command}: {error}", err=True)
        sys.exit(EXIT_INPUT)
    judge = judge_identity(refiner.identity if refiner is not None else None)
    return Read(fold, files, paths, skipped, rules, judge, impact)


def read_report_and_fold(
    command: str,
    paths: tuple[Path, ...],
    knowledge_roots: tuple[Path, ...],
    since: str | None,
    until: str | None,
    config_path: Path | None,
    jobs: int | None,
    home: Path,
    gap_limit: int | None,
) -> tuple[Report, FileKnowledgeIndex, Read]:
    """Read the transcripts below ``paths`` (none: the agents' default folders) into a report, the
    knowledge index it was judged against and the reading itself (its fold: the segments); bad
    input: a message naming it, exit 2."""
    for root in knowledge_roots:
        if not root.is_dir():
            raise click.BadParameter(f"{root}: no such directory", param_hint="--kb")
    read = read_fold(command, paths, since, until, config_path, jobs)
    knowledge = FileKnowledgeIndex(home=home, extra_roots=knowledge_roots)
    report = build_report(
        read.fold,
        [str(p) for p in read.paths],
        knowledge,
        gap_limit=gap_limit,
        rules=read.rules,
        judge=read.judge,
        skipped_files=dict(Counter(entry.reason for entry in read.skipped)),
    )
    return report, knowledge, read
