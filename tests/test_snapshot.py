"""A status report and a gap list read across turns of the event loop (``daemon/snapshot.py``) are
of the moment they began, whatever the daemon folds, forgets or saves while they are read."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from omkd.daemon import views as views_module
from omkd.daemon.snapshot import DECODE_STEP, Taken, read_window, take_window
from omkd.daemon.state.store import StateStore
from omkd.daemon.stored_segments import StoredSegments
from omkd.daemon.views import Views
from omkd.engine.counters import PastRetention
from omkd.engine.fold import Fold
from omkd.engine.records import to_data
from omkd.engine.report.build import build_report
from omkd.engine.report.gaps import select_gaps
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.signals import Signal
from omkd.engine.summary import SegmentSummary
from omkd.engine.window import Window
from tests.test_bounded_memory import save_changed, summary

SKILLS = ("deploy", "review", "general")


def _summary(chosen: random.Random, key: str) -> SegmentSummary:
    first = float(chosen.randrange(100, 400))
    plain = summary(key, first, first + chosen.randrange(50), chosen.random() < 0.2, 0, chosen.choice(SKILLS))
    signals = tuple(
        Signal("failed_search", n, first + n, f"Glob {key}-{n} -> No files found", {"tool": "Glob", "pattern": key}, n)
        for n in range(chosen.randrange(3))
    )
    return dataclasses.replace(plain, signals=signals, tool_calls=len(signals), tool_answered=len(signals))


def _report(fold: Fold) -> object:
    return to_data(build_report(fold, ["/r"], gap_limit=None))


def _gaps(fold: Fold) -> object:
    return to_data(select_gaps(fold.in_window(), None, None, None, 10_000))


async def _read_while_folding(fold: Fold, store: StateStore, chosen: random.Random, with_signals: bool) -> Fold:
    """``read_window`` one summary per turn, while another task folds, forgets, saves and moves the
    window between its turns."""
    book = fold.segments
    assert isinstance(book, StoredSegments)
    changed: set[str] = set()
    reading = asyncio.ensure_future(read_window(fold, with_signals=with_signals, step=1))
    turns = 0
    while not reading.done():
        await asyncio.sleep(0)
        turns += 1
        action = chosen.random()
        key = f"k{chosen.randrange(150):03d}"
        if action < 0.5:
            fold.offer(_summary(chosen, key))
            changed.add(key)
        elif action < 0.7:
            fold.forget(key)
            changed.add(key)
        elif action < 0.9:
            save_changed(store, book, changed)
        else:
            fold.advance((fold.window.since or 0.0) + 1.0)
    assert turns > 20, "the read took a few turns: what it must not see happened during them"
    return reading.result()


def _fold_with_saved_and_held(tmp_path: Path, chosen: random.Random) -> tuple[Fold, StateStore]:
    store = StateStore(tmp_path / "state")
    store.open()
    book = StoredSegments(store)
    fold = Fold(Window(since=150.0), book)
    changed: set[str] = set()
    for n in range(120):
        fold.offer(_summary(chosen, f"k{n:03d}"))
        changed.add(f"k{n:03d}")
    save_changed(store, book, changed)
    for n in range(100, 130):  # changed since the checkpoint, and new: in memory
        fold.offer(_summary(chosen, f"k{n:03d}"))
    fold.forget("k005")  # forgotten since: the store still holds it
    return fold, store


def test_a_report_read_across_turns_of_the_loop_is_of_the_moment_it_began(tmp_path: Path) -> None:
    chosen = random.Random(7)  # noqa: S311 (reproducible test data)
    fold, store = _fold_with_saved_and_held(tmp_path, chosen)
    expected = _report(fold)
    snapshot = asyncio.run(_read_while_folding(fold, store, chosen, with_signals=False))
    assert _report(fold) != expected, "the fold moved on meanwhile"
    assert _report(snapshot) == expected
    store.close()


def test_a_gap_list_read_across_turns_of_the_loop_is_of_the_moment_it_began(tmp_path: Path) -> None:
    chosen = random.Random(8)  # noqa: S311 (reproducible test data)
    fold, store = _fold_with_saved_and_held(tmp_path, chosen)
    expected = _gaps(fold)
    assert expected, "the window holds gaps"
    snapshot = asyncio.run(_read_while_folding(fold, store, chosen, with_signals=True))
    assert _gaps(fold) != expected, "the fold moved on meanwhile"
    assert _gaps(snapshot) == expected
    assert all(s.signals for s in snapshot.in_window())
    store.close()


class _Stub:
    """What ``Views.status`` reads of a keeper and of the knowledge files, around a real fold over a
    real state store."""

    def __init__(self, fold: Fold) -> None:
        self.keeper = SimpleNamespace(
            fold=fold, open_after=lambda: 0.0, pipeline=fold.counters, rules=SegmenterRules(), judge="embedded",
            version=1, config=SimpleNamespace(roots=lambda: ["/r"]), past_retention=PastRetention(),
        )  # fmt: skip
        self.knowledge = SimpleNamespace(generation=0, index=None)

    def views(self) -> Views:
        return Views(self.keeper, self.knowledge, bytes)


class _Slow(Taken):
    """A window read that takes a few more turns of the loop than another."""

    async def read(self, step: int = DECODE_STEP) -> Fold:
        for _ in range(10):
            await asyncio.sleep(0)
        return await super().read(step)


def test_status_requests_meanwhile_wait_for_the_report_being_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests for the same moment share one build; one begun for an older moment that ends last
    does not replace the newer report kept."""
    fold, store = _fold_with_saved_and_held(tmp_path, random.Random(9))  # noqa: S311 (reproducible test data)
    daemon = _Stub(fold)
    views = daemon.views()
    taken: list[int] = []

    def counted(fold: Fold, with_signals: bool = False) -> Taken:
        taken.append(daemon.keeper.version)
        window = take_window(fold, with_signals)
        if daemon.keeper.version == 3:  # the older build ends last
            return _Slow(window.fold, window.book, window.rows, window.with_signals)
        return window

    monkeypatch.setattr(views_module, "take_window", counted)

    async def asked() -> None:
        first = await asyncio.gather(*(views.status([]) for _ in range(5)))
        assert taken == [1]
        assert all(report is first[0] for report in first)
        older = asyncio.ensure_future(views.status([]))  # the cache holds version 1: no build
        daemon.keeper.version = 2
        newer = await asyncio.gather(views.status([]), views.status([]))
        assert taken == [1, 2]
        await older
        daemon.keeper.version = 3
        late = asyncio.ensure_future(views.status([]))  # begun for version 3 ...
        await asyncio.sleep(0)
        daemon.keeper.version = 4
        latest = await views.status([])  # ... a build for 4 begins meanwhile
        await late
        assert taken == [1, 2, 3, 4]
        assert views._built is not None
        assert views._built[1] is latest
        assert newer[0] is newer[1]

    asyncio.run(asked())
    store.close()


class _Failing(Taken):
    """A window read that fails (a disk error, say)."""

    async def read(self, step: int = DECODE_STEP) -> Fold:
        await asyncio.sleep(0)
        raise OSError("the read failed")


def test_a_status_report_that_failed_is_built_again_by_the_next_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by a review: a failed build stayed the one under way, so every later request for the
    same moment got its error (and its traceback held the decoded window)."""
    fold, store = _fold_with_saved_and_held(tmp_path, random.Random(10))  # noqa: S311 (reproducible test data)
    views = _Stub(fold).views()
    taken: list[str] = []

    def failing_once(fold: Fold, with_signals: bool = False) -> Taken:
        window = take_window(fold, with_signals)
        taken.append("failing" if not taken else "plain")
        if taken[-1] == "plain":
            return window
        return _Failing(window.fold, window.book, window.rows, window.with_signals)

    monkeypatch.setattr(views_module, "take_window", failing_once)

    async def asked() -> None:
        first = await asyncio.gather(views.status([]), views.status([]), return_exceptions=True)
        assert [type(answer) for answer in first] == [OSError, OSError]
        again = await views.status([])
        assert taken == ["failing", "plain"]
        assert again.watermark.segments == fold.overall.segments

    asyncio.run(asked())
    store.close()
