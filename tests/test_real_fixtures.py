"""Every real fixture file scans cleanly, and a few figures agree with a hand count.

Expected figures here come from reading the files with other tools (python ``json``, jq,
grep), never from omkd; each comment says how a figure was established.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import orjson
import pytest

from omkd.engine import records
from omkd.engine.events import Event, ToolCall, UserPrompt
from omkd.engine.formats.claude_code import ClaudeCodeAdapter
from omkd.engine.lines import LineSplitter
from omkd.engine.records import to_data
from omkd.engine.report.build import build_report
from omkd.engine.report.schema import Report
from omkd.shell.scan import scan
from tests.conftest import REAL_FIXTURES

pytestmark = pytest.mark.engine

# Record types Claude Code writes (seen in real transcripts); any other type is "unknown".
DOCUMENTED_TYPES = frozenset(
    {
        "assistant", "user", "system", "progress", "attachment", "queue-operation",
        "file-history-snapshot", "last-prompt", "ai-title", "custom-title", "agent-name",
        "permission-mode", "summary", "pr-link",
    }
)  # fmt: skip

SMALL_GLOB = Path(
    "iansherr__claude-code-log/-Users-dain-workspace-danieldemmel-me-next/5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl"
)
SKILL_SESSION = Path("marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
GEMINI = Path("jnarowski__agentcmd/gemini/full/session-2025-10-29T10-39-a63242d9.json")
EMPTY = Path(
    "iansherr__claude-code-log/-Users-dain-workspace-danieldemmel-me-next/7864f562-717b-4d70-a1cb-b588f7826a1a.jsonl"
)
CODEX = Path("kvsankar__agent-history/real_sessions/codex/session-01.jsonl")


def every_file() -> list[Path]:
    """All files under the fixture root, relative to it.

    Without the root, one placeholder keeps the test collected, so that ``real_fixtures`` fails it
    instead of pytest skipping an empty parameter set.
    """
    if not REAL_FIXTURES.is_dir():
        return [Path("fixtures-missing")]
    return sorted(p.relative_to(REAL_FIXTURES) for p in REAL_FIXTURES.rglob("*") if p.is_file())


def catalogue() -> set[Path]:
    """The files SOURCES.md lists: every table row under a ``### `owner__repo/` `` heading."""
    listed: set[Path] = set()
    section: str | None = None
    for line in (REAL_FIXTURES / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^### `([^`]+)/`", line)
        if heading:
            section = heading.group(1)
            continue
        row = re.match(r"^\| `([^`]+)` \|", line)
        if row and section is not None:
            listed.add(Path(section) / row.group(1))
    return listed


def report_of(paths: list[Path]) -> Report:
    return build_report(scan(paths), [str(p) for p in paths], gap_limit=None)


def events_of(path: Path) -> list[Event]:
    """Every event the adapter makes of a file, read in one pass."""
    adapter = ClaudeCodeAdapter()
    return [event for one in LineSplitter().feed(path.read_bytes()) for event in adapter.decode(one)]


CODEX_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state"})
CODEX_ITEMS = frozenset(
    {
        "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
        "custom_tool_call_output", "tool_search_call", "tool_search_output", "local_shell_call", "web_search_call",
    }
)  # fmt: skip
GEMINI_MESSAGES = frozenset({"user", "gemini", "info", "error", "warning"})


def independent_line_census(data: bytes, name: str) -> tuple[int, int, Counter[str], Counter[str], int]:
    """(complete lines, records, bad lines by reason, unknown named types, untyped objects) via python
    ``json``, by the format rules of ``docs/other-agents.md`` (not omkd's code):

    - a ``.json`` file is one document: a Gemini chat's records are its ``messages``; a JSON file
      that holds no ``messages`` list (a sub-agent's ``.meta.json``) is one line of bad shape;
    - a JSONL stream whose first object has a ``payload`` is a Codex rollout: its unknown types are
      the top-level types Codex does not write and the ``response_item`` types it does not either
      (named ``response_item/<type>``);
    - a JSONL stream whose first object is a Gemini header (``sessionId`` and no ``type``) is a
      Gemini chat: unknown message types are counted;
    - anything else is Claude Code's, with the types it writes (``DOCUMENTED_TYPES``).
    """
    complete = data.split(b"\n")[:-1]
    bad: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    if name.endswith(".json"):
        document = json.loads(data)
        messages = document.get("messages") if isinstance(document, dict) else None
        if not isinstance(messages, list):
            return data.count(b"\n"), 0, Counter({"bad_shape": 1}), unknown, 0
        unknown.update(m["type"] for m in messages if m.get("type") not in GEMINI_MESSAGES)
        return data.count(b"\n"), len(messages), bad, unknown, 0
    objects = untyped = 0
    values = []
    for one in complete:
        if not one.strip():
            continue
        try:
            value = json.loads(one.decode("utf-8"))
        except UnicodeDecodeError:
            bad["invalid_utf8"] += 1
            continue
        except ValueError:
            bad["invalid_json"] += 1
            continue
        if not isinstance(value, dict):
            bad["not_object"] += 1
            continue
        objects += 1
        values.append(value)
    first = values[0] if values else {}
    if isinstance(first.get("payload"), dict):
        for value in values:
            kind = value.get("type")
            if kind not in CODEX_TYPES:
                unknown[str(kind)] += 1
            elif kind == "response_item" and value["payload"].get("type") not in CODEX_ITEMS:
                unknown[f"response_item/{value['payload'].get('type')}"] += 1
        return len(complete), objects, bad, unknown, 0
    if "sessionId" in first and "type" not in first:
        for value in values[1:]:
            if "$set" not in value and "$rewindTo" not in value and value.get("type") not in GEMINI_MESSAGES:
                unknown[str(value.get("type"))] += 1
        return len(complete), objects, bad, unknown, 0
    for value in values:
        kind = value.get("type")
        if not isinstance(kind, str):
            untyped += 1
        elif "." in kind and "uuid" not in value:
            continue  # a `codex exec --json` event
        elif kind not in DOCUMENTED_TYPES or (kind in ("user", "assistant") and "message" not in value):
            unknown[kind] += 1
    return len(complete), objects, bad, unknown, untyped


def test_fixture_set_is_complete(real_fixtures: Path) -> None:
    """The fixture directory holds exactly the files SOURCES.md lists (plus SOURCES.md itself)."""
    assert set(every_file()) - {Path("SOURCES.md")} == catalogue()


@pytest.mark.parametrize("relative", every_file(), ids=str)
def test_every_real_file_scans_with_everything_accounted_for(real_fixtures: Path, relative: Path) -> None:
    """Any file (Claude, Codex, Gemini .json, meta.json) scans without error, every line accounted for."""
    path = real_fixtures / relative
    data = path.read_bytes()
    lines, objects, bad, unknown, untyped = independent_line_census(data, relative.name)
    pipeline = report_of([path]).pipeline
    # a document is read whole: its last line is not a partial record
    partial = 1 if data and not data.endswith(b"\n") and relative.suffix != ".json" else 0
    actual = (pipeline.files, pipeline.lines, pipeline.records, pipeline.bad_lines, pipeline.partial_at_end)
    assert actual == (1, lines, objects, dict(bad), partial)
    assert sum(pipeline.unknown_types.values()) == sum(unknown.values()) + untyped
    assert {kind: n for kind, n in pipeline.unknown_types.items() if kind in unknown} == dict(unknown)


def test_all_files_together_scan_without_error(real_fixtures: Path) -> None:
    """All files passed at once, each explicitly, are folded in one scan: one stream per file."""
    paths = [real_fixtures / relative for relative in every_file()]
    report = report_of(paths)
    newlines = sum(p.read_bytes().count(b"\n") for p in paths)
    assert (report.pipeline.files, report.pipeline.lines) == (len(catalogue()) + 1, newlines)


def test_other_agents_files_do_not_disturb_claude_streams(real_fixtures: Path) -> None:
    """A Gemini document and a Codex rollout scanned alongside a Claude transcript leave its rows
    unchanged; theirs are rows of their own agents."""
    claude = real_fixtures / SMALL_GLOB
    alone = report_of([claude])
    mixed = report_of([real_fixtures / GEMINI, claude, real_fixtures / CODEX])
    claude_rows = [to_data(s) for s in mixed.skills if s.agent == "claude_code"]
    assert claude_rows == [to_data(s) for s in alone.skills]
    assert sorted((s.skill, s.agent) for s in mixed.skills) == [
        ("general", "claude_code"),
        ("general", "codex"),
        ("general", "gemini"),
    ]


def test_hand_count_small_glob_session(real_fixtures: Path) -> None:
    """5ed31c36 (2.0.28): 12 records, 1 typed prompt, 3 Glob misses: 3 failed searches and 1 repeated failure."""
    path = real_fixtures / SMALL_GLOB
    # Records: `jq -s length` = 12 (`jq -r .type | uniq -c`: 7 assistant, 5 user).
    # Typed prompts: the only user record with text parts is line 1 (an <ide_opened_file> part plus the
    #   question); the other 4 user records hold one tool_result each.
    # Tool calls (`jq '.message.content[] | select(.type=="tool_use") | [.name, .input.pattern]'`):
    #   Glob "**/.markdownlint*", Glob "**/markdownlint.*", Glob "**/.markdownlintrc*", Write.
    # `grep -o '"content":"No files found"' | wc -l` = 3: every Glob found nothing (toolUseResult numFiles 0).
    # Spec §3.1: 3 failed searches (distinct patterns, so none de-duplicated); §3.4: 3 misses of the same
    #   tool in a row, so 1 repeated_failure. No Skill call, no command frame: one `general` segment.
    report = report_of([path])
    events = events_of(path)
    [general] = report.skills
    assert (report.pipeline.records, sum(isinstance(e, UserPrompt) for e in events)) == (12, 1)
    assert (general.skill, general.segments, general.gap_segments, general.tools.calls) == ("general", 1, 1, 4)
    assert (general.by_type["failed_search"], general.by_type["repeated_failure"]) == (3, 1)


def test_hand_count_session_with_skill_and_compaction(real_fixtures: Path) -> None:
    """ae4a77f8 (2.1.39): 2,385 records, 1,697 progress mirrors, 2 typed prompts, 1 Skill call, 3 segments."""
    path = real_fixtures / SKILL_SESSION
    # Records: `jq -s length` = 2385; `jq -r .type | sort | uniq -c`: 408 assistant, 249 user,
    #   1697 progress, 26 file-history-snapshot, 5 system.
    # Skill calls: `jq 'select(.type=="assistant") | .message.content[] | select(.name=="Skill") | .input'`
    #   gives one: {"skill":"elixir:hex-docs-search","args":"opentelemetry_bandit setup"} (line 73).
    # User records with string content or text parts (jq), in order: line 7 "Work on bead spotter-4te..."
    #   (typed), an isMeta "Base directory for this skill", line 1482 the isCompactSummary summary, an isMeta
    #   caveat, line 1484 the /compact frame, line 1485 <local-command-stdout>, line 1491 "continue
    #   implementation" (typed): 2 typed prompts.
    # Segments: general from line 7; the Skill call at 73 opens elixir:hex-docs-search; /compact is
    #   built-in and compaction is not a typed prompt, so the skill runs until the typed prompt at 1491, which
    #   opens a second general segment (assistant records at 2364..2380 make it count). `grep -c SKILL.md` = 0.
    report = report_of([path])
    events = events_of(path)
    skill_calls = [e.input.get("skill") for e in events if isinstance(e, ToolCall) and e.tool == "Skill"]
    assert (report.pipeline.records, report.pipeline.ignored["progress"]) == (2385, 1697)
    assert (sum(isinstance(e, UserPrompt) for e in events), skill_calls) == (2, ["elixir:hex-docs-search"])
    assert {s.skill: s.segments for s in report.skills} == {"general": 2, "elixir:hex-docs-search": 1}


def test_hand_count_gemini_document(real_fixtures: Path) -> None:
    """a63242d9: a Gemini chat document of 2 messages whose one tool call the CLI did not have."""
    path = real_fixtures / GEMINI
    # `wc -l` = 67 newlines (pretty-printed). `jq '.messages[] | [.type, (.toolCalls // [] | map([.name, .status]))]'`:
    #   ["user", []], ["gemini", [["write_file", "error"]]]; the error is `Tool "write_file" not found in
    #   registry…`: the harness refused the call (a tool fault, never a gap). One reply: one segment, one turn.
    report = report_of([path])
    pipeline = report.pipeline
    assert (pipeline.lines, pipeline.records, pipeline.bad_lines, pipeline.partial_at_end) == (67, 2, {}, 0)
    [general] = report.skills
    assert (general.skill, general.agent, general.segments, general.turns) == ("general", "gemini", 1, 1)
    assert (general.tools.calls, general.tools.failures, general.gap_segments) == (1, 1, 0)


def test_hand_count_codex_rollout(real_fixtures: Path) -> None:
    """session-01 (Codex 0.135): 11 records, the prompt and the reply redacted, no tool call."""
    path = real_fixtures / CODEX
    # `jq -r '[.type, .payload.type, .payload.role] | @tsv'`: session_meta, event_msg task_started,
    #   response_item message developer, response_item message user `<environment_context>…`, turn_context,
    #   response_item message user `[REDACTED_PROMPT]`, event_msg user_message, event_msg agent_message,
    #   response_item message assistant `[REDACTED_ASSISTANT_TEXT]`, event_msg token_count, event_msg
    #   task_complete. The event_msg records mirror messages (skipped); the developer message and the
    #   environment context are Codex's own; one typed prompt, one reply: one segment.
    report = report_of([path])
    pipeline = report.pipeline
    assert (pipeline.records, pipeline.bad_lines, pipeline.unknown_types) == (11, {}, {})
    assert (pipeline.ignored["event_msg"], pipeline.ignored["injected_context"]) == (5, 1)
    [general] = report.skills
    assert (general.agent, general.segments, general.turns, general.tools.calls) == ("codex", 1, 1, 0)


def test_folding_order_does_not_change_the_report(real_fixtures: Path) -> None:
    """Folding the same files in reverse order gives the same per-skill figures."""
    paths = [real_fixtures / r for r in every_file() if r.suffix == ".jsonl"]
    forward, backward = report_of(paths), report_of(paths[::-1])
    assert [to_data(s) for s in backward.skills] == [to_data(s) for s in forward.skills]
    assert to_data(backward.overall) == to_data(forward.overall)


def test_empty_transcript_is_a_stream_without_segments(real_fixtures: Path) -> None:
    """The 0-byte transcript (7864f562, `wc -c` = 0) is one stream with no lines and no segments."""
    report = report_of([real_fixtures / EMPTY])
    assert (report.pipeline.files, report.pipeline.lines, report.overall.segments, report.skills) == (1, 0, 0, [])


FORK_DIR = Path("Xu-Wentao__dotfile/-Users-xuwentao-Projects-github-volcano")
FORK_PARENT = FORK_DIR / "7ef4b236-d946-48a6-a856-e45b02af7be7.jsonl"
FORK = FORK_DIR / "7ef4b236-d946-48a6-a856-e45b02af7be7/subagents/agent-aside_question-fcbf929fc3d4fdc0.jsonl"


def test_side_question_fork_counts_only_the_question_and_its_answer(real_fixtures: Path) -> None:
    """A /btw fork repeats its parent's conversation, then asks one question: only the question counts.

    The fork file has 78 records (`wc -l`). Records 1-76 carry uuids that also occur in the parent
    file (`grep -c <uuid>` on the parent finds each), so they are the copy; record 77 is the user
    record `<system-reminder>This is a side question from the user…` and record 78 the assistant's
    answer (one text part, no tool call): one segment, one turn.
    """
    fork = report_of([real_fixtures / FORK])
    assert (fork.pipeline.records, fork.pipeline.ignored["fork_copy"]) == (78, 76)
    assert (fork.overall.segments, fork.overall.turns, fork.overall.tools.calls) == (1, 1, 0)
    parent = report_of([real_fixtures / FORK_PARENT])
    both = report_of([real_fixtures / FORK_PARENT, real_fixtures / FORK])
    reverse = report_of([real_fixtures / FORK, real_fixtures / FORK_PARENT])
    # The fork adds its one segment and nothing of the parent's twice, whatever the folding order.
    assert both.overall.segments == parent.overall.segments + 1
    assert both.overall.turns == parent.overall.turns + 1
    assert both.overall.tools.calls == parent.overall.tools.calls
    assert to_data(reverse.overall) == to_data(both.overall)


def test_weighted_rates_are_exact_on_every_real_file(real_fixtures: Path) -> None:
    """The weighted gap rate never exceeds the gap rate and soft_share is never negative, to the
    last digit (full- and half-weight segments are counted as integers)."""
    report = report_of([real_fixtures / r for r in every_file() if r.suffix == ".jsonl"])
    for health in [*report.skills, report.overall]:
        assert health.weighted_gap_rate <= health.gap_rate, health.skill
        assert health.soft_share >= 0.0, health.skill
        expected = (2 * (health.gap_segments - health.half_weight_segments) + health.half_weight_segments) / (
            2 * health.segments
        )
        assert health.weighted_gap_rate == expected, health.skill


@pytest.mark.parametrize("which", ["every file", "no file"])
def test_the_json_report_reads_back_as_the_same_report(real_fixtures: Path, which: str) -> None:
    """The JSON document of a report validates back as a ``Report`` (as ``omkd status`` reads the
    daemon's) and is then the same bytes: every figure has its field's type (a float field never
    holds an integer, which would print ``0`` where a validated record printed ``0.0``)."""
    paths = [real_fixtures / relative for relative in every_file()] if which == "every file" else []
    document = orjson.dumps(to_data(report_of(paths)))
    assert orjson.dumps(to_data(records.parse(Report, orjson.loads(document)))) == document
