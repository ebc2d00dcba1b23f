"""``omkd status`` and ``omkd gaps``: ask a running daemon over HTTP."""

from __future__ import annotations

import functools
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from http import HTTPStatus
from pathlib import Path
from typing import Any

import click
import orjson
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from omkd.api import DEFAULT_PORT, SKILLS_PAGE, SKILLS_TOTAL_HEADER
from omkd.cli import render
from omkd.cli.gating import EXIT_INPUT, GateOptions, apply_gates, check_names, check_usage, gate_options, publish
from omkd.engine import formats, patterns, records, skills
from omkd.engine.report.schema import GapEntry, Report
from omkd.render import metacog, notes

DEFAULT_URL = f"http://127.0.0.1:{DEFAULT_PORT}"
TIMEOUT_SECONDS = 10.0
CONTEXT_SHOWN = 160
WIDE_GAPS = 120
"""Below this many columns ``omkd gaps`` prints each gap as a block (a heading line, then its
context and what came of it, indented) instead of a table whose text columns would have no room."""
"""Characters of a gap's context in the table (``--json`` has it whole)."""


def fetch(url: str, path: str, query: list[tuple[str, str]]) -> Any:
    return fetch_with_headers(url, path, query)[0]


def fetch_with_headers(
    url: str, path: str, query: list[tuple[str, str]], missing_ok: bool = False
) -> tuple[Any, Mapping[str, str]]:
    """The JSON answer and its headers; on any failure a message naming the URL, and exit 2 (with
    ``missing_ok``, (None, {}) when the daemon does not serve the path: HTTP 404)."""
    full = f"{url.rstrip('/')}{path}"
    if query:
        full += "?" + urllib.parse.urlencode(query)
    try:
        with urllib.request.urlopen(full, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310 (the user names the URL)
            return orjson.loads(response.read()), response.headers
    except urllib.error.HTTPError as error:
        if missing_ok and error.code == HTTPStatus.NOT_FOUND:
            return None, {}
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


def fetch_if_served(url: str, path: str, query: list[tuple[str, str]]) -> Any | None:
    """Like ``fetch``, but None when the daemon does not serve ``path`` (HTTP 404: an older omkd)."""
    return fetch_with_headers(url, path, query, missing_ok=True)[0]


def fetch_status(url: str, skills: tuple[str, ...], agents: tuple[str, ...] = ()) -> dict[str, Any]:
    """The whole report: /api/v1/status pages its skills, so read every page."""
    chosen = [("skill", s) for s in skills] + [("agent", a) for a in agents]
    document, headers = fetch_with_headers(url, "/api/v1/status", [*chosen, ("limit", str(SKILLS_PAGE))])
    total = int(headers.get(SKILLS_TOTAL_HEADER) or len(document["skills"]))
    while len(document["skills"]) < total:
        offset = str(len(document["skills"]))
        page = fetch(url, "/api/v1/status", [*chosen, ("limit", str(SKILLS_PAGE)), ("offset", offset)])
        if not page["skills"]:
            break  # the skills changed between pages: what was read is what there is
        document["skills"] += page["skills"]
    return dict(document)


def daemon_url(url: str | None, config_path: Path | None) -> str:
    """The daemon's address: ``--url`` (or ``OMKD_URL``), else the config's ``http.listen``
    (``--config`` or ``OMKD_CONFIG``), else the default's."""
    if url:
        return url
    if config_path is None:
        return DEFAULT_URL
    from omkd.config import ConfigError, load_config  # deferred: pydantic, only when a config is named

    try:
        return load_config(config_path).http.url
    except ConfigError as error:
        for problem in error.problems:
            click.echo(f"omkd: {error.source}: {problem}", err=True)
        sys.exit(EXIT_INPUT)


def url_options(command: Callable[..., None]) -> Callable[..., None]:
    """``--url`` and ``--config``, given to the command as one ``url``."""

    @click.option(
        "--url",
        envvar="OMKD_URL",
        help=f"The daemon's address (env OMKD_URL; default: the config's http.listen, else {DEFAULT_URL}).",
    )
    @click.option(
        "--config",
        "config_path",
        envvar="OMKD_CONFIG",
        type=click.Path(path_type=Path, dir_okay=False),
        help="The daemon's config file: its http.listen is the address (env OMKD_CONFIG).",
    )
    @functools.wraps(command)
    def wrapped(url: str | None, config_path: Path | None, **kwargs: Any) -> None:
        command(url=daemon_url(url, config_path), **kwargs)

    return wrapped


@click.command("status")
@url_options
@click.option("--json", "as_json", is_flag=True, help="Print the daemon's JSON report (schema in the README).")
@gate_options
def status_command(url: str, as_json: bool, gate: GateOptions) -> None:
    """Spot-check a running daemon: skill table, tiers and watermark; same gates as scan."""
    baseline = check_usage(gate)
    report = gate.restrict(records.parse(Report, fetch_status(url, ())))  # every skill: a name is checked
    publish(report, apply_gates(report, gate, baseline), as_json, gate)


@click.command("gaps")
@url_options
@click.option("--skill", help="Only this skill.")
@click.option("--agent", type=click.Choice(formats.AGENTS), help="Only the skills this agent ran.")
@click.option("--type", "kind", type=click.Choice(patterns.SIGNAL_TYPES), help="Only this signal type.")
@click.option("--since", help="Only gaps at or after this time (ISO-8601 or an age: 7d, 24h).")
@click.option(
    "--limit",
    type=click.IntRange(1, 10_000),
    default=50,
    show_default=True,
    help="At most this many gaps, newest first.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the daemon's JSON answer (gaps, count, older).")
def gaps_command(
    url: str, skill: str | None, agent: str | None, kind: str | None, since: str | None, limit: int, as_json: bool
) -> None:
    """The gap inventory of a running daemon, newest first: what is missing, where."""
    query = [("limit", str(limit))]
    chosen = (("skill", skill), ("agent", agent), ("type", kind), ("since", since))
    query += [(k, v) for k, v in chosen if v is not None]
    document = fetch(url, "/api/v1/gaps", query)
    if not document["gaps"] and (skill or agent):  # nothing: is it a name that names nothing?
        rows = fetch_status(url, ())["skills"]
        check_names("skill", [skill] if skill else [], [row["skill"] for row in rows])
        check_names("agent", [agent] if agent else [], [row.get("agent") or "" for row in rows])
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
        return
    older, count = document.get("older", 0), document["count"]
    total = document.get("total", count)
    title = f"Gaps ({count}{f' of {total}' if total > count else ''} in the window" + (
        f"; {older} older)" if older else ")"
    )
    console = render.stdout_console()
    rows = [_gap_row(gap) for gap in document["gaps"]]
    if console.width < WIDE_GAPS:
        _print_gap_blocks(console, title, rows)
    else:
        table = Table(title=title, title_justify="left")
        table.add_column("time (UTC)", no_wrap=True)
        table.add_column("skill", no_wrap=True, overflow="ellipsis", max_width=render.SKILL_NARROW_WIDTH)
        table.add_column("type", no_wrap=True)
        table.add_column("where", no_wrap=True, overflow="ellipsis", max_width=32)
        table.add_column("context", overflow="fold", ratio=1)
        table.add_column("came of it", overflow="fold", ratio=1, max_width=40)
        for row in rows:
            table.add_row(*row)
        console.print(table)
    outside = document.get("outside_window", 0)
    if not document["gaps"] and older:
        console.print(f"0 gaps in the window; {older} older: {notes.FIX}")
    elif not document["gaps"] and outside:
        console.print(notes.outside_window(outside, document.get("newest_outside_window")))


def _gap_row(gap: dict[str, Any]) -> tuple[str, str, str, str, str, str]:
    """time, skill, type, where, context (cut), what came of it: one gap as the views show it."""
    where = f"{gap.get('file') or gap['stream']}:{gap.get('line', 0)}"
    context = " ".join(gap["context"].split())
    context = context if len(context) <= CONTEXT_SHOWN else context[: CONTEXT_SHOWN - 1] + "…"
    came = metacog.outcome_of(records.parse(GapEntry, gap))
    name = skills.row_label(gap["skill"], gap.get("agent"))
    return render.short_time(gap["timestamp"]), name, gap["type"], where, context, came


def _print_gap_blocks(console: Console, title: str, rows: list[tuple[str, str, str, str, str, str]]) -> None:
    """Each gap on a heading line (time, skill, type), then indented where it is (cut at its start:
    the line number stays), its context and what came of it: readable on a laptop's 80 columns."""
    console.print(Text(title, style="italic"))
    room = max(console.width - 2, 8)
    for when, name, kind, place, context, came in rows:
        where = place if len(place) <= room else "…" + place[-(room - 1) :]  # the line number kept
        console.print(Text(f"{when}  {name}  {kind}", style="bold"), no_wrap=True, overflow="ellipsis")
        console.print(Padding(Text(where), (0, 0, 0, 2)), no_wrap=True)
        console.print(Padding(Text(context), (0, 0, 0, 2)))
        if came:
            console.print(Padding(Text(f"came of it: {came}", style="dim"), (0, 0, 0, 2)))
