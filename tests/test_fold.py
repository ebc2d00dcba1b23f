"""Folding segments into SkillHealth (README, "How omkd computes"): rates, tiers, bands, tools, tokens, time."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tests.transcript_builder import (
    REJECTED,
    Transcript,
    health_of,
    report_of,
    segments_by_skill,
    signal_counts,
)

pytestmark = pytest.mark.engine


def add_segments(t: Transcript, skill: str, kinds: Sequence[str]) -> None:
    """One skill segment per kind, each opened by a typed prompt and a Skill call.

    ``clean``: no signal; ``hard``: one failed Glob (weight 1.0); ``soft``: one hedge (0.5);
    ``marker``: one explicit marker (0.5); ``hard+soft``: both (segment weight 1.0).
    The prompt-only general segments in between are empty and dropped.
    """
    for n, kind in enumerate(kinds):
        t.prompt(f"task {n}")
        t.skill(skill)
        if "hard" in kind:
            t.glob_miss(f"docs/**/topic{n}.md")
        if "soft" in kind:
            t.say("Presumably this is the right place.")
        elif kind == "marker":
            t.say("The timeout is 30s [inferred].")
        else:
            t.say("Done.")


# --- gap rates ---------------------------------------------------------------------------------


def test_gap_rate_weighted_rate_soft_share_and_by_type() -> None:
    """gap_rate counts segments with a signal; weighted_gap_rate sums max weights; soft_share is the gap."""
    t = Transcript()
    add_segments(t, "okki", ["hard", "soft", "hard+soft", "marker", "clean"])
    okki = health_of(report_of(t), "okki")
    assert okki.segments == 5
    assert okki.gap_segments == 4
    assert okki.gap_rate == 4 / 5
    assert okki.weighted_gap_rate == pytest.approx((1.0 + 0.5 + 1.0 + 0.5 + 0.0) / 5)
    assert okki.soft_share == pytest.approx(4 / 5 - 3 / 5)
    assert okki.soft_share_warning is True
    assert signal_counts(okki) == {"failed_search": 2, "hedging": 2, "explicit_marker": 1}
    assert okki.by_type["repeated_failure"] == 0


def test_segment_weight_is_the_max_of_its_signals() -> None:
    """Two failed searches, a hedge and a marker in one segment weigh 1.0, not their sum."""
    t = Transcript()
    t.prompt("task 0")
    t.skill("okki")
    t.glob_miss("docs/**/a.md")
    t.grep_miss("retry_policy")
    t.say("The retry limit is presumably set in CI [inferred].")
    add_segments(t, "okki", ["clean"] * 4)
    okki = health_of(report_of(t), "okki")
    assert okki.segments == 5
    assert okki.gap_rate == 1 / 5
    assert okki.weighted_gap_rate == pytest.approx(1 / 5)
    assert okki.soft_share == pytest.approx(0.0)
    assert okki.soft_share_warning is False
    assert signal_counts(okki) == {"failed_search": 2, "hedging": 1, "explicit_marker": 1}


@pytest.mark.parametrize(
    ("kinds", "gap_rate", "weighted", "soft_share", "warning"),
    [
        (["soft"] * 2 + ["clean"] * 8, 2 / 10, 1 / 10, 1 / 10, True),
        (["soft"] + ["clean"] * 9, 1 / 10, 0.5 / 10, 0.5 / 10, False),
        (["marker"] * 3 + ["hard"] + ["clean"] * 6, 4 / 10, 2.5 / 10, 1.5 / 10, True),
        (["hard"] * 3 + ["clean"] * 7, 3 / 10, 3 / 10, 0.0, False),
    ],
    ids=["soft share 0.10", "soft share 0.05", "soft share 0.15", "hard only"],
)
def test_soft_share_warning_from_ten_percent(
    kinds: list[str], gap_rate: float, weighted: float, soft_share: float, warning: bool
) -> None:
    """soft_share >= 0.10 means weak signals carry the rate: the warning is raised."""
    t = Transcript()
    add_segments(t, "okki", kinds)
    okki = health_of(report_of(t), "okki")
    assert okki.gap_rate == pytest.approx(gap_rate)
    assert okki.weighted_gap_rate == pytest.approx(weighted)
    assert okki.soft_share == pytest.approx(soft_share)
    assert okki.soft_share_warning is warning


# --- confidence and health -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("segments", "tier"),
    [(1, "underpowered"), (4, "underpowered"), (5, "low"), (19, "low"), (20, "high"), (21, "high")],
)
def test_confidence_tiers(segments: int, tier: str) -> None:
    """underpowered below 5 segments, low below 20, high from 20."""
    t = Transcript()
    add_segments(t, "okki", ["clean"] * segments)
    report = report_of(t)
    okki = health_of(report, "okki")
    assert okki.segments == segments
    assert okki.confidence == tier
    assert okki.health_indicative is (tier == "underpowered")
    assert report.overall.confidence == tier


@pytest.mark.parametrize(
    ("kinds", "weighted", "band"),
    [
        (["clean"] * 20, 0 / 20, "green"),
        (["hard"] + ["clean"] * 19, 1 / 20, "green"),
        (["hard"] + ["soft"] * 2 + ["clean"] * 17, 2 / 20, "yellow"),
        (["hard"] * 2 + ["clean"] * 18, 2 / 20, "yellow"),
        (["hard"] * 5 + ["soft"] + ["clean"] * 14, 5.5 / 20, "yellow"),
        (["hard"] * 5 + ["soft"] * 2 + ["clean"] * 13, 6 / 20, "red"),
        (["hard"] * 6 + ["clean"] * 14, 6 / 20, "red"),
        (["soft"] * 6 + ["clean"] * 14, 3 / 20, "yellow"),  # gap_rate 0.30, but the band reads the weighted rate
    ],
    ids=["0.00", "0.05", "0.10 mixed", "0.10 hard", "0.275", "0.30 mixed", "0.30 hard", "soft only"],
)
def test_health_bands_on_the_weighted_rate(kinds: list[str], weighted: float, band: str) -> None:
    """red from 0.30, yellow from 0.10, green below, all on weighted_gap_rate."""
    t = Transcript()
    add_segments(t, "okki", kinds)
    okki = health_of(report_of(t), "okki")
    assert okki.confidence == "high"
    assert okki.weighted_gap_rate == pytest.approx(weighted)
    assert okki.health == band
    assert okki.health_indicative is False


def test_underpowered_health_is_indicative_only() -> None:
    """With fewer than 5 segments the health colour is only indicative."""
    t = Transcript()
    add_segments(t, "okki", ["hard"] * 4)
    okki = health_of(report_of(t), "okki")
    assert (okki.confidence, okki.weighted_gap_rate, okki.health_indicative) == ("underpowered", 1.0, True)


# --- tools -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ok", "failed", "cancelled", "failure_rate", "stability"),
    [
        (0, 0, 0, None, "unknown"),
        (0, 0, 2, None, "unknown"),
        (9, 1, 0, 1 / 10, "stable"),
        (5, 1, 4, 1 / 6, "stable"),
        (4, 1, 0, 1 / 5, "unstable"),
        (3, 2, 0, 2 / 5, "very-unstable"),
        (2, 2, 0, 2 / 4, "unstable"),
        (0, 3, 0, 3 / 3, "unstable"),
        (3, 2, 3, 2 / 5, "very-unstable"),
        (6, 4, 0, 4 / 10, "very-unstable"),
    ],
    ids=[
        "no calls",
        "only cancelled",
        "0.10",
        "cancelled excluded",
        "0.20",
        "0.40 over 5",
        "0.50 over 4",
        "1.00 over 3",
        "0.40 over 5 plus cancelled",
        "0.40 over 10",
    ],
)
def test_tool_failure_rate_and_stability(
    ok: int, failed: int, cancelled: int, failure_rate: float | None, stability: str
) -> None:
    """Failures over answered non-cancelled calls; unstable from 0.20, very-unstable from 0.40 with >= 5 calls."""
    t = Transcript()
    t.prompt("run the checks")
    t.command("ops-check", frame="message-first")
    t.say("Running the checks.")
    for _ in range(ok):
        t.bash("pytest -q", "5 passed in 0.20s")
    for _ in range(failed):
        t.bash_error("pytest -q", "1 failed, 4 passed in 0.31s")
    for _ in range(cancelled):
        t.call("Bash", {"command": "rm -rf build"}, REJECTED, is_error=True, detail="User rejected tool use")
    tools = health_of(report_of(t), "ops-check").tools
    assert (tools.calls, tools.answered) == (ok + failed + cancelled, ok + failed + cancelled)
    assert (tools.failures, tools.cancelled) == (failed, cancelled)
    assert tools.failure_rate == failure_rate
    assert tools.stability == stability


# --- tokens, turns, duration -------------------------------------------------------------------


def test_tokens_are_counted_once_per_message_id() -> None:
    """One API response split into several records repeats its usage; it is counted once, as one turn."""
    first = {
        "input_tokens": 12,
        "output_tokens": 340,
        "cache_read_input_tokens": 2000,
        "cache_creation_input_tokens": 150,
    }
    second = {"input_tokens": 4, "output_tokens": 60, "cache_read_input_tokens": 2300, "cache_creation_input_tokens": 0}
    t = Transcript()
    t.prompt("where is the retry config?")
    t.think("Let me look for it.", message_id="msg_01A", usage=first)
    t.say("Searching.", message_id="msg_01A", usage=first)
    call = t.tool_use("Glob", {"pattern": "**/retry*.yaml"}, message_id="msg_01A", usage=first)
    t.tool_result(call, "No files found", detail={"filenames": [], "durationMs": 5, "numFiles": 0, "truncated": False})
    t.say("There is no retry config.", message_id="msg_01B", usage=second)
    general = health_of(report_of(t), "general")
    assert general.turns == 2
    tokens = general.tokens
    assert (tokens.input, tokens.output, tokens.cache_read, tokens.cache_creation) == (16, 400, 4300, 150)


def test_duration_and_turns_per_skill_and_overall() -> None:
    """Duration is first to last record of each segment, summed; a turn is one assistant message."""
    t = Transcript()
    t.prompt("draft the reply", at=0)
    skill = t.tool_use("Skill", {"skill": "okki"}, at=10)
    t.tool_result(skill, "Launching skill: okki", detail={"success": True, "commandName": "okki"}, at=12)
    t.meta("Base directory for this skill: /home/dev/shop/.claude/skills/okki\n\n# OKKI", at=12)
    t.say("Reading the thread.", at=20)
    glob = t.tool_use("Glob", {"pattern": "mail/**/*.eml"}, at=25)
    t.tool_result(glob, "No files found", detail={"filenames": [], "durationMs": 5, "numFiles": 0}, at=26)
    t.say("Here is the draft.", at=40)
    t.prompt("what does the supplier contract say?", at=100)
    t.say("It allows two weeks of delay.", at=130)
    t.command("okki", frame="message-first", at=200)
    t.say("Second draft.", at=205)
    t.say("Second draft, shorter.", at=260)
    report = report_of(t)
    assert segments_by_skill(report) == {"okki": 2, "general": 1}
    okki, general = health_of(report, "okki"), health_of(report, "general")
    assert okki.duration_seconds == (40 - 10) + (260 - 200)
    assert general.duration_seconds == 130 - 100
    assert report.overall.duration_seconds == 30 + 60 + 30
    assert (okki.turns, general.turns, report.overall.turns) == (4 + 2, 1, 7)


# --- overall ---------------------------------------------------------------------------------


def test_overall_includes_general_with_its_own_tier() -> None:
    """Overall folds every segment of every skill, general included, and has its own confidence."""
    t = Transcript()
    t.prompt("look around")
    t.say("Let me look.")  # general 1: clean
    t.skill("okki")
    t.glob_miss("mail/**/*.eml")  # okki 1: hard
    t.prompt("is the config right?")
    t.say("Presumably it is.")  # general 2: soft
    t.skill("okki")
    t.say("Done.")  # okki 2: clean
    t.prompt("again")
    t.skill("okki")
    t.say("Done.")  # okki 3: clean
    report = report_of(t)
    assert segments_by_skill(report) == {"okki": 3, "general": 2}
    okki, general, overall = health_of(report, "okki"), health_of(report, "general"), report.overall
    assert (okki.gap_rate, okki.confidence) == (1 / 3, "underpowered")
    assert okki.weighted_gap_rate == pytest.approx(1 / 3)
    assert (general.gap_rate, general.weighted_gap_rate, general.confidence) == (1 / 2, 0.5 / 2, "underpowered")
    assert overall.segments == 5
    assert overall.gap_segments == 2
    assert overall.gap_rate == 2 / 5
    assert overall.weighted_gap_rate == pytest.approx(1.5 / 5)
    assert overall.soft_share == pytest.approx(2 / 5 - 1.5 / 5)
    assert overall.soft_share_warning is True
    assert overall.confidence == "low"
    assert overall.health == "red"
    assert overall.health_indicative is False
    assert signal_counts(overall) == {"failed_search": 1, "hedging": 1}


def test_overall_spans_streams_and_sessions() -> None:
    """Several streams fold together; a sub-agent stream carries its parent's session."""
    main_a = Transcript(session_id="aaaaaaaa-0000-4000-8000-000000000001")
    add_segments(main_a, "okki", ["hard", "clean"])
    agent_a = Transcript(session_id="aaaaaaaa-0000-4000-8000-000000000001", sidechain=True, agent_id="a77")
    agent_a.user("Find the supplier contract")
    agent_a.glob_miss("contracts/**/*.pdf")
    main_b = Transcript(session_id="bbbbbbbb-0000-4000-8000-000000000002")
    add_segments(main_b, "okki", ["soft"])
    report = report_of(
        main_a,
        agent_a,
        main_b,
        names=[f"{main_a.session_id}.jsonl", "agent-a77.jsonl", f"{main_b.session_id}.jsonl"],
    )
    assert segments_by_skill(report) == {"okki": 3, "general": 1}
    assert report.overall.segments == 4
    assert report.overall.sessions == 2
    assert report.watermark.sessions == 2
    assert report.watermark.segments == 4
    assert report.overall.gap_rate == 3 / 4
    assert report.overall.weighted_gap_rate == pytest.approx(2.5 / 4)
    assert health_of(report, "okki").sessions == 2
