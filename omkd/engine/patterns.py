"""Every text pattern and rule omkd judges transcripts by, in one place.

Each table says what it matches and why, with the transcript facts behind it; each rule
row carries its own exceptions as fields. The detectors (``judge.py``, ``shell.py``,
``markers.py``) only apply these tables; prefilters are derived from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from omkd.engine.detect import registry

# --- Signal types and weights ------------------------------------------------------------------

FAILED_SEARCH: Final = "failed_search"
REPEATED_FAILURE: Final = "repeated_failure"
EXPLICIT_MARKER: Final = "explicit_marker"
HEDGING: Final = "hedging"

SIGNAL_WEIGHTS: Final[dict[str, float]] = {kind.name: kind.weight for kind in registry.SIGNALS}
"""Derived from the signal registry (``detect/registry.py``), where each signal is declared."""
SIGNAL_TYPES: Final = tuple(SIGNAL_WEIGHTS)
REPEATED_RUN: Final = 3
"""Failed searches by the same tool in a row that make a ``repeated_failure``."""

# --- calls that are never a gap -----------------------------------------------------------------

CANCELLED_TEXTS: Final = (
    "The user doesn't want to proceed with this tool use",  # rejected
    "doesn't want to take this action right now",
    "User rejected tool use",
    "User cancelled",
    "Permission for this tool use was denied",  # denied
    "Permission to use ",
    "Sibling tool call errored",  # a parallel call failed
    "Cancelled: parallel tool call",
    "Interrupted by user",  # interrupted
    "[Request interrupted by user",
    "[Operation Cancelled]",  # Gemini CLI: the person cancelled the call
    "aborted by user",  # Codex CLI: interrupted, or a command or patch the person rejected
    "rejected by user",
)
"""The person (or a failing sibling call) stopped the call: cancelled, never a gap, and not a
failure either (cancelled calls leave the failure rate's denominator)."""
REFUSED_TEXTS: Final = (
    "No such tool available",
    "This command requires approval",
    "but you haven't granted it yet",
    "was blocked. For security",
    "InputValidationError",
    "Tool execution denied by policy",  # Gemini CLI's policy engine
    "not found in registry",  # Gemini CLI: a tool name it does not have
    "Sandbox(Denied",  # Codex CLI: the sandbox would not start the command
    "Path not in workspace",  # Gemini CLI: a path outside the folders the person opened to it
)
"""The harness refused to run the call: a tool fault (counted as a failure), never a gap."""
REFUSED_ANY_CASE: Final = re.compile(r"input ?validation ?error", re.IGNORECASE)
"""Any ``Input validation error`` (any case, any wording after it) is a harness refusal."""
REGEX_FAULT_TEXT: Final = "regex parse error"
"""ripgrep could not compile the pattern: a fault of the search, in any output, never a miss."""
UNKNOWN_TYPE_TEXT: Final = "unrecognized file type"
"""ripgrep did not know the file type it was given (``rg -t tsx``): the search never ran, a fault
(``ripgrep_types.py``)."""
URL_AS_PATH: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
"""A file tool (Grep, Glob, Read, a directory listing) given a URL where a path goes: it answers "Path
does not exist", but it cannot read a URL at all — the search could not run as asked (a fault, as a
regex it cannot run is), not a guess of where a file lives that failed."""
PAGE_KEY: Final = "offset"
"""Grep's pagination: a call with ``offset`` > 0 asks for the results after those already shown, and
Claude Code before 2.1.210 answered a page past the last with "No matches found" (``other-agents.md``
§4): the pattern had matched, so an empty later page is not a miss."""
TYPE_FLAGS: Final = ("-t", "--type", "-T", "--type-not")
"""ripgrep's flags that name a file type, as a word of their own or joined (``-tpy``, ``--type=py``)."""
LOOK_AROUND: Final = re.compile(r"\(\?<?[=!]|\\[1-9]")
"""Look-around (``(?=``, ``(?!``, ``(?<=``, ``(?<!``) and back-references (``\\1``…): ripgrep (behind
Claude Code's Grep and ``rg`` without ``-P``) cannot run them, and some Claude Code versions answer
such a pattern with a plain "No matches found": a fault, not a miss."""
PCRE_FLAGS: Final = frozenset({"-P", "--pcre2", "--engine=pcre2", "--engine", "--perl-regexp"})
"""Flags that give ``rg``/``grep`` an engine that runs look-around."""
NOT_GAP_SEARCH_CHARS: Final = 400
"""These texts come first in a result: only its head is searched."""
SEARCH_FAULTS: Final = (
    "spawn ", "EACCES", "EPERM", "ETIMEDOUT", "timed out",
    "Permission denied",
    # Codex's grep_files: no ripgrep, ripgrep's own error (a regex or glob it cannot read), its arguments refused
    "failed to launch", "rg failed: ", "failed to parse function arguments", "must not be empty",
    "must be greater than zero",
)  # fmt: skip
"""Errors of a search tool that say the tool could not run (its ripgrep could not be spawned,
a timeout): a tool fault, not a thing that was missing."""

# --- failed_search, per tool -------------------------------------------------------------------

PATH_KEYS: Final = ("file_path", "path")
"""Where a file tool's input names its file (``path`` in some older versions and wrappers)."""
PATH_GIVEN: Final = "path"
NAME_GIVEN: Final = "name"
URL_GIVEN: Final = "url"


@dataclass(frozen=True, slots=True)
class SearchRule:
    """How one search tool reports that it found nothing, with its exceptions.

    ``empty_prefixes``: result texts meaning "no hit" (``is_error`` is absent on them).
    ``empty_counts``: ``toolUseResult`` keys whose 0 means no hit, per Grep ``mode``
    (``None`` = no mode field). Grep's content mode reports ``numFiles: 0`` even with hits,
    so there only ``numLines`` counts; and a count that contradicts a result text showing
    hits is not believed.
    ``miss_errors``: where only some errors mean "not found" (Read, WebFetch), the substrings
    that do; empty means every error is a miss. ``fault_errors``: errors that never are.
    ``input_keys``: where the call's pattern, path or URL is, first present wins.
    ``empty_result_is_miss``: an empty result (no text, no result entries) is a miss.
    ``user_given``: what of the call the person may have typed earlier, which makes its miss
    evidence (``user_given``), not a gap: the ``path`` (absolute or relative to the cwd; a bare
    file name is not enough), the searched ``name``, the ``url``.
    """

    input_keys: tuple[str, ...] = ("pattern",)
    empty_prefixes: tuple[str, ...] = ()
    empty_counts: tuple[tuple[str | None, str], ...] = ()
    miss_errors: tuple[str, ...] = ()
    fault_errors: tuple[str, ...] = SEARCH_FAULTS
    empty_result_is_miss: bool = False
    user_given: str | None = None


ZERO_SUMMARY: Final = "Found 0 "
"""Grep's summary line when it counted nothing; any other result text shows hits."""
READ_NOT_FOUND: Final = (
    "File does not exist",
    "File not found",  # Gemini CLI's read_file
    "No such file or directory",  # Codex CLI's read_file (``failed to read file: … (os error 2)``)
    "cannot find the file specified",  # the same on Windows (``The system cannot find the file specified.``)
    "cannot find the path specified",
    "Path does not exist",
    "Directory does not exist",
    "ENOENT",
)
"""Read's not-found errors. EISDIR is not one (the agent read a directory that exists), nor is
a file too large or binary."""

SEARCH_RULES: Final[dict[str, SearchRule]] = {
    "Grep": SearchRule(
        empty_prefixes=("No matches found", "No files found"),
        empty_counts=(
            (None, "numFiles"),
            ("files_with_matches", "numFiles"),
            ("content", "numLines"),
            ("count", "numMatches"),
        ),
        user_given=NAME_GIVEN,
    ),
    "Glob": SearchRule(
        # Gemini CLI's read_many_files, judged as a Glob of its paths, says "No files matching the criteria…"
        empty_prefixes=("No files found", "No files matching the criteria were found"),
        empty_counts=((None, "numFiles"),),
        user_given=NAME_GIVEN,
    ),
    "Read": SearchRule(input_keys=PATH_KEYS, miss_errors=READ_NOT_FOUND, user_given=PATH_GIVEN),
    "WebSearch": SearchRule(
        input_keys=("query",),
        empty_prefixes=("No search results or information found",),  # Gemini CLI's google_web_search
        empty_result_is_miss=True,
    ),
    "ToolSearch": SearchRule(  # Claude Code's search of its deferred tools: a guessed tool name not there
        input_keys=("query",), empty_prefixes=("No matching deferred tools found",)
    ),
    "WebFetch": SearchRule(
        input_keys=("url",),
        miss_errors=("status code 404", "status code 410", "server returned HTTP 404", "server returned HTTP 410"),
        # newer Claude Code answers a 404 as a plain result, not an error (and in its own words either way)
        # Gemini CLI's web_fetch fetching directly: ``Request failed with status 404``, a plain result too
        empty_prefixes=(
            "The server returned HTTP 404",
            "The server returned HTTP 410",
            "Request failed with status 404",
            "Request failed with status 410",
        ),
        user_given=URL_GIVEN,
    ),
    "list_directory": SearchRule(
        input_keys=(*PATH_KEYS, "dir_path"),  # Codex CLI's list_dir
        miss_errors=(
            "Directory not found",
            "does not exist",
            "No such file or directory",
            "ENOENT",
            "cannot find the file specified",
            "cannot find the path specified",  # Codex CLI's list_dir on Windows
        ),
        user_given=PATH_GIVEN,
    ),
}
"""``WebFetch``: only a 404 or 410 of a URL the agent chose is a failed lookup (it guessed where the
documentation lives); 403, 5xx, timeouts and "unable to verify" are tool faults."""

AGENT_TOOLS: Final[dict[str, str]] = {
    # Codex CLI: ``shell`` (0.40, an argv), ``exec_command`` (0.104+), ``shell_command`` (Windows builds)
    "shell": "Bash",
    "local_shell": "Bash",
    "exec_command": "Bash",
    "shell_command": "Bash",
    # Gemini CLI
    "run_shell_command": "Bash",
    "grep_search": "Grep",
    "search_file_content": "Grep",
    "glob": "Glob",
    "read_many_files": "Glob",  # its ``include`` globs (or ``paths``), as one Glob of them
    "read_file": "Read",  # Codex CLI's too (``file_path``), as its ``grep_files`` and ``list_dir``
    "grep_files": "Grep",
    "list_dir": "list_directory",
    "LS": "list_directory",  # Claude Code's own listing tool of its first versions (``path``)
    "google_web_search": "WebSearch",
    "web_fetch": "WebFetch",
    "activate_skill": "Skill",
}
"""Other agents' tools judged as the Claude Code tool they do the work of. Their adapters put the
input where that tool's rule reads it (``command`` a string, ``file_path``, ``pattern``, ``skill``);
the name in reports stays the agent's own."""
WRAPPED_TOOLS: Final = frozenset({"Bash", "PowerShell", "Read", "Grep", "Glob", "WebFetch", "WebSearch"})
"""Tools reached through an MCP wrapper (``mcp__<server>__Bash``, the ACP bridge's ``mcp__acp__Read``)
are judged as the tool they wrap."""
MCP_SEARCH_WORDS: Final = ("search", "query", "retriev", "lookup", "find")
"""MCP tools (``mcp__<server>__<tool>``) whose tool name says they search."""
MCP_SEARCH_RULE: Final = SearchRule(input_keys=(), empty_result_is_miss=True)
"""Configured search tools and MCP search tools: an error, or an empty result, is a miss."""
QUERY_KEYS: Final = ("query", "q")
QUERY_KEY_WORDS: Final = ("query", "search", "keyword", "term", "pattern", "question")
"""Where a search tool of unknown shape holds its query (spec §6: its pattern is the query): these keys,
else the first key naming one of these words (``searchName``), else its only text."""

# --- explicit_marker ---------------------------------------------------------------------------

MARKER_PATTERN: Final = re.compile(
    r"【推断】|【知识缺口】|【未知】|\[inferred\]|\[unknown\]|\[knowledge\s+gap\]",
    re.IGNORECASE,
)
MARKER_OPENERS: Final = ("【", "[")
"""Every marker starts with one of these: a text without them has no marker."""
INLINE_CODE: Final = re.compile(r"(?<!`)(`+)(?!`)[^\n]*?(?<!`)\1(?!`)")
"""Inline code: a run of backticks, closed on the same line by the next run as long."""
FENCE: Final = re.compile(r"`{3,}(?!.*`)|~{3,}")
"""The opening fence of a fenced code block (a backtick fence's info string holds no backtick)."""
# A markdown table's separator row (``--- | ---``, ``|:---|---:|``): its block's rows are quoted.
TABLE_SEPARATOR: Final = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$")

# --- segment boundaries ------------------------------------------------------------------------

COMMAND_NAME: Final = re.compile(r"<command-name>\s*([^<]*?)\s*</command-name>")
NOT_TYPED_PREFIXES: Final = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<task-notification>",
    "<system-reminder>",
    "<bash-stdout>",
    "<bash-stderr>",
    "[Request interrupted by user",
)
"""User texts Claude Code writes (harness notices: a background task ended, a local command ran),
not typed by the person: they never end a skill's segment."""
INTERRUPTED_PREFIX: Final = "[Request interrupted by user"
"""The notice Claude Code writes when the person stops the agent (one of ``NOT_TYPED_PREFIXES``)."""
COMMAND_FAILED_PREFIX: Final = "<local-command-stderr>"
"""A command frame answered only by this opens no segment: the command did not run."""
SKILL_BODY_PREFIX: Final = "Base directory for this skill:"
"""The first line of the body a skill injects; a plugin skill's directory names its plugin:
``…/plugins/…/<plugin>/<version>/skills/<name>``."""
COMPACTION_PREFIX: Final = "This session is being continued from a previous conversation"
SKILL_FILE: Final = re.compile(r"(?:^|[/\\])\.(?:claude|agents|codex)[/\\]skills[/\\]([^/\\]+)[/\\]SKILL\.md$")
FORK_AGENT_PREFIX: Final = "aside_question-"
"""``agentId`` of a side-question (``/btw``) sub-agent: its file starts with a copy of the parent's
conversation, which is skipped up to the side question."""
FORK_QUESTION_PREFIX: Final = "<system-reminder>This is a side question from the user"
