"""Upgrading omkd, or changing its rules, never crashes, never computes with stale rules and never
counts twice (issue 11, item 3).

- ``tests/data/state-v1``: a state directory written by omkd 0.1.0 (the first release) after
  following two real transcripts (its README). Restored by this omkd at the path it was written
  for, it loads (its segment summaries lack fields added since), its parser states are not used
  (another omkd made them): every transcript is read again, and the figures equal a clean scan.
- A state written with hedging off, restarted with hedging on: the saved parser states were made
  by other rules, so the files are read again and the hedge is counted; the all-time counters do
  not count the segment twice.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any, Final

import orjson
import pytest

from omkd.testing import DaemonProcess
from tests.live_helpers import append, omkd, session_bytes, wait_lines
from tests.test_stream_equivalence import comparable

V1: Final = Path(__file__).parent / "data" / "state-v1"
V1_HOME: Final = Path("/tmp/v1state")
"""Where the v1 state's files were when it was written (its ``files`` table names these paths; the
test moves them into its own directory, in a copy of the state)."""


def scan(tmp_path: Path, root: Path, *extra: str) -> dict[str, Any]:
    done = omkd("scan", "--json", "--home", tmp_path / "home", *extra, root, timeout=120)
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = orjson.loads(done.stdout)
    return document


def after_reread(daemon: DaemonProcess) -> tuple[dict[str, Any], dict[str, Any], dict[str, float]]:
    """Start, wait for the history to be read again and caught up; (its log event, status, metrics)."""
    daemon.start()
    event = daemon.wait_log_event("history_reread")
    daemon.wait_caught_up()
    status: dict[str, Any] = daemon.get("/api/v1/status")
    counters = daemon.metrics()
    assert daemon.stop() == 0, daemon.log_text()
    return event, status, counters


def test_a_state_of_the_first_release_is_read_and_gives_a_clean_scans_figures(tmp_path: Path) -> None:
    home = tmp_path / "v1state"  # the state names its files under /tmp/v1state: moved here, path by path
    shutil.copytree(V1 / "roots", home / "roots")
    root = home / "roots" / "proj"
    workdir = tmp_path / "daemon"
    (workdir / "state").mkdir(parents=True)
    shutil.copy(V1 / "state.db", workdir / "state" / "state.db")
    with sqlite3.connect(workdir / "state" / "state.db") as db:
        db.execute("UPDATE files SET path = replace(path, ?, ?)", (str(V1_HOME), str(home)))
    with DaemonProcess(workdir, [home / "roots"]) as daemon:
        event, status, counters = after_reread(daemon)
        migrated = next(e for e in daemon.log_events() if e.get("event") == "state_migrated")
    assert "older omkd" in event["reason"]
    assert comparable(status) == comparable(scan(tmp_path, home / "roots"))
    # what the v1 README says it showed: 2 segments, `general`, 1 gap segment
    assert (status["overall"]["segments"], status["overall"]["gap_segments"]) == (2, 1)
    assert sum(v for k, v in counters.items() if k.startswith("omkd_segments_total{")) == 2
    assert counters["omkd_stream_states_outdated_total"] == 2
    assert root.is_dir()
    # the release's pickled summaries are plain JSON now
    assert (migrated["segments_migrated"], migrated["segments_unreadable"]) == (2, 0)
    with sqlite3.connect(workdir / "state" / "state.db") as db:
        blobs = [blob for (blob,) in db.execute("SELECT summary FROM segments")]
    assert (len(blobs), all(blob.startswith(b'{"key":') for blob in blobs)) == (2, True)


HEDGED: Final = [("deploy", "hedge"), ("deploy", "miss"), ("lint", "hit")]


def test_a_state_made_by_other_rules_is_read_again_with_the_rules_in_force(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    data = session_bytes(HEDGED)
    append(root / "-home-dev-shop" / "session.jsonl", data)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.write_config()
        daemon.config_path.write_text(daemon.config_path.read_text() + "[hedging]\nenabled = false\n")
        daemon.start()
        wait_lines(daemon, data.count(b"\n"))
        daemon.wait_caught_up()
        before = daemon.get("/api/v1/status")
        assert daemon.stop() == 0, daemon.log_text()
        daemon.write_config()  # hedging back on (the default)
        event, after, counters = after_reread(daemon)
    assert "other rules" in event["reason"]
    assert (before["overall"]["by_type"]["hedging"], after["overall"]["by_type"]["hedging"]) == (0, 1)
    assert comparable(after) == comparable(scan(tmp_path, root))
    assert sum(v for k, v in counters.items() if k.startswith("omkd_segments_total{")) == 3


def test_summaries_are_plain_data_read_by_older_and_newer_omkds() -> None:
    """A saved summary is JSON with every field by name: one without the fields added later loads
    with their defaults, one with fields this omkd does not know loads without them, and one
    without a field that has no default is refused (counted, never guessed)."""
    from omkd.engine.signals import Signal
    from omkd.engine.summary import SegmentSummary

    summary = SegmentSummary(
        key="s|u|0", stream="p/s.jsonl", role="main", skill="deploy", session_id="s", cwd="/p",
        first_ts=1.0, last_ts=2.0, assistant_parts=3, turns=2, tool_calls=1, tool_answered=1,
        tool_failures=1, tool_cancelled=0, tokens=(1, 2, 3, 4),
        signals=(Signal("failed_search", 1, 1.5, "Glob x -> No files found", {"tool": "Glob", "pattern": "x"}, 7),),
        accessed=frozenset({"/p/CLAUDE.md"}), open=False, agent="codex",
    )  # fmt: skip
    plain = orjson.loads(orjson.dumps(summary.to_plain()))
    assert SegmentSummary.from_plain(plain) == summary
    older = {k: v for k, v in plain.items() if k not in ("agent", "user_given", "inherit", "start_line", "end_line")}
    assert SegmentSummary.from_plain(older).agent == "claude_code"
    assert SegmentSummary.from_plain({**plain, "added_later": [1, 2]}) == summary
    newer_signal = {**plain, "signals": [{**plain["signals"][0], "added_later": True}]}
    assert SegmentSummary.from_plain(newer_signal) == summary
    with pytest.raises(KeyError, match="skill"):
        SegmentSummary.from_plain({k: v for k, v in plain.items() if k != "skill"})


def test_parser_states_are_plain_data_that_continue_the_stream(real_fixtures: Path) -> None:
    """A processor saved mid-file (JSON: ``engine/stream_state.py``) and read back, fed from its
    checkpoint offset, goes on as if it had never stopped: the same summaries and counters as one
    reading, for every agent's format."""
    from omkd.engine import stream_state
    from omkd.engine.stream import StreamProcessor

    names = [
        "marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",  # Claude Code, a Skill and sub-agents
        "chasekb__codex/2026/04/08/rollout-2026-04-08T08-27-18-019d6d46-a233-7eb1-8e9b-923935d7d416.jsonl",
        "ShtiyaOS__shtiya-os/admin/chats/session-2026-06-09T08-50-55b29702.jsonl",
        "jnarowski__agentcmd/gemini/full/session-2025-10-27T19-55-981c87cb.json",
    ]
    for name in names:
        data = (real_fixtures / name).read_bytes()
        whole = StreamProcessor(name)
        whole.feed(data)
        expected = (whole.close(), whole.counters)
        part = StreamProcessor(name)
        part.feed(data[: len(data) // 2])
        saved = stream_state.dumps(part)
        assert saved.startswith(b'{"$o":"omkd.engine.stream:StreamProcessor"'), name
        restored = stream_state.loads(saved)
        restored.feed(data[part.consumed :])  # the checkpoint offset: a partial line is read again
        assert (restored.close(), restored.counters) == expected, name


def test_a_parser_state_makes_only_engine_classes() -> None:
    """A state naming any other class is refused before anything of it is made."""
    from omkd.engine import stream_state

    for document in (
        b'{"$o":"os:system","$i":0,"a":["true"],"s":null}',
        b'{"$o":"omkd.daemon.ingest:Ingest","$i":0,"a":[],"s":null}',
    ):
        with pytest.raises(stream_state.StateError):
            stream_state.loads(document)
