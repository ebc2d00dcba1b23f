"""Package, module and tool probes (spec §3.1): a probe whose answer is "not there" is a failed lookup.

``pip show X`` (``Package(s) not found``), ``python -c "import X"``, ``npm ls X`` (empty), ``brew list X``
(``No such keg``), ``X --version`` answered by ``command not found``… Each row names the programs, the
first argument that makes them a probe, and how they say "not there"; ``probe_of`` picks a stage's row,
``probed`` says what it looked for and ``probe_missed`` whether it missed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from omkd.engine import module_probes, powershell, shell_rules


@dataclass(frozen=True, slots=True)
class ProbeRule:
    """A package, module or tool probe whose answer can be "not there".

    ``programs`` run with a first argument in ``first`` (any program when ``programs`` is empty, any
    first argument when ``first`` is) probe;
    ``needs``: a text the stage must hold (``python -c`` only when it imports). The probe missed when
    its output matches ``not_found``, or, with ``empty_is_miss``, when it printed nothing. ``paths``: what
    it probes is a path (``Test-Path``), written in a pattern as a read path is (spec §6). ``skip`` and
    ``most``: with ``first``, what it looked for is at most ``most`` words after the first ``skip``
    (``python -m pip show X``: X; ``python -m pip list``: pip).
    """

    programs: frozenset[str]
    first: frozenset[str]
    not_found: re.Pattern[str] | None
    empty_is_miss: bool = False
    needs: str = ""
    paths: bool = False
    skip: int = 1
    most: int = 3


COMMAND_MISSING: Final = re.compile(
    r"command not found|: not found$|is not recognized as (?:(?:the|a) name of a cmdlet|an internal or external)",
    re.MULTILINE,
)
"""The shell's (or PowerShell's, cmd's) answer that a program it was asked to run is not there."""
NO_PIP: Final = re.compile(r"No module named pip\b")
NO_PACKAGE: Final = re.compile(r"Package\(s\) not found")
"""pip's (and uv's) ``show`` of a package that is not installed."""
PYTHONS: Final = frozenset({"python", "python3", "py"})
PROBES: Final[tuple[ProbeRule, ...]] = (
    # Test-Path prints True or False; inside ``if (Test-Path …)`` it prints nothing (the condition uses it)
    ProbeRule(frozenset({"Test-Path"}), frozenset(), re.compile(r"^\s*False\s*$", re.MULTILINE), paths=True),
    ProbeRule(frozenset({"pip", "pip3"}), frozenset({"show"}), NO_PACKAGE),
    # pip show run as a module or by uv: the package, or pip itself not there
    ProbeRule(
        PYTHONS, frozenset({"-m"}), re.compile(f"{NO_PACKAGE.pattern}|{NO_PIP.pattern}"), needs=" pip show", skip=3
    ),
    ProbeRule(frozenset({"uv"}), frozenset({"pip"}), NO_PACKAGE, needs=" pip show", skip=2),
    ProbeRule(
        PYTHONS, frozenset({"-c"}),
        re.compile(r"ModuleNotFoundError|No module named"), needs="import",
    ),
    ProbeRule(  # node -e "require('x')" / require.resolve: the module probe of Node, as python -c "import x" is
        frozenset({"node", "nodejs"}), frozenset({"-e", "--eval", "-p", "--print"}),
        re.compile(r"Cannot find module|ERR_MODULE_NOT_FOUND"), needs="require",
    ),
    ProbeRule(  # python -m pip --version: a tool probe of a module
        PYTHONS, frozenset({"-m"}), re.compile(r"No module named"), needs="--version",
    ),
    # python -m pip list: pip's own lookup, with pip not there
    ProbeRule(PYTHONS, frozenset({"-m"}), NO_PIP, needs=" pip list", most=1),
    ProbeRule(frozenset({"npm", "pnpm"}), frozenset({"ls", "list"}), re.compile(r"\(empty\)")),
    ProbeRule(
        frozenset({"npm", "pnpm"}), frozenset({"view", "info", "show"}),
        re.compile(r"\bE404\b|404 Not Found|is not in (?:this|the npm) registry"), most=1,  # then its fields
    ),
    ProbeRule(frozenset({"apt-cache"}), frozenset({"policy"}), None, empty_is_miss=True),
    ProbeRule(frozenset({"apt-cache"}), frozenset({"show"}), re.compile(r"No packages found|Unable to locate package")),
    ProbeRule(
        frozenset({"dpkg"}), frozenset({"-s", "-l", "-L", "--status", "--list"}),
        re.compile(r"is not installed|no packages found matching"),
    ),
    ProbeRule(frozenset({"brew"}), frozenset({"list"}), None, empty_is_miss=True, needs="--versions"),  # prints nothing
    ProbeRule(frozenset({"brew"}), frozenset({"list", "info"}), re.compile(r"No such keg|No available formula")),
    ProbeRule(
        frozenset({"go"}), frozenset({"list"}),
        re.compile(
            r"cannot find (?:package|module providing package)|no required module provides package"
            r"|is not in (?:GOROOT|std)|not a known dependency"
        ),
    ),
    ProbeRule(frozenset({"rospack"}), frozenset({"find"}), re.compile(r"not found|Error: package")),
    # Windows' package managers and PowerShell's package and module lists
    ProbeRule(frozenset({"winget"}), frozenset({"list"}), re.compile(r"No installed package found matching")),
    ProbeRule(frozenset({"choco"}), frozenset({"list"}), re.compile(r"^0 packages (?:installed|found)\.", re.M)),
    ProbeRule(frozenset({"Get-Package"}), frozenset(), re.compile(r"No package found for")),
    ProbeRule(frozenset({"Get-Module"}), frozenset(), None, empty_is_miss=True, needs="-ListAvailable"),
    ProbeRule(frozenset(), frozenset({"--version", "-V", "version"}), COMMAND_MISSING),
)  # fmt: skip
"""Package, module and tool probes (spec §3.1): a "not there" answer is a failed lookup."""


def probe_of(program: str, args: list[str], text: str) -> ProbeRule | None:
    """The probe rule a stage is run by, if any (``pip show X``, ``X --version``…)."""
    if not args:
        return None
    for rule in PROBES:
        if rule.programs and program not in rule.programs:
            continue
        if (rule.first and args[0] not in rule.first) or (rule.needs and rule.needs not in text):
            continue
        if module_probes.at_work(args, rule.needs):  # a script at work is a program run (its missing module too)
            continue
        if not rule.programs and not args[0].startswith("-") and program in shell_rules.CONTENT_SEARCHES:
            continue  # ``grep version package.json`` looks for the word; ``rg --version`` asks rg's version
        return rule
    return None


def probed(program: str, args: list[str], rule: ProbeRule) -> list[str]:
    """What a probe looked for: the package or module named, or the program whose version it asked."""
    if not rule.programs:
        return [program]
    if rule.needs in module_probes.MODULE_NEEDS:  # ``python -c "import X"``, ``node -e "require('X')"``: X
        return module_probes.named(args, rule.needs)
    named = None if rule.first else powershell.paths(program, args)  # ``Test-Path -PathType Leaf P``: P
    words = args[rule.skip :] if rule.first else args
    return (named if named is not None else [a for a in words if not a.startswith("-")])[: rule.most]


def probe_missed(rule: ProbeRule, output: str) -> bool:
    if rule.not_found is not None and rule.not_found.search(output):
        return True
    return rule.empty_is_miss and not output.strip()


def answered(probes: Sequence[tuple[Any, ProbeRule]], output: str) -> bool:
    """Some probe of several printed an answer: an output line no probe's not-found text matches. Probes
    that all look for the same thing (``require.resolve('docx')`` here and in the skill's directory) are
    one question asked in several places, not alternatives: it is answered unless every probe printed
    its not-found line (what else they print, a stack trace, is no answer)."""
    lines = [line for raw in output.splitlines() if (line := raw.strip())]
    said = sum(1 for line in lines if any(r.not_found is not None and r.not_found.search(line) for _, r in probes))
    if len(probes) > 1 and said >= len(probes) and _one_question(probes):
        return False
    return said < len(lines)


def _one_question(probes: Sequence[tuple[Any, ProbeRule]]) -> bool:
    first = probed(probes[0][0].program, probes[0][0].args, probes[0][1])
    return bool(first) and all(probed(stage.program, stage.args, rule) == first for stage, rule in probes[1:])
