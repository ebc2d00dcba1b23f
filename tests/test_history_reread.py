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
        read = daemon.wait_log_event("initial_read_done")
        first = settled(daemon)
        # Pruning waits for the initial read: when everything is read, nothing has been forgotten
        # (the 20-, 50- and 80-day segments are all still kept, outside the window)
        assert (read["segments_in_window"], read["segments_outside_window"]) == (1, 3)
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


# --- reading again, in-process (the daemon's parts with a manual clock) ---------------------------

from omkd.config import Config  # noqa: E402
from omkd.daemon.parts import Parts  # noqa: E402
from omkd.daemon.reader import READ_STEP  # noqa: E402
from omkd.daemon.state.store import Checkpoint, StateStore  # noqa: E402
from omkd.engine import skills  # noqa: E402
from omkd.testing import ManualClock  # noqa: E402


def config_of(tmp_path: Path, **segments: object) -> Config:
    return Config.model_validate(
        {
            "sources": {"roots": [str(tmp_path / "projects")], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "window": {"length": "7d", "retention": "30d"},
            **({"segments": segments} if segments else {}),
        }
    )


def read_everything(parts: Parts) -> None:
    for file in list(parts.reader.tailer.files.values()) or parts.reader.rescan():
        while parts.reader.feed(file, READ_STEP):
            pass
    parts.reader.rescan()


def older_omkd(config: Config) -> None:
    """The state as another omkd (or other rules) would have left it: its fingerprint differs."""
    store = StateStore(config.state_dir())
    store.open()
    store.save(Checkpoint(stream_fingerprint="made-by-another-omkd"))
    store.close()


def test_reading_a_kept_stream_again_counts_nothing_twice(tmp_path: Path) -> None:
    """A stream read again from its start hands out smaller summaries first: the all-time counters
    measure its growth from what they counted, not from those (8 Glob misses, 17 calls with the Skill)."""
    ts = iso_ago(1 / 24)
    records = [cl.user("do it"), cl.tool_use("s", "Skill", {"skill": "deploy"}, "ms"),
               cl.tool_result("s", "Launching skill: deploy", {"success": True, "commandName": "deploy"})]  # fmt: skip
    for i in range(8):  # a 100 kB result between misses: the reading takes several steps
        records += [
            cl.tool_use(f"r{i}", "Read", {"file_path": f"/p/big{i}.py"}, f"mr{i}"),
            cl.tool_result(f"r{i}", "x" * 100_000),
        ]
        records += [cl.tool_use(f"g{i}", "Glob", {"pattern": f"docs/m{i}.md"}, f"mg{i}"),
                    cl.tool_result(f"g{i}", "No files found", cl.GLOB_EMPTY)]  # fmt: skip
    for record in records:
        record["timestamp"] = ts
    append(tmp_path / "projects" / "-p" / "s.jsonl", cl.jsonl(records))
    config, clock = config_of(tmp_path), ManualClock(wall=time.time())
    seen = []
    for step in range(2):
        if step:
            older_omkd(config)
        store = StateStore(config.state_dir())
        parts = Parts.open(config, store, store.open(), clock)
        assert parts.history.recounting == bool(step)
        read_everything(parts)
        parts.history.end()
        parts.keeper.checkpoint()
        counted = parts.keeper.exported_counters["deploy"]
        seen.append((counted.segments, counted.tool_calls, dict(counted.signals), counted.gap_segments))
        parts.shutdown()
        store.close()
    # 8 misses, none three in a row (a found Read between each two): no repeated_failure
    assert seen == [(1, 17, {"failed_search": 8}, 1)] * 2


def test_segments_other_rules_no_longer_cut_are_forgotten(tmp_path: Path) -> None:
    """``/foo`` opens a skill's segment; made a built-in, it opens none: read again with that rule,
    the stream has one segment, as a fresh state would say, not the three the old rules cut."""
    ts = iso_ago(1 / 24)
    frame = "<command-message>foo</command-message>\n<command-name>/foo</command-name>\n<command-args></command-args>"
    records = [
        cl.user("hello"),
        cl.text("hi", "m0"),
        cl.user(frame),
        cl.tool_use("g1", "Glob", {"pattern": "docs/x.md"}, "m1"),
        cl.tool_result("g1", "No files found", cl.GLOB_EMPTY),
        cl.user("now something else"),
        cl.text("ok", "m2"),
    ]
    for record in records:
        record["timestamp"] = ts
    append(tmp_path / "projects" / "-p" / "s.jsonl", cl.jsonl(records))
    clock = ManualClock(wall=time.time())
    cut = []
    for builtins in (sorted(skills.BUILTIN_COMMANDS), [*sorted(skills.BUILTIN_COMMANDS), "foo"]):
        config = config_of(tmp_path, builtin_commands=builtins)
        store = StateStore(config.state_dir())
        parts = Parts.open(config, store, store.open(), clock)
        read_everything(parts)
        parts.history.end()
        cut.append(sorted((s.skill, len(s.signals)) for s in parts.keeper.live.fold.segments.values()))
        parts.shutdown()
        store.close()
    assert cut == [[("foo", 1), ("general", 0), ("general", 0)], [("general", 1)]]


def test_a_kill_while_reading_again_reads_again_at_the_restart(tmp_path: Path) -> None:
    """The state says it is another omkd's until the reading again ends: killed half way (one of two
    files read), the restart reads again, and the pruned 50-day segment is still counted once."""
    root = tmp_path / "projects" / "-home-dev-shop"
    append(root / "fresh.jsonl", cl.jsonl(segment("skill-fresh", "miss", iso_ago(2))))
    append(root / "old.jsonl", cl.jsonl(segment("skill-old", "miss", iso_ago(50))))
    config, clock = config_of(tmp_path), ManualClock(wall=time.time())
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    read_everything(parts)
    parts.keeper.pruned()
    parts.keeper.checkpoint()
    parts.shutdown()
    store.close()
    older_omkd(config)
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    fresh = next(f for f in parts.reader.tailer.files.values() if f.path.endswith("fresh.jsonl"))
    while parts.reader.feed(fresh, READ_STEP):
        pass
    parts.keeper.checkpoint()
    store.close()  # kill -9: no shutdown, the reading again never ended
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    assert parts.history.recounting
    read_everything(parts)
    parts.history.end()
    parts.keeper.checkpoint()
    assert {row: c.segments for row, c in parts.keeper.live.counters.items()} == {"skill-fresh": 1, "skill-old": 1}
    parts.shutdown()
    store.close()
