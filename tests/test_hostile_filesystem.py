"""File-system events that must neither lose a line nor count one twice (issue 12, items 5, 6, 8).

Real files, real renames and deletes; the daemon as a subprocess where the behaviour is the
daemon's (SIGTERM, restart), the reader and keeper (``Parts``) on a manual clock where a condition
cannot be made otherwise (an inode number handed to a new file, a permission error met by root).
"""

from __future__ import annotations

import asyncio
import errno
import os
from pathlib import Path
from typing import Any, Final

import pytest

from omkd.daemon.identity import digest
from omkd.daemon.keeper import CHECKPOINT_SEGMENTS
from omkd.daemon.parts import Parts
from omkd.daemon.reader import DRAIN_STEP, FEED_STEP
from omkd.daemon.restore import plan_restore
from omkd.daemon.scheduler import READ_BUDGET, READ_SLICE_SECONDS, ReadScheduler
from omkd.daemon.state.store import FileCheckpoint, StateStore
from omkd.daemon.tailer import Tailer
from omkd.daemon.tracked import TrackedFile
from omkd.testing import DaemonProcess, ManualClock
from tests import claude_lines as cl
from tests.live_helpers import append, segment, session_bytes, wait_lines
from tests.test_lifecycle import START, config_of, read_all

SESSION_FILE: Final = "-home-dev-shop/0b3c4d5e-1111-4222-8333-944455556666.jsonl"
PLAN: Final = [("deploy", "miss"), ("deploy", "hit"), ("lint", "miss"), ("lint", "hit")]


def lines_of(data: bytes) -> int:
    return data.count(b"\n")


def more(first_minute: int) -> bytes:
    return session_bytes(PLAN, first_minute=first_minute)


def test_sigterm_reads_what_was_appended_to_a_file_just_deleted(tmp_path: Path) -> None:
    """Lines appended to a followed file, the file deleted, SIGTERM at once: the shutdown drains
    the file through its descriptor before the final checkpoint, so a restart has every line."""
    root = tmp_path / "projects"
    path = root / SESSION_FILE
    first = more(0)
    append(path, first)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        wait_lines(daemon, lines_of(first))
        late = b"".join(more(10 + 4 * n) for n in range(12))
        with path.open("ab") as handle:
            handle.write(late)
        path.unlink()
        assert daemon.stop() == 0
        daemon.start()
        wait_lines(daemon, lines_of(first) + lines_of(late))
        assert daemon.stop() == 0


def test_a_file_moved_into_a_subdirectory_while_stopped_is_not_read_twice(tmp_path: Path) -> None:
    """Renamed into a subdirectory of its project while omkd was down, then appended to: found by
    its identity anywhere below the roots and read on from its saved offset."""
    root = tmp_path / "projects"
    path = root / SESSION_FILE
    first, later = more(0), more(20)
    append(path, first)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        wait_lines(daemon, lines_of(first))
        assert daemon.stop() == 0
        moved = path.parent / "archive" / path.name
        moved.parent.mkdir()
        path.rename(moved)
        append(moved, later)
        daemon.start()
        samples = wait_lines(daemon, lines_of(first) + lines_of(later))
        assert samples["omkd_lines_total"] == lines_of(first) + lines_of(later)
        assert daemon.stop() == 0


def test_an_inode_number_reused_by_a_new_file_is_a_new_file(tmp_path: Path) -> None:
    """An empty followed file, no descriptor held: the inode number alone identifies it, and the
    kernel may give that number to the next new file anywhere (any name). Such a file is not taken
    for the empty one's continuation: a rescan starts it as a new stream, a poke does not adopt it."""
    root = tmp_path / "projects"
    newcomer = root / "p" / "other.jsonl"
    append(newcomer, more(0))
    info = os.stat(newcomer)
    tailer = Tailer([root], 8)
    empty = TrackedFile("old-empty", str(root / "p" / "gone.jsonl"), info.st_dev, info.st_ino)
    tailer.track(empty)
    assert tailer.poke(str(newcomer)) is None
    result = tailer.rescan()
    assert [f.path for f in result.started] == [str(newcomer)]
    assert [(e.file.stream_id, e.reason.value) for e in result.ended] == [("old-empty", "vanished")]
    tailer.close_all()


def test_an_inode_number_reused_while_stopped_by_a_new_file_is_a_new_file(tmp_path: Path) -> None:
    """The same at a restart: a checkpoint names a file nothing was read from (a sub-agent's, here),
    and a new file elsewhere below the roots has its inode number. Found by the wide run of the
    tailer model: restore took the new file for the saved one renamed and read it on as the sub-agent
    stream, whose segments then waited for a link for ever. It is another file: the saved stream
    ends, the rescan starts the new file as a stream of its own."""
    root = tmp_path / "projects"
    newcomer = root / "p" / "other.jsonl"
    append(newcomer, more(0))
    info = os.stat(newcomer)
    tailer = Tailer([root], 8)
    gone = str(root / "p" / "s" / "subagents" / "agent-a1.jsonl")
    saved = FileCheckpoint("old-empty", gone, info.st_dev, info.st_ino, 0, digest(b""), 0, digest(b""))
    plan = plan_restore(tailer, [saved])
    assert (plan.restored, plan.moved, [why for _, why in plan.ended]) == (0, [], ["its file is gone"])
    assert [f.path for f in tailer.rescan().started] == [str(newcomer)]
    tailer.close_all()


@pytest.fixture
def denied(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Paths whose ``os.open`` fails with EACCES (root ignores file modes, so chmod cannot)."""
    paths: set[str] = set()
    real_open = os.open

    def refusing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) in paths:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)
    return paths


def test_a_file_unreadable_at_restart_is_read_on_later_not_again(tmp_path: Path, denied: set[str]) -> None:
    """A followed file that cannot be opened when omkd starts again (a permission changed for a
    while) keeps its saved offset: counted as an error, and read on from there once readable."""
    path = tmp_path / "projects" / SESSION_FILE
    first, later = more(0), more(20)
    append(path, first)
    config = config_of(tmp_path, window="3650d")
    clock = ManualClock(wall=START)
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    read_all(parts)
    parts.shutdown()
    store.close()

    denied.add(str(path))
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    read_all(parts)
    assert parts.keeper.pipeline.lines == lines_of(first)
    assert parts.stats.errors["restore.EACCES"] == 1

    denied.clear()
    append(path, later)
    read_all(parts)
    assert parts.keeper.pipeline.lines == lines_of(first) + lines_of(later)
    parts.shutdown()
    store.close()


def test_a_large_rotated_file_is_drained_a_step_at_a_time(tmp_path: Path) -> None:
    """A file rotated out of the roots before it was read is drained through its descriptor in
    steps of DRAIN_STEP, each handed back to the scheduler, and ended once read to its end."""
    path = tmp_path / "projects" / SESSION_FILE
    chunk = more(0)
    copies = DRAIN_STEP // len(chunk) * 2 + 1
    config = config_of(tmp_path, window="3650d")
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), ManualClock(wall=START))
    append(path, chunk)
    read_all(parts)
    file = next(iter(parts.reader.tailer.files.values()))
    with path.open("ab") as handle:
        handle.write(chunk * copies)
    path.rename(tmp_path / "rotated-out.jsonl")
    steps = 0
    ready = parts.reader.rescan()
    while ready:
        steps += 1
        assert [f.stream_id for f in ready] == [file.stream_id]
        assert file.stream_id in parts.reader.draining
        read = parts.reader.feed(file, DRAIN_STEP)
        ready = [file] if read >= DRAIN_STEP else []
        if not ready:
            parts.reader.drained(file)
    assert (steps >= 2, parts.reader.draining, parts.reader.tailer.files) == (True, {}, {})
    assert parts.keeper.pipeline.lines == lines_of(chunk) * (copies + 1)
    parts.shutdown()
    store.close()


def test_the_descriptor_cap_never_closes_the_only_way_to_a_deleted_file(tmp_path: Path) -> None:
    """Lines appended to a followed file, the file deleted, then other files read (as inotify events
    make it) before a rescan notices: with the cap at two descriptors, the least recently read one
    was closed — the deleted file's, and its last lines were lost. A descriptor whose path no longer
    names its file is kept."""
    root = tmp_path / "projects"
    gone, others = root / SESSION_FILE, [root / "-home-dev-api" / f"s{n}.jsonl" for n in range(2)]
    base = config_of(tmp_path, window="3650d")
    config = base.model_copy(update={"tail": base.tail.model_copy(update={"max_open_files": 2})})
    store = StateStore(config.state_dir())
    clock = ManualClock(wall=START)
    parts = Parts.open(config, store, store.open(), clock)
    written = b""
    for n, path in enumerate([*others, gone]):
        data = more(5 * n)
        append(path, data)
        written += data
    files = {}
    for file in sorted(parts.reader.rescan(), key=lambda f: f.path == str(gone)):  # the doomed file last
        files[file.path] = file
        while parts.reader.feed(file, 1 << 20):
            pass
    late = more(20)
    append(gone, late)
    gone.unlink()
    for n, path in enumerate(others):
        clock.advance(1)  # read after the deleted file: it is the least recently read
        data = more(30 + 5 * n)
        append(path, data)
        written += data
        files[str(path)].size += len(data)
        while parts.reader.feed(files[str(path)], 1 << 20):
            pass
    assert files[str(gone)].fd is not None
    assert parts.reader.tailer.open_files == 2  # the other one was closed
    # the parser-state cap after a checkpoint evicts the deleted file's stream, not its descriptor
    assert parts.keeper.checkpoint()
    assert parts.reader.evict_excess() == 1
    assert files[str(gone)].fd is not None
    for file in parts.reader.rescan():
        while parts.reader.feed(file, 1 << 20):
            pass
        parts.reader.drained(file)
    assert parts.keeper.pipeline.lines == lines_of(written + late)
    assert (parts.stats.errors, parts.reader.tailer.open_files) == ({}, 1)  # drained and closed


class SteppingClock(ManualClock):
    """Monotonic time moves on by ``step`` each time it is read: a host on which every feed is slow."""

    def __init__(self, step: float) -> None:
        super().__init__(wall=START)
        self.step = step

    def monotonic(self) -> float:
        self.mono += self.step
        return self.mono


@pytest.mark.parametrize(
    ("seconds_per_reading", "bytes_per_step"),
    [(0.0, READ_BUDGET), (READ_SLICE_SECONDS, FEED_STEP)],
    ids=["fast-host", "slow-host"],
)
def test_a_read_step_ends_with_its_time_slice_and_the_drain_goes_on(
    tmp_path: Path, seconds_per_reading: float, bytes_per_step: int
) -> None:
    """A large rotated file drained by the scheduler: a step reads READ_BUDGET where parsing is fast,
    one FEED_STEP where a feed takes the whole READ_SLICE_SECONDS; either way a step cut short by
    the clock does not end the stream, which is read to its end with every line counted once."""
    path = tmp_path / "projects" / SESSION_FILE
    chunk = more(0)
    copies = 3 * READ_BUDGET // len(chunk) + 1
    clock = SteppingClock(seconds_per_reading)
    config = config_of(tmp_path, window="3650d")
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    append(path, chunk)
    read_all(parts)
    with path.open("ab") as handle:
        handle.write(chunk * copies)
    path.rename(tmp_path / "rotated-out.jsonl")
    scheduler = ReadScheduler(parts, clock, asyncio.Event())
    scheduler.ready = {f.stream_id: f for f in parts.reader.rescan()}
    steps: list[int] = []

    async def drain() -> None:
        while scheduler.ready:
            before = parts.stats.bytes_read
            await scheduler.read_ready(lambda: False)
            steps.append(parts.stats.bytes_read - before)

    asyncio.run(drain())
    assert (set(steps[:-1]), parts.reader.draining, parts.reader.tailer.files) == ({bytes_per_step}, {}, {})
    assert parts.keeper.pipeline.lines == lines_of(chunk) * (copies + 1)
    parts.shutdown()
    store.close()


def test_a_checkpoint_is_due_after_checkpoint_segments_changed(tmp_path: Path) -> None:
    """Many small segments make a checkpoint due by their number, long before state.checkpoint_bytes
    (8 MiB) are read: a checkpoint has at most about CHECKPOINT_SEGMENTS summaries to save."""
    path = tmp_path / "projects" / SESSION_FILE
    config = config_of(tmp_path, window="3650d")
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), ManualClock(wall=START))

    def segments(first: int, count: int) -> bytes:
        return cl.jsonl(
            record
            for n in range(first, first + count)
            for record in segment("deploy", "hit", f"2025-12-31T{n // 60:02d}:{n % 60:02d}:00.000Z")
        )

    append(path, segments(0, CHECKPOINT_SEGMENTS - 1))
    read_all(parts)
    before = (len(parts.keeper.live.changed_segments), parts.keeper.wants_checkpoint())
    append(path, segments(CHECKPOINT_SEGMENTS - 1, 1))
    read_all(parts)
    after = (len(parts.keeper.live.changed_segments), parts.keeper.wants_checkpoint())
    parts.keeper.checkpoint()
    assert (before, after, parts.keeper.wants_checkpoint()) == (
        (CHECKPOINT_SEGMENTS - 1, False),
        (CHECKPOINT_SEGMENTS, True),
        False,
    )
    assert path.stat().st_size < config.state.checkpoint_bytes
    parts.shutdown()
    store.close()
