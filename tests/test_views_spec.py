"""What the views say beside the figures: the whole watermark (spec §1: the trace roots, the window,
the sessions and segments, the fingerprint and the sentence), whatever it was read from; the soft-share
warning (§4) and the nudge (§7) of status."""

from __future__ import annotations

import html

import pytest

from omkd.cli import render
from omkd.engine.stats import NUDGE_MESSAGE
from omkd.render.html import PageInputs
from omkd.render.html import render as page_of
from tests.test_certainty import _segments
from tests.test_fold import add_segments
from tests.transcript_builder import ROOTS, Transcript, report_of

pytestmark = pytest.mark.engine


def test_the_page_of_a_daemon_names_the_roots_the_daemon_read() -> None:
    """``omkd report --url`` reads a daemon: its page names the daemon's trace roots (the report's
    watermark), not only the URL it was fetched from."""
    t = Transcript()
    t.prompt("where is the retry config?")
    t.skill("http-client")
    t.glob_miss("**/retry*.yaml")
    report = report_of(t)
    page = page_of(report, list(report.gaps), PageInputs("http://127.0.0.1:9464"))
    mark = report.watermark
    start = page.index('<p class="watermark">')
    watermark = page[start : page.index("</p>", start)]
    for part in (
        *ROOTS,
        f"{mark.sessions} session(s)",
        f"{mark.segments} segment(s)",
        f"Window {mark.window_from} to {mark.window_to}",
        mark.fingerprint,
        mark.statement,
        "http://127.0.0.1:9464",
    ):
        assert html.escape(part) in watermark, part


def _warnings_of(t: Transcript) -> list[str]:
    return render.warnings(report_of(t))


def test_status_says_when_weak_signals_carry_the_rate() -> None:
    """Spec §4: soft_share >= 0.10 means weak signals carry the rate: status says so ("review the
    inventory"). Two hedged segments of ten: soft share 2/10 - 1/10 = 0.10, said; one: 0.05, not."""
    said = Transcript()
    add_segments(said, "okki", ["soft"] * 2 + ["clean"] * 8)
    quiet = Transcript()
    add_segments(quiet, "okki", ["soft"] + ["clean"] * 9)
    assert "okki: weak signals carry 10.0 % of the gap rate — review the inventory" in _warnings_of(said)
    assert not [line for line in _warnings_of(quiet) if "review the inventory" in line]


def test_status_adds_the_nudge_after_three_quiet_windows() -> None:
    """Spec §7: a gap rate at or under 10 % over 3 consecutive windows (days with segments) makes
    status add the sentence, as a warning line, never a failure; a day at 20 % among them does not."""
    quiet, busy = Transcript(), Transcript()
    for day in range(3):
        _segments(quiet, "docs", 0, 5, day=day)
        _segments(busy, "docs", 1 if day == 1 else 0, 5 if day != 1 else 4, day=day)
    assert f"docs: {NUDGE_MESSAGE}" in _warnings_of(quiet)
    assert not [line for line in _warnings_of(busy) if NUDGE_MESSAGE in line]


def test_the_terminal_watermark_names_everything_spec_1_names() -> None:
    """``omkd scan`` and ``omkd status`` print the roots, the window, sessions, segments, fingerprint
    and the sentence below the table."""
    t = Transcript()
    t.prompt("where is the retry config?")
    t.glob_miss("**/retry*.yaml")
    report = report_of(t)
    mark = report.watermark
    text = " ".join(" ".join(lines.plain for _, lines in render.watermark_sections(report)).split())
    for part in (
        f"roots: {', '.join(ROOTS)}",
        f"window: {mark.window_from} → {mark.window_to}",
        f"sessions: {mark.sessions} segments: {mark.segments} fingerprint: {mark.fingerprint}",
        mark.statement,
    ):
        assert part in text, part
