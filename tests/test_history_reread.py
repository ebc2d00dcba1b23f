"""Figures that do not depend on when one looks: the window and retention changed by SIGHUP and by
restart, and after each step ``/api/v1/status`` equals ``omkd scan --since <the window>`` over the
transcripts still on disk (issue 11, item 1).

Four sessions, 2, 20, 50 and 80 days old (the daily roll-ups keep 90 days), one segment each (a
skill, one Glob that finds nothing). The default window (7 days) and retention (30 days) keep the
first two; a longer retention reads the files still on disk again and brings the older ones back;
a session whose file was deleted cannot come back, and the daemon says how many such segments the
daily roll-ups still count.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import orjson

from omkd.testing import DaemonProcess
from tests import claude_lines as cl
from tests.live_helpers import append, omkd, segment
from tests.test_stream_equivalence import comparable

DAY = 86400.0
AGES = {"fresh": 2, "recent": 20, "old": 50, "ancient": 80}


def iso_ago(days: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() - days * DAY))


def write_sessions(root: Path) -> dict[str, Path]:
    paths = {}
    for name, age in AGES.items():
        path = root / "-home-dev-shop" / f"{name}.jsonl"
        append(path, cl.jsonl(segment(f"skill-{name}", "miss", iso_ago(age))))
        paths[name] = path
    return paths


def configure(daemon: DaemonProcess, length: str, retention: str) -> None:
    text = daemon.config_path.read_text()
    lines = [line for line in text.splitlines() if not line.startswith(("length =", "retention ="))]
    at = lines.index("[window]") + 1
    lines[at:at] = [f'length = "{length}"', f'retention = "{retention}"']
    daemon.config_path.write_text("\n".join(lines) + "\n")


def scan(tmp_path: Path, root: Path, since: str) -> dict[str, Any]:
    done = omkd("scan", "--json", "--home", tmp_path / "home", "--since", since, root, timeout=120)
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = orjson.loads(done.stdout)
    return document


def settled(daemon: DaemonProcess, event: str | None = None) -> dict[str, Any]:
    if event is not None:
        daemon.wait_log_event(event)
    daemon.wait_caught_up()
    status: dict[str, Any] = daemon.get("/api/v1/status")
    return status


def skills_of(report: dict[str, Any]) -> list[str]:
    return sorted(s["skill"] for s in report["skills"])


def test_window_and_retention_changes_give_the_figures_of_one_scan(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    paths = write_sessions(root)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.write_config()
        configure(daemon, "7d", "30d")
        daemon.start()
        first = settled(daemon, "initial_read_done")
        # Pruning waits for the initial read: nothing was forgotten before everything was read.
        assert first["pipeline"]["segments_outside_window"] + first["overall"]["segments"] >= 2
        assert comparable(first) == comparable(scan(tmp_path, root, "7d"))
        assert skills_of(first) == ["skill-fresh"]
        # the old history is pruned once read (retention 30 days): gaps outside the window go
        daemon.wait_for(lambda: daemon.get("/api/v1/gaps")["older"] == 1, "the 50- and 80-day segments pruned")

        paths["ancient"].unlink()  # Claude Code's cleanup deleted the oldest transcript
        configure(daemon, "400d", "400d")
        assert daemon.process is not None
        daemon.process.send_signal(signal.SIGHUP)
        widened = settled(daemon, "history_reread_done")
        assert comparable(widened) == comparable(scan(tmp_path, root, "400d"))
        assert skills_of(widened) == ["skill-fresh", "skill-old", "skill-recent"]
        done = [e for e in daemon.log_events() if e.get("event") == "history_reread_done"][-1]
        assert (done["segments_recovered"], done["segments_unrecoverable"]) == (1, 1)
        assert daemon.metrics()["omkd_segments_unrecoverable"] == 1
        assert daemon.stop() == 0, daemon.log_text()

        configure(daemon, "7d", "30d")  # shortened by restart
        daemon.start()
        shortened = settled(daemon)
        assert comparable(shortened) == comparable(scan(tmp_path, root, "7d"))
        daemon.wait_for(lambda: daemon.get("/api/v1/gaps")["older"] == 1, "the 50-day segment pruned again")
        assert daemon.stop() == 0, daemon.log_text()

        configure(daemon, "400d", "400d")  # lengthened again by restart
        daemon.start()
        again = settled(daemon, "history_reread_done")
        assert comparable(again) == comparable(scan(tmp_path, root, "400d"))
        # the counters never count a segment twice: three sessions on disk, and the deleted one once
        counters = daemon.metrics()
        total = sum(v for k, v in counters.items() if k.startswith("omkd_segments_total{"))
        assert total == 4
        assert daemon.stop() == 0, daemon.log_text()
