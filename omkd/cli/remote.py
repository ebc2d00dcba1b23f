"""``omkd status`` and ``omkd gaps``: ask a running daemon over HTTP."""

from __future__ import annotations

import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import click
import orjson
from rich.table import Table

from omkd.cli import render
from omkd.cli.scan import EXIT_GATE, EXIT_INPUT, load_baseline
from omkd.daemon.config import DEFAULT_PORT
from omkd.engine import gates, patterns
from omkd.engine.report import Report

DEFAULT_URL = f"http://127.0.0.1:{DEFAULT_PORT}"
TIMEOUT_SECONDS = 10.0


def fetch(url: str, path: str, query: list[tuple[str, str]]) -> Any:
    full = f"{url.rstrip('/')}{path}"
    if query:
        full += "?" + urllib.parse.urlencode(query)
    try:
        with urllib.request.urlopen(full, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310 (the user names the URL)
            return orjson.loads(response.read())
    except urllib.error.HTTPError as error:
        body = error.read()
        try:
            message = orjson.loads(body).get("error", body.decode(errors="replace"))
        except orjson.JSONDecodeError:
            message = body.decode(errors="replace").strip()
        click.echo(f"omkd: {full}: HTTP {error.code}: {message}", err=True)
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        click.echo(f"omkd: cannot reach the daemon at {url} ({reason}); is `omkd run` running?", err=True)
    except orjson.JSONDecodeError:
        click.echo(f"omkd: {full} did not answer with JSON; is it an omkd daemon?", err=True)
    sys.exit(EXIT_INPUT)


url_option = click.option("--url", default=DEFAULT_URL, show_default=True, envvar="OMKD_URL",
                          help="The daemon's address (env OMKD_URL).")  # fmt: skip


@click.command("status")
@url_option
@click.option("--json", "as_json", is_flag=True, help="Print the daemon's JSON report.")
@click.option("--skill", "only_skills", multiple=True, help="Report only this skill. Repeatable.")
@click.option("--max-gap-rate", type=click.FloatRange(0, 1), help="Exit 1 when a skill's gap rate exceeds this.")
@click.option(
    "--max-weighted-gap-rate", type=click.FloatRange(0, 1), help="Exit 1 when a skill's weighted gap rate exceeds this."
)
@click.option(
    "--baseline", type=click.Path(exists=False, dir_okay=False), help="Baseline saved by scan --save-baseline."
)
@click.option(
    "--gap-rate-regression", type=click.FloatRange(0, 1), help="With --baseline: exit 1 on a rise above this."
)
@click.option("--confident", is_flag=True, help="Gates fail only on a confident exceedance (see omkd scan --help).")
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=gates.DEFAULT_ALPHA,
    show_default=True,
    help="Family-wise false-alarm rate of --confident gates.",
)
def status_command(
    url: str,
    as_json: bool,
    only_skills: tuple[str, ...],
    max_gap_rate: float | None,
    max_weighted_gap_rate: float | None,
    baseline: str | None,
    gap_rate_regression: float | None,
    confident: bool,
    alpha: float,
) -> None:
    """Spot-check a running daemon: skill table, tiers and watermark; same gates as scan."""
    if gap_rate_regression is not None and baseline is None:
        raise click.UsageError("--gap-rate-regression needs --baseline")
    rates = load_baseline(Path(baseline)) if baseline is not None else None
    document = fetch(url, "/api/v1/status", [("skill", s) for s in only_skills])
    report = Report.model_validate(document)
    chosen = gates.Gates(max_gap_rate, max_weighted_gap_rate, rates, gap_rate_regression, confident, alpha)
    failures = gates.check(report.skills, chosen)
    moved = gates.regressions(report.skills, chosen)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
        for failure in failures:
            click.echo(f"gate failed: {failure.describe()}", err=True)
    else:
        render.render(report, render.stdout_console(), failures, moved)
    if failures:
        sys.exit(EXIT_GATE)


@click.command("gaps")
@url_option
@click.option("--skill", help="Only this skill.")
@click.option("--type", "kind", type=click.Choice(patterns.SIGNAL_TYPES), help="Only this signal type.")
@click.option("--since", help="Only gaps at or after this time (ISO-8601 or an age: 7d, 24h).")
@click.option("--limit", type=click.IntRange(1, 10_000), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def gaps_command(url: str, skill: str | None, kind: str | None, since: str | None, limit: int, as_json: bool) -> None:
    """The gap inventory of a running daemon, newest first: what is missing, where."""
    query = [("limit", str(limit))]
    query += [(k, v) for k, v in (("skill", skill), ("type", kind), ("since", since)) if v is not None]
    document = fetch(url, "/api/v1/gaps", query)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
        return
    table = Table(title=f"Gaps ({document['count']})", title_justify="left")
    for column in ("time", "skill", "type", "turn", "context"):
        table.add_column(column, overflow="fold")
    for gap in document["gaps"]:
        table.add_row(gap["timestamp"] or "—", gap["skill"], gap["type"], str(gap["turn"]), gap["context"])
    render.stdout_console().print(table)
