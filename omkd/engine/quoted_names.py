"""A phrase the person put in quotation marks is a name they typed (spec §3.1's ``user_given``).

"A search … whose target is a name the person typed and asked for is ``user_given``": quotation marks say
what the person names, in any language and whatever it reads like (a Chinese group chat ``“AI之初”`` is no
file name and no identifier, and a Chinese sentence has no spaces to mark it). ``call_phrases`` says what
each lookup of a search call looked for, whole; ``quoted_phrases`` what one typed prompt quotes. A call is
the person's when every lookup of it looked for one phrase alone and each is quoted (``calls.py``).
"""

from __future__ import annotations

import re
from typing import Final

from omkd.engine import judge, powershell, search_pattern, shell, shell_forms, shell_rules
from omkd.engine.events import ToolCall

_NOT_A_PHRASE: Final = "*?[]{}()|^$\\+\n"
"""Wildcards and regex syntax: a pattern holding one is no phrase the person typed."""
_NAME_LOOKUPS: Final[frozenset[str]] = shell_rules.LISTINGS - {"tree"}
"""Programs whose stage looks for a name (``find -name X``, ``ls X``, ``Get-ChildItem -Filter X``)."""
_FIND_RUNS: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete"})
"""A ``find`` that runs something on what it finds looked for more than the name (``-exec grep -l Y``)."""


def call_phrases(call: ToolCall) -> list[str | None]:
    """What each lookup of a search call looked for, whole: a Grep's or a shell grep's one pattern, a Glob's
    file name, ``find -name X``, ``ls X``'s name; None for a lookup that looked for no single phrase
    (wildcards or regex syntax; several patterns or names; a reader, a test, a probe, an HTTP client)."""
    tool = judge.unwrapped(call.tool)
    if tool == "Glob":
        return [_phrase(judge.first_input(call, ("pattern",)).replace("\\", "/").rsplit("/", 1)[-1])]
    if tool == "Grep":
        return [_phrase(judge.first_input(call, ("pattern",)))]
    command = call.input.get("command")
    if tool not in shell_rules.SHELL_TOOLS or not isinstance(command, str):
        return []
    parsed = shell.parse(command)
    found: list[str | None] = [None] if parsed.tests or parsed.probes or parsed.http else []
    for stage in parsed.searches:
        program, args = stage.program, stage.args
        if program == "git" and args[:1] == ["grep"]:
            program, args = "grep", args[1:]
        if program == "rg" and "--files" in args:  # a listing of names: its one ``-g`` glob, as find's name
            globs = shell_forms.rg_listed_names(args)
            found.append(_phrase(globs[0]) if len(globs) == 1 else None)
        elif program in shell_rules.CONTENT_SEARCHES:
            pattern = search_pattern.stage_pattern(stage, None) or ""
            found.append(_phrase(pattern) if _one_pattern(program, args, pattern) else None)
        elif (program in _NAME_LOOKUPS and _FIND_RUNS.isdisjoint(args)) or powershell.name_filter(program, args):
            names = shell.targets_of(stage)  # ``find -name A -o -name B``: alternatives, no one phrase
            found.append(_phrase(names[0]) if len(names) == 1 else None)
        else:
            found.append(None)
    return found


def _one_pattern(program: str, args: list[str], pattern: str) -> bool:
    """The content search reads one pattern, where ``search_pattern.stage_pattern`` finds it: not several
    ``-e``, a ``-f`` file of patterns, an ``-e`` or ``-f`` bunched with other flags or holding its value
    (``-rne X``, ``-eX``: not read here), findstr's several ``/C:`` or its space-separated words."""
    if program == "findstr":
        literals = sum(arg[:3].lower() == "/c:" for arg in args)
        if literals > 1 or any(arg[:3].lower() == "/g:" for arg in args):
            return False
        return literals == 1 or " " not in pattern
    if (select := powershell.cmdlet(program)) is not None and select.name == "Select-String":
        return "," not in pattern  # ``-Pattern a,b``: each is looked for; PowerShell's parameters are no flags
    patterns = 0
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--"):  # GNU long options, abbreviated too (``--regex=X``, ``--fil``)
            name = arg[2:].partition("=")[0]
            if len(name) >= 3 and "regexp".startswith(name):
                if "=" in arg:
                    return False  # its value is the pattern, which is not read here
                patterns += 1
            elif len(name) >= 3 and "file".startswith(name):
                return False
        elif arg.startswith("-") and len(arg) > 1:
            if arg == "-e":
                patterns += 1
            elif "e" in arg or "f" in arg:
                return False
    return patterns <= 1


def _phrase(text: str) -> str | None:
    phrase = text.strip().strip("'\"").strip()
    return phrase if len(phrase) >= 2 and not any(c in phrase for c in _NOT_A_PHRASE) else None


_PAIRS: Final = (("“", "”"), ("‘", "’"), ("「", "」"), ("『", "』"), ("《", "》"), ("«", "»"), ("„", "“"), ("‚", "‘"))
"""Marks that open and close: typographic, CJK corner brackets and title marks, guillemets, German."""
_PAIR_MARKS: Final = tuple(re.compile(f"[{opening}{closing}]") for opening, closing in _PAIRS)
_STRAIGHT: Final = ('"', "`")
"""Marks that both open and close: the first pairs with the second, the third with the fourth."""
_APOSTROPHES: Final = frozenset("'’")
"""Marks also written inside a word (``don't``, ``Bob’s``): they close only where no letter follows, and
``'`` opens only where none is before."""
_LATIN: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def quoted_phrases(text: str) -> set[str]:
    """What ``text`` holds between a pair of quotation marks on one line, spaces at its ends dropped (French
    writes ``« retry budget »``), case folded. One pass over each line a kind of mark."""
    found: set[str] = set()
    for line in text.split("\n"):
        for (opening, closing), marks in zip(_PAIRS, _PAIR_MARKS, strict=True):
            if opening in line and closing in line:
                _paired(line, opening, marks, found)
        for mark in _STRAIGHT:
            start = line.find(mark)
            end = line.find(mark, start + 1) if start >= 0 else -1
            while end >= 0:
                _keep(line[start + 1 : end], found)
                start = line.find(mark, end + 1)
                end = line.find(mark, start + 1) if start >= 0 else -1
        if line.count("'") >= 2:
            _single(line, found)
    return found


def _paired(line: str, opening: str, marks: re.Pattern[str], found: set[str]) -> None:
    """Each closing mark with the nearest opening mark before it, none of either between them."""
    start = -1
    for mark in marks.finditer(line):
        at = mark.start()
        if mark.group() == opening:
            start = at
        elif start >= 0 and not (mark.group() in _APOSTROPHES and line[at + 1 : at + 2] in _LATIN):
            _keep(line[start + 1 : at], found)
            start = -1


def _single(line: str, found: set[str]) -> None:
    """ASCII single quotes: one opens where no letter is before it and closes where none follows."""
    start = -1
    at = line.find("'")
    while at >= 0:
        before, after = line[at - 1 : at] if at else "", line[at + 1 : at + 2]
        if start >= 0 and after not in _LATIN:
            _keep(line[start + 1 : at], found)
            start = -1
        elif before not in _LATIN:
            start = at
        at = line.find("'", at + 1)


def _keep(inner: str, found: set[str]) -> None:
    phrase = inner.strip()
    if phrase:
        found.add(phrase.casefold())
