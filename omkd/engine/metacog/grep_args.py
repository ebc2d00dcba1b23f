"""What a grep-family stage's words say (spec §8.2.1): its pattern, its files, whether it excludes; and
the listings a grep after them reads as a name probe (``ls``, ``find``, ``rg --files``, ``git ls-files``).
``rg --files``' own names are ``shell_forms.rg_listed_names``."""

from __future__ import annotations

from omkd.engine import powershell, shell, shell_rules
from omkd.engine.metacog import rules


def lists(stage: shell.Stage) -> bool:
    """The stage lists paths: a grep after it probes names (``rg --files | rg X``, ``git ls-files | grep X``)."""
    program, args = stage.program, stage.args
    return (
        program in shell_rules.LISTINGS
        or (program == "rg" and "--files" in args)
        or (program == "git" and args[:1] == ["ls-files"])
    )


def grep_parts(program: str, args: list[str]) -> tuple[str | None, list[str], bool]:
    """(pattern, file operands, excluding) of a grep-family stage (``rg --files`` has no pattern:
    its operands are all files; Select-String's bound by name and position)."""
    select = powershell.cmdlet(program)
    if select is not None:
        bound = powershell.bind(select, args)
        return next(iter(bound.of(powershell.PATTERN)), None), bound.of(powershell.PATH), "notmatch" in bound.switches
    pattern: str | None = None
    files: list[str] = []
    skip = False
    excluding = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in ("-e", "--regexp"):
            if i + 1 < len(args):
                pattern = args[i + 1]
            skip = True
        elif arg in rules.GREP_VALUE_FLAGS:
            skip = True
        elif arg.startswith("-") and len(arg) > 1:
            if not arg.startswith("--") and "v" in arg[1:]:
                excluding = True
            if arg == "--invert-match":
                excluding = True
        elif pattern is None and "--files" not in args:
            pattern = arg
        else:
            files.append(arg)
    return pattern, files, excluding
