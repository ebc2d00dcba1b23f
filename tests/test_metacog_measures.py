"""The measures of spec §8.6 and what §8.7 exports of them, clause by clause, on hand-made transcripts.

Expected figures are worked out by hand from the spec's words and the records each test writes,
never by running omkd.
"""

from __future__ import annotations

import importlib
import re

import pytest

from omkd.engine import reproducibility
from omkd.engine.segmenting import SegmenterRules
from tests import claude_lines as cl
from tests.metacog_helpers import edit, glob_miss, read_miss, run, tallies, write

pytestmark = pytest.mark.engine
ROOT = cl.CWD


# --- §8.6 M4: (c) an anchor resolved *at* the write adds nothing to its load ---------------------------


def test_a_miss_the_write_itself_creates_adds_no_load_to_that_write() -> None:
    # settings.yaml missed (1.0), deploy.yaml missed (1.0), then a Write of deploy.yaml: it creates what
    # the second miss looked for, so at that write only settings.yaml is unresolved: load 1.0 ("not
    # recovered, created or asked at or before w"). The later edit carries settings.yaml alone: 1.0.
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        glob_miss("t1", "**/deploy.yaml", "m2"),
        write("w1", f"{ROOT}/deploy.yaml", "m3"),
        edit("e1", f"{ROOT}/src/app.py", "m4"),
    )
    found = tallies(data)
    assert (found["writing_segments"], found["write_load_1"]) == (1, 1)
    assert "unchecked_write_segments" not in found
    assert "write_load_2_plus" not in found
    assert (found["episodes_failed_search_created"], found["episodes_failed_search_proceeded"]) == (1, 1)


# --- §8.7: the rule tables of §8.1-8.5 enter rules_hash ------------------------------------------------


@pytest.mark.parametrize(
    ("module", "table"),
    [
        ("omkd.engine.metacog.targets", "_TOKEN"),  # §8.2.1: what a token of a search is
        ("omkd.engine.metacog.writes", "_REDIRECTION"),  # §8.3.1: which redirection writes a file
        ("omkd.engine.metacog.outcomes", "_FENCE"),  # §8.5.3: a question inside code is no question
    ],
)
def test_a_changed_metacognition_rule_table_changes_the_rules_hash(
    module: str, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = importlib.import_module(module)
    rules = SegmenterRules()
    reproducibility.rules_hash.cache_clear()
    before = reproducibility.rules_hash(rules, "embedded")
    monkeypatch.setattr(held, table, re.compile("changed"))
    reproducibility.rules_hash.cache_clear()
    try:
        assert reproducibility.rules_hash(rules, "embedded") != before
    finally:
        monkeypatch.undo()
        reproducibility.rules_hash.cache_clear()
