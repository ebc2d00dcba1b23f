"""Issue 29: what a newcomer, an ops person and a knowledge writer read is right (the views).

Items 1 and 3 on a real daemon whose transcripts are months old (a 7-day window, a 30-day
retention: every segment lies outside the window and past retention), and on ``omkd scan``.
Figures by hand: the session holds 2 segments of ``deploy`` dated 2026-01-01.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Final

import pytest
from click.testing import CliRunner, Result

from omkd.cli import main
from omkd.testing import DaemonProcess
from tests import claude_lines as cl
from tests.live_helpers import append, session_bytes, wait_lines
from tests.test_cli_scan import GATES_PLAN, transcript

OLD_WINDOW: Final = '[window]\nlength = "7d"\nretention = "30d"\n'


def cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def old_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    """A daemon over transcripts eleven months old, with the default-like window and retention."""
    workdir = tmp_path_factory.mktemp("old-history")
    root = workdir / "projects"
    data = session_bytes([("deploy", "miss"), ("deploy", "hit")])
    append(root / "-home-dev-shop" / "session.jsonl", data)
    with DaemonProcess(workdir, [root, workdir / "no-such-root"]) as process:
        process.write_config()
        text = process.config_path.read_text()
        process.config_path.write_text(text[: text.index("[window]")] + OLD_WINDOW)
        process.start()
        wait_lines(process, data.count(b"\n"))
        yield process
        assert process.stop() == 0


# --- item 1: old history says how much lies outside the window, how old, and the fix ----------


def says_outside(text: str) -> None:
    flat = " ".join(text.split())
    assert ("2 segments" in flat, "2026-01-01" in flat, "window.length" in flat, "--since" in flat) == (
        True, True, True, True,
    ), text  # fmt: skip


def test_the_api_counts_the_segments_outside_the_window_past_retention_too(old_daemon: DaemonProcess) -> None:
    pipeline = old_daemon.get("/api/v1/status")["pipeline"]
    assert pipeline["segments_outside_window"] == 2
    assert (pipeline["newest_outside_window"] or "").startswith("2026-01-01")
    answer = old_daemon.get("/api/v1/gaps")
    assert (answer["count"], answer["outside_window"]) == (0, 2)


def test_metrics_count_the_segments_outside_the_window_as_the_api_does(old_daemon: DaemonProcess) -> None:
    """The dashboard's empty state reads these two gauges: the API's figures, from /metrics."""
    pipeline = old_daemon.get("/api/v1/status")["pipeline"]
    samples = old_daemon.metrics()
    newest = datetime.fromisoformat(pipeline["newest_outside_window"]).timestamp()
    assert samples["omkd_window_outside_segments"] == pipeline["segments_outside_window"] == 2
    assert samples["omkd_window_outside_newest_timestamp_seconds"] == pytest.approx(newest)
    # the watermark's window has a start but, without a segment in it, no end (as the status page has "—")
    mark = old_daemon.get("/api/v1/status")["watermark"]
    assert (mark["window_to"], "omkd_window_to_timestamp_seconds" in samples) == (None, False)
    assert (samples["omkd_window_sessions"], samples["omkd_window_fingerprint"]) == (0, 0)


def test_status_gaps_and_the_html_say_why_they_are_empty(old_daemon: DaemonProcess, tmp_path: Path) -> None:
    status = cli("status", "--url", old_daemon.url)
    says_outside(status.stdout)
    gaps = cli("gaps", "--url", old_daemon.url)
    says_outside(gaps.stdout)
    out = tmp_path / "r.html"
    assert cli("report", "--url", old_daemon.url, "--html", out).exit_code == 0
    says_outside(re.sub(r"<[^>]+>", "", out.read_text()))


def test_the_html_notes_show_config_keys_as_code(old_daemon: DaemonProcess, tmp_path: Path) -> None:
    """The empty-window and missing-root notes name config keys as <code>, not in literal backticks."""
    out = tmp_path / "r.html"
    assert cli("report", "--url", old_daemon.url, "--html", out).exit_code == 0
    notes = re.findall(r"<p class='note'>(.*?)</p>", out.read_text())
    said = " ".join(note for note in notes if "outside the window" in note or "does not exist" in note)
    assert ("<code>window.length</code>" in said, "<code>sources.roots</code>" in said, "`" in said) == (
        True, True, False,
    ), said  # fmt: skip


def test_the_count_outside_the_window_survives_a_restart(old_daemon: DaemonProcess) -> None:
    old_daemon.stop()
    old_daemon.start()
    pipeline = old_daemon.get("/api/v1/status")["pipeline"]
    assert (pipeline["segments_outside_window"], (pipeline["newest_outside_window"] or "")[:10]) == (2, "2026-01-01")


def test_status_names_a_missing_root(old_daemon: DaemonProcess) -> None:
    missing = str(old_daemon.workdir / "no-such-root")
    assert old_daemon.get("/api/v1/status")["pipeline"]["missing_roots"] == [missing]
    text = " ".join(cli("status", "--url", old_daemon.url).stdout.split())
    assert f"root {missing} does not exist" in text


# --- item 3: an empty window never reads as healthy ---------------------------------------------


def overall_row(text: str) -> str:
    return next(line for line in text.splitlines() if "overall" in line)


def test_an_empty_window_has_no_band_and_no_rate_in_scan(tmp_path: Path) -> None:
    session = transcript(tmp_path / "projects" / "-p" / f"{cl.SESSION}.jsonl", GATES_PLAN)
    home = tmp_path / "home"
    home.mkdir()
    document = cli("scan", session, "--since", "2099-01-01", "--json", "--home", home)
    import json

    overall = json.loads(document.stdout)["overall"]
    assert (overall["segments"], overall["health"]) == (0, "none")
    text = cli("scan", session, "--since", "2099-01-01", "--home", home).stdout
    row = overall_row(text)
    assert ("0.0 %" in row, "green" in row) == (False, False), row
    assert "—" in row
    markdown = cli("scan", session, "--since", "2099-01-01", "--markdown", "-", "--home", home).stdout
    row = overall_row(markdown)
    assert ("0.0 %" in row, "green" in row) == (False, False), row


def test_an_empty_window_has_no_band_in_the_api(old_daemon: DaemonProcess) -> None:
    document = old_daemon.get("/api/v1/status")
    assert (document["overall"]["segments"], document["overall"]["health"]) == (0, "none")
    row = overall_row(cli("status", "--url", old_daemon.url).stdout)
    assert ("0.0 %" in row, "green" in row) == (False, False), row


def test_no_band_is_no_green_in_the_html(tmp_path: Path) -> None:
    session = transcript(tmp_path / "projects" / "-p" / f"{cl.SESSION}.jsonl", GATES_PLAN)
    out = tmp_path / "r.html"
    result = cli("report", session, "--since", "2099-01-01", "--html", out, "--home", tmp_path)
    assert result.exit_code == 0, result.output
    assert not re.search(r"band-chip green", out.read_text())


# --- item 4: one band rule, one rendering of it, in every view ----------------------------------


def test_a_band_its_interval_does_not_back_reads_alike_in_every_view(tmp_path: Path) -> None:
    """alpha: 2 of 5 missed, weighted 40 %, tier low, interval [~7, ~82]: red, not backed (red~);
    gamma: 1 segment, underpowered: (red?)."""
    session = transcript(tmp_path / "projects" / "-p" / f"{cl.SESSION}.jsonl", GATES_PLAN)
    home = tmp_path / "home"
    home.mkdir()
    skills = {s["skill"]: s for s in json.loads(cli("scan", session, "--json", "--home", home).stdout)["skills"]}
    assert (skills["alpha"]["band_label"], skills["gamma"]["band_label"]) == ("red~", "(red?)")
    terminal = cli("scan", session, "--home", home).stdout
    markdown = cli("scan", session, "--markdown", "-", "--home", home).stdout
    out = tmp_path / "r.html"
    assert cli("report", session, "--html", out, "--home", home).exit_code == 0
    page = out.read_text()
    for text, shown in ((terminal, "red~"), (markdown, "red\\~")):  # a ~ escaped in Markdown (strikethrough)
        assert shown in next(line for line in text.splitlines() if "alpha" in line)
        assert "(red?)" in next(line for line in text.splitlines() if "gamma" in line)
    alpha = next(row for row in page.split("<tr>") if ">alpha</a>" in row)
    gamma = next(row for row in page.split("<tr>") if ">gamma</a>" in row)
    assert (">red~</span>" in alpha, ">(red?)</span>" in gamma) == (True, True), (alpha, gamma)
    for text in (terminal, markdown, page):
        assert ("yellow: lower bound" in text, "green: upper bound" in text) == (True, True)  # what backs a band
