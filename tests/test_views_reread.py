"""Issue 29, item 2: reading the history again (a longer retention, by SIGHUP or restart) does not
count what was read twice: the status footer's files and records, and /metrics' line and record
counters, stay those of the files on disk. So does a reading from 0 because a saved parser state
could not be loaded (a damaged state store), whether a longer retention or new bytes start it."""

from __future__ import annotations

import signal
import sqlite3
import time
from pathlib import Path

from omkd.config import Config
from omkd.daemon.parts import Parts
from omkd.daemon.reader import FEED_STEP
from omkd.daemon.state.store import StateStore
from omkd.testing import DaemonProcess, ManualClock
from tests import claude_lines as cl
from tests.live_helpers import append, segment
from tests.test_history_reread import config_of, configure, iso_ago, read_everything, settled


def read(daemon: DaemonProcess) -> tuple[int, int, int, float, float]:
    pipeline = daemon.get("/api/v1/status")["pipeline"]
    metrics = daemon.metrics()
    return (
        pipeline["files"],
        pipeline["lines"],
        pipeline["records"],
        metrics["omkd_lines_total"],
        metrics["omkd_records_total"],
    )


def test_a_history_read_again_is_not_counted_twice(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    lines = 0
    for name, age in (("fresh", 2), ("old", 50)):
        data = cl.jsonl(segment(f"skill-{name}", "miss", iso_ago(age)))
        append(root / "-home-dev-shop" / f"{name}.jsonl", data)
        lines += data.count(b"\n")
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.write_config()
        configure(daemon, "7d", "30d")
        daemon.start()
        settled(daemon)
        daemon.wait_for(lambda: daemon.get("/api/v1/status")["pipeline"]["lines"] == lines, "every line read")
        daemon.wait_for(lambda: daemon.metrics().get("omkd_lines_total") == lines, "a checkpoint")
        before = read(daemon)
        assert before[:2] == (2, lines)
        configure(daemon, "400d", "400d")
        assert daemon.process is not None
        daemon.process.send_signal(signal.SIGHUP)
        settled(daemon, "history_reread_done")
        daemon.wait_for(lambda: daemon.metrics().get("omkd_lines_total", 0) >= lines, "a checkpoint")
        assert read(daemon) == before
        assert daemon.stop() == 0, daemon.log_text()
        daemon.start()  # nothing new to read: no checkpoint is written, so no "settled"
        daemon.wait_for(lambda: daemon.metrics().get("omkd_lag_bytes") == 0, "every file read")
        assert read(daemon) == before
        assert daemon.stop() == 0, daemon.log_text()


def damage_parser_states(daemon: DaemonProcess | Path) -> int:
    """Overwrite every saved parser state of a stopped daemon's store (or of the store in a state
    directory) with bytes that do not load; how many there were."""
    state_dir = daemon.state_dir if isinstance(daemon, DaemonProcess) else daemon
    with sqlite3.connect(state_dir / "state.db") as db:
        return db.execute("UPDATE files SET state = ? WHERE state IS NOT NULL", (b"not a parser state",)).rowcount


def test_a_parser_state_that_does_not_load_is_not_counted_twice(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    lines = 0
    files = {}
    for name, age in (("fresh", 2), ("old", 50)):
        data = cl.jsonl(segment(f"skill-{name}", "miss", iso_ago(age)))
        files[name] = root / "-home-dev-shop" / f"{name}.jsonl"
        append(files[name], data)
        lines += data.count(b"\n")
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.write_config()
        configure(daemon, "7d", "30d")
        daemon.start()
        settled(daemon)
        daemon.wait_for(lambda: daemon.metrics().get("omkd_lines_total") == lines, "a checkpoint")
        before = read(daemon)
        assert daemon.stop() == 0, daemon.log_text()
        assert damage_parser_states(daemon) == 2

        # a longer retention at the start reads both files again; neither state loads
        configure(daemon, "400d", "400d")
        daemon.start()
        settled(daemon, "history_reread_done")
        daemon.wait_for(lambda: daemon.metrics().get("omkd_lag_bytes") == 0, "every file read")
        assert read(daemon) == before
        assert daemon.stop() == 0, daemon.log_text()
        assert damage_parser_states(daemon) == 2

        # a file that grows, its state not loading, is read from 0: its old lines count once
        daemon.start()
        more = cl.jsonl(segment("skill-fresh", "hit", iso_ago(1)))
        append(files["fresh"], more)
        grown = lines + more.count(b"\n")
        daemon.wait_for(lambda: daemon.get("/api/v1/status")["pipeline"]["lines"] >= grown, "the new lines read")
        daemon.wait_for(lambda: daemon.metrics().get("omkd_lines_total", 0) >= grown, "a checkpoint")
        after = read(daemon)
        assert after[:3] == (2, grown, before[2] + more.count(b"\n")), daemon.log_text()
        assert after[3:] == (grown, before[4] + more.count(b"\n"))
        assert daemon.stop() == 0, daemon.log_text()


def opened(config: Config) -> tuple[Parts, StateStore]:
    store = StateStore(config.state_dir())
    return Parts.open(config, store, store.open(), ManualClock(wall=time.time())), store


def grown_after_its_state_broke(tmp_path: Path, old: bytes) -> tuple[Config, bytes]:
    """A file ``old`` read to its end by a daemon's parts, its saved parser state then damaged and
    the file grown by ``more``: (the config, ``more``)."""
    path = tmp_path / "projects" / "-home-dev-shop" / "fresh.jsonl"
    append(path, old)
    config = config_of(tmp_path)
    parts, store = opened(config)
    read_everything(parts)
    parts.shutdown()
    store.close()
    assert damage_parser_states(config.state_dir()) == 1
    more = cl.jsonl(segment("skill-fresh", "hit", iso_ago(1)))
    append(path, more)
    return config, more


def test_a_reading_again_from_0_reads_on_past_what_it_takes_back(tmp_path: Path) -> None:
    """A feed shorter than asked is a file's end to its callers (the scheduler drops the file until
    the next rescan; a drain and the shutdown stop there): a grown file read again from 0 because
    its state does not load reads on past the offset where it takes back what was counted."""
    old = cl.jsonl(segment("skill-fresh", "miss", iso_ago(2)))
    config, more = grown_after_its_state_broke(tmp_path, old)
    parts, store = opened(config)
    [file] = parts.reader.tailer.files.values()
    assert parts.reader.feed(file, FEED_STEP) == len(old) + len(more)  # the whole file, not its old part
    assert (parts.keeper.pipeline.lines, parts.keeper.pipeline.bytes) == (
        (old + more).count(b"\n"),
        len(old) + len(more),
    )
    assert parts.reader.feed(file, FEED_STEP) == 0
    parts.shutdown()
    store.close()


def test_a_kill_in_the_middle_of_a_reading_again_does_not_count_its_part_twice(tmp_path: Path) -> None:
    """A file read again from 0 because its state does not load counts its lines once: the offset to
    which the pipeline had counted it (``counted_to``) is saved with a checkpoint taken in the middle
    of that reading, so a kill -9 then and a restart still take back what the new reading counts
    up to there."""
    old = b"".join(cl.jsonl(segment(f"skill-{n}", "miss", iso_ago(2))) for n in range(40))
    config, more = grown_after_its_state_broke(tmp_path, old)
    parts, store = opened(config)
    [file] = parts.reader.tailer.files.values()
    part = len(old) // 3
    assert parts.reader.feed(file, part) >= part  # a third of the old lines read again
    assert parts.keeper.checkpoint()
    store.close()  # killed: no shutdown, only the checkpoint remains
    parts, store = opened(config)
    read_everything(parts)
    assert (parts.keeper.pipeline.lines, parts.keeper.pipeline.bytes) == (
        (old + more).count(b"\n"),
        len(old) + len(more),
    )
    parts.shutdown()
    store.close()
