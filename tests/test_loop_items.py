"""A shell loop of probes: its items, and those its output says missed — the pattern of §6 and the
targets of §8.2 name them. Hand-made commands and outputs; the expected items read off them by hand."""

from __future__ import annotations

import pytest

from omkd.engine import loop_items, shell
from omkd.engine.metacog.targets import shell_target
from omkd.engine.search_pattern import shell_pattern
from tests import claude_lines as cl
from tests.metacog_helpers import bash, episodes, only, run, write

pytestmark = pytest.mark.engine
ROOT = cl.CWD
LOOP = (
    'for f in ~/.codex/hooks.json ~/.codex/AGENTS.md docs/retry.md; do echo "== $f =="; '
    '[ -f "$f" ] && sed -n \'1,200p\' "$f" || echo "(missing)"; done'
)
HOOKS_MISSING = "== /Users/ana/.codex/hooks.json ==\n(missing)\n== /Users/ana/.codex/AGENTS.md ==\n# Agents\nuse uv\n"
HOOKS_MISSING += f"== {ROOT}/docs/retry.md ==\n# Retry\nsee hooks.json\n"


def _missed(command: str, output: str) -> list[str] | None:
    return loop_items.missed(command, output, loop_items.loop_items(shell.parse(command))["f"])


def test_a_loops_items_are_its_literal_words() -> None:
    items = ["~/.codex/hooks.json", "~/.codex/AGENTS.md", "docs/retry.md"]
    assert loop_items.loop_items(shell.parse(LOOP)) == {"f": items}
    assert loop_items.loop_items(shell.parse('for f in $(ls docs); do cat "$f"; done')) == {}
    assert loop_items.loop_items(shell.parse('for f in docs/*.md; do cat "$f"; done')) == {}


@pytest.mark.parametrize(
    ("output", "told"),
    [
        # the header just above the fallback line names the item (~ printed expanded); a found item's
        # content naming another item tells nothing
        (HOOKS_MISSING, ["~/.codex/hooks.json"]),
        # a not-found message naming the item
        ("== x ==\nsed: docs/retry.md: No such file or directory\n(missing)\n", ["docs/retry.md"]),
        # a fallback line for every item: each missed
        ("(missing)\n(missing)\n(missing)\n", ["~/.codex/hooks.json", "~/.codex/AGENTS.md", "docs/retry.md"]),
        # one fallback line and nothing naming an item: which one is not told
        ("# Agents\n(missing)\n", None),
    ],
)
def test_the_output_tells_which_items_missed(output: str, told: list[str] | None) -> None:
    assert _missed(LOOP, output) == told


def test_the_pattern_of_a_loop_names_the_items_that_missed() -> None:
    """§6: what was looked for, never the whole command; a loop's ``$f`` stands for the items the output
    says missed, and when it does not say, the program and its path operand (not ``sed``'s script)."""
    assert shell_pattern(LOOP, ROOT, HOOKS_MISSING) == "~/.codex/hooks.json"
    assert shell_pattern(LOOP, ROOT, "# Agents\n(missing)\n") == "sed $f"


def test_a_loops_target_is_the_items_told_missed_and_never_its_variable() -> None:
    """§8.2: the missed item is a file target; an item the loop found is none, and without an output
    (a later call's target) the variable names nothing, so two loops never share ``$f``."""
    assert shell_target(LOOP, HOOKS_MISSING).paths == ("~/.codex/hooks.json",)
    assert shell_target(LOOP).paths == ()


@pytest.mark.parametrize(("made", "outcome"), [("hooks.json", "created"), ("AGENTS.md", "proceeded")])
def test_writing_the_item_a_loop_missed_creates_it(made: str, outcome: str) -> None:
    data = run(bash("b1", LOOP, HOOKS_MISSING, "m1"), write("w1", f"/Users/ana/.codex/{made}", "m2"))
    assert only(episodes(data)).outcome == outcome
