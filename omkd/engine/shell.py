"""Shell commands as omkd reads them: lists, pipeline stages, programs and their operands.

Enough of POSIX shell (and PowerShell's look-alikes) to see which programs a command runs
and on what, without running or fully parsing it: quotes are respected, everything else
is taken word by word.
"""

from __future__ import annotations

import posixpath
import re

from omkd.engine import patterns

_COMMAND_LIST = re.compile(r"&&|\|\||;|\n")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELL_WORD = re.compile(r"""(?:'[^']*'|"(?:\\.|[^"\\])*"|[^\s'"])+""")


def words(stage: str) -> list[str]:
    """Shell words with their quotes removed: enough to see a program and its operands."""
    return [word.replace("'", "").replace('"', "") for word in _SHELL_WORD.findall(stage)]


def program_and_args(stage: str) -> tuple[str, list[str]]:
    found = words(stage)
    while found and (found[0] in patterns.SHELL_WRAPPERS or _ENV_ASSIGNMENT.match(found[0])):
        found = found[1:]
    if not found:
        return "", []
    return posixpath.basename(found[0].lstrip("(")), found[1:]


def operands(args: list[str]) -> list[str]:
    """Arguments that are not options or redirections."""
    return [a for a in args if a and not a.startswith("-") and not any(c in a for c in "<>&")]


def list_elements(command: str) -> list[str]:
    """The elements of a ``&&`` / ``||`` / ``;`` / newline list, in order."""
    return [p for p in _COMMAND_LIST.split(command) if p.strip()]


def last_command(command: str) -> str:
    """The last element of a ``&&``/``||``/``;`` list: what decides the call's result."""
    parts = list_elements(command)
    return parts[-1] if parts else ""


def probe_kind(command: str) -> str | None:
    """``"search"`` or ``"test"`` when the command looks for something, else ``None``."""
    rule = patterns.SHELL_RULE
    program, args = program_and_args(last_command(command).split("|")[0])
    if program in rule.programs:
        return "search"
    if program in rule.path_programs and operands(args):
        return "search"
    if program in rule.test_programs and any(a in rule.test_flags for a in args):
        return "test"
    return None


def reads(command: str) -> list[str]:
    """Paths a shell command reads with cat/head/tail/sed/less (coverage)."""
    paths: list[str] = []
    for element in list_elements(command):
        program, args = program_and_args(element.split("|")[0])
        if program not in patterns.SHELL_READERS:
            continue
        files = [a for a in operands(args) if not a.isdigit()]
        if program == "sed" and files and "-e" not in args:
            files = files[1:]  # the first operand is the script
        if program in ("head", "tail") and "-n" in args:
            at = args.index("-n") + 1
            count = args[at] if at < len(args) else ""
            files = [a for a in files if a != count]
        paths.extend(files)
    return paths


def skill_file_operands(command: str) -> list[str]:
    """Operands of the last command when it is a reader that opens a SKILL.md."""
    program, args = program_and_args(last_command(command).split("|")[0])
    return operands(args) if program in patterns.SKILL_FILE_READERS else []
