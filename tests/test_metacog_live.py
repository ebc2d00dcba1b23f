"""What the agents did at a gap (spec §8), followed by the real daemon against ``omkd scan``.

- Over copies of real transcripts (Claude Code, Codex, Gemini), the daemon's ``metacognition``
  figures equal ``omkd scan``'s, the last segment of each file included (the daemon never ends
  it: its figures are the ones the stream's end where it was read to would decide, as in scan).
- A window with no lookup-gap segment exports no ratio: no ``0.0`` that reads as healthy.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Final

import orjson

from omkd.testing import DaemonProcess
from tests.live_helpers import append, omkd, session_bytes, wait_lines

FIXTURES: Final = (
    "ShtiyaOS__shtiya-os",
    "LAF-US__IDAHO-VAULT",
    "chasekb__codex",
    "Xu-Wentao__dotfile",
)
"""Repositories of the real fixtures copied: Claude Code, Gemini and Codex transcripts."""


def copied(real: Path, root: Path) -> int:
    """Copy the transcripts of ``FIXTURES`` below ``root``; the number of complete lines copied."""
    lines = 0
    for repository in FIXTURES:
        for path in sorted((real / repository).rglob("*")):
            if path.is_file() and path.suffix in (".jsonl", ".json"):
                data = path.read_bytes()
                append(root / path.relative_to(real), data)
                lines += data.count(b"\n")
    return lines


def metacognition(report: dict[str, Any]) -> dict[str, Any]:
    rows = {f"{s['skill']} ({s['agent']})": s["metacognition"] for s in report["skills"]}
    return {**rows, "overall": report["overall"]["metacognition"]}


def test_the_daemon_and_scan_count_the_same_metacognition_over_real_transcripts(
    real_fixtures: Path, tmp_path: Path
) -> None:
    root = tmp_path / "transcripts"
    lines = copied(real_fixtures, root)
    scanned = omkd("scan", "--json", "--home", tmp_path / "home", root, timeout=300)
    assert scanned.returncode == 0, scanned.stderr
    batch = orjson.loads(scanned.stdout)
    assert batch["overall"]["metacognition"]["lookup_gap_segments"] > 0
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        wait_lines(daemon, lines, deadline=120)
        live = daemon.get("/api/v1/status")
        assert daemon.stop() == 0, daemon.log_text()
    assert metacognition(live) == metacognition(batch)


def test_a_window_without_a_lookup_gap_exports_no_ratio(tmp_path: Path) -> None:
    """Only hits and a hedge: no segment hit a lookup gap, so no self-recovery ratio and no bound,
    per skill or overall; no segment wrote, so no unchecked-write ratio either. The hedge leaves a
    gap open (the open-gap count is there, its ratio too)."""
    root = tmp_path / "projects"
    data = session_bytes([("deploy", "hit"), ("deploy", "hedge"), ("deploy", "hit"), ("lint", "hit")])
    append(root / "-home-dev-shop" / "session.jsonl", data)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        samples = wait_lines(daemon, data.count(b"\n"))
        status = daemon.get("/api/v1/status")
        assert daemon.stop() == 0
    ratios = sorted(key for key in samples if "_ratio" in key and ("recovery" in key or "unchecked" in key))
    assert ratios == []
    assert samples['omkd_window_lookup_gap_segments{agent="claude_code",skill="deploy"}'] == 0
    # deploy's hedge segment ended when the next segment began: an open gap, nobody asked
    assert samples['omkd_window_asked_at_gap_ratio{agent="claude_code",skill="deploy"}'] == 0
    deploy = next(s for s in status["skills"] if s["skill"] == "deploy")["metacognition"]
    assert (deploy["self_recovery_ratio"], deploy["intervals"]["self_recovery_ratio"]) == (None, None)


def test_a_revised_outcome_moves_the_all_time_partition_too(tmp_path: Path) -> None:
    """A miss read while it is the stream's last word is, for now, left (dropped); the read that
    finds it comes later and makes it recovered. The window gauges move at once; the all-time
    counters count the segment once it is settled (here: a later segment began in its stream), as
    recovered only, and the partition sums to the segments that hit a gap. A kill -9 and a restart
    do not count it again."""
    from tests import claude_lines as cl
    from tests.live_helpers import family, segment
    from tests.metacog_helpers import glob_miss, read_hit
    from tests.test_settle import iso, stamped

    now = time.time()  # recent records: the segment is not idle (segments.idle_close) while read
    first = stamped([cl.user("style it"), *glob_miss("t1", "**/spotter.css", "m1")], now)
    second = stamped(read_hit("t2", f"{cl.CWD}/priv/static/assets/spotter.css", "m2"), now + 1)
    later = cl.jsonl(segment("deploy", "hit", iso(now + 2)))
    target = tmp_path / "projects" / "-p" / "s.jsonl"
    append(target, first)
    lines = first.count(b"\n")
    with DaemonProcess(tmp_path, [tmp_path / "projects"]) as daemon:

        def checkpointed() -> bool:  # the counters are exported as of a checkpoint: one after the read
            now = daemon.metrics()
            return now["omkd_last_checkpoint_timestamp_seconds"] >= now["omkd_last_read_timestamp_seconds"]

        def read(data: bytes) -> dict[str, float]:
            nonlocal lines
            append(target, data)
            lines += data.count(b"\n")
            wait_lines(daemon, lines)
            daemon.wait_for(checkpointed, "a checkpoint after the last read")
            return daemon.metrics()

        daemon.start()
        wait_lines(daemon, lines)
        provisional = read(second)
        settled = read(later)
        daemon.kill()
        daemon.start()
        wait_lines(daemon, lines)
        daemon.wait_for(checkpointed, "a checkpoint after the restart")
        restarted = daemon.metrics()
        assert daemon.stop() == 0
    window = {k: v for k, v in family(provisional, "omkd_window_gap_outcome_segments").items() if v}
    assert window == {'omkd_window_gap_outcome_segments{agent="claude_code",outcome="recovered",skill="general"}': 1}
    assert sum(family(provisional, "omkd_lookup_gap_segments_total").values()) == 0  # open: not settled yet
    assert sum(family(provisional, "omkd_gap_outcome_segments_total").values()) == 0
    for samples in (settled, restarted):
        outcomes = {k: v for k, v in family(samples, "omkd_gap_outcome_segments_total").items() if v}
        assert outcomes == {
            'omkd_gap_outcome_segments_total{agent="claude_code",outcome="recovered",skill="general"}': 1
        }
        assert sum(family(samples, "omkd_lookup_gap_segments_total").values()) == 1
