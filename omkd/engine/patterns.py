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
)
"""The harness refused to run the call: a tool fault (counted as a failure), never a gap."""
NOT_GAP_SEARCH_CHARS: Final = 400
"""These texts come first in a result: only its head is searched."""
SEARCH_FAULTS: Final = ("spawn ", "EACCES", "EPERM", "ETIMEDOUT", "timed out")
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
    "Glob": SearchRule(empty_prefixes=("No files found",), empty_counts=((None, "numFiles"),), user_given=NAME_GIVEN),
    "Read": SearchRule(input_keys=PATH_KEYS, miss_errors=READ_NOT_FOUND, user_given=PATH_GIVEN),
    "WebSearch": SearchRule(
        input_keys=("query",),
        empty_prefixes=("No search results or information found",),  # Gemini CLI's google_web_search
        empty_result_is_miss=True,
    ),
    "WebFetch": SearchRule(
        input_keys=("url",),
        miss_errors=("status code 404", "status code 410"),
        user_given=URL_GIVEN,
    ),
    "list_directory": SearchRule(
        input_keys=PATH_KEYS,
        miss_errors=("Directory not found", "does not exist", "No such file or directory", "ENOENT"),
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
    "read_file": "Read",
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

# --- shell commands ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShellRule:
    """When a shell command is a search or probe, and how it reports finding nothing.

    A command is a search when ANY of its simple commands (each stage of a pipeline, each
    part of a ``&&`` / ``||`` / ``;`` list) is one. ``programs``: a run of one of these is a
    search; ``subcommands``: a program that searches only with this first argument (``git
    grep``, ``command -v``); ``path_programs``: a search only with a path operand (``ls`` alone
    lists the cwd; ``sed -n '1,200p' FILE``, ``head``, ``tail`` read it, as Codex reads files),
    and never with one of ``editing_flags`` (``sed -i`` edits). ``test_programs`` with one of
    ``test_flags`` probe for existence: their exit status is the answer, so only a hidden fallback
    or an error makes them a miss. ``line_selectors`` exit with one of ``no_lines_codes`` when no
    line matched (their errors exit 2): a command whose exit status is theirs and is that code found
    nothing, whatever else was printed.
    ``empty_outputs``: outputs meaning the search printed nothing. ``no_match``: the
    ``returnCodeInterpretation`` Claude Code gives grep's exit code 1. ``not_found_lines``:
    an output made only of such lines is the search programs' own "not there" (Claude Code
    does not mark these runs as errors). ``not_run_codes``: exit codes of a shell that could not
    run the program at all (a tool fault). ``fallbacks``: the programs whose literal text a
    command prints itself: ``… || echo TEXT`` after a search hides its miss when TEXT is printed,
    and an output made only of the command's own headers means its searches printed nothing.
    ``syntax_errors``: the shell's own complaints (the agent's typo, not a missing thing).
    """

    programs: frozenset[str]
    subcommands: frozenset[tuple[str, str]]
    path_programs: frozenset[str]
    editing_flags: frozenset[str]
    test_programs: frozenset[str]
    test_flags: frozenset[str]
    empty_outputs: frozenset[str]
    no_match: str
    not_found_lines: re.Pattern[str]
    exit_code_line: re.Pattern[str]
    not_run_codes: frozenset[int]
    line_selectors: frozenset[str]
    no_lines_codes: frozenset[int]
    fallbacks: frozenset[str]
    syntax_errors: tuple[str, ...]


SHELL_TOOLS: Final = frozenset({"Bash", "PowerShell"})
SHELL_RULE: Final = ShellRule(
    programs=frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "locate", "which", "type"}),
    subcommands=frozenset({("git", "grep"), ("command", "-v")}),
    path_programs=frozenset(
        {"ls", "cat", "head", "tail", "sed", "dir", "Get-ChildItem", "Test-Path", "Get-Content", "stat", "tree"}
    ),
    editing_flags=frozenset({"-i", "--in-place"}),
    test_programs=frozenset({"test", "[", "[["}),
    test_flags=frozenset({"-e", "-f", "-d"}),
    empty_outputs=frozenset({"", "(Bash completed with no output)"}),
    no_match="No matches found",
    not_found_lines=re.compile(
        r"^(?:.*: No such file or directory(?: \(os error 2\))?"
        r"|.*: cannot access .*: No such file or directory"
        r"|which: no \S+ in \(.*\)"
        r"|(?:.*: )?\S+: not found"
        r"|.*Cannot find path .* because it does not exist\.?)$"
    ),
    exit_code_line=re.compile(r"^Exit code (\d+)$"),
    not_run_codes=frozenset({126, 127}),
    line_selectors=frozenset({"grep", "egrep", "fgrep", "rg"}),
    no_lines_codes=frozenset({1}),
    fallbacks=frozenset({"echo", "printf"}),
    syntax_errors=(
        "unexpected EOF while looking for matching",
        "syntax error near unexpected token",
        "syntax error: unexpected end of file",
    ),
)
SHELL_WRAPPERS: Final = frozenset({"sudo", "command", "time", "nice", "env", "xargs", "("})
"""Words before the program that run it: skipped to find the program (``command -v`` aside)."""
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
