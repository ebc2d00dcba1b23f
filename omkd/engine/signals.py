"""Gap-signal detectors (spec §3) as pure functions over one call, result or text.

The patterns themselves live in ``patterns.py``; this module applies them. State that
spans several events (de-duplication, runs of failures, one hedge per segment) is kept
by the segment in ``segment.py``.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from omkd.engine import patterns
from omkd.engine.events import ToolCall, ToolResult

CONTEXT_CHARS: Final = 160
_WHITESPACE = re.compile(r"\s+")
_COMMAND_LIST = re.compile(r"&&|\|\||;|\n")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELL_WORD = re.compile(r"""(?:'[^']*'|"(?:\\.|[^"\\])*"|[^\s'"])+""")
_WRAPPERS: Final = frozenset({"sudo", "command", "time", "nice", "env", "xargs", "("})


@dataclass(slots=True, frozen=True)
class Signal:
    """One knowledge-gap signal, before it is tied to a skill and session by the fold."""

    type: str
    turn: int
    timestamp: float | None
    context: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def weight(self) -> float:
        return patterns.SIGNAL_WEIGHTS[self.type]


class Outcome(Enum):
    """What a tool call came to."""

    OK = "ok"
    CANCELLED = "cancelled"  # rejected, denied, sibling errored, interrupted: never a gap
    FAILED = "failed"  # an error that is not a search finding nothing
    MISSED = "missed"  # a search or probe that found nothing: failed_search


@dataclass(slots=True, frozen=True)
class Verdict:
    outcome: Outcome
    search_key: str = ""
    """The call's pattern, path, query or command: what was looked for."""


def collapse(text: str, limit: int = CONTEXT_CHARS) -> str:
    """Whitespace collapsed, cut to ``limit`` characters."""
    flat = _WHITESPACE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def context_around(text: str, start: int, end: int) -> str:
    """A short window of ``text`` around ``[start, end)``."""
    lead = max(0, start - 60)
    return collapse(text[lead : end + 100])


def _is_cancelled(result: ToolResult) -> bool:
    head = result.text[:400]
    detail = result.detail if isinstance(result.detail, str) else ""
    return any(needle in head or needle in detail for needle in patterns.CANCELLED_TEXTS)


def _words(stage: str) -> list[str]:
    """Shell words with their quotes removed: enough to see a program and its operands."""
    return [word.replace("'", "").replace('"', "") for word in _SHELL_WORD.findall(stage)]


def _program_and_args(stage: str) -> tuple[str, list[str]]:
    words = _words(stage)
    while words and (words[0] in _WRAPPERS or _ENV_ASSIGNMENT.match(words[0])):
        words = words[1:]
    if not words:
        return "", []
    return posixpath.basename(words[0].lstrip("(")), words[1:]


def _operands(args: list[str]) -> list[str]:
    """Arguments that are not options or redirections."""
    return [a for a in args if a and not a.startswith("-") and not any(c in a for c in "<>&")]


def last_command(command: str) -> str:
    """The last element of a ``&&``/``||``/``;`` list: what decides the call's result."""
    parts = [p for p in _COMMAND_LIST.split(command) if p.strip()]
    return parts[-1] if parts else ""


def shell_probe(command: str) -> str | None:
    """``"search"`` or ``"test"`` when the command looks for something, else ``None``."""
    program, args = _program_and_args(last_command(command).split("|")[0])
    if program in patterns.SHELL_PROBES:
        return "search"
    if program in patterns.SHELL_PATH_PROBES and _operands(args):
        return "search"
    if program in ("test", "[", "[[") and any(a in patterns.SHELL_TEST_FLAGS for a in args):
        return "test"
    return None


def shell_reads(command: str) -> list[str]:
    """Paths a shell command reads with cat/head/tail/sed/less (coverage, spec §5)."""
    paths: list[str] = []
    for element in _COMMAND_LIST.split(command):
        program, args = _program_and_args(element.split("|")[0])
        if program not in patterns.SHELL_READERS:
            continue
        operands = [a for a in _operands(args) if not a.isdigit()]
        if program == "sed" and operands and "-e" not in args:
            operands = operands[1:]  # the first operand is the script
        if program in ("head", "tail") and "-n" in args:
            count = args[args.index("-n") + 1] if args.index("-n") + 1 < len(args) else ""
            operands = [a for a in operands if a != count]
        paths.extend(operands)
    return paths


def is_mcp_search(tool: str) -> bool:
    if not tool.startswith("mcp__"):
        return False
    name = tool.rsplit("__", 1)[-1].lower()
    return any(word in name for word in patterns.MCP_SEARCH_WORDS)


def _first_input(call: ToolCall, keys: tuple[str, ...]) -> str:
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


def judge(call: ToolCall, result: ToolResult, extra_search_tools: frozenset[str] = frozenset()) -> Verdict:
    """Classify one answered tool call (spec §3.1)."""
    if result.is_error and _is_cancelled(result):
        return Verdict(Outcome.CANCELLED)
    tool = call.tool
    rule = patterns.SEARCH_RULES.get(tool)
    if rule is not None:
        key = _first_input(call, rule.input_keys)
        if result.is_error:
            if not rule.error_needles or any(n in result.text for n in rule.error_needles):
                return Verdict(Outcome.MISSED, key)
            return Verdict(Outcome.FAILED, key)
        if result.text.startswith(rule.empty_prefixes):
            return Verdict(Outcome.MISSED, key)
        if _empty_count(rule, result.detail):
            return Verdict(Outcome.MISSED, key)
        if rule.empty_text_is_miss and _web_search_empty(result):
            return Verdict(Outcome.MISSED, key)
        return Verdict(Outcome.OK, key)
    if tool in patterns.SHELL_TOOLS:
        return _judge_shell(call, result)
    if tool in extra_search_tools or is_mcp_search(tool):
        key = collapse(str(call.input), 200)
        if result.is_error or not result.text.strip():
            return Verdict(Outcome.MISSED, key)
        return Verdict(Outcome.OK, key)
    return Verdict(Outcome.FAILED if result.is_error else Outcome.OK)


def _web_search_empty(result: ToolResult) -> bool:
    detail = result.detail
    results = detail.get("results") if isinstance(detail, dict) else None
    if isinstance(results, list):
        return not any(
            (isinstance(r, str) and r.strip()) or (isinstance(r, dict) and r.get("content")) for r in results
        )
    return not result.text.strip()


def _judge_shell(call: ToolCall, result: ToolResult) -> Verdict:
    command = call.input.get("command")
    if not isinstance(command, str):
        return Verdict(Outcome.FAILED if result.is_error else Outcome.OK)
    kind = shell_probe(command)
    if kind is None:
        return Verdict(Outcome.FAILED if result.is_error else Outcome.OK)
    key = collapse(command, 200)
    if result.is_error:
        return Verdict(Outcome.MISSED, key)
    if kind == "test":
        return Verdict(Outcome.OK, key)
    detail = result.detail
    if isinstance(detail, dict) and detail.get("returnCodeInterpretation") == patterns.SHELL_NO_MATCH:
        return Verdict(Outcome.MISSED, key)
    if result.text.strip() in patterns.SHELL_EMPTY_OUTPUTS:
        return Verdict(Outcome.MISSED, key)
    return Verdict(Outcome.OK, key)


def read_paths(call: ToolCall) -> list[str]:
    """Paths a successful call of this tool has read (coverage, spec §5)."""
    if call.tool == "Read":
        path = _first_input(call, ("file_path", "path"))
        return [path] if path else []
    if call.tool in patterns.SHELL_TOOLS:
        command = call.input.get("command")
        if isinstance(command, str) and any(reader in command for reader in patterns.SHELL_READERS):
            return shell_reads(command)
    return []


def skill_file_read(call: ToolCall) -> str | None:
    """The skill name when the call reads ``…/.claude/skills/<name>/SKILL.md`` (spec §2 fallback)."""
    if call.tool == "Read":
        candidates = [_first_input(call, ("file_path", "path"))]
    elif call.tool in patterns.SHELL_TOOLS and isinstance(call.input.get("command"), str):
        command: str = call.input["command"]
        if "SKILL.md" not in command:
            return None
        program, args = _program_and_args(last_command(command).split("|")[0])
        candidates = _operands(args) if program in patterns.SKILL_FILE_READERS else []
    else:
        return None
    for path in candidates:
        found = patterns.SKILL_FILE.search(path)
        if found:
            return found.group(1)
    return None


def _quoted_spans(text: str) -> list[tuple[int, int]]:
    """Where a marker is quoted, not used: fenced blocks, ``>`` quotes, table rows, inline code."""
    spans: list[tuple[int, int]] = []
    lines = text.split("\n")
    has_table = "|" in text and any(patterns.TABLE_SEPARATOR.match(line) for line in lines)
    fence: str | None = None
    start = 0
    for line in lines:
        end = start + len(line) + 1
        stripped = line.lstrip()
        if fence is not None:
            spans.append((start, end))
            if stripped.startswith(fence):
                fence = None
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            spans.append((start, end))
        elif stripped.startswith((">", "|")) or (has_table and "|" in line):
            spans.append((start, end))
        else:
            spans.extend((start + m.start(), start + m.end()) for m in patterns.INLINE_CODE.finditer(line))
        start = end
    return spans


def find_markers(text: str) -> list[re.Match[str]]:
    """Explicit markers used (not quoted) in an assistant text (spec §3.2)."""
    if "【" not in text and "[" not in text:
        return []
    matches = list(patterns.MARKER_PATTERN.finditer(text))
    if not matches:
        return []
    spans = _quoted_spans(text)
    return [m for m in matches if not any(a <= m.start() < b for a, b in spans)]
