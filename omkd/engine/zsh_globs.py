"""zsh's ``no matches found: GLOB``: what the glob was in the command that zsh stopped at.

bash passes a glob that matched no file on to the program (``ls *.xcodeproj`` then says "No such file or
directory"); zsh stops the simple command and says ``zsh:1: no matches found: *.xcodeproj`` (Claude Code
runs it as ``(eval):1:``), with ``~`` and ``$HOME`` already expanded. What the line means depends on where
the glob stood (spec §3.1):

- a path a reader or a search was given (``ls *.xcodeproj``, ``grep X src/*.kt``): nothing of that name is
  there, a not-found kind of output (``PATH``);
- a word of a search that is not a path (``grep -rn retry? src``, ``find . -name *.py``): an unquoted
  ``?`` or ``*`` the shell read first, a quoting slip, and nothing ran (``SLIP``);
- anything else (``rm -f *.pyc; grep …``): another program's, no output of the lookup (``OTHER``).

A glob with parentheses (``src/app/(group)/page.tsx``: Next.js's route groups) or no wildcard at all is a
path whose parentheses zsh read as a glob: a slip wherever it stands.
"""

from __future__ import annotations

import itertools
from typing import Final

from omkd.engine import search_pattern, shell, shell_forms, shell_lists, shell_output, shell_rules

_PATTERN_FIRST: Final[frozenset[str]] = shell_rules.GREP_FAMILY | {"fd", "git"}
"""Searches whose first operand is a pattern, not a path (``git`` here only as ``git grep``)."""
PATH: Final = "path"
SLIP: Final = "slip"
OTHER: Final = "other"


class Globs:
    """The words of a command's lookups, read once: the paths they were given and their other words."""

    def __init__(self, parsed: shell.ParsedCommand) -> None:
        self.paths: set[str] = set()
        self.homed: set[str] = set()
        """Paths written from the home (``~/x``, ``$HOME/x``) as what follows it (``/x``)."""
        self.words: set[str] = set()
        for stage in parsed.searches + parsed.tests:
            args = stage.args[1:] if stage.program == "git" else stage.args  # ``git grep``
            given = shell_forms.path_operands("git", args) if stage.program == "git" else shell.paths_of(stage)
            if stage.program == "find":  # its roots, before the first expression (``-name *.py`` is no path)
                given = args[: next((i for i, a in enumerate(args) if a[:1] in "-(!\\"), len(args))]
            elif stage.program in _PATTERN_FIRST:
                pattern = search_pattern.stage_pattern(stage, None)
                given = [a for a in given if a != pattern]
            self.paths.update(given)
            self.homed.update(p[p.index("/") :] for p in given if p.startswith(("~/", "$HOME/", "${HOME}/")))
            self.words.update(a for a in args if a not in given)

    def role(self, glob: str) -> str:
        """What ``glob`` (as zsh printed it) was in the command: ``PATH``, ``SLIP`` or ``OTHER``."""
        if "(" in glob or not any(c in glob for c in "*?["):
            return SLIP
        home = search_pattern.HOME.match(glob) if self.homed else None  # zsh wrote ``~`` so
        if glob in self.paths or (home is not None and glob[home.end() :] in self.homed):
            return PATH
        return SLIP if glob in self.words else OTHER


def roles(lines: list[str], parsed: shell.ParsedCommand) -> dict[str, str]:
    """Each ``no matches found`` line of ``lines`` with the role of its glob (an empty dict when none)."""
    found = {line: glob for line in lines if (glob := shell_output.glob_of(line)) is not None}
    if not found:
        return {}
    globs = Globs(parsed)
    return {line: globs.role(glob) for line, glob in found.items()}


def stopped(globbed: dict[str, str], lines: list[str], command: str) -> bool:
    """zsh stopped the command before any lookup answered: nothing but its no-match lines was printed, and
    one is a slip (the lookup never ran) or another program's glob that an ``&&`` hangs the lookups on
    (``rm -f *.pyc && grep …``: the grep never ran)."""
    if not globbed or not all(line in globbed for line in lines):
        return False
    if SLIP in globbed.values():
        return True
    others = {shell_output.glob_of(line) for line, role in globbed.items() if role == OTHER}
    parts = shell_lists.parts(command)
    return any(
        operator == "&&" and any(glob in text.split() for glob in others)
        for (_, text), (operator, _) in itertools.pairwise(parts)
    )
