"""The daemon's HTTP API and the commands that use it.

One real ``omkd run`` per module follows a hand-made session (``tests/live_helpers.py``
recipes), one segment a minute from 2026-01-01T00:00Z:

- deploy: miss, hit, miss, hit, miss, hit at minutes 0-5 -> 6 segments, 3 with a failed
  search (gap rate 3/6 = 0.5, weighted (1 + 1 + 1) / 6 = 0.5), confidence low;
- lint: hedge at minute 6 -> 1 segment with one hedging signal, underpowered.

Gaps, newest first: lint hedging 00:06, deploy failed_search 00:04, 00:02, 00:00.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import orjson
import pytest
from click.testing import CliRunner, Result

from omkd.api import SKILLS_TOTAL_HEADER
from omkd.cli import main, remote
from omkd.engine import records
from omkd.engine.report.schema import Report
from omkd.testing import DaemonProcess
from tests import claude_lines as cl
from tests.live_helpers import daemon_reading, omkd

PLAN: Final = [
    *[("deploy", outcome) for outcome in ("miss", "hit", "miss", "hit", "miss", "hit")],
    ("lint", "hedge"),
]


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    with daemon_reading(tmp_path_factory.mktemp("http-api"), PLAN) as process:
        yield process


def fetch(daemon: DaemonProcess, path: str) -> tuple[int, bytes]:
    """Status code and body of a GET, errors included."""
    try:
        with urllib.request.urlopen(daemon.url + path, timeout=10) as response:  # noqa: S310 (loopback)
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def gaps(daemon: DaemonProcess, query: str) -> list[tuple[str, str, str | None]]:
    """(skill, type, timestamp) of each gap /api/v1/gaps returns for ``query``."""
    code, body = fetch(daemon, f"/api/v1/gaps?{query}")
    assert code == 200, body
    document = orjson.loads(body)
    assert document["count"] == len(document["gaps"])
    return [(g["skill"], g["type"], g["timestamp"]) for g in document["gaps"]]


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def skill_rows(document: dict[str, Any]) -> dict[str, tuple[int, int, float, float, str]]:
    return {
        s["skill"]: (s["segments"], s["gap_segments"], s["gap_rate"], s["weighted_gap_rate"], s["confidence"])
        for s in document["skills"]
    }


def test_healthz_answers_200(daemon: DaemonProcess) -> None:
    """/healthz says the process is alive."""
    assert fetch(daemon, "/healthz") == (200, b"ok\n")


def test_readyz_answers_200_once_ready(daemon: DaemonProcess) -> None:
    """/readyz answers 200 once the initial scan is done and the state loaded."""
    assert fetch(daemon, "/readyz") == (200, b"ready\n")


def test_status_is_a_valid_schema_1_report(daemon: DaemonProcess) -> None:
    """/api/v1/status serves a Report of schema_version 1 with the hand-counted figures."""
    code, body = fetch(daemon, "/api/v1/status")
    document = orjson.loads(body)
    report = records.parse(Report, document)
    assert (code, document["schema_version"], report.schema_version) == (200, 1, 1)
    assert skill_rows(document) == {"deploy": (6, 3, 0.5, 0.5, "low"), "lint": (1, 1, 1.0, 0.5, "underpowered")}
    assert (report.overall.segments, report.overall.gap_segments, report.watermark.segments) == (7, 4, 7)


def test_status_skill_parameter_filters_skills(daemon: DaemonProcess) -> None:
    """?skill= keeps only that skill's row, failed searches and gaps; overall and watermark stay whole."""
    whole = orjson.loads(fetch(daemon, "/api/v1/status")[1])
    code, body = fetch(daemon, "/api/v1/status?skill=lint")
    only = orjson.loads(body)
    assert (code, [s["skill"] for s in only["skills"]]) == (200, ["lint"])
    assert ([g["type"] for g in only["gaps"]], only["top_failed_searches"]) == (["hedging"], [])
    assert (only["overall"], only["watermark"]["segments"]) == (whole["overall"], whole["watermark"]["segments"])


def test_status_rejects_unknown_parameter(daemon: DaemonProcess) -> None:
    """An unknown /api/v1/status parameter gets a 400 naming it."""
    code, body = fetch(daemon, "/api/v1/status?skil=deploy")
    assert (code, "skil" in orjson.loads(body)["error"]) == (400, True)


def test_gaps_newest_first(daemon: DaemonProcess) -> None:
    """/api/v1/gaps lists every signal, newest first."""
    assert gaps(daemon, "") == [
        ("lint", "hedging", "2026-01-01T00:06:00.000Z"),
        ("deploy", "failed_search", "2026-01-01T00:04:00.000Z"),
        ("deploy", "failed_search", "2026-01-01T00:02:00.000Z"),
        ("deploy", "failed_search", "2026-01-01T00:00:00.000Z"),
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("skill=lint", [("lint", "hedging", "2026-01-01T00:06:00.000Z")]),
        ("type=hedging", [("lint", "hedging", "2026-01-01T00:06:00.000Z")]),
        (
            "type=failed_search",
            [
                ("deploy", "failed_search", "2026-01-01T00:04:00.000Z"),
                ("deploy", "failed_search", "2026-01-01T00:02:00.000Z"),
                ("deploy", "failed_search", "2026-01-01T00:00:00.000Z"),
            ],
        ),
        (
            "since=2026-01-01T00:02:00Z",
            [
                ("lint", "hedging", "2026-01-01T00:06:00.000Z"),
                ("deploy", "failed_search", "2026-01-01T00:04:00.000Z"),
                ("deploy", "failed_search", "2026-01-01T00:02:00.000Z"),
            ],
        ),
        (
            "limit=2",
            [("lint", "hedging", "2026-01-01T00:06:00.000Z"), ("deploy", "failed_search", "2026-01-01T00:04:00.000Z")],
        ),
        (
            "skill=deploy&type=failed_search&since=2026-01-01T00:01:00Z&limit=1",
            [("deploy", "failed_search", "2026-01-01T00:04:00.000Z")],
        ),
        ("skill=nobody", []),
        ("type=explicit_marker", []),
    ],
)
def test_gaps_filters(daemon: DaemonProcess, query: str, expected: list[tuple[str, str, str]]) -> None:
    """/api/v1/gaps filters by skill, type, since and limit, alone and together."""
    assert gaps(daemon, query) == expected


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("kind=hedging", "kind"),
        ("type=guess", "type"),
        ("since=yesterday", "since"),
        ("since=", "since"),
        ("limit=0", "limit"),
        ("limit=10001", "limit"),
        ("limit=x", "limit"),
        ("limit=-1", "limit"),
    ],
)
def test_gaps_rejects_bad_parameter(daemon: DaemonProcess, query: str, named: str) -> None:
    """Every bad /api/v1/gaps parameter gets a 400 whose message names it."""
    code, body = fetch(daemon, f"/api/v1/gaps?{query}")
    message = orjson.loads(body)["error"]
    assert (code, named in message) == (400, True), message


def test_status_command_prints_the_table(daemon: DaemonProcess) -> None:
    """``omkd status --url`` prints each skill of the running daemon, exit 0."""
    result = cli("status", "--url", daemon.url)
    assert (result.exit_code, "deploy" in result.stdout, "lint" in result.stdout) == (0, True, True), result.output


def test_status_command_json_is_the_daemon_report(daemon: DaemonProcess) -> None:
    """``omkd status --json`` prints the daemon's report."""
    result = cli("status", "--url", daemon.url, "--json")
    printed = orjson.loads(result.stdout)
    served = daemon.get("/api/v1/status")
    assert result.exit_code == 0, result.output
    assert (printed["schema_version"], printed["skills"], printed["overall"]) == (
        served["schema_version"],
        served["skills"],
        served["overall"],
    )


@pytest.mark.parametrize(("limit", "exit_code"), [("0.4", 1), ("0.49", 1), ("0.5", 0), ("0.6", 0)])
def test_status_command_weighted_gap_gate(daemon: DaemonProcess, limit: str, exit_code: int) -> None:
    """``--max-weighted-gap-rate`` exits 1 when a confident skill exceeds it (deploy: 0.5), 0 otherwise;
    underpowered lint (weighted 0.5) never fails it."""
    result = cli("status", "--url", daemon.url, "--max-weighted-gap-rate", limit)
    failed = [line for line in result.output.splitlines() if "weighted_gap_rate" in line and "exceeds" in line]
    assert (result.exit_code, ["deploy" in line for line in failed]) == (exit_code, [True] * exit_code), result.output


def test_gaps_command_filters_by_type(daemon: DaemonProcess) -> None:
    """``omkd gaps --type failed_search`` lists only failed searches."""
    result = cli("gaps", "--url", daemon.url, "--type", "failed_search", "--json")
    document = orjson.loads(result.stdout)
    assert result.exit_code == 0, result.output
    assert [(g["skill"], g["type"]) for g in document["gaps"]] == [("deploy", "failed_search")] * 3
    table = cli("gaps", "--url", daemon.url, "--type", "failed_search")
    assert (table.exit_code, "Gaps (3 in the window)" in table.stdout, "hedging" in table.stdout) == (0, True, False)


def test_status_command_unreachable_daemon_exits_2() -> None:
    """``omkd status`` against a port nobody listens on exits 2 with a message naming the URL."""
    completed = omkd("status", "--url", "http://127.0.0.1:1")
    assert (completed.returncode, "http://127.0.0.1:1" in completed.stderr) == (2, True), completed.stderr


def test_gaps_point_at_the_transcript(daemon: DaemonProcess) -> None:
    """Each gap names its file (relative to the root), its line and the project: the first deploy
    segment is lines 1-5 (prompt, Skill call and result, Glob call, Glob result at line 5)."""
    code, body = fetch(daemon, "/api/v1/gaps?type=failed_search")
    oldest = orjson.loads(body)["gaps"][-1]
    assert (code, oldest["file"], oldest["line"], oldest["cwd"]) == (200, "-home-dev-shop/session.jsonl", 5, cl.CWD)


def test_status_pages_its_skills_and_says_how_many(daemon: DaemonProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    """?limit=&offset= page the skills (most segments first); the header counts them all; every page
    is still a valid Report, and ``omkd status --json`` reads every page."""
    pages = []
    for offset in (0, 1, 2):
        with urllib.request.urlopen(f"{daemon.url}/api/v1/status?limit=1&offset={offset}", timeout=10) as answer:  # noqa: S310
            document = orjson.loads(answer.read())
            records.parse(Report, document)
            pages.append(([s["skill"] for s in document["skills"]], answer.headers[SKILLS_TOTAL_HEADER]))
    assert pages == [(["deploy"], "2"), (["lint"], "2"), ([], "2")]
    assert fetch(daemon, "/api/v1/status?limit=0")[0] == 400
    monkeypatch.setattr(remote, "SKILLS_PAGE", 1)  # one skill a page: the CLI must read both
    result = CliRunner().invoke(main, ["status", "--url", daemon.url, "--json"])
    assert [s["skill"] for s in orjson.loads(result.stdout)["skills"]] == ["deploy", "lint"]


def test_readyz_names_missing_roots_and_is_not_ready_without_any(tmp_path: Path) -> None:
    """A configured root that does not exist is named by /readyz; with none existing it is 503."""
    present, absent = tmp_path / "projects", tmp_path / "nowhere"
    present.mkdir()
    with DaemonProcess(tmp_path / "one", [present, absent]) as daemon:
        (tmp_path / "one").mkdir()
        daemon.start()
        assert fetch(daemon, "/readyz") == (200, f"ready\nmissing root: {absent}\n".encode())
    with DaemonProcess(tmp_path / "none", [absent]) as daemon:
        (tmp_path / "none").mkdir()
        daemon.start(wait_ready=False)
        daemon.port = int(daemon.wait_log_event("started")["listen"].rsplit(":", 1)[1])
        daemon.wait_for(lambda: fetch(daemon, "/readyz")[0] == 503, "503 without any root")
        assert fetch(daemon, "/readyz") == (503, f"not ready: no such root: {absent}\n".encode())


def test_status_says_where_a_marker_count_means_not_asked(daemon: DaemonProcess) -> None:
    """Spec §3.2: without the marker convention in the projects' instructions, a marker rate of 0
    means "not asked", and ``omkd status`` says so (as ``omkd scan`` does)."""
    served = daemon.get("/api/v1/status")
    assert {s["markers"] for s in served["skills"]} == {"not asked"}
    result = cli("status", "--url", daemon.url)
    assert result.exit_code == 0, result.output
    assert 'means "not asked", not "no guesses"' in " ".join(result.stdout.split())
