"""Streams, segments and skill names (README, "How omkd computes"), on hand-made transcripts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from omkd.engine.fold import Fold
from omkd.engine.report.build import build_report
from omkd.engine.stream import StreamProcessor
from tests.agent_lines import GeminiChat, Rollout, exec_stream, tool_call
from tests.transcript_builder import (
    REJECTED,
    Transcript,
    health_of,
    process,
    report_of,
    segments_by_skill,
    signal_counts,
)

pytestmark = pytest.mark.engine

SPEC_BUILTINS = (
    "clear", "exit", "quit", "help", "fast", "effort", "model", "plugin", "plugins", "stats", "doctor",
    "compact", "cost", "agents", "init", "config", "permissions", "resume", "continue", "memory", "mcp",
    "status", "context", "usage", "login", "logout", "ide", "hooks", "vim", "terminal-setup", "add-dir",
    "export", "rewind", "todos", "bashes", "output-style", "statusline", "upgrade", "release-notes",
    "feedback", "chrome", "review", "pr-comments", "security-review", "bug", "install-github-app",
    "privacy-settings", "sandbox", "theme", "btw",
)  # fmt: skip


# --- §2 segment starts ----------------------------------------------------------------------


def test_skill_tool_use_starts_a_segment_that_holds_the_skill_call() -> None:
    """A Skill tool_use cuts before its own record: the call is the new segment's, not general's."""
    t = Transcript()
    t.prompt("Draft a reply to the supplier about the late order")
    t.say("I'll use the mail skill for this.")
    t.skill("okki")
    t.say("Here is the draft.")
    report = report_of(t)
    assert segments_by_skill(report) == {"general": 1, "okki": 1}
    general, okki = health_of(report, "general"), health_of(report, "okki")
    assert (general.tools.calls, general.turns) == (0, 1)
    assert (okki.tools.calls, okki.turns) == (1, 2)


@pytest.mark.parametrize(
    ("frame", "slash", "as_part", "args"),
    [
        ("name-first", True, False, ""),
        ("name-first", False, False, ""),  # 1.0.24 wrote the name without its slash
        ("message-first", True, False, ""),
        ("message-first", True, False, "reply to the supplier"),
        ("message-first", False, False, ""),
        ("name-first", True, True, ""),  # the frame in a text part of a list content
        ("message-first", True, True, "reply"),
    ],
)
def test_command_frame_starts_a_skill_segment(frame: str, slash: bool, as_part: bool, args: str) -> None:
    """A <command-name> frame of a non-built-in command starts a segment named after it, slash stripped."""
    t = Transcript()
    t.prompt("hello")
    t.say("Hi, what shall we do?")
    t.command("okki", frame=frame, slash=slash, as_part=as_part, args=args)
    t.meta("Base directory for this skill: /home/dev/shop/.claude/skills/okki\n\n# OKKI")
    t.say("Drafting the reply now.")
    report = report_of(t)
    assert segments_by_skill(report) == {"general": 1, "okki": 1}
    assert (health_of(report, "general").turns, health_of(report, "okki").turns) == (1, 1)


def test_attribution_skill_starts_a_segment_holding_the_attributed_record() -> None:
    """An assistant record's attributionSkill starts a segment; that record and its turn belong to it."""
    t = Transcript(version="2.1.123")
    t.prompt("check the checkout flow")
    t.say("Looking at it.")
    t.say("Running the checkout review.", attribution="checkout-review")
    t.tool_use("Read", {"file_path": "/home/dev/shop/src/checkout.py"}, attribution="checkout-review")
    report = report_of(t)
    assert segments_by_skill(report) == {"general": 1, "checkout-review": 1}
    assert (health_of(report, "general").turns, health_of(report, "general").tools.calls) == (1, 0)
    assert (health_of(report, "checkout-review").turns, health_of(report, "checkout-review").tools.calls) == (2, 1)


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": "/home/dev/shop/.claude/skills/deploy/SKILL.md"}),
        ("Read", {"file_path": "/home/dev/.claude/skills/deploy/SKILL.md"}),
        ("Read", {"file_path": "C:\\Users\\dev\\.claude\\skills\\deploy\\SKILL.md"}),
        ("Read", {"file_path": "/home/dev/shop/.agents/skills/deploy/SKILL.md"}),
        ("Read", {"file_path": "/home/dev/shop/.codex/skills/deploy/SKILL.md"}),
        ("Bash", {"command": "cat /home/dev/shop/.claude/skills/deploy/SKILL.md"}),
        ("Bash", {"command": "cat /home/dev/shop/.agents/skills/deploy/SKILL.md"}),
        ("Bash", {"command": "cat ~/.codex/skills/deploy/SKILL.md"}),
        ("Bash", {"command": "head -n 40 /home/dev/shop/.claude/skills/deploy/SKILL.md"}),
        ("Bash", {"command": "sed -n '1,80p' /home/dev/shop/.claude/skills/deploy/SKILL.md"}),
        ("Bash", {"command": "cat .claude/skills/deploy/SKILL.md"}),  # relative to cwd /home/dev/shop
    ],
    ids=[
        "Read project .claude",
        "Read user .claude",
        "Read Windows path",
        "Read .agents",
        "Read .codex",
        "cat .claude",
        "cat .agents",
        "cat ~/.codex",
        "head -n",
        "sed -n",
        "cat relative .claude path",
    ],
)
def test_skill_file_read_starts_a_segment_from_general(tool: str, tool_input: dict[str, str]) -> None:
    """Fallback: reading .../{.claude,.agents,.codex}/skills/<name>/SKILL.md in general starts <name>."""
    t = Transcript()
    t.prompt("ship the release")
    t.say("Let me read the deploy instructions.")
    t.call(tool, tool_input, "---\nname: deploy\n---\n# Deploy\n")
    t.say("Following the deploy steps.")
    report = report_of(t)
    assert segments_by_skill(report) == {"general": 1, "deploy": 1}
    assert (health_of(report, "general").tools.calls, health_of(report, "deploy").tools.calls) == (0, 1)


def test_skill_file_read_does_not_cut_inside_a_skill() -> None:
    """The SKILL.md fallback applies only while the current segment is general."""
    t = Transcript()
    t.prompt("ship the release")
    t.skill("release")
    t.read_ok("/home/dev/shop/.claude/skills/deploy/SKILL.md", "# Deploy\n")
    t.bash("cat /home/dev/shop/.agents/skills/notify/SKILL.md", "# Notify\n")
    t.say("Done.")
    report = report_of(t)
    assert segments_by_skill(report) == {"release": 1}
    assert health_of(report, "release").tools.calls == 3


def test_same_skill_name_again_does_not_cut() -> None:
    """A Skill call, frame or attribution naming the current skill keeps the segment going."""
    t = Transcript(version="2.1.123")
    t.prompt("draft two replies")
    t.skill("okki")
    t.say("First draft.", attribution="okki")
    t.command("okki", frame="message-first")
    t.skill("okki")
    t.say("Second draft.", attribution="okki")
    report = report_of(t)
    assert segments_by_skill(report) == {"okki": 1}
    assert (health_of(report, "okki").tools.calls, health_of(report, "okki").turns) == (2, 4)


# --- §2 segment ends -----------------------------------------------------------------------


@pytest.mark.parametrize("as_parts", [False, True], ids=["string content", "text part"])
def test_typed_prompt_ends_a_skill_segment(as_parts: bool) -> None:
    """The next typed prompt ends the skill; the stream goes on in general until the next skill signal."""
    t = Transcript()
    t.prompt("draft the reply")
    t.skill("okki")
    t.say("Here is the draft.")
    if as_parts:
        t.prompt_parts("thanks, now fix the failing test in the screenshot")
    else:
        t.prompt("thanks, now fix the failing test")
    t.say("Looking at the test.")
    t.skill("okki")
    t.say("Another draft.")
    report = report_of(t)
    assert segments_by_skill(report) == {"okki": 2, "general": 1}
    assert health_of(report, "general").turns == 1


def test_typed_prompt_does_not_cut_general() -> None:
    """Typed prompts end skill segments only; consecutive general work stays one segment."""
    t = Transcript()
    t.prompt("what is in src?")
    t.say("Three modules.")
    t.prompt("and in tests?")
    t.say("Two test files.")
    report = report_of(t)
    assert segments_by_skill(report) == {"general": 1}
    assert health_of(report, "general").turns == 2


NOT_TYPED: list[tuple[str, Callable[[Transcript], object]]] = [
    ("isMeta text", lambda t: t.meta("<system-reminder>The TodoWrite tool hasn't been used</system-reminder>")),
    (
        "isMeta caveat",
        lambda t: t.user(
            "<local-command-caveat>Caveat: The messages below were generated by the user while running local "
            "commands.</local-command-caveat>",
            isMeta=True,
        ),
    ),
    ("tool result", lambda t: t.bash("git status --short", " M src/checkout.py\n")),
    ("built-in frame /status", lambda t: t.command("status")),
    ("built-in frame /model", lambda t: t.command("model", args="opus")),
    ("built-in frame /compact", lambda t: t.command("compact")),
    ("built-in local_command /mcp", lambda t: t.local_command("mcp")),
    ("local-command-stdout", lambda t: t.local_stdout("Set model to opus")),
    ("compaction summary", lambda t: t.compact_summary()),
    ("compact boundary", lambda t: t.compact_boundary()),
    ("interruption", lambda t: t.interruption("[Request interrupted by user]")),
    ("interruption for tool use", lambda t: t.interruption("[Request interrupted by user for tool use]")),
    ("sidechain prompt", lambda t: t.user("Search the repo for the retry settings", sidechain=True)),
    # typed while the agent worked: not a ``user`` record (Claude Code's attributionSkill goes on past it)
    (
        "queued prompt attachment",
        lambda t: t.add(
            {
                "type": "attachment",
                "attachment": {
                    "type": "queued_command",
                    "prompt": "use the formal tone",
                    "commandMode": "prompt",
                    "origin": {"kind": "human"},
                },
                "sessionId": t.session_id,
            }
        ),
    ),
    (
        "queue-operation",
        lambda t: t.add(
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "content": "use the formal tone",
                "sessionId": t.session_id,
            }
        ),
    ),
]


@pytest.mark.parametrize("add_record", [r for _, r in NOT_TYPED], ids=[n for n, _ in NOT_TYPED])
def test_records_that_are_not_typed_prompts_do_not_end_a_skill(add_record: Callable[[Transcript], object]) -> None:
    """isMeta, tool results, command frames, compaction, interruptions and sidechain prompts keep the skill."""
    t = Transcript()
    t.prompt("draft the reply")
    t.skill("okki")
    t.say("Working on it.")
    add_record(t)
    t.say("Still on it.")
    report = report_of(t)
    assert segments_by_skill(report) == {"okki": 1}


@pytest.mark.parametrize(
    "clear",
    [
        lambda t: t.command("clear"),
        lambda t: t.command("clear", slash=False),
        lambda t: t.local_command("clear"),
    ],
    ids=["user frame", "1.0.24 frame", "system local_command"],
)
def test_clear_ends_the_current_segment(clear: Callable[[Transcript], object]) -> None:
    """/clear ends the skill segment; what follows is general until the next skill signal."""
    t = Transcript()
    t.prompt("draft the reply")
    t.skill("okki")
    t.say("Here it is.")
    clear(t)
    t.say("Ready for the next task.")
    report = report_of(t)
    assert segments_by_skill(report) == {"okki": 1, "general": 1}
    assert (health_of(report, "okki").turns, health_of(report, "general").turns) == (2, 1)


def test_clear_ends_a_general_segment_too() -> None:
    """/clear closes the current general segment and opens a new one."""
    t = Transcript()
    t.prompt("what is in src?")
    t.say("There are three modules.")
    t.command("clear")
    t.say("Context cleared.")
    assert segments_by_skill(report_of(t)) == {"general": 2}


def test_empty_segments_are_dropped() -> None:
    """Segments with no assistant record and no tool call do not count."""
    t = Transcript()
    t.prompt("/okki")
    t.command("okki", frame="message-first")
    t.meta("Base directory for this skill: /home/dev/shop/.claude/skills/okki\n\n# OKKI")
    t.prompt("never mind")
    t.command("brainstorming", frame="message-first")
    t.prompt("let's just look at the logs")
    t.say("Opening the logs.")
    report = report_of(t)
    assert segments_by_skill(report) == {"general": 1}
    assert report.overall.segments == 1
    assert report.watermark.segments == 1


def test_a_lone_tool_call_makes_a_segment_count() -> None:
    """A segment holding only a tool call (no text) counts."""
    t = Transcript()
    t.prompt("deploy")
    t.skill("deploy")
    assert segments_by_skill(report_of(t)) == {"deploy": 1}


def test_tool_result_is_credited_to_the_calling_segment_after_a_cut() -> None:
    """A result belongs to the segment of the tool_use it answers, even if a cut happened in between."""
    t = Transcript()
    t.prompt("find the retry policy and then draft the mail")
    grep = t.tool_use("Grep", {"pattern": "retry_policy", "output_mode": "files_with_matches"})
    skill = t.tool_use("Skill", {"skill": "okki"})
    t.tool_result(skill, "Launching skill: okki", detail={"success": True, "commandName": "okki"})
    t.tool_result(grep, "No files found", detail={"mode": "files_with_matches", "filenames": [], "numFiles": 0})
    t.say("Drafting.")
    report = report_of(t)
    assert segments_by_skill(report) == {"general": 1, "okki": 1}
    general, okki = health_of(report, "general"), health_of(report, "okki")
    assert signal_counts(general) == {"failed_search": 1}
    assert signal_counts(okki) == {}
    assert (general.tools.calls, general.tools.answered) == (1, 1)
    assert (okki.tools.calls, okki.tools.answered) == (1, 1)


def test_cancelled_call_is_credited_to_its_segment_after_a_cut() -> None:
    """A rejected call answered after a cut is a cancelled call of the segment that made it."""
    t = Transcript()
    t.prompt("clean up and then draft the mail")
    rm = t.tool_use("Bash", {"command": "rm -rf build"})
    skill = t.tool_use("Skill", {"skill": "okki"})
    t.tool_result(skill, "Launching skill: okki", detail={"success": True, "commandName": "okki"})
    t.tool_result(rm, REJECTED, is_error=True, detail="User rejected tool use")
    report = report_of(t)
    assert (health_of(report, "general").tools.cancelled, health_of(report, "okki").tools.cancelled) == (1, 0)


# --- §2 streams ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("agent-a4f2c1d9.jsonl", "subagent"),
        ("agent-acompact-7e1f.jsonl", "subagent"),
        ("6f1c2a9e-4b7d-4c1e-9a3f-2d8e5b7c0a11.jsonl", "main"),
    ],
)
def test_stream_role_from_file_name(name: str, role: str) -> None:
    """agent-*.jsonl transcripts are sub-agent streams; session files are main streams."""
    t = Transcript()
    t.prompt("Find where retries are configured")
    t.say("Searching.")
    assert process(t, name).role == role


def test_subagent_stream_has_no_typed_prompts() -> None:
    """In a sub-agent stream every prompt is a sidechain record: none of them cuts its one segment
    (a sub-agent's records all count for its launcher's skill: here none, so general)."""
    t = Transcript(sidechain=True, agent_id="a4f2c1d9")
    t.user("Find where retries are configured and summarise", parentUuid=None)
    t.say("Searching the code base.")
    t.skill("code-search")
    t.say("Found the client.")
    t.user("Also check the worker")
    t.say("Checking the worker too.")
    report = report_of(t, names=["agent-a4f2c1d9.jsonl"])
    assert segments_by_skill(report) == {"general": 1}
    # turns: the first text, the Skill call, "Found the client.", "Checking the worker too."
    assert (health_of(report, "general").turns, health_of(report, "general").tools.calls) == (4, 1)


def test_agent_progress_mirrors_are_skipped() -> None:
    """progress/agent_progress records mirroring a sub-agent are not read again from the parent file."""
    t = Transcript()
    t.prompt("investigate the flaky test")
    t.say("Starting a sub-agent.")
    t.agent_progress(
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "id": "msg_01Sub",
                "content": [{"type": "tool_use", "id": "toolu_01Sub", "name": "Grep", "input": {"pattern": "flaky"}}],
                "usage": {"input_tokens": 5, "output_tokens": 7},
            },
        }
    )
    t.agent_progress(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "content": "No files found", "tool_use_id": "toolu_01Sub"}],
            },
            "toolUseResult": {"mode": "files_with_matches", "filenames": [], "numFiles": 0},
        }
    )
    report = report_of(t)
    assert segments_by_skill(report) == {"general": 1}
    general = health_of(report, "general")
    assert signal_counts(general) == {}
    assert (general.tools.calls, general.turns) == (0, 1)
    assert report.pipeline.ignored["progress"] == 2


def test_unknown_record_types_are_ignored_and_counted() -> None:
    """Records of an unknown type are counted by type and change nothing else."""
    t = Transcript()
    t.prompt("hello")
    t.add({"type": "future-thing", "sessionId": t.session_id, "payload": {"x": 1}})
    t.say("Hi.")
    t.add({"type": "future-thing", "sessionId": t.session_id})
    report = report_of(t)
    assert report.pipeline.unknown_types == {"future-thing": 2}
    assert segments_by_skill(report) == {"general": 1}


def codex_rollout() -> tuple[str, bytes]:
    r = Rollout()
    r.prompt("cut a release")
    r.say("Which version?")
    r.skill("release", "/home/dev/.codex/skills/release/SKILL.md")
    r.say("Tagging 1.4.0.")
    return "2026/04/08/rollout-2026-04-08T08-27-18-019d6d46.jsonl", r.data()


def codex_exec() -> tuple[str, bytes]:
    items: list[dict[str, Any]] = [
        {"type": "agent_message", "text": "Listing the sources."},
        {"type": "command_execution", "command": "ls src", "aggregated_output": "app.py\n", "exit_code": 0},
    ]
    return "ci/codex-run.jsonl", exec_stream(items)


def gemini_chat() -> tuple[str, bytes]:
    chat = GeminiChat()
    chat.prompt("make the pdf")
    chat.reply("Which report?")
    chat.reply("", [tool_call("activate_skill", {"name": "pdf"}, '<activated_skill name="pdf">…</activated_skill>')])
    chat.reply("Using the pdf skill.")
    return "proj/chats/session-2026-06-09T08-50-55b29702.jsonl", chat.data()


AGENT_STREAMS: dict[str, tuple[Callable[[], tuple[str, bytes]], dict[tuple[str, str], int]]] = {
    "codex rollout": (codex_rollout, {("codex", "general"): 1, ("codex", "release"): 1}),
    "codex exec": (codex_exec, {("codex", "general"): 1}),
    "gemini chat": (gemini_chat, {("gemini", "general"): 1, ("gemini", "pdf"): 1}),
}
BAD_FIRST_LINES = {
    "invalid_json": b'{"timestamp":"2026-04-08T13:27:20.000Z","type":"session_me',
    "invalid_utf8": b'{"type":"\xff\xfe"}',
    "not_object": b'["a", "list"]',
}


@pytest.mark.parametrize("reason", list(BAD_FIRST_LINES))
@pytest.mark.parametrize("stream", list(AGENT_STREAMS))
@pytest.mark.parametrize("chunked", [False, True], ids=["one chunk", "bad line alone first"])
def test_a_bad_first_line_is_counted_and_the_rest_is_read(reason: str, stream: str, chunked: bool) -> None:
    """A malformed line before the first record is counted and skipped, nothing else lost: it does
    not decide the stream's format (a Codex or Gemini stream read as Claude Code's loses every record)."""
    make, expected = AGENT_STREAMS[stream]
    name, data = make()
    bad = BAD_FIRST_LINES[reason] + b"\n"
    processor = StreamProcessor(name)
    for chunk in [bad, data] if chunked else [bad + data]:
        processor.feed(chunk)
    fold = Fold()
    fold.add_stream(processor)
    fold.finish()
    report = build_report(fold, ["tmp"])
    assert {(s.agent, s.skill): s.segments for s in report.skills} == expected
    assert (report.pipeline.bad_lines, report.pipeline.unknown_types) == ({reason: 1}, {})


# --- §2.1 names ----------------------------------------------------------------------------


def test_owner_prefix_is_dropped_and_plugin_name_kept() -> None:
    """pbakaus/impeccable:audit and impeccable:audit are one skill, labelled impeccable:audit."""
    t = Transcript(version="2.1.123")
    t.prompt("audit the landing page")
    t.skill("pbakaus/impeccable:audit")
    t.say("Auditing.", attribution="impeccable:audit")
    t.command("pbakaus/impeccable:audit", frame="message-first")
    t.say("Second pass.", attribution="impeccable:audit")
    report = report_of(t)
    assert segments_by_skill(report) == {"impeccable:audit": 1}
    assert report.pipeline.invalid_skill_names == 0


def test_plugins_with_the_same_skill_name_stay_apart() -> None:
    """impeccable:audit, security:audit and audit are three skills (omk would merge them into audit)."""
    t = Transcript()
    t.prompt("audit everything")
    t.skill("impeccable:audit")
    t.say("Design audit done.")
    t.skill("security:audit")
    t.say("Security audit done.")
    t.skill("audit")
    t.say("Plain audit done.")
    assert segments_by_skill(report_of(t)) == {"impeccable:audit": 1, "security:audit": 1, "audit": 1}


def test_leading_slash_is_stripped_from_a_skill_tool_name() -> None:
    """A Skill input written with a slash names the same skill as without."""
    t = Transcript()
    t.prompt("draft")
    t.skill("/okki")
    t.say("One.")
    t.skill("okki")
    t.say("Two.")
    assert segments_by_skill(report_of(t)) == {"okki": 1}


def test_invalid_names_are_counted_and_start_no_segment() -> None:
    """Names outside ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$ are not skills; each one is counted."""
    t = Transcript(version="2.1.123")
    t.prompt("try some things")
    t.say("Trying.")
    t.skill("my skill!")
    t.command("../etc", frame="message-first")
    t.say("Still trying.", attribution="-dash-first")
    t.skill("a" * 129)
    t.say("Done.")
    report = report_of(t)
    assert segments_by_skill(report) == {"general": 1}
    assert report.pipeline.invalid_skill_names == 4


def test_longest_valid_name_is_a_skill() -> None:
    """A 128-character name is still valid."""
    name = "s" + "k" * 127
    t = Transcript()
    t.prompt("go")
    t.skill(name)
    t.say("Going.")
    report = report_of(t)
    assert segments_by_skill(report) == {name: 1}
    assert report.pipeline.invalid_skill_names == 0


BUILTIN_ARRIVES: dict[str, Callable[[Transcript, str], object]] = {
    "command frame": lambda t, n: t.command(n),
    "Skill call": lambda t, n: t.skill(n),
    "attributionSkill": lambda t, n: t.say("Working on it.", attribution=n),
}


@pytest.mark.parametrize("arrives", list(BUILTIN_ARRIVES))
@pytest.mark.parametrize("name", SPEC_BUILTINS)
def test_builtin_commands_are_never_skills(name: str, arrives: str) -> None:
    """Every built-in command listed in the spec leaves the stream in general, whichever way its
    name arrives: a command frame, a ``Skill`` call or an ``attributionSkill`` (§2.1)."""
    t = Transcript(version="2.1.123")
    t.prompt("hello")
    t.say("Hi.")
    BUILTIN_ARRIVES[arrives](t, name)
    t.say("Done.")
    report = report_of(t)
    generals = 2 if (name, arrives) == ("clear", "command frame") else 1  # /clear also ends general
    assert (segments_by_skill(report), report.pipeline.invalid_skill_names) == ({"general": generals}, 0)


@pytest.mark.parametrize("name", ["status", "mcp", "chrome", "terminal-setup"])
@pytest.mark.parametrize(
    "write",
    [
        lambda t, n: t.command(n),
        lambda t, n: t.command(n, slash=False),
        lambda t, n: t.command(n, frame="message-first"),
        lambda t, n: t.local_command(n),
    ],
    ids=["name-first", "no slash", "message-first", "local_command"],
)
def test_builtins_omk_shows_as_skills_stay_general(name: str, write: Callable[[Transcript, str], object]) -> None:
    """/status, /mcp, /chrome, /terminal-setup are built-ins in every frame form (omk's list misses them)."""
    t = Transcript()
    t.prompt("hello")
    t.say("Hi.")
    write(t, name)
    t.say("Done.")
    assert segments_by_skill(report_of(t)) == {"general": 1}


def test_builtin_inside_skill_keeps_the_skill() -> None:
    """A built-in command frame during a skill neither ends it nor starts another."""
    t = Transcript()
    t.prompt("draft")
    t.skill("okki")
    t.say("Drafting.")
    t.command("context")
    t.local_stdout("Context usage: 41%")
    t.say("Drafted.")
    report = report_of(t)
    assert segments_by_skill(report) == {"okki": 1}
    assert health_of(report, "okki").turns == 3
