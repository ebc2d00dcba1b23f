"""A list of path probes that failed: which part the exit status speaks for (spec §3.1).

``ls ~/.claude/ 2>/dev/null && ls ~/.claude/commands/ 2>/dev/null`` printed the first listing and exited
2. A shell list's exit status is its last part's (``;``, a new line) or its first failing part's
(``&&``), so when every part that can fail is a probe of a path (``ls``, ``cat``, ``test -e``…) and the
rest only prints (``echo``, ``cd``, an assignment), the failure is a probe's: one probe of the list did
not find its path, whatever the others printed, as a fallback line of a list of probes is one probe that
missed. Its message says so, or its standard error was sent away (``2>/dev/null``), or it is a
``test``, which fails in silence. The only other message a probe's failure has is a fault (``Permission
denied``, ``Is a directory``), which keeps the call a fault.

Anything else in the list leaves the call as it was, because which part failed is not known: an action
whose result the probe checks, a build, ``git``, ``grep`` (exit 1 means no line, 2 an error that may
come with matches), ``find`` (exit 1 after a permission denied, with its hits printed), a carried
command, a ``||``.
"""

from __future__ import annotations

import re
from typing import Final

from omkd.engine import shell, shell_forms, shell_lists, shell_output, shell_rules

PATH_PROBES: Final = frozenset(
    {"ls", "cat", "head", "tail", "stat", "file", "wc", "nl", "sed", "dir", "test", "[", "[[", "type", "more"}
    | {"get-content", "gc", "get-childitem", "gci", "get-item", "gi", "resolve-path", "rvpa"}  # PowerShell's
)
"""Programs that fail when the one path they were given is not there (``test`` with ``-e``/``-f``/``-d``);
PowerShell's cmdlets in lower case (they are read in any case): the script's exit status is its last
statement's, 1 when that wrote an error record."""
PROBE_FAILURE_CODES: Final = frozenset({1, 2})
"""The exit codes of those programs when a path operand is not there (``ls`` 2, ``cat`` and ``test`` 1)."""
PRINTING: Final = frozenset(
    {"", "echo", "printf", "cd", "pwd", "true", ":", "sleep", "export", "date"}
    | {"write-output", "write-host", "set-location"}
)
"""Parts that only print or set up (``""``: an assignment): they do not fail."""
STDIN_READERS: Final = frozenset({"head", "tail", "sort", "uniq", "wc", "cut", "tr", "column"})
"""A pipeline ending in one of these, reading its input, exits 0 whatever the probe before it did."""
PROBE_FAULT: Final = re.compile(
    r"Permission denied|Is a directory|Not a directory|Operation not permitted|Input/output error"
    r"|Too many levels of symbolic links"
)
"""What a probe prints when its path is there but cannot be read: a fault, not a miss."""

JOINS: Final = frozenset({"", "&&", ";", "\n", "|"})
_CODES: Final = {"sed": frozenset({2})}
"""Where a probe fails with fewer codes: GNU sed exits 2 for an input it cannot open, 1 for a bad script."""


def failing_programs(command: str, parsed: shell.ParsedCommand) -> str:
    """The one program of the probes the exit status can be (``failing_probes``), "" for none or several."""
    programs = {stage.program for stage in failing_probes(command, parsed)}
    return programs.pop() if len(programs) == 1 else ""


def probe_failed(command: str, parsed: shell.ParsedCommand, code: int | None, lines: list[str]) -> bool:
    """True when the command's failure (``code``) can only be one of its path probes' not finding its
    path: a list of two or more parts, or one probe of several paths (``ls A B``), every part a probe of a
    path or a printing part, the code one a probe fails with, and no fault in ``lines`` (the output's own
    lines)."""
    if code not in PROBE_FAILURE_CODES or not parsed.searches + parsed.tests:
        return False
    inner = _local_shell(command)
    if inner is not None:  # ``cmd /c "type a b"``, ``bash -c '…'``: its status is the command it runs
        return probe_failed(inner, shell.parse(inner), code, lines)
    if code not in _CODES.get(failing_programs(command, parsed), PROBE_FAILURE_CODES):
        return False  # ``…; sed -E -n 's/(foo/…/p' f`` exits 1 for its script: sed's missing file is 2
    first = parsed.elements[0][0]
    if len(parsed.elements) < 2 and len(shell.paths_of(first)) < 2:
        return False  # one probe of one path that printed something and failed: not a list (``ls A B`` is one)
    parts = shell_lists.parts(command)
    if any(op not in JOINS for op, _ in parts):
        return False
    if any(shell_forms.carried_command(shell.stage_of(text).program, text) is not None for _, text in parts):
        return False
    probing = {id(stage) for stage in parsed.searches + parsed.tests}
    probes = [element for element in parsed.elements if _probe(element, probing)]
    if not probes or not all(_cannot_fail(e, probing) or _probe(e, probing) for e in parsed.elements):
        return False
    if any(PROBE_FAULT.search(line) for line in lines):
        return False
    said = any(shell_output.is_not_found_line(line) for line in lines)
    return said or bool(parsed.tests) or bool(shell_rules.HIDDEN_STDERR.search(command))  # ``test`` fails silently


LOCAL_SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash", "cmd", "cmd.exe", "powershell", "powershell.exe", "pwsh"})
"""Carriers that run their command on this machine and exit with its status (``ssh``'s 255 is its own)."""


def _local_shell(command: str) -> str | None:
    """The command a command that is one local shell's run carries (``cmd /c "…"``), else None."""
    parts = shell_lists.parts(command)
    if len(parts) != 1:
        return None
    program = shell.stage_of(parts[0][1]).program
    return shell_forms.carried_command(program, parts[0][1]) if program in LOCAL_SHELLS else None


def _cannot_fail(element: list[shell.Stage], probing: set[int]) -> bool:
    """Only printing parts, or probes piped into a reader of its input (whose status is the pipeline's):
    a pipeline that runs anything else is an action, and a probe after it checks what it made."""
    if all(_named(stage.program, PRINTING) for stage in element):
        return True
    last = element[-1]
    return (
        len(element) > 1
        and last.program in STDIN_READERS
        and not shell.paths_of(last)
        and all(id(stage) in probing or _named(stage.program, PRINTING) for stage in element[:-1])
    )


def _named(program: str, programs: frozenset[str]) -> bool:
    """``program`` is one of ``programs``; a PowerShell cmdlet in any case (``Get-Content``, ``get-content``)."""
    return program in programs or ("-" in program and program.lower() in programs)


def _probe(element: list[shell.Stage], probing: set[int]) -> bool:
    """A single probe of a path (the command's parse took it as a search or a test); a PowerShell listing
    that recurses or filters (``Get-ChildItem X -Recurse -Filter f``) searches, as ``find`` does."""
    stage = element[0]
    if len(element) != 1 or not _named(stage.program, PATH_PROBES) or id(stage) not in probing:
        return False
    return stage.program.lower() not in ("get-childitem", "gci") or not any(a.lower() in _SEARCHING for a in stage.args)


_SEARCHING: Final = frozenset({"-recurse", "-r", "-filter", "-include", "-depth", "-exclude"})


def failing_probes(command: str, parsed: shell.ParsedCommand) -> list[shell.Stage]:
    """The probes whose failure the list's exit status can be: those of its last ``;`` or new-line
    part (``A; B && C``: ``B`` or ``C``), as a list ``probe_failed`` accepted has them."""
    probing = {id(stage) for stage in parsed.searches + parsed.tests}
    index, last_group = -1, 0
    for op, _ in shell_lists.parts(command):
        if op != "|":
            index += 1
            if op in ("", ";", "\n"):
                last_group = index
    return [stage for element in parsed.elements[last_group:] for stage in element if id(stage) in probing]


def unlisted(stages: list[shell.Stage], lines: list[str]) -> dict[int, list[str]]:
    """Of each ``ls`` of several paths among ``stages``, by its ``id``, the paths its output does not
    name when it names some: ``ls a b 2>/dev/null`` printing ``a`` (a file) or ``a:`` (a directory's
    heading) and failing did not find ``b``."""
    printed = {line.rstrip(":").rstrip("/") for line in lines}
    printed |= {line.rsplit(None, 1)[-1].rstrip("/") for line in lines if line.strip()}  # ``ls -l``'s last word
    found: dict[int, list[str]] = {}
    for stage in stages:
        paths = shell.paths_of(stage) if stage.program == "ls" else []
        missing = [path for path in paths if path.rstrip("/") not in printed]
        if len(paths) > 1 and 0 < len(missing) < len(paths):
            found[id(stage)] = missing
    return found
