"""The CI gate options, declared once for ``omkd scan`` and ``omkd status``, and applied once."""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import click
import orjson

from omkd.cli import render
from omkd.engine import formats, gates
from omkd.engine.records import to_data
from omkd.engine.report.build import restrict
from omkd.engine.report.schema import Report

F = TypeVar("F", bound=Callable[..., Any])

EXIT_GATE = 1
"""A gate failed: the offending skills are printed."""
EXIT_INPUT = 2
"""Bad usage or unreadable input: the message names it."""
EXIT_NOTHING_GATED = 3
"""Gates were asked for but no skill had the segments to be gated (as pytest exits 5 when no test
ran): a build must not pass on no evidence. ``--allow-empty`` makes it 0."""


@dataclass(frozen=True, slots=True)
class GateOptions:
    only_skills: tuple[str, ...]
    agents: tuple[str, ...]
    excluded_skills: tuple[str, ...]
    max_gap_rate: float | None
    max_weighted_gap_rate: float | None
    baseline: Path | None
    gap_rate_regression: float | None
    confident: bool
    alpha: float
    allow_empty: bool
    markdown: str | None = None
    step_summary: bool = False

    def restrict(self, report: Report) -> Report:
        """The report with only the chosen skills and agents (``--skill``, ``--agent``); a name
        that is in none of its rows is an error naming those that are (exit 2)."""
        if not self.only_skills and not self.agents:
            return report
        check_names("skill", self.only_skills, [s.skill for s in report.skills])
        check_names("agent", self.agents, [s.agent or "" for s in report.skills])
        return restrict(report, set(self.only_skills) or None, set(self.agents) or None)

    @property
    def any(self) -> bool:
        """A gate was asked for."""
        limits = (self.max_gap_rate, self.max_weighted_gap_rate, self.gap_rate_regression)
        return any(limit is not None for limit in limits)


@dataclass(frozen=True, slots=True)
class GateResult:
    failures: list[gates.GateFailure]
    moved: list[gates.Regression]
    baseline: gates.Baseline | None
    comparable: bool | None
    """Whether report and baseline were computed by the same rules (None: unknown or no baseline)."""
    gated: int = 0
    """Skills with the segments to be gated (``low`` or ``high``), after ``--exclude-skill``."""
    skipped: int = 0
    """Underpowered skills, not gated."""


def load_baseline(path: Path) -> gates.Baseline:
    try:
        return gates.load(orjson.loads(path.read_bytes()))
    except OSError as error:
        raise click.BadParameter(f"{path}: {error.strerror}", param_hint="--baseline") from None
    except (orjson.JSONDecodeError, gates.BaselineError) as error:
        raise click.BadParameter(f"{path}: not a baseline ({error})", param_hint="--baseline") from None


_OPTIONS: list[Callable[[F], F]] = [
    click.option("--skill", "only_skills", multiple=True, help="Report (and gate) only this skill. Repeatable."),
    click.option(
        "--agent",
        "agents",
        multiple=True,
        type=click.Choice(formats.AGENTS),
        help="Report (and gate) only the skills this agent ran. Repeatable.",
    ),
    click.option(
        "--exclude-skill",
        "excluded_skills",
        multiple=True,
        help="Do not gate this skill (it is still reported), e.g. `general`. Repeatable.",
    ),
    *(
        click.option(
            f"--max-{name}",
            type=click.FloatRange(0, 1),
            help=f"Fail (exit 1) when a skill's {what} exceeds this fraction (0-1).",
        )
        for name, what in (("gap-rate", "gap rate"), ("weighted-gap-rate", "weighted gap rate"))
    ),
    click.option(
        "--baseline",
        type=click.Path(path_type=Path, dir_okay=False),
        help="A baseline saved by `omkd scan --save-baseline` (or a `scan --json` report).",
    ),
    click.option(
        "--gap-rate-regression",
        type=click.FloatRange(0, 1),
        help="With --baseline: fail when a skill's gap rate rose by more than this fraction.",
    ),
    click.option(
        "--confident",
        is_flag=True,
        help="Gates fail only when the rate's lower bound exceeds the limit (Bonferroni over the skills).",
    ),
    click.option(
        "--alpha",
        type=click.FloatRange(0, 1, min_open=True, max_open=True),
        default=gates.DEFAULT_ALPHA,
        show_default=True,
        help="Family-wise false-alarm rate of --confident gates.",
    ),
    click.option(
        "--markdown",
        metavar="FILE",
        help="Also write the report as GitHub-flavoured Markdown to FILE (- for stdout): a pull-request "
        "comment, with the gate results.",
    ),
    click.option(
        "--step-summary",
        is_flag=True,
        help="Also append that Markdown to the file $GITHUB_STEP_SUMMARY names (GitHub Actions' job summary).",
    ),
    click.option(
        "--allow-empty",
        is_flag=True,
        help=f"Exit 0, not {EXIT_NOTHING_GATED}, when gates were asked for but no skill had the segments to be gated.",
    ),
]


def gate_options(command: F) -> F:
    """Add the gate options to a click command; it receives them as one ``gate`` argument."""
    names = [f.name for f in dataclasses.fields(GateOptions)]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["gate"] = GateOptions(**{name: kwargs.pop(name) for name in names})
        return command(*args, **kwargs)

    decorated: Any = wrapper
    for option in reversed(_OPTIONS):
        decorated = option(decorated)
    return decorated  # type: ignore[no-any-return]


NAMES_SHOWN: Final = 20


def check_names(kind: str, asked: Sequence[str], existing: Sequence[str]) -> None:
    """Every name ``asked`` for is among ``existing``; else say which are, and exit 2."""
    known = sorted(set(existing))
    unknown = [name for name in asked if name not in known]
    if not unknown:
        return
    shown = ", ".join(known[:NAMES_SHOWN]) + (", …" if len(known) > NAMES_SHOWN else "")
    click.echo(
        f"omkd: no {kind} {', '.join(repr(n) for n in unknown)} in the window; "
        + (f"the {kind}s there: {shown}" if known else f"no {kind} has a segment there"),
        err=True,
    )
    sys.exit(EXIT_INPUT)


def check_usage(gate: GateOptions) -> gates.Baseline | None:
    """Option combinations that make no sense; the baseline, loaded."""
    if gate.gap_rate_regression is not None and gate.baseline is None:
        raise click.UsageError("--gap-rate-regression needs --baseline")
    return load_baseline(gate.baseline) if gate.baseline is not None else None


def apply_gates(report: Report, gate: GateOptions, baseline: gates.Baseline | None) -> GateResult:
    """Every gate failure and every move against the baseline, for the report's skills."""
    rates = baseline.skills if baseline is not None else None
    chosen = gates.Gates(
        gate.max_gap_rate, gate.max_weighted_gap_rate, rates, gate.gap_rate_regression, gate.confident, gate.alpha
    )
    comparable = baseline.comparable_with(report) if baseline is not None else None
    excluded = set(gate.excluded_skills)
    candidates = [s for s in report.skills if s.skill not in excluded]
    gated = len(gates.gated(candidates))
    return GateResult(
        gates.check(candidates, chosen),
        gates.regressions(candidates, chosen),
        baseline,
        comparable,
        gated,
        len(candidates) - gated,
    )


def gated_line(result: GateResult) -> str:
    """``3 skills gated, 2 underpowered (< 5 segments) not gated``."""
    return f"{render.plural(result.gated, 'skill')} gated, {result.skipped} underpowered (< 5 segments) not gated"


def publish(
    report: Report,
    result: GateResult,
    as_json: bool,
    gate: GateOptions | None = None,
    changes: Callable[[], str] | None = None,
) -> None:
    """Print the report (JSON or the terminal view) with the gate results; exit 1 on a failure,
    ``EXIT_NOTHING_GATED`` when gates were asked for and nothing could be gated. ``changes`` gives
    the Markdown of the knowledge changes in the span, asked only for a Markdown summary."""
    failures = result.failures
    if gate is not None and (gate.markdown is not None or gate.step_summary):
        from omkd.cli import markdown

        gated = gated_line(result) if gate.any else None
        extra = changes() if changes is not None else ""
        markdown.publish(report, failures if gate.any else None, gated, gate.markdown, gate.step_summary, extra)
        if gate.markdown == "-":  # stdout holds the Markdown alone
            _exit(result, gate)
            return
    if as_json:
        document = to_data(report)
        document["gate_failures"] = [
            {"skill": f.skill, "gate": f.gate, "value": f.value, "limit": f.limit, "detail": f.detail} for f in failures
        ]
        if result.baseline is not None:
            document["regressions"] = [render.regression_json(m) for m in result.moved]
            document["baseline_comparable"] = result.comparable
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
        for failure in failures:
            click.echo(f"gate failed: {failure.describe()}", err=True)
        if result.comparable is False:
            click.echo(f"warning: {render.NOT_COMPARABLE}", err=True)
    else:
        render.render(report, render.stdout_console(), failures, result.moved, result.comparable)
    _exit(result, gate)


def _exit(result: GateResult, gate: GateOptions | None) -> None:
    """Say what was gated; exit 1 on a failure, ``EXIT_NOTHING_GATED`` when nothing could be gated."""
    failures = result.failures
    if gate is not None and gate.any:
        click.echo(f"gates: {gated_line(result)}", err=True)
        if result.gated == 0 and not gate.allow_empty:
            click.echo(
                "gates: nothing was gated: no skill has 5 segments or more "
                f"(exit {EXIT_NOTHING_GATED}; --allow-empty to pass)",
                err=True,
            )
            sys.exit(EXIT_NOTHING_GATED)
    if failures:
        sys.exit(EXIT_GATE)
