"""Spec §8.1.3, §8.4, §8.5 and M4 of §8.6 on hand-made transcripts, for clauses no other test pins.

Expected outcomes are worked out by hand from the spec's words and the records each test writes.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests import claude_lines as cl
from tests.agent_lines import Rollout
from tests.metacog_helpers import bash, edit, episodes, glob_miss, only, read_miss, run, tallies, write

pytestmark = pytest.mark.engine
ROOT = cl.CWD
CODEX = "rollout-2026-04-08T13-27-20-019d6d46.jsonl"


def _skill(call_id: str, name: str, message: str) -> list[dict[str, Any]]:
    return [
        cl.tool_use(call_id, "Skill", {"skill": name}, message),
        cl.tool_result(call_id, f"Launching skill: {name}", {"success": True, "commandName": name}),
    ]


# --- §8.1.3: every explicit marker is a hedge anchor weighing 0.5 ----------------------------------------


def test_each_explicit_marker_is_a_hedge_anchor_and_weighs_a_half() -> None:
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        cl.text("The port is 8080 [inferred].", "m2"),
        cl.text("The host is db.internal [inferred].", "m3"),
        edit("e1", f"{ROOT}/src/app.py", "m4"),
    )
    found = episodes(data)
    markers = [e for e in found if e.anchor == "explicit_marker"]
    assert [e.outcome for e in markers] == ["proceeded", "proceeded"]
    assert (only(found).outcome, only(found).acknowledged) == ("proceeded", True)
    figures = tallies(data)
    assert (figures["write_load_2_plus"], figures["unchecked_write_segments"]) == (1, 1)
    assert figures["episodes_hedging_proceeded"] == 2


# --- §8.4.3: the window ends at the end of the segment ---------------------------------------------------


def test_the_end_of_the_segment_ends_the_window() -> None:
    data = run(glob_miss("t1", "**/deploy.yaml", "m1"), _skill("s1", "deploy", "m2"), write("w1", f"{ROOT}/a.py", "m3"))
    episode = only(episodes(data))
    assert (episode.outcome, episode.window_ended_by) == ("dropped", "segment end")


@pytest.mark.parametrize(("frame", "ends"), [("/deploy", True), ("/cost", False)])
def test_a_command_frame_is_the_persons_turn_unless_built_in(frame: str, ends: bool) -> None:
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        cl.user(f"<command-name>{frame}</command-name>"),
        cl.tool_use("r2", "Read", {"file_path": f"{ROOT}/config/settings.yaml"}, "m2"),
        cl.tool_result("r2", "     1\tport: 1"),
    )
    episode = only(episodes(data))
    assert (episode.outcome == "dropped", episode.window_ended_by == "turn") == (ends, ends)


# --- §8.5.2: created, the ways not pinned elsewhere ------------------------------------------------------


def test_a_name_probe_is_created_by_a_path_holding_its_token() -> None:
    data = run(
        bash("b1", "ls -la | grep dialyzer", "", "m1"),
        write("w1", f"{ROOT}/.dialyzer_ignore.exs", "m2"),
    )
    assert only(episodes(data)).outcome == "created"


def test_a_write_inside_a_missed_directory_is_created() -> None:
    data = run(
        bash("b1", "ls -la db/migrations", "ls: cannot access 'db/migrations': No such file or directory", "m1"),
        write("w1", f"{ROOT}/db/migrations/001_init.sql", "m2"),
    )
    assert only(episodes(data)).outcome == "created"


def test_a_write_inside_a_content_searchs_directory_is_not_created() -> None:
    data = run(
        [
            cl.tool_use("g1", "Grep", {"pattern": "spotter_config", "path": "lib"}, "m1"),
            cl.tool_result("g1", "No matches found"),
        ],
        write("w1", f"{ROOT}/lib/other.ex", "m2"),
    )
    episode = only(episodes(data))
    assert (episode.outcome, episode.related) == ("proceeded", True)


@pytest.mark.parametrize(
    ("install", "outcome"),
    [
        ("npm install nodemailer twilio", "created"),  # the package the search looked for, installed
        ("npm install axios", "proceeded"),  # another package
    ],
)
def test_a_dependency_write_of_a_content_searchs_literal_is_created(install: str, outcome: str) -> None:
    """§8.5.2: a dependency write creates what the miss looked for when its package names it as a word;
    for a content search, what it looked for is its literals (``grep twilio package.json``), as the added
    text of an edit holding one is."""
    data = run(
        bash("b1", "grep -n 'twilio' package.json", "", "m1"),
        bash("b2", install, "added 12 packages", "m2"),
    )
    assert only(episodes(data)).outcome == outcome


def test_a_package_looked_for_as_a_whole_line_and_installed_is_created() -> None:
    """``brew list | rg '^X$'``: the anchors pin where the name stands in the listing; the literal is X."""
    data = run(
        bash("b1", "brew list --cask 2>/dev/null | rg '^font-maple-mono-nf-cn$'", "", "m1"),
        bash("b2", "brew install --cask font-maple-mono-nf-cn", "font-maple-mono-nf-cn was installed!", "m2"),
    )
    assert only(episodes(data)).outcome == "created"


# --- §8.5.3: question tools of Codex CLI; ExitPlanMode is no question ---------------------------------------


def test_codex_asked_by_request_user_input() -> None:
    rollout = Rollout()
    rollout.prompt("deploy it")
    rollout.exec("cat ops/deploy.toml", "cat: ops/deploy.toml: No such file or directory", code=1)
    call = rollout.call("request_user_input", {"questions": [{"question": "Where is the deploy config?"}]})
    rollout.output(call, "in infra/")
    assert only(episodes(rollout.data(), CODEX)).outcome == "asked"


def test_exit_plan_mode_is_not_a_question() -> None:
    data = run(
        glob_miss("t1", "**/deploy.yaml", "m1"),
        cl.tool_use("p1", "ExitPlanMode", {"plan": "write deploy.yaml"}, "m2"),
        cl.tool_result("p1", "User has approved your plan."),
    )
    assert only(episodes(data)).outcome == "dropped"


# --- §8.6 M4 (b): an anchor counts only once its result precedes the write's call ------------------------


def test_a_miss_whose_result_follows_the_write_call_adds_no_load() -> None:
    data = run(
        read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
        cl.tool_use("t2", "Glob", {"pattern": "**/deploy.yaml"}, "m2"),
        cl.tool_use("e1", "Edit", {"file_path": f"{ROOT}/src/app.py", "old_string": "a", "new_string": "b"}, "m2"),
        cl.tool_result("t2", "No files found", cl.GLOB_EMPTY),
        cl.tool_result("e1", "updated"),
    )
    figures = tallies(data)
    assert (figures["write_load_1"], figures.get("unchecked_write_segments")) == (1, None)


def test_a_hedge_anchor_of_four_hedges_trips_the_load() -> None:
    texts = [cl.text(f"Step {n} [unknown].", f"m{n}") for n in range(1, 5)]
    figures = tallies(run(*texts, edit("e1", f"{ROOT}/src/app.py", "m9")))
    assert (figures["write_load_2_plus"], figures["unchecked_write_segments"]) == (1, 1)
