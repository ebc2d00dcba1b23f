"""What a ``find`` looks for and whether it acts on what it finds (spec §3.1, §6, §8.2).

``find ROOT -name X`` looks for X; what it negates or prunes (``-not -path './node_modules/*'``,
``\\( -path A -o -path B \\) -prune``) it leaves out. ``-delete`` and ``-exec rm``/``-exec sed -i`` act on
what it found, as ``find | xargs rm`` does.
"""

from __future__ import annotations

from typing import Final

from omkd.engine import shell_rules

NAME_FLAGS: Final[frozenset[str]] = frozenset({"-name", "-iname", "-path", "-ipath"})
"""The tests of a name or path a ``find`` looks for (``-regex``/``-iregex`` too, in a pattern: §6)."""
FILE_NAMES: Final = frozenset({"-name", "-iname"})
"""The tests of a file's own name (what a deleting ``find`` removed: ``removals``)."""
DELETING: Final = frozenset({"rm", "unlink", "rmdir", "Remove-Item", "del", "rd"})
"""Programs that delete the paths they name (``removals``; ``find -exec rm``)."""


def names(args: list[str], flags: frozenset[str]) -> list[str]:
    """The names a ``find`` looks for (the values of ``flags``: ``-name X``, ``-path X``…), not those it
    leaves out: negated (``-not -path './node_modules/*'``, ``! -name X``) or pruned (``-path X -prune``),
    alone or as a group (``\\( -path A -o -path B \\) -prune``, ``-not \\( … \\)``)."""
    left_out: set[int] = set()
    opened: list[int] = []
    for at, arg in enumerate(args):
        if arg in _OPEN:
            opened.append(at)
        elif arg in _CLOSE and opened:
            start = opened.pop()
            if (start and args[start - 1] in _NOT) or args[at + 1 : at + 2] == ["-prune"]:
                left_out.update(range(start, at + 1))
        elif arg in flags and ((at and args[at - 1] in _NOT) or args[at + 2 : at + 3] == ["-prune"]):
            left_out.add(at)
    return [args[at + 1] for at, arg in enumerate(args[:-1]) if arg in flags and at not in left_out]


_OPEN: Final = frozenset({"(", "\\("})
_CLOSE: Final = frozenset({")", "\\)"})
_NOT: Final = frozenset({"-not", "!", "\\!"})


_FIND_RUNS: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_RUN_ACTS: Final[frozenset[str]] = shell_rules.ACTING_PROGRAMS - {"sh", "bash"}  # ``-exec sh -c '…'`` may only look


def acts(program: str, args: list[str]) -> bool:
    """A ``find`` that acts on what it finds, as ``find | xargs rm`` does: ``-delete``, or ``-exec`` of an
    acting program or of an in-place edit (``-exec rm -rf {} +``, ``-exec sed -i 's/a/b/' {} +``)."""
    return program == "find" and (
        "-delete" in args or any(run in _RUN_ACTS or shell_rules.edits_in_place(run, ran) for run, ran in _runs(args))
    )


def deletes(args: list[str]) -> bool:
    """``find … -delete``, or ``-exec``/``-execdir``/``-ok`` of a deleting program (``-exec rm -rf {} +``)."""
    return "-delete" in args or any(run in DELETING for run, _ in _runs(args))


def _runs(args: list[str]) -> list[tuple[str, list[str]]]:
    """Each program ``-exec``/``-execdir``/``-ok`` runs (its name) and its words up to ``;`` or ``+``."""
    found = []
    for index, arg in enumerate(args[:-1]):
        if arg in _FIND_RUNS:
            rest = args[index + 2 :]
            end = next((at for at, word in enumerate(rest) if word in (";", "\\;", "+")), len(rest))
            found.append((args[index + 1].rpartition("/")[2], rest[:end]))
    return found
