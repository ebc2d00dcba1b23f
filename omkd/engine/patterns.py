"""Every text pattern omkd judges transcripts by, in one place.

Each table says what it matches and why, with the transcript facts behind it
(``docs/trace-format.md`` §1.5). Detectors in ``signals.py`` only apply these tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# --- Signal weights (spec §3) -------------------------------------------------------------

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

# --- Cancelled calls: never a gap (the person or the harness stopped the call) -----------

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

# --- failed_search, per tool --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SearchRule:
    """How one search tool reports that it found nothing.

    ``empty_prefixes``: result texts meaning "no hit" (``is_error`` absent on them).
    ``empty_counts``: ``toolUseResult`` keys whose 0 means no hit, per Grep ``mode``
    (``None`` = no mode field). Grep's content mode reports ``numFiles: 0`` even with
    hits, so there only ``numLines`` counts.
    ``error_needles``: for tools where only some errors mean "not found" (Read), the
    substrings that do; empty means every error counts.
    ``input_keys``: where the call's pattern or path is, first present wins.
    """

    empty_prefixes: tuple[str, ...] = ()
    empty_counts: tuple[tuple[str | None, str], ...] = ()
    error_needles: tuple[str, ...] = ()
    input_keys: tuple[str, ...] = ("pattern",)
    empty_text_is_miss: bool = False


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
        input_keys=("pattern",),
    ),
    "Glob": SearchRule(
        empty_prefixes=("No files found",),
        empty_counts=((None, "numFiles"),),
        input_keys=("pattern",),
    ),
    "Read": SearchRule(error_needles=READ_NOT_FOUND, input_keys=("file_path", "path")),
    "WebSearch": SearchRule(input_keys=("query",), empty_text_is_miss=True),
}

SHELL_TOOLS: Final = frozenset({"Bash", "PowerShell"})
SHELL_EMPTY_OUTPUTS: Final = frozenset({"", "(Bash completed with no output)"})
SHELL_NO_MATCH: Final = "No matches found"  # toolUseResult.returnCodeInterpretation

# Programs whose run is a search or a probe for something's existence.
SHELL_PROBES: Final = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "locate"})
# Probes that only count with a path argument.
SHELL_PATH_PROBES: Final = frozenset({"ls", "cat", "dir", "Get-ChildItem", "Test-Path"})
SHELL_TEST_FLAGS: Final = frozenset({"-e", "-f", "-d"})
# Programs that read a file (coverage, spec §5) and the SKILL.md fallback (spec §2).
SHELL_READERS: Final = frozenset({"cat", "head", "tail", "sed", "less"})
SKILL_FILE_READERS: Final = frozenset({"cat", "head", "sed"})

# MCP tools whose name says they search: mcp__<server>__<tool>.
MCP_SEARCH_WORDS: Final = ("search", "query", "retriev", "lookup", "find")

# --- explicit_marker ----------------------------------------------------------------------

MARKER_PATTERN: Final = re.compile(
    r"【推断】|【知识缺口】|【未知】|\[inferred\]|\[unknown\]|\[knowledge\s+gap\]",
    re.IGNORECASE,
)
# Where a marker is quoted rather than used: fenced blocks, inline code.
FENCED_BLOCK: Final = re.compile(r"^[ \t]*(```|~~~).*?(^[ \t]*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
INLINE_CODE: Final = re.compile(r"`[^`\n]*`")
# A markdown table's separator row (``--- | ---``, ``|:---|---:|``): its block's rows are quoted.
TABLE_SEPARATOR: Final = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")

# --- hedging ------------------------------------------------------------------------------

HEDGING_PHRASES: Final = (
    "我不确定",
    "没有足够信息",
    "需要查证",
    "无法确认",
    r"I['’]?m not sure",
    "insufficient information",
    "need to verify",
    "presumably",
)


# The built-in phrases as lower-case literals: a substring test per phrase on the lowered
# text is several times faster than the alternation, and tells whether to run it at all.
HEDGING_LITERALS: Final = (
    "我不确定",
    "没有足够信息",
    "需要查证",
    "无法确认",
    "i'm not sure",
    "i’m not sure",
    "im not sure",
    "insufficient information",
    "need to verify",
    "presumably",
)


def compile_hedging(extra: tuple[str, ...] = ()) -> re.Pattern[str]:
    """One case-insensitive alternation of the built-in and configured phrases."""
    return re.compile("|".join(f"(?:{p})" for p in (*HEDGING_PHRASES, *extra)), re.IGNORECASE)


# --- segment boundaries -------------------------------------------------------------------

COMMAND_NAME: Final = re.compile(r"<command-name>\s*([^<]*?)\s*</command-name>")
# User texts that are written by Claude Code, not typed by the person.
NOT_TYPED_PREFIXES: Final = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
    "[Request interrupted by user",
)
COMPACTION_PREFIX: Final = "This session is being continued from a previous conversation"
SKILL_FILE: Final = re.compile(r"(?:^|[/\\])\.(?:claude|agents|codex)[/\\]skills[/\\]([^/\\]+)[/\\]SKILL\.md$")
