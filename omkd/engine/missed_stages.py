"""Which stages of a shell command missed, as its output tells (spec §6: the pattern names those).

A not-found line names the path a stage looked at (``cat: P: No such file or directory``, ``ls: cannot
access 'P'``, ``find: 'P': …``, ``P: No such file or directory``, PowerShell's ``Cannot find path 'P'
because it does not exist``, ``which: no X in (…)``); a ``|| echo TEXT`` (or ``printf``) fallback
printed as a whole line says the lookups on its left missed; a probe's own "not there" answer and an
HTTP client's 404 name their stages. An output that tells none of these (empty, "No matches found",
a message not known here) tells nothing: every lookup keeps its place in the pattern.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable

from omkd.engine import (
    fallback_lists,
    http_lookups,
    powershell,
    shell,
    shell_forms,
    shell_lists,
    shell_output,
    shell_rules,
)

_QUOTES = "'\"`‘’"
_RESETS = frozenset({"", ")"})
"""Operators that always start a fallback's left side anew (``;`` and a new line: ``fallback_lists.ends_list``)."""
"""Operators that start a new and-or list: a fallback guards only what follows the last of them."""


def told_operands(
    command: str, output: str, normalise: Callable[[str], str]
) -> tuple[list[shell.Stage], dict[int, list[str]]] | None:
    """The lookup stages the output says missed (searches, tests, probes, HTTP clients), in the command's
    order, with the operands each stage's not-found messages named, as the command wrote them, by the
    stage's ``id`` (``cat a.md b.md`` printing ``cat: b.md: No such file…``: ``b.md``); None when it tells
    none of them. ``normalise``: a path as patterns write it (home and cwd), so that a message's full path
    meets the operand as the command wrote it.
    A stage missed by a fallback, a probe's answer or a 404 has no entry: its messages name nothing."""
    parsed = shell.parse(command)
    lookups = parsed.searches + parsed.tests + [stage for stage, _ in parsed.probes]
    lines = shell_output.output_lines(output)
    missed: list[shell.Stage] = []
    operands: dict[int, list[str]] = {}
    messages = _messages(output, lines)
    named = _Operands(lookups, normalise) if messages else None
    for names, full in messages:
        pairs = [pair for name in names for pair in named.stages(name, full)] if named else []
        if not pairs:  # a "not there" naming no lookup (``where``'s, a ``cd``'s): which missed is not told
            return None
        for stage, operand in pairs:
            missed.append(stage)
            written = operands.setdefault(id(stage), [])
            if operand not in written:
                written.append(operand)
    printed = set(lines)
    fallbacks = [(text, guarded) for text, guarded in _fallbacks(command, 0) if text in printed]
    looking: dict[tuple[str, tuple[str, ...]], list[shell.Stage]] = {}  # a fallback's stages, read again
    for stage in lookups if fallbacks else ():
        looking.setdefault((stage.program, tuple(stage.args)), []).append(stage)
    for _, guarded in fallbacks:
        missed.extend(same for stage in guarded for same in looking.get((stage.program, tuple(stage.args)), ()))
    missed.extend(
        stage for stage, rule in parsed.probes if rule.not_found is not None and rule.not_found.search(output)
    )
    operands.update(_answered_false(parsed, lines))
    if parsed.http and http_lookups.http_missed(output, parsed.http):  # the clients a written code names, or all
        missed.extend(http_lookups.written_missing(output, parsed.http) or parsed.http)
    if not missed:
        return None
    chosen = {id(stage) for stage in missed}
    return [stage for stage in lookups + parsed.http if id(stage) in chosen], operands


def _answered_false(parsed: shell.ParsedCommand, lines: list[str]) -> dict[int, list[str]]:
    """The one path probe of several paths that prints an answer per path (``Test-Path a, b``: ``False``,
    ``True``, in order), by its ``id``: the paths it answered ``False``. Nothing when the answers and the
    paths do not pair one to one."""
    probes = [stage for stage, rule in parsed.probes if rule.paths]
    answers = [line.strip() for line in lines if line.strip() in ("True", "False")]
    paths = powershell.paths(probes[0].program, probes[0].args) if len(probes) == 1 else None
    if not paths or len(paths) < 2 or len(paths) != len(answers) or "False" not in answers:
        return {}
    return {id(probes[0]): [path for path, answer in zip(paths, answers, strict=True) if answer == "False"]}


def _messages(output: str, lines: list[str]) -> list[tuple[list[str], bool]]:
    """What each not-found message names (a line's candidates: its ``: ``-separated parts, the words
    around the path removed), and whether it names the path in full (PowerShell resolves it)."""
    found: list[tuple[list[str], bool]] = []
    processing = any(line.startswith(_CMD_PROCESSING) for line in lines) if "processing: " in output else False
    for line in lines:
        if "Cannot find path" in line or (processing and line == _CMD_NOT_FOUND):
            continue  # PowerShell's, read from the whole output below (it wraps); cmd's, named on the next line
        which = shell_rules.WHICH_MISSING.match(line)
        if which is None and line.startswith(_CMD_PROCESSING):  # cmd's ``type a b``: the file it could not read
            found.append(([line.removeprefix(_CMD_PROCESSING).strip().removesuffix(".")], False))
            continue
        missing = None if which else shell_output.missing_path(line)
        glob = None if which or missing else shell_output.glob_of(line)
        if which:
            found.append(([which.group(1) or which.group(2)], False))
        elif glob:
            found.append(([glob], False))
        elif missing:
            parts = missing.group(1).split(": ")
            named = [text for at in range(len(parts)) for text in (": ".join(parts[at:]), parts[at])]
            found.append((list(dict.fromkeys(named)), False))  # ``P`` alone is both: looked up once
        elif shell_output.is_not_found_line(line):
            found.append(([], False))
    if "Cannot find path" in output:
        matches = shell_rules.POWERSHELL_MISSING_PATH.finditer(output)
        found.extend(([match.group(1).replace("\r", "").replace("\n", "")], True) for match in matches)
    return [([_bare(text) for text in names], full) for names, full in found]


_CMD_PROCESSING = "Error occurred while processing: "
_CMD_NOT_FOUND = "The system cannot find the file specified."


def _bare(text: str) -> str:
    return shell_rules.MISSING_PATH_WORDS.sub("", text).strip(_QUOTES)


class _Operands:
    """The lookups' operands, read once (an output may name thousands of paths, a command hold thousands
    of stages): which stages a message's path names."""

    def __init__(self, lookups: list[shell.Stage], normalise: Callable[[str], str]) -> None:
        self.normalise = normalise
        self.known: dict[str, str] = {}
        """Each path's key, made once (a flood of messages names the same words again and again)."""
        self.keys: dict[str, list[tuple[shell.Stage, str]]] = {}
        self.globs: list[tuple[str, shell.Stage, str]] = []
        for stage in lookups:
            for operand in powershell.listed(stage.program, shell_forms.operands(stage.args)):
                key = self.key(operand)
                self.keys.setdefault(key, []).append((stage, operand))
                if any(mark in key for mark in "*?["):
                    self.globs.append((key, stage, operand))

    def key(self, path: str) -> str:
        """``path`` as the operands are kept: normalised (home, cwd), without a leading ``.\\`` or a
        closing separator."""
        key = self.known.get(path)
        if key is None:
            normal = self.normalise(path)
            key = self.known[path] = normal.removeprefix(".\\").rstrip("/\\") or normal
        return key

    def stages(self, path: str, full: bool) -> list[tuple[shell.Stage, str]]:
        """The stages that looked at ``path``, each with its operand that did: an operand equal to it (cwd
        and home normalised), or, when the message names the path in full, the relative operand it ends
        with; else a glob matching it."""
        if not path:
            return []
        named = self.key(path)
        found = list(self.keys.get(named, ()))
        if full:  # ``C:\\shop\\docs\\x.md`` for the operand ``docs\\x.md``: each tail after a separator
            for at, char in enumerate(named):
                if char in "/\\":
                    found += self.keys.get(named[at + 1 :], ())
        if not found:
            found = [(stage, operand) for key, stage, operand in self.globs if fnmatch.fnmatchcase(named, key)]
        return found


def _fallbacks(command: str, depth: int) -> list[tuple[str, list[shell.Stage]]]:
    """Each ``… || echo TEXT`` fallback's TEXT and the stages it guards: those of its ``||``'s left
    side, since the list began or since the fallback before it (which guards what came earlier)."""
    found: list[tuple[str, list[shell.Stage]]] = []
    if command.count("|") < 2:
        return found  # no ``||``, in it or in a command it carries (``|''|`` too): no fallback to read
    left: list[shell.Stage] = []
    for operator, text in shell_lists.parts(command):
        if operator in _RESETS or fallback_lists.ends_list(operator, text):
            left = []  # a group's closing word (``done``, ``}``) carries on the last list inside it
        stage = shell.stage_of(text)
        inner = shell_forms.carried_command(stage.program, text) if depth < shell.MAX_CARRIED else None
        if inner is not None:  # ``ssh HOST "CMD"``, ``bash -lc '…'``: its stages are on the left side too
            found.extend(_fallbacks(inner, depth + 1))
            left.extend(inner_stage for element in shell.parse(inner).elements for inner_stage in element)
            continue
        echoed = fallback_lists.echoed_text(stage.program, stage.args, text) if operator == "||" else None
        if echoed is not None:
            found.append((echoed, left))
            left = []
            continue
        left.append(stage)
    return found
