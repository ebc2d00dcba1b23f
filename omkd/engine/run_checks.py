"""Stages that build, test, type-check or lint: their output is diagnostics, and a search of it
(``tsc --noEmit | grep src/``) reads a run, not the world (spec §3.1: a non-search part)."""

from __future__ import annotations

import posixpath
from typing import Final

from omkd.engine import shell_rules


def checks_a_run(program: str, args: list[str]) -> bool:
    """A stage that builds, tests, type-checks or lints (``shell_rules.CHECKERS``), directly or through a
    runner (``npx tsc``, ``pnpm exec eslint``, ``npm run lint``, ``yarn test``, ``uv run mypy``,
    ``python -m pytest``)."""
    first = program.rsplit("/", 1)[-1]
    if first and not first.startswith("-") and first not in CHECK_STARTS:
        return False  # the first name neither runs nor checks (most stages: one look, not one per word)
    names = [posixpath.basename(w) for w in (program, *args) if w and not w.startswith("-")]
    if not names:
        return False
    if names[0] in ("python", "python3", "py") and "-m" in args[:-1]:
        module = args[args.index("-m") + 1]
        return module in shell_rules.CHECKERS or module == "unittest"
    if tuple(names[:2]) in shell_rules.CHECKING_SUBCOMMANDS:
        return True
    at = 0
    while at < len(names) and names[at] in shell_rules.RUNNERS:
        at += 1
    if at == len(names):
        return False
    name = names[at]  # a namespaced package script (``check:types``, ``test:unit``) is of its first part's kind
    return name in shell_rules.CHECKERS or (at > 0 and name.partition(":")[0] in shell_rules.CHECKING_SCRIPTS)


CHECK_STARTS: Final[frozenset[str]] = (
    shell_rules.RUNNERS
    | shell_rules.CHECKERS
    | {"python", "python3", "py"}
    | {pair[0] for pair in shell_rules.CHECKING_SUBCOMMANDS}
)
"""The first names of the stages ``checks_a_run`` reads further."""
