"""Shell commands as omkd reads them: lists, pipeline stages, programs and their operands.

Enough of POSIX shell (and PowerShell's look-alikes) to see which programs a command runs
and on what, without running or fully parsing it: quotes are respected, here-document bodies
and redirections are set aside, everything else is taken word by word.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field
from typing import Final

from omkd.engine import (
    fallback_lists,
    find_forms,
    http_lookups,
    powershell,
    probe_rules,
    run_checks,
    shell_forms,
    shell_lists,
    shell_rules,
    shell_words,
)
from omkd.engine.shell_forms import made_paths, operands
from omkd.engine.shell_words import words

_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_REDIRECTION = re.compile(r"^(?:\d*|&)(?:>>?|<<?|>&|<&)(.*)$")
_TARGET_PROGRAMS: Final = frozenset({"which", "type", "locate", "fd", "Get-Command", "gcm"})
COMMAND_SEARCHES: Final[frozenset[str]] = _TARGET_PROGRAMS - {"locate", "fd"}
"""Programs that look for a program by name (``command -v`` too): ``which``, ``type``, ``Get-Command``."""


@dataclass(slots=True)
class Stage:
    """One simple command: its program and arguments, redirections removed; ``by_xargs``: run on the
    lines piped to it (``… | xargs grep X``: it reads those files, not the list of their names)."""

    program: str
    args: list[str]
    by_xargs: bool = False
    paths: list[str] | None = field(default=None, compare=False, repr=False)
    """``shell_forms.path_operands`` of the stage, read once (``paths_of``): the judge, the pattern, the
    user-given rule and §8 all ask, and a command may hold thousands of stages."""
    targets: list[str] | None = field(default=None, compare=False, repr=False)
    """``targets_of`` the stage, read once for the same reason."""


@dataclass(slots=True)
class ParsedCommand:
    elements: list[list[Stage]] = field(default_factory=list)
    """The ``&&``/``||``/``;`` list, each element a pipeline of stages."""
    searches: list[Stage] = field(default_factory=list)
    """Stages that search or probe for a path (a content search counts)."""
    tests: list[Stage] = field(default_factory=list)
    """``test -e`` / ``[ -f … ]`` probes: their exit status is the answer."""
    fallbacks: list[str] = field(default_factory=list)
    """TEXT of each ``… || echo TEXT`` (or ``printf``) that follows a search or probe."""
    echoes: list[str] = field(default_factory=list)
    """The literal texts the command echoes itself (headers, separators, fallbacks)."""
    successes: list[str] = field(default_factory=list)
    """Echoes run only when the lookup before succeeded (``grep -q X f && echo found``, ``then echo yes``)."""
    vouched: dict[str, list[Stage]] = field(default_factory=dict)
    """Each such echo and the lookup stages it says found (kept when a later lookup clears ``successes``:
    printed, it still says its own lookup found, which is then no target of the pattern); none for a text
    echoed after two lookups."""
    silent: list[Stage] = field(default_factory=list)
    """Searches whose output is thrown away (``grep -q``, ``ls X > /dev/null``): their silence says nothing."""
    feeding: list[Stage] = field(default_factory=list)
    """Readers piped into a later search (``cat f | grep X``), which would have said if f were not there."""
    targets: list[str] = field(default_factory=list)
    """Names the searches looked for: ``find -name X``, ``ls X``, ``which X``…"""
    probes: list[tuple[Stage, probe_rules.ProbeRule]] = field(default_factory=list)
    """Package, module and tool probes (``pip show X``, ``python -c "import X"``, ``X --version``)."""
    http: list[Stage] = field(default_factory=list)
    """HTTP clients on a URL (``curl``, ``wget``…): a 404 or 410 is a miss."""
    made: set[str] = field(default_factory=set)
    """Paths an earlier part made (``mkdir -p X``): ``ls X`` after it is no search."""


def _without_redirections(found: list[str]) -> list[str]:
    kept: list[str] = []
    skip_next = False
    for word in found:
        if skip_next:
            skip_next = False
            continue
        redirect = _REDIRECTION.match(word) if "<" in word or ">" in word else None
        if redirect:
            skip_next = not redirect.group(1)
            continue
        kept.append(word)
    return kept


def stage_of(text: str) -> Stage:
    found = _without_redirections(words(shell_words.before_group_end(text)))
    at = 0
    while at < len(found) and found[at] == "(":
        at += 1
    by_xargs = False
    while at < len(found) and (
        found[at] in shell_rules.SHELL_WRAPPERS or ("=" in found[at] and _ENV_ASSIGNMENT.match(found[at]))
    ):
        if found[at] == "command" and at + 1 < len(found) and found[at + 1] == "-v":
            break
        by_xargs = by_xargs or found[at] == "xargs"
        flags = shell_rules.WRAPPER_VALUE_FLAGS.get(found[at])
        if flags is None:
            at += 1
        else:
            found, at = shell_forms.past_options(found[at + 1 :], flags), 0
    found = found[at:]
    if not found:
        return Stage("", [])
    program = shell_forms.program_name(found[0].lstrip("("))
    return Stage(powershell.canonical(program), found[1:], by_xargs)  # ``get-content`` is ``Get-Content``


def _is_search(stage: Stage) -> bool:
    rule = shell_rules.SHELL_RULE
    if stage.args in (["--version"], ["-V"]):
        return False  # ``rg --version`` asks whether rg is there: a tool probe (``probe_rules``)
    if stage.program in rule.programs:
        return not shell_forms.lists_the_cwd(stage.program, stage.args)
    if stage.args and (stage.program, stage.args[0]) in rule.subcommands:
        return True
    if stage.program not in rule.path_programs:
        return False
    editing = tuple(rule.editing_flags)
    if any(a.startswith(editing) for a in stage.args):
        return False
    return bool(paths_of(stage))  # a reader of a pipe looks for nothing


def _names_kept(stage: Stage) -> bool:
    """A filter of a listing by name (``Where-Object { $_.Name -like '*X*' }``): a name probe."""
    return powershell.name_filter(stage.program, stage.args) is not None


def _is_test(stage: Stage) -> bool:
    rule = shell_rules.SHELL_RULE
    return stage.program in rule.test_programs and any(a in rule.test_flags for a in stage.args)


def paths_of(stage: Stage) -> list[str]:
    """The paths the stage's program names (``shell_forms.path_operands``), kept on the stage. Shared:
    do not change the list."""
    if stage.paths is None:
        stage.paths = shell_forms.path_operands(stage.program, stage.args)
    return stage.paths


def targets_of(stage: Stage) -> list[str]:
    """The names a search stage looked for: ``find -name X``, ``ls X``'s last component, ``which X``,
    kept on the stage. Shared: do not change the list."""
    if stage.targets is None:
        stage.targets = _targets(stage)
    return stage.targets


def _targets(stage: Stage) -> list[str]:
    args = stage.args
    if stage.program == "find":
        return find_forms.names(args, find_forms.NAME_FLAGS)
    if stage.program in shell_rules.SHELL_RULE.path_programs:
        return [posixpath.basename(a.rstrip("/")) for a in paths_of(stage)]
    kept = powershell.name_filter(stage.program, args)
    if kept is not None:
        return [kept]
    if stage.program in _TARGET_PROGRAMS or (stage.program == "command" and args[:1] == ["-v"]):
        named = [a for a in powershell.operands(stage.program, args, operands(args)) if a != "-v"]
        return powershell.listed(stage.program, named)  # ``Get-Command node,npm``: node and npm
    return []


def probes_a_command(stage: Stage) -> bool:
    """``which X``, ``type X``, ``command -v X``, ``Get-Command X``: the stage looks for a program."""
    return stage.program in COMMAND_SEARCHES or (stage.program == "command" and stage.args[:1] == ["-v"])


@functools.lru_cache(maxsize=256)
def parse(command: str) -> ParsedCommand:
    """The command's structure (cached: a call is judged, read for coverage and for skills).

    The result is shared: do not change it.
    """
    parsed = ParsedCommand()
    _parse_into(parsed, command, 0)
    return parsed


MAX_CARRIED: Final = 3
"""Carried commands inside carried commands followed this deep (``ssh h "bash -lc '…'"``)."""


def _parse_into(parsed: ParsedCommand, command: str, depth: int) -> bool:
    """Parse ``command`` into ``parsed``; True when its last and-or list ends in a lookup (a fallback
    after the whole command, ``bash -lc '…' || echo X``, then hides that lookup's miss)."""
    element: list[tuple[Stage, str]] = []
    probing = False
    """The and-or list so far ends in a search or probe, nothing but printing after it (a fallback after
    it hides its miss: ``test -f X && echo yes || echo no``; ``X --version && npm test || echo`` does not)."""
    fed: Stage | None = None
    """What a carried command's last pipeline started with: a pipe after it reads that (``bash -lc 'tsc' | grep``)."""
    answering: list[Stage] = []
    """The last lookup's stages when its exit status says whether it found (``grep``, ``test``, ``ls X``; not
    ``find``): an echo on its success says they found (``vouched``)."""
    negated = False
    """That lookup was negated (``if ! grep -q X f; then echo none``: the branch runs when it did not find)."""
    for operator, text in shell_lists.parts(command):
        stage = stage_of(text)
        inner = shell_forms.carried_command(stage.program, text) if depth < MAX_CARRIED else None
        if inner is not None:  # ``ssh HOST "CMD"``, ``bash -lc '…'``: judged as the command it carries
            if element:
                probing = fallback_lists.after(probing, _close(parsed, element))
                element = []
            pipelines = len(parsed.elements)
            probing = _parse_into(parsed, inner, depth + 1)
            fed = parsed.elements[-1][0] if len(parsed.elements) > pipelines and parsed.elements[-1] else None
            continue
        if operator == "|" and fed is not None and run_checks.checks_a_run(fed.program, fed.args):
            continue  # it reads a build's, a test's or a checker's diagnostics
        branch = hides = False
        if operator == "|":
            element.append((stage, text))
        else:
            if element:
                done = _close(parsed, element)
                probing = fallback_lists.after(probing, done)
                if done == fallback_lists.LOOKS:
                    negated = _NEGATED.match(element[0][1]) is not None
                    answering = [stage for stage, _ in element] if _answers(element) else []
                    parsed.successes.clear()  # an echo that said an earlier lookup found says nothing of this one
                elif done == fallback_lists.ACTS:
                    answering, negated = [], False
            branch = (bool(answering) or negated) and fallback_lists.on_success(operator, text)  # ``X && echo``
            hides = probing and (operator == "||" or (branch and negated))  # ``if ! X; then echo none``
            if fallback_lists.ends_list(operator, text):  # ``A; B || echo X``: X says B failed, not A
                probing = False
            element, fed = [(stage, text)], None
        echoed = fallback_lists.echoed_text(stage.program, stage.args, text) if operator != "|" else None
        if echoed is not None:
            _keep_echo(parsed, echoed, hides, answering if branch else None)
    if element:
        done = _close(parsed, element)
        probing = fallback_lists.after(probing, done)
        if done == fallback_lists.LOOKS:
            parsed.successes.clear()
    return probing


def _keep_echo(parsed: ParsedCommand, echoed: str, hides: bool, success: list[Stage] | None) -> None:
    """An echo of the command: a fallback that hides a miss, or one run on a lookup's success (``success``,
    the stages it vouches for: none when negated, none for a text echoed after two lookups)."""
    parsed.echoes.append(echoed)
    if hides:
        parsed.fallbacks.append(echoed)
    elif success is not None:
        parsed.successes.append(echoed)
        if success:  # ``ls a && echo --- && ls b && echo ---``: which printed it cannot be told
            parsed.vouched[echoed] = [] if echoed in parsed.vouched else success


_NEGATED: Final = re.compile(r"\s*(?:(?:(?:if|elif|while)\s+)?(?:!|\[\[?\s+!|test\s+!)\s|until\s)")


def _answers(element: list[tuple[Stage, str]]) -> bool:
    """A pipeline whose exit status says if its lookup found: not negated, ending in a grep (not ``-v``), a
    test, a reader of a path or a ``which`` (``find`` and PowerShell's cmdlets succeed finding nothing)."""
    last = element[-1][0]
    if _NEGATED.match(element[0][1]):
        return False
    git_grep = last.program == "git" and last.args[:1] == ["grep"]
    program, args = ("grep", last.args[1:]) if git_grep else (last.program, last.args)
    if program in shell_rules.GREP_FAMILY:  # ``git grep -q X && echo found`` as ``grep -q``
        return not shell_forms.filters_out(program, args)
    return (
        _is_test(last)
        or probes_a_command(last)
        or (last.program in shell_rules.STATUS_READERS and bool(paths_of(last)))
    )


def _close(parsed: ParsedCommand, element: list[tuple[Stage, str]]) -> str:
    """Take one pipeline's stages (``fallback_lists``): LOOKS when it holds a search, probe or test, PRINTS
    when it only prints (``echo``, a loop's ``done``: ``shell_rules.QUIET_PROGRAMS``), ACTS otherwise. A
    pipeline whose last stage acts (``| xargs kill``, ``> file``, ``| Set-Content``) looked only to pick
    what to act on."""
    parsed.elements.append([stage for stage, _ in element])
    parsed.made.update(p for s, _ in element if s.program in shell_rules.MAKERS for p in made_paths(operands(s.args)))
    if shell_forms.not_looking([(s.program, s.args) for s, _ in element], element[-1][1]):
        return fallback_lists.ACTS
    found = False
    mine: list[tuple[Stage, str]] = []
    for at, (stage, text) in enumerate(element):
        if shell_forms.skipped(stage.program, stage.args, parsed.made):
            continue  # harness output, what the command just made, the pipeline's own grep dropped
        if _is_search(stage) or (at and element[at - 1][0].program in shell_rules.LISTINGS and _names_kept(stage)):
            parsed.searches.append(stage)
            mine.append((stage, text))
            if shell_forms.silenced(stage.program, stage.args, text):
                parsed.silent.append(stage)
            parsed.targets.extend(targets_of(stage))
            found = True
        elif _is_test(stage):
            parsed.tests.append(stage)
            found = True
        elif http_lookups.is_http_client(stage.program) and not http_lookups.sends(stage.program, stage.args):
            parsed.http.append(stage)
        elif (probe := probe_rules.probe_of(stage.program, stage.args, text)) is not None:
            parsed.probes.append((stage, probe))
            parsed.targets.extend(probe_rules.probed(stage.program, stage.args, probe))
            found = True
    if element[-1][0].program.lower() == "out-null":  # ``… | Out-Null``: nobody sees what the searches print
        parsed.silent += [stage for stage, _ in mine]
    parsed.feeding += [  # a reader's errors sent away or into the pipe (``2>&1``) say nothing
        s
        for s, text in mine[:-1]
        if s.program in shell_rules.SHELL_RULE.path_programs
        and "2>" not in text
        and not shell_rules.HIDDEN_STDERR.search(text)
    ]
    if found:
        return fallback_lists.LOOKS
    quiet = all(s.program in shell_rules.QUIET_PROGRAMS for s, _ in element)
    return fallback_lists.PRINTS if quiet else fallback_lists.ACTS


def ends_in(parsed: ParsedCommand, programs: frozenset[str]) -> bool:
    """The command's exit status is one of ``programs``': the last stage of its last list element."""
    if not parsed.elements or not parsed.elements[-1]:
        return False
    return parsed.elements[-1][-1].program in programs
