"""Memory does not grow with the segments of the window: the daemon's book keeps summaries in its
state store once they are saved and closed (issue 12, item 9).

Before, every summary of the window and retention stayed in memory (about 2 KB each; a soak at 50
records a second grew 0.7 MB a minute without a plateau). The figures must not change with where a
summary lives: each test compares the daemon's answers with a fold that holds everything in memory.
"""

from __future__ import annotations

import gc
import random
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import pytest

from omkd.config import Config
from omkd.daemon.parts import Parts
from omkd.daemon.reader import READ_STEP
from omkd.daemon.state.store import Checkpoint, StateStore
from omkd.daemon.stored_segments import StoredSegments
from omkd.engine.fold import Fold
from omkd.engine.records import to_data
from omkd.engine.report.build import build_report
from omkd.engine.report.gaps import count_gaps
from omkd.engine.segment_book import SegmentBook
from omkd.engine.signals import Signal
from omkd.engine.summary import SegmentSummary
from omkd.engine.window import Window
from omkd.shell.scan import discover, scan
from omkd.testing import ManualClock
from tests import claude_lines as cl
from tests.live_helpers import OUTCOMES, append, segment

FILES: Final = 6
SKILLS: Final = ("deploy", "review", "db-migrate")
HOUR: Final = 3600.0


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def config_of(tmp_path: Path) -> Config:
    return Config.model_validate(
        {
            "sources": {"roots": [str(tmp_path / "projects")], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "window": {"length": "2d", "retention": "30d"},
        }
    )


def write_sessions(root: Path, segments: int, now: float, seed: int = 7) -> list[Path]:
    """``FILES`` sessions of ``segments`` segments in all, spread over the last five days (some
    outside the two-day window), every third one with a gap."""
    chosen = random.Random(seed)  # noqa: S311 (reproducible test data)
    paths = [root / "-home-dev-shop" / f"{n:08d}-1111-4222-8333-944455556666.jsonl" for n in range(FILES)]
    for n in range(segments):
        when = now - 5 * 24 * HOUR + n * (5 * 24 * HOUR / segments)
        records = segment(chosen.choice(SKILLS), chosen.choice(OUTCOMES), iso(when))
        append(paths[n % FILES], cl.jsonl(records))
    return paths


def read_everything(parts: Parts) -> None:
    for file in list(parts.reader.tailer.files.values()) or parts.reader.rescan():
        while parts.reader.feed(file, READ_STEP):
            pass
    parts.reader.rescan()


def without(record: object, names: frozenset[str]) -> dict[str, Any]:
    return {key: value for key, value in to_data(record).items() if key not in names}


def figures(fold: Fold) -> dict[str, Any]:
    report = build_report(fold, ["/roots"], gap_limit=None)
    return {
        "overall": without(report.overall, frozenset({"open_segments"})),
        "skills": [without(s, frozenset({"open_segments"})) for s in report.skills],
        "gaps": [without(g, frozenset({"stream", "file"})) for g in report.gaps],
        "top": to_data(report.top_failed_searches),
        "outside": fold.outside_window,
        "newest outside": report.pipeline.newest_outside_window,
    }


def in_memory_fold(root: Path, window: Window) -> Fold:
    """The same files read by ``omkd scan``'s fold, which holds every summary in memory."""
    fold = scan(discover([root]), window)
    assert isinstance(fold.segments, SegmentBook)
    assert not isinstance(fold.segments, StoredSegments)
    return fold


def test_saved_closed_summaries_leave_memory_and_the_figures_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = time.time()
    write_sessions(tmp_path / "projects", 300, now)
    config, clock = config_of(tmp_path), ManualClock(wall=now)
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    read_everything(parts)
    book = parts.keeper.live.fold.segments
    assert isinstance(book, StoredSegments)
    assert parts.keeper.checkpoint()
    everything = in_memory_fold(tmp_path / "projects", parts.keeper.live.fold.window)
    assert len(book) == len(everything.segments) > 200
    assert book.in_memory <= FILES  # the open segment of each stream, nothing else
    expected = figures(everything)
    assert figures(parts.keeper.live.fold) == expected
    assert expected["outside"] > 0
    assert expected["gaps"]

    # /metrics counts open segments at every rebuild: from memory, never a read of the store
    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("open segments read from the store")

    monkeypatch.setattr(store, "segments", refused)
    assert len(list(parts.keeper.live.fold.open_in_window())) <= FILES
    monkeypatch.undo()

    # a restart takes back the counts, not the summaries
    parts.shutdown()
    store.close()
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    book = parts.keeper.live.fold.segments
    assert isinstance(book, StoredSegments)
    assert len(book) == len(everything.segments)
    assert book.in_memory <= FILES
    assert figures(parts.keeper.live.fold) == expected

    # a day later: the window moved, read back from the store, and what left it is not counted
    clock.wall = now + 24 * HOUR
    parts.keeper.live.advance(clock.time())
    later = figures(in_memory_fold(tmp_path / "projects", parts.keeper.live.fold.window))
    assert later != expected
    assert figures(parts.keeper.live.fold) == later
    parts.shutdown()
    store.close()


def test_memory_held_per_segment_is_small(tmp_path: Path) -> None:
    """Measured by tracemalloc over 600 segments read and saved after a warm-up of 300: what stays
    allocated per segment. Every summary in memory held ~2,000 B; the book holds none of them."""
    now = time.time()
    root = tmp_path / "projects"
    config, clock = config_of(tmp_path), ManualClock(wall=now)
    store = StateStore(config.state_dir())
    parts = Parts.open(config, store, store.open(), clock)
    write_sessions(root, 300, now - 12 * HOUR, seed=1)
    read_everything(parts)
    assert parts.keeper.checkpoint()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for step in range(6):
            write_sessions(root, 100, now - 6 * HOUR + step * 60, seed=10 + step)
            read_everything(parts)
            assert parts.keeper.checkpoint()
        gc.collect()
        grown = sum(d.size_diff for d in tracemalloc.take_snapshot().compare_to(before, "filename"))
    finally:
        tracemalloc.stop()
    assert len(parts.keeper.live.fold.segments) > 600
    assert grown / 600 < 600, f"{grown / 600:.0f} B held per segment"
    parts.shutdown()
    store.close()


def summary(
    key: str, first: float | None, last: float | None, open_: bool, signals: int, skill: str = "deploy"
) -> SegmentSummary:
    return SegmentSummary(
        key=key, stream=f"/p/{key[:2]}.jsonl", role="main", skill=skill, session_id="s", cwd="/p",
        first_ts=first, last_ts=last, assistant_parts=1, turns=1, tool_calls=signals, tool_answered=signals,
        tool_failures=0, tool_cancelled=0, tokens=(1, 2, 3, 4),
        signals=tuple(Signal("failed_search", 1, first, f"Glob {key} -> No files found", {"tool": "Glob"}, 3)
                      for _ in range(signals)),
        accessed=frozenset(), open=open_,
    )  # fmt: skip


def save_changed(store: StateStore, book: StoredSegments, changed: set[str]) -> None:
    """A checkpoint of the segments ``changed`` since the last one (put or popped), then forgotten."""
    store.save(Checkpoint(
        segments=[s for k in changed if (s := book.get(k)) is not None],
        forgotten_segments=[k for k in changed if book.get(k) is None],
    ))  # fmt: skip
    book.checkpointed()
    changed.clear()


def test_the_stored_book_answers_as_the_book_in_memory(tmp_path: Path) -> None:
    """Random puts, pops, checkpoints and window moves: the store-backed book and a book in memory
    give the same summaries to every question the fold asks."""
    chosen = random.Random(12)  # noqa: S311 (reproducible test data)
    store = StateStore(tmp_path / "state")
    store.open()
    stored, plain = StoredSegments(store), SegmentBook()
    changed: set[str] = set()
    since: float | None = 100.0
    for step in range(3000):
        key = f"k{chosen.randrange(120):03d}"
        action = chosen.random()
        if action < 0.6:
            first = chosen.choice([None, *range(0, 400, 7)])
            last = None if first is None else first + chosen.randrange(50)
            new = summary(key, None if first is None else float(first), None if last is None else float(last),
                          chosen.random() < 0.3, chosen.randrange(3), chosen.choice(["deploy", "review"]))  # fmt: skip
            old_stored, old_plain = stored.get(key), plain.get(key)
            assert old_stored == old_plain
            stored.put(new, old_stored)
            plain.put(new, old_plain)
            changed.add(key)
        elif action < 0.7:
            assert stored.pop(key) == plain.pop(key)
            changed.add(key)
        elif action < 0.8:
            save_changed(store, stored, changed)
        elif action < 0.85 and since is not None:
            before = since + chosen.randrange(40)
            left = sorted(s.key for s in stored.leaving(since, before))
            assert left == sorted(s.key for s in plain.leaving(since, before))
            since = before
        window = Window(since=since, until=None if chosen.random() < 0.5 else 300.0)
        assert len(stored) == len(plain)
        assert sorted(s.key for s in stored.inside(window)) == sorted(s.key for s in plain.inside(window))
        assert sorted(s.key for s in stored.outside(window)) == sorted(s.key for s in plain.outside(window))
        gapped = sorted(s.key for s in stored.gapped_inside(window))
        assert gapped == sorted(s.key for s in plain.inside(window) if s.signals)
        assert sorted(stored.stale(150.0)) == sorted(plain.stale(150.0))
        if step % 10:
            continue
        skill, kind = chosen.choice([None, "deploy", "review"]), chosen.choice([None, "failed_search", "hedging"])
        since_at = chosen.choice([None, 50.0, 200.0])
        assert stored.count_outside_gaps(window, skill, kind, since_at, None) == count_gaps(
            plain.outside(window), skill, kind, since_at
        )
        assert sorted(s.key for s in stored.open_inside(window)) == sorted(s.key for s in plain.open_inside(window))
    assert sorted(s.key for s in stored.values()) == sorted(s.key for s in plain.values())
    store.close()


def test_the_stored_gap_count_cuts_at_the_millisecond_iso_writes(tmp_path: Path) -> None:
    """Found by a review: ``since`` near a millisecond boundary (``parse_moment`` of an age is finer
    than one) made the store's count round where ``report.iso`` does not."""
    store = StateStore(tmp_path / "state")
    store.open()
    stored = StoredSegments(store)
    saved = [
        summary("ka", 1643681317.198, 1643681318.0, False, 1),
        summary("kb", 1643681317.1989994, 1643681318.0, False, 1),
    ]
    store.save(Checkpoint(segments=saved))
    window = Window(since=1_900_000_000.0)
    for since_at in (1643681317.1989994, 1643681317.199, 1643681317.198, 1643681317.1979995):
        assert stored.count_outside_gaps(window, None, None, since_at, None) == count_gaps(saved, None, None, since_at)
    store.close()


def test_a_saved_summary_that_is_not_json_is_skipped_by_the_stored_gap_count(tmp_path: Path) -> None:
    """A row of the store that starts as JSON but is not (a torn or edited state file) is left out
    of the count and of the gaps, as reading the summaries back leaves it out: the other rows
    still count."""
    store = StateStore(tmp_path / "state")
    store.open()
    stored = StoredSegments(store)
    saved = [summary("ka", 100.0, 110.0, False, 2), summary("kb", 120.0, 130.0, False, 1)]
    store.save(Checkpoint(segments=saved))
    assert store._db is not None
    store._db.execute("UPDATE segments SET summary = ? WHERE key = 'kb'", (b'{"key": "kb", "signals": [',))
    window = Window(since=1_900_000_000.0)
    readable = [s for s in store.segments() if s is not None]
    assert [s.key for s in readable] == ["ka"]
    assert [s.key for s in stored.gapped_inside(Window())] == ["ka"]
    for skill, kind in ((None, None), ("deploy", None), (None, "failed_search")):
        assert stored.count_outside_gaps(window, skill, kind, None, None) == count_gaps(readable, skill, kind, None)
    store.close()
