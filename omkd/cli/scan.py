"""``omkd scan``: fold transcript files once and report, with CI gates.

Exit codes: 0 fine, 1 a gate failed (the offending skills are printed), 2 bad usage or
unreadable input (the message names the path).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click
import orjson
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn

from omkd.cli import render
from omkd.engine import gates
from omkd.engine.pipeline import Window
from omkd.engine.report import build_report, restrict
from omkd.engine.timespec import parse_moment
from omkd.shell.knowledge import FileKnowledgeIndex
from omkd.shell.scan import ScanInputError, discover, scan

PROGRESS_AFTER_SECONDS = 0.5
EXIT_GATE = 1
EXIT_INPUT = 2


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


def load_baseline(path: Path) -> dict[str, gates.BaselineSkill]:
    try:
        return gates.baseline_rates(orjson.loads(path.read_bytes()))
    except OSError as error:
        raise click.BadParameter(f"{path}: {error.strerror}", param_hint="--baseline") from None
    except (orjson.JSONDecodeError, gates.BaselineError) as error:
        raise click.BadParameter(f"{path}: not a baseline ({error})", param_hint="--baseline") from None


@click.command("scan")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--kb",
    "knowledge_roots",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Extra knowledge root: every text file below it counts for coverage. Repeatable.",
)
@click.option("--since", help="Only segments starting at or after this time (ISO-8601, or an age: 7d, 24h).")
@click.option("--until", help="Only segments starting before this time (ISO-8601, or an age).")
@click.option("--skill", "only_skills", multiple=True, help="Report only this skill. Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (schema in the README).")
@click.option("--max-gap-rate", type=click.FloatRange(0, 1), help="Fail (exit 1) when a skill's gap rate exceeds this.")
@click.option(
    "--max-weighted-gap-rate",
    type=click.FloatRange(0, 1),
    help="Fail (exit 1) when a skill's weighted gap rate exceeds this.",
)
@click.option("--baseline", type=click.Path(path_type=Path, dir_okay=False), help="Baseline saved by --save-baseline.")
@click.option(
    "--gap-rate-regression",
    type=click.FloatRange(0, 1),
    help="With --baseline: fail when a skill's gap rate rose by more than this.",
)
@click.option(
    "--confident",
    is_flag=True,
    help="Gates fail only when the rate's lower bound exceeds the limit (Bonferroni over the skills).",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=gates.DEFAULT_ALPHA,
    show_default=True,
    help="Family-wise false-alarm rate of --confident gates.",
)
@click.option("--save-baseline", type=click.Path(path_type=Path, dir_okay=False), help="Write this scan's rates here.")
@click.option(
    "--gap-limit",
    type=click.IntRange(0),
    default=100,
    show_default=True,
    help="Newest gaps listed in the JSON inventory (0: all).",
)
@click.option(
    "--home",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path.home(),
    show_default="your home",
    help="Where the user-level ~/.claude knowledge lives.",
)
def scan_command(
    paths: tuple[Path, ...],
    knowledge_roots: tuple[Path, ...],
    since: str | None,
    until: str | None,
    only_skills: tuple[str, ...],
    as_json: bool,
    max_gap_rate: float | None,
    max_weighted_gap_rate: float | None,
    baseline: Path | None,
    gap_rate_regression: float | None,
    confident: bool,
    alpha: float,
    save_baseline: Path | None,
    gap_limit: int,
    home: Path,
) -> None:
    """Scan transcript files or directories (recursively, *.jsonl) and report skill health."""
    if gap_rate_regression is not None and baseline is None:
        raise click.UsageError("--gap-rate-regression needs --baseline")
    for root in knowledge_roots:
        if not root.is_dir():
            raise click.BadParameter(f"{root}: no such directory", param_hint="--kb")
    window = Window(_moment("--since", since), _moment("--until", until))
    baseline_rates = load_baseline(baseline) if baseline is not None else None
    err = Console(stderr=True)
    try:
        files = discover(paths)
        total = sum(f.stat().st_size for f in files)
        progress = LazyProgress(total, err) if err.is_terminal else None
        try:
            fold = scan(files, window, progress=progress)
        finally:
            if progress is not None:
                progress.close()
    except ScanInputError as error:
        click.echo(f"omkd scan: {error}", err=True)
        sys.exit(EXIT_INPUT)
    knowledge = FileKnowledgeIndex(home=home, extra_roots=knowledge_roots)
    report = build_report(fold, [str(p) for p in paths], knowledge, gap_limit=gap_limit or None)
    if only_skills:
        report = restrict(report, set(only_skills))
    chosen = gates.Gates(max_gap_rate, max_weighted_gap_rate, baseline_rates, gap_rate_regression, confident, alpha)
    failures = gates.check(report.skills, chosen)
    moved = gates.regressions(report.skills, chosen)
    if save_baseline is not None:
        save_baseline.write_bytes(orjson.dumps(gates.baseline_of(report), option=orjson.OPT_INDENT_2))
    if as_json:
        document = report.model_dump(mode="json")
        document["gate_failures"] = [
            {"skill": f.skill, "gate": f.gate, "value": f.value, "limit": f.limit, "detail": f.detail} for f in failures
        ]
        if baseline_rates is not None:
            document["regressions"] = [render.regression_json(m) for m in moved]
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        render.render(report, render.stdout_console(), failures, moved)
    if failures:
        if as_json:
            for failure in failures:
                click.echo(f"gate failed: {failure.describe()}", err=True)
        sys.exit(EXIT_GATE)
