"""What the agents did at a gap (spec §8.7), as every view says it: ``omkd scan`` and ``omkd status``
on a terminal 80 columns wide, the Markdown summary, the HTML page, ``/api/v1/status``,
``/api/v1/gaps`` and ``omkd gaps`` (a real daemon, a real pseudo-terminal).

Figures by hand from ``PLAN`` (recipes of ``tests/live_helpers.py``; each window ends at the next
segment's prompt): release's 5 segments each miss twice, then edit a project file: each hit a
gap, wrote anyway, wrote (5 writing segments), unchecked (load 2 at the edit). deploy's 2 segments
miss once each and do nothing else: they hit a gap and left it; no writing segment. lint finds what
it looks for: no gap, not in the at-a-gap table. Overall: 7 segments hit a gap, 2 left it, 5 wrote
anyway. The daemon holds lint's segment (the stream's last) open: it carries no §8 figure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from click.testing import CliRunner, Result

from omkd.cli import main
from omkd.testing import DaemonProcess
from tests.live_helpers import append, daemon_reading, session_bytes
from tests.test_views_width import on_terminal

PLAN: Final = [*[("release", "unchecked")] * 5, *[("deploy", "miss")] * 2, ("lint", "hit")]
RELEASE: Final = "of 5 segments that hit a gap: 5 wrote anyway (candidates)"
DEPLOY: Final = "of 2 segments that hit a gap (underpowered): 2 left it"
OVERALL: Final = "of 7 segments that hit a gap: 2 left it, 5 wrote anyway (candidates)"


def cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    with daemon_reading(tmp_path_factory.mktemp("metacog-views"), PLAN) as process:
        yield process


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "projects" / "-home-dev-shop" / "session.jsonl"
    append(path, session_bytes(PLAN))
    return path


def last_cells(lines: list[str], title: str) -> str:
    """The text of the last column of the table titled ``title`` (rows wrapped over lines joined)."""
    start = next(i for i, line in enumerate(lines) if line.strip() == title)
    cells = []
    for line in lines[start + 1 :]:
        if line.startswith("└"):
            break
        if line.startswith("│"):
            cells.append(line.rstrip().rstrip("│").rsplit("│", 1)[-1].strip())
    return " ".join(" ".join(cells).split())


def markdown_rows(document: str) -> dict[str, str]:
    """The at-a-gap table of a Markdown summary: skill -> its last cell."""
    lines = document.splitlines()
    start = lines.index("### What the agents did at a gap")
    rows = {}
    for line in lines[start + 4 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells[-1]
    return rows


def test_the_markdown_summary_says_the_partition_beside_the_gap_rate(session: Path, tmp_path: Path) -> None:
    result = cli("scan", session, "--home", tmp_path, "--markdown", "-")
    assert result.exit_code == 0, result.output
    rows = markdown_rows(result.output)
    assert sorted(rows) == ["**overall**", "deploy", "release"]  # lint hit no gap
    assert rows["release"].startswith(RELEASE + "; self-recovery 0 % \\[")
    assert "unchecked writes 100 % \\[" in rows["release"]
    assert "(5 of 5 writing segments)" in rows["release"]
    # deploy: under 5 segments hit a gap, so counts only; no writing segment, so no write rate at all
    assert rows["deploy"] == (
        f"{DEPLOY}; self-recovery 0 of 2 segments (underpowered); asked at 0 of 2 open gaps (underpowered)"
    )
    assert rows["**overall**"].startswith(OVERALL)
    # spec §8.8: a hedge-anchored figure is a floor, and the view says so
    assert "a floor" in result.output.split("### What the agents did at a gap", 1)[1]


def test_scan_at_80_columns_wraps_the_partition_within_the_terminal(session: Path, tmp_path: Path) -> None:
    lines = on_terminal(80, "scan", session, "--home", tmp_path)
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= 80, text
    said = last_cells(lines, "What the agents did at a gap")
    assert (RELEASE in said, DEPLOY in said, OVERALL in said) == (True, True, True), said
    assert not re.search(r"\[\d+–\d+\]", said)  # no room for intervals at 80 columns (the note says so)


def test_status_at_80_columns_says_what_the_daemon_counted(daemon: DaemonProcess) -> None:
    lines = on_terminal(80, "status", "--url", daemon.url)
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= 80, text
    said = last_cells(lines, "What the agents did at a gap")
    assert (RELEASE in said, DEPLOY in said, OVERALL in said) == (True, True, True), said


def test_api_status_carries_metacognition_as_scan_json_does(daemon: DaemonProcess, session: Path) -> None:
    import json

    scanned = cli("scan", session, "--json")
    assert scanned.exit_code == 0, scanned.output
    scan = {s["skill"]: s["metacognition"] for s in json.loads(scanned.output)["skills"]}
    status = daemon.get("/api/v1/status")
    served = {s["skill"]: s["metacognition"] for s in status["skills"]}
    assert served == scan
    assert status["overall"]["metacognition"]["outcomes"] == {
        "recovered": 0, "created": 0, "asked": 0, "dropped": 2, "proceeded": 5,
    }  # fmt: skip


def test_each_gap_carries_its_outcome_in_the_api_and_in_omkd_gaps(daemon: DaemonProcess) -> None:
    gaps = daemon.get("/api/v1/gaps?limit=100")["gaps"]
    outcomes = sorted((g["skill"], g["outcome"], g["outcome_how"]) for g in gaps if g["type"] == "failed_search")
    assert outcomes == [
        *[("deploy", "dropped", "")] * 2,
        *[("release", "proceeded", "Edit /p/src/app.py")] * 10,
    ]
    shown = cli("gaps", "--url", daemon.url, "--skill", "release", "--limit", "1")
    assert shown.exit_code == 0, shown.output
    assert "│ wrote anyway (candidates): Edit" in shown.output  # its own column, wrapped in the cell
    assert "│ /p/src/app.py (line" in shown.output


def test_omkd_gaps_at_80_columns_prints_each_gap_as_a_block(daemon: DaemonProcess) -> None:
    """At 80 columns a table of six columns left its context and outcome no room (both cut to
    nothing): each gap is a heading line, then where (its line number kept), its context and what
    came of it, indented; no line wider than the terminal."""
    lines = on_terminal(80, "gaps", "--url", daemon.url, "--skill", "release", "--limit", "2")
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= 80, text
    assert not any(line.startswith("│") for line in lines), text
    headings = [line for line in lines if line.startswith("20") and "release" in line and "failed_search" in line]
    assert len(headings) == 2, text
    assert sum(1 for line in lines if re.match(r"^  \S.*:\d+\s*$", line)) == 2, text  # where, with its line
    assert sum(1 for line in lines if line.startswith("  came of it: wrote anyway (candidates): Edit")) == 2, text


def test_the_html_page_shows_the_partition_and_each_gap_s_outcome(session: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    result = cli("report", session, "--html", page, "--home", tmp_path)
    assert result.exit_code == 0, result.output
    html = page.read_text()
    overview = html[html.index("<h3>What the agents did at a gap</h3>") : html.index("Installed skills")]
    assert (RELEASE in overview, DEPLOY in overview, OVERALL in overview, "lint" in overview) == (
        True, True, True, False,
    )  # fmt: skip
    assert "<h3>What its agents did at a gap</h3><p>of 5 segments" in html
    assert "<td>wrote anyway (candidates): Edit /p/src/app.py (line " in html


def test_the_page_of_the_real_transcripts_in_chromium(real_fixtures: Path, tmp_path: Path) -> None:
    """The at-a-gap table of the real transcripts' page in a real headless Chromium: one row per
    skill that hit a gap and overall, each saying its partition; screenshots in test-artifacts."""
    import asyncio
    import os

    from tests.chromium import Browser

    artifacts = Path(os.environ.get("OMKD_TEST_ARTIFACTS", Path(__file__).resolve().parents[1] / "test-artifacts"))
    page_path = tmp_path / "report.html"
    result = cli("report", real_fixtures, "--html", page_path, "--since", "3650d", "--home", tmp_path / "home")
    assert result.exit_code == 0, result.output

    async def look() -> list[str]:
        async with Browser() as browser:
            page = await browser.open(page_path)
            rows: list[str] = await page.evaluate(
                "[...document.querySelectorAll('table.at-gap tbody tr')].map(r => r.lastElementChild.innerText)"
            )
            artifacts.mkdir(parents=True, exist_ok=True)
            await page.screenshot(artifacts / "report-at-gap.png", selector="table.at-gap")
            await page.close()
            return rows

    rows = asyncio.run(look())
    assert len(rows) >= 3
    assert all(re.match(r"(of \d+ segments? that hit a gap|no segment hit a lookup gap)", row) for row in rows), rows
    assert not any(re.search(r"\bof 0 ", row) for row in rows), rows  # a denominator of 0 is never said
    assert (artifacts / "report-at-gap.png").stat().st_size > 5_000


def test_explain_says_a_push_through_is_a_candidate(session: Path) -> None:
    """Spec §8.5.4/§8.8: ``proceeded`` nominates; explain says so beside each one."""
    result = cli("explain", session)
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "at this gap" in line and "proceeded" in line]
    assert len(rows) == 10, result.output  # release's 5 segments, two misses each
    assert all("a candidate" in row for row in rows), result.output


def test_explain_names_the_recovering_call_from_its_start(tmp_path: Path) -> None:
    """What decided an outcome is cut at its end, with an ellipsis (it was cut at its start:
    "t: sed -n …" for "… found the same target: sed -n …"); a miss whose target has no token
    (a Chinese literal) prints no empty "()"."""
    from tests import metacog_helpers as mh

    long_path = "server/" + "nested/" * 12 + "fetch-group-members.js"
    data = mh.run(
        mh.bash("t1", f"cat {long_path}", f"cat: {long_path}: No such file or directory", "m1"),
        mh.bash("t2", f"sed -n '1,200p' {long_path}", "module.exports = {}", "m2"),
        mh.bash("t3", "rg -n '用户名称' logs/", "", "m3"),
    )
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    result = cli("explain", path, "--only", "gaps")
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "at this gap" in line]
    assert len(rows) == 2, result.output
    recovered, dropped = rows
    assert "recovered at :" in recovered
    assert "(Bash found the same target: sed -n '1,200p' server/nested/" in recovered
    assert re.search(r"\(Bash found the same target: [^)]{40,}…\)", recovered), recovered
    assert "at this gap: dropped" in dropped
    assert "()" not in dropped, dropped
