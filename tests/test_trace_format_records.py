"""Claude Code record shapes of ``trace-format.md`` that carry no work of the agent, or carry it hidden.

Each record is hand-made after the document's description; the expected events are written by hand.
"""

from __future__ import annotations

import pytest

from omkd.engine.events import AssistantText
from omkd.engine.formats.claude_code import ClaudeCodeAdapter
from tests import claude_lines as cl

TS_SECONDS = (56 * 365 + 14) * 86400.0


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
