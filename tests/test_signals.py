"""Gap signals (README, "How omkd computes"): failed_search, explicit_marker, hedging, repeated_failure."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omkd.engine.calls import MAX_PROMPT_CHARS, CallTracker
from omkd.engine.explain import StreamExplainer
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.signals import collapse
from omkd.engine.stream import StreamProcessor
from tests.transcript_builder import (
    ABSENT,
    REJECTED,
    Transcript,
    bash_detail,
    gaps_of,
    health_of,
    overall_signals,
    report_of,
    signal_counts,
)

pytestmark = pytest.mark.engine

PATH_NOT_FOUND = (
    "<tool_use_error>Path does not exist: /home/dev/shop/srcx. "
    "Note: your current working directory is /home/dev/shop.</tool_use_error>"
)


def one_call(tool: str, tool_input: dict[str, Any], content: Any, is_error: object, detail: object) -> Transcript:
    """A typed prompt, a skill, then the one call under test and its answer."""
    t = Transcript()
    t.prompt("make the client retry on 503")
    t.skill("http-client")
    t.call(tool, tool_input, content, is_error=is_error, detail=detail)
    return t


# --- §3 common: weights and context ------------------------------------------------------------


def test_signal_weights() -> None:
    """failed_search and repeated_failure weigh 1.0; explicit_marker and hedging weigh 0.5."""
    t = Transcript()
    t.prompt("where is the retry config?")
    t.glob_miss("**/retry*.yaml")
    t.glob_miss("**/retry*.yml")
    t.glob_miss("config/*.toml")
    t.say("Presumably there is none [inferred].")
    weights = {(gap.type, gap.weight) for gap in report_of(t).gaps}
    assert weights == {
        ("failed_search", 1.0),
        ("repeated_failure", 1.0),
        ("explicit_marker", 0.5),
        ("hedging", 0.5),
    }


def test_signal_context_is_short_with_whitespace_collapsed() -> None:
    """A signal's context is at most 160 characters, whitespace collapsed."""
    t = Transcript()
    t.prompt("where is the retry config?")
    long_command = "grep -rn   'retry_policy'\t" + " ".join(f"src/module_{n}/" for n in range(60))
    t.call("Bash", {"command": long_command}, "", detail=bash_detail(interpretation="No matches found"))
    t.say(("Lots of context.\n\n\t" * 20) + "Region [unknown]\n\n" + ("More   text.  " * 30))
    gaps = report_of(t).gaps
    assert sorted(gap.type for gap in gaps) == ["explicit_marker", "failed_search"]
    for gap in gaps:
        assert 0 < len(gap.context) <= 160
        assert "\n" not in gap.context
        assert "\t" not in gap.context
        assert "  " not in gap.context


# --- §3.1 failed_search: Grep ----------------------------------------------------------------

GREP_INPUT = {"pattern": "retry_policy", "path": "/home/dev/shop/src"}


@pytest.mark.parametrize(
    ("content", "is_error", "detail"),
    [
        (PATH_NOT_FOUND, True, "Error: Path does not exist: /home/dev/shop/srcx."),
        ("No matches found", ABSENT, {"mode": "content", "numFiles": 0, "filenames": [], "content": "", "numLines": 0}),
        ("No files found", ABSENT, {"mode": "files_with_matches", "filenames": [], "numFiles": 0}),
        ("No files found", ABSENT, {"filenames": [], "numFiles": 0}),  # 1.0.43 shape, no mode
        ("No files found", ABSENT, ABSENT),  # sub-agent file: no toolUseResult
        ("Found 0 files", ABSENT, {"mode": "files_with_matches", "filenames": [], "numFiles": 0}),
        (
            "No matches found\n\nFound 0 total occurrences across 0 files.",
            ABSENT,
            {"mode": "count", "numFiles": 0, "filenames": [], "content": "", "numMatches": 0},
        ),
        (
            "Found 0 total occurrences across 0 files.",
            ABSENT,
            {"mode": "count", "numFiles": 0, "filenames": [], "content": "", "numMatches": 0},
        ),
    ],
    ids=[
        "is_error",
        "content mode: No matches found",
        "files mode: No files found",
        "1.0.43: No files found",
        "no toolUseResult",
        "files mode: numFiles 0",
        "count mode: No matches found",
        "count mode: numMatches 0",
    ],
)
def test_grep_that_finds_nothing_is_a_failed_search(content: str, is_error: object, detail: object) -> None:
    """Grep: is_error, 'No matches found', 'No files found', numFiles == 0 or numMatches == 0 is a gap."""
    report = report_of(one_call("Grep", GREP_INPUT, content, is_error, detail))
    assert signal_counts(report.overall) == {"failed_search": 1}
    (gap,) = gaps_of(report)
    assert (gap.skill, gap.evidence["tool"], gap.evidence["pattern"]) == ("http-client", "Grep", "retry_policy")


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (
            "src/client.py:42:RETRY_POLICY = {'503': 3}",
            {"mode": "content", "numFiles": 0, "filenames": [], "content": "src/client.py:42:...", "numLines": 1},
        ),
        ("Found 1 file\nsrc/client.py", {"mode": "files_with_matches", "filenames": ["src/client.py"], "numFiles": 1}),
        (
            "src/client.py:2\n\nFound 2 total occurrences across 1 file.",
            {"mode": "count", "numFiles": 1, "filenames": [], "content": "src/client.py:2", "numMatches": 2},
        ),
    ],
    ids=["content mode with hits (numFiles 0)", "files mode with hits", "count mode with hits"],
)
def test_grep_with_hits_is_not_a_failed_search(content: str, detail: dict[str, Any]) -> None:
    """Grep's content mode reports numFiles 0 even with hits: hits are never a failed search."""
    assert overall_signals(one_call("Grep", GREP_INPUT, content, ABSENT, detail)) == {}


# --- §3.1 failed_search: Glob ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "is_error", "detail"),
    [
        ("No files found", ABSENT, {"filenames": [], "durationMs": 638, "numFiles": 0, "truncated": False}),
        ("No files found", ABSENT, ABSENT),
        ("", ABSENT, {"filenames": [], "durationMs": 12, "numFiles": 0, "truncated": False}),
        (
            "<tool_use_error>Directory does not exist: /home/dev/shop/cfg. "
            "Note: your current working directory is /home/dev/shop.</tool_use_error>",
            True,
            "Error: Directory does not exist: /home/dev/shop/cfg.",
        ),
    ],
    ids=["No files found", "No files found, no toolUseResult", "numFiles 0", "is_error"],
)
def test_glob_that_finds_nothing_is_a_failed_search(content: str, is_error: object, detail: object) -> None:
    """Glob is a search (omk ignores it): is_error, 'No files found' or numFiles == 0 is a gap."""
    report = report_of(one_call("Glob", {"pattern": "**/retry*.yaml"}, content, is_error, detail))
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert gaps_of(report)[0].evidence == {"tool": "Glob", "pattern": "**/retry*.yaml"}


def test_glob_with_hits_is_not_a_failed_search() -> None:
    """A Glob that lists files found something."""
    t = Transcript()
    t.prompt("where is the client?")
    t.glob_hit("**/client.py")
    assert overall_signals(t) == {}


# --- §3.1 failed_search: Read ----------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "<tool_use_error>File does not exist.</tool_use_error>",
        "File does not exist.",
        "File does not exist. Note: your current working directory is /home/dev/shop. Did you mean retry.yml?",
        "<tool_use_error>Path does not exist: /home/dev/shop/config/retry.yaml.</tool_use_error>",
        "<tool_use_error>Directory does not exist: /home/dev/shop/config.</tool_use_error>",
        "ENOENT: no such file or directory, open '/home/dev/shop/config/retry.yaml'",
    ],
)
def test_read_of_a_missing_path_is_a_failed_search(content: str) -> None:
    """Read errors of the not-found kind are gaps, with the path as the pattern (the cwd removed, §6)."""
    path = "/home/dev/shop/config/retry.yaml"
    report = report_of(one_call("Read", {"file_path": path}, content, True, f"Error: {content}"))
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert gaps_of(report)[0].evidence == {"tool": "Read", "pattern": "config/retry.yaml", "path": path}


@pytest.mark.parametrize(
    "content",
    [
        "File content (85812 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit "
        "parameters to read specific portions of the file, or use the GrepTool to search for specific content.",
        "File content (472.3KB) exceeds maximum allowed size (256KB). Please use offset and limit parameters.",
        "<tool_use_error>This tool cannot read binary files. The file appears to be a binary .xlsx file. "
        "Please use appropriate tools for binary file analysis.</tool_use_error>",
        "EISDIR: illegal operation on a directory, read",
    ],
    ids=["too many tokens", "too large", "binary", "EISDIR"],
)
def test_read_of_a_too_large_or_binary_file_is_not_a_gap(content: str) -> None:
    """A file that exists but is too large or binary is not missing knowledge, and neither is a read of
    a directory (EISDIR: every real case was a known directory)."""
    t = one_call("Read", {"file_path": "/home/dev/shop/data/prices.xlsx"}, content, True, f"Error: {content}")
    assert overall_signals(t) == {}


@pytest.mark.parametrize(
    ("prompt", "path"),
    [
        ("The retry settings are in /home/dev/shop/config/retry.yaml, check them", "/home/dev/shop/config/retry.yaml"),
        ("The retry settings are in config/retry.yaml, check them", "/home/dev/shop/config/retry.yaml"),
        ("look at retry.yaml please", "/home/dev/shop/retry.yaml"),
    ],
    ids=["full path", "relative path", "file in the cwd"],
)
def test_read_of_a_path_the_person_gave_is_not_a_gap(prompt: str, path: str) -> None:
    """A missing file whose path (absolute, or relative to the cwd /home/dev/shop) the person typed
    earlier in the stream does not count."""
    t = Transcript()
    t.prompt(prompt)
    t.skill("http-client")
    t.read_missing(path)
    report = report_of(t)
    assert signal_counts(report.overall) == {}
    assert report.gaps == []
    assert health_of(report, "http-client").user_given_misses == 1


def test_a_bare_file_name_read_in_a_guessed_directory_is_a_gap() -> None:
    """The person typed only the file name; the agent guessed it lives in deploy/ and that guess failed."""
    t = Transcript()
    t.prompt("look at retry.yaml please")
    t.skill("http-client")
    t.read_missing("/home/dev/shop/deploy/retry.yaml")
    report = report_of(t)
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert health_of(report, "http-client").user_given_misses == 0


def test_user_given_path_only_counts_from_an_earlier_typed_prompt() -> None:
    """A path named after the failed Read, or only in meta text, or in another stream, is still a gap."""
    later = Transcript()
    later.prompt("check the client")
    later.read_missing("/home/dev/shop/config/retry.yaml")
    later.prompt("oh, I meant config/retry.yaml")
    meta = Transcript(session_id="0b9a7c4e-1d2f-4e3a-8b5c-6d7e8f9a0b1c")
    meta.prompt("check the client")
    meta.meta("<system-reminder>Recently edited: /home/dev/shop/config/retry.yaml</system-reminder>")
    meta.read_missing("/home/dev/shop/config/retry.yaml")
    other = Transcript(session_id="1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f")
    other.read_missing("/home/dev/shop/config/limits.yaml")
    given = Transcript(session_id="2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a")
    given.prompt("read config/limits.yaml")
    report = report_of(later, meta, given, other)
    assert signal_counts(report.overall) == {"failed_search": 3}


def test_subagent_prompt_does_not_make_a_path_user_given() -> None:
    """A sub-agent's prompt comes from the agent, not the person: its paths are not user-given."""
    t = Transcript(sidechain=True, agent_id="a4f2c1d9")
    t.user("Read config/retry.yaml and summarise the retry rules", parentUuid=None)
    t.read_missing("/home/dev/shop/config/retry.yaml")
    report = report_of(t, names=["agent-a4f2c1d9.jsonl"])
    assert signal_counts(report.overall) == {"failed_search": 1}


def test_a_search_for_a_name_the_person_asked_for_is_user_given() -> None:
    """Grep, Glob, find -name and ls for a name the person typed: the person's thing is missing, not the
    knowledge. A plain word of the prompt searched for (``client``) is still a gap."""
    t = Transcript()
    t.prompt("find where retry_policy is defined, and where launch_swu.sh went; check the client too")
    t.grep_miss("retry_policy")
    t.glob_miss("**/launch_swu.sh")
    t.call("Bash", {"command": "find . -name 'launch_swu.sh'"}, "", detail=bash_detail())
    t.call(
        "Bash",
        {"command": "ls scripts/launch_swu.sh"},
        "ls: cannot access 'scripts/launch_swu.sh': No such file or directory",
        detail=bash_detail(),
    )
    t.grep_miss("client")
    report = report_of(t)
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert health_of(report, "general").user_given_misses == 4


@pytest.mark.parametrize(
    ("prompt", "command"),
    [
        ("read docs/retry-policy.md first", "cat docs/retry-policy.md"),
        ("the spec is in ./Use cases/UC-01.md", "sed -n '1,80p' 'Use cases/UC-01.md'"),
        ("see /home/dev/shop/docs/retry-policy.md", "head -40 docs/retry-policy.md"),
    ],
    ids=["relative path", "path with a space", "absolute path typed, read relative to the cwd"],
)
def test_a_shell_read_of_a_path_the_person_gave_is_user_given(prompt: str, command: str) -> None:
    """``cat``/``sed -n``/``head`` of a path the person typed (absolute, or relative to the cwd) reads
    as ``Read`` does: the person's file is missing, not the knowledge (spec §3.1)."""
    t = Transcript()
    t.prompt(prompt)
    t.skill("http-client")
    path = command.rsplit(" ", 1)[-1].strip("'")
    t.call("Bash", {"command": command}, f"cat: {path}: No such file or directory", detail=bash_detail())
    report = report_of(t)
    assert signal_counts(report.overall) == {}
    assert health_of(report, "http-client").user_given_misses == 1


@pytest.mark.parametrize(
    ("prompt", "given"),
    [
        ("fix the typo in docs/setup.md.", True),  # a full stop ends the path
        ("fix docs/setup.md, then run it", True),
        ("fix the typo in docs/setup.md.bak", False),  # another file, whose name holds the path
        ("see docs/setup.md.orig and docs/setup.md.", True),  # typed whole once
        ("open docs/setup.mdx", False),
    ],
    ids=["full stop", "comma", "a longer name", "both", "a longer extension"],
)
def test_a_typed_path_is_a_whole_path_not_the_start_of_a_longer_name(prompt: str, given: bool) -> None:
    """Spec §3.1: a path the person typed is theirs; ``docs/setup.md.bak`` typed is another file, so a Read
    of ``docs/setup.md`` that finds nothing guessed it (a name goes on after a dot followed by a letter)."""
    t = Transcript()
    t.prompt(prompt)
    t.read_missing("docs/setup.md")
    assert signal_counts(report_of(t).overall) == ({} if given else {"failed_search": 1})


@pytest.mark.parametrize(
    ("prompt", "path", "given"),
    [
        ("tune ~/.claude/litellm_config.yaml", "/home/dev/.claude/litellm_config.yaml", True),
        ("tune $HOME/.claude/litellm_config.yaml", "/Users/dev/.claude/litellm_config.yaml", True),
        ("tune ~/.claude/litellm_config.yaml", "/home/dev/.config/litellm_config.yaml", False),  # another place
        ("tune litellm_config.yaml", "/home/dev/.claude/litellm_config.yaml", False),  # a bare name
        ("tune ~/.claude/litellm_config.yaml", "/srv/dev/.claude/litellm_config.yaml", False),  # no home
    ],
    ids=["tilde", "HOME", "another directory", "bare name", "not a home directory"],
)
def test_a_path_the_person_typed_from_their_home_directory_is_theirs(prompt: str, path: str, given: bool) -> None:
    """``~/X`` (or ``$HOME/X``) typed by the person is the path ``X`` of a home directory: a Read of
    ``/home/<user>/X`` that finds nothing read the person's path (spec §3.1: the path as typed)."""
    t = Transcript()
    t.prompt(prompt)
    t.read_missing(path)
    report = report_of(t)
    assert signal_counts(report.overall) == ({} if given else {"failed_search": 1})
    assert health_of(report, "general").user_given_misses == int(given)


@pytest.mark.parametrize(
    ("prompt", "pattern", "given"),
    [
        ("you forgot to add sitemap.ts", "**/sitemap*", True),
        ("where is src/RetryPolicy.tsx?", "**/*RetryPolicy*.{ts,tsx}", True),
        ("add a sitemap to the site", "**/sitemap*", False),  # a plain word, not a name
        ("fix app.tsx please", "**/*.tsx", False),  # every file of a kind, not one the person named
        ("you forgot to add sitemap.ts", "**/robots*", False),
    ],
    ids=["prefix", "infix and braces", "plain word", "extension only", "another name"],
)
def test_a_glob_with_wildcards_for_a_name_the_person_typed_is_user_given(
    prompt: str, pattern: str, given: bool
) -> None:
    """A Glob whose file-name pattern would have found a name the person typed looked for the person's
    file: its miss is ``user_given``, not a gap (spec §3.1)."""
    t = Transcript()
    t.prompt(prompt)
    t.skill("web")
    t.glob_miss(pattern)
    report = report_of(t)
    assert signal_counts(report.overall) == ({} if given else {"failed_search": 1})
    assert health_of(report, "web").user_given_misses == int(given)


# --- §3.1 failed_search: Bash / PowerShell probes ---------------------------------------------

NO_MATCH = bash_detail(interpretation="No matches found")


@pytest.mark.parametrize(
    ("command", "content", "is_error", "detail"),
    [
        ("grep -rn retry_policy src/", "", ABSENT, NO_MATCH),
        ("rg retry_policy", "(Bash completed with no output)", ABSENT, NO_MATCH),
        ("rg -l retry_policy src", "(Bash completed with no output)", ABSENT, bash_detail()),
        ("ag retry_policy", "Exit code 1", True, "Error: Exit code 1"),
        ("ack retry_policy", "", False, bash_detail()),
        ("find . -name 'retry*.yaml'", "", ABSENT, bash_detail()),
        ("fd retry", "(Bash completed with no output)", ABSENT, bash_detail()),
        ("locate retry.yaml", "Exit code 1", True, "Error: Exit code 1"),
        (
            "ls config/retry",
            "Exit code 2\nls: cannot access 'config/retry': No such file or directory",
            True,
            "Error: Exit code 2\nls: cannot access 'config/retry': No such file or directory",
        ),
        (
            "ls docs/retry",
            "ls: cannot access 'docs/retry': No such file or directory",
            True,
            "Error: ls: cannot access 'docs/retry': No such file or directory",
        ),
        ("test -e config/retry.yaml", "Exit code 1", True, "Error: Exit code 1"),
        ("test -d config/retry", "Exit code 1", True, "Error: Exit code 1"),
        ("[ -f config/retry.yaml ]", "Exit code 1", True, "Error: Exit code 1"),
        (
            "cat config/retry.yaml",
            "Exit code 1\ncat: config/retry.yaml: No such file or directory",
            True,
            "Error: Exit code 1\ncat: config/retry.yaml: No such file or directory",
        ),
        ("cd src && grep -rn retry_policy .", "", ABSENT, NO_MATCH),
        ("grep -rn retry_policy src/ | head -20", "(Bash completed with no output)", ABSENT, bash_detail()),
    ],
    ids=[
        "grep rci empty",
        "rg rci no-output",
        "rg no output",
        "ag is_error",
        "ack empty is_error false",
        "find empty",
        "fd no output",
        "locate is_error",
        "ls path is_error",
        "ls path 1.0.x raw error",
        "test -e",
        "test -d",
        "[ -f ]",
        "cat path",
        "cd && grep",
        "grep | head",
    ],
)
def test_shell_probe_that_finds_nothing_is_a_failed_search(
    command: str, content: str, is_error: object, detail: object
) -> None:
    """A search or probe command that errs, reports 'No matches found' or prints nothing is a gap: its
    pattern is what it looked for (spec §6), the command stays in the evidence."""
    report = report_of(one_call("Bash", {"command": command}, content, is_error, detail))
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert gaps_of(report)[0].evidence == {"tool": "Bash", "pattern": LOOKED_FOR[command], "command": command}


LOOKED_FOR = {
    "grep -rn retry_policy src/": "retry_policy",
    "rg retry_policy": "retry_policy",
    "rg -l retry_policy src": "retry_policy",
    "ag retry_policy": "retry_policy",
    "ack retry_policy": "retry_policy",
    "find . -name 'retry*.yaml'": "retry*.yaml",
    "fd retry": "retry",
    "locate retry.yaml": "retry.yaml",
    "ls config/retry": "config/retry",
    "ls docs/retry": "docs/retry",
    "test -e config/retry.yaml": "config/retry.yaml",
    "test -d config/retry": "config/retry",
    "[ -f config/retry.yaml ]": "config/retry.yaml",
    "cat config/retry.yaml": "config/retry.yaml",
    "cd src && grep -rn retry_policy .": "retry_policy",
    "grep -rn retry_policy src/ | head -20": "retry_policy",
}
"""What each command of the test above looked for, written by hand from spec §6."""


def test_powershell_probe_that_finds_nothing_is_a_failed_search() -> None:
    """PowerShell probes are judged like Bash ones."""
    report = report_of(one_call("PowerShell", {"command": "rg retry_policy"}, "Exit code 1", True, ABSENT))
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert gaps_of(report)[0].evidence == {
        "tool": "PowerShell",
        "pattern": "retry_policy",
        "command": "rg retry_policy",
    }


@pytest.mark.parametrize(
    ("command", "content", "is_error", "detail"),
    [
        ("pytest -q", "Exit code 1\n1 failed, 4 passed in 0.31s", True, "Error: Exit code 1\n1 failed"),
        ("make test", "Exit code 2\nmake: *** [test] Error 1", True, "Error: Exit code 2"),
        ("test -f config/retry.yaml", "", ABSENT, bash_detail()),
        ("[ -d config ]", "(Bash completed with no output)", ABSENT, bash_detail()),
        ("grep -rn retry_policy src/", "src/client.py:12:retry_policy = 3", ABSENT, bash_detail("src/client.py:12")),
        ("npm run build", "(Bash completed with no output)", ABSENT, bash_detail()),
        ("git diff", "", ABSENT, bash_detail()),
        ("ls", "src\ntests\n", ABSENT, bash_detail("src\ntests\n")),
        (
            "find / -name retry.yaml",
            "/home/dev/shop/config/retry.yaml",
            False,
            bash_detail("/home/dev/shop/config/retry.yaml", "Some directories were inaccessible"),
        ),
    ],
    ids=[
        "pytest fails",
        "make fails",
        "test -f succeeds silently",
        "[ -d ] succeeds silently",
        "grep hits",
        "non-probe empty output",
        "git diff empty",
        "bare ls",
        "find with inaccessible dirs",
    ],
)
def test_shell_commands_that_are_not_misses(command: str, content: str, is_error: object, detail: object) -> None:
    """Non-probe failures, successful probes and silent successful tests are not failed searches."""
    assert overall_signals(one_call("Bash", {"command": command}, content, is_error, detail)) == {}


def test_non_probe_failure_counts_as_tool_failure_only() -> None:
    """A failing non-search command is a tool failure, not a gap."""
    report = report_of(one_call("Bash", {"command": "pytest -q"}, "Exit code 1\n1 failed", True, "Error: Exit code 1"))
    okki = health_of(report, "http-client")
    assert signal_counts(okki) == {}
    assert (okki.tools.calls, okki.tools.failures, okki.tools.failure_rate) == (2, 1, 1 / 2)


# --- §3.1 failed_search: WebSearch and MCP ----------------------------------------------------

WEB_INPUT = {"query": "aiohttp retry 503 backoff"}


@pytest.mark.parametrize(
    ("content", "is_error", "detail"),
    [
        (
            'Web search results for query: "aiohttp retry 503 backoff"\n\nNo links found.',
            ABSENT,
            {"query": "aiohttp retry 503 backoff", "results": [], "durationSeconds": 1.2},
        ),
        (
            'Web search results for query: "aiohttp retry 503 backoff"\n\nLinks: []',
            ABSENT,
            {
                "query": "aiohttp retry 503 backoff",
                "results": [{"tool_use_id": "srvtoolu_01A", "content": []}],
                "durationSeconds": 0.9,
            },
        ),
        ("", ABSENT, ABSENT),
        ("Web search failed: service unavailable", True, "Error: Web search failed: service unavailable"),
    ],
    ids=["no results", "result block without links", "empty, no toolUseResult", "is_error"],
)
def test_websearch_with_nothing_is_a_failed_search(content: str, is_error: object, detail: object) -> None:
    """WebSearch: is_error or an empty result is a gap."""
    report = report_of(one_call("WebSearch", WEB_INPUT, content, is_error, detail))
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert gaps_of(report)[0].evidence["tool"] == "WebSearch"


def test_websearch_with_links_is_not_a_failed_search() -> None:
    """A WebSearch that returned links found something."""
    links = [{"title": "Retry with backoff", "url": "https://docs.aiohttp.org/en/stable/client_advanced.html"}]
    detail = {
        "query": "aiohttp retry 503 backoff",
        "results": [{"tool_use_id": "srvtoolu_01A", "content": links}],
        "durationSeconds": 2.0,
    }
    content = 'Web search results for query: "aiohttp retry 503 backoff"\n\nLinks: [{"title": "Retry with backoff"}]'
    assert overall_signals(one_call("WebSearch", WEB_INPUT, content, ABSENT, detail)) == {}


@pytest.mark.parametrize(
    "tool", ["mcp__docs__search_docs", "mcp__kb__query", "mcp__kb__retrieve_chunks", "mcp__kb__lookup_symbol",
             "mcp__fs__find_files"]
)  # fmt: skip
@pytest.mark.parametrize(
    ("content", "is_error"),
    [
        ("", ABSENT),
        ([], ABSENT),
        ([{"type": "text", "text": ""}], ABSENT),
        ("MCP error -32602: bad index", True),
        ([{"type": "text", "text": "[]"}], ABSENT),
        ("{ }", ABSENT),
        ('{"results": []}', ABSENT),
        ("null", ABSENT),
    ],
    ids=[
        "empty string",
        "no parts",
        "empty text part",
        "is_error",
        "empty JSON list",
        "empty JSON object",
        "a JSON object of one empty list",
        "JSON null",
    ],
)
def test_mcp_search_tool_with_nothing_is_a_failed_search(tool: str, content: Any, is_error: object) -> None:
    """MCP tools whose name says search/query/retriev/lookup/find: is_error or empty is a gap."""
    report = report_of(one_call(tool, {"q": "retry policy"}, content, is_error, ABSENT))
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert gaps_of(report)[0].evidence["tool"] == tool


@pytest.mark.parametrize(
    "text",
    ["retry.md: retries 3 times on 503", '[{"path": "retry.md"}]', '{"results": [], "total": 0, "hint": "x"}', "0"],
)
def test_mcp_search_tool_with_results_is_not_a_failed_search(text: str) -> None:
    """An MCP search that returned text found something; JSON is empty only when it holds nothing at all
    (an object with more than one key says something, whatever its lists hold)."""
    content = [{"type": "text", "text": text}]
    assert overall_signals(one_call("mcp__docs__search_docs", {"q": "retry"}, content, ABSENT, ABSENT)) == {}


@pytest.mark.parametrize(("content", "is_error"), [("", ABSENT), ("MCP error: 404 repository not found", True)])
def test_mcp_tool_that_does_not_search_is_never_a_failed_search(content: str, is_error: object) -> None:
    """An MCP tool whose name does not say it searches is not judged as a search."""
    t = one_call("mcp__github__create_issue", {"title": "Retry on 503"}, content, is_error, ABSENT)
    assert overall_signals(t) == {}


def test_search_tools_are_configurable() -> None:
    """A tool added to the search tools list is judged as a search; without it, it is not."""
    t = one_call("mcp__kb__fetch_page", {"page": "retry"}, "", ABSENT, ABSENT)
    rules = SegmenterRules(extra_search_tools=frozenset({"mcp__kb__fetch_page"}))
    assert overall_signals(t) == {}
    assert overall_signals(t, rules) == {"failed_search": 1}


# --- §3.1 cancelled calls ---------------------------------------------------------------------

CANCELLATIONS: list[tuple[str, str, object]] = [
    ("rejected", REJECTED, "User rejected tool use"),
    ("rejected with a reason (2.0.5)", "no, look in the docs folder instead", "User rejected tool use"),
    ("permission for this tool use", "Permission for this tool use was denied. Ask the user.", ABSENT),
    (
        "permission to use",
        "Permission to use Bash has been denied. IMPORTANT: You *may* attempt to accomplish this action using "
        "other tools.",
        ABSENT,
    ),
    ("sibling", "<tool_use_error>Sibling tool call errored</tool_use_error>", "Sibling tool call errored"),
    (
        "parallel cancelled",
        "<tool_use_error>Cancelled: parallel tool call Grep(retry_policy) errored</tool_use_error>",
        ABSENT,
    ),
    ("interrupted", "[Request interrupted by user for tool use]", "Interrupted by user"),
    (
        "take this action",
        "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to "
        "tell you how to proceed.",
        "The user doesn't want to take this action right now. STOP what you are doing",
    ),
    ("user cancelled", "User cancelled the operation.", ABSENT),
]
REFUSALS = [
    ("not granted", "Claude requested permissions to use Bash, but you haven't granted it yet.", ABSENT),
    ("requires approval", "This command requires approval", ABSENT),
    (
        "blocked",
        "ls in '/etc/retry' was blocked. For security, Claude Code may only list files in the allowed "
        "working directories for this session: '/home/dev/shop'.",
        ABSENT,
    ),
    (
        "no such tool",
        "<tool_use_error>Error: No such tool available: Bash. Bash exists but is not enabled in this context."
        "</tool_use_error>",
        ABSENT,
    ),
    ("input validation", '<tool_use_error>InputValidationError: [{"code": "invalid_type"}]</tool_use_error>', ABSENT),
]


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "grep -rn retry_policy src/"}),
        ("Read", {"file_path": "/home/dev/shop/config/retry.yaml"}),
        ("Grep", GREP_INPUT),
        ("Glob", {"pattern": "**/retry*.yaml"}),
    ],
    ids=["Bash probe", "Read", "Grep", "Glob"],
)
@pytest.mark.parametrize(("content", "detail"), [c[1:] for c in CANCELLATIONS], ids=[c[0] for c in CANCELLATIONS])
def test_cancelled_calls_are_never_gaps(tool: str, tool_input: dict[str, Any], content: str, detail: object) -> None:
    """Rejected, denied, sibling-errored and interrupted calls are cancelled: no gap, not in the denominator."""
    report = report_of(one_call(tool, tool_input, content, True, detail))
    skill = health_of(report, "http-client")
    assert signal_counts(skill) == {}
    assert (skill.tools.calls, skill.tools.answered, skill.tools.cancelled, skill.tools.failures) == (2, 2, 1, 0)
    assert skill.tools.failure_rate == 0 / 1


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "grep -rn retry_policy src/"}),
        ("Read", {"file_path": "/home/dev/shop/config/retry.yaml"}),
        ("Grep", GREP_INPUT),
        ("Glob", {"pattern": "**/retry*.yaml"}),
    ],
    ids=["Bash probe", "Read", "Grep", "Glob"],
)
@pytest.mark.parametrize(("content", "detail"), [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_harness_refusals_are_tool_faults_never_gaps(
    tool: str, tool_input: dict[str, Any], content: str, detail: object
) -> None:
    """A call the harness would not run (approval, sandbox, no such tool, bad input) is a tool failure, no gap."""
    report = report_of(one_call(tool, tool_input, content, True, detail))
    skill = health_of(report, "http-client")
    assert signal_counts(skill) == {}
    assert (skill.tools.calls, skill.tools.answered, skill.tools.cancelled, skill.tools.failures) == (2, 2, 0, 1)


# --- §3.1 is_error absent ---------------------------------------------------------------------


def test_absent_is_error_means_no_error() -> None:
    """Results without is_error are successes, even when their text reads like an error."""
    t = Transcript()
    t.prompt("check the docs")
    t.skill("http-client")
    t.read_ok("/home/dev/shop/docs/errors.md", "Read fails with: File does not exist.\n")
    t.call("Bash", {"command": "pytest -q"}, "Exit code 1 is what pytest returns on failures", detail=bash_detail())
    t.call("Grep", GREP_INPUT, "Found 1 file\nsrc/client.py", is_error=False,
           detail={"mode": "files_with_matches", "filenames": ["src/client.py"], "numFiles": 1})  # fmt: skip
    report = report_of(t)
    skill = health_of(report, "http-client")
    assert signal_counts(skill) == {}
    assert (skill.tools.calls, skill.tools.failures, skill.tools.failure_rate) == (4, 0, 0 / 4)


# --- §3.1 de-duplication ----------------------------------------------------------------------


def test_repeated_miss_of_the_same_pattern_is_kept_once() -> None:
    """A failed search equal to the previous kept one is dropped, even across successful calls."""
    t = Transcript()
    t.prompt("make the client retry")
    t.skill("http-client")
    t.grep_miss("retry_policy")
    t.read_ok("/home/dev/shop/src/client.py", "import aiohttp\n")
    t.glob_hit("**/client.py")
    t.grep_miss("retry_policy")
    report = report_of(t)
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert [g.evidence for g in gaps_of(report)] == [{"tool": "Grep", "pattern": "retry_policy"}]


def test_dedup_compares_with_the_previous_kept_miss_only() -> None:
    """foo, bar, foo are three failed searches (and, being three Grep misses in a row, a repeated failure)."""
    t = Transcript()
    t.prompt("make the client retry")
    t.skill("http-client")
    t.grep_miss("retry_policy")
    t.grep_miss("RetryPolicy")
    t.grep_miss("retry_policy")
    assert overall_signals(t) == {"failed_search": 3, "repeated_failure": 1}


def test_dedup_key_includes_the_tool() -> None:
    """The same pattern missed by Grep and then by Glob is two failed searches."""
    t = Transcript()
    t.prompt("find the retry config")
    t.grep_miss("retry")
    t.glob_miss("retry")
    assert overall_signals(t) == {"failed_search": 2}


def test_dedup_is_per_segment() -> None:
    """The same miss in two segments counts in each."""
    t = Transcript()
    t.prompt("make the client retry")
    t.skill("http-client")
    t.grep_miss("retry_policy")
    t.prompt("try again")
    t.skill("http-client")
    t.grep_miss("retry_policy")
    report = report_of(t)
    assert health_of(report, "http-client").segments == 2
    assert signal_counts(report.overall) == {"failed_search": 2}
    assert report.top_failed_searches[0].count == 2


# --- §3.2 explicit_marker ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "marker"),
    [
        ("重试次数是 5 【推断】", "【推断】"),
        ("【知识缺口】没有找到限流配置", "【知识缺口】"),
        ("部署区域【未知】", "【未知】"),
        ("The limit is 5 [inferred].", "[inferred]"),
        ("Region: [unknown]", "[unknown]"),
        ("[knowledge gap] nothing documents rate limits", "[knowledge gap]"),
        ("[INFERRED] from the tests", "[INFERRED]"),
        ("Owner: [Unknown]", "[Unknown]"),
        ("[Knowledge Gap] here", "[Knowledge Gap]"),
        ("[knowledge   gap] here", "[knowledge   gap]"),
        ("[knowledge\tgap] here", "[knowledge\tgap]"),
        ("[KNOWLEDGE GAP] here", "[KNOWLEDGE GAP]"),
    ],
)
def test_each_marker_form_is_a_signal(text: str, marker: str) -> None:
    """The Chinese markers and the ASCII ones (any case, any whitespace in 'knowledge gap') are signals."""
    t = Transcript()
    t.prompt("what is the retry limit?")
    t.say(text)
    report = report_of(t)
    assert signal_counts(report.overall) == {"explicit_marker": 1}
    assert gaps_of(report)[0].evidence["text"] == marker


def test_marker_with_a_line_break_inside_knowledge_gap() -> None:
    """'any whitespace inside knowledge gap' includes a line break."""
    t = Transcript()
    t.prompt("what is the retry limit?")
    t.say("The limit is not written down anywhere [knowledge\ngap], so I used 3.")
    assert overall_signals(t) == {"explicit_marker": 1}


def test_one_marker_signal_per_occurrence() -> None:
    """Every marker occurrence is its own signal, across parts of one segment."""
    t = Transcript()
    t.prompt("summarise the config")
    t.say("Retries: 3 [inferred]. Timeout: 30s [inferred]. Region: 【未知】.")
    t.say("Backoff: exponential 【推断】")
    report = report_of(t)
    assert signal_counts(report.overall) == {"explicit_marker": 4}
    assert report.overall.gap_segments == 1


@pytest.mark.parametrize(
    "text",
    [
        "Example:\n```\nstatus: [inferred]\n```\nThat is the syntax.",
        "~~~md\n【推断】 goes after a guess\n~~~",
        "```python\n# [knowledge gap]\n```",
        "Use the `[unknown]` tag when unsure.",
        "> [knowledge gap] quoted from the guide\nThat is what the guide says.",
        "  > 【未知】 quoted",
        "| field | state |\n|---|---|\n| region | [unknown] |",
    ],
    ids=["fenced", "tilde fence", "fenced with language", "inline code", "quote line", "indented quote", "table row"],
)
def test_quoted_markers_are_not_signals(text: str) -> None:
    """Markers in fenced code, inline code, quote lines and table rows are quotations, not signals
    (the hedging judge decides the words around them on their own)."""
    t = Transcript()
    t.prompt("how do I mark guesses?")
    t.say(text)
    assert "explicit_marker" not in overall_signals(t)


@pytest.mark.parametrize(
    "text",
    [
        "Put this in CLAUDE.md:\n````md\n```\nretries: 3 [inferred]\n```\n````\nDone.",
        "Example:\n````\n```python\n# [knowledge gap] goes here\n```\n````",
        "~~~~\n~~~\n【推断】\n~~~~",
    ],
    ids=["backtick fence of four", "fence with a nested fence", "tilde fence of four"],
)
def test_a_fence_closes_only_on_a_fence_as_long_as_its_opening(text: str) -> None:
    """A fenced code block ends at a fence of the same character at least as long as the one that
    opened it (CommonMark): a shorter fence inside is part of the code, and so is a marker after it."""
    t = Transcript()
    t.prompt("write the convention block")
    t.say(text)
    assert "explicit_marker" not in overall_signals(t)


@pytest.mark.parametrize(
    "text",
    [
        "Use the ``[unknown]`` tag when unsure.",
        "Write ``` [inferred] ``` after a guess.",
        "Type `` `【未知】` `` here.",
    ],
    ids=["two backticks", "three backticks on one line", "backticks inside"],
)
def test_inline_code_of_several_backticks_is_quoted(text: str) -> None:
    """Inline code opens with a run of backticks and closes with a run as long (CommonMark)."""
    t = Transcript()
    t.prompt("how do I mark guesses?")
    t.say(text)
    assert "explicit_marker" not in overall_signals(t)


def test_after_inline_code_a_marker_is_used() -> None:
    t = Transcript()
    t.prompt("what is the retry limit?")
    t.say("The ``retries`` key is 5 [inferred], and `timeout` is 30s [inferred].")
    assert overall_signals(t) == {"explicit_marker": 2}


def test_table_row_without_outer_pipes_is_not_a_signal() -> None:
    """A GFM table row needs no leading pipe; a marker in it is still quoted."""
    t = Transcript()
    t.prompt("list the markers")
    t.say("marker | meaning\n--- | ---\n[unknown] | nobody knows")
    assert overall_signals(t) == {}


def test_a_line_after_a_table_is_no_table_row() -> None:
    """A table's rows run from its header to the first line that is blank or holds no pipe; a line
    of prose after it that holds a pipe (in inline code) is not a row."""
    t = Transcript()
    t.prompt("what is the retry limit?")
    t.say(
        "| key | value |\n|---|---|\n| retries | [unknown] |\n\nI ran `rg retry | head` and the limit is 5 [inferred]."
    )
    report = report_of(t)
    assert signal_counts(report.overall) == {"explicit_marker": 1}
    assert gaps_of(report)[0].context.endswith("the limit is 5 [inferred].")


def test_quoted_and_used_markers_in_one_text() -> None:
    """Only the marker outside code, quotes and tables counts."""
    t = Transcript()
    t.prompt("explain")
    t.say(
        "Markers look like `[inferred]`.\n"
        "```\n[unknown]\n```\n"
        "> 【知识缺口】 from the doc\n"
        "| a | [knowledge gap] |\n"
        "The timeout is 30s [inferred]."
    )
    report = report_of(t)
    assert signal_counts(report.overall) == {"explicit_marker": 1}


def test_markers_outside_assistant_text_are_not_signals() -> None:
    """Markers in a typed prompt, a tool result or a thinking part (default rules) are not signals."""
    t = Transcript()
    t.prompt("tag guesses with [inferred] please")
    t.think("The region is 【未知】 so far [unknown]")
    t.read_ok("/home/dev/shop/docs/style.md", "Mark guesses with [inferred] and gaps with [knowledge gap].\n")
    t.say("Understood.")
    assert overall_signals(t) == {}


# --- §3.3 hedging -----------------------------------------------------------------------------


_SHORT = pytest.mark.xfail(
    reason="the judge retrained on real sentences (embedded-v2) scores this short, context-free sentence below the "
    "threshold cross-validation chose for its language (the model file's threshold table): see bench/README.md",
    strict=True,
)


@pytest.mark.parametrize(
    "text",
    [
        "我不确定这个配置是否生效",
        pytest.param("没有足够信息判断重试次数", marks=_SHORT),
        pytest.param("这一点需要查证", marks=_SHORT),
        pytest.param("无法确认部署区域", marks=_SHORT),
        "I'm not sure the flag exists.",
        "I’m not sure the flag exists.",
        "Im not sure the flag exists.",
        pytest.param("I'M NOT SURE about that.", marks=_SHORT),
        "There is insufficient information in the docs.",
        "I need to verify the retry count.",
        "This is presumably set in CI.",
        "PRESUMABLY the default.",
    ],
)
def test_each_hedging_phrase_is_a_signal(text: str) -> None:
    """Each listed hedging phrase (case-insensitive) in an assistant text part is a hedging signal."""
    t = Transcript()
    t.prompt("what is the retry count?")
    t.say(text)
    report = report_of(t)
    assert signal_counts(report.overall) == {"hedging": 1}
    assert gaps_of(report)[0].evidence["thinking"] is False


def test_plain_text_is_not_hedging() -> None:
    """An assertive answer has no hedging signal."""
    t = Transcript()
    t.prompt("what is the retry count?")
    t.say("The retry count is 3, set in src/client.py.")
    assert overall_signals(t) == {}


def test_at_most_one_hedging_signal_per_segment() -> None:
    """Several hedges in one segment are one signal; another segment gets its own."""
    t = Transcript()
    t.prompt("what is the retry count?")
    t.skill("http-client")
    t.say("I'm not sure which file sets the retry count. The retry count is presumably read from the environment.")
    t.say("I need to verify that the flag exists.")
    t.prompt("and the timeout?")
    t.skill("http-client")
    t.say("The timeout is presumably set in CI.")
    report = report_of(t)
    assert health_of(report, "http-client").segments == 2
    assert signal_counts(report.overall) == {"hedging": 2}


def test_hedging_in_thinking_is_ignored_by_default() -> None:
    """Thinking parts are not read for hedging unless include_thinking is set."""
    t = Transcript()
    t.prompt("what is the retry count?")
    t.think("I'm not sure the retry count is documented.", message_id="msg_01Think")
    t.say("The retry count is 3.", message_id="msg_01Think")
    assert overall_signals(t) == {}


def test_hedging_in_thinking_counts_when_opted_in_and_is_marked() -> None:
    """With include_thinking, a hedge in a thinking part is a signal marked thinking=True."""
    t = Transcript()
    t.prompt("what is the retry count?")
    t.think("I'm not sure the retry count is documented.", message_id="msg_01Think")
    t.say("The retry count is 3.", message_id="msg_01Think")
    report = report_of(t, rules=SegmenterRules(include_thinking=True))
    assert signal_counts(report.overall) == {"hedging": 1}
    assert gaps_of(report)[0].evidence["thinking"] is True


def test_opted_in_thinking_still_gives_one_hedge_per_segment() -> None:
    """A hedge in thinking and another in text of the same segment are one signal."""
    t = Transcript()
    t.prompt("what is the retry count?")
    t.think("The retry count is presumably read from the environment.")
    t.say("I'm not sure which file sets the retry count.")
    assert overall_signals(t, SegmenterRules(include_thinking=True)) == {"hedging": 1}


def candidates_of(t: Transcript, rules: SegmenterRules | None = None) -> list[tuple[str, str]]:
    """(cue, sentence) of every hedging candidate the net caught in one transcript."""
    explainer = StreamExplainer("t.jsonl")
    stream = StreamProcessor("t.jsonl", rules, observer=explainer)
    stream.feed(t.to_bytes())
    stream.close()
    return [(c.cue, c.sentence) for c in explainer.candidates]


def test_extra_cues_widen_the_net() -> None:
    """A configured extra cue makes a sentence a candidate for the judge; without it the same text
    holds none."""
    t = Transcript()
    t.prompt("what is the retry count?")
    t.say("It is 3, from memory of the old setup.")
    assert candidates_of(t) == []
    widened = SegmenterRules(extra_hedging=("from memory",))
    assert candidates_of(t, widened) == [("from memory", "It is 3, from memory of the old setup.")]


def test_hedging_outside_assistant_text_is_not_a_signal() -> None:
    """Hedges typed by the person or read from a file are not the agent's."""
    t = Transcript()
    t.prompt("I'm not sure what the retry count is, presumably 3?")
    t.read_ok("/home/dev/shop/docs/faq.md", "Q: retries? A: insufficient information, need to verify.\n")
    t.say("The retry count is 3.")
    assert overall_signals(t) == {}


# --- §3.4 repeated_failure --------------------------------------------------------------------


def test_three_failed_searches_in_a_row_by_one_tool_are_a_repeated_failure() -> None:
    """The third consecutive Glob miss emits one repeated_failure naming the tool, count and first turn."""
    t = Transcript()
    t.prompt("where is the retry config?")
    t.say("Looking for the config.")  # turn 1
    t.glob_miss("**/retry*.yaml")  # turn 2
    t.glob_miss("**/retry*.yml")  # turn 3
    t.glob_miss("config/*.toml")  # turn 4
    report = report_of(t)
    assert signal_counts(report.overall) == {"failed_search": 3, "repeated_failure": 1}
    (run,) = gaps_of(report, "repeated_failure")
    assert run.evidence == {"tool": "Glob", "count": 3, "first_turn": 2}


def test_a_long_run_is_one_repeated_failure() -> None:
    """Six misses in a row are one run, one repeated_failure."""
    t = Transcript()
    t.prompt("where is the retry config?")
    for n in range(6):
        t.glob_miss(f"**/retry{n}.yaml")
    assert overall_signals(t) == {"failed_search": 6, "repeated_failure": 1}


@pytest.mark.parametrize(
    "between",
    [
        lambda t: t.glob_hit("**/client.py"),
        lambda t: t.call("Edit", {"file_path": "/home/dev/shop/src/client.py", "old_string": "a", "new_string": "b"},
                         "The file /home/dev/shop/src/client.py has been updated."),
        lambda t: t.bash_error("pytest -q", "1 failed"),
        lambda t: t.grep_miss("retry"),
    ],
    ids=["successful search", "non-search tool", "failing non-search", "miss by another tool"],
)  # fmt: skip
def test_any_other_call_resets_the_run(between: Any) -> None:
    """Two misses, another call, one miss: no repeated_failure."""
    t = Transcript()
    t.prompt("where is the retry config?")
    t.glob_miss("**/retry*.yaml")
    t.glob_miss("**/retry*.yml")
    between(t)
    t.glob_miss("config/*.toml")
    assert "repeated_failure" not in overall_signals(t)


def test_deduplicated_misses_still_count_towards_a_run() -> None:
    """The same Grep missing three times is one failed_search and one repeated_failure."""
    t = Transcript()
    t.prompt("find the retry policy")
    t.grep_miss("retry_policy")
    t.grep_miss("retry_policy")
    t.grep_miss("retry_policy")
    assert overall_signals(t) == {"failed_search": 1, "repeated_failure": 1}


def test_runs_are_per_segment() -> None:
    """Two misses before a cut and one after are no run."""
    t = Transcript()
    t.prompt("find the retry policy")
    t.grep_miss("retry_policy")
    t.grep_miss("RetryPolicy")
    t.skill("http-client")
    t.grep_miss("retries")
    assert overall_signals(t) == {"failed_search": 3}


@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.just(""),
            st.builds(lambda piece, times: piece * times, st.text(min_size=1, max_size=5), st.integers(1, 20_000)),
        ),
        max_size=40,
    ),
    st.lists(st.booleans(), min_size=40, max_size=40),
)
@settings(max_examples=60, deadline=None)
def test_the_kept_prompts_joined_in_place_are_the_prompts_joined(prompts: list[str], asks: list[bool]) -> None:
    """Extended and cut as prompts come (a miss asking for the text in between, or not), the joined
    text is always the kept prompts joined by a newline, and they hold at most MAX_PROMPT_CHARS."""
    tracker = CallTracker(None, frozenset())
    for text, ask in zip(prompts, asks, strict=False):
        tracker.remember_prompt(text)
        if ask:
            assert tracker._typed_text() == "\n".join(tracker._prompts)
        assert len("\n".join(tracker._prompts)) <= MAX_PROMPT_CHARS  # empty prompts count too
    assert tracker._typed_text() == "\n".join(tracker._prompts)


def _collapsed_whole(text: str, limit: int) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "bc", " ", "  ", "\n", "\t\n ", "\u00a0", "\u2003", "é", "字"]), max_size=400),
    st.integers(min_value=1, max_value=40),
)
def test_collapse_of_a_long_text_reads_its_head_and_cuts_the_same(parts: list[str], limit: int) -> None:
    """Whitespace runs and Unicode spaces across the head's cut, heads of nothing but spaces."""
    text = "".join(parts)
    assert collapse(text, limit) == _collapsed_whole(text, limit)


@pytest.mark.parametrize(
    ("prompt", "command", "output"),
    [
        ("write it into ./docs/retry-notes.md", "ls docs/retry-notes.md",
         "ls: cannot access 'docs/retry-notes.md': No such file or directory"),
        ("is there a config/retry.yaml?", "test -e config/retry.yaml", "Exit code 1"),
    ],
    ids=["ls of a typed path", "test -e of a typed path"],
)  # fmt: skip
def test_a_shell_probe_of_a_path_the_person_gave_is_user_given(prompt: str, command: str, output: str) -> None:
    """``ls``/``test -e`` of a path the person typed: the person's file is missing, not the knowledge."""
    t = Transcript()
    t.prompt(prompt)
    t.skill("http-client")
    t.call("Bash", {"command": command}, output, is_error=output.startswith("Exit"), detail=bash_detail())
    report = report_of(t)
    assert (signal_counts(report.overall), health_of(report, "http-client").user_given_misses) == ({}, 1)
