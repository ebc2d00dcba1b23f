"""Spec §8 rules the first implementation departed from, each on a small hand-made transcript.

Expected outcomes are worked out by hand from the records each test writes, never by running omkd.
"""

from __future__ import annotations

import pytest

from omkd.engine.metacog.writes import shell_write
from tests import claude_lines as cl
from tests.metacog_helpers import NO_MATCH, episodes, glob_miss, only, read_hit, read_miss, run, write

pytestmark = pytest.mark.engine
ROOT = cl.CWD


# --- §8.5.2: only a miss's specific names make a write `created` ------------------------------------


@pytest.mark.parametrize("pattern", ["*", "**/*.md", ".*"])
def test_a_wildcard_survey_never_makes_a_write_created(pattern: str) -> None:
    data = run(glob_miss("t1", pattern, "m1"), write("w1", f"{ROOT}/NOTES.md", "m2"))
    assert only(episodes(data)).outcome == "proceeded"


def test_a_specific_name_of_a_glob_still_makes_a_write_created() -> None:
    data = run(glob_miss("t1", "**/NOTES*", "m1"), write("w1", f"{ROOT}/docs/NOTES.md", "m2"))
    assert only(episodes(data)).outcome == "created"


# --- §8.2.4: any call judged `found` is a lookup ---------------------------------------------------


def test_a_found_glob_whose_output_names_the_miss_recovers_it() -> None:
    data = run(
        [cl.tool_use("g1", "Grep", {"pattern": "generate_session_html"}, "m1"), cl.tool_result("g1", NO_MATCH)],
        [
            cl.tool_use("t2", "Glob", {"pattern": "**/*.py"}, "m2"),
            cl.tool_result("t2", f"{ROOT}/src/generate_session_html.py", cl.glob_hit("src/generate_session_html.py")),
        ],
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.outcome_line) == ("recovered", 5)
    assert "generate_session_html" in episode.outcome_how


def test_a_found_read_whose_text_names_the_miss_recovers_it() -> None:
    data = run(
        read_miss("r1", f"{ROOT}/bin/spotter-cli.exe", "m1"),
        read_hit("r2", f"{ROOT}/INSTALL.md", "m2", body="     1\tThe binary is tools/spotter-cli.exe after the build."),
    )
    assert only(episodes(data)).outcome == "recovered"


def test_a_failed_search_whose_error_names_the_miss_does_not_recover_it() -> None:
    data = run(read_miss("r1", f"{ROOT}/bin/spotter-cli.exe", "m1"), read_miss("r2", f"{ROOT}/spotter-cli.exe", "m2"))
    assert [e.outcome for e in episodes(data)] == ["dropped", "dropped"]


# --- §8.5.3: the hedge anchor's own sentence, inline code and all ----------------------------------


def test_a_closing_question_holding_a_hedge_sentence_with_inline_code_is_asked() -> None:
    sentence = "I need to check whether the parser in `src/parse.py` is exported."
    data = cl.jsonl([cl.user("add the column"), cl.text(f"{sentence}\n\nShould we move on?", "m1"), cl.user("yes")])
    assert only(episodes(data), "hedging").outcome == "asked"


# --- §8.3.1: a writer inside a PowerShell script block is a write -----------------------------------


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("foreach ($p in @('build','dist')) { if (Test-Path $p) { Remove-Item -Recurse -Force $p } }", ("$p",)),
        ("if (Test-Path out.txt) { Remove-Item out.txt }", ("out.txt",)),
        ("Get-ChildItem *.log | ForEach-Object { Move-Item $_ logs/ }", ("$_", "logs")),
    ],
)
def test_a_powershell_block_writer_is_a_shell_write(command: str, paths: tuple[str, ...]) -> None:
    found = shell_write(command)
    assert found is not None
    assert (found.kind, found.paths) == ("shell_write", paths)


def test_a_powershell_block_of_readers_writes_nothing() -> None:
    assert shell_write("foreach ($p in $paths) { if (Test-Path $p) { Get-Content $p } }") is None


def test_a_miss_then_a_powershell_block_removal_proceeds() -> None:
    removal = "foreach ($p in @('build','dist')) { if (Test-Path $p) { Remove-Item -Recurse -Force $p } }"
    data = run(
        read_miss("r1", f"{ROOT}/.gitignore", "m1"),
        [cl.tool_use("p1", "PowerShell", {"command": removal}, "m2"), cl.tool_result("p1", "")],
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.outcome_line) == ("proceeded", 4)


def test_a_bash_group_is_still_read_as_before() -> None:
    found = shell_write("cd x && { rm -f a.txt; }")
    assert found is not None
    assert found.paths == ("a.txt",)
