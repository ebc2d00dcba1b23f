"""The daemon's clock-driven chores and exit requests, in process, on an injected ``ManualClock``.

Time moves only when a test moves it, so each chore is seen to wait for exactly its timer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

from omkd.config import Config
from omkd.daemon.chores import EVICT_EVERY, WINDOW_EVERY, Chores
from omkd.daemon.daemon import Daemon
from omkd.daemon.exporter import REPLAY_SNAPSHOT_INTERVAL, Exporter, TailFigures
from omkd.daemon.knowledge import KnowledgeView
from omkd.daemon.notify import Notifier
from omkd.daemon.parts import Parts
from omkd.daemon.state.store import StateStore
from omkd.engine.labels import CappedLabels
from omkd.engine.timespec import parse_moment
from omkd.testing import ManualClock
from tests.live_helpers import append, session_bytes

SESSION_FILE = "-home-dev-shop/0b3c4d5e-1111-4222-8333-944455556666.jsonl"
# Two segments, at 2026-01-01T00:00 and 00:01 (live_helpers.minute): one Glob miss, one hit.
PLAN = [("deploy", "miss"), ("deploy", "hit")]
START = parse_moment("2026-01-01T00:05:00Z", 0.0)


def config_of(tmp_path: Path, window: str = "1d") -> Config:
    return Config.model_validate(
        {
            "sources": {"roots": [str(tmp_path / "projects")], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "http": {"listen": "127.0.0.1:0"},
            "window": {"length": window, "retention": "30d"},
            "tail": {"idle_after": "5m"},
        }
    )


def read_all(parts: Parts) -> None:
    for file in parts.reader.rescan():
        while parts.reader.feed(file, 1 << 20):
            pass


@contextlib.contextmanager
def reading(tmp_path: Path) -> Iterator[tuple[Parts, Chores, ManualClock]]:
    """The session file read to its end by the daemon's parts (``Parts``) on a manual clock, with its chores."""
    append(tmp_path / "projects" / SESSION_FILE, session_bytes(PLAN))
    clock = ManualClock(wall=START)
    config = config_of(tmp_path)
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    exporter = Exporter(CappedLabels(10), clock, config.metrics.snapshot_interval)
    chores = Chores(parts, KnowledgeView(config, clock), exporter, clock)
    read_all(parts)
    try:
        yield parts, chores, clock
    finally:
        parts.shutdown()
        store.close()


def test_window_moves_only_when_the_injected_clock_does(tmp_path: Path) -> None:
    """Both segments start inside a 1-day window; 2 days later by the clock (and one window tick), none does."""
    with reading(tmp_path) as (parts, chores, clock):
        chores.run([])
        assert parts.keeper.live.fold.overall.segments == 2
        clock.wall += 2 * 86400  # wall time only: the window timer (monotonic) is not due yet
        chores.run([])
        assert parts.keeper.live.fold.overall.segments == 2
        clock.mono += WINDOW_EVERY
        chores.run([])
        assert parts.keeper.live.fold.overall.segments == 0


def test_idle_files_are_evicted_by_the_monotonic_clock(tmp_path: Path) -> None:
    """A read file keeps its parser state until ``tail.idle_after`` (5 min) has passed on the monotonic clock."""
    with reading(tmp_path) as (parts, chores, clock):
        chores.checkpoint()
        clock.advance(EVICT_EVERY)
        chores.run([])
        assert len(parts.reader.streams) == 1  # read 1 minute ago: not idle
        clock.advance(5 * 60)
        chores.run([])
        assert len(parts.reader.streams) == 0


def test_chores_say_when_they_saved_a_checkpoint(tmp_path: Path) -> None:
    """``Chores.run`` is True when it saved a checkpoint (the daemon then yields a millisecond before
    it reads on), False when none was due or nothing had changed."""
    with reading(tmp_path) as (parts, chores, clock):
        not_due = chores.run([])
        clock.advance(parts.keeper.config.state.checkpoint_interval)
        due = chores.run([])
        clock.advance(parts.keeper.config.state.checkpoint_interval)
        nothing_new = chores.run([])
        assert (not_due, due, nothing_new) == (False, True, False)


def test_metrics_are_rebuilt_once_a_second_while_a_backlog_drains(tmp_path: Path) -> None:
    """Once caught up, a snapshot showing ``omkd_replaying`` (a backlog of more than 8 MiB, as a large
    rotated file makes) is followed by the next one REPLAY_SNAPSHOT_INTERVAL later, not 50 ms later;
    one that shows no replay, 50 ms later again. The first one after the first catch-up is not held."""
    with reading(tmp_path) as (parts, _chores, clock):
        exporter = Exporter(CappedLabels(10), clock, snapshot_interval=0.05)
        knowledge = KnowledgeView(parts.keeper.config, clock)

        def rebuilt(after: float, replaying: bool, caught_up: bool = True) -> bool:
            clock.advance(after)
            exporter.dirty = True
            tail = TailFigures(polling=False, replaying=replaying)
            return exporter.rebuild(parts.keeper, knowledge.index, knowledge.bases, lambda: tail, caught_up)

        catching_up = [rebuilt(0.0, True, caught_up=False), rebuilt(0.06, False)]
        draining = [rebuilt(0.06, True), rebuilt(0.06, False), rebuilt(REPLAY_SNAPSHOT_INTERVAL, False)]
        assert (catching_up, draining, rebuilt(0.06, False)) == ([True, True], [True, False, True], True)


def test_a_second_exit_request_forces_the_exit(tmp_path: Path) -> None:
    """The first request asks for a graceful exit, a second one forces it; the state is saved either way."""
    append(tmp_path / "projects" / SESSION_FILE, session_bytes(PLAN))
    config = config_of(tmp_path, window="3650d")

    async def run() -> tuple[bool, bool, bool]:
        daemon = Daemon(config, notifier=Notifier(""))
        await daemon.startup()
        daemon.request_exit()
        first = (daemon.should_exit, daemon.force_exit)
        daemon.request_exit()
        await daemon.main_loop()  # returns at once: should_exit is set
        await daemon.shutdown()
        return (*first, daemon.force_exit)

    assert asyncio.run(run()) == (True, False, True)
    store = StateStore(config.state_dir())
    restored = store.open()
    store.close()
    assert len(restored.files) == 1
