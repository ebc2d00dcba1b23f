"""Skill segments the way Claude Code's own ``attributionSkill`` draws them: plugin skills called by
their bare name, stamps that lag behind a new skill, launches that fail, harness notices, built-ins
run through the Skill tool, warm-up and compaction agents. Hand-made transcripts, figures by hand."""

from __future__ import annotations

import pytest

from tests.transcript_builder import Transcript, health_of, report_of, segments_by_skill

pytestmark = pytest.mark.engine

PLUGIN_DIR = "/home/dev/.claude/plugins/cache/claude-plugins-official/superpowers/6.1.1/skills/brainstorming"


def plugin_skill(t: Transcript, bare: str = "brainstorming") -> str:
    """``Skill{"skill": "brainstorming"}`` whose body names the plugin's directory."""
    call = t.tool_use("Skill", {"skill": bare})
    t.tool_result(call, f"Launching skill: {bare}", detail={"success": True, "commandName": bare})
    t.meta(f"Base directory for this skill: {PLUGIN_DIR}\n\n# Brainstorming", source_tool_use_id=call)
    return call


def test_a_plugin_skill_called_by_its_bare_name_takes_its_qualified_name() -> None:
    """One invocation, one segment, labelled as Claude Code labels it: ``superpowers:brainstorming``."""
    t = Transcript()
    t.prompt("let's design the export")
    plugin_skill(t)
    t.say("What is the export for?", attribution="superpowers:brainstorming")
    t.say("And who reads it?", attribution="superpowers:brainstorming")
    assert segments_by_skill(report_of(t)) == {"superpowers:brainstorming": 1}


def test_a_later_qualified_attribution_opens_no_second_segment() -> None:
    """Without a plugin body, the first qualified ``attributionSkill`` names the bare-called skill."""
    t = Transcript()
    t.prompt("let's design the export")
    call = t.tool_use("Skill", {"skill": "brainstorming"})
    t.tool_result(call, "Launching skill: brainstorming", detail={"success": True, "commandName": "brainstorming"})
    t.say("What is the export for?", attribution="superpowers:brainstorming")
    t.say("And who reads it?", attribution="superpowers:brainstorming")
    assert segments_by_skill(report_of(t)) == {"superpowers:brainstorming": 1}


@pytest.mark.parametrize("again", ["Skill call", "command frame"])
def test_the_plugin_skill_called_again_by_its_bare_name_is_the_same_segment(again: str) -> None:
    """``brainstorming`` is ``superpowers:brainstorming``: calling it again while it runs yields the
    current skill's name, and the same name again opens no segment (§2, §2.1)."""
    t = Transcript()
    t.prompt("let's design the export")
    plugin_skill(t)
    t.say("What is the export for?", attribution="superpowers:brainstorming")
    if again == "Skill call":
        plugin_skill(t)
    else:
        t.command("brainstorming", frame="message-first")
        t.meta(f"Base directory for this skill: {PLUGIN_DIR}\n\n# Brainstorming")
    t.say("And who reads it?", attribution="superpowers:brainstorming")
    report = report_of(t)
    assert segments_by_skill(report) == {"superpowers:brainstorming": 1}
    calls = 2 if again == "Skill call" else 1
    assert (
        health_of(report, "superpowers:brainstorming").tools.calls,
        health_of(report, "superpowers:brainstorming").turns,
    ) == (calls, calls + 2)


def test_the_old_skill_stamped_on_the_new_skills_message_does_not_switch_back() -> None:
    """Claude Code stamps records of the message holding ``Skill(B)`` with A: no A, B, A, B flip-flop."""
    t = Transcript()
    t.prompt("review then deploy")
    t.skill("review-code")
    t.say("Reviewed.", attribution="review-code")
    call = t.tool_use("Skill", {"skill": "deploy"}, message_id="msg_01M", attribution="review-code")
    t.say("Deploying now.", message_id="msg_01M", attribution="review-code")
    t.tool_result(call, "Launching skill: deploy", detail={"success": True, "commandName": "deploy"})
    t.say("Step one.", attribution="deploy")
    report = report_of(t)
    assert segments_by_skill(report) == {"review-code": 1, "deploy": 1}
    # deploy: the Skill call, the text of its message, "Step one.": 3 assistant parts in 2 messages.
    assert health_of(report, "deploy").turns == 2


def test_the_old_skill_stamped_before_the_new_skills_result_does_not_switch_back() -> None:
    """A record of another message written before ``Skill(B)``'s result still carries A: no switch
    back; once the result is in, an A stamp is a switch like any other (§2, segment starts)."""
    t = Transcript()
    t.prompt("review then deploy")
    t.skill("review-code")
    t.say("Reviewed.", attribution="review-code")
    call = t.tool_use("Skill", {"skill": "deploy"}, message_id="msg_01M", attribution="review-code")
    t.say("Meanwhile.", message_id="msg_01N", attribution="review-code")
    t.tool_result(call, "Launching skill: deploy", detail={"success": True, "commandName": "deploy"})
    t.say("Step one.", attribution="deploy")
    t.say("Back to the review.", attribution="review-code")
    report = report_of(t)
    assert segments_by_skill(report) == {"review-code": 2, "deploy": 1}
    # deploy: the Skill call's message, "Meanwhile." and "Step one.": 3 messages.
    assert health_of(report, "deploy").turns == 3


def test_a_skill_call_that_fails_to_launch_opens_no_segment() -> None:
    """``Unknown skill``: the work stays in the segment that was current."""
    t = Transcript()
    t.prompt("plan the work")
    t.skill("planning")
    t.say("Planning.")
    call = t.tool_use("Skill", {"skill": "planning-with-files"})
    t.tool_result(call, "<tool_use_error>Unknown skill: planning-with-files</tool_use_error>", is_error=True)
    t.say("That skill is not installed; planning by hand.")
    report = report_of(t)
    assert segments_by_skill(report) == {"planning": 1}
    planning = health_of(report, "planning")
    # the Skill call, the failed one, and the three texts; the failed call is a tool failure of planning.
    assert (planning.tools.calls, planning.tools.failures, planning.turns) == (2, 1, 4)


def test_a_command_answered_only_by_stderr_opens_no_segment() -> None:
    """``/deploy`` that printed only ``<local-command-stderr>`` did not run."""
    t = Transcript()
    t.prompt("ship it")
    t.say("Which environment?")
    t.command("deploy", frame="message-first")
    t.user("<local-command-stderr>Error: unknown command deploy</local-command-stderr>")
    t.say("The command failed; doing it by hand.")
    assert segments_by_skill(report_of(t)) == {"general": 1}


def test_harness_notices_do_not_end_a_skill() -> None:
    """A background task ending (``<task-notification>``) or a system reminder is not the person typing."""
    t = Transcript()
    t.prompt("run the migration")
    t.skill("db-migrate")
    t.say("Started the migration in the background.")
    t.user("<task-notification><task-id>b1</task-id><status>completed</status></task-notification>")
    t.say("The migration finished.")
    t.user("<system-reminder>The TodoWrite tool hasn't been used recently.</system-reminder>")
    t.say("Checking the tables.")
    report = report_of(t)
    assert segments_by_skill(report) == {"db-migrate": 1}
    assert health_of(report, "db-migrate").turns == 4  # the Skill call and three texts


def test_a_built_in_run_through_the_skill_tool_is_general() -> None:
    """``Skill{"skill":"init"}`` runs Claude Code's own prompt: its knowledge is Claude Code's."""
    t = Transcript()
    t.prompt("set the project up")
    t.skill("init")
    t.say("Analysing the codebase.", attribution="init")
    assert segments_by_skill(report_of(t)) == {"general": 1}


def test_warmup_and_compaction_agents_yield_no_segments() -> None:
    """A 2.0.x Warmup agent and a compaction worker (``agent-acompact-*``) are no one's work."""
    warmup = Transcript(sidechain=True, agent_id="a1b2c3d4")
    warmup.user("Warmup", parentUuid=None)
    warmup.say("I'm ready to help.")
    compact = Transcript(sidechain=True, agent_id="acompact-e1f845")
    compact.user("Your task is to create a detailed summary of the conversation so far.", parentUuid=None)
    compact.say("<summary>The person asked for …</summary>")
    report = report_of(warmup, compact, names=["agent-a1b2c3d4.jsonl", "agent-acompact-e1f845.jsonl"])
    assert (segments_by_skill(report), report.overall.segments) == ({}, 0)
