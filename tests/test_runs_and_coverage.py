"""Spec §3.4 (repeated_failure: the calls walked in call order, whatever order their results come
back in) and §5 (coverage), for Codex CLI and Gemini CLI as for Claude Code. Hand-made transcripts
(``tests/agent_lines.py``, ``tests/claude_lines.py``); expected verdicts by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from omkd.engine.fold import Fold
from omkd.engine.report.build import build_report
from omkd.engine.report.schema import Report
from omkd.engine.stream import StreamProcessor
from omkd.shell.knowledge import FileKnowledgeIndex
from tests import claude_lines as cl
from tests import test_codex_adapter, test_gemini_adapter
from tests.agent_lines import GeminiChat, Rollout, tool_call
from tests.transcript_builder import gaps_of

pytestmark = pytest.mark.engine

PROMPT = "where is the retry config?"


def gemini_shell(command: str, output: str, code: int) -> dict[str, object]:
    text = f"Command: {command}\nDirectory: (root)\nOutput: {output or '(empty)'}\nError: (none)\nExit Code: {code}"
    return tool_call("run_shell_command", {"command": command}, text)


def codex_report(r: Rollout) -> Report:
    return test_codex_adapter.report_of(r.data())


def runs(report: Report) -> list[dict[str, object]]:
    return [gap.evidence for gap in gaps_of(report, "repeated_failure")]


GLOBS = {"a": "**/retry.yaml", "b": "src/**/*.py", "c": "**/retry.yml", "d": "**/retry.toml"}
"""b finds (a hit); a, c and d find nothing."""


def claude_runs(batches: list[list[str]], answers: list[str]) -> list[dict[str, object]]:
    """A prompt, then each batch of Glob calls in one assistant message (parallel calls), the
    results in the order ``answers`` gives (a call left out of it is never answered)."""
    records = [cl.user(PROMPT)]
    for n, batch in enumerate(batches):
        records += [cl.tool_use(f"toolu_{c}", "Glob", {"pattern": GLOBS[c]}, f"msg_{n}") for c in batch]
        for c in [c for c in answers if c in batch]:
            if c == "b":
                records.append(cl.tool_result("toolu_b", "/p/src/app.py", cl.glob_hit("/p/src/app.py")))
            else:
                records.append(cl.tool_result(f"toolu_{c}", "No files found", cl.GLOB_EMPTY))
    stream = StreamProcessor("s.jsonl")
    stream.feed(cl.jsonl(records))
    fold = Fold()
    fold.add_stream(stream)
    fold.finish()
    return runs(build_report(fold, ["r"]))


@pytest.mark.parametrize(
    ("batches", "answers", "count"),
    [
        ([["a", "b", "c", "d"]], ["a", "c", "d", "b"], 0),
        ([["a", "b"], ["c"], ["d"]], ["b", "a", "c", "d"], 0),
        ([["a", "c", "d"]], ["d", "a", "c"], 1),
        ([["a", "b", "c", "d"]], ["a", "b", "c", "d"], 0),
    ],
    ids=["a hit answered last still sits between", "a hit answered first still sits after a miss",
         "three misses answered in any order", "in order"],
)  # fmt: skip
def test_parallel_calls_are_walked_in_the_order_they_were_made(
    batches: list[list[str]], answers: list[str], count: int
) -> None:
    """Spec §3.4 walks the segment's tool calls in order: an assistant message's parallel calls are
    answered as each finishes, and a hit made between two misses resets the run wherever its
    result lands."""
    assert len(claude_runs(batches, answers)) == count


def test_a_call_never_answered_holds_no_later_message_back() -> None:
    """The hit b is never answered (a call the agent left behind); its batch-mate a waits for it
    only until a later message's result comes back: a, c and d are then a run of three."""
    assert [e["count"] for e in claude_runs([["b", "a"], ["c"], ["d"]], ["a", "c", "d"])] == [3]


def test_three_failed_codex_searches_in_a_row_are_one_repeated_failure() -> None:
    """Three ``find -name`` that print nothing, then a fourth: one run, one signal (tool, count 3, first turn)."""
    r = Rollout()
    r.prompt(PROMPT)
    for name in ("retry.yaml", "retry.yml", "retry.toml", "retry.ini"):
        r.exec(f"find . -name {name}", "", 0)
    report = codex_report(r)
    assert report.overall.by_type["failed_search"] == 4
    assert runs(report) == [{"tool": "exec_command", "count": 3, "first_turn": 1}]


def test_a_codex_040_shell_run_counts_as_exec_command_s_does() -> None:
    r = Rollout(version="0.40.0")
    r.prompt(PROMPT)
    for path in ("config/retry.yaml", "conf/retry.yaml", "etc/retry.yaml"):
        r.shell_040(f"cat {path}", f"cat: {path}: No such file or directory\n", 1)
    assert [e["tool"] for e in runs(codex_report(r))] == ["shell"]


def test_a_successful_codex_call_resets_the_run() -> None:
    """Two misses, a command that finds, one miss: no repeated_failure."""
    r = Rollout()
    r.prompt(PROMPT)
    r.exec("find . -name retry.yaml", "", 0)
    r.exec("find . -name retry.yml", "", 0)
    r.exec("ls config", "app.toml\n", 0)
    r.exec("find . -name retry.toml", "", 0)
    report = codex_report(r)
    assert (report.overall.by_type["failed_search"], runs(report)) == (3, [])


def test_three_failed_gemini_searches_in_one_reply_are_one_repeated_failure() -> None:
    """Gemini CLI answers several calls in one message: walked in order, three shell misses are a run."""
    chat = GeminiChat()
    chat.prompt(PROMPT)
    chat.reply("", [gemini_shell(f"find . -name retry.{ext}", "", 0) for ext in ("yaml", "yml", "toml")])
    report = test_gemini_adapter.report_of(chat.data())
    assert report.overall.by_type["failed_search"] == 3
    assert [(e["tool"], e["count"]) for e in runs(report)] == [("run_shell_command", 3)]


def test_a_gemini_miss_by_another_tool_resets_the_run() -> None:
    """shell, shell, glob, shell misses: no tool failed three times in a row."""
    chat = GeminiChat()
    chat.prompt(PROMPT)
    chat.reply("", [gemini_shell("find . -name retry.yaml", "", 0), gemini_shell("find . -name retry.yml", "", 0)])
    chat.reply("", [tool_call("glob", {"pattern": "**/retry*"}, 'No files found matching pattern "**/retry*"')])
    chat.reply("", [gemini_shell("find . -name retry.toml", "", 0)])
    report = test_gemini_adapter.report_of(chat.data())
    assert (report.overall.by_type["failed_search"], runs(report)) == (4, [])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with Codex's and Gemini's instruction files, a Codex skill and a file that is not knowledge."""
    root = tmp_path / "proj"
    files = {
        "AGENTS.md": "# Shop\nUse make.\n",
        "GEMINI.md": "# Shop\nUse make.\n",
        ".agents/skills/release/SKILL.md": "---\nname: release\n---\n",
        "src/app.py": "print('shop')\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_codex_shell_reader_accesses_its_knowledge_file(project: Path, tmp_path: Path) -> None:
    """Codex reads files with ``sed -n``/``cat``: AGENTS.md read, the skill and app.py not knowledge
    read; an in-place ``sed -i`` of the skill is an edit, not a read. Coverage 1 of 2."""
    r = Rollout(cwd=str(project))
    r.prompt("release the shop")
    r.exec("sed -n '1,200p' AGENTS.md", "# Shop\nUse make.\n")
    r.exec("cat src/app.py", "print('shop')\n")
    r.exec("sed -i 's/release/ship/' .agents/skills/release/SKILL.md", "")
    fold, _ = test_codex_adapter.fold_of(r.data())
    report = build_report(fold, ["sessions"], FileKnowledgeIndex(home=tmp_path / "home"))
    coverage = report.overall.coverage
    assert (coverage.accessed, coverage.files) == (1, 2)
    assert coverage.never_accessed == [f"{project}/.agents/skills/release/SKILL.md"]


def test_a_gemini_read_file_accesses_its_knowledge_file(project: Path, tmp_path: Path) -> None:
    """Gemini's ``read_file`` of GEMINI.md (its project taken from the chat's ``directories``): 1 of 1."""
    chat = GeminiChat()
    chat.jsonl[0]["directories"] = [str(project)]
    chat.prompt("what are the build rules?")
    chat.reply("", [tool_call("read_file", {"absolute_path": f"{project}/GEMINI.md"}, "# Shop\nUse make.\n")])
    fold, _ = test_gemini_adapter.fold_of(chat.data())
    report = build_report(fold, ["tmp"], FileKnowledgeIndex(home=tmp_path / "home"))
    coverage = report.overall.coverage
    assert (coverage.accessed, coverage.files, coverage.never_accessed) == (1, 1, [])
