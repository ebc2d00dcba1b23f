"""Spec §1: every view that shows a gap rate carries the whole watermark (the trace roots, the window,
the sessions and segments, the fingerprint and the sentence), whatever it was read from."""

from __future__ import annotations

import html

import pytest

from omkd.render.html import PageInputs, render
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
    page = render(report, list(report.gaps), PageInputs("http://127.0.0.1:9464"))
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
