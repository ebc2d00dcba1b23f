"""Judge one answered tool call by the rule tables of ``patterns.py``.

The verdict says what the call came to (found, missed, failed, cancelled, refused), what it
looked for, and which rule row decided: ``omkd explain`` shows it for every call.
"""

from __future__ import annotations

import itertools
import re
from typing import Final

import orjson

from omkd.engine import (
    empty_reads,
    http_lookups,
    loop_items,
    patterns,
    probe_rules,
    ripgrep_types,
    search_pattern,
    shell,
    shell_output,
    shell_rules,
    zsh_globs,
)
from omkd.engine.events import ToolCall, ToolResult
from omkd.engine.signals import Outcome, Verdict, collapse
from omkd.engine.silent_probes import probe_failed


def _head_has(result: ToolResult, needles: tuple[str, ...]) -> bool:
    head = result.text[: patterns.NOT_GAP_SEARCH_CHARS]
    detail = result.detail if isinstance(result.detail, str) else ""
    return any(needle in head or needle in detail for needle in needles)


def is_mcp_search(tool: str) -> bool:
    if not tool.startswith("mcp__"):
        return False
    name = tool.rsplit("__", 1)[-1].lower()
    return any(word in name for word in patterns.MCP_SEARCH_WORDS)


def unwrapped(tool: str) -> str:
    """The tool a wrapper reaches: ``mcp__acp__Read`` is judged as ``Read``; another agent's
    tool is judged as the Claude Code tool it does the work of (``exec_command`` as ``Bash``)."""
    alias = patterns.AGENT_TOOLS.get(tool)
    if alias is not None:
        return alias
    if tool.startswith("mcp__"):
        inner = tool.rsplit("__", 1)[-1]
        if inner in patterns.WRAPPED_TOOLS:
            return inner
    return tool


def first_input(call: ToolCall, keys: tuple[str, ...]) -> str:
    for key in keys:
        value = call.input.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def query_of(call: ToolCall) -> str:
    """A search tool's query (``patterns.QUERY_KEYS``), else its whole input in short."""
    found = first_input(call, patterns.QUERY_KEYS)
    if found:
        return collapse(found, 200)
    texts = {key: value for key, value in call.input.items() if isinstance(value, str) and value.strip()}
    named = [value for key, value in texts.items() if any(w in key.lower() for w in patterns.QUERY_KEY_WORDS)]
    if named or len(texts) == 1:
        return collapse((named or list(texts.values()))[0], 200)
    return collapse(str(call.input), 200)


def _empty_count(rule: patterns.SearchRule, result: ToolResult) -> bool:
    detail = result.detail
    if not isinstance(detail, dict):
        return False
    text = result.text.strip()
    if text and not text.startswith(rule.empty_prefixes or ("\0",)) and not text.startswith(patterns.ZERO_SUMMARY):
        return False  # the result text shows hits (count mode on one file prints a bare "20"): not believed
    mode = detail.get("mode")
    return any(mode == rule_mode and detail.get(key) == 0 for rule_mode, key in rule.empty_counts)


def _empty_result(result: ToolResult) -> bool:
    detail = result.detail
    results = detail.get("results") if isinstance(detail, dict) else None
    if isinstance(results, list):
        return not any(
            (isinstance(r, str) and r.strip()) or (isinstance(r, dict) and r.get("content")) for r in results
        )
    text = result.text.strip()
    return not text or (text[0] in "[{n" and text[-1] in "]}l" and _holds_nothing(text))


def _holds_nothing(text: str) -> bool:
    """A JSON answer that holds nothing (``[]``, ``{}``, ``null``, ``{"results": [], "total": 0}``): an
    empty result as an empty text is. A key with any text, number or true in it says something."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return _empty_value(value)


def _empty_value(value: object) -> bool:
    if isinstance(value, dict):
        return all(_empty_value(v) for v in value.values())
    return not value  # an empty list, and null, false, 0 or "" beside the keys of an object


def rule_for(tool: str, extra_search_tools: frozenset[str]) -> tuple[str, patterns.SearchRule] | None:
    """The search rule row a tool is judged by, and its name."""
    name = unwrapped(tool)
    rule = patterns.SEARCH_RULES.get(name)
    if rule is not None:
        return name, rule
    if tool in extra_search_tools or is_mcp_search(tool):
        return "search_tool", patterns.MCP_SEARCH_RULE
    return None


def judge(call: ToolCall, result: ToolResult, extra_search_tools: frozenset[str] = frozenset()) -> Verdict:
    """Classify one answered tool call."""
    if result.is_error and _head_has(result, patterns.CANCELLED_TEXTS):
        return Verdict(Outcome.CANCELLED, rule="cancelled")
    if result.is_error and _head_has(result, patterns.REFUSED_TEXTS):
        return Verdict(Outcome.REFUSED, rule="harness_refused")
    if patterns.REFUSED_ANY_CASE.match(result.text.lstrip()[:40]) or (
        result.is_error and patterns.REFUSED_ANY_CASE.search(result.text[: patterns.NOT_GAP_SEARCH_CHARS])
    ):
        return Verdict(Outcome.REFUSED, rule="harness_refused.input_validation")
    found = rule_for(call.tool, extra_search_tools)
    if found is not None:
        return _judge_search(call, result, *found)
    if unwrapped(call.tool) in shell_rules.SHELL_TOOLS:
        return _judge_shell(call, result)
    return Verdict(Outcome.FAILED if result.is_error else Outcome.OK, rule="not_a_search")


def _judge_search(call: ToolCall, result: ToolResult, name: str, rule: patterns.SearchRule) -> Verdict:
    key = first_input(call, rule.input_keys) if rule.input_keys else query_of(call)
    given = rule.user_given
    head = result.text[: patterns.NOT_GAP_SEARCH_CHARS]
    if patterns.REGEX_FAULT_TEXT in head:
        return Verdict(Outcome.FAILED, key, rule=f"{name}.regex_fault")
    if patterns.UNKNOWN_TYPE_TEXT in head:
        return Verdict(Outcome.FAILED, key, rule=f"{name}.unknown_type")
    if name in _FILE_TOOLS and any(
        isinstance(v := call.input.get(k), str) and patterns.URL_AS_PATH.match(v) for k in patterns.PATH_KEYS
    ):
        return Verdict(Outcome.FAILED, key, rule=f"{name}.url_as_path")
    if result.is_error:
        if rule.fault_errors and _head_has(result, rule.fault_errors):
            return Verdict(Outcome.FAILED, key, rule=f"{name}.fault")
        if not rule.miss_errors or any(needle in result.text for needle in rule.miss_errors):
            return Verdict(Outcome.MISSED, key, given, rule=f"{name}.error")
        return Verdict(Outcome.FAILED, key, rule=f"{name}.fault")
    empty = bool(rule.empty_prefixes and result.text.startswith(rule.empty_prefixes))
    if (empty or _empty_count(rule, result)) and name == "Grep":
        if _unrunnable(key):
            return Verdict(Outcome.FAILED, key, rule="Grep.regex_unsupported")
        if _unknown_type(call.input.get("type")):
            # ripgrep refused the type; some Claude Code versions answer "No files found"
            return Verdict(Outcome.FAILED, key, rule="Grep.unknown_type")
        if _later_page(call.input.get(patterns.PAGE_KEY)):
            return Verdict(Outcome.OK, key, rule="Grep.past_last_page")
    if empty:
        return Verdict(Outcome.MISSED, key, given, rule=f"{name}.empty_text")
    if _empty_count(rule, result):
        return Verdict(Outcome.MISSED, key, given, rule=f"{name}.zero_count")
    if rule.empty_result_is_miss and _empty_result(result):
        return Verdict(Outcome.MISSED, key, given, rule=f"{name}.empty_result")
    return Verdict(Outcome.OK, key, rule=f"{name}.found")


def _judge_shell(call: ToolCall, result: ToolResult) -> Verdict:
    command = call.input.get("command")
    if not isinstance(command, str):
        return Verdict(Outcome.FAILED if result.is_error else Outcome.OK, rule="not_a_search")
    rule = shell_rules.SHELL_RULE
    parsed = shell.parse(command)
    if not parsed.searches and not parsed.tests and not parsed.probes and not parsed.http:
        return Verdict(Outcome.FAILED if result.is_error else Outcome.OK, rule="not_a_search")
    key = collapse(command, 200)
    output, code = shell_output.output_of(result.text, result.is_error, result.detail)
    if any(text in output for text in rule.syntax_errors):
        return Verdict(Outcome.FAILED, key, rule="shell.syntax_error")
    globbed = zsh_globs.roles(output.splitlines(), parsed) if "no matches found: " in output else {}
    printed = (
        [line for line in shell_output.output_lines(output) if not shell_rules.profile_noise(line, command)]
        if globbed
        else []
    )
    if globbed and zsh_globs.stopped(globbed, printed, command):
        return Verdict(Outcome.FAILED, key, rule="shell.syntax_error")  # zsh ran no lookup: a quoting slip
    if patterns.REGEX_FAULT_TEXT in output or any(_stage_unrunnable(stage) for stage in parsed.searches):
        return Verdict(Outcome.FAILED, key, rule="shell.regex_unsupported")
    if patterns.UNKNOWN_TYPE_TEXT in output or any(_stage_unknown_type(stage) for stage in parsed.searches):
        return Verdict(Outcome.FAILED, key, rule="shell.unknown_type")
    if any(probe_rules.probe_missed(probe, output) for _, probe in parsed.probes) and not (
        len(parsed.probes) > 1 and probe_rules.answered(parsed.probes, output)
    ):  # probes of alternatives (``powershell --version; pwsh --version``) are one question
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.probe_not_found")
    if parsed.http and http_lookups.http_missed(output, parsed.http):
        return Verdict(Outcome.MISSED, key, patterns.URL_GIVEN, rule="shell.http_not_found")
    lines = [line for line in shell_output.output_lines(output) if globbed.get(line, zsh_globs.PATH) == zsh_globs.PATH]
    if parsed.fallbacks and not set(lines).isdisjoint(loop_items.fallback_lines(parsed)):  # a probe's too
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.fallback")
    if not parsed.searches and not parsed.tests:  # probes and HTTP clients only: answered otherwise
        return Verdict(Outcome.FAILED if result.is_error else Outcome.OK, key, rule="shell.probe_answered")
    noisy = ": line " in output  # a login profile's complaint holds it (``shell_rules.PROFILE_NOISE``)
    echoes = set(parsed.echoes)
    own = [line for line in lines if line not in echoes and not (noisy and shell_rules.profile_noise(line, command))]
    silent = {id(stage) for stage in parsed.silent}
    heard = [stage for stage in parsed.searches if id(stage) not in silent]  # ``grep -q``'s silence says nothing
    paging = bool(heard) and empty_reads.pages_past_the_end(parsed, heard, command)
    if lines and not own and heard and not set(lines) & set(parsed.successes) and not paging:
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.only_own_echoes")
    itself = _itself(parsed) if own else None
    if itself is not None and all(itself.search(line) for line in own):
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.only_itself")
    if shell_output.only_not_found(own):
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.not_found_output")
    if heard and empty_reads.lists_whole(parsed, heard) and empty_reads.only_dot_entries(own):
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.empty_listing")  # ``ls -la`` of an empty dir
    if own and all(globbed.get(line) == zsh_globs.PATH for line in own):
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.glob_matched_nothing")
    if own and all(line.rstrip("/") in _find_roots(parsed) for line in own):
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.only_the_root")
    if not parsed.tests and all(search_pattern.looks_for_nothing(stage) for stage in parsed.searches):
        # An empty pattern matches every line: it looked for nothing, so an empty answer is no miss
        # (Windows PowerShell drops the "" and the file name becomes the pattern: a fault).
        return Verdict(Outcome.FAILED if result.is_error else Outcome.OK, key, rule="shell.empty_pattern")
    if result.is_error:
        if code in rule.not_run_codes:
            return Verdict(Outcome.FAILED, key, rule="shell.not_run")
        if code is not None and code > rule.killed_above:
            return Verdict(Outcome.FAILED, key, rule="shell.killed")
        if code in rule.no_lines_codes and _stdout_empty(result) and shell.ends_in(parsed, rule.line_selectors):
            # grep and rg exit 1 when no line matched (errors are 2), and nothing came out on
            # stdout: what the shell printed on stderr (a login profile's complaint) is not a hit
            return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.no_lines_selected")
        # A search that exits non-zero with no output found nothing; anything else in the output
        # is another part failing (a build, a test, git): not a missing thing.
        if not own:
            return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.error_no_output")
        if probe_failed(command, parsed, code, own):
            return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.probe_list_failed")
        return Verdict(Outcome.FAILED, key, rule="shell.other_failure")
    detail = result.detail
    if isinstance(detail, dict) and detail.get("returnCodeInterpretation") == rule.no_match:
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.no_matches")
    if heard and result.text.strip() in rule.empty_outputs:
        if paging:  # ``sed -n '200,400p' f`` printing nothing: f is shorter
            return Verdict(Outcome.OK, key, rule="shell.past_last_page")
        return Verdict(Outcome.MISSED, key, NAME_OR_PATH, rule="shell.empty_output")
    return Verdict(Outcome.OK, key, rule="shell.found")


NAME_OR_PATH = patterns.NAME_GIVEN
_FILE_TOOLS: Final = frozenset({"Grep", "Glob", "Read", "list_directory"})
"""The search tools that read files and directories, never URLs (``patterns.URL_AS_PATH``)."""


def _unrunnable(pattern: str) -> bool:
    """A pattern ripgrep cannot run (look-around, back-references): a fault, whatever the answer."""
    return bool(patterns.LOOK_AROUND.search(pattern))


def _stage_unrunnable(stage: shell.Stage) -> bool:
    """An ``rg`` stage without a PCRE2 engine whose pattern it cannot run."""
    if stage.program != "rg" or ripgrep_types.uses_pcre2(stage.args):
        return False
    return any(_unrunnable(a) for a in stage.args if not a.startswith("-"))


def _itself(parsed: shell.ParsedCommand) -> re.Pattern[str] | None:
    """``ps aux | grep X``: what a process line of that grep itself (or of the shell running the
    pipeline) holds — the program, then after its flags X, because X is on its command line. Such a
    line is not a process the search found. None for any other command."""
    elements = parsed.elements
    if len(elements) != 1 or len(elements[0]) < 2 or elements[0][0].program != "ps":
        return None
    stage = elements[0][1]
    pattern = search_pattern.stage_pattern(stage, None) if stage.program in shell_rules.GREP_FAMILY else None
    return re.compile(rf"\b{stage.program}\b[^|;\n]*{re.escape(pattern)}") if pattern else None


def _find_roots(parsed: shell.ParsedCommand) -> set[str]:
    """The start directories of a command's ``find`` searches that name what they look for below them
    (``-name``, ``-path``…): a root printed alone matched its own test (``find D -name 'claude*'`` of
    ``D = …/claude-cli``), and nothing below it did."""
    return {
        root.rstrip("/") or "/"
        for stage in parsed.searches
        if stage.program == "find" and shell.targets_of(stage)
        for root in stage.args[:1]
        if not root.startswith("-")
    }


def _later_page(value: object) -> bool:
    """A Grep ``offset`` past the first result (a number, or its digits as text)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _unknown_type(value: object) -> bool:
    """A file type ripgrep does not know (``tsx``, ``ts,tsx``): it refuses to search."""
    return isinstance(value, str) and bool(value) and value not in ripgrep_types.KNOWN


def _stage_unknown_type(stage: shell.Stage) -> bool:
    """An ``rg`` stage naming a file type ripgrep does not know (``-t tsx``, ``--type=tsx``)."""
    if stage.program != "rg":
        return False
    args = stage.args
    added = {v.split(":", 1)[0] for a, v in itertools.pairwise(args) if a == "--type-add"} | {
        a.split("=", 1)[1].split(":", 1)[0] for a in args if a.startswith("--type-add=")
    }  # ``--type-add 'web:*.html'``: a name the command gave ripgrep

    def unknown(value: str) -> bool:
        return value not in added and _unknown_type(value)

    for i, arg in enumerate(args):
        if arg in patterns.TYPE_FLAGS:
            if i + 1 < len(args) and unknown(args[i + 1]):
                return True
        elif arg.startswith(("--type=", "--type-not=")):
            if unknown(arg.split("=", 1)[1]):
                return True
        elif arg[:2] in ("-t", "-T") and len(arg) > 2 and not arg.startswith("--") and unknown(arg[2:]):
            return True
    return False


def _stdout_empty(result: ToolResult) -> bool:
    """The result says apart what the command wrote on stdout (``detail["stdout"]``), and it is empty."""
    detail = result.detail
    return isinstance(detail, dict) and detail.get("stdout") == ""
