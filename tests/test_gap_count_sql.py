"""The daemon counts its stored gaps in SQLite; the report selects gaps in Python. One answer.

``/api/v1/gaps`` counts the gaps older than the window without decoding a summary:
``StateStore.count_signals`` (SQLite's JSON functions over the saved summaries), through
``StoredSegments.count_outside_gaps``. Which gaps count is declared once, in Python
(``engine/report/gaps.py``'s ``GapQuery``, applied by ``count_gaps`` and ``select_gaps``): these
properties pin the SQL to it on random summaries and queries — skills, agents, types, a window,
excluded keys, summaries waiting for a link, and moments on each side of a millisecond (the
contract writes moments to the millisecond, ``schema.iso``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Final

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omkd.daemon.state.store import Checkpoint, StateStore
from omkd.daemon.stored_segments import StoredSegments
from omkd.engine import patterns
from omkd.engine.formats import AGENTS
from omkd.engine.report.gaps import count_gaps, select_gaps
from omkd.engine.segment_book import SegmentBook
from omkd.engine.signals import Signal
from omkd.engine.summary import SegmentSummary
from omkd.engine.window import Window

SKILLS: Final = ("deploy", "review", 'it\'s "quoted"', "ünïcode:plugin")
BASE: Final = 1_767_225_600.0
"""2026-01-01T00:00:00Z."""
EXAMPLES: Final = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

moments = st.builds(
    lambda sign, millis, fraction: sign * (BASE + millis / 1000) + fraction,
    st.sampled_from([1, 1, 1, -1]),
    st.integers(0, 4000),
    st.sampled_from([0.0, 1e-7, -1e-7, 4.999e-4, 5e-4, 5.001e-4, 9.995e-4, 0.25]),
)
"""Moments near one another and near millisecond boundaries (and a few before 1970)."""
signals = st.builds(
    lambda kind, moment, turn: Signal(kind, turn, moment, f"{kind} at {moment}", {"tool": "Glob"}, 1),
    st.sampled_from(patterns.SIGNAL_TYPES),
    st.one_of(st.none(), moments),
    st.integers(0, 3),
)


@st.composite
def summaries(draw: st.DrawFn) -> list[SegmentSummary]:
    made = []
    for n in range(draw(st.integers(0, 12))):
        first = draw(st.one_of(st.none(), moments))
        made.append(
            SegmentSummary(
                key=f"k{n}|{n}", stream=f"p/{n}.jsonl", role="main", skill=draw(st.sampled_from(SKILLS)),
                session_id="s", cwd="/p", first_ts=first, last_ts=first, assistant_parts=1, turns=1,
                tool_calls=0, tool_answered=0, tool_failures=0, tool_cancelled=0, tokens=(0, 0, 0, 0),
                signals=tuple(draw(st.lists(signals, max_size=4))), accessed=frozenset(), open=False,
                agent=draw(st.sampled_from(AGENTS)),
                inherit=draw(st.sampled_from([(), (), (), ("launcher|0",)])),
            )
        )  # fmt: skip
    return made


queries = st.tuples(
    st.one_of(st.none(), st.sampled_from(SKILLS)),
    st.one_of(st.none(), st.sampled_from(AGENTS)),
    st.one_of(st.none(), st.sampled_from(patterns.SIGNAL_TYPES)),
    st.one_of(st.none(), moments),
)
windows = st.builds(Window, st.one_of(st.none(), moments), st.one_of(st.none(), moments))


def opened(directory: str) -> StateStore:
    store = StateStore(Path(directory) / "state")
    store.open()
    return store


@EXAMPLES
@given(summaries(), queries, windows, st.data())
def test_the_stores_count_is_the_python_predicates(
    saved: list[SegmentSummary],
    query: tuple[str | None, str | None, str | None, float | None],
    window: Window,
    data: st.DataObject,
) -> None:
    """``count_signals``: the saved summaries outside the window, not waiting for a link, not
    excluded — their gaps of the query, as ``count_gaps`` (and ``select_gaps``) choose them."""
    skill, agent, kind, at = query
    excluded = data.draw(st.sets(st.sampled_from([s.key for s in saved])) if saved else st.just(set[str]()))
    with tempfile.TemporaryDirectory() as directory:
        store = opened(directory)
        store.save(Checkpoint(segments=saved))
        counted = store.count_signals(window.since, window.until, skill, agent, kind, at, excluded)
        store.close()
    given_back = [s for s in saved if not s.inherit and s.key not in excluded and not window.contains(s.first_ts)]
    expected = count_gaps(given_back, skill, kind, at, agent)
    assert counted == expected
    assert expected == len(select_gaps(given_back, skill, kind, at, 10_000, agent))


@EXAMPLES
@given(summaries(), summaries(), queries, windows, st.data())
def test_the_daemons_outside_count_is_the_python_predicates(
    saved: list[SegmentSummary],
    newer: list[SegmentSummary],
    query: tuple[str | None, str | None, str | None, float | None],
    window: Window,
    data: st.DataObject,
) -> None:
    """What ``/api/v1/gaps`` counts beyond the window (``count_outside_gaps``: the store's count,
    but the summaries memory holds newer or has forgotten, plus memory's own) is ``count_gaps``
    of the same book held wholly in memory."""
    skill, agent, kind, at = query
    with tempfile.TemporaryDirectory() as directory:
        store = opened(directory)
        stored, plain = StoredSegments(store), SegmentBook()
        for summary in saved:
            if not summary.inherit:  # the fold's book holds no summary waiting for its link
                stored.put(summary, stored.get(summary.key))
                plain.put(summary, plain.get(summary.key))
        store.save(Checkpoint(segments=[s for s in saved if not s.inherit]))
        stored.checkpointed()
        for summary in newer:  # changed since the checkpoint: memory holds them
            if not summary.inherit:
                stored.put(summary, stored.get(summary.key))
                plain.put(summary, plain.get(summary.key))
        for key in data.draw(st.sets(st.sampled_from([s.key for s in saved]))) if saved else ():
            assert stored.pop(key) == plain.pop(key)
        counted = stored.count_outside_gaps(window, skill, kind, at, agent)
        store.close()
    assert counted == count_gaps(plain.outside(window), skill, kind, at, agent)


def test_a_summary_saved_before_agents_existed_counts_as_claude_codes(tmp_path: Path) -> None:
    """Found by this file: a summary saved by an omkd before other agents' formats (no ``agent``
    key) is read back as Claude Code's, so ``count_gaps`` of agent ``claude_code`` counts its gaps;
    the store's count does not. Left for the daemon's owner (this change touches ``daemon/`` only in
    its import lines); strict: it fails once the SQL agrees, to be taken off then."""
    summary = SegmentSummary(
        key="k|0", stream="p/0.jsonl", role="main", skill="deploy", session_id="s", cwd="/p", first_ts=100.0,
        last_ts=100.0, assistant_parts=1, turns=1, tool_calls=0, tool_answered=0, tool_failures=0, tool_cancelled=0,
        tokens=(0, 0, 0, 0), signals=(Signal("failed_search", 1, 100.0, "x", {}, 1),), accessed=frozenset(),
        open=False,
    )  # fmt: skip
    older = {key: value for key, value in summary.to_plain().items() if key != "agent"}
    store = opened(str(tmp_path))
    store.save(Checkpoint(segments=[summary]))
    assert store._db is not None
    store._db.execute("UPDATE segments SET summary = ? WHERE key = 'k|0'", (orjson.dumps(older),))
    read_back = list(store.segments())
    counted = store.count_signals(1000.0, None, None, "claude_code", None, None)
    store.close()
    assert [s.agent for s in read_back] == ["claude_code"]
    assert counted == count_gaps(read_back, None, None, None, "claude_code") == 1
