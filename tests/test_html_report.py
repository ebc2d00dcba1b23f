"""``omkd report --html``: the page rendered by a real headless Chromium from ``file://``.

Checked in the browser: no console message, no exception and no request beyond the page itself;
every chart is an image with a title, every table header has a scope; the page prints to PDF.
Screenshots of the overview and of one skill are saved as test artifacts ($OMKD_TEST_ARTIFACTS,
default ``test-artifacts/`` in the checkout). A hand-made project with a git commit to its skill
in the middle of ten days shows the marker on the commit's day and the rate falling after it.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any, Final

import pytest

from omkd.engine.impact.schema import STATEMENT
from omkd.testing import DaemonProcess
from tests import claude_lines as cl
from tests.chromium import Browser, Page
from tests.live_helpers import append, omkd, segment, wait_lines
from tests.test_knowledge_history import git

ARTIFACTS: Final = Path(os.environ.get("OMKD_TEST_ARTIFACTS", Path(__file__).resolve().parents[1] / "test-artifacts"))
NOV: Final = "2026-11-{:02d}T12:{:02d}:00.000Z"
COMMIT_AT: Final = 1793952000  # 2026-11-06 08:00 UTC, before that day's segments (noon)


def report_html(tmp_path: Path, *args: str | Path) -> Path:
    page = tmp_path / "report.html"
    done = omkd("report", *args, "--html", page, "--home", tmp_path / "no-home")
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout
    return page


async def checked(page: Page) -> dict[str, Any]:
    """What the browser says of the page it loaded: problems, and the accessibility basics."""
    facts: dict[str, Any] = await page.evaluate("""(() => ({
        lang: document.documentElement.lang,
        scripts: document.scripts.length,
        charts: document.querySelectorAll('svg[role="img"]').length,
        untitled: [...document.querySelectorAll('svg[role="img"]')].filter(svg => {
            const title = document.getElementById(svg.getAttribute('aria-labelledby'));
            return !title || !title.textContent.trim();
        }).length,
        unscoped: [...document.querySelectorAll('thead th')].filter(th => !th.getAttribute('scope')).length,
        sections: [...document.querySelectorAll('section.skill')].map(s => s.id),
        links: [...document.querySelectorAll('a[href^="#"]')].filter(a =>
            !document.getElementById(a.getAttribute('href').slice(1))).length,
    }))()""")
    facts["console"] = page.log.console
    facts["requests"] = page.log.requests
    return facts


def test_the_real_fixtures_render_with_no_error_and_no_request(tmp_path: Path, real_fixtures: Path) -> None:
    page_path = report_html(tmp_path, real_fixtures)
    text = page_path.read_text()
    for fetched in ("<script", "<link", "src=", "@import", "url("):
        assert fetched not in text

    async def look() -> tuple[dict[str, Any], bytes]:
        async with Browser() as browser:
            page = await browser.open(page_path)
            facts = await checked(page)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(ARTIFACTS / "report-overview.png")
            await page.screenshot(ARTIFACTS / "report-skill.png", selector=f"#{facts['sections'][0]}")
            printed = await page.pdf()
            await page.close()
            return facts, printed

    facts, printed = asyncio.run(look())
    assert facts["console"] == []
    assert facts["requests"] == [page_path.resolve().as_uri()]
    assert (facts["lang"], facts["scripts"], facts["untitled"], facts["unscoped"], facts["links"]) == ("en", 0, 0, 0, 0)
    assert len(facts["sections"]) == 21  # the fixtures' skills, as `omkd scan` counts them
    assert facts["charts"] >= 1
    assert printed.startswith(b"%PDF")
    assert (ARTIFACTS / "report-overview.png").stat().st_size > 10_000


def project_with_a_skill_commit(tmp_path: Path) -> tuple[Path, Path]:
    """A git work tree whose ``deploy`` skill is committed on 2026-11-06 08:00, and a session in it:
    four segments a day at noon, 1-10 November; three of four miss before the commit, after it
    only one segment on the 8th does."""
    repo = tmp_path / "shop"
    skill = repo / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    git(repo, "init", "-q")
    skill.write_text("# deploy\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "deploy: first version", when=COMMIT_AT - 30 * 86400)
    skill.write_text("# deploy\n\nThe port is 8080; the config lives in deploy/config.toml.\n")
    git(repo, "commit", "-q", "-am", "deploy: document the port and the config", when=COMMIT_AT)
    records: list[cl.Record] = []
    for day in range(1, 11):
        misses = 3 if day < 6 else (1 if day == 8 else 0)
        for n in range(4):
            records += segment("deploy", "miss" if n < misses else "hit", NOV.format(day, n))
    for record in records:
        record["cwd"] = str(repo)
    transcripts = tmp_path / "projects"
    append(transcripts / "-shop" / "0b3c4d5e-1111-4222-8333-944455556666.jsonl", cl.jsonl(records))
    return repo, transcripts


def test_a_knowledge_commit_is_marked_on_its_day_and_the_rate_falls_after_it(tmp_path: Path) -> None:
    _, transcripts = project_with_a_skill_commit(tmp_path)
    page_path = report_html(tmp_path, transcripts)

    async def look() -> dict[str, Any]:
        async with Browser() as browser:
            page = await browser.open(page_path)
            found: dict[str, Any] = await page.evaluate("""(() => {
                const section = document.querySelector('section.skill');
                const change = section.querySelector('svg g.change');
                const point = [...section.querySelectorAll('svg circle.point.gap')]
                    .find(c => c.querySelector('title').textContent.startsWith('2026-11-06'));
                const rows = [...section.querySelectorAll('details tbody tr')]
                    .map(tr => [...tr.cells].slice(0, 3)
                        .map(td => (td.querySelector('.rate') || td).textContent.trim()));
                return {
                    marker: change.querySelector('title').textContent,
                    marker_x: parseFloat(change.querySelector('line').getAttribute('x1')),
                    point_x: parseFloat(point.getAttribute('cx')),
                    rows: rows,
                    listed: [...section.querySelectorAll('ul.changes li')].map(li => li.textContent),
                };
            })()""")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(ARTIFACTS / "report-knowledge-change.png", selector="section.skill")
            found["console"], found["requests"] = page.log.console, page.log.requests
            await page.close()
            return found

    found = asyncio.run(look())
    assert found["console"] == []
    assert len(found["requests"]) == 1
    assert found["marker"].startswith("2026-11-06: ")
    assert found["marker"].endswith("deploy: document the port and the config")
    assert found["marker_x"] == pytest.approx(found["point_x"], abs=0.15)
    before = [["2026-11-0" + str(day), "4", "75.0 %"] for day in range(1, 6)]
    after = [[f"2026-11-{day:02d}", "4", "25.0 %" if day == 8 else "0.0 %"] for day in range(6, 11)]
    assert found["rows"] == before + after
    assert len(found["listed"]) == 1  # the first version is older than the window
    assert "[1]" in found["listed"][0]


def test_the_change_s_before_after_table_and_verdict_stand_beside_its_marker(tmp_path: Path) -> None:
    """The same project: 15 of 20 segments gapped before the commit, 1 of 20 after. The rise's
    interval is the difference of exact bounds at 98.75 % each (computed outside omkd: 1/20's lower
    0.000629 minus 15/20's upper 0.927292, 1/20's upper 0.279322 minus 15/20's lower 0.477377):
    [-92.7, -19.8] points, so `improved`."""
    _, transcripts = project_with_a_skill_commit(tmp_path)
    page_path = report_html(tmp_path, transcripts)

    async def look() -> dict[str, Any]:
        async with Browser() as browser:
            page = await browser.open(page_path)
            found: dict[str, Any] = await page.evaluate("""(() => {
                const effect = document.querySelector('section.skill .effect');
                return {
                    title: effect.querySelector('h4').textContent,
                    rows: [...effect.querySelectorAll('table.impact tbody tr')]
                        .map(tr => [...tr.cells].map(td => td.textContent.trim())),
                    statement: effect.querySelector('.statement').textContent,
                    unscoped: [...effect.querySelectorAll('thead th')].filter(th => !th.getAttribute('scope')).length,
                };
            })()""")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(ARTIFACTS / "report-impact.png", selector="section.skill")
            found["console"] = page.log.console
            await page.close()
            return found

    found = asyncio.run(look())
    assert found["console"] == []
    assert found["title"].startswith("[1] 2026-11-06 08:00 UTC")
    assert found["title"].endswith("deploy: document the port and the config")
    assert found["rows"][0] == [
        "Gap rate", "75.0 %15 of 20", "5.0 %1 of 20", "−70.0 pts95 % [−92.7, −19.8]", "improved",
    ]  # fmt: skip
    assert found["statement"] == STATEMENT
    assert found["unscoped"] == 0
    assert (ARTIFACTS / "report-impact.png").stat().st_size > 10_000


def test_transcript_text_cannot_inject_markup(tmp_path: Path) -> None:
    """A skill name and a missing pattern made of markup are shown as text, never run or fetched."""
    hostile = '<img src="http://example.invalid/x.png" onerror="alert(1)"><script>alert(2)</script>'
    records = segment(hostile, "hit", NOV.format(3, 0))
    records += [
        cl.tool_use("tg", "Glob", {"pattern": hostile}, "mg"),
        cl.tool_result("tg", "No files found", cl.GLOB_EMPTY),
    ]
    for record in records:
        record["timestamp"] = NOV.format(3, 0)
    append(tmp_path / "projects" / "-p" / "s.jsonl", cl.jsonl(records))
    page_path = report_html(tmp_path, tmp_path / "projects")

    async def look() -> dict[str, Any]:
        async with Browser() as browser:
            page = await browser.open(page_path)
            facts = await checked(page)
            facts["images"] = await page.evaluate("document.images.length")
            facts["shown"] = await page.evaluate("document.body.textContent.includes('<script>alert(2)</script>')")
            await page.close()
            return facts

    facts = asyncio.run(look())
    assert (facts["scripts"], facts["images"], facts["console"]) == (0, 0, [])
    assert facts["requests"] == [page_path.resolve().as_uri()]
    assert facts["shown"] is True


def test_the_daemon_page_is_the_one_of_its_window(tmp_path: Path) -> None:
    """``--url`` reads a running daemon (the real process): the same skills and segments as the page
    of the same transcripts read by path."""
    _, transcripts = project_with_a_skill_commit(tmp_path)
    lines = sum(f.read_bytes().count(b"\n") for f in transcripts.rglob("*.jsonl"))
    by_path = report_html(tmp_path, transcripts)
    by_path_rows = table_rows(by_path)
    (tmp_path / "daemon").mkdir()
    with DaemonProcess(tmp_path / "daemon", [transcripts]) as daemon:
        daemon.start()
        wait_lines(daemon, lines)
        page = tmp_path / "daemon.html"
        url = f"http://127.0.0.1:{daemon.port}"
        done = omkd("report", "--url", url, "--html", page, "--home", tmp_path / "no-home")
        assert daemon.stop() == 0
    assert done.returncode == 0, done.stderr
    assert table_rows(page) == by_path_rows
    assert "deploy: document the port and the config" in page.read_text()


def table_rows(page: Path) -> list[list[str]]:
    """The overview table's rows, read by the browser (skill, agent, segments, rates)."""

    async def look() -> list[list[str]]:
        async with Browser() as browser:
            tab = await browser.open(page)
            rows: list[list[str]] = await tab.evaluate(
                "[...document.querySelectorAll('table.overview tbody tr')]"
                ".map(tr => [...tr.cells].slice(0, 5).map(c => c.textContent.trim()))"
            )
            await tab.close()
            return rows

    return asyncio.run(look())


def test_bad_arguments_are_named(tmp_path: Path) -> None:
    done = omkd("report", tmp_path, "--html", tmp_path / "missing-dir" / "r.html")
    assert (done.returncode, "missing-dir" in done.stderr) == (2, True)
    done = omkd("report", tmp_path, "--url", "http://127.0.0.1:9", "--html", tmp_path / "r.html")
    assert done.returncode == 2
    assert "not both" in done.stderr


def test_a_change_early_on_the_first_day_is_marked(tmp_path: Path) -> None:
    """The skill's commit at 08:00 on the first day with segments (noon): inside the day the chart
    starts with, marked and listed (git was asked from that day's start, not the window's second)."""
    repo, transcripts = project_with_a_skill_commit(tmp_path)
    skill = repo / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill.write_text(skill.read_text() + "Deploys go through the staging host first.\n")
    git(repo, "commit", "-q", "-am", "deploy: staging first", when=COMMIT_AT - 5 * 86400)  # 1 November, 08:00
    text = report_html(tmp_path, transcripts).read_text()
    assert text.count('<g class="change">') == 2
    assert "2026-11-01: " in text
    assert "deploy: staging first" in text


def test_odd_names_neither_collide_nor_break_the_page(tmp_path: Path) -> None:
    """Two skills whose names clean to the same letters get different section ids; a transcript
    whose file name is not UTF-8 still gives a page (the name shown with U+FFFD)."""
    records = segment("x.-y", "miss", NOV.format(3, 0)) + segment("x-.y", "miss", NOV.format(3, 1))
    root = tmp_path / "projects" / "-p"
    root.mkdir(parents=True)
    (root / os.fsdecode(b"s\xff.jsonl")).write_bytes(cl.jsonl(records))
    text = report_html(tmp_path, tmp_path / "projects").read_text()
    ids = re.findall(r'<section class="skill" id="([^"]+)"', text)
    assert len(ids) == len(set(ids)) == 2
    assert "s\ufffd.jsonl" in text


def test_report_url_against_a_daemon_without_the_impact_endpoint_still_writes_the_page(
    tmp_path: Path, real_fixtures: Path
) -> None:
    """An omkd daemon one version older serves status and gaps but not /api/v1/impact: the page is
    written without change effects, and stderr says why (never exit 2 for what the daemon lacks)."""
    import http.server
    import threading

    scanned = omkd("scan", real_fixtures / "13562964800__claude-skills", "--json", "--home", tmp_path / "no-home")
    status = scanned.stdout.encode()

    class Older(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            body = {"/api/v1/status": status, "/api/v1/gaps": b'{"gaps": []}'}.get(path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body if body is not None else b'{"error": "not found"}')

        def log_message(self, *args: object) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Older)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = tmp_path / "older.html"
        url = f"http://127.0.0.1:{server.server_address[1]}"
        done = omkd("report", "--url", url, "--html", page, "--home", tmp_path / "no-home")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    assert done.returncode == 0, done.stderr
    assert "has no /api/v1/impact" in done.stderr
    assert page.stat().st_size > 0
