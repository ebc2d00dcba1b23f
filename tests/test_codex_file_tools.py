"""Codex CLI's file tools beside its shell: ``grep_files``, ``read_file`` and ``list_dir`` (codex-rs
``core/src/tools/handlers``, offered to some models). Spec §3.1 judges a tool as the one it does the work
of: ``grep_files`` as Grep, ``read_file`` as Read, ``list_dir`` as a directory listing. Their answers, as
the handlers write them: ``No matches found.``; ``failed to read file: <io error>``; ``failed to read
directory: <io error>``; ``unable to access `<path>`: <io error>`` for a search path that is not there.
A Codex tool output carries no error flag, so these wordings are the error. Hand-made rollouts, figures
by hand from the spec's words."""

from __future__ import annotations

import pytest

from omkd.engine.report.schema import Report
from tests import test_codex_adapter
from tests.agent_lines import Rollout
from tests.transcript_builder import gaps_of

pytestmark = pytest.mark.engine

NOT_THERE = "No such file or directory (os error 2)"


def report(name: str, arguments: dict[str, object], output: str) -> Report:
    rollout = Rollout()
    rollout.prompt("make the client retry on 503")
    call_id = rollout.call(name, arguments)
    rollout.output(call_id, output)
    return test_codex_adapter.report_of(rollout.data())


def misses(found: Report) -> list[object]:
    return [gap.evidence["pattern"] for gap in gaps_of(found, "failed_search")]


@pytest.mark.parametrize(
    ("name", "arguments", "output", "pattern"),
    [
        ("grep_files", {"pattern": "RetryBudget", "path": "src"}, "No matches found.", "RetryBudget"),
        ("grep_files", {"pattern": "RetryBudget", "path": "/home/dev/shop/lib"},
         f"unable to access `/home/dev/shop/lib`: {NOT_THERE}", "RetryBudget"),
        ("read_file", {"file_path": "/home/dev/shop/docs/retry.md"}, f"failed to read file: {NOT_THERE}",
         "docs/retry.md"),
        ("list_dir", {"dir_path": "/home/dev/shop/docs/adr"}, f"failed to read directory: {NOT_THERE}", "docs/adr"),
        ("read_file", {"file_path": "/home/dev/shop/docs/retry.md"},
         "failed to read file: The system cannot find the file specified. (os error 2)", "docs/retry.md"),
        ("list_dir", {"dir_path": "/home/dev/shop/docs/adr"},
         "failed to read directory: The system cannot find the path specified. (os error 3)", "docs/adr"),
    ],
    ids=["grep_files, no match", "grep_files, no such path", "read_file", "list_dir", "read_file on Windows",
         "list_dir on Windows"],
)  # fmt: skip
def test_a_file_tool_that_found_nothing_is_a_failed_search(
    name: str, arguments: dict[str, object], output: str, pattern: str
) -> None:
    assert misses(report(name, arguments, output)) == [pattern]


@pytest.mark.parametrize(
    ("name", "arguments", "output"),
    [
        ("grep_files", {"pattern": "RetryBudget"}, "/home/dev/shop/src/retry.rs"),
        ("read_file", {"file_path": "/home/dev/shop/src/retry.rs"}, "L1: pub struct RetryBudget {"),
        ("list_dir", {"dir_path": "/home/dev/shop/src"}, "Absolute path: /home/dev/shop/src\nretry.rs"),
        ("read_file", {"file_path": "/home/dev/shop/src/retry.rs", "offset": 900}, "offset exceeds file length"),
        ("read_file", {"file_path": "src/retry.rs"}, "file_path must be an absolute path"),
        ("list_dir", {"dir_path": "/home/dev/shop/src", "offset": 40}, "offset exceeds directory entry count"),
        ("read_file", {"file_path": "/etc/shadow"}, "failed to read file: Permission denied (os error 13)"),
        ("grep_files", {"pattern": "retry(?=budget)"},
         "rg failed: rg: regex parse error:\n    retry(?=budget)\n         ^^^\nerror: look-around is not supported"),
        ("grep_files", {"pattern": "  "}, "pattern must not be empty"),
        ("grep_files", {"pattern": "RetryBudget"},
         f"failed to launch ripgrep at `rg`: {NOT_THERE}. Ensure ripgrep is installed and on PATH"),
        ("grep_files", {"pattern": "RetryBudget", "include": "*.{ts"},
         "rg failed: rg: error parsing glob '*.{ts': unclosed alternate group; missing '}'"),
        ("grep_files", {}, "failed to parse function arguments: missing field `pattern` at line 1 column 2"),
        ("grep_files", {"pattern": "RetryBudget", "path": "/root/secret"},
         "unable to access `/root/secret`: Permission denied (os error 13)"),
    ],
    ids=["grep_files found", "read_file found", "list_dir found", "past the end", "a relative path",
         "past the last entry", "permission denied", "a regex ripgrep cannot run", "an empty pattern",
         "no ripgrep", "a glob ripgrep cannot read", "arguments refused", "a path it may not read"],
)  # fmt: skip
def test_a_file_tool_that_found_or_was_refused_is_no_gap(name: str, arguments: dict[str, object], output: str) -> None:
    """Found, or the tool refused its arguments: an offset past the end, a relative path, a permission
    error are faults of the call, not a missing thing (§3.1)."""
    assert misses(report(name, arguments, output)) == []
