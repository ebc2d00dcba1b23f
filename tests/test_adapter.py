"""ClaudeCodeAdapter: what each kind of Claude Code line means (as seen in real transcripts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omkd.engine.events import AgentLink, CommandInvoked, Compaction, Event, ToolCall, ToolResult, UserPrompt, tokens_of
from omkd.engine.fold import Fold
from omkd.engine.formats.claude_code import ClaudeCodeAdapter
from omkd.engine.report.build import build_report
from omkd.engine.stream import StreamProcessor
from tests import claude_lines as cl

pytestmark = pytest.mark.engine

# 2026-01-01T00:00:00Z in seconds since the epoch: 56 years of 365 days plus 14 leap days (1972..2024).
TS_SECONDS = (56 * 365 + 14) * 86400.0

GLOB_CALL = cl.tool_use("toolu_g1", "Glob", {"pattern": "docs/**/deploy.md"}, "msg_1")
GLOB_EMPTY_RESULT = cl.tool_result("toolu_g1", "No files found", cl.GLOB_EMPTY)


def decode_all(lines: list[bytes]) -> tuple[ClaudeCodeAdapter, list[Event]]:
    adapter = ClaudeCodeAdapter()
    events: list[Event] = []
    for one in lines:
        events.extend(adapter.decode(one))
    return adapter, events


def failed_searches(data: bytes) -> int:
    """Failed searches omkd reports for one stream of ``data``."""
    stream = StreamProcessor("stream.jsonl")
    stream.feed(data)
    fold = Fold()
    fold.add_stream(stream)
    fold.finish()
    return build_report(fold, ["stream.jsonl"]).overall.by_type["failed_search"]


BAD_LINES = [
    pytest.param(b'{"type":"user","message":', "invalid_json", id="truncated-json"),
    pytest.param(b"not json at all", "invalid_json", id="plain-text"),
    pytest.param(b'{"type":"user","text":"caf\xe9"}', "invalid_utf8", id="latin-1-byte"),
    pytest.param(b"\xff\xfe{}", "invalid_utf8", id="utf16-bom"),
    pytest.param(b"[1,2]", "not_object", id="array"),
    pytest.param(b'"x"', "not_object", id="string"),
    pytest.param(b"42", "not_object", id="number"),
    pytest.param(b"null", "not_object", id="null"),
]


@pytest.mark.parametrize(("bad", "reason"), BAD_LINES)
def test_bad_line_is_counted_by_reason_and_skipped(bad: bytes, reason: str) -> None:
    """A line that is not JSON, not UTF-8 or not an object yields nothing and is counted under its reason."""
    adapter, events = decode_all([bad])
    assert (events, dict(adapter.counters.bad_lines), adapter.counters.records) == ([], {reason: 1}, 0)


@pytest.mark.parametrize(("bad", "reason"), BAD_LINES)
def test_bad_line_leaves_its_neighbours_intact(bad: bytes, reason: str) -> None:
    """A bad line between a call and its result changes neither the events nor the failed search."""
    good = [cl.line(GLOB_CALL), cl.line(GLOB_EMPTY_RESULT)]
    _, alone = decode_all(good)
    adapter, with_bad = decode_all([good[0], bad, good[1]])
    assert (with_bad, dict(adapter.counters.bad_lines), adapter.counters.records) == (alone, {reason: 1}, 2)
    # One Glob call answered "No files found": one failed search, bad line or not.
    assert failed_searches(good[0] + b"\n" + bad + b"\n" + good[1] + b"\n") == 1


def test_unknown_record_type_is_ignored_and_counted() -> None:
    """A record of a type the adapter does not know yields nothing and is counted by type, never fatal."""
    lines = [cl.line({"type": "hologram", "uuid": "u1"}), cl.line({"type": "hologram"}), cl.line(GLOB_CALL)]
    adapter, events = decode_all(lines)
    assert (dict(adapter.counters.unknown_types), len(events)) == ({"hologram": 2}, 1)


# Types listed in real transcripts that carry no conversation: known, so not "unknown", and no events.
QUIET_RECORDS: list[cl.Record] = [
    {"type": "summary", "summary": "Fix the build", "leafUuid": "u1"},
    {"type": "file-history-snapshot", "messageId": "m1", "snapshot": {}, "isSnapshotUpdate": False},
    {"type": "queue-operation", "operation": "enqueue", "timestamp": cl.TS, "sessionId": cl.SESSION, "content": "x"},
    {"type": "last-prompt", "lastPrompt": "fix it", "leafUuid": "u1", "sessionId": cl.SESSION},
    {"type": "ai-title", "aiTitle": "Fixing", "sessionId": cl.SESSION},
    {"type": "custom-title", "customTitle": "Mine", "sessionId": cl.SESSION},
    {"type": "agent-name", "agentName": "bob", "sessionId": cl.SESSION},
    {"type": "permission-mode", "permissionMode": "default", "sessionId": cl.SESSION},
    {"type": "pr-link", "prNumber": 1, "prUrl": "https://x/pr/1", "timestamp": cl.TS, "sessionId": cl.SESSION},
    {"type": "attachment", "attachment": {"type": "skill_listing", "content": "- okki"}, "timestamp": cl.TS},
]


@pytest.mark.parametrize("record", QUIET_RECORDS, ids=[r["type"] for r in QUIET_RECORDS])
def test_documented_non_conversation_types_are_known_and_quiet(record: cl.Record) -> None:
    """Record types documented in real transcripts yield no events and are not counted as unknown."""
    adapter, events = decode_all([cl.line(record)])
    assert (
        events,
        dict(adapter.counters.unknown_types),
        dict(adapter.counters.bad_lines),
        adapter.counters.records,
    ) == ([], {}, {}, 1)


def agent_progress(nested: cl.Record) -> cl.Record:
    """A 2.1.12-2.1.49 ``progress`` record mirroring a sub-agent message into the parent file."""
    return {
        "parentUuid": "p1",
        "isSidechain": False,
        "type": "progress",
        "sessionId": cl.SESSION,
        "timestamp": cl.TS,
        "uuid": "prog-1",
        "toolUseID": "toolu_task",
        "parentToolUseID": "toolu_task",
        "data": {"type": "agent_progress", "agentId": "a1", "prompt": "look around", "message": nested},
    }


def test_agent_progress_mirrors_produce_only_the_link_to_their_sub_agent() -> None:
    """A sub-agent call and result mirrored through ``progress`` records yield no call, no result and
    no gap: only, once, the link from the launching call (``parentToolUseID``) to the sub-agent (``agentId``)."""
    mirrors = [agent_progress(GLOB_CALL), agent_progress(GLOB_EMPTY_RESULT)]
    adapter, events = decode_all([cl.line(m) for m in mirrors])
    link = AgentLink(None, "toolu_task", "a1")
    assert (events, dict(adapter.counters.unknown_types), failed_searches(cl.jsonl(mirrors))) == ([link], {}, 0)


def test_real_progress_records_produce_only_the_sub_agent_link(real_fixtures: Path) -> None:
    """Every real ``progress`` record of marot's subagent.jsonl (agent and hook mirrors) yields nothing but,
    once, the link its agent mirrors carry."""
    raw = (real_fixtures / "marot__spotter" / "subagent.jsonl").read_bytes().split(b"\n")
    progress = [one for one in raw if one and json.loads(one)["type"] == "progress"]
    adapter, events = decode_all(progress)
    # 44 = 19 agent_progress + 25 hook_progress (jq '.data.type' | sort | uniq -c); the 19 agent mirrors all
    # carry parentToolUseID toolu_01Cz2Pnv7qNcnK1ZiocxWhQX and data.agentId afb92ff (jq).
    link = AgentLink(None, "toolu_01Cz2Pnv7qNcnK1ZiocxWhQX", "afb92ff")
    assert (len(progress), events, dict(adapter.counters.unknown_types)) == (44, [link], {})


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        pytest.param(None, False, id="absent"),
        pytest.param(False, False, id="false"),
        pytest.param(True, True, id="true"),
    ],
)
def test_is_error_absent_means_not_an_error(flag: bool | None, expected: bool) -> None:
    """``is_error`` is only sometimes written: absent reads as "not an error" (as seen in real transcripts)."""
    record = cl.tool_result("toolu_1", "done", is_error=flag)
    _, events = decode_all([cl.line(record)])
    assert events == [ToolResult(TS_SECONDS, "toolu_1", expected, "done", None)]


def test_tool_result_list_content_is_flattened_to_its_texts() -> None:
    """A tool result whose content is a list of parts reads as its text parts, images left out."""
    content = [
        {"type": "text", "text": "first"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
        {"type": "text", "text": "second"},
    ]
    _, events = decode_all([cl.line(cl.tool_result("toolu_1", content))])
    assert events == [ToolResult(TS_SECONDS, "toolu_1", False, "first\nsecond", None)]


def test_tool_result_keeps_structured_detail() -> None:
    """The record's ``toolUseResult`` travels with the result (Glob's ``numFiles: 0`` is how emptiness shows)."""
    _, events = decode_all([cl.line(GLOB_EMPTY_RESULT)])
    assert events == [ToolResult(TS_SECONDS, "toolu_g1", False, "No files found", cl.GLOB_EMPTY)]


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("where is the deploy script?", id="string"),
        pytest.param([{"type": "text", "text": "where is the deploy script?"}], id="text-part"),
    ],
)
def test_typed_prompt_as_string_or_text_part(content: object) -> None:
    """A typed prompt is the same prompt whether the content is a string or a list with a text part."""
    _, events = decode_all([cl.line(cl.user(content))])
    assert events == [UserPrompt(TS_SECONDS, "where is the deploy script?")]


def test_assistant_tool_use_becomes_a_call() -> None:
    """An assistant ``tool_use`` part becomes a call with its id, tool name and input."""
    _, events = decode_all([cl.line(GLOB_CALL)])
    assert len(events) == 1
    call = events[0]
    assert isinstance(call, ToolCall)
    assert call[:6] == (TS_SECONDS, "msg_1", "toolu_g1", "Glob", {"pattern": "docs/**/deploy.md"}, None)
    # input, output, cache read, cache creation, as written in the record
    assert tokens_of(call.usage) == (3, 10, 100, 20)


NAME_FIRST = (
    "<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n"
    "            <command-args></command-args>"
)
MESSAGE_FIRST = "<command-message>okki</command-message>\n<command-name>/okki</command-name>"
MESSAGE_FIRST_ARGS = (
    "<command-message>okki</command-message>\n<command-name>/okki</command-name>\n<command-args>acme</command-args>"
)
OLD_NO_SLASH = "<command-name>clear</command-name>\n<command-message>clear</command-message>"


@pytest.mark.parametrize(
    ("content", "name"),
    [
        pytest.param(NAME_FIRST, "/clear", id="name-first"),
        pytest.param(MESSAGE_FIRST, "/okki", id="message-first"),
        pytest.param(MESSAGE_FIRST_ARGS, "/okki", id="message-first-args"),
        pytest.param(OLD_NO_SLASH, "clear", id="1.0.24-no-slash"),
        pytest.param([{"type": "text", "text": MESSAGE_FIRST}], "/okki", id="in-text-part"),
    ],
)
def test_command_frame_in_user_record(content: object, name: str) -> None:
    """A command frame in a user record is a command with its name as written, never a typed prompt."""
    _, events = decode_all([cl.line(cl.user(content))])
    assert events == [CommandInvoked(TS_SECONDS, name)]


def test_command_frame_in_system_local_command_record() -> None:
    """From 2.1.12 a frame may come as a ``system`` ``local_command`` record: still a command."""
    _, events = decode_all([cl.line(cl.system("local_command", NAME_FIRST))])
    assert events == [CommandInvoked(TS_SECONDS, "/clear")]


def test_local_command_output_is_not_a_command_or_prompt() -> None:
    """The ``<local-command-stdout>`` that follows a command is neither a command nor a prompt."""
    output = "<local-command-stdout>Set model to opus</local-command-stdout>"
    _, events = decode_all([cl.line(cl.system("local_command", output)), cl.line(cl.user(output))])
    assert events == []


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(
            cl.user([{"type": "text", "text": "Base directory for this skill: /s/okki"}], isMeta=True), id="meta"
        ),
        pytest.param(cl.user([{"type": "text", "text": "[Request interrupted by user]"}]), id="interrupted"),
        pytest.param(
            cl.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}]), id="interrupt-tool"
        ),
        pytest.param(cl.user("<local-command-caveat>Caveat: generated</local-command-caveat>"), id="caveat"),
        pytest.param(cl.user("Review the diff", isSidechain=True), id="sidechain"),
    ],
)
def test_texts_the_person_did_not_type_are_not_prompts(record: cl.Record) -> None:
    """Meta injections, interruption notices, caveats and sub-agent prompts are not typed prompts."""
    _, events = decode_all([cl.line(record)])
    assert [e for e in events if isinstance(e, UserPrompt)] == []


SUMMARY_TEXT = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation."
)


def test_compact_boundary_is_a_compaction() -> None:
    """The 2.1.19+ ``system`` ``compact_boundary`` record marks a compaction."""
    record = cl.system("compact_boundary", "Conversation compacted")
    record["compactMetadata"] = {"trigger": "auto", "preTokens": 150000}
    _, events = decode_all([cl.line(record)])
    assert events == [Compaction(TS_SECONDS)]


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(cl.user(SUMMARY_TEXT, isCompactSummary=True, isVisibleInTranscriptOnly=True), id="flagged"),
        pytest.param(cl.user(SUMMARY_TEXT), id="unflagged"),
    ],
)
def test_compaction_summary_is_a_compaction_not_a_prompt(record: cl.Record) -> None:
    """The compaction summary user record is a compaction, never a typed prompt."""
    _, events = decode_all([cl.line(record)])
    assert events == [Compaction(TS_SECONDS)]


def test_legacy_summary_and_microcompact_are_not_prompts() -> None:
    """The legacy ``summary`` line and ``microcompact_boundary`` yield no prompt and no unknown type."""
    micro = cl.system("microcompact_boundary", "Context microcompacted")
    legacy = {"type": "summary", "summary": "Fixing the build", "leafUuid": "u9"}
    adapter, events = decode_all([cl.line(legacy), cl.line(micro)])
    assert ([e for e in events if isinstance(e, UserPrompt)], dict(adapter.counters.unknown_types)) == ([], {})
