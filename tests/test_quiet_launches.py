"""A launch a live stream leaves unanswered settles once the stream is quiet (``engine/quiet.py``),
and is taken back if the stream grows with the launch's failure."""

from __future__ import annotations

import pytest

from omkd.engine.live import LiveFold
from omkd.engine.quiet import QuietLaunches
from omkd.engine.stream import StreamProcessor
from tests import claude_lines as cl

pytestmark = pytest.mark.engine

T0 = 1_767_225_600.0  # 2026-01-01T00:00:00Z


def records(*extra: cl.Record) -> bytes:
    lines = [
        cl.user("deploy the shop"),
        cl.tool_use("toolu_skill", "Skill", {"skill": "deploy"}, "msg_1"),
        cl.tool_use("toolu_glob", "Glob", {"pattern": "docs/**/runbook.md"}, "msg_1"),
        cl.tool_result("toolu_glob", "No files found", cl.GLOB_EMPTY),
        *extra,
    ]
    for record in lines:
        record["timestamp"] = "2026-01-01T00:00:00.000Z"
    return cl.jsonl(lines)


def test_the_tentative_segment_is_what_the_end_of_a_batch_read_settles() -> None:
    live, batch = StreamProcessor("p/s.jsonl"), StreamProcessor("p/s.jsonl")
    data = records()
    live.feed(data)
    batch.feed(data)
    assert live.take_changed() == []
    tentative = live.tentative()
    (settled,) = [s for s in batch.close() if s.skill == "deploy"]
    assert tentative is not None
    assert tentative.key == settled.key
    assert (tentative.signals, tentative.tool_calls) == (settled.signals, settled.tool_calls)


def test_held_until_quiet_then_folded_then_taken_back_when_the_launch_fails() -> None:
    stream = StreamProcessor("p/s.jsonl")
    stream.feed(records())
    quiet, fold = QuietLaunches(), LiveFold(3650 * 86400.0, 3650 * 86400.0, 7, T0 + 60)
    assert quiet.offer("s", stream.tentative(), ()) == ([], [])
    assert quiet.due(T0 + 59, 60.0) == []
    ((ready, again),) = quiet.due(T0 + 60, 60.0)
    assert not again  # the stream reads its file for the first time
    fold.apply(ready, again)
    assert [s.skill for s in fold.fold.in_window()] == ["deploy"]
    more = cl.tool_result("toolu_skill", "Unknown skill: deploy", is_error=True)
    more["timestamp"] = "2026-01-01T00:00:00.000Z"
    stream.feed(cl.jsonl([more]))
    changed = stream.take_changed()
    held, back = quiet.offer("s", stream.tentative(), {s.key for s in changed})
    assert (held, back) == ([], [ready.key])
    fold.take_back(ready.key)
    assert sorted(s.skill for s in fold.fold.in_window()) == []
    for summary in changed:
        fold.apply(summary)
    assert [s.skill for s in fold.fold.in_window()] == ["general"]


def test_a_confirmed_launch_is_handed_on_by_its_stream_and_not_taken_back() -> None:
    stream = StreamProcessor("p/s.jsonl")
    stream.feed(records())
    quiet = QuietLaunches()
    quiet.offer("s", stream.tentative(), ())
    ((ready, _),) = quiet.due(T0 + 3600, 60.0)
    answer = cl.tool_result("toolu_skill", "Launching skill: deploy", {"success": True, "commandName": "deploy"})
    answer["timestamp"] = "2026-01-01T00:00:01.000Z"
    stream.feed(cl.jsonl([answer, cl.text("Done.", "msg_2")]))
    changed = stream.take_changed()
    assert ready.key in {s.key for s in changed}
    assert quiet.offer("s", stream.tentative(), {s.key for s in changed}) == ([], [])
