"""The measures of spec §8.6 and what §8.7 exports of them, clause by clause, on hand-made transcripts.

Expected figures are worked out by hand from the spec's words and the records each test writes,
never by running omkd.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from collections.abc import Callable

import pytest

from omkd.engine import reproducibility
from omkd.engine.detect import registry
from omkd.engine.figures import SkillTotals
from omkd.engine.report.metacog import metacog_report
from omkd.engine.segmenting import SegmenterRules
from tests import claude_lines as cl
from tests.agent_lines import GeminiChat, Rollout, tool_call
from tests.metacog_helpers import edit, episodes, glob_miss, only, read_miss, run, tallies, write

pytestmark = pytest.mark.engine
ROOT = cl.CWD
CODEX = "rollout-2026-04-08T13-27-20-019d6d46.jsonl"
GEMINI = "chats/session-2026-04-08T13-27-55b29702.jsonl"


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
    assert _hash_moves(monkeypatch, module, table, re.compile("changed"))


@pytest.mark.parametrize("module", registry.RULE_MODULES)
def test_every_rule_module_enters_the_rules_hash(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table added to any module the hash covers changes it (``metacog.rules`` once shared its key with
    the configured rules, and none of its tables counted)."""
    assert _hash_moves(monkeypatch, module, "PROBE_TABLE", ("added",))


def _hash_moves(monkeypatch: pytest.MonkeyPatch, module: str, table: str, value: object) -> bool:
    """Whether ``rules_hash`` changes when ``module``'s ``table`` is set to ``value`` (then put back)."""
    rules = SegmenterRules()
    reproducibility.rules_hash.cache_clear()
    before = reproducibility.rules_hash(rules, "embedded")
    monkeypatch.setattr(importlib.import_module(module), table, value, raising=False)
    reproducibility.rules_hash.cache_clear()
    try:
        return reproducibility.rules_hash(rules, "embedded") != before
    finally:
        monkeypatch.undo()
        reproducibility.rules_hash.cache_clear()


def test_the_rules_hash_is_the_same_in_every_process() -> None:
    """A worker's report and the daemon's name the same rules: no rule table may hold an object whose
    only form is its address (an automaton kept as a module constant once did)."""
    code = (
        "from omkd.engine.reproducibility import rules_hash; from omkd.engine.segmenting import SegmenterRules; "
        "print(rules_hash(SegmenterRules(), 'embedded'))"
    )
    hashes = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
              for _ in range(2)}  # fmt: skip
    reproducibility.rules_hash.cache_clear()
    assert hashes == {reproducibility.rules_hash(SegmenterRules(), "embedded") + "\n"}


def test_a_rule_table_without_a_form_of_its_own_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    held = importlib.import_module("omkd.engine.metacog.outcomes")
    monkeypatch.setattr(held, "_AN_AUTOMATON", object(), raising=False)
    reproducibility.rules_hash.cache_clear()
    try:
        with pytest.raises(TypeError, match="no form the same in every process"):
            reproducibility.rules_hash(SegmenterRules(), "embedded")
    finally:
        monkeypatch.undo()
        reproducibility.rules_hash.cache_clear()


# --- §8.6: each measure's tier and Wilson interval on its own denominator --------------------------------


def test_each_ratio_has_the_tier_and_interval_of_its_own_denominator() -> None:
    # 100 segments, but 4 lookup-gap segments (2 recovered, 2 dropped), 5 open-gap (1 asked), 20 writing (5
    # unchecked): underpowered < 5, low < 20, high. Intervals by hand: continuity-corrected Wilson (§4),
    # z = 1.959963985, lower = (2nP + z² - 1 - z sqrt(z² - 2 - 1/n + 4P(n(1-P) + 1))) / (2(n + z²)),
    # upper = (2nP + z² + 1 + z sqrt(z² + 2 - 1/n + 4P(n(1-P) - 1))) / (2(n + z²)).
    totals = SkillTotals()
    totals.segments = 100
    totals.lookup_gap_segments, totals.outcome_recovered, totals.outcome_dropped = 4, 2, 2
    totals.open_gap_segments, totals.asked_at_gap_segments = 5, 1
    totals.writing_segments, totals.unchecked_write_segments = 20, 5
    m = metacog_report(totals)
    assert (m.confidence.lookup_gap_segments, m.confidence.open_gap_segments, m.confidence.writing_segments) == (
        "underpowered", "low", "high",
    )  # fmt: skip
    assert (m.self_recovery_ratio, m.asked_at_gap_ratio, m.unchecked_write_ratio) == (0.5, 0.2, 0.25)
    got = (m.intervals.self_recovery_ratio, m.intervals.asked_at_gap_ratio, m.intervals.unchecked_write_ratio)
    wanted = ((0.091899, 0.908101), (0.010530, 0.701209), (0.095933, 0.494115))
    for interval, (lower, upper) in zip(got, wanted, strict=True):
        assert interval is not None
        assert (round(interval[0], 6), round(interval[1], 6)) == (lower, upper)


def test_a_zero_denominator_gives_no_ratio_and_no_interval_beside_the_others() -> None:
    totals = SkillTotals()
    totals.segments = 30
    totals.writing_segments, totals.unchecked_write_segments = 6, 0
    m = metacog_report(totals)
    assert (m.self_recovery_ratio, m.intervals.self_recovery_ratio) == (None, None)
    assert (m.asked_at_gap_ratio, m.intervals.asked_at_gap_ratio) == (None, None)
    assert m.unchecked_write_ratio == 0.0  # a measured 0 over 6 writing segments is a figure, not an absence
    assert m.intervals.unchecked_write_ratio is not None


# --- §8.6 M4 for every agent: two unresolved misses before a write, and the checkpoints that reset them ---


def _codex(checkpoint: str) -> bytes:
    rollout = Rollout()
    rollout.prompt("deploy it")
    rollout.exec("cat ops/deploy.toml", "cat: ops/deploy.toml: No such file or directory", code=1)
    rollout.exec("cat config/settings.yaml", "cat: config/settings.yaml: No such file or directory", code=1)
    if checkpoint == "question":
        call = rollout.call("request_user_input", {"questions": [{"question": "Where is the deploy config?"}]})
        rollout.output(call, "in infra/")
    elif checkpoint == "prompt":
        rollout.prompt("never mind, just commit what you have")
    rollout.exec("git commit -am wip", "[main 1a2b3c] wip", code=0)
    return rollout.data()


def _gemini(checkpoint: str) -> bytes:
    chat = GeminiChat()
    chat.prompt("deploy it")
    missed = 'No files found matching pattern "**/deploy.toml" within /home/dev/shop'
    chat.reply(calls=[tool_call("glob", {"pattern": "**/deploy.toml"}, output=missed)])
    settings = "/home/dev/shop/config/settings.yaml"
    chat.reply(calls=[tool_call("read_file", {"absolute_path": settings}, error=f"File not found: {settings}")])
    if checkpoint == "question":
        chat.reply(calls=[tool_call("ask_user", {"question": "Where is the deploy config?"}, output="in ops/")])
    elif checkpoint == "prompt":
        chat.prompt("never mind, just change the app")
    edit_args = {"file_path": "/home/dev/shop/src/app.py", "old_string": "a = 1", "new_string": "a = 2"}
    chat.reply(calls=[tool_call("replace", edit_args, output="Successfully modified file")])
    return chat.data()


@pytest.mark.parametrize(("agent", "name", "kind"), [(_codex, CODEX, "vcs"), (_gemini, GEMINI, "file_edit")])
@pytest.mark.parametrize(("checkpoint", "unchecked"), [("none", True), ("question", False), ("prompt", False)])
def test_every_agent_s_write_after_two_unresolved_misses_is_unchecked_until_a_checkpoint(
    agent: Callable[[str], bytes], name: str, kind: str, checkpoint: str, unchecked: bool
) -> None:
    found = tallies(agent(checkpoint), name)
    assert found["writing_segments"] == 1
    assert found.get("unchecked_write_segments", 0) == int(unchecked)
    assert found.get(f"unchecked_{kind}", 0) == int(unchecked)
    assert found["write_load_2_plus" if unchecked else "write_load_0"] == 1


# --- §8.6 M2 / §8.7: "the inventory keeps the question" (outcome_how: the recovering call, the write, the question)


def test_a_closing_question_is_kept_in_the_gap_s_outcome() -> None:
    data = run(
        glob_miss("t1", "**/deploy.yaml", "m1"),
        cl.text("I couldn't find a deploy file in the repository.\n\nWhere do you keep it?", "m2"),
        cl.user("in ops/"),
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.outcome_how) == ("asked", "closing question: Where do you keep it?")


def test_a_closing_question_at_the_end_of_the_stream_is_kept_too() -> None:
    data = run(glob_miss("t1", "**/deploy.yaml", "m1"), cl.text("There is no deploy file. Should I create one?", "m2"))
    episode = only(episodes(data))
    assert (episode.outcome, episode.window_ended_by) == ("asked", "end of stream")
    assert episode.outcome_how == "closing question: There is no deploy file. Should I create one?"


def test_a_claude_question_tool_s_questions_are_kept() -> None:
    questions = [{"question": "Where is the deploy config?", "header": "Config"}, {"question": "Which region?"}]
    data = run(
        glob_miss("t1", "**/deploy.yaml", "m1"),
        cl.tool_use("q1", "AskUserQuestion", {"questions": questions}, "m2"),
        cl.tool_result("q1", "User answered: in ops/"),
    )
    episode = only(episodes(data))
    assert episode.outcome_how == "AskUserQuestion (question tool): Where is the deploy config? / Which region?"


def test_gemini_and_codex_question_tools_keep_their_questions() -> None:
    chat = GeminiChat()
    chat.prompt("deploy it")
    missed = 'No files found matching pattern "**/deploy.toml" within /home/dev/shop'
    chat.reply(calls=[tool_call("glob", {"pattern": "**/deploy.toml"}, output=missed)])
    asked = {"questions": [{"type": "yesno", "question": "Is the deploy config in ops/?", "header": "Config"}]}
    chat.reply(calls=[tool_call("ask_user", asked, output="yes")])
    assert only(episodes(chat.data(), GEMINI)).outcome_how == "ask_user (question tool): Is the deploy config in ops/?"
    rollout = Rollout()
    rollout.prompt("deploy it")
    rollout.exec("cat ops/deploy.toml", "cat: ops/deploy.toml: No such file or directory", code=1)
    call = rollout.call("request_user_input", {"questions": [{"question": "Where is the deploy config?"}]})
    rollout.output(call, "in infra/")
    how = only(episodes(rollout.data(), CODEX)).outcome_how
    assert how == "request_user_input (question tool): Where is the deploy config?"
