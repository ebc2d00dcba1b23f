"""Every text pattern and rule omkd judges transcripts by, in one place.

Each table says what it matches and why, with the transcript facts behind it; each rule
row carries its own exceptions as fields. The detectors (``judge.py``, ``shell.py``,
``markers.py``) only apply these tables; prefilters are derived from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# --- Signal types and weights ------------------------------------------------------------------

FAILED_SEARCH: Final = "failed_search"
REPEATED_FAILURE: Final = "repeated_failure"
EXPLICIT_MARKER: Final = "explicit_marker"
HEDGING: Final = "hedging"

SIGNAL_WEIGHTS: Final[dict[str, float]] = {
    FAILED_SEARCH: 1.0,
    REPEATED_FAILURE: 1.0,
    EXPLICIT_MARKER: 0.5,
    HEDGING: 0.5,
}
SIGNAL_TYPES: Final = tuple(SIGNAL_WEIGHTS)
REPEATED_RUN: Final = 3
"""Failed searches by the same tool in a row that make a ``repeated_failure``."""

# --- Cancelled calls: never a gap (the person or the harness stopped the call) -----------------

CANCELLED_TEXTS: Final = (
    "The user doesn't want to proceed with this tool use",  # rejected
    "User rejected tool use",
    "Permission for this tool use was denied",  # denied
    "Permission to use ",
    "but you haven't granted it yet",
    "This command requires approval",
    "was blocked. For security",
    "Sibling tool call errored",  # a parallel call failed
    "Cancelled: parallel tool call",
    "Interrupted by user",  # interrupted
    "[Request interrupted by user",
)
CANCELLED_SEARCH_CHARS: Final = 400
"""Cancellation texts come first in a result: only its head is searched."""

# --- failed_search, per tool -------------------------------------------------------------------

PATH_KEYS: Final = ("file_path", "path")
"""Where a file tool's input names its file (``path`` in some older versions)."""


@dataclass(frozen=True, slots=True)
class SearchRule:
    """How one search tool reports that it found nothing, with its exceptions.

    ``empty_prefixes``: result texts meaning "no hit" (``is_error`` is absent on them).
    ``empty_counts``: ``toolUseResult`` keys whose 0 means no hit, per Grep ``mode``
    (``None`` = no mode field). Grep's content mode reports ``numFiles: 0`` even with
    hits, so there only ``numLines`` counts.
    ``miss_errors``: for tools where only some errors mean "not found" (Read), the
    substrings that do; empty means every error is a miss.
    ``input_keys``: where the call's pattern or path is, first present wins.
    ``empty_result_is_miss``: an empty result (no text, no result entries) is a miss.
    ``user_given``: a miss of a path the person typed earlier is evidence, never a gap.
    """

    input_keys: tuple[str, ...] = ("pattern",)
    empty_prefixes: tuple[str, ...] = ()
    empty_counts: tuple[tuple[str | None, str], ...] = ()
    miss_errors: tuple[str, ...] = ()
    empty_result_is_miss: bool = False
    user_given: bool = False


READ_NOT_FOUND: Final = (
    "File does not exist",
    "Path does not exist",
    "Directory does not exist",
    "EISDIR",
    "ENOENT",
)

SEARCH_RULES: Final[dict[str, SearchRule]] = {
    "Grep": SearchRule(
        empty_prefixes=("No matches found", "No files found"),
        empty_counts=(
            (None, "numFiles"),
            ("files_with_matches", "numFiles"),
            ("content", "numLines"),
            ("count", "numMatches"),
        ),
    ),
    "Glob": SearchRule(empty_prefixes=("No files found",), empty_counts=((None, "numFiles"),)),
    "Read": SearchRule(input_keys=PATH_KEYS, miss_errors=READ_NOT_FOUND, user_given=True),
    "WebSearch": SearchRule(input_keys=("query",), empty_result_is_miss=True),
}

MCP_SEARCH_WORDS: Final = ("search", "query", "retriev", "lookup", "find")
"""MCP tools (``mcp__<server>__<tool>``) whose tool name says they search."""
MCP_SEARCH_RULE: Final = SearchRule(input_keys=(), empty_result_is_miss=True)
"""Configured search tools and MCP search tools: every error, or an empty result, is a miss."""

# --- shell commands ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShellRule:
    """When a shell command is a search or probe, and how it reports finding nothing.

    ``programs``: a run of one of these is a search. ``path_programs``: a search only with a
    path operand (``ls`` alone lists the cwd). ``test_programs`` with one of ``test_flags``
    probe for existence; their success or failure is the answer, not a miss.
    ``empty_outputs``: outputs meaning the search printed nothing. ``no_match``: the
    ``returnCodeInterpretation`` Claude Code gives grep's exit code 1.
    """

    programs: frozenset[str]
    path_programs: frozenset[str]
    test_programs: frozenset[str]
    test_flags: frozenset[str]
    empty_outputs: frozenset[str]
    no_match: str


SHELL_TOOLS: Final = frozenset({"Bash", "PowerShell"})
SHELL_RULE: Final = ShellRule(
    programs=frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "locate"}),
    path_programs=frozenset({"ls", "cat", "dir", "Get-ChildItem", "Test-Path"}),
    test_programs=frozenset({"test", "[", "[["}),
    test_flags=frozenset({"-e", "-f", "-d"}),
    empty_outputs=frozenset({"", "(Bash completed with no output)"}),
    no_match="No matches found",
)
SHELL_WRAPPERS: Final = frozenset({"sudo", "command", "time", "nice", "env", "xargs", "("})
"""Words before the program that run it: skipped to find the program."""
SHELL_READERS: Final = frozenset({"cat", "head", "tail", "sed", "less"})
"""Programs that read a file, for coverage: a successful run accesses its operands."""
SKILL_FILE_READERS: Final = frozenset({"cat", "head", "sed"})
"""Shell reads of a SKILL.md that open the skill's segment (the fallback signal)."""

# --- explicit_marker ---------------------------------------------------------------------------

MARKER_PATTERN: Final = re.compile(
    r"【推断】|【知识缺口】|【未知】|\[inferred\]|\[unknown\]|\[knowledge\s+gap\]",
    re.IGNORECASE,
)
MARKER_OPENERS: Final = ("【", "[")
"""Every marker starts with one of these: a text without them has no marker."""
INLINE_CODE: Final = re.compile(r"`[^`\n]*`")
# A markdown table's separator row (``--- | ---``, ``|:---|---:|``): its block's rows are quoted.
TABLE_SEPARATOR: Final = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")

# --- hedging -----------------------------------------------------------------------------------

HEDGING_PHRASES: Final = (
    "我不确定",
    "没有足够信息",
    "需要查证",
    "无法确认",
    "I'm not sure",
    "I’m not sure",
    "Im not sure",
    "insufficient information",
    "need to verify",
    "presumably",
)
"""Literal phrases, matched case-insensitively. Configured extras are regular expressions."""
HEDGING_LITERALS: Final = tuple(phrase.lower() for phrase in HEDGING_PHRASES)
"""The prefilter: a substring test per phrase on the lowered text is several times faster than
the alternation, and tells whether to run it at all."""


def compile_hedging(extra: tuple[str, ...] = ()) -> re.Pattern[str]:
    """One case-insensitive alternation of the built-in phrases and the configured patterns."""
    alternatives = [re.escape(p) for p in HEDGING_PHRASES] + [f"(?:{p})" for p in extra]
    return re.compile("|".join(alternatives), re.IGNORECASE)


# --- segment boundaries ------------------------------------------------------------------------

COMMAND_NAME: Final = re.compile(r"<command-name>\s*([^<]*?)\s*</command-name>")
NOT_TYPED_PREFIXES: Final = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
    "[Request interrupted by user",
)
"""User texts written by Claude Code, not typed by the person."""
COMPACTION_PREFIX: Final = "This session is being continued from a previous conversation"
SKILL_FILE: Final = re.compile(r"(?:^|[/\\])\.(?:claude|agents|codex)[/\\]skills[/\\]([^/\\]+)[/\\]SKILL\.md$")
FORK_AGENT_PREFIX: Final = "aside_question-"
"""``agentId`` of a side-question (``/btw``) sub-agent: its file starts with a copy of the parent's
conversation, which is skipped up to the side question."""
FORK_QUESTION_PREFIX: Final = "<system-reminder>This is a side question from the user"
