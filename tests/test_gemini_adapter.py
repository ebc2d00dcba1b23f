"""Gemini CLI chats, JSONL (0.39+) and whole documents (before): each rule of the adapter on a
hand-made chat with the figures worked out by hand; re-appended messages, ``$set`` checkpoints
and ``$rewindTo``; a document read again after each rewrite; every real Gemini fixture."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from omkd.engine import formats
from omkd.engine.events import ToolCall
from omkd.engine.fold import Fold
from omkd.engine.formats.gemini import GeminiAdapter, mcp_name
from omkd.engine.formats.gemini_shell import shell_output
from omkd.engine.metacog.writes import write_of
from omkd.engine.report.build import build_report
from omkd.engine.report.schema import Report, SkillHealth
from omkd.engine.stream import StreamProcessor
from tests.agent_lines import GeminiChat, tool_call
from tests.transcript_builder import gaps_of

pytestmark = pytest.mark.engine

JSONL = "proj/chats/session-2026-06-09T08-50-55b29702.jsonl"
DOCUMENT = "proj/chats/session-2025-10-27T19-55-981c87cb.json"


def fold_of(data: bytes, name: str = JSONL, chunk: int | None = None) -> tuple[Fold, StreamProcessor]:
    stream = StreamProcessor(name)
    step = chunk or len(data) or 1
    for at in range(0, len(data), step):
        stream.feed(data[at : at + step])
    fold = Fold()
    fold.add_stream(stream)
    fold.finish()
    return fold, stream


def report_of(data: bytes, name: str = JSONL) -> Report:
    return build_report(fold_of(data, name)[0], ["tmp"])


def row(report: Report, skill: str = "general") -> SkillHealth:
    return next(s for s in report.skills if s.skill == skill)


def one_call(call: dict[str, object], prompt: str = "find the thing") -> GeminiChat:
    chat = GeminiChat()
    chat.prompt(prompt)
    chat.reply("Looking.", [call])
    chat.reply("Done.")
    return chat


@pytest.mark.parametrize(
    ("call", "misses", "failures"),
    [
        pytest.param(tool_call("grep_search", {"pattern": "retry_budget"},
                               'No matches found for pattern "retry_budget" in path ".".'), 1, 0, id="grep-empty"),
        pytest.param(tool_call("grep_search", {"pattern": "retry"}, 'Found 2 matches for pattern "retry" in "."'),
                     0, 0, id="grep-hits"),
        pytest.param(tool_call("glob", {"pattern": "**/deploy.md"}, 'No files found matching pattern "**/deploy.md"'),
                     1, 0, id="glob-empty"),
        pytest.param(tool_call("read_file", {"absolute_path": "/p/DOCKET.md"}, error="File not found: /p/DOCKET.md",
                               status="error"), 1, 1, id="read-missing"),
        pytest.param(tool_call("list_directory", {"dir_path": "/p/LFPython"},
                               error="Error: Directory not found or inaccessible: /p/LFPython", status="error"),
                     1, 1, id="list-missing"),
        pytest.param(tool_call("list_directory", {"path": "."}, error="Path must be absolute: .", status="error"),
                     0, 1, id="list-bad-path"),
        pytest.param(tool_call("list_directory", {"dir_path": "/p/app"}, "Directory /p/app is empty."),
                     0, 0, id="list-empty"),  # a project not yet started: looked at, nothing sought
        pytest.param(tool_call("list_directory", {"dir_path": "/p/venv"}, "Directory listing for /p/venv:\n[DIR] bin"),
                     0, 0, id="list-found"),
        pytest.param(tool_call("run_shell_command", {"command": "grep -rn retry_budget src"},
                               "Command: grep -rn retry_budget src\nDirectory: (root)\nOutput: (empty)\nError: (none)\n"
                               "Exit Code: 1\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 42"),
                     1, 1, id="shell-grep-exit-1"),
        pytest.param(tool_call("run_shell_command", {"command": "pip install x"},
                               "Command: pip install x\nDirectory: (root)\nOutput: bash: line 1: pip: command not found"
                               "\nError: (none)\nExit Code: 127\nSignal: 0"), 0, 1, id="shell-not-run"),
        pytest.param(tool_call("run_shell_command", {"command": "ls src"}, "Output: a.py\nb.py\nProcess Group PGID: 7"),
                     0, 0, id="shell-found"),
        pytest.param(tool_call("google_web_search", {"query": "restrictedpy"},
                               'No search results or information found for query: "restrictedpy"'), 1, 0,
                     id="web-search-empty"),
        pytest.param(tool_call("run_shell_command", {"command": "dir"}, error="Tool execution denied by policy.",
                               status="error"), 0, 1, id="denied-by-policy"),
        pytest.param(tool_call("write_file", {"path": "/tmp/x"}, error='Tool "write_file" not found in registry.',
                               status="error"), 0, 1, id="unknown-tool"),
    ],
)  # fmt: skip
def test_tool_results(call: dict[str, object], misses: int, failures: int) -> None:
    """``failures`` counts the calls that errored (a miss reported as an error is both)."""
    health = row(report_of(one_call(call).data()))
    assert (health.tools.calls, health.by_type["failed_search"], health.tools.failures) == (1, misses, failures)


def test_a_cancelled_call_is_cancelled_never_a_gap() -> None:
    call = tool_call("run_shell_command", {"command": "python3"}, error="[Operation Cancelled] Reason: User cancelled",
                     status="cancelled")  # fmt: skip
    quiet = tool_call("glob", {"pattern": "**/x.md"}, "No files found", status="cancelled")
    for one in (call, quiet):
        health = row(report_of(one_call(one).data()))
        assert (health.tools.cancelled, health.tools.failures, health.by_type["failed_search"]) == (1, 0, 0)


def test_a_chat_is_read_as_gemini() -> None:
    chat = one_call(tool_call("read_file", {"file_path": "/p/a.md"}, "text"))
    fold, stream = fold_of(chat.data())
    assert (stream.format, list(fold.skills)) == (formats.GEMINI_JSONL, ["gemini/general"])
    (summary,) = fold.segments.values()
    assert (summary.session_id, summary.agent, summary.turns) == ("55b29702-test", "gemini", 2)
    # tokens: input less cached, output with thoughts, cached as cache reads; once per message
    assert summary.tokens == (120, 30, 80, 0)


def test_a_message_written_again_counts_once() -> None:
    """The CLI appends a message again under its id when it changes (here: its tool calls arrive)."""
    chat = GeminiChat()
    chat.prompt("where is the docket?")
    chat.reply("I'll look [unknown] where it lives.", message_id="g1")
    call = tool_call("glob", {"pattern": "**/DOCKET.md"}, 'No files found matching pattern "**/DOCKET.md"')
    chat.reply("I'll look [unknown] where it lives.", [call], message_id="g1")
    chat.reply("It is not in the vault.")
    health = row(report_of(chat.data()))
    assert (health.tools.calls, health.by_type["failed_search"], health.by_type["explicit_marker"], health.turns) == (
        1,
        1,
        1,
        2,
    )


def test_a_call_still_running_waits_for_its_final_status() -> None:
    chat = GeminiChat()
    chat.prompt("run the tests")
    running = tool_call("run_shell_command", {"command": "grep -rn x ."}, "", status="executing", call_id="c1")
    chat.reply("", [running], message_id="g1")
    before = fold_of(chat.data())[0].overall.tool_calls
    done = tool_call("run_shell_command", {"command": "grep -rn x ."}, "Output: (empty)\nExit Code: 1", call_id="c1")
    chat.reply("", [done], message_id="g1")
    health = row(report_of(chat.data()))
    assert (before, health.tools.calls, health.by_type["failed_search"]) == (0, 1, 1)


def test_a_set_checkpoint_of_the_message_list_adds_nothing_read_already() -> None:
    chat = one_call(tool_call("glob", {"pattern": "**/x.md"}, "No files found matching pattern"))
    plain = row(report_of(chat.data()))
    chat.jsonl.append({"$set": {"messages": chat.messages}})
    again = row(report_of(chat.data()))
    assert (again.tools.calls, again.turns, again.by_type) == (plain.tools.calls, plain.turns, plain.by_type)


def test_a_rewind_keeps_what_the_rewound_calls_found() -> None:
    """``$rewindTo`` drops messages from the chat the agent sees; the misses happened and stand."""
    chat = GeminiChat()
    chat.prompt("find the config")
    chat.reply("", [tool_call("glob", {"pattern": "**/app.toml"}, "No files found matching pattern")], message_id="g1")
    chat.rewind("g1")
    chat.prompt("find the config, it is YAML")
    chat.reply("", [tool_call("glob", {"pattern": "**/app.yaml"}, "Found 1 file(s) matching")])
    fold, stream = fold_of(chat.data())
    health = row(build_report(fold, ["tmp"]))
    assert (health.tools.calls, health.by_type["failed_search"], stream.counters.ignored["rewind"]) == (2, 1, 1)


def test_activate_skill_opens_the_skill_unless_it_is_unknown() -> None:
    chat = GeminiChat()
    chat.prompt("make the pdf")
    chat.reply("", [tool_call("activate_skill", {"name": "pdf"}, '<activated_skill name="pdf">…</activated_skill>')])
    chat.reply("Using the pdf skill.")
    chat.prompt("now the chart")
    chat.reply("", [tool_call("activate_skill", {"name": "charts"}, error='Error: Skill "charts" not found.',
                              status="error")])  # fmt: skip
    chat.reply("No chart skill; doing it by hand.")
    report = report_of(chat.data())
    # the first prompt's segment holds no reply (the pdf call opens the skill): it does not count
    assert sorted((s.skill, s.segments) for s in report.skills) == [("general", 1), ("pdf", 1)]


def test_notices_and_injected_context_are_not_prompts() -> None:
    chat = GeminiChat()
    chat.prompt("fix the lint")
    chat.reply("", [tool_call("activate_skill", {"name": "lint"}, '<activated_skill name="lint">')])
    chat.add({"type": "info", "content": "Refreshing hierarchical memory (GEMINI.md or other context files)..."})
    chat.add({"type": "user", "content": [{"text": "<session_context>\nrefreshed\n</session_context>"}]})
    chat.reply("Lint fixed.")
    fold, stream = fold_of(chat.data())
    assert [(s.skill, s.segments) for s in build_report(fold, ["tmp"]).skills] == [("lint", 1)]
    assert (stream.counters.ignored["notice/info"], stream.counters.ignored["injected_context"]) == (1, 2)


def build_chat() -> GeminiChat:
    chat = GeminiChat()
    chat.prompt("audit the repo")
    chat.reply("", [tool_call("list_directory", {"path": "."}, error="Path must be absolute: .", status="error")])
    chat.reply("", [tool_call("grep_search", {"pattern": "TODO"}, 'No matches found for pattern "TODO" in path "/p".')])
    chat.reply(
        "I think [inferred] the tests are missing.", [tool_call("glob", {"pattern": "tests/**"}, "No files found")]
    )
    chat.prompt("ok")
    chat.reply("Done.")
    return chat


def figures(fold: Fold) -> list[tuple[str, int, int, int, int]]:
    return sorted((s.key, s.tool_calls, s.tool_failures, len(s.signals), s.turns) for s in fold.segments.values())


def test_a_document_gives_the_figures_of_the_same_chat_as_jsonl() -> None:
    chat = build_chat()
    jsonl, _ = fold_of(chat.data())
    document, stream = fold_of(chat.document(), DOCUMENT)
    assert stream.format == formats.GEMINI_JSON
    assert figures(document) == figures(jsonl)
    # one segment (a typed prompt cuts only a skill's segment): three calls, one of them a fault
    # (a relative path); two misses and a marker; four replies
    assert figures(jsonl) == [("55b29702-test|55b29702-test@2026-04-08T13:27:20.000Z|0", 3, 1, 3, 4)]


def test_a_document_read_in_any_chunking_or_rewritten_gives_its_last_version() -> None:
    """Read in pieces, the document is read whenever its bytes form one; rewritten (read again from
    the start, as the daemon does), the new reading's segments replace the old ones by key."""
    chat = build_chat()
    whole = figures(fold_of(chat.document(), DOCUMENT)[0])
    rng = random.Random(7)  # noqa: S311 (reproducible test data)
    for _ in range(5):
        assert figures(fold_of(chat.document(), DOCUMENT, chunk=rng.randint(1, 400))[0]) == whole
    early = GeminiChat()
    early.prompt("audit the repo")
    early.reply("Looking.")
    fold = Fold()
    for version in (early.document(), chat.document()):
        stream = StreamProcessor(DOCUMENT)
        stream.feed(version)
        for summary in stream.close():
            fold.upsert(summary)
    assert figures(fold) == whole


def test_a_broken_document_is_counted_and_the_last_whole_reading_stands() -> None:
    chat = build_chat()
    stream = StreamProcessor(DOCUMENT)
    stream.feed(chat.document())
    whole = sorted((s.key, len(s.signals)) for s in stream.take_changed())
    broken = StreamProcessor(DOCUMENT)
    broken.feed(chat.document()[:-40])
    assert (broken.close(), dict(broken.counters.bad_lines)) == ([], {"invalid_json": 1})
    assert whole[0][1] == 3


def test_shell_output_of_both_generations() -> None:
    old = (
        "Command: ls\nDirectory: (root)\nOutput: a\nb\nError: (none)\nExit Code: 0\nSignal: 0\nBackground PIDs: (none)"
    )
    assert shell_output(old) == ("a\nb", 0)
    assert shell_output("Output: (empty)\nProcess Group PGID: 1246") == ("", None)
    assert shell_output("no header at all") == ("no header at all", None)


def test_every_real_gemini_file_reads_without_error(real_fixtures: Path) -> None:
    files = sorted(p for p in real_fixtures.rglob("*") if formats.is_transcript(str(p.relative_to(real_fixtures))))
    files = [
        p for p in files if p.suffix == ".json" or formats.detect(p.read_bytes().split(b"\n", 1)[0]) == "gemini-jsonl"
    ]
    assert len(files) >= 18
    for path in files:
        fold, stream = fold_of(path.read_bytes(), path.name)
        assert (dict(stream.counters.bad_lines), stream.counters.orphan_results) == ({}, 0), path
        assert all(s.agent == "gemini" for s in fold.segments.values()), path
        assert not stream.counters.unknown_types, (path, stream.counters.unknown_types)


def test_the_chats_folder_rule() -> None:
    assert formats.is_transcript("tmp/proj/chats/session-1.json")
    assert formats.is_transcript("tmp/proj/chats/b1f3/xb7gtb.json")
    assert not formats.is_transcript("tmp/proj/logs.json")
    assert not formats.is_transcript("projects/-home-x/abc/subagents/agent-1.meta.json")
    assert json.loads(GeminiChat().document())["sessionId"] == "55b29702-test"


def test_chats_of_one_session_id_started_apart_are_two_streams() -> None:
    """Gemini's A2A server names every chat ``a2a-server``: the start time tells them apart."""
    fold = Fold()
    for start in ("2026-07-06T19:05:00.000Z", "2026-07-06T20:22:00.000Z"):
        chat = GeminiChat(session="a2a-server")
        chat.jsonl[0]["startTime"] = start
        chat.prompt("find the spec")
        chat.reply("", [tool_call("glob", {"pattern": "**/spec.md"}, "No files found matching pattern")])
        stream = StreamProcessor(f"p/chats/session-{start[:16]}-a2a-serv.jsonl")
        stream.feed(chat.data())
        fold.add_stream(stream)
    fold.finish()
    assert (fold.overall.segments, fold.overall.by_type["failed_search"]) == (2, 2)


def test_the_model_of_a_segment_is_its_messages_most_frequent() -> None:
    """Each Gemini message names its model (spec §9.5): the segment's is the one of most messages,
    the same read from JSONL or from a document; a message naming none is ``unknown``."""
    chat = GeminiChat()
    chat.prompt("audit the repo")
    chat.add({"type": "gemini", "content": "Looking.", "model": "gemini-2.5-flash"})
    chat.add({"type": "gemini", "content": "Still looking.", "model": "gemini-2.5-flash"})
    chat.reply("Done.")  # gemini-2.5-pro
    activate = tool_call("activate_skill", {"name": "pdf"}, '<activated_skill name="pdf">…</activated_skill>')
    chat.add({"type": "gemini", "content": "", "toolCalls": [activate]})
    chat.add({"type": "gemini", "content": "Using the pdf skill."})
    for data, name in ((chat.data(), JSONL), (chat.document(), DOCUMENT)):
        report = report_of(data, name)
        assert (row(report).by_model, row(report, "pdf").by_model) == ({"gemini-2.5-flash": 1}, {"unknown": 1})


def test_a_marker_in_a_thought_is_no_signal_and_one_in_the_reply_is() -> None:
    """Spec §3.2: markers count in assistant text parts; Gemini's thoughts are thinking parts."""
    chat = GeminiChat()
    chat.prompt("which registry do we push to?")
    thoughts = [{"subject": "Registry", "description": "The registry is [unknown] so far, 【推断】 the internal one."}]
    message = {"type": "gemini", "content": "Pushing to the internal registry [inferred].", "thoughts": thoughts}
    chat.add({**message, "model": "gemini-2.5-pro"})
    assert row(report_of(chat.data())).by_type["explicit_marker"] == 1


def test_messages_of_unknown_type_are_counted_and_change_nothing_else() -> None:
    """A message type the adapter does not know is counted by type, never fatal; the skill it
    falls inside goes on (spec §2: records of unknown type are ignored and counted)."""
    chat = GeminiChat()
    chat.prompt("make the pdf")
    chat.reply("", [tool_call("activate_skill", {"name": "pdf"}, '<activated_skill name="pdf">…</activated_skill>')])
    chat.add({"type": "compression_checkpoint", "content": "…"})
    chat.add({"type": 7, "content": "…"})
    chat.reply("Using the pdf skill.")
    fold, stream = fold_of(chat.data())
    assert [(s.skill, s.segments, s.turns) for s in build_report(fold, ["tmp"]).skills] == [("pdf", 1, 2)]
    assert dict(stream.counters.unknown_types) == {"compression_checkpoint": 1, "__other__": 1}


def test_a_state_snapshot_after_compression_does_not_end_a_skill() -> None:
    """The snapshot Gemini CLI writes as a user message when it compresses the chat is not typed by
    the person (spec §2, segment ends): the skill's segment goes on."""
    chat = GeminiChat()
    chat.prompt("make the pdf")
    chat.reply("", [tool_call("activate_skill", {"name": "pdf"}, '<activated_skill name="pdf">…</activated_skill>')])
    chat.add({"type": "user", "content": [{"text": "<state_snapshot>\n<overall_goal>make the pdf</overall_goal>"}]})
    chat.reply("Still on the pdf.")
    report = report_of(chat.data())
    assert [(s.skill, s.segments, s.turns) for s in report.skills] == [("pdf", 1, 2)]


def test_a_read_of_a_skill_file_opens_the_skill_from_general() -> None:
    """The fallback signal (spec §2, segment starts, 4): ``read_file`` of ``…/.agents/skills/<name>/SKILL.md``
    while the chat is in ``general`` opens ``<name>``; the read belongs to the new segment."""
    chat = GeminiChat()
    chat.prompt("release it")
    chat.reply("Checking how releases are done.")
    path = "/home/dev/shop/.agents/skills/release/SKILL.md"
    chat.reply("", [tool_call("read_file", {"absolute_path": path}, "---\nname: release\n---\n# Release")])
    chat.reply("Following the release steps.")
    report = report_of(chat.data())
    assert sorted((s.skill, s.segments, s.tools.calls) for s in report.skills) == [("general", 1, 0), ("release", 1, 1)]


@pytest.mark.parametrize(
    ("name", "display", "judged"),
    [
        ("mcp_docs_search_docs", "search_docs (docs MCP Server)", "mcp__docs__search_docs"),
        ("docs__search_docs", "search_docs (docs MCP Server)", "mcp__docs__search_docs"),
        ("search_docs", "search_docs (docs MCP Server)", "mcp__docs__search_docs"),
        ("mcp_my-db_run_query", "run_query (my-db MCP Server)", "mcp__my-db__run_query"),
        ("read_file", "ReadFile", "read_file"),  # a built-in tool's display name
        ("mcp_x_y_truncated___z", "a_very_long_tool (x MCP Server)", "mcp_x_y_truncated___z"),  # not its form
        ("search_docs", None, "search_docs"),
    ],
)
def test_an_mcp_tool_is_named_as_the_other_agents_name_it(name: str, display: str | None, judged: str) -> None:
    assert mcp_name(name, display) == judged


def test_a_gemini_mcp_search_that_found_nothing_is_a_miss_and_its_sql_write_is_a_write() -> None:
    def mcp(name: str, display: str, args: dict[str, object], output: str) -> dict[str, object]:
        return {**tool_call(name, args, output), "displayName": display}

    empty = mcp("mcp_docs_search_docs", "search_docs (docs MCP Server)", {"query": "retry budget"}, "")
    other = mcp("mcp_search-db_list_tables", "list_tables (search-db MCP Server)", {}, "")  # a server's name
    health = row(report_of(one_call(empty).data()))
    assert (health.tools.calls, health.by_type["failed_search"]) == (1, 1)
    health = row(report_of(one_call(other).data()))
    assert (health.tools.calls, health.by_type["failed_search"]) == (1, 0)
    insert = mcp("mcp_postgresql_execute_sql", "execute_sql (postgresql MCP Server)",
                 {"sql": "INSERT INTO t VALUES (1)"}, "INSERT 0 1")  # fmt: skip
    adapter = GeminiAdapter()
    events = [e for line in one_call(insert).data().splitlines() if line for e in adapter.decode(line)]
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [c.tool for c in calls] == ["mcp__postgresql__execute_sql"]
    write = write_of(calls[0])
    assert write is not None
    assert write.kind == "data"


@pytest.mark.parametrize(
    ("call", "misses", "failures"),
    [
        pytest.param(tool_call("web_fetch", {"prompt": "summarise https://docs.example.com/retry"},
                               "Request failed with status 404\nHeaders: {}\nResponse: Not Found"), 1, 0,
                     id="fetch-direct-404"),
        pytest.param(tool_call("web_fetch", {"prompt": "summarise https://docs.example.com/retry"},
                               "Request failed with status 403\nHeaders: {}\nResponse: Forbidden"), 0, 0,
                     id="fetch-direct-403"),
        pytest.param(tool_call("web_fetch", {"prompt": "summarise https://docs.example.com/retry"},
                               error="Error: All fallback fetch attempts failed: https://docs.example.com/retry: "
                                     "Request failed with status code 404 Not Found", status="error"), 1, 1,
                     id="fetch-fallback-404"),
        pytest.param(tool_call("web_fetch", {"prompt": "summarise https://docs.example.com/retry"},
                               error="Error: Error during fallback fetch for https://docs.example.com/retry: "
                                     "Request failed with status code 503 Service Unavailable", status="error"),
                     0, 1, id="fetch-fallback-503"),
        pytest.param(tool_call("grep_search", {"pattern": "retry_budget", "dir_path": "/p/lib"},
                               error="Path does not exist: /p/lib", status="error"), 1, 1, id="grep-no-path"),
        pytest.param(tool_call("glob", {"pattern": "**/deploy.md", "dir_path": "/p/ops"},
                               error="Search path does not exist /p/ops", status="error"), 1, 1, id="glob-no-path"),
        pytest.param(tool_call("grep_search", {"pattern": "retry_budget", "dir_path": "/etc"},
                               error='Path not in workspace: Attempted path "/etc" resolves outside the allowed '
                                     "workspace directories: /p or the project temp directory: /tmp/x",
                               status="error"), 0, 1, id="grep-outside-workspace"),
        pytest.param(tool_call("read_file", {"file_path": "/etc/retry.conf"},
                               error='Path not in workspace: Attempted path "/etc/retry.conf" resolves outside the '
                                     "allowed workspace directories: /p", status="error"), 0, 1,
                     id="read-outside-workspace"),
        pytest.param(tool_call("read_many_files", {"include": ["docs/**/retry*.md"]},
                               "No files matching the criteria were found or all were skipped."), 1, 0,
                     id="read-many-none"),
        pytest.param(tool_call("read_many_files", {"include": ["docs/**/retry*.md"]},
                               "--- /p/docs/retry.md ---\n\n# Retry\n"), 0, 0, id="read-many-found"),
        pytest.param(tool_call("search_file_content", {"pattern": "retry_budget"},
                               'No matches found for pattern "retry_budget" in the workspace directory.'), 1, 0,
                     id="grep-legacy-name"),
    ],
)  # fmt: skip
def test_gemini_tools_answer_not_found_in_their_own_words(call: dict[str, object], misses: int, failures: int) -> None:
    """Gemini CLI's tools, in the words its source gives them (``packages/core/src/tools``): ``web_fetch`` answers
    a 404 with ``Request failed with status 404`` as a plain result (direct mode) or inside an error (the
    fallback); ``grep_search``/``glob`` on a path that is not there error; ``Path not in workspace`` is the
    harness refusing, no miss; ``read_many_files`` matching nothing says so as a plain result."""
    health = row(report_of(one_call(call).data()))
    assert (health.tools.calls, health.by_type["failed_search"], health.tools.failures) == (1, misses, failures)


NOT_THERE_404 = "Request failed with status 404\nHeaders: {}\nResponse: Not Found"
NOTHING_READ = "No files matching the criteria were found or all were skipped."


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (tool_call("web_fetch", {"prompt": "Summarise https://docs.example.com/retry."}, NOT_THERE_404),
         "https://docs.example.com/retry"),
        (tool_call("read_many_files", {"paths": ["docs/retry.md"]}, NOTHING_READ), "docs/retry.md"),
        (tool_call("read_many_files", {"paths": ["docs/retry.md"], "include": ["**/retry*.md"]}, NOTHING_READ),
         "{**/retry*.md,docs/retry.md}"),
    ],
    ids=["web_fetch: the URL of its prompt", "read_many_files: its one path", "read_many_files: several"],
)  # fmt: skip
def test_what_a_gemini_miss_looked_for_is_named_as_claude_code_s(call: dict[str, object], pattern: str) -> None:
    """Spec §6: a WebFetch's pattern is its URL (Gemini's ``web_fetch`` names it in its prompt); a Glob's, its
    pattern (``read_many_files``' paths and globs)."""
    assert [gap.evidence["pattern"] for gap in gaps_of(report_of(one_call(call).data()))] == [pattern]


def test_a_page_the_person_gave_gemini_is_theirs() -> None:
    """§3.1 ``user_given``: the URL the person typed, fetched by ``web_fetch`` and not there, is theirs."""
    call = tool_call("web_fetch", {"prompt": "Summarise https://docs.example.com/retry"}, NOT_THERE_404)
    health = row(report_of(one_call(call, prompt="read https://docs.example.com/retry for me").data()))
    assert (health.by_type["failed_search"], health.user_given_misses) == (0, 1)


@pytest.mark.parametrize(
    ("text", "output", "code"),
    [
        ("Command: grep -rn retry_budget src\nDirectory: (root)\nStdout: (empty)\nStderr: (empty)\nError: (none)\n"
         "Exit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 42", "", 1),
        ("Command: cat a.md\nDirectory: (root)\nStdout: (empty)\nStderr: cat: a.md: No such file or directory\n\n"
         "Error: (none)\nExit Code: 1\nSignal: (none)", "cat: a.md: No such file or directory\n", 1),
        ("Command: ls\nDirectory: (root)\nStdout: a.py\nb.py\n\nStderr: (empty)\nError: (none)\nExit Code: 0",
         "a.py\nb.py\n", 0),
    ],
    ids=["nothing on either stream", "stderr only", "stdout only"],
)  # fmt: skip
def test_the_first_versions_streams_are_the_output(text: str, output: str, code: int) -> None:
    """Gemini CLI's first ``run_shell_command`` answers wrote ``Stdout:`` and ``Stderr:`` apart (its tool
    description says so); their text is the command's output as ``Output:`` is since."""
    assert shell_output(text) == (output, code)


def test_a_first_version_stderr_line_starting_error_is_output() -> None:
    """The first versions' ``Stderr:`` runs to the ``Error:`` field, the last such line: Node's ``Error: Cannot
    find module`` inside it is output (a module probe's answer), not the field."""
    text = (
        "Command: node -e \"require('left-pad')\"\nDirectory: (root)\nStdout: (empty)\nStderr: node:internal/x\n"
        "  throw err;\n  ^\n\nError: Cannot find module 'left-pad'\n\nError: (none)\nExit Code: 1\nSignal: (none)"
    )
    output, code = shell_output(text)
    assert ("Cannot find module 'left-pad'" in output, code) == (True, 1)
