"""Codex CLI rollouts and ``codex exec --json`` streams: each rule of the adapter on a hand-made
transcript, with the figures worked out by hand; and every real Codex fixture read without error."""

from __future__ import annotations

from pathlib import Path

import pytest

from omkd.engine import formats
from omkd.engine.fold import Fold
from omkd.engine.formats.codex_output import parse_output, shell_command, unwrap_shell
from omkd.engine.report.build import build_report
from omkd.engine.report.schema import Report, SkillHealth
from omkd.engine.stream import StreamProcessor
from tests.agent_lines import Rollout, exec_stream

pytestmark = pytest.mark.engine


def fold_of(
    data: bytes, name: str = "2026/04/08/rollout-2026-04-08T08-27-18-019d6d46.jsonl"
) -> tuple[Fold, StreamProcessor]:
    stream = StreamProcessor(name)
    stream.feed(data)
    fold = Fold()
    fold.add_stream(stream)
    fold.finish()
    return fold, stream


def report_of(data: bytes) -> Report:
    return build_report(fold_of(data)[0], ["sessions"])


def row(report: Report, skill: str = "general") -> SkillHealth:
    return next(s for s in report.skills if s.skill == skill)


def test_a_rollout_is_read_as_codex_and_its_rows_are_codex_rows() -> None:
    r = Rollout()
    r.prompt("why does checkout fail?")
    r.say("Looking.")
    fold, stream = fold_of(r.data())
    assert (stream.format, stream.agent, list(fold.skills)) == (formats.CODEX_ROLLOUT, "codex", ["codex/general"])
    assert (row(report_of(r.data())).skill, row(report_of(r.data())).agent) == ("general", "codex")


def test_an_empty_search_that_exits_1_is_a_failed_search() -> None:
    """``rg`` with no hit: exit code 1, no output — the same rule as a Bash ``rg``."""
    r = Rollout()
    r.prompt("where is the retry budget set?")
    r.exec('rg -n "retry_budget" src', "", code=1)
    r.say("It is not configured anywhere.")
    health = row(report_of(r.data()))
    assert (health.segments, health.by_type["failed_search"], health.tools.calls, health.tools.failures) == (1, 1, 1, 1)


def test_a_search_with_hits_is_found_and_the_header_is_not_output() -> None:
    r = Rollout()
    r.prompt("where is the retry budget set?")
    r.exec('rg -n "retry_budget" src', "src/config.py:12:retry_budget = 3\n", code=0)
    health = row(report_of(r.data()))
    assert (health.by_type["failed_search"], health.tools.failures) == (0, 0)


def test_version_0_40_shell_argv_and_json_output() -> None:
    """0.40: ``command`` is an argv, ``output`` a JSON string with ``metadata.exit_code``."""
    r = Rollout(version="0.40.0")
    r.prompt("find the deploy doc")
    r.shell_040("find docs -name 'deploy*.md'", "", 0)  # find prints nothing: nothing there
    r.shell_040("cat README.md", "# Shop\n", 0)
    r.shell_040("make lint", "lint: error\n", 2)  # not a search: a failure, never a gap
    health = row(report_of(r.data()))
    assert (health.by_type["failed_search"], health.tools.calls, health.tools.failures) == (1, 3, 1)


def test_command_not_found_is_a_tool_fault_not_a_gap() -> None:
    r = Rollout()
    r.prompt("search with ag")
    r.exec("ag retry_budget", "zsh:1: command not found: ag\n", code=127)
    health = row(report_of(r.data()))
    assert (health.by_type["failed_search"], health.tools.failures) == (0, 1)


@pytest.mark.parametrize(
    ("output", "calls", "cancelled", "failures"),
    [
        pytest.param("aborted by user", 1, 1, 0, id="interrupted"),
        pytest.param(
            "exec_command failed for `/bin/zsh -lc 'ls'`: "
            'CreateProcess { message: "Rejected(\\"rejected by user\\")" }',
            1, 1, 0, id="rejected",
        ),
        pytest.param(
            "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: ,",
            1, 0, 1, id="sandbox-denied",
        ),
    ],
)  # fmt: skip
def test_calls_the_person_or_the_sandbox_stopped_are_never_gaps(
    output: str, calls: int, cancelled: int, failures: int
) -> None:
    r = Rollout()
    r.prompt("look for the config")
    call = r.call("exec_command", {"cmd": "ls config/"})
    r.output(call, output)
    health = row(report_of(r.data()))
    assert (health.tools.calls, health.tools.cancelled, health.tools.failures, health.by_type["failed_search"]) == (
        calls,
        cancelled,
        failures,
        0,
    )


def test_a_command_still_running_is_answered_by_its_end_event() -> None:
    """``Process running with session ID``: not an answer (its empty output is not a miss); the
    ``exec_command_end`` event that follows is."""
    r = Rollout()
    r.prompt("is the font installed?")
    call = r.exec("fc-list | rg -i 'Maple Mono'", "", code=None)
    before = row(report_of(r.data()))
    r.command_end(call, 1, "")
    after = row(report_of(r.data()))
    assert (before.tools.answered, before.by_type["failed_search"]) == (0, 0)
    assert (after.tools.answered, after.by_type["failed_search"]) == (1, 1)


def test_an_end_event_of_a_call_already_answered_is_not_an_orphan() -> None:
    r = Rollout()
    r.prompt("list")
    call = r.exec("ls", "a\nb\n", code=0)
    r.command_end(call, 0, "a\nb\n")
    fold, stream = fold_of(r.data())
    assert (stream.counters.orphan_results, fold.overall.tool_answered) == (0, 1)


def test_injected_context_is_not_a_typed_prompt_and_mirrors_do_not_count_twice() -> None:
    """The AGENTS.md text and the environment context keep a skill's segment open; the
    ``agent_message`` mirror of a reply with a marker gives one marker, not two."""
    r = Rollout()
    r.skill("release", "/home/dev/.codex/skills/release/SKILL.md")
    r.say("Tagging [unknown] which registry to push to.")
    r.message("user", "<environment_context>\n  <cwd>/home/dev/shop</cwd>\n</environment_context>")
    r.say("Pushed.")
    report = report_of(r.data())
    assert [(s.skill, s.segments) for s in report.skills] == [("release", 1)]
    assert row(report, "release").by_type["explicit_marker"] == 1


_PROMPT_FILE = (
    "---\ndescription: Execute the planning workflow using the plan template.\n---\n\n## User Input\n\n"
    "```text\n$ARGUMENTS\n```\n\nRun `.specify/scripts/setup-plan.sh` and read `.specify/templates/plan.md`."
)


@pytest.mark.parametrize(
    ("first", "verdict"),
    [
        (_PROMPT_FILE, "failed_search"),
        ("read .specify/templates/plan.md and plan", "user_given"),
        (_PROMPT_FILE.replace("$ARGUMENTS", "use .specify/templates/plan.md"), "user_given"),
        (_PROMPT_FILE.split("---\n", 2)[2].replace("$ARGUMENTS", "plan the retry work"), "failed_search"),
        (_PROMPT_FILE.split("---\n", 2)[2].replace("$ARGUMENTS", "use .specify/templates/plan.md"), "user_given"),
        ("## User Input\n\nread .specify/templates/plan.md", "user_given"),  # a heading, no text block
    ],
    ids=[
        "a custom prompt's text",
        "typed by the person",
        "typed as the prompt's argument",
        "its body without the front matter",
        "typed as the argument of the body",
        "a heading the person typed",
    ],
)
def test_a_custom_prompt_s_text_is_the_person_s_turn_not_their_words(first: str, verdict: str) -> None:
    """Codex writes an invoked custom prompt (``/prompts:…``) as the person's message: its front matter says
    it is the file's text, as Claude Code marks a command's body ``isMeta``; later versions write the body
    alone, which then says so by its ``## User Input`` heading over the ``text`` block of ``$ARGUMENTS``.
    A path it names is not one the person typed: the agent that looks for it and misses has a gap (spec
    §3.1's user-given rule). What the person typed as its argument (the ``text`` block where ``$ARGUMENTS``
    stood) is theirs."""
    r = Rollout()
    r.prompt(first)
    r.exec("ls .specify/templates/plan.md", "ls: cannot access '.specify/templates/plan.md': No such file or directory",
           code=2)  # fmt: skip
    r.say("The template is not there.")
    health = row(report_of(r.data()))
    assert (health.by_type["failed_search"], health.user_given_misses) == (
        (1, 0) if verdict == "failed_search" else (0, 1)
    )


def test_a_skill_injection_opens_the_skill_and_a_typed_prompt_closes_it() -> None:
    r = Rollout()
    r.prompt("cut a release")
    r.skill("release", "/home/dev/.codex/skills/release/SKILL.md")
    r.say("Reading the checklist.")
    r.prompt("thanks, now something else")
    r.say("Sure.")
    report = report_of(r.data())
    assert sorted((s.skill, s.agent, s.segments) for s in report.skills) == [
        ("general", "codex", 1),
        ("release", "codex", 1),
    ]


def test_a_shell_read_of_a_skill_file_opens_the_skill() -> None:
    """The fallback signal: a skill the model picks itself shows only as a read of its SKILL.md."""
    r = Rollout()
    r.prompt("deploy it")
    r.exec("sed -n '1,200p' /home/dev/.codex/skills/deploy/SKILL.md", "---\nname: deploy\n---\n", code=0)
    r.say("Following the deploy skill.")
    report = report_of(r.data())
    assert [(s.skill, s.segments) for s in report.skills] == [("deploy", 1)]


def test_one_model_response_is_one_turn() -> None:
    """Reasoning and the call it leads to are one response; after the output, the next is another."""
    r = Rollout()
    r.prompt("check the tests")
    r.reasoning("**Running the tests**")
    r.exec("pytest -q", "3 passed\n", code=0)
    r.reasoning("**Reporting**")
    r.say("All three pass.")
    assert row(report_of(r.data())).turns == 2


def test_web_searches_are_skipped_because_their_results_are_never_written() -> None:
    r = Rollout()
    r.prompt("what is the latest codex version?")
    r.item({"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "codex cli"}})
    fold, stream = fold_of(r.data())
    assert (fold.overall.tool_calls, stream.counters.ignored["web_search_call"]) == (0, 1)


def test_unknown_and_harness_records_are_counted_never_fatal() -> None:
    r = Rollout()
    r.prompt("hello")
    r.record("world_state", {"patch": {}})
    r.record("inter_agent_communication", {"to": "x"})
    r.item({"type": "brand_new_item"})
    r.say("Hi.")
    fold, stream = fold_of(r.data() + b'{"timestamp": "x", "type": "response_item"\n' + b"[1]\n")
    counters = stream.counters
    assert dict(counters.unknown_types) == {"inter_agent_communication": 1, "response_item/brand_new_item": 1}
    assert (counters.ignored["world_state"], dict(counters.bad_lines)) == (1, {"invalid_json": 1, "not_object": 1})
    assert fold.overall.segments == 1


def test_the_session_id_and_cwd_come_from_session_meta() -> None:
    r = Rollout(session="019d924b-aaaa", cwd="/srv/app")
    r.prompt("hi")
    r.say("hello")
    (summary,) = fold_of(r.data())[0].segments.values()
    assert (summary.session_id, summary.cwd, summary.agent) == ("019d924b-aaaa", "/srv/app", "codex")


def test_codex_exec_json_streams() -> None:
    """``codex exec --json``: a command that exits 1 with no output is a failed search. Each command's
    output goes back to the model before its next response: reasoning and the first command, the
    second command, the answer are three responses (turns)."""
    data = exec_stream(
        [
            {"type": "reasoning", "text": "**Listing files**"},
            {"type": "command_execution", "command": "bash -lc 'rg -n TODO src'", "aggregated_output": "",
             "exit_code": 1, "status": "failed"},
            {"type": "command_execution", "command": "bash -lc ls", "aggregated_output": "src\n", "exit_code": 0,
             "status": "completed"},
            {"type": "agent_message", "text": "There are no TODOs."},
        ]
    )  # fmt: skip
    fold, stream = fold_of(data, "stream-output-1.jsonl")
    health = row(build_report(fold, ["-"]))
    assert (stream.format, health.agent) == (formats.CODEX_EXEC, "codex")
    assert (health.tools.calls, health.tools.failures, health.by_type["failed_search"], health.turns) == (2, 1, 1, 3)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        pytest.param('{"output":"x\\n","metadata":{"exit_code":2}}', (True, "x\n", 2), id="0.40-json"),
        pytest.param("Exit code: 124\nWall time: 10.2 seconds\nOutput:\ntimed out\n", (True, "timed out\n", 124),
                     id="windows-header"),
        pytest.param("Command: ls\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\na\n",
                     (False, "a\n", 0), id="0.1xx-header"),
        pytest.param("Success. Updated:\nA x\n", (False, "Success. Updated:\nA x\n", None), id="plain-text"),
        pytest.param("patch rejected by user", (True, "patch rejected by user", None), id="rejected"),
    ],
)  # fmt: skip
def test_output_parsing(output: str, expected: tuple[bool, str, int | None]) -> None:
    assert parse_output(output) == expected


def test_shell_commands_from_their_arguments() -> None:
    assert shell_command({"command": ["bash", "-lc", "rg x"]}) == "rg x"
    assert shell_command({"cmd": "ls -la"}) == "ls -la"
    assert shell_command({"command": "Get-ChildItem -Force"}) == "Get-ChildItem -Force"
    assert shell_command({"chars": ""}) is None
    assert unwrap_shell("/bin/zsh -lc 'rg -n x'") == "rg -n x"
    assert unwrap_shell("rg -n x") == "rg -n x"


def test_every_real_codex_file_reads_without_error(real_fixtures: Path) -> None:
    files = [p for p in sorted(real_fixtures.rglob("*.jsonl")) if "rollout-" in p.name or "codex" in str(p)]
    files = [p for p in files if formats.detect(p.read_bytes().split(b"\n", 1)[0]).startswith("codex")]
    assert len(files) >= 20
    for path in files:
        fold, stream = fold_of(path.read_bytes(), path.name)
        counters = stream.counters
        assert (dict(counters.bad_lines), counters.orphan_results, counters.records > 0) == ({}, 0, True), path
        assert all(s.agent == "codex" for s in fold.segments.values()), path


def test_a_skill_injected_before_the_prompt_that_named_it_still_holds_the_work() -> None:
    """``$release cut it``: whether Codex writes the injection before or after the typed prompt, the
    reply belongs to the skill."""
    for injection_first in (True, False):
        r = Rollout()
        if injection_first:
            r.skill("release", "/home/dev/.codex/skills/release/SKILL.md")
            r.prompt("$release cut 1.4")
        else:
            r.prompt("$release cut 1.4")
            r.skill("release", "/home/dev/.codex/skills/release/SKILL.md")
        r.say("Cutting 1.4.")
        assert [(s.skill, s.segments) for s in report_of(r.data()).skills] == [("release", 1)], injection_first


ODD_LINES = [
    b'{"type":{"a":1}}',
    b'{"id":"m","type":"gemini","content":"hi","toolCalls":5}',
    b'{"type":["x"],"payload":{}}',
    b'{"timestamp":"x","type":"event_msg","payload":{"type":"exec_command_end","call_id":["a"]}}',
    b'{"timestamp":"x","type":"response_item","payload":{"type":"reasoning","summary":5}}',
    b'{"sessionId":"s","projectHash":"p"}',
    b'{"id":"q","type":["gemini"]}',
    b'{"id":"r","type":"gemini","toolCalls":[{"id":"c","name":"glob","status":["x"]}]}',
    b'{"id":"r2","type":"gemini","toolCalls":[{"id":"c2","name":"glob","status":"success","result":[{"functionResponse":5}]}]}',
]


@pytest.mark.parametrize("first", range(len(ODD_LINES)))
@pytest.mark.parametrize("name", ["a.jsonl", "p/chats/session-x.json"])
def test_valid_json_of_unexpected_shapes_never_stops_a_stream(first: int, name: str) -> None:
    """Each odd line first (it decides the format) then all of them, as lines and as a document:
    nothing raises; whatever cannot be read is counted."""
    data = b"\n".join([ODD_LINES[first], *ODD_LINES]) + b"\n"
    stream = StreamProcessor(name)
    stream.feed(data)
    stream.close()
    counters = stream.counters
    assert sum(counters.bad_lines.values()) + sum(counters.unknown_types.values()) + counters.records > 0


def test_a_polled_command_is_answered_by_the_poll_that_ends_it() -> None:
    """After 0.118 no end event: ``write_stdin`` polls the command's session, and the poll whose output
    says ``Process exited with code 1`` ends it. The command (an ``rg`` that found nothing) is then
    answered with what it printed over the polls; each poll is answered as itself."""
    r = Rollout()
    r.prompt("is the font installed?")
    command = r.call("exec_command", {"cmd": "fc-list | rg -i 'Maple Mono'"})
    r.output(command, "Chunk ID: a1\nWall time: 1.0 seconds\nProcess running with session ID 69075\nOutput:\n")
    for chunk, ended in (("", False), ("", True)):
        poll = r.call("write_stdin", {"session_id": 69075, "chars": "", "yield_time_ms": 1000})
        status = "Process exited with code 1" if ended else "Process running with session ID 69075"
        r.output(poll, f"Chunk ID: b2\nWall time: 1.0 seconds\n{status}\nOutput:\n{chunk}")
    r.say("Not installed.")
    fold, stream = fold_of(r.data())
    health = row(build_report(fold, ["sessions"]))
    assert (health.tools.calls, health.tools.answered, stream.counters.orphan_results) == (3, 3, 0)
    assert (health.by_type["failed_search"], health.tools.failures) == (1, 1)


def test_a_codex_skill_named_like_a_claude_code_built_in_is_a_skill() -> None:
    """``review`` is one of Claude Code's built-in commands; a Codex skill of that name is a skill."""
    r = Rollout()
    r.prompt("review my change")
    r.skill("review", "/home/dev/.codex/skills/review/SKILL.md")
    r.say("Reviewing.")
    assert [(s.skill, s.agent) for s in report_of(r.data()).skills] == [("review", "codex")]


def test_the_model_of_a_segment_is_the_last_turn_context_s() -> None:
    """Each ``turn_context`` names the model of the replies after it (spec §9.5): a switch between
    turns gives the later segment the new model; a rollout without one says ``unknown``."""
    r = Rollout()  # its first turn_context names gpt-5.4
    r.prompt("why does checkout fail?")
    r.exec('rg -n "retry_budget" src', "", code=1)
    r.say("Not configured.")
    r.record("turn_context", {"cwd": "/home/dev/shop", "model": "gpt-5.5"})
    r.skill("release", "/home/dev/.codex/skills/release/SKILL.md")
    r.reasoning("**Tagging**")
    r.say("Tagged.")
    report = report_of(r.data())
    assert (row(report).by_model, row(report, "release").by_model) == ({"gpt-5.4": 1}, {"gpt-5.5": 1})
    (general, release) = sorted(fold_of(r.data())[0].segments.values(), key=lambda s: s.skill)
    assert (general.model, release.model) == ("gpt-5.4", "gpt-5.5")
    bare = Rollout()
    bare.lines = [line for line in bare.lines if line["type"] != "turn_context"]
    bare.prompt("hello")
    bare.say("Hi.")
    assert row(report_of(bare.data())).by_model == {"unknown": 1}


def test_a_marker_in_reasoning_is_no_signal_and_one_in_the_reply_is() -> None:
    """Spec §3.2: markers count in assistant text parts; a reasoning summary is a thinking part."""
    r = Rollout()
    r.prompt("which registry do we push to?")
    r.reasoning("The registry is [unknown] so far, 【推断】 it is the internal one.")
    r.say("Pushing to the internal registry [inferred].")
    assert row(report_of(r.data())).by_type["explicit_marker"] == 1


def test_a_compaction_and_an_aborted_turn_do_not_end_a_skill() -> None:
    """Neither is a prompt the person typed (spec §2, segment ends): the skill's segment goes on."""
    r = Rollout()
    r.prompt("cut a release")
    r.skill("release", "/home/dev/.codex/skills/release/SKILL.md")
    r.say("Reading the checklist.")
    r.record("compacted", {"message": "Summary of the conversation so far: cutting a release."})
    r.record("event_msg", {"type": "context_compacted"})
    r.say("Tagging.")
    r.message("user", "<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>")
    r.say("Pushed the tag.")
    fold, stream = fold_of(r.data())
    report = build_report(fold, ["sessions"])
    assert [(s.skill, s.segments, s.turns) for s in report.skills] == [("release", 1, 2)]
    assert stream.counters.compactions == 1
