"""The failed-search rules of the README's "How omkd computes" that real transcripts taught:
shell outputs Claude Code does not mark as errors, fallbacks that hide a miss, any pipeline stage,
wrapped tools, WebFetch, syntax errors and tool faults. Hand-made transcripts, figures by hand."""

from __future__ import annotations

from typing import Any

import pytest

from tests.transcript_builder import (
    ABSENT,
    Transcript,
    bash_detail,
    gaps_of,
    health_of,
    overall_signals,
    report_of,
    signal_counts,
)

pytestmark = pytest.mark.engine


def one_call(
    tool: str, tool_input: dict[str, Any], content: Any, is_error: object = ABSENT, detail: object = ABSENT
) -> Transcript:
    """A typed prompt that names nothing searched for, a skill, then the call under test."""
    t = Transcript()
    t.prompt("make the client retry on 503")
    t.skill("http-client")
    t.call(tool, tool_input, content, is_error=is_error, detail=detail)
    return t


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("find /home/dev/shop/deploy -name '*.yaml'", "find: '/home/dev/shop/deploy': No such file or directory"),
        ("ls /home/dev/shop/deploy", "ls: cannot access '/home/dev/shop/deploy': No such file or directory"),
        ("cat deploy/retry.yaml", "cat: deploy/retry.yaml: No such file or directory"),
        ("rg retry_policy deploy/", "rg: deploy/: No such file or directory (os error 2)"),
        (
            "ls deploy/a.yaml deploy/b.yaml",
            "ls: cannot access 'deploy/a.yaml': No such file or directory\n"
            "ls: cannot access 'deploy/b.yaml': No such file or directory",
        ),
    ],
    ids=["find", "ls", "cat", "rg", "ls two paths"],
)
def test_a_search_whose_only_output_is_its_not_found_message_is_a_miss(command: str, output: str) -> None:
    """Claude Code does not mark these runs as errors (is_error absent): the output alone says "not there"."""
    report = report_of(one_call("Bash", {"command": command}, output, detail=bash_detail(stdout=output)))
    assert signal_counts(report.overall) == {"failed_search": 1}


def test_a_listing_with_one_missing_path_found_something() -> None:
    """``ls a b`` that lists a and misses b printed what it found: not a miss."""
    output = "deploy/a.yaml\nls: cannot access 'deploy/b.yaml': No such file or directory"
    assert overall_signals(one_call("Bash", {"command": "ls deploy/a.yaml deploy/b.yaml"}, output)) == {}


@pytest.mark.parametrize(
    ("command", "output", "misses"),
    [
        ('cat .python-version 2>/dev/null || echo "no .python-version"', "no .python-version", 1),
        ("ls deploy/ 2>/dev/null || echo 'Not found'", "Not found", 1),
        ("test -f deploy/retry.yaml && echo yes || echo no", "no", 1),
        ("grep -rn retry_policy src/ || printf 'none\\n'", "none", 1),
        ("test -f deploy/retry.yaml && echo yes || echo no", "yes", 0),
        ('cat .python-version 2>/dev/null || echo "no .python-version"', "3.11.7", 0),
    ],
    ids=["cat || echo", "ls || echo", "test && || echo no", "grep || printf", "test found", "cat found"],
)
def test_a_fallback_that_hides_the_miss_is_a_miss(command: str, output: str, misses: int) -> None:
    """``… || echo TEXT`` whose output is exactly TEXT: the fallback ran because the search found nothing."""
    t = one_call("Bash", {"command": command}, output, detail=bash_detail(stdout=output))
    assert overall_signals(t) == ({"failed_search": misses} if misses else {})


@pytest.mark.parametrize(
    "command",
    [
        "git diff HEAD~3 | grep -n retry_policy",
        "cat src/client.py | grep retry_policy",
        "echo $PATH | tr ':' '\\n' | grep node",
    ],
    ids=["git diff | grep", "cat | grep", "three stages"],
)
def test_any_stage_of_a_pipeline_can_be_the_search(command: str) -> None:
    """A pipeline is a search when any stage is: ``git diff | grep x`` answering "No matches found" missed."""
    t = one_call("Bash", {"command": command}, "", detail=bash_detail(interpretation="No matches found"))
    assert overall_signals(t) == {"failed_search": 1}


def test_a_failing_part_that_is_not_a_search_is_not_a_gap() -> None:
    """The build failed before the grep ran: a failure, no gap."""
    output = "Exit code 2\nsrc/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."
    t = one_call("Bash", {"command": "npm run build && grep -rn retry src/"}, output, True, f"Error: {output}")
    report = report_of(t)
    assert (signal_counts(report.overall), health_of(report, "http-client").tools.failures) == ({}, 1)


@pytest.mark.parametrize(
    "output",
    [
        "Exit code 2\n/bin/bash: -c: line 1: unexpected EOF while looking for matching `''",
        "Exit code 2\n/bin/bash: -c: line 0: syntax error near unexpected token `('",
        "Exit code 1\nzsh:1: parse error near `)'",
        "Exit code 1\n(eval):1: unmatched '",
        "Exit code 127\nfish: Unexpected end of string, quotes are not balanced",
    ],
    ids=["unexpected EOF", "unexpected token", "zsh's parse error", "zsh's unmatched quote", "fish's"],
)
def test_a_shell_syntax_error_is_not_a_gap(output: str) -> None:
    """The agent's typo, not a missing thing: a failure, no gap."""
    t = one_call("Bash", {"command": "grep -rn 'retry(' src/ | head"}, output, True, f"Error: {output}")
    report = report_of(t)
    assert (signal_counts(report.overall), health_of(report, "http-client").tools.failures) == ({}, 1)


def test_here_document_bodies_and_redirections_are_not_commands() -> None:
    """``cat > f <<EOF`` writes a file; the words of its body (``find the…``) run nothing."""
    command = "cat > notes.md <<'EOF'\nfind the retry settings\nls them all\nEOF"
    assert overall_signals(one_call("Bash", {"command": command}, "")) == {}


@pytest.mark.parametrize(
    ("command", "output", "is_error"),
    [
        ("which fzf", "", True),
        ("command -v fzf", "Exit code 1", True),
        ("type fzf", "bash: type: fzf: not found", True),
    ],
    ids=["which", "command -v", "type"],
)
def test_looking_for_a_program_that_is_not_there_is_a_miss(command: str, output: str, is_error: bool) -> None:
    """``which X``, ``command -v X`` and ``type X`` are probes: X not found is a miss."""
    assert overall_signals(one_call("Bash", {"command": command}, output, is_error)) == {"failed_search": 1}


@pytest.mark.parametrize(
    ("tool", "tool_input", "content", "is_error"),
    [
        ("mcp__acp__Bash", {"command": "grep -rn retry_policy src/"}, "", ABSENT),
        ("mcp__acp__Read", {"file_path": "/home/dev/shop/config/retry.yaml"}, "File does not exist.", True),
        ("mcp__acp__Grep", {"pattern": "retry_policy"}, "No files found", ABSENT),
    ],
    ids=["Bash", "Read", "Grep"],
)
def test_a_wrapped_tool_is_judged_as_the_tool_it_wraps(
    tool: str, tool_input: dict[str, Any], content: str, is_error: object
) -> None:
    """The ACP bridge's ``mcp__acp__Read`` is a Read: its misses are failed searches."""
    report = report_of(one_call(tool, tool_input, content, is_error))
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert gaps_of(report)[0].evidence["tool"] == tool


@pytest.mark.parametrize(
    ("content", "misses"),
    [
        ("Request failed with status code 404", 1),
        ("Request failed with status code 410", 1),
        ("Request failed with status code 403", 0),
        ("Request failed with status code 503", 0),
        ("Unable to verify if domain docs.example.com is safe to fetch. This may be due to network restrictions.", 0),
        ("The server returned HTTP 404 Not Found.\n\nThe response body was not retrieved.", 1),
        ("The server returned HTTP 403 Forbidden.\n\nThe response body was not retrieved.", 0),
    ],
    ids=["404", "410", "403", "503", "unable to verify", "newer 404 flagged", "newer 403 flagged"],
)
def test_webfetch_of_a_guessed_url_that_is_not_there_is_a_miss(content: str, misses: int) -> None:
    """A 404/410 means the agent guessed where the documentation lives; 403, 5xx and checks are tool faults."""
    t = one_call("WebFetch", {"url": "https://docs.example.com/retry", "prompt": "retry settings"}, content, True)
    assert overall_signals(t) == ({"failed_search": misses} if misses else {})


def test_webfetch_of_a_url_the_person_gave_is_user_given() -> None:
    """The person's URL is missing, not the knowledge."""
    t = Transcript()
    t.prompt("summarise https://docs.example.com/retry for me")
    t.call(
        "WebFetch",
        {"url": "https://docs.example.com/retry", "prompt": "summary"},
        "Request failed with status code 404",
        is_error=True,
    )
    report = report_of(t)
    assert (signal_counts(report.overall), health_of(report, "general").user_given_misses) == ({}, 1)


def test_a_search_tool_that_could_not_run_is_a_fault_not_a_miss() -> None:
    """Glob's ripgrep could not be spawned (EACCES): nothing was searched, so nothing was missing."""
    error = "spawn /opt/homebrew/lib/node_modules/@anthropic-ai/claude-code/vendor/ripgrep/arm64-darwin/rg EACCES"
    report = report_of(one_call("Glob", {"pattern": "**/retry*.yaml"}, error, True))
    assert (signal_counts(report.overall), health_of(report, "http-client").tools.failures) == ({}, 1)


def test_a_count_that_the_result_text_contradicts_is_not_believed() -> None:
    """Grep's count mode on one file prints a bare "20" and a broken "Found 0" summary: 20 hits."""
    detail = {"mode": "count", "numFiles": 0, "filenames": [], "content": "", "numMatches": 0}
    t = one_call(
        "Grep",
        {"pattern": "agentId", "path": "/home/dev/shop/x.jsonl", "output_mode": "count"},
        "20\n\nFound 0 total occurrences across 0 files.",
        detail=detail,
    )
    assert overall_signals(t) == {}


@pytest.mark.parametrize(
    ("content", "is_error", "misses"),
    [
        ("<tool_use_error>Path does not exist: /home/dev/shop/migrations</tool_use_error>", True, 1),
        ("- /home/dev/shop/migrations/\n  - 0001_initial.py\n", ABSENT, 0),
    ],
    ids=["not there", "listed"],
)
def test_claude_code_s_ls_tool_is_a_directory_listing(content: str, is_error: object, misses: int) -> None:
    """Claude Code's own ``LS`` tool (its first versions) lists a path as Gemini's ``list_directory`` does: a
    path that does not exist is a miss (spec §8.1 and §8.2 count a directory-listing path as a target)."""
    t = one_call("LS", {"path": "/home/dev/shop/migrations"}, content, is_error)
    assert overall_signals(t) == ({"failed_search": misses} if misses else {})


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("grep 'Cannot access file' logs/sync.log", "Cannot access file /mnt/share/q3.csv"),
        ("grep 'Error occurred while processing' logs/import.log", "Error occurred while processing: batch 17."),
        ("tail -n 1 logs/import.log", "Error occurred while processing: batch 17."),
    ],
    ids=["a grep that found a more.com-like line", "a grep that found a type-like line", "a tail of such a line"],
)
def test_cmd_s_not_found_words_found_in_a_file_are_hits(command: str, output: str) -> None:
    """§3.1: output is a miss only when it "consists only of the search program's not-found message"; a log
    line in cmd's words, printed by a search that found it, is a hit."""
    assert overall_signals(one_call("Bash", {"command": command}, output, detail=bash_detail(stdout=output))) == {}


@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("find src/models -type f", "find: 'src/models': No such file or directory", "src/models"),
        ("find ./lib -maxdepth 2 -type f", "find: ‘./lib’: No such file or directory", "lib"),
        ("find src/models -name '*.py'", "find: 'src/models': No such file or directory", "*.py"),  # its name
    ],
    ids=["a listing find", "curly quotes of a UTF-8 locale", "a name under a root not there"],
)
def test_a_find_whose_root_is_not_there_looked_for_its_root(command: str, output: str, pattern: str) -> None:
    """§6: "the target of the search stage that missed": a find of no name whose message says its root is not
    there looked for its root (not ``find src/models``, the program and its first operand); one of a name
    looked for that name."""
    t = one_call("Bash", {"command": command}, f"Exit code 1\n{output}", True, f"Error: Exit code 1\n{output}")
    assert [gap.evidence["pattern"] for gap in gaps_of(report_of(t))] == [pattern]


@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("find src -regex '.*/models/.*\\.py'", "find: 'src': No such file or directory", ".*/models/.*\\.py"),
        ("find . -maxdepth 1 -type f -exec diff {} ../old/ \\;", "diff: ../old/./a.py: No such file or directory",
         "find ."),
    ],
    ids=["a find of a regex keeps its regex", "a file an -exec program missed is no root"],
)  # fmt: skip
def test_a_find_s_root_is_its_pattern_only_when_its_root_missed(command: str, output: str, pattern: str) -> None:
    t = one_call("Bash", {"command": command}, f"Exit code 1\n{output}", True, f"Error: Exit code 1\n{output}")
    assert [gap.evidence["pattern"] for gap in gaps_of(report_of(t))] == [pattern]
