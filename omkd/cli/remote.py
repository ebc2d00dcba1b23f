"""``omkd status`` and ``omkd gaps``: ask a running daemon over HTTP."""

from __future__ import annotations

import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import click
import orjson
from rich.table import Table

from omkd.api import DEFAULT_PORT, SKILLS_PAGE, SKILLS_TOTAL_HEADER
from omkd.cli import render
from omkd.cli.gating import EXIT_INPUT, GateOptions, apply_gates, check_usage, gate_options, publish
from omkd.engine import formats, patterns, records, skills
from omkd.engine.report.schema import Report

DEFAULT_URL = f"http://127.0.0.1:{DEFAULT_PORT}"
TIMEOUT_SECONDS = 10.0


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


url_option = click.option("--url", default=DEFAULT_URL, show_default=True, envvar="OMKD_URL",
                          help="The daemon's address (env OMKD_URL).")  # fmt: skip


@click.command("status")
@url_option
@click.option("--json", "as_json", is_flag=True, help="Print the daemon's JSON report (schema in the README).")
@gate_options
def status_command(url: str, as_json: bool, gate: GateOptions) -> None:
    """Spot-check a running daemon: skill table, tiers and watermark; same gates as scan."""
    baseline = check_usage(gate)
    report = gate.restrict(records.parse(Report, fetch_status(url, gate.only_skills, gate.agents)))
    publish(report, apply_gates(report, gate, baseline), as_json, gate)


@click.command("gaps")
@url_option
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
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
        return
    older = document.get("older", 0)
    title = f"Gaps ({document['count']} in the window" + (f"; {older} older)" if older else ")")
    table = Table(title=title, title_justify="left")
    for column in ("time", "skill", "type", "where", "context"):
        table.add_column(column, overflow="fold")
    for gap in document["gaps"]:
        where = f"{gap.get('file') or gap['stream']}:{gap.get('line', 0)}"
        name = skills.row_label(gap["skill"], gap.get("agent"))
        table.add_row(gap["timestamp"] or "—", name, gap["type"], where, gap["context"])
    console = render.stdout_console()
    console.print(table)
    if not document["gaps"] and older:
        console.print(
            f"0 gaps in the window; {older} older: widen the daemon's `window.length`, or use "
            "`omkd scan --since` with an age that reaches them"
        )
