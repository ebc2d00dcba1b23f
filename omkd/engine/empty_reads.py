"""What an empty answer of a reader or a listing says (spec §3.1's empty output): a page past a file's
end says nothing is missing (``sed -n '200,400p' f``, as a Grep past its last page); a listing of a
directory holding nothing (``ls -la`` printing ``total 0``, ``.`` and ``..``) is as empty as a plain ``ls``
printing nothing, when it lists entries and nothing cut it short."""

from __future__ import annotations

import re
from typing import Final

from omkd.engine import shell, shell_forms, shell_rules

_SED_PRINT: Final = re.compile(r"^\s*(\d+)\s*(?:,\s*(?:\d+|\$)\s*)?p\s*$")
"""A ``sed -n`` script that prints a line or a range (``200,400p``, ``57p``, ``120,$p``)."""


def pages_on(program: str, args: list[str]) -> bool:
    """``sed -n 'N,Mp'`` from a line after the first, ``tail -n +N``, PowerShell's ``Select-Object -Skip N``:
    reading a page further into a file. Printing nothing, it says the file ends before line N (the reader
    says so when a file is not there): past the last page, as a Grep past its last page, not a missing
    thing."""
    if program in ("tail", "Select-Object", "select"):
        return _from_line(args) > 1
    if program != "sed" or not any(shell_rules.SED_QUIET.match(a) for a in args):
        return False
    at = args.index("-e") + 1 if "-e" in args else -1
    script = args[at] if 0 < at < len(args) else next(iter(shell_forms.operands(args)), "")
    found = _SED_PRINT.match(script)
    return found is not None and int(found.group(1)) > 1


_TAIL_FROM: Final = re.compile(r"^(?:-n|--lines=?)?\+(\d+)$")


def _from_line(args: list[str]) -> int:
    """The first line ``tail -n +N`` prints (N), or the one after ``Select-Object -Skip N`` skips (N + 1);
    0 when the words say neither."""
    for at, arg in enumerate(args):
        value = args[at + 1] if at + 1 < len(args) else ""
        if arg.lower() == "-skip" and value.isdigit():
            return int(value) + 1
        found = _TAIL_FROM.match(value if arg in ("-n", "--lines") else arg)
        if found is not None:
            return int(found.group(1))
    return 0


def lists_itself(arg: str) -> bool:
    """An ``ls`` option that lists a directory itself, not its entries (``-d``, ``-ld``, ``--directory``)."""
    return arg == "--directory" or (arg[:1] == "-" and arg[1:2] != "-" and "d" in arg[1:])


def pages_past_the_end(parsed: shell.ParsedCommand, heard: list[shell.Stage], command: str) -> bool:
    """Every lookup reads a file (``sed``, ``cat``, ``nl``…) and a ``sed -n 'N,Mp'`` reads from a line after
    the first (``pages_on``, ``nl -ba f | sed -n '200,400p'`` too): an empty answer is the file
    ending before line N, a page past the last, not a missing thing. Only while the readers' errors are
    seen: ``nl -ba f 2>/dev/null | sed -n …`` would print nothing for a missing f too."""
    if "2>" in command or shell_rules.HIDDEN_STDERR.search(command):
        return False
    return all(stage.program in shell_rules.FILE_READERS for stage in heard) and any(
        pages_on(stage.program, stage.args) for element in parsed.elements for stage in element
    )


def lists_whole(parsed: shell.ParsedCommand, heard: list[shell.Stage]) -> bool:
    """Every lookup is an ``ls`` of a directory's entries (no ``-d``), whose listing nothing cuts short (the
    last stage of its pipeline: ``ls -la src | head -3`` can print only ``.`` and ``..`` of a full one)."""
    ends = {id(element[-1]) for element in parsed.elements if element}
    return all(
        stage.program == "ls" and id(stage) in ends and not any(lists_itself(a) for a in stage.args) for stage in heard
    )


_DOT_ENTRY: Final = re.compile(r"^(?:total \d+(?:[.,]\d+)?[KMGTPE]?|[-dl][-rwxsStT]{9}[@+.]?\s.*\s\.\.?|\.\.?)$")
"""What ``ls -a``/``ls -la`` prints of a directory holding nothing: its ``total`` line and the entries
``.`` and ``..`` (long format, any owner and date)."""


def only_dot_entries(lines: list[str]) -> bool:
    """The lines list a directory with nothing in it: the listing is empty, as a plain ``ls`` printing
    nothing is (spec §3.1's empty output)."""
    return bool(lines) and all(_DOT_ENTRY.match(line) for line in lines)
