"""The files a call reads: a ``Read``'s path and a shell command's readers' operands, for coverage (spec §5)
and the user-given rule, and the SKILL.md a call opens (the fallback signal of a skill's segment)."""

from __future__ import annotations

from omkd.engine import patterns, shell_rules
from omkd.engine.events import ToolCall
from omkd.engine.judge import first_input, unwrapped
from omkd.engine.shell import parse
from omkd.engine.shell_forms import operands


def reads(command: str, accessed: bool = False) -> list[str]:
    """Paths a shell command reads with cat/head/tail/sed/less; ``accessed``: as coverage counts them."""
    paths: list[str] = []
    for element in parse(command).elements:
        stage = element[0]
        if not shell_rules.reads_a_file(stage.program, stage.args, accessed):
            continue
        files = [a for a in operands(stage.args) if not a.isdigit()]
        if stage.program == "sed" and files and "-e" not in stage.args:
            files = files[1:]  # the first operand is the script
        if stage.program in ("head", "tail") and "-n" in stage.args:
            at = stage.args.index("-n") + 1
            count = stage.args[at] if at < len(stage.args) else ""
            files = [a for a in files if a != count]
        paths.extend(files)
    return paths


def skill_file_operands(command: str) -> list[str]:
    """Operands of the last command when it is a reader that opens a SKILL.md."""
    elements = parse(command).elements
    if not elements:
        return []
    stage = elements[-1][0]
    return operands(stage.args) if stage.program in shell_rules.SKILL_FILE_READERS else []


def read_paths(call: ToolCall) -> list[str]:
    """Paths a successful call of this tool has read (coverage)."""
    tool = unwrapped(call.tool)
    if tool == "Read":
        path = first_input(call, patterns.PATH_KEYS)
        return [path] if path else []
    if tool in shell_rules.SHELL_TOOLS:
        command = call.input.get("command")
        if isinstance(command, str) and any(reader in command for reader in shell_rules.SHELL_READERS):
            return reads(command, accessed=True)
    return []


def skill_file_read(call: ToolCall) -> str | None:
    """The skill name when the call reads ``…/.claude/skills/<name>/SKILL.md`` (the fallback signal)."""
    tool = unwrapped(call.tool)
    if tool == "Read":
        candidates = [first_input(call, patterns.PATH_KEYS)]
    elif tool in shell_rules.SHELL_TOOLS and isinstance(call.input.get("command"), str):
        command: str = call.input["command"]
        if "SKILL.md" not in command:
            return None
        candidates = skill_file_operands(command)
    else:
        return None
    for path in candidates:
        found = patterns.SKILL_FILE.search(path)
        if found:
            return found.group(1)
    return None
