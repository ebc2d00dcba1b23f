"""The all-time counters of spec §8's provisional figures count a segment once it is settled
(``engine/settle.py``): closed, or idle for ``segments.idle_close``. An open segment's outcome is
decided as the stream's end where it was read to would decide it, so a ``dropped`` read now may be a
``recovered`` after the next read: counted at once, it would stay under both (a counter never falls).

The engine's rule on hand-made summaries (their tallies set by hand), then the daemon's parts: a
restart between settling and the checkpoint counts a segment once.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import pytest

from omkd.config import Config
from omkd.daemon.chores import WINDOW_EVERY, Chores
from omkd.daemon.exporter import Exporter
from omkd.daemon.knowledge import KnowledgeView
from omkd.daemon.parts import Parts
from omkd.daemon.state.store import StateStore
from omkd.engine.labels import CappedLabels
from omkd.engine.live import LiveFold
from omkd.engine.settle import SETTLED, CountedBook
from omkd.engine.summary import SegmentSummary
from omkd.testing import ManualClock
from tests import claude_lines as cl
from tests.live_helpers import append, segment
from tests.metacog_helpers import glob_miss, read_hit, summaries
from tests.test_history_reread import older_omkd

T0: Final = 1_767_225_600.0
DAY: Final = 86_400.0
DROPPED: Final = {
    "lookup_gap_segments": 1,
    "outcome_dropped": 1,
    "open_gap_segments": 1,
    "episodes_failed_search_dropped": 1,
}
RECOVERED: Final = {"lookup_gap_segments": 1, "outcome_recovered": 1, "episodes_failed_search_recovered": 1}
BASE: Final = summaries(cl.jsonl([cl.user("style it"), *glob_miss("t1", "**/spotter.css", "m1")]))[0]


def summary(tallies: dict[str, int], last: float, *, open_: bool = True, key: str = "k1") -> SegmentSummary:
    return dataclasses.replace(
        BASE, key=key, open=open_, first_ts=T0, last_ts=last, tallies=tuple(sorted(tallies.items()))
    )


def live_fold(book: CountedBook | None = None) -> LiveFold:
    return LiveFold(DAY, 30 * DAY, 30, T0, counted=book)


def settled_counts(live: LiveFold) -> dict[str, int]:
    counters = live.counters[BASE.row]
    return {name: int(value) for name, _ in SETTLED if (value := counters.figure(name))}


@pytest.mark.engine
def test_the_settled_figures_are_exactly_the_ones_an_outcome_can_revise() -> None:
    assert {name for name, _ in SETTLED} == {
        "lookup_gap_segments",
        "outcome_recovered",
        "outcome_created",
        "outcome_asked",
        "outcome_dropped",
        "outcome_proceeded",
        "open_gap_segments",
        "asked_at_gap_segments",
        *(f"episodes_{a}_{o}" for a in ("failed_search", "hedging") for o in ("recovered", "created", "asked",
                                                                               "dropped", "proceeded")),
    }  # fmt: skip


@pytest.mark.engine
def test_an_outcome_revised_before_the_segment_settles_is_counted_once_as_revised() -> None:
    live = live_fold()
    live.apply(summary(DROPPED, T0 + 10))
    live.settle_idle(T0)  # its last record is newer: not idle
    assert settled_counts(live) == {}
    assert live.counters[BASE.row].tool_calls == BASE.tool_calls > 0  # the other figures at once
    live.apply(summary(RECOVERED, T0 + 20))
    live.apply(summary(RECOVERED, T0 + 20, open_=False))  # a later segment began: closed
    assert settled_counts(live) == RECOVERED
    assert live.counters[BASE.row].tool_calls == BASE.tool_calls


@pytest.mark.engine
def test_an_idle_segment_settles_and_counts_only_its_growth_afterwards() -> None:
    live = live_fold()
    live.apply(summary(DROPPED, T0 + 10))
    live.settle_idle(T0 + 11)
    assert settled_counts(live) == DROPPED
    live.settle_idle(T0 + 12)  # settled once
    assert settled_counts(live) == DROPPED
    grown = {**DROPPED, "episodes_failed_search_dropped": 3}  # its file appended after the pause
    live.apply(summary(grown, T0 + 100))
    assert settled_counts(live) == DROPPED  # open again, and not idle: it waits
    live.settle_idle(T0 + 101)
    assert settled_counts(live) == grown
    live.apply(summary(grown, T0 + 100, open_=False))  # closed as counted: nothing more
    assert settled_counts(live) == grown


@pytest.mark.engine
def test_an_outcome_revised_after_settling_stays_where_it_was_counted() -> None:
    """Settled idle as dropped; its file is appended after the pause and the miss is found: recovered.
    A counter cannot take the dropped back, so the segment (and its anchor) stays counted as dropped:
    the five outcomes still sum to the lookup-gap segments. A second anchor found later adds itself."""
    live = live_fold()
    live.apply(summary(DROPPED, T0 + 10))
    live.settle_idle(T0 + 11)
    live.apply(summary(RECOVERED, T0 + 100, open_=False))
    assert settled_counts(live) == DROPPED
    two = {**RECOVERED, "episodes_failed_search_recovered": 2}
    live.apply(summary(two, T0 + 200, open_=False))
    assert settled_counts(live) == {**DROPPED, "episodes_failed_search_recovered": 1}
    counters = live.counters[BASE.row]
    outcomes = sum(counters.figure(f"outcome_{o}") for o in ("recovered", "created", "asked", "dropped", "proceeded"))
    assert outcomes == counters.figure("lookup_gap_segments") == 1


@pytest.mark.engine
def test_a_restored_fold_does_not_count_twice_and_counts_what_was_never_settled() -> None:
    first = live_fold()
    closed = summary(DROPPED, T0 + 10, open_=False, key="closed")
    idle = summary(RECOVERED, T0 + 10, key="idle")
    waiting = summary(DROPPED, T0 + 50, key="waiting")
    for each in (closed, idle, waiting):
        first.apply(each)
    first.settle_idle(T0 + 20)  # ``idle`` settles; ``waiting`` does not yet
    counted = {name: DROPPED.get(name, 0) + RECOVERED.get(name, 0) for name in {*DROPPED, *RECOVERED}}
    assert settled_counts(first) == counted
    book = CountedBook()  # what a checkpoint saved
    for key, value in first.settler.book.changes().items():
        book.put(key, value)
    book.checkpointed()
    again = live_fold(book)
    again.restore([closed, idle, waiting], {k: dataclasses.replace(c) for k, c in first.counters.items()}, {})
    again.settle_idle(T0 + 60)  # ``idle`` is counted already; ``waiting`` settles now
    again.apply(closed)  # a stream read again from its start hands its segments out again
    again.apply(dataclasses.replace(idle, open=False))
    assert settled_counts(again) == {name: value + DROPPED.get(name, 0) for name, value in counted.items()}


@pytest.mark.engine
def test_a_stream_read_again_from_its_start_does_not_count_its_settled_figures_twice() -> None:
    live = live_fold()
    live.apply(summary(DROPPED, T0 + 10, open_=False))
    live.recount(T0, ["session.jsonl"])
    live.apply(summary({"lookup_gap_segments": 1}, T0 + 5))  # the new reading's first, smaller summary
    live.apply(summary(DROPPED, T0 + 10, open_=False))
    live.end_recount()
    live.settle_idle(T0 + 100)
    assert settled_counts(live) == DROPPED


@pytest.mark.engine
def test_a_forgotten_segment_forgets_what_was_counted_of_it() -> None:
    live = live_fold()
    live.apply(summary(DROPPED, T0 + 10, open_=False))
    assert live.settler.book.get("k1") is not None
    live.prune(T0 + 40 * DAY)
    assert live.settler.book.get("k1") is None
    assert live.settler.book.changes() == {"k1": None}


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def stamped(records: list[cl.Record], seconds: float) -> bytes:
    for record in records:
        record["timestamp"] = iso(seconds)
    return cl.jsonl(records)


def open_parts(config: Config, clock: ManualClock) -> tuple[Parts, StateStore]:
    store = StateStore(config.state_dir())
    return Parts.open(config, store, store.open(), clock), store


def read_all(parts: Parts) -> None:
    for file in parts.reader.rescan() or list(parts.reader.tailer.files.values()):
        while parts.reader.feed(file, 1 << 20):
            pass


@pytest.mark.parametrize("checkpoint_after_settling", [False, True])
def test_a_restart_after_a_segment_settled_counts_it_once(tmp_path: Path, checkpoint_after_settling: bool) -> None:
    """Read a miss, then the read that finds it (recovered, provisional); the segment goes idle and
    settles. The daemon stops before (a kill -9) or after the checkpoint that saves it, and starts
    again: recovered once, dropped never."""
    now = time.time()
    config = Config.model_validate(
        {
            "sources": {"roots": [str(tmp_path / "projects")], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "segments": {"idle_close": "60s"},
        }
    )
    clock = ManualClock(wall=now)
    target = tmp_path / "projects" / "-p" / "s.jsonl"
    append(target, stamped([cl.user("style it"), *glob_miss("t1", "**/spotter.css", "m1")], now))
    parts, store = open_parts(config, clock)
    read_all(parts)
    assert parts.keeper.checkpoint()
    append(target, stamped(read_hit("t2", f"{cl.CWD}/priv/static/assets/spotter.css", "m2"), now + 1))
    read_all(parts)
    live = parts.keeper.live
    row = next(iter(live.counters))
    assert (live.counters[row].lookup_gap_segments, live.counters[row].outcome_recovered) == (0, 0)
    assert parts.keeper.checkpoint()
    clock.advance(120)
    parts.keeper.settle()
    assert (live.counters[row].outcome_recovered, live.counters[row].outcome_dropped) == (1, 0)
    if checkpoint_after_settling:
        assert parts.keeper.checkpoint()
    parts.reader.tailer.close_all()
    store.close()  # no final checkpoint: what was not saved is lost, as in a kill -9

    parts, store = open_parts(config, clock)
    read_all(parts)
    parts.keeper.settle()
    assert parts.keeper.checkpoint()
    counters = parts.keeper.exported_counters[row]
    assert (counters.lookup_gap_segments, counters.outcome_recovered, counters.outcome_dropped) == (1, 1, 0)
    parts.shutdown()
    store.close()


def settled_totals(parts: Parts) -> dict[str, int]:
    totals: dict[str, int] = {}
    for counters in parts.keeper.exported_counters.values():
        for name, _ in SETTLED:
            if value := int(counters.figure(name)):
                totals[name] = totals.get(name, 0) + value
    return totals


def test_a_state_written_before_settling_loads_and_counts_nothing_twice(tmp_path: Path) -> None:
    """An older omkd kept no ``counted`` table: it counted a segment's §8 figures as it read them.
    Its state loads (the table made, filled from the saved summaries), and reading the history again
    (the state is another omkd's) counts neither the closed segment nor the idle open one again."""
    config = Config.model_validate(
        {
            "sources": {"roots": [str(tmp_path / "projects")], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
        }
    )
    clock = ManualClock(wall=time.time())
    ts = iso(clock.time() - 3600)  # idle (segments.idle_close: 30 minutes)
    append(
        tmp_path / "projects" / "-p" / "s.jsonl",
        cl.jsonl([*segment("deploy", "miss", ts), *segment("lint", "miss", ts)]),
    )
    seen = []
    for step in range(2):
        if step:
            with sqlite3.connect(config.state_dir() / "state.db") as db:
                db.execute("DROP TABLE counted")
            older_omkd(config)
        parts, store = open_parts(config, clock)
        assert parts.history.recounting == bool(step)
        read_all(parts)
        parts.history.end()
        parts.keeper.settle()
        assert parts.keeper.checkpoint()
        seen.append(settled_totals(parts))
        parts.shutdown()
        store.close()
    assert seen[0]["episodes_failed_search_dropped"] == 2  # both segments counted (the open one idle)
    assert seen[1] == seen[0]


def test_a_segment_settles_only_once_what_is_on_disk_is_read(tmp_path: Path) -> None:
    """The daemon stops after reading a miss (provisional: dropped); the read that finds it is written
    while it is down, and a restart comes after ``segments.idle_close``. The segment's last record
    read is old, but its stream holds more: the chores settle nothing while the history is read
    (replaying), then settle it as recovered once it is caught up."""
    config = Config.model_validate(
        {
            "sources": {"roots": [str(tmp_path / "projects")], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "segments": {"idle_close": "60s"},
        }
    )
    clock = ManualClock(wall=time.time())
    target = tmp_path / "projects" / "-p" / "s.jsonl"
    append(target, stamped([cl.user("style it"), *glob_miss("t1", "**/spotter.css", "m1")], clock.time()))
    parts, store = open_parts(config, clock)
    read_all(parts)
    parts.shutdown()
    store.close()
    append(target, stamped(read_hit("t2", f"{cl.CWD}/priv/static/assets/spotter.css", "m2"), clock.time() + 1))
    clock.advance(120)
    parts, store = open_parts(config, clock)
    chores = Chores(parts, KnowledgeView(config, clock), Exporter(CappedLabels(10), clock, 1.0), clock)
    clock.advance(WINDOW_EVERY)
    chores.run([], replaying=True)  # not caught up yet
    counters = next(iter(parts.keeper.live.counters.values()))
    assert counters.lookup_gap_segments == 0
    read_all(parts)
    chores.give_up_waiting()  # what the daemon does once caught up
    assert (counters.lookup_gap_segments, counters.outcome_recovered, counters.outcome_dropped) == (1, 1, 0)
    parts.shutdown()
    store.close()


@pytest.mark.engine
def test_a_renamed_file_keeps_what_was_counted_of_its_segments() -> None:
    """A file renamed after its segment settled (``LiveFold.rename``: a segment keyed by the file's
    name takes the new name) keeps what was counted under its new key: grown later, only the growth
    counts; and a segment still waiting settles under its new key."""
    live = live_fold()
    first = summary(DROPPED, T0 + 10, key="s|old.jsonl|0")
    first = dataclasses.replace(first, stream="old.jsonl")
    waiting = dataclasses.replace(summary(RECOVERED, T0 + 50, key="s|old.jsonl|1"), stream="old.jsonl")
    live.apply(first)
    live.apply(waiting)
    live.settle_idle(T0 + 11)
    assert settled_counts(live) == DROPPED
    live.rename("old.jsonl", "new.jsonl", "old.jsonl")
    grown = {**DROPPED, "episodes_failed_search_dropped": 2}
    live.apply(
        dataclasses.replace(
            first, key="s|new.jsonl|0", stream="new.jsonl", tallies=tuple(sorted(grown.items())), open=False
        )
    )
    assert settled_counts(live)["episodes_failed_search_dropped"] == 2
    live.settle_idle(T0 + 60)
    assert settled_counts(live) == {name: grown.get(name, 0) + RECOVERED.get(name, 0) for name in {*grown, *RECOVERED}}
