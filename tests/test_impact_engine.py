"""Knowledge changes and their effect (spec §9), the pure core: hand-made transcripts, edits and
places given by hand, figures and exact bounds written here.

Every bound below is a difference of one-sided Clopper-Pearson bounds at 1 - 0.05/4 = 98.75 %
(the two-sided 95 % rise interval of spec §7), computed outside omkd by bisection on the exact
binomial tail ``sum(comb(n, i) p^i (1-p)^(n-i))``: for 16/20 before and 1/20 after, the after
side's lower bound 0.000629 minus the before side's upper 0.953441 gives -0.952813, its upper
0.279322 minus the before side's lower 0.531390 gives -0.252067.
"""

from __future__ import annotations

from typing import Final

import pytest

from omkd.engine.fold import Fold
from omkd.engine.impact.build import impact_report
from omkd.engine.impact.changes import Edit, Place, changes_of
from omkd.engine.impact.query import ImpactQuery
from omkd.engine.impact.schema import STATEMENT, ImpactResult
from omkd.engine.summary import SegmentSummary
from tests.transcript_builder import Transcript, health_of, process, report_of

pytestmark = pytest.mark.engine

DAY: Final = 86_400.0
START: Final = 1_770_904_800.0
"""The builder's START (2026-02-12 14:00 UTC) as a timestamp."""
SHOP: Final = "/p/shop"
BLOG: Final = "/p/blog"
DEPLOY_SKILL: Final = f"{SHOP}/.claude/skills/deploy/SKILL.md"
CHANGE_DAY: Final = 20
PORT: Final = "docs/deploy-port.md"


def _segments(t: Transcript, skill: str | None, plan: str, day: float, pattern: str = PORT) -> None:
    """One segment per letter of ``plan`` on ``day`` (days after START), an hour apart:
    ``m`` a Glob miss of ``pattern`` (weight 1), ``o`` a Glob miss of a pattern of its own, ``c`` clean."""
    for n, kind in enumerate(plan):
        t.prompt(f"task {n}", at=day * DAY + n * 3600.0)
        if skill is not None:
            t.skill(skill)
        if kind == "m":
            t.glob_miss(pattern)
        elif kind == "o":
            t.glob_miss(f"docs/other-{day}-{n}.md")
        else:
            t.glob_hit("src/**/*.py")


def _held(*transcripts: Transcript) -> list[SegmentSummary]:
    fold = Fold()
    for position, t in enumerate(transcripts):
        fold.add_stream(process(t, f"s{position}.jsonl"))
    fold.finish()
    return list(fold.in_window())


def _edit(day: float, files: tuple[str, ...] = (DEPLOY_SKILL,), commit: str = "abc1234") -> Edit:
    return Edit(START + day * DAY, commit, "deploy: document the port", files)


PLACES: Final = {DEPLOY_SKILL: Place("deploy", SHOP)}


def _one(results: list[ImpactResult], skill: str = "deploy") -> ImpactResult:
    found = [r for r in results if r.skill == skill]
    assert len(found) == 1, found
    return found[0]


def _before_after(before: str, after: str, model_after: str | None = None) -> list[ImpactResult]:
    t = Transcript(cwd=SHOP)
    _segments(t, "deploy", before, CHANGE_DAY - 2)
    if model_after is not None:
        t.model = model_after
    _segments(t, "deploy", after, CHANGE_DAY + 1)
    return impact_report(_held(t), [_edit(CHANGE_DAY)], PLACES).results


def test_sixteen_of_twenty_gapped_before_and_one_after_is_improved_with_exact_bounds() -> None:
    result = _one(_before_after("m" * 16 + "c" * 4, "o" + "c" * 19))
    assert (result.before.segments, result.before.gap_segments, result.after.segments, result.after.gap_segments) == (
        20, 16, 20, 1,
    )  # fmt: skip
    assert result.change.at == "2026-03-04T14:00:00.000Z"
    assert result.before.start == "2026-02-18T14:00:00.000Z"  # 14 days before
    assert result.after.end == "2026-03-18T14:00:00.000Z"
    for verdict in result.verdicts:  # every miss weighs 1: both figures alike
        assert (verdict.before, verdict.after, verdict.verdict) == (0.8, 0.05, "improved")
        assert verdict.interval == pytest.approx([-0.9528125649081112, -0.2520672923449951], abs=1e-9)
    assert result.statement == STATEMENT
    assert not result.model_mix.changed
    assert result.before.by_model == {"claude-opus-4-6": 20}


def test_three_of_eight_then_two_of_eight_is_no_evidence() -> None:
    """The point estimate falls from 37.5 % to 25 %; the interval holds 0, so no verdict is drawn from it."""
    result = _one(_before_after("mmm" + "c" * 5, "oo" + "c" * 6))
    assert [(v.figure, v.verdict) for v in result.verdicts] == [
        ("gap_rate", "no evidence"), ("weighted_gap_rate", "no evidence"),
    ]  # fmt: skip
    assert result.verdicts[0].interval == pytest.approx([-0.769393349900545, 0.628224553483649], abs=1e-9)


def test_four_segments_before_is_underpowered_whatever_the_rates() -> None:
    result = _one(_before_after("mmmc", "c" * 20))
    assert [v.verdict for v in result.verdicts] == ["underpowered", "underpowered"]
    assert result.verdicts[0].interval == pytest.approx([-0.9968602438243735, 0.04452966493653754], abs=1e-9)


def _general(cwd: str, day: float, count: int) -> list[Transcript]:
    """``count`` sessions of work outside any skill (a ``general`` segment each), an hour apart."""
    sessions = []
    for n in range(count):
        t = Transcript(cwd=cwd, session_id=f"general-{cwd}-{day}-{n}")
        t.prompt("look around", at=day * DAY + n * 3600.0)
        t.glob_hit("src/**/*.py")
        sessions.append(t)
    return sessions


def test_an_instruction_file_affects_every_skill_of_its_project_and_none_of_another() -> None:
    shop, blog = Transcript(cwd=SHOP, session_id="shop"), Transcript(cwd=BLOG, session_id="blog")
    for t in (shop, blog):
        _segments(t, "deploy", "mmcccc", CHANGE_DAY - 3)
        _segments(t, "deploy", "cccccc", CHANGE_DAY + 2)
    _segments(blog, "review", "ccccc", CHANGE_DAY + 4)  # the review skill ran only in the blog
    general = [*_general(SHOP, CHANGE_DAY - 1, 4), *_general(SHOP, CHANGE_DAY + 3, 5), *_general(BLOG, CHANGE_DAY, 3)]
    claude = f"{SHOP}/CLAUDE.md"
    places = {claude: Place(None, SHOP), f"{BLOG}/.claude/skills/deploy/SKILL.md": Place("deploy", BLOG)}
    results = impact_report(_held(shop, blog, *general), [_edit(CHANGE_DAY, (claude,))], places).results
    assert sorted((r.skill, r.change.projects, r.before.segments, r.after.segments) for r in results) == [
        ("deploy", [SHOP], 6, 6),  # the blog's deploy segments are not counted
        ("general", [SHOP], 4, 5),  # nor the blog's general ones; review never ran in the shop
    ]
    assert _one(results).before.gap_segments == 2


def test_two_changes_five_days_apart_cut_each_other_s_spans() -> None:
    t = Transcript(cwd=SHOP)
    _segments(t, "deploy", "mmmmmc", CHANGE_DAY - 10)
    _segments(t, "deploy", "mmcccc", CHANGE_DAY + 2)
    _segments(t, "deploy", "cccccc", CHANGE_DAY + 7)
    edits = [_edit(CHANGE_DAY, commit="aaa1111"), _edit(CHANGE_DAY + 5, commit="bbb2222")]
    first, second = impact_report(_held(t), edits, PLACES).results
    assert (first.change.commits, first.before.segments, first.after.segments) == (["aaa1111"], 6, 6)
    assert first.after.end == "2026-03-09T14:00:00.000Z"  # cut at the second change, not 14 days on
    assert (second.change.commits, second.before.segments, second.after.segments) == (["bbb2222"], 6, 6)
    assert second.before.start == "2026-03-04T14:00:00.000Z"  # cut at the first change
    assert (second.before.gap_segments, second.after.gap_segments) == (2, 0)


def test_a_model_switch_at_the_change_is_said_and_the_comparison_repeated_over_the_common_model() -> None:
    """Before: 20 segments by opus-4-5, 16 gapped. After: 5 by opus-4-5 (1 gapped), 15 by opus-4-6
    (clean). Over both models the fall is `improved`; over opus-4-5 alone (16/20 then 1/5) the
    interval [-0.950929, 0.233019] holds 0: the model, not the edit, may have done it."""
    t = Transcript(cwd=SHOP, model="claude-opus-4-5")
    _segments(t, "deploy", "m" * 16 + "c" * 4, CHANGE_DAY - 2)
    _segments(t, "deploy", "occcc", CHANGE_DAY + 1)
    t.model = "claude-opus-4-6"
    _segments(t, "deploy", "c" * 15, CHANGE_DAY + 2)
    result = _one(impact_report(_held(t), [_edit(CHANGE_DAY)], PLACES).results)
    assert result.verdicts[0].verdict == "improved"
    mix = result.model_mix
    assert (mix.changed, mix.dominant, mix.share_before, mix.share_after, mix.common) == (
        True, "claude-opus-4-5", 1.0, 0.25, ["claude-opus-4-5"],
    )  # fmt: skip
    assert (mix.before_segments, mix.after_segments) == (20, 5)
    assert [v.verdict for v in mix.verdicts] == ["no evidence", "no evidence"]
    assert mix.verdicts[0].interval == pytest.approx([-0.9509287116995255, 0.2330189085367821], abs=1e-9)
    assert result.after.by_model == {"claude-opus-4-5": 5, "claude-opus-4-6": 15}


def test_a_pattern_seen_sixteen_times_before_and_never_after_is_not_seen_since() -> None:
    result = _one(_before_after("m" * 16 + "c" * 4, "o" + "c" * 19))
    (fate,) = result.gaps
    assert (fate.pattern, fate.before_count, fate.status, fate.after_count, fate.needed) == (
        PORT, 16, "not seen since", 0, 16,
    )  # fmt: skip
    assert (fate.before_last_seen or "").startswith("2026-03-03T05:00")
    assert [(p.pattern, p.count) for p in result.new_patterns] == [(f"docs/other-{CHANGE_DAY + 1}-0.md", 1)]


def test_a_pattern_in_the_last_of_few_segments_is_too_early_to_tell_and_one_seen_again_recurs() -> None:
    """Before: 6 segments, the port pattern in the 6th (6 after-segments needed); after: 3."""
    result = _one(_before_after("cccccm", "ccc"))
    assert [(f.status, f.needed) for f in result.gaps] == [("too early to tell", 6)]
    again = _one(_before_after("mcccc", "ccmcc"))
    (fate,) = again.gaps
    assert (fate.status, fate.after_count) == ("recurring", 1)
    assert (fate.after_last_seen or "").startswith("2026-03-05T16:")


def test_edits_within_an_hour_are_one_change_dated_at_the_last() -> None:
    edits = [_edit(0), Edit(START + 1800, "bbb2222", "fix typo", (DEPLOY_SKILL,)), _edit(2 / 24, commit="ccc3333")]
    changes = changes_of("deploy", edits, PLACES)
    assert [(c.first - START, c.at - START, c.commits) for c in changes] == [
        (0, 1800, ("abc1234", "bbb2222")), (7200, 7200, ("ccc3333",)),
    ]  # fmt: skip
    assert changes_of("review", edits, PLACES) == []  # another skill's folder
    assert changes_of("impeccable:deploy", edits, PLACES)[0].commits == ("abc1234", "bbb2222")


def test_changes_before_since_and_changes_without_segments_are_left_out() -> None:
    t = Transcript(cwd=SHOP)
    _segments(t, "deploy", "mmmmm", CHANGE_DAY - 2)
    _segments(t, "deploy", "ccccc", CHANGE_DAY + 1)
    edits = [_edit(CHANGE_DAY), _edit(CHANGE_DAY - 100, commit="old0000")]
    assert [r.change.commits for r in impact_report(_held(t), edits, PLACES).results] == [["abc1234"]]
    later = ImpactQuery(since=START + (CHANGE_DAY + 1) * DAY)
    assert impact_report(_held(t), edits, PLACES, later).results == []


def test_the_model_of_each_segment_is_kept_and_broken_down_per_skill() -> None:
    t = Transcript(model="claude-sonnet-4-5")
    _segments(t, "deploy", "cc", 0)
    t.model = "claude-opus-4-6"
    _segments(t, "deploy", "c", 1)
    report = report_of(t)
    assert health_of(report, "deploy").by_model == {"claude-opus-4-6": 1, "claude-sonnet-4-5": 2}
    assert report.overall.by_model == {"claude-opus-4-6": 1, "claude-sonnet-4-5": 2}


def test_the_window_note_is_said_only_when_a_before_side_reaches_before_the_segments_held() -> None:
    """``window_note``: none when the segments held have no start (``omkd impact``), none when
    every before side starts at or after it (the second change's is cut at the first change), and
    the start named when a span reaches before it (a daemon's window)."""
    t = Transcript(cwd=SHOP)
    _segments(t, "deploy", "mmmmmc", CHANGE_DAY - 10)
    _segments(t, "deploy", "mmcccc", CHANGE_DAY + 2)
    _segments(t, "deploy", "cccccc", CHANGE_DAY + 7)
    edits = [_edit(CHANGE_DAY, commit="aaa1111"), _edit(CHANGE_DAY + 5, commit="bbb2222")]
    held = _held(t)
    assert impact_report(held, edits, PLACES).window_note is None
    first_start = START + (CHANGE_DAY - 14) * DAY  # the first change's before side: 14 days back
    assert impact_report(held, edits, PLACES, held_since=first_start).window_note is None
    later = first_start + 2 * DAY
    assert impact_report(held, edits, PLACES, held_since=later).window_note == (
        "The daemon holds segments since 2026-02-20T14:00:00.000Z (its window): a span reaching before it is cut there."
    )
    second_only = ImpactQuery(since=START + (CHANGE_DAY + 1) * DAY)
    assert impact_report(held, edits, PLACES, second_only, held_since=later).window_note is None
    none_left = ImpactQuery(since=START + (CHANGE_DAY + 30) * DAY)
    report = impact_report(held, edits, PLACES, none_left, held_since=later)
    assert (report.results, report.window_note) == ([], None)


def test_a_dominant_model_share_moving_by_exactly_twenty_points_is_not_a_model_change() -> None:
    """Before: 7 of 10 segments by opus-4-5; after: 9 of 10 (opus-4-5 wrote 16 of the 20). 70 % to
    90 % is a move of 20 points, not more than 20 (spec §9.5): no ``model changed``, whatever
    binary floating point makes of 0.9 - 0.7. 6 of 10 then 9 of 10 (30 points) is one."""
    for before_share, changed in ((7, False), (6, True)):
        t = Transcript(cwd=SHOP, model="claude-opus-4-5")
        _segments(t, "deploy", "c" * before_share, CHANGE_DAY - 2)
        t.model = "claude-opus-4-6"
        _segments(t, "deploy", "c" * (10 - before_share), CHANGE_DAY - 1)
        t.model = "claude-opus-4-5"
        _segments(t, "deploy", "c" * 9, CHANGE_DAY + 1)
        t.model = "claude-opus-4-6"
        _segments(t, "deploy", "c", CHANGE_DAY + 2)
        mix = _one(impact_report(_held(t), [_edit(CHANGE_DAY)], PLACES).results).model_mix
        assert (mix.dominant, mix.share_before, mix.share_after) == ("claude-opus-4-5", before_share / 10, 0.9)
        assert mix.changed is changed, before_share


def test_one_of_twenty_gapped_before_and_sixteen_after_is_worsened_with_exact_bounds() -> None:
    """The mirror of the first case: the rise's interval [0.252067, 0.952813] lies above 0 (the
    bounds computed outside omkd as in the module docstring)."""
    result = _one(_before_after("o" + "c" * 19, "m" * 16 + "c" * 4))
    for verdict in result.verdicts:
        assert (verdict.before, verdict.after, verdict.verdict) == (0.05, 0.8, "worsened")
        assert verdict.interval == pytest.approx([0.2520672923449951, 0.9528125649081112], abs=1e-9)


def _starting_at(t: Transcript, moment: float, kind: str = "c") -> None:
    """One deploy segment whose first record (the Skill call) is at ``moment`` (seconds after START)."""
    t.prompt("task", at=moment - 1.0)
    t.skill("deploy")  # one second after the prompt: the segment's start
    if kind == "m":
        t.glob_miss(PORT)
    else:
        t.glob_hit("src/**/*.py")


def test_the_sides_are_half_open_at_the_span_the_change_and_the_neighbouring_change() -> None:
    """Spec §9.3: ``[t - span, t)`` and ``[t, t + span)``, each cut at the neighbouring change. A
    segment starting at t - span is before, one starting at t after, one at t + span (or at the
    next change, 5 days on) in neither; a second earlier is inside."""
    change, span, second = CHANGE_DAY * DAY, 14 * DAY, (CHANGE_DAY + 5) * DAY
    t = Transcript(cwd=SHOP)
    for moment in (change - span - 1, change - span, change - 1, change, change + span - 1, change + span):
        _starting_at(t, moment)
    alone = _one(impact_report(_held(t), [_edit(CHANGE_DAY)], PLACES).results)
    assert (alone.before.segments, alone.after.segments) == (2, 2)
    assert (alone.before.start, alone.after.end) == ("2026-02-18T14:00:00.000Z", "2026-03-18T14:00:00.000Z")
    u = Transcript(cwd=SHOP)
    for moment in (change, second - 1, second, second + 1):
        _starting_at(u, moment)
    first, then = impact_report(_held(u), [_edit(CHANGE_DAY), _edit(CHANGE_DAY + 5, commit="bbb2222")], PLACES).results
    assert (first.before.segments, first.after.segments, first.after.end) == (0, 2, "2026-03-09T14:00:00.000Z")
    assert (then.before.segments, then.after.segments, then.before.start) == (2, 2, "2026-03-04T14:00:00.000Z")


def test_a_user_level_file_affects_the_skills_of_every_project_and_its_skill_folder_that_skill_only() -> None:
    """Spec §9.2: ``~/.claude/CLAUDE.md`` affects every skill, ``general`` included, in every
    project; ``~/.claude/skills/deploy/**`` the deploy skill only, in every project."""
    shop, blog = Transcript(cwd=SHOP, session_id="shop"), Transcript(cwd=BLOG, session_id="blog")
    for t in (shop, blog):
        _segments(t, "deploy", "mcc", CHANGE_DAY - 3)
        _segments(t, "deploy", "ccc", CHANGE_DAY + 2)
    _segments(blog, "lint", "cc", CHANGE_DAY + 4)
    general = [*_general(SHOP, CHANGE_DAY - 1, 2), *_general(BLOG, CHANGE_DAY + 1, 3)]
    held = _held(shop, blog, *general)
    claude, skill = "/home/u/.claude/CLAUDE.md", "/home/u/.claude/skills/deploy/SKILL.md"
    places = {claude: Place(None, None), skill: Place("deploy", None)}
    by_instructions = impact_report(held, [_edit(CHANGE_DAY, (claude,))], places).results
    assert sorted((r.skill, r.change.projects, r.before.segments, r.after.segments) for r in by_instructions) == [
        ("deploy", None, 6, 6), ("general", None, 2, 3), ("lint", None, 0, 2),
    ]  # fmt: skip
    by_skill = impact_report(held, [_edit(CHANGE_DAY, (skill,))], places).results
    assert [(r.skill, r.change.projects, r.before.segments, r.after.segments) for r in by_skill] == [
        ("deploy", None, 6, 6)
    ]


def test_the_weighted_gap_rate_is_judged_on_its_own_exact_counts() -> None:
    """Spec §9.3/§9.4: per side the weighted gap rate (exact, §4) and its own verdict. Before: 10
    segments, each with one ``[inferred]`` marker (weight ½): gap rate 10/10, weighted 5/10.
    After: 10 clean. The gap rate's rise interval [-1, -0.290390] is below 0 (``improved``); the
    weighted rate's, of 0/10 against 5/10, is [-0.841498, 0.196303] (``no evidence``): the
    bounds computed outside omkd as in the module docstring, with 5 of 10 as the weight sum."""
    t = Transcript(cwd=SHOP)
    for n in range(10):
        t.prompt(f"task {n}", at=(CHANGE_DAY - 2) * DAY + n * 3600.0)
        t.skill("deploy")
        t.say("The port is 8443 [inferred].")
    _segments(t, "deploy", "c" * 10, CHANGE_DAY + 1)
    result = _one(impact_report(_held(t), [_edit(CHANGE_DAY)], PLACES).results)
    before = result.before
    assert (before.segments, before.gap_segments, before.half_weight_segments) == (10, 10, 10)
    assert (before.gap_rate, before.weighted_gap_rate, result.after.weighted_gap_rate) == (1.0, 0.5, 0.0)
    gap, weighted = result.verdicts
    assert (gap.figure, gap.verdict, weighted.figure, weighted.verdict) == (
        "gap_rate", "improved", "weighted_gap_rate", "no evidence",
    )  # fmt: skip
    assert gap.interval == pytest.approx([-1.0, -0.2903900242964319], abs=1e-9)
    assert weighted.interval == pytest.approx([-0.841498476682194, 0.19630346453397804], abs=1e-9)


def test_a_segment_s_model_is_the_most_frequent_of_its_assistant_records() -> None:
    """Spec §9.5: the model that wrote a segment is its assistant records' most frequent ``model``,
    not its first nor its last: two messages by sonnet and one by opus, then one by sonnet and two
    by opus (a ``/model`` switch inside the skill's work)."""
    t = Transcript(cwd=SHOP, model="claude-sonnet-4-5")
    t.prompt("task 0", at=0.0)
    t.skill("deploy")
    t.glob_hit("src/**/*.py")
    t.model = "claude-opus-4-6"
    t.say("Done.")
    t.prompt("task 1", at=3600.0)
    t.model = "claude-sonnet-4-5"
    t.skill("deploy")
    t.model = "claude-opus-4-6"
    t.glob_hit("src/**/*.py")
    t.say("Done.")
    assert [(s.skill, s.model) for s in _held(t)] == [("deploy", "claude-sonnet-4-5"), ("deploy", "claude-opus-4-6")]


def test_not_seen_since_counts_the_segments_the_before_side_had_when_the_pattern_last_occurred() -> None:
    """Spec §9.6: ``not seen since`` only when the after side has at least as many segments as
    the before side had *when the pattern last occurred*. A long deploy segment starts at 00:00
    and misses the port at 06:00; a parallel session's five deploy segments start at 01:00 to
    05:00. When the pattern last occurred the before side had 6 segments, so 3 after are too
    early to tell (the long segment being the first to start does not make 1 enough)."""
    day = (CHANGE_DAY - 2) * DAY
    long = Transcript(cwd=SHOP, session_id="long")
    long.prompt("a long task", at=day)
    long.skill("deploy")
    long.clock = day + 6 * 3600.0 - 1
    long.glob_miss(PORT)
    parallel = Transcript(cwd=SHOP, session_id="parallel")
    for n in range(1, 6):
        parallel.prompt(f"task {n}", at=day + n * 3600.0)
        parallel.skill("deploy")
        parallel.glob_hit("src/**/*.py")
    after = Transcript(cwd=SHOP, session_id="after")
    _segments(after, "deploy", "ccc", CHANGE_DAY + 1)
    result = _one(impact_report(_held(long, parallel, after), [_edit(CHANGE_DAY)], PLACES).results)
    assert (result.before.segments, result.after.segments) == (6, 3)
    (fate,) = result.gaps
    assert (fate.pattern, fate.before_last_seen, fate.status, fate.needed) == (
        PORT, "2026-03-02T20:00:01.000Z", "too early to tell", 6,  # the result, a second after the call
    )  # fmt: skip
