"""The daemon's catch-up through worker processes (issue 16: ``daemon/backfill.py``).

While it replays, a file never read is read from 0 by a worker; the loop takes the reading as if
it had read the bytes itself. Nothing it shows may depend on which did: each test compares with
the same files read on the loop alone (a figure stated by hand would only restate the engine).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any, Final

import pytest

from omkd.config import Config
from omkd.daemon.backfill import FROM_BYTES, catch_up_workers
from omkd.daemon.first_read import FirstRead, read_first
from omkd.daemon.parts import Parts
from omkd.daemon.reader import READ_STEP
from omkd.daemon.scheduler import ReadScheduler
from omkd.daemon.state.store import StateStore
from omkd.engine.records import to_data
from omkd.engine.report.build import build_report
from omkd.shell.scan import discover, scan
from omkd.testing import DaemonProcess, ManualClock

SAMPLES: Final = (
    "d-kimuson__claude-code-viewer",
    "chasekb__codex",
    "chasekb__codex@6cae70e2",
)
"""Fixture folders read by the in-process tests: Claude Code sessions with sub-agents, and one
Codex rollout kept at two moments (two files holding one stream: the copy read further wins)."""
WALL: Final = 1_790_000_000.0
"""The manual clock's time: after every fixture, so the ten-year window holds them all."""


def config_of(tmp_path: Path, root: Path) -> Config:
    return Config.model_validate(
        {
            "sources": {"roots": [str(root)], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "window": {"length": "3650d", "retention": "3650d"},
        }
    )


def open_parts(tmp_path: Path, root: Path) -> Parts:
    config = config_of(tmp_path, root)
    store = StateStore(config.state_dir())
    return Parts.open(config, store, store.open(), ManualClock(wall=WALL))


def read_on_the_loop(parts: Parts) -> None:
    for file in parts.reader.rescan():
        while parts.reader.feed(file, READ_STEP):
            pass
    parts.reader.rescan()


def worker_reading(parts: Parts, path: Path) -> FirstRead:
    """What a worker hands back for ``path`` (run here: the function is the one the pool runs)."""
    file = next(f for f in parts.reader.tailer.files.values() if f.path == str(path))
    read = read_first(
        file.path, file.identity, parts.reader.streams.name_of(file.path), parts.reader.streams.rules, 1 << 24
    )
    assert read is not None
    return read


def figures(parts: Parts) -> dict[str, Any]:
    report = build_report(parts.keeper.live.fold, ["/roots"], gap_limit=None)
    return {
        "overall": to_data(report.overall),
        "skills": [to_data(s) for s in report.skills],
        "gaps": [to_data(g) for g in report.gaps],
        "pipeline": to_data(parts.keeper.pipeline),
        "segments": sorted(s.key for s in parts.keeper.live.fold.segments.values()),
    }


def copy_samples(real_fixtures: Path, root: Path) -> list[Path]:
    for name in SAMPLES:
        shutil.copytree(real_fixtures / name, root / name)
    files = sorted(
        (p for p in root.rglob("*.jsonl") if p.stat().st_size >= FROM_BYTES), key=lambda p: -p.stat().st_size
    )
    assert len(files) >= 3
    return files


def cut_at_a_line(path: Path) -> bytes:
    """Leave the first ~60 % of ``path`` (up to a line end, plus half of the next line); return the rest."""
    data = path.read_bytes()
    cut = data.index(b"\n", len(data) * 6 // 10) + 1
    nxt = data.find(b"\n", cut)
    cut += max(0, (nxt - cut) // 2)
    path.write_bytes(data[:cut])
    return data[cut:]


@pytest.mark.parametrize("restart", [False, True], ids=["read-on", "restart-then-read-on"])
def test_a_file_begun_by_a_worker_then_grown_equals_it_read_here(
    real_fixtures: Path, tmp_path: Path, restart: bool
) -> None:
    here = tmp_path / "here"
    copy_samples(real_fixtures, here / "projects")
    expected_parts = open_parts(here, here / "projects")
    read_on_the_loop(expected_parts)
    expected = figures(expected_parts)

    there = tmp_path / "there"
    files = copy_samples(real_fixtures, there / "projects")
    rests = {path: cut_at_a_line(path) for path in files}
    parts = open_parts(there, there / "projects")
    parts.reader.rescan()
    for path in files:
        read = worker_reading(parts, path)
        file = next(f for f in parts.reader.tailer.files.values() if f.path == str(path))
        assert parts.reader.adopt(file, read)
        assert 0 < file.read_offset == read.consumed < path.stat().st_size  # the half line is read here
        assert parts.reader.streams.get(file.stream_id) is None  # the state stays bytes until it is wanted
    assert parts.keeper.checkpoint()
    assert not parts.reader.streams.unsaved  # saved as they were
    if restart:
        parts.shutdown()
        parts.keeper.store.close()
        parts = open_parts(there, there / "projects")
        assert parts.stats.restored_files == len(list((there / "projects").rglob("*.json*")))
    for path, rest in rests.items():
        with path.open("ab") as handle:
            handle.write(rest)
    read_on_the_loop(parts)
    assert figures(parts) == expected
    assert parts.stats.files_truncated == 0  # head and tail markers were the worker's, and right


def test_a_reading_is_dropped_when_the_file_changed_meanwhile(real_fixtures: Path, tmp_path: Path) -> None:
    files = copy_samples(real_fixtures, tmp_path / "projects")
    parts = open_parts(tmp_path, tmp_path / "projects")
    parts.reader.rescan()
    by_path = {f.path: f for f in parts.reader.tailer.files.values()}
    first, second, third = (by_path[str(p)] for p in files[:3])

    early = worker_reading(parts, files[0])
    while parts.reader.feed(first, READ_STEP):  # the loop read it meanwhile
        pass
    assert not parts.reader.adopt(first, early)

    late = worker_reading(parts, files[1])
    parts.reader.close_stream(second)  # ended meanwhile (deleted, rotated)
    assert not parts.reader.adopt(second, late)

    os.rename(files[2], files[2].with_suffix(".old"))
    shutil.copy(files[2].with_suffix(".old"), files[2])  # another file at the path
    assert read_first(third.path, third.identity, "x", parts.reader.streams.rules, 1 << 24) is None
    # only what the loop read of the first file is folded
    assert {s.stream for s in parts.keeper.live.fold.segments.values()} == {parts.reader.streams.name_of(first.path)}


# --- the real daemon ----------------------------------------------------------------------------

WORKERS_OFF: Final = "[tail]\ncatch_up_workers = 0\n"
WORKERS_ON: Final = "[tail]\ncatch_up_workers = 2\n"
TIMELY: Final = frozenset({"generated_at", "uptime_seconds", "window_from", "window_to", "daemon"})


def without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in TIMELY}
    if isinstance(value, list):
        return [without_times(v) for v in value]
    return value


def caught_up_status(workdir: Path, root: Path, extra: str) -> tuple[Any, dict[str, float], DaemonProcess]:
    daemon = DaemonProcess(workdir, [root], extra)
    daemon.start()
    metrics = daemon.wait_caught_up()
    return without_times(daemon.get("/api/v1/status")), metrics, daemon


@pytest.fixture(scope="module")
def read_on_the_loop_only(real_fixtures: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    status, _, daemon = caught_up_status(tmp_path_factory.mktemp("loop"), real_fixtures, WORKERS_OFF)
    with daemon:
        daemon.stop()
    return status


def test_the_daemon_catches_up_through_workers_as_it_does_alone(
    real_fixtures: Path, tmp_path: Path, read_on_the_loop_only: Any
) -> None:
    status, metrics, daemon = caught_up_status(tmp_path, real_fixtures, WORKERS_ON)
    with daemon:
        assert daemon.wait_log_event("catch_up_workers")["workers"] == 2
        assert metrics['omkd_catch_up_files_total{outcome="adopted"}'] >= 50
        assert status == read_on_the_loop_only
        assert daemon.stop() == 0


def worker_pids(parent: int) -> list[int]:
    """The daemon's children that are multiprocessing workers (spawned: their command line says so)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == parent and b"spawn_main" in command:
            pids.append(int(entry.name))
    return pids


def test_a_killed_worker_loses_nothing(real_fixtures: Path, tmp_path: Path, read_on_the_loop_only: Any) -> None:
    daemon = DaemonProcess(tmp_path, [real_fixtures], WORKERS_ON)
    with daemon:
        daemon.start(wait_ready=False)
        assert daemon.process is not None
        end = time.monotonic() + 30
        while not (pids := worker_pids(daemon.process.pid)) and time.monotonic() < end:
            time.sleep(0.005)
        assert pids, daemon.log_text()
        os.kill(pids[0], signal.SIGKILL)  # as the OOM killer would
        daemon.port = int(daemon.wait_log_event("started")["listen"].rsplit(":", 1)[1])
        metrics = daemon.wait_caught_up()
        assert metrics['omkd_errors_total{cause="catch_up.WorkerDiedError"}'] == 1
        assert without_times(daemon.get("/api/v1/status")) == read_on_the_loop_only
        assert any(e.get("event") == "catch_up_workers_broken" for e in daemon.log_events())
        assert daemon.stop() == 0


# --- found by the review: a file gone while a worker holds it; copies of one stream ----------


def test_a_file_deleted_while_a_worker_holds_it_is_drained_through_its_descriptor(
    real_fixtures: Path, tmp_path: Path
) -> None:
    def biggest(root: Path) -> Path:
        return max(root.rglob("*.jsonl"), key=lambda p: p.stat().st_size)

    shutil.copytree(real_fixtures / SAMPLES[0], tmp_path / "here" / "projects")
    expected_parts = open_parts(tmp_path / "here", tmp_path / "here" / "projects")
    read_on_the_loop(expected_parts)
    biggest(tmp_path / "here" / "projects").unlink()
    read_on_the_loop(expected_parts)  # the rescan ends it
    expected = figures(expected_parts)

    root = tmp_path / "there" / "projects"
    shutil.copytree(real_fixtures / SAMPLES[0], root)
    parts = open_parts(tmp_path / "there", root)
    gone = biggest(root)

    async def catch_up() -> None:
        wake = asyncio.Event()
        scheduler = ReadScheduler(parts, parts.keeper.clock, wake)
        backfill = scheduler.backfill = catch_up_workers(parts.reader, 1, wake.set)
        for file in parts.reader.rescan():
            scheduler.ready[file.stream_id] = file
        held = next(f for f in scheduler.ready.values() if f.path == str(gone))
        backfill.hand_out(held)
        del scheduler.ready[held.stream_id]
        await asyncio.wait_for(wake.wait(), 60)  # its reading is back, not adopted yet
        gone.unlink()  # deleted now (Claude Code's clean-up), before the loop takes the reading
        for file in parts.reader.rescan():
            scheduler.ready[file.stream_id] = file
        while scheduler.ready or backfill.busy:
            await scheduler.read_ready(lambda: False)
        scheduler.stop_backfill()

    asyncio.run(catch_up())
    read_on_the_loop(parts)
    assert figures(parts) == expected
    assert parts.stats.catch_up_files == {"read_here": 1}  # drained by the loop: nothing lost


def test_two_copies_of_a_stream_keep_the_copy_a_scan_keeps(real_fixtures: Path, tmp_path: Path) -> None:
    source = max((real_fixtures / SAMPLES[0]).rglob("*.jsonl"), key=lambda p: p.stat().st_size)
    root = tmp_path / "projects"
    (root / "proj" / "a").mkdir(parents=True)
    # identical copies, one in a folder whose name sorts before the file's: a scan reads a
    # folder's files before its sub-folders, so it keeps the copy in the sub-folder
    shutil.copy(source, root / "proj" / "zz.jsonl")
    shutil.copy(source, root / "proj" / "a" / "zz.jsonl")
    kept_by_scan = {s.stream for s in scan(discover([root])).segments.values()}
    parts = open_parts(tmp_path, root)
    read_on_the_loop(parts)
    assert {s.stream for s in parts.keeper.live.fold.segments.values()} == kept_by_scan == {"proj/a/zz.jsonl"}


def test_a_renamed_file_read_again_gives_the_new_rules_figures(real_fixtures: Path, tmp_path: Path) -> None:
    """Read with hedging on; every file renamed to a name that sorts before its old one; restarted
    with hedging off (other rules: everything is read again). The new reading replaces the old."""

    def parts_with(workdir: Path, root: Path, hedging: bool) -> Parts:
        config = config_of(workdir, root).model_copy(
            update={"hedging": config_of(workdir, root).hedging.model_copy(update={"enabled": hedging})}
        )
        store = StateStore(config.state_dir())
        return Parts.open(config, store, store.open(), ManualClock(wall=WALL))

    root = tmp_path / "projects"
    shutil.copytree(real_fixtures / "iansherr__claude-code-log", root)
    first = parts_with(tmp_path, root, hedging=True)
    read_on_the_loop(first)
    assert any(g.type == "hedging" for s in first.keeper.live.fold.segments.values() for g in s.signals)
    assert first.keeper.checkpoint()
    first.shutdown()
    first.keeper.store.close()
    for path in sorted(root.rglob("*.jsonl")):
        path.rename(path.with_name("0" + path.name))
    again = parts_with(tmp_path, root, hedging=False)
    read_on_the_loop(again)
    again.history.end()
    fresh = parts_with(tmp_path / "fresh", root, hedging=False)
    read_on_the_loop(fresh)
    assert figures(again)["skills"] == figures(fresh)["skills"]
    assert not any(g.type == "hedging" for s in again.keeper.live.fold.segments.values() for g in s.signals)
