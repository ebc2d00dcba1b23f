"""What the agent did at a gap (spec §8): each rule on small hand-made transcripts.

Expected outcomes are worked out by hand from the records each test writes, never by running omkd.
"""

from __future__ import annotations

from typing import Any

import pytest

from omkd.engine.events import ToolCall
from omkd.engine.metacog.targets import same_target, shell_target, target_of
from omkd.engine.segmenting import SegmenterRules
from tests import claude_lines as cl
from tests.metacog_helpers import (
    NO_MATCH,
    bash,
    edit,
    episodes,
    glob_miss,
    only,
    read_hit,
    read_miss,
    run,
    summaries,
    tallies,
    write,
)

pytestmark = pytest.mark.engine
ROOT = cl.CWD


# --- §8.1 anchors and eligibility -------------------------------------------------------------------


def test_a_specific_unanswered_miss_is_eligible_and_makes_a_lookup_gap_segment() -> None:
    data = run(glob_miss("t1", "**/pyproject.toml", "m1"))
    episode = only(episodes(data))
    assert (episode.eligible, episode.not_eligible_because, episode.outcome) == (True, "", "dropped")
    assert tallies(data) == {
        "lookup_gap_segments": 1, "outcome_dropped": 1, "open_gap_segments": 1, "episodes_failed_search_dropped": 1
    }  # fmt: skip


@pytest.mark.parametrize("pattern", ["**/*.ts", "*", ".*", "**/*"])
def test_a_wildcard_survey_is_not_eligible(pattern: str) -> None:
    data = run(glob_miss("t1", pattern, "m1"))
    episode = only(episodes(data))
    assert episode.eligible is False
    assert "wildcard" in episode.not_eligible_because
    assert "lookup_gap_segments" not in tallies(data)


def test_a_dotted_name_glob_is_specific() -> None:
    assert only(episodes(run(glob_miss("t1", "**/.markdownlint*", "m1")))).eligible is True


def test_a_content_search_needs_a_literal_of_four_or_a_strong_token() -> None:
    short = [cl.tool_use("g1", "Grep", {"pattern": "fo+"}, "m1"), cl.tool_result("g1", NO_MATCH)]
    named = [cl.tool_use("g1", "Grep", {"pattern": "generate_session_html"}, "m1"), cl.tool_result("g1", NO_MATCH)]
    assert only(episodes(run(short))).eligible is False
    assert only(episodes(run(named))).eligible is True


def test_a_miss_answered_by_another_search_of_the_same_message_is_not_eligible() -> None:
    data = run(
        cl.tool_use("t1", "Glob", {"pattern": "**/Cargo.toml"}, "m1"),
        cl.tool_use("t2", "Glob", {"pattern": "**/package.json"}, "m1"),
        cl.tool_result("t1", "No files found", cl.GLOB_EMPTY),
        cl.tool_result("t2", f"{ROOT}/package.json", cl.glob_hit(f"{ROOT}/package.json")),
    )
    episode = only(episodes(data))
    assert (episode.eligible, episode.not_eligible_because) == (False, "answered in the same message")
    assert "lookup_gap_segments" not in tallies(data)


# --- §8.5.1 recovered -------------------------------------------------------------------------------


def test_recovered_when_a_later_search_finds_the_same_file() -> None:
    data = run(glob_miss("t1", "**/spotter.css", "m1"), read_hit("t2", f"{ROOT}/priv/static/assets/spotter.css", "m2"))
    episode = only(episodes(data))
    assert (episode.outcome, episode.outcome_line) == ("recovered", 5)
    # where it was found: the pointer the wiki's "hard to find" entry gives
    assert episode.outcome_how == f"Read found the same target: {ROOT}/priv/static/assets/spotter.css"
    assert tallies(data) == {
        "lookup_gap_segments": 1, "outcome_recovered": 1, "episodes_failed_search_recovered": 1
    }  # fmt: skip


def test_recovered_when_a_lookup_output_names_what_the_miss_looked_for() -> None:
    data = run(
        [cl.tool_use("g1", "Grep", {"pattern": "generate_session_html"}, "m1"), cl.tool_result("g1", NO_MATCH)],
        bash("b1", "git ls-files", "README.md\nsrc/generate_session_html.py\n", "m2"),
    )
    episode = only(episodes(data))
    assert episode.outcome == "recovered"
    assert episode.outcome_how == "Bash output names generate_session_html: git ls-files"


def test_a_content_search_in_the_same_directory_is_not_the_same_target() -> None:
    data = run(
        bash("b1", "rg spotter_theme lib", "", "m1"),
        bash("b2", "rg session_panel lib", "lib/web/live.ex:3: session_panel()", "m2"),
    )
    assert only(episodes(data)).outcome == "dropped"


@pytest.mark.parametrize(
    ("later", "output", "outcome"),
    [
        ('grep -n "type ApiserverCache struct" pkg/manager.go', "12:type ApiserverCache struct {", "dropped"),
        ("grep -rn CustomResourceDefinition deploy", "crd.yaml:1:kind: CustomResourceDefinition", "recovered"),
    ],
)
def test_a_shared_reserved_word_is_not_the_same_target(later: str, output: str, outcome: str) -> None:
    """§8.2.1's stop list of generic words holds the languages' reserved words, as it holds `def` and
    `class`: `struct` in two patterns does not make them look for the same thing; the pattern's
    other literal still does."""
    data = run(
        [cl.tool_use("g1", "Grep", {"pattern": "type.*struct|CustomResourceDefinition"}, "m1"),
         cl.tool_result("g1", NO_MATCH)],
        bash("b2", later, output, "m2"),
    )  # fmt: skip
    assert only(episodes(data)).outcome == outcome


def test_a_short_plain_word_never_names_a_miss() -> None:
    data = run(
        [cl.tool_use("g1", "Grep", {"pattern": "agent"}, "m1"), cl.tool_result("g1", NO_MATCH)],
        bash("b1", "git ls-files", "src/agent.py\n", "m2"),
    )
    assert only(episodes(data)).outcome == "dropped"


# --- §8.5.2 created ---------------------------------------------------------------------------------


def test_created_when_a_write_makes_the_file_the_miss_looked_for() -> None:
    data = run(glob_miss("t1", "**/sitemap*", "m1"), write("w1", f"{ROOT}/src/app/sitemap.ts", "m2"))
    episode = only(episodes(data))
    assert (episode.outcome, episode.outcome_line) == ("created", 4)
    assert tallies(data)["outcome_created"] == 1


def test_created_when_an_edit_adds_the_text_a_content_search_looked_for() -> None:
    data = run(
        [cl.tool_use("g1", "Grep", {"pattern": "rewrites"}, "m1"), cl.tool_result("g1", NO_MATCH)],
        edit("e1", f"{ROOT}/next.config.js", "m2", old="module.exports = {}", new="module.exports = { rewrites }"),
    )
    assert only(episodes(data)).outcome == "created"


def test_created_when_an_install_names_the_missing_program() -> None:
    data = run(
        bash("b1", "which uv", "", "m1"),
        bash("b2", "curl -LsSf https://astral.sh/uv/install.sh | sh", "installed", "m2"),
    )
    assert only(episodes(data)).outcome == "created"


# --- §8.5.3 asked -----------------------------------------------------------------------------------


def test_asked_by_a_question_tool() -> None:
    data = run(
        glob_miss("t1", "**/deploy.yaml", "m1"),
        cl.tool_use("q1", "AskUserQuestion", {"questions": [{"question": "Where is the deploy config?"}]}, "m2"),
        cl.tool_result("q1", "User answered: in ops/"),
    )
    assert only(episodes(data)).outcome == "asked"
    assert tallies(data)["asked_at_gap_segments"] == 1


def test_asked_by_a_closing_question_that_states_the_gap() -> None:
    data = run(
        glob_miss("t1", "**/deploy.yaml", "m1"),
        cl.text("I couldn't find a deploy file in the repository.\n\nWhere do you keep it?", "m2"),
        cl.user("in ops/"),
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.window_ended_by) == ("asked", "turn")
    assert episode.outcome_how == "closing question: Where do you keep it?"


@pytest.mark.parametrize(
    "said",
    [
        "Node.js isn't installed on this machine.",
        "The deploy tool is not installed here.",
        "I could not locate a deploy file.",
        "Die Datei existiert nicht.",
        "部署文件未找到。",
        "O arquivo não existe.",
    ],
)
def test_a_closing_question_after_a_not_found_phrase_of_any_wording_is_asked(said: str) -> None:
    """§8.5.3(b): "a not-found or uncertainty phrase" — the table's examples are not all its wordings."""
    data = run(glob_miss("t1", "**/deploy.yaml", "m1"), cl.text(f"{said}\n\nWhich option do you want?", "m2"))
    assert only(episodes(data)).outcome == "asked"


def test_a_closing_question_that_does_not_state_the_gap_is_not_asking() -> None:
    data = run(glob_miss("t1", "**/deploy.yaml", "m1"), cl.text("Should the banner be blue?", "m2"), cl.user("yes"))
    assert only(episodes(data)).outcome == "dropped"


def test_a_closing_question_naming_the_missed_file_states_the_gap() -> None:
    data = run(glob_miss("t1", "**/deploy.yaml", "m1"), cl.text("Do you want me to add deploy.yaml?", "m2"))
    assert only(episodes(data)).outcome == "asked"  # the end of a main stream ends the turn too


def test_a_stock_closer_is_not_a_question() -> None:
    data = run(
        glob_miss("t1", "**/deploy.yaml", "m1"),
        cl.text("There is no deploy file. Let me know if you need anything else?", "m2"),
        cl.user("thanks"),
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.acknowledged) == ("dropped", True)


def test_a_question_in_code_is_not_a_question() -> None:
    data = run(glob_miss("t1", "**/deploy.yaml", "m1"), cl.text("There is no deploy file:\n```\nok?\n```", "m2"))
    assert only(episodes(data)).outcome == "dropped"


def test_a_sub_agent_never_asks() -> None:
    data = run(
        glob_miss("t1", "**/deploy.yaml", "m1"),
        cl.tool_use("q1", "AskUserQuestion", {"questions": []}, "m2"),
        cl.tool_result("q1", "answered"),
        cl.text("I couldn't find deploy.yaml. Where is it?", "m3"),
    )
    found = tallies(data, name="subagents/agent-a1b2c3.jsonl")
    assert only(episodes(data, name="subagents/agent-a1b2c3.jsonl")).outcome == "dropped"
    assert "open_gap_segments" not in found
    assert "asked_at_gap_segments" not in found


def test_each_hedge_of_a_text_acknowledges_the_gaps_open_before_it() -> None:
    """§8.5.4/§8.5.5 ``acknowledged``: a kept hedge acknowledges every undecided anchor open before it —
    the miss, and the earlier hedges of the same text; the text's last hedge stays unacknowledged."""
    data = run(
        glob_miss("t1", "**/deploy.yaml", "m1"),
        cl.text("The deploy file holds the region [inferred]. The port is 8080 [inferred]. Done.", "m2"),
        cl.user("ok"),
    )
    found = episodes(data)
    assert only(found).acknowledged
    markers = [e for e in found if e.anchor == "explicit_marker"]
    assert [e.acknowledged for e in markers] == [True, False]


# --- §8.5.4 proceeded, §8.5.5 dropped ---------------------------------------------------------------


def test_proceeded_by_a_project_write_with_related_and_acknowledged() -> None:
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        cl.text("The settings file does not exist, so I will change the example.", "m2"),
        edit("e1", f"{ROOT}/config/settings.yaml.example", "m3"),
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.related, episode.acknowledged) == ("proceeded", True, True)
    assert tallies(data)["proceeded_candidates"] == 1


def test_proceeded_silently_and_unrelated() -> None:
    data = run(read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"), edit("e1", f"{ROOT}/src/app.py", "m2"))
    episode = only(episodes(data))
    assert (episode.outcome, episode.related, episode.acknowledged) == ("proceeded", False, False)


def test_a_rejected_write_still_proceeds_and_is_marked_rejected() -> None:
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        cl.tool_use("e1", "Edit", {"file_path": f"{ROOT}/src/app.py", "old_string": "a", "new_string": "b"}, "m2"),
        cl.tool_result(
            "e1", "The user doesn't want to proceed with this tool use. The tool use was rejected.", is_error=True
        ),
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.rejected) == ("proceeded", True)


def test_scratch_writes_are_ignored() -> None:
    data = run(read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"), bash("b1", "echo x > /tmp/probe.txt", "", "m2"))
    assert only(episodes(data)).outcome == "dropped"
    assert "writing_segments" not in tallies(data)


@pytest.mark.parametrize("command", ["mkdir -p build", "touch notes.md", "git clone https://example.com/r.git"])
def test_mkdir_touch_and_clone_are_not_writes(command: str) -> None:
    data = run(read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"), bash("b1", command, "", "m2"))
    assert only(episodes(data)).outcome == "dropped"


# --- §8.4 the window --------------------------------------------------------------------------------


def _echoes(count: int) -> list[dict[str, Any]]:
    return [r for n in range(count) for r in bash(f"e{n}", f"echo step {n}", f"step {n}", f"me{n}")]


def test_the_window_holds_25_calls() -> None:
    late = read_hit("r2", f"{ROOT}/config/settings.yaml", "m9")
    inside = run(read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"), _echoes(24), late)
    outside = run(read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"), _echoes(25), late)
    assert only(episodes(inside)).outcome == "recovered"
    episode = only(episodes(outside))
    assert (episode.outcome, episode.window_ended_by) == ("dropped", "cap")


def test_the_window_call_cap_is_configurable() -> None:
    data = run(
        read_miss("r1", f"{ROOT}/a/settings.yaml", "m1"), _echoes(3), read_hit("r2", f"{ROOT}/a/settings.yaml", "m9")
    )
    assert only(episodes(data, rules=SegmenterRules(window_calls=3))).outcome == "dropped"
    assert only(episodes(data, rules=SegmenterRules(window_calls=4))).outcome == "recovered"


def test_the_person_turn_ends_the_window() -> None:
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        cl.user("look again"),
        read_hit("r2", f"{ROOT}/config/settings.yaml", "m2"),
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.window_ended_by) == ("dropped", "turn")


@pytest.mark.parametrize("notice", ["[Request interrupted by user]", "[Request interrupted by user for tool use]"])
def test_the_person_interrupting_ends_the_window_but_not_the_segment(notice: str) -> None:
    """§8.4.3: ``[Request interrupted by user…]`` is the person's turn for the window (it ends there);
    §2: it is not a typed prompt, so the skill's segment goes on."""
    data = run(
        cl.user("<command-name>/deploy</command-name>"),
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        cl.user(notice),
        read_hit("r2", f"{ROOT}/config/settings.yaml", "m2"),
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.window_ended_by) == ("dropped", "turn")
    assert [s.skill for s in summaries(data)] == ["deploy"]


def test_a_call_of_the_same_message_before_the_result_is_not_in_the_window() -> None:
    data = run(
        cl.tool_use("r1", "Read", {"file_path": f"{ROOT}/config/settings.yaml"}, "m1"),
        cl.tool_use("e1", "Edit", {"file_path": f"{ROOT}/src/app.py", "old_string": "a", "new_string": "b"}, "m1"),
        cl.tool_result("r1", "File does not exist.", is_error=True),
        cl.tool_result("e1", "updated"),
    )
    assert only(episodes(data)).outcome == "dropped"


@pytest.mark.parametrize(
    "command", ["cat src/app.py | grep -n retry_policy", "head -200 src/app.py | grep retry_policy"]
)
def test_a_file_read_into_a_grep_is_where_it_looked_not_a_name(command: str) -> None:
    """§8.2.1: a content search's files are where it looked (as Grep's ``path``); a write of ``app.py``
    elsewhere does not make what ``grep retry_policy`` looked for (§8.5.2: only added text holding it)."""
    data = run(bash("b1", command, "", "m1"), write("w1", f"{ROOT}/tests/app.py", "m2"))
    assert only(episodes(data)).outcome == "proceeded"


def test_a_created_file_of_the_missed_name_elsewhere_is_created() -> None:
    """§8.2.1: a Read's path is a file target and "its last component is a name"; §8.5.2: "a created path
    whose last component matches one of the miss's specific names" (helpers.py written in lib/)."""
    data = run(read_miss("r1", f"{ROOT}/src/utils/helpers.py", "m1"), write("w1", f"{ROOT}/lib/helpers.py", "m2"))
    assert only(episodes(data)).outcome == "created"


# --- §8.6 M4 load and checkpoints -------------------------------------------------------------------


def test_two_unresolved_misses_then_a_write_is_unchecked() -> None:
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        glob_miss("t1", "**/deploy.yaml", "m2"),
        edit("e1", f"{ROOT}/src/app.py", "m3"),
    )
    found = tallies(data)
    assert found["writing_segments"] == 1
    assert found["unchecked_write_segments"] == 1
    assert found["write_load_2_plus"] == 1
    assert found["unchecked_file_edit"] == 1


def test_two_misses_of_one_message_weigh_one() -> None:
    data = run(
        cl.tool_use("r1", "Read", {"file_path": f"{ROOT}/config/settings.yaml"}, "m1"),
        cl.tool_use("r2", "Read", {"file_path": f"{ROOT}/config/deploy.yaml"}, "m1"),
        cl.tool_result("r1", "File does not exist.", is_error=True),
        cl.tool_result("r2", "File does not exist.", is_error=True),
        edit("e1", f"{ROOT}/src/app.py", "m2"),
    )
    found = tallies(data)
    assert found["write_load_1"] == 1
    assert "unchecked_write_segments" not in found


@pytest.mark.parametrize(
    ("tool", "answer"),
    [("ExitPlanMode", "User has approved your plan."), ("AskUserQuestion", "User answered: go on")],
)
def test_the_answer_to_a_plan_or_a_question_is_a_checkpoint(tool: str, answer: str) -> None:
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        glob_miss("t1", "**/deploy.yaml", "m2"),
        cl.tool_use("p1", tool, {"plan": "do it"}, "m3"),
        cl.tool_result("p1", answer),
        edit("e1", f"{ROOT}/src/app.py", "m4"),
    )
    found = tallies(data)
    assert found["write_load_0"] == 1
    assert "unchecked_write_segments" not in found


def test_the_unchecked_load_is_configurable() -> None:
    data = run(read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"), edit("e1", f"{ROOT}/src/app.py", "m2"))
    assert "unchecked_write_segments" not in tallies(data)
    assert tallies(data, rules=SegmenterRules(unchecked_write_load=1.0))["unchecked_write_segments"] == 1


def test_a_recovered_miss_adds_no_load() -> None:
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        glob_miss("t1", "**/deploy.yaml", "m2"),
        read_hit("r2", f"{ROOT}/ops/deploy.yaml", "m3"),
        edit("e1", f"{ROOT}/src/app.py", "m4"),
    )
    assert tallies(data)["write_load_1"] == 1


# --- the partition and the switch -------------------------------------------------------------------


def test_the_worst_outcome_of_a_segment_is_its_partition() -> None:
    data = run(
        glob_miss("t1", "**/spotter.css", "m1"),
        read_hit("r1", f"{ROOT}/assets/spotter.css", "m2"),
        read_miss("r2", f"{ROOT}/config/settings.yaml", "m3"),
        edit("e1", f"{ROOT}/src/app.py", "m4"),
    )
    outcomes = sorted(e.outcome or "" for e in episodes(data))
    assert outcomes == ["proceeded", "recovered"]
    found = tallies(data)
    assert found["outcome_proceeded"] == 1
    assert "outcome_recovered" not in found


def test_metacog_off_counts_nothing() -> None:
    data = run(read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"), edit("e1", f"{ROOT}/src/app.py", "m2"))
    assert episodes(data, rules=SegmenterRules(metacog=False)) == []
    assert tallies(data, rules=SegmenterRules(metacog=False)) == {}


def test_rg_files_lists_paths_and_an_extension_alone_is_no_token() -> None:
    listing = shell_target("rg --files /home/dev/repo/.config/ghostty")
    assert (listing.content, listing.paths) == (False, ("~/repo/.config/ghostty",))
    survey = target_of(ToolCall(None, "m1", "t1", "Glob", {"pattern": "tools/**/*.tsx"}, None, None))
    assert survey.tokens == ()
    assert not same_target(survey, shell_target("cat src/app.tsx"))


def test_an_episode_saved_under_the_first_names_reads_back() -> None:
    """The first omkd with §8 saved an episode's ``why`` and ``end_reason`` under those names; a
    state saved then reads back into the fields they are now (``not_eligible_because``,
    ``window_ended_by``), and one saved by position is unchanged."""
    from omkd.engine.metacog.view import Episode, episode_of

    saved = {
        **dict.fromkeys(("acknowledged", "related", "rejected"), False),
        **{"anchor": "failed_search", "line": 4, "result_line": 5, "call_id": "t1", "tokens": ["spotter.css"]},
        **{"eligible": False, "why": "no path", "outcome": "dropped", "outcome_line": 9, "outcome_how": ""},
        **{"window_end": 9, "end_reason": "turn"},
    }
    episode = episode_of(saved)
    assert (episode.not_eligible_because, episode.window_ended_by, episode.tokens) == (
        "no path",
        "turn",
        ("spotter.css",),
    )
    assert episode_of(list(episode)) == episode
    assert Episode._fields[6] == "not_eligible_because"
