"""Claude Code record shapes of ``trace-format.md`` that carry no work of the agent, or carry it hidden.

Each record is hand-made after the document's description; the expected events are written by hand.
"""

from __future__ import annotations

import pytest

from omkd.engine.events import AssistantText
from omkd.engine.formats.claude_code import ClaudeCodeAdapter
from omkd.engine.stream import StreamProcessor
from tests import claude_lines as cl

pytestmark = pytest.mark.engine


def decode(record: cl.Record) -> tuple[ClaudeCodeAdapter, list[object]]:
    adapter = ClaudeCodeAdapter()
    return adapter, list(adapter.decode(cl.line(record)))


def test_synthetic_api_error_record_is_not_the_agents_message() -> None:
    """§1.2/§2: ``model:"<synthetic>"`` marks Claude Code's own API-error assistant message (2.1.27+):
    not the model's words, so no text (its wording cannot hedge) and no turn."""
    record = cl.text("API Error: 529 Overloaded. This may be a temporary problem, probably.", "msg_syn")
    record["message"]["model"] = "<synthetic>"
    record.update({"isApiErrorMessage": True, "error": "overloaded", "apiErrorStatus": 529})
    del record["requestId"]
    adapter, events = decode(record)
    assert (events, dict(adapter.counters.unknown_types), dict(adapter.counters.bad_lines)) == ([], {}, {})


def test_redacted_thinking_part_is_still_a_thinking_part() -> None:
    """§1.4: a 2.1.x ``thinking`` part may be empty (redacted, only the signature kept): it is still the
    agent's thinking part of its message, with no words to read."""
    record = cl.assistant({"type": "thinking", "thinking": "", "signature": "EqQBCkYIBxgC"}, "msg_th")
    _, events = decode(record)
    assert [(type(e), e.text, e.thinking, e.message_id) for e in events if isinstance(e, AssistantText)] == [
        (AssistantText, "", True, "msg_th")
    ]
    assert len(events) == 1


def _subtype_less(content: str) -> cl.Record:
    record = cl.system("", content)
    del record["subtype"]  # 1.0.43-1.0.56 hook/info lines: ``content`` and ``level``, no subtype
    return record


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(_subtype_less("Running PostToolUse:Edit hooks…"), id="no-subtype-1.0.4x"),
        pytest.param(cl.system("api_error", "API Error: 500"), id="api_error"),
        pytest.param(cl.system("turn_duration", ""), id="turn_duration"),
        pytest.param(cl.system("stop_hook_summary", ""), id="stop_hook_summary"),
        pytest.param(cl.system("away_summary", "While you were away: fixed the build"), id="away_summary"),
        pytest.param(cl.system("informational", "Model switched"), id="informational"),
    ],
)
def test_system_records_other_than_commands_and_compaction_are_quiet(record: cl.Record) -> None:
    """§1.3: ``system`` records of these subtypes (or none) hold no typed prompt, command or compaction:
    no event, and the type is a known one (not counted as unknown)."""
    adapter, events = decode(record)
    assert (events, dict(adapter.counters.unknown_types), dict(adapter.counters.bad_lines)) == ([], {}, {})


SUMMARY = "This session is being continued from a previous conversation that ran out of context. The summary: …"


def compactions(records: list[cl.Record]) -> int:
    stream = StreamProcessor("stream.jsonl")
    stream.feed(cl.jsonl(records))
    return stream.counters.compactions


def test_boundary_and_its_summary_are_one_compaction() -> None:
    """§1.8: from 2.1.19 one compaction writes a ``compact_boundary`` record, then the summary user record
    (``isCompactSummary``): one compaction, counted once, as Codex's ``compacted`` line and its event are."""
    boundary = cl.system("compact_boundary", "Conversation compacted")
    boundary["compactMetadata"] = {"trigger": "auto", "preTokens": 150000}
    summary = cl.user(SUMMARY, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    records = [cl.user("fix the build"), cl.text("Fixing.", "msg_1"), boundary, summary, cl.text("Done.", "msg_2")]
    assert compactions(records) == 1
    assert compactions([*records, boundary, summary]) == 2  # a second compaction later in the stream


def test_summary_alone_is_a_compaction() -> None:
    """§1.8: before 2.1.19 the summary user record (no boundary, no flag) is the compaction's only record."""
    assert compactions([cl.user("fix the build"), cl.text("Fixing.", "msg_1"), cl.user(SUMMARY)]) == 1


def test_a_stream_opening_with_a_compaction_keeps_its_summarys_key() -> None:
    """A session continued after a compaction opens with the boundary and the summary: the summary record
    still names the stream (its segments' identity must not change with how the compaction is counted)."""
    boundary = cl.system("compact_boundary", "Conversation compacted")
    summary = cl.user(SUMMARY, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    adapter = ClaudeCodeAdapter()
    for record in (boundary, summary, cl.user("go on"), cl.text("Going on.", "msg_1")):
        adapter.decode(cl.line(record))
    assert (adapter.stream_key, adapter.counters.ignored["compact_summary"]) == (summary["uuid"], 1)
