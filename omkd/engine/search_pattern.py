"""What a failed search looked for (spec §6): its pattern, never the whole command.

The same missing thing searched in different ways groups together: a Grep's or Glob's pattern; a
read path with the home directory written ``~`` and the project's cwd removed; a URL without its
query; a query; for a shell command, the target of its search stage — a ``grep``/``rg`` pattern
(options dropped), a ``find -name`` operand, ``which X``'s X, the path of ``ls``/``cat``/``test -e`` —
with cwd and home normalised. ``cd … &&`` prefixes, ``echo`` headers, redirections and ``|| echo``
fallbacks are never part of it; when the output tells which stages missed (``missed_stages``), only
their targets are. The full command stays in the evidence.
"""

from __future__ import annotations

import itertools
import re
from typing import Final

from omkd.engine import (
    find_forms,
    loop_items,
    missed_stages,
    module_probes,
    powershell,
    probe_rules,
    shell,
    shell_forms,
    shell_output,
    shell_rules,
    silent_probes,
)
from omkd.engine.events import ToolCall, ToolResult

HOME: Final = re.compile(r"^(?:/home/[^/]+|/Users/[^/]+|/root|[A-Z]:/(?i:users)/[^/]+|/[a-z]/Users/[^/]+)(?=/|$)")
"""A home directory: Linux's, macOS's, root's, Windows' (``C:/Users/me``, Git Bash's ``/c/Users/me``)."""
_WINDOWS: Final = re.compile(r"^[A-Za-z]:[\\/]")
"""A Windows path (a drive): its separators are either slash, and its letters' case says nothing."""
_GIT_BASH_DRIVE: Final = re.compile(r"^/([a-zA-Z])/")
"""Git Bash's ``/c/…`` is ``C:/…``."""
_REPEATED_SLASHES: Final = re.compile(r"//+")
_MAY_CHANGE: Final = frozenset("/$%.")
"""What a path that ``normalised`` may rewrite starts with (absolute, a variable, ``./``)."""
_HOME_WORDS: Final = ("$home", "${home}", "$env:userprofile", "$env:home", "%userprofile%")
"""The home as a variable, lower-cased (``$HOME``; PowerShell's ``$env:USERPROFILE`` and ``$HOME``, any case;
cmd's ``%USERPROFILE%``)."""
_VALUE_FLAGS: Final = frozenset(
    {"-A", "-B", "-C", "-m", "-g", "--glob", "-t", "--type", "-T", "--type-not", "--include", "--exclude",
     "--exclude-dir", "-f", "--max-count", "--context", "--after-context", "--before-context", "--max-depth",
     "-d", "--color", "--colour", "-M", "--max-columns", "-j", "--threads", "--sort", "--iglob", "--type-add"}
)  # fmt: skip
_NAME_FLAGS: Final[frozenset[str]] = find_forms.NAME_FLAGS | {"-regex", "-iregex"}
_TARGET_PROGRAMS: Final = frozenset({"which", "type", "where", "where.exe", "locate"})
_SELECT_STRING: Final = frozenset({"Select-String", "sls"})

_FD_VALUES: Final = frozenset(
    {"-e", "--extension", "-t", "--type", "-d", "--max-depth", "--min-depth", "-E", "--exclude", "-S", "--size",
     "-x", "--exec", "-X", "--exec-batch", "-c", "--color", "-j", "--threads", "--changed-within", "--owner"}
)  # fmt: skip
_ANY_NAME: Final = frozenset({".", "^", ".*", ""})


def _findstr_pattern(args: list[str]) -> str | None:
    """findstr's ``/C:text`` (a literal), or its first argument that is not an option."""
    for arg in args:
        if arg[:3].lower() == "/c:":
            return arg[3:]
    return next((arg for arg in args if not arg.startswith("/")), None)


def normalised(path: str, cwd: str | None) -> str:
    """``~`` for the home directory, the cwd removed, a leading ``./`` dropped. A Windows path (or any
    path under a Windows cwd) is written with ``/`` (``C:\\Users\\me\\x`` and ``C:/Users/me/x`` are one
    file), its drive and cwd compared in any case."""
    if (
        path
        and path[:1] not in _MAY_CHANGE
        and path[1:2] != ":"
        and "\\" not in path
        and "//" not in path
        and (not cwd or cwd[:1] in "/\\" or cwd[1:2] == ":")
    ):
        return path  # relative, no variable, no drive, no backslash, under an absolute cwd: as written
    if path[:1] in ("$", "%"):
        lowered = path.lower()
        for word in _HOME_WORDS:
            if lowered.startswith(word) and (len(path) == len(word) or path[len(word)] in "/\\"):
                path = "~" + path[len(word) :]
                break
    windows = cwd is not None and _WINDOWS.match(cwd) is not None
    if windows or _WINDOWS.match(path):
        path = path.replace("\\", "/")
        if windows and (drive := _GIT_BASH_DRIVE.match(path)):
            path = f"{drive.group(1)}:/{path[drive.end() :]}"
        if _WINDOWS.match(path):
            path = path[0].upper() + path[1:]  # ``c:`` and ``C:`` are one drive
        path = path[:2] + _REPEATED_SLASHES.sub("/", path[2:])  # ``C:\\\\Users`` (bash's ``"\\\\"``); UNC ``//`` kept
    own = None
    if cwd:
        base = cwd.replace("\\", "/").rstrip("/") if windows else cwd.rstrip("/\\")
        folded, key = (path.lower().rstrip("/"), base.lower()) if windows else (path, base)
        if folded == key:
            return "."
        for sep in ("/",) if windows else ("/", "\\"):
            if folded.startswith(key + sep):
                return path[len(base) + 1 :] or "."
        own = HOME.match(base)
    home = HOME.match(path)
    if home and (own is None or home.group().lower() == own.group().lower()):  # another user's home stays
        path = "~" + path[home.end() :]
    return path.removeprefix("./")


def looks_for_nothing(stage: shell.Stage) -> bool:
    """A content search (``grep``, ``rg``…) whose pattern is the empty string."""
    return stage.program in shell_rules.GREP_FAMILY and stage_pattern(stage, None) == ""


def stage_pattern(stage: shell.Stage, cwd: str | None) -> str | None:
    """What one search or probe stage looked for (None: nothing to say)."""
    program, args = stage.program, stage.args
    kept = powershell.name_filter(program, args)  # ``Get-ChildItem -Recurse | Where-Object { $_.Name -like X }``
    if kept is not None:
        return kept
    if program == "git" and args[:1] == ["grep"]:
        program, args = "grep", args[1:]
    if program == "rg" and "--files" in args:  # no pattern: a listing of names (``-g`` globs), as find's
        globs = shell_forms.rg_listed_names(args)
        if globs:
            return " ".join(globs)
        listed = shell_forms.operands(shell_forms.without_values(args, _VALUE_FLAGS))
        return normalised(listed[0], cwd) if listed else None
    if program in shell_rules.GREP_FAMILY:
        for i, arg in enumerate(args[:-1]):
            if arg in ("-e", "--regexp"):
                return args[i + 1]
        skip = False
        for at, arg in enumerate(args):
            if skip:
                skip = False
                continue
            if arg == "--":  # the end of the options: the pattern follows, whatever it starts with
                return args[at + 1] if at + 1 < len(args) else None
            if arg in _VALUE_FLAGS:
                skip = True
                continue
            if arg.startswith("-") and len(arg) > 1:
                continue
            return arg
        return None
    if program in _SELECT_STRING:
        select = powershell.cmdlet(program)  # ``-Pattern``'s value, or the first positional argument
        return next(iter(powershell.bind(select, args).of(powershell.PATTERN)), None) if select else None
    if program == "findstr":
        return _findstr_pattern(args)
    if program in ("find", "fd"):
        names = find_forms.names(args, _NAME_FLAGS)
        if names:
            return " ".join(names)
        if program == "find":
            return None
        # fd PATTERN [PATH…]: the pattern, or the path searched in when the pattern matches everything
        operands = shell_forms.operands(shell_forms.without_values(args, _FD_VALUES))
        if not operands:
            return None
        return operands[0] if operands[0] not in _ANY_NAME or len(operands) == 1 else normalised(operands[1], cwd)
    listing = powershell.cmdlet(program)
    if listing is not None and listing.name == "Get-ChildItem":  # ``-Filter``/``-Include``: find's ``-name``
        names = powershell.bind(listing, args).of(powershell.FILTER)
        if names:
            return " ".join(names)
    if program in _TARGET_PROGRAMS or (program == "command" and args[:1] == ["-v"]):
        if program in ("where", "where.exe"):  # ``where /r DIR NAME``: DIR is where it looked
            args = shell_forms.without_values(args, frozenset({"/r", "/R"}))
        operands = [a for a in shell_forms.operands(args) if a != "-v" and not shell_forms.cmd_switch(program, a)]
        operands = powershell.listed(program, operands)  # ``Get-Command node,npm``: node first
        if not operands:
            return None
        return normalised(operands[0], cwd) if "/" in operands[0] or "\\" in operands[0] else operands[0]
    operands = shell.paths_of(stage) if program == stage.program else shell_forms.path_operands(program, args)
    return normalised(operands[0], cwd) if operands else None


_PATH_PATTERNS: Final[frozenset[str]] = (
    shell_rules.SHELL_RULE.path_programs | shell_rules.SHELL_RULE.test_programs | shell.COMMAND_SEARCHES
)
"""Stages whose pattern is an operand (a path, a program's name): when their not-found messages name
some of their operands, those are what missed (not a grep's file, whose pattern is what it looked for)."""


def shell_pattern(command: str, cwd: str | None, output: str | None = None, code: int | None = None) -> str:
    """The targets of a shell command's searches and probes (several joined by `` | ``): of those that
    missed when ``output`` (the command's own, as the judge read it) tells which (``missed_stages``), or
    when its exit ``code`` does (a list of probes that failed in silence: ``silent_probes``)."""
    parsed = shell.parse(command)
    telling = missed_stages.told_operands(command, output, lambda path: normalised(path, cwd)) if output else None
    missed, named = telling if telling is not None else (None, {})
    lines = shell_output.output_lines(output) if output else []
    if (
        missed is None
        and code is not None
        and output is not None
        and silent_probes.probe_failed(command, parsed, code, lines)
    ):
        missed = silent_probes.failing_probes(command, parsed) or None
        named = silent_probes.unlisted(missed or [], lines)  # ``ls a b 2>/dev/null`` printing a: b
    if missed is None and parsed.feeding:  # ``cat package.json | grep jest``: the grep found nothing
        feeding = {id(stage) for stage in parsed.feeding}
        kept = [stage for stage in parsed.searches + parsed.tests if id(stage) not in feeding]
        missed = kept + [stage for stage, _ in parsed.probes] + parsed.http
    chosen = None if missed is None else {id(stage) for stage in missed}
    printed = set(lines) if parsed.vouched else set()
    vouched = {id(stage) for text, stages in parsed.vouched.items() if text in printed for stage in stages}
    vouched -= named.keys()  # a not-found message naming it outweighs an echo (a fallback's guard does not)
    if all(id(stage) in vouched for stage in parsed.searches + parsed.tests):
        vouched = set()  # each echo printed, yet a miss (``ls -la d && echo listed`` of an empty d): say them
    loops = loop_items.told(command, output)
    found: dict[str, None] = {}  # in order, once each
    for stage in parsed.searches + parsed.tests:
        if id(stage) in vouched:  # ``test -f a.md && echo found-a`` printed found-a: a.md was there
            continue
        if shell_forms.filters_out(stage.program, stage.args):  # ``| grep -v '^tests/'``: an exclusion, no target,
            found.update((normalised(path, cwd), None) for path in named.get(id(stage), ()))  # but a file it lacked
            continue
        paths = named.get(id(stage)) if stage.program in _PATH_PATTERNS else _missing_roots(stage, named)
        if not paths and not lines and shell.probes_a_command(stage) and (chosen is None or id(stage) in chosen):
            names = shell.targets_of(stage)  # ``which fd fdfind`` printing nothing: neither was found
            paths = names if len(names) > 1 and not any("$" in name for name in names) else None  # not ``$t``
        if paths:  # ``cat a.md b.md``: the paths its messages named, not its first
            found.update((normalised(path, cwd), None) for path in paths)
            continue
        target = stage_pattern(stage, cwd) if chosen is None or id(stage) in chosen else None
        variable = loop_items.variable_of(target) if target else None
        told = loops.get(variable or "", [])
        for item in told:  # a loop's ``$f``: the items the output says missed
            found[normalised(item, cwd)] = None
        if target and not told and variable is None:  # a variable is not told
            found[target] = None
    found.update(_probed(parsed, chosen, named, output or "", cwd))
    for stage in parsed.http:
        url = next((a for a in stage.args if "://" in a), None)
        if url and (chosen is None or id(stage) in chosen):
            for each in loop_items.urls_missed(parsed, stage, url, lines) or [url]:
                found[each.split("?", 1)[0]] = None
    if found:
        return " | ".join(found)
    # the target cannot be told: the first search program and its first operand, never the command line
    lookups = parsed.searches + parsed.tests + [stage for stage, _ in parsed.probes] + parsed.http
    first = next((stage for stage in missed or lookups if id(stage) not in vouched), None)
    if first is not None:
        words = shell.paths_of(first) or shell_forms.operands(first.args)
        return " ".join([first.program, *words[:1]])
    return command.strip()[:80]


def _missing_roots(stage: shell.Stage, named: dict[int, list[str]]) -> list[str] | None:
    """The roots of a ``find`` of no name (no ``-name``, ``-path``, ``-regex``…) that its messages say are not
    there (``find src/models -type f``: ``src/models``); None for another stage, or when none is named (a
    path an ``-exec`` program could not read is no root)."""
    if stage.program != "find" or any(arg in _NAME_FLAGS for arg in stage.args):
        return None
    roots = set(itertools.takewhile(lambda arg: not arg.startswith(("-", "(", "!")), stage.args))
    return [path for path in named.get(id(stage), ()) if path in roots] or None


def _probed(
    parsed: shell.ParsedCommand, chosen: set[int] | None, named: dict[int, list[str]], output: str, cwd: str | None
) -> dict[str, None]:
    """What the probes that missed looked for, in order (a path probe's paths as read paths are written)."""
    found: dict[str, None] = {}
    for stage, probe in parsed.probes:
        probed_here = (
            probe_rules.probed(stage.program, stage.args, probe) if chosen is None or id(stage) in chosen else []
        )
        if probe.needs in module_probes.MODULE_NEEDS:  # ``import numpy, torch``: the one its error names
            probed_here = module_probes.not_found(probed_here, output)
        probed_here = named.get(id(stage), probed_here)  # ``Test-Path a, b`` answering False, True: a
        for probed in probed_here:
            found[normalised(probed, cwd) if probe.paths else probed] = None
    return found


def pattern_of(call: ToolCall, search_key: str, tool: str, cwd: str | None, result: ToolResult | None = None) -> str:
    """The failed search's pattern (``tool``: the tool it is judged as; ``result``: its answer, which
    tells a shell command's stages that missed)."""
    if tool in shell_rules.SHELL_TOOLS:
        command = call.input.get("command")
        if not isinstance(command, str):
            return search_key
        if result is None:
            return shell_pattern(command, cwd)
        output, code = shell_output.output_of(result.text, result.is_error, result.detail)
        return shell_pattern(command, cwd, output, code if result.is_error else None)
    if tool in ("Read", "list_directory"):
        return normalised(search_key, cwd)
    if tool == "Glob":
        return search_key
    if tool == "WebFetch":
        return search_key.split("?", 1)[0]
    return search_key
