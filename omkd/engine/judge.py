"""Judge one answered tool call by the rule tables of ``patterns.py``: found, missed, failed
or cancelled, and what it looked for."""

from __future__ import annotations

from omkd.engine import patterns, shell
from omkd.engine.events import ToolCall, ToolResult
from omkd.engine.signals import Outcome, Verdict, collapse


def is_cancelled(result: ToolResult) -> bool:
    head = result.text[: patterns.CANCELLED_SEARCH_CHARS]
    detail = result.detail if isinstance(result.detail, str) else ""
    return any(needle in head or needle in detail for needle in patterns.CANCELLED_TEXTS)


def is_mcp_search(tool: str) -> bool:
    if not tool.startswith("mcp__"):
        return False
    name = tool.rsplit("__", 1)[-1].lower()
    return any(word in name for word in patterns.MCP_SEARCH_WORDS)


def first_input(call: ToolCall, keys: tuple[str, ...]) -> str:
    for key in keys:
        value = call.input.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _empty_count(rule: patterns.SearchRule, detail: object) -> bool:
    if not isinstance(detail, dict):
        return False
    mode = detail.get("mode")
    return any(mode == rule_mode and detail.get(key) == 0 for rule_mode, key in rule.empty_counts)


def _empty_result(result: ToolResult) -> bool:
    detail = result.detail
    results = detail.get("results") if isinstance(detail, dict) else None
    if isinstance(results, list):
        return not any(
            (isinstance(r, str) and r.strip()) or (isinstance(r, dict) and r.get("content")) for r in results
        )
    return not result.text.strip()


def rule_for(tool: str, extra_search_tools: frozenset[str]) -> patterns.SearchRule | None:
    rule = patterns.SEARCH_RULES.get(tool)
    if rule is None and (tool in extra_search_tools or is_mcp_search(tool)):
        return patterns.MCP_SEARCH_RULE
    return rule


def judge(call: ToolCall, result: ToolResult, extra_search_tools: frozenset[str] = frozenset()) -> Verdict:
    """Classify one answered tool call."""
    if result.is_error and is_cancelled(result):
        return Verdict(Outcome.CANCELLED)
    tool = call.tool
    rule = rule_for(tool, extra_search_tools)
    if rule is not None:
        key = first_input(call, rule.input_keys) if rule.input_keys else collapse(str(call.input), 200)
        if result.is_error:
            if not rule.miss_errors or any(n in result.text for n in rule.miss_errors):
                return Verdict(Outcome.MISSED, key, rule.user_given)
            return Verdict(Outcome.FAILED, key)
        if rule.empty_prefixes and result.text.startswith(rule.empty_prefixes):
            return Verdict(Outcome.MISSED, key, rule.user_given)
        if _empty_count(rule, result.detail):
            return Verdict(Outcome.MISSED, key, rule.user_given)
        if rule.empty_result_is_miss and _empty_result(result):
            return Verdict(Outcome.MISSED, key, rule.user_given)
        return Verdict(Outcome.OK, key)
    if tool in patterns.SHELL_TOOLS:
        return _judge_shell(call, result)
    return Verdict(Outcome.FAILED if result.is_error else Outcome.OK)


def _judge_shell(call: ToolCall, result: ToolResult) -> Verdict:
    command = call.input.get("command")
    if not isinstance(command, str):
        return Verdict(Outcome.FAILED if result.is_error else Outcome.OK)
    kind = shell.probe_kind(command)
    if kind is None:
        return Verdict(Outcome.FAILED if result.is_error else Outcome.OK)
    key = collapse(command, 200)
    if result.is_error:
        return Verdict(Outcome.MISSED, key)
    if kind == "test":
        return Verdict(Outcome.OK, key)
    rule = patterns.SHELL_RULE
    detail = result.detail
    if isinstance(detail, dict) and detail.get("returnCodeInterpretation") == rule.no_match:
        return Verdict(Outcome.MISSED, key)
    if result.text.strip() in rule.empty_outputs:
        return Verdict(Outcome.MISSED, key)
    return Verdict(Outcome.OK, key)


def read_paths(call: ToolCall) -> list[str]:
    """Paths a successful call of this tool has read (coverage)."""
    if call.tool == "Read":
        path = first_input(call, patterns.PATH_KEYS)
        return [path] if path else []
    if call.tool in patterns.SHELL_TOOLS:
        command = call.input.get("command")
        if isinstance(command, str) and any(reader in command for reader in patterns.SHELL_READERS):
            return shell.reads(command)
    return []


def skill_file_read(call: ToolCall) -> str | None:
    """The skill name when the call reads ``…/.claude/skills/<name>/SKILL.md`` (the fallback signal)."""
    if call.tool == "Read":
        candidates = [first_input(call, patterns.PATH_KEYS)]
    elif call.tool in patterns.SHELL_TOOLS and isinstance(call.input.get("command"), str):
        command: str = call.input["command"]
        if "SKILL.md" not in command:
            return None
        candidates = shell.skill_file_operands(command)
    else:
        return None
    for path in candidates:
        found = patterns.SKILL_FILE.search(path)
        if found:
            return found.group(1)
    return None
