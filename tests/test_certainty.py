"""Every rate carries its uncertainty: intervals in the report, bands that respect them,
saturation, the daily trend, the nudge, and gates that fail only on evidence."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from omkd.cli import main
from omkd.engine.intervals import rate_interval
from omkd.engine.report.schema import Report
from tests.agent_lines import Rollout
from tests.transcript_builder import Transcript, health_of, report_of

DAY = 86_400.0


def _segments(t: Transcript, skill: str, misses: int, clean: int, *, day: int = 0, weak: int = 0) -> None:
    """``misses`` segments with a Glob miss (weight 1), ``weak`` with hedging (0.5), ``clean`` without."""
    for n, kind in enumerate(["miss"] * misses + ["weak"] * weak + ["clean"] * clean):
        # The first record of a later day jumps the clock there (the builder starts at 14:00 UTC).
        t.prompt(f"task {n}", at=day * DAY if t.clock < day * DAY else None)
        t.skill(skill)
        if kind == "miss":
            t.glob_miss(f"docs/{skill}-{n}.md")
        elif kind == "weak":
            t.say("The flag is presumably set by the deploy script.")
        else:
            t.glob_hit("src/**/*.py")


def _report(*plans: tuple[str, int, int]) -> Report:
    t = Transcript()
    for skill, misses, clean in plans:
        _segments(t, skill, misses, clean)
    return report_of(t)


def test_gap_rate_carries_its_interval() -> None:
    """3 gaps in 10 segments: (0.0809, 0.6463), Wilson with continuity correction (computed by hand
    in ``test_stats.test_the_rate_interval_by_hand``)."""
    interval = health_of(_report(("deploy", 3, 7)), "deploy").certainty.gap_rate_interval
    assert (round(interval.lower, 4), round(interval.upper, 4), interval.level, interval.method) == (
        0.0809,
        0.6463,
        0.95,
        "wilson-cc",
    )


def test_the_weighted_interval_is_the_same_method_on_the_weight_sum() -> None:
    """Three full-weight gap segments of ten: the weight sum is 3, so the same interval as 3/10."""
    sure = health_of(_report(("deploy", 3, 7)), "deploy").certainty
    weighted = sure.weighted_gap_rate_interval
    assert (weighted.lower, weighted.upper, weighted.method) == (*rate_interval(3, 10), "wilson-cc")


def test_a_one_segment_skill_has_the_same_wide_interval_on_both_rates() -> None:
    """The issue's case: one segment with a gap printed a weighted interval of [100-100] beside the gap
    rate's [21-100]. Both are now the interval of 1 in 1."""
    sure = health_of(_report(("once", 1, 0)), "once").certainty
    assert (sure.gap_rate_interval.lower, sure.gap_rate_interval.upper) == rate_interval(1, 1)
    assert (sure.weighted_gap_rate_interval.lower, sure.weighted_gap_rate_interval.upper) == rate_interval(1, 1)


def test_red_is_confident_only_when_the_lower_bound_clears_the_threshold() -> None:
    """20 of 20 segments with gaps: lower 0.7995 >= 0.30, a confident red; 4 of 10 is red but indicative.

    20/20: a = 43.841459, d = 47.682918, sqrt(1.841459 - 0.05 + 4) = 2.406545, x z = 4.716744,
    (43.841459 - 1 - 4.716744) / d = 0.799547. 4/10: a = 11.841459, d = 27.682918,
    sqrt(1.741459 + 1.6 * 7) = 3.597424, x z = 7.050822, (11.841459 - 1 - 7.050822) / d = 0.136930.
    """
    report = _report(("always", 20, 0), ("often", 4, 6))
    always, often = health_of(report, "always"), health_of(report, "often")
    assert (always.health, always.certainty.health_confident) == ("red", True)
    assert (often.health, often.certainty.health_confident) == ("red", False)
    assert round(often.certainty.gap_rate_interval.lower, 4) == 0.1369
    assert round(always.certainty.gap_rate_interval.lower, 4) == 0.7995


def test_daily_trend_cv_and_instability() -> None:
    """Daily weighted rates 0.2, 0.4, 0.2: mean 0.266667, sample sd 0.115470, CV 0.433013 > 0.15: unstable."""
    t = Transcript()
    _segments(t, "api", 1, 4, day=0)
    _segments(t, "api", 2, 3, day=1)
    _segments(t, "api", 1, 4, day=2)
    trend = health_of(report_of(t), "api").certainty.trend
    assert (trend.days, trend.daily_weighted_gap_rate) == (["2026-02-12", "2026-02-13", "2026-02-14"], [0.2, 0.4, 0.2])
    assert trend.cv == pytest.approx(0.433013, abs=1e-6)
    assert trend.unstable is True


def test_no_trend_verdict_on_two_days_or_an_underpowered_skill() -> None:
    """Two days (10 segments) are not a trend; neither are three days of one segment each."""
    t = Transcript()
    _segments(t, "api", 1, 4, day=0)
    _segments(t, "api", 2, 3, day=1)
    for day in range(3):
        _segments(t, "rare", day % 2, 1 - day % 2, day=day)
    report = report_of(t)
    for skill in ("api", "rare"):
        trend = health_of(report, skill).certainty.trend
        assert (trend.cv, trend.unstable) == (None, False)
    assert health_of(report, "rare").certainty.nudge is False


def test_nudge_after_three_quiet_days() -> None:
    """Gap rate 0 on each of 3 days with data: the sample-evolution nudge is on; CV is undefined at mean 0."""
    t = Transcript()
    for day in range(3):
        _segments(t, "docs", 0, 5, day=day)
    sure = health_of(report_of(t), "docs").certainty
    assert (sure.nudge, sure.trend.cv, sure.trend.unstable) == (True, None, False)


def test_no_nudge_when_one_of_the_last_three_days_had_gaps() -> None:
    """A day at 20 % among the last three keeps the nudge off."""
    t = Transcript()
    _segments(t, "docs", 0, 5, day=0)
    _segments(t, "docs", 1, 4, day=1)
    _segments(t, "docs", 0, 5, day=2)
    assert health_of(report_of(t), "docs").certainty.nudge is False


def test_saturation_once_new_days_barely_narrow_the_interval() -> None:
    """100 clean segments on day one, then one a day: each day moves the width by under 5 %, and the
    green band is backed by the interval: saturated."""
    t = Transcript()
    _segments(t, "big", 0, 100, day=0)
    for day in (1, 2, 3):
        _segments(t, "big", 0, 1, day=day)
    saturation = health_of(report_of(t), "big").certainty.saturation
    assert (len(saturation.widths), saturation.saturated) == (4, True)


def test_never_saturated_beside_an_indicative_band() -> None:
    """10 gaps in 100 segments, then one clean a day: the width has settled, but the weighted rate's
    interval crosses the 10 % line (an indicative band): no "more segments will not change it"."""
    t = Transcript()
    _segments(t, "big", 10, 90, day=0)
    for day in (1, 2, 3):
        _segments(t, "big", 0, 1, day=day)
    sure = health_of(report_of(t), "big").certainty
    assert (sure.health_confident, sure.saturation.saturated) == (False, False)


def test_two_days_are_not_enough_for_saturation() -> None:
    """Saturation needs 3 steps after the first: two days never qualify."""
    t = Transcript()
    _segments(t, "api", 1, 4, day=0)
    _segments(t, "api", 2, 3, day=1)
    assert health_of(report_of(t), "api").certainty.saturation.saturated is False


@pytest.fixture
def gate_file(tmp_path: Path) -> Path:
    t = Transcript()
    _segments(t, "always", 20, 0)
    _segments(t, "often", 4, 6)
    path = tmp_path / "session.jsonl"
    path.write_bytes(t.to_bytes())
    return path


def _scan(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["scan", *map(str, args), "--home", "/nonexistent"])
    return result.exit_code, result.output


def test_plain_gate_fails_both_skills_over_the_limit(gate_file: Path) -> None:
    """Without --confident, 1.0 and 0.4 both exceed 0.3."""
    code, output = _scan(gate_file, "--max-gap-rate", "0.3")
    assert (code, "always: gap_rate" in output, "often: gap_rate" in output) == (1, True, True)


def test_confident_gate_fails_only_on_evidence_and_prints_the_real_level(gate_file: Path) -> None:
    """--confident over K=2 skills uses one-sided 97.5 %: 20/20 fails (exact lower bound 0.025^(1/20) = 0.832);
    4/10 passes (P(X >= 4 | 10, 0.3) = 0.3504 > 0.025)."""
    code, output = _scan(gate_file, "--max-gap-rate", "0.3", "--confident")
    assert code == 1
    assert (
        "always: gap_rate 100.0 % exceeds 30.0 % (lower bound 83.2 %, one-sided 97.5 %, Bonferroni over 2 skills)"
        in output.replace("\n", " ")
    )
    assert "often: gap_rate" not in output


def test_baseline_regression_reports_significance(gate_file: Path, tmp_path: Path) -> None:
    """Against a baseline of 0/20 for `always`, a rise to 20/20 is significant; the JSON says so.
    The interval: each side's exact bound at 98.75 %, 0.0125^(1/20) = 0.803240, so the rise is at
    least 0.803240 - (1 - 0.803240) = 0.606481."""
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes(
        orjson.dumps(
            {
                "schema_version": 2,
                "skills": {"always": {"gap_rate": 0.0, "segments": 20, "gap_segments": 0}},
            }
        )
    )
    result = CliRunner().invoke(
        main,
        ["scan", str(gate_file), "--home", "/nonexistent", "--json", "--baseline", str(baseline),
         "--gap-rate-regression", "0.5"],
    )  # fmt: skip
    document = orjson.loads(result.stdout)
    (moved,) = document["regressions"]
    assert (moved["skill"], moved["rise"], moved["significant"]) == ("always", 1.0, True)
    assert moved["interval"] == pytest.approx([0.606481, 1.0], abs=1e-6)
    assert result.exit_code == 1


def _codex_deploy(misses: int, clean: int) -> bytes:
    """A Codex rollout with ``misses`` ``deploy`` segments whose ``ls`` finds nothing, ``clean`` whose ``ls`` finds."""
    r = Rollout()
    for n in range(misses + clean):
        r.prompt(f"task {n}")
        r.skill("deploy", "/home/dev/.codex/skills/deploy/SKILL.md")
        if n < misses:
            r.exec(f"ls docs/deploy-{n}.md", f"ls: cannot access 'docs/deploy-{n}.md': No such file or directory", 2)
        else:
            r.exec("ls src", "app.py\n")
    return r.data()


def test_a_scan_json_baseline_is_read_per_skill_and_agent(tmp_path: Path) -> None:
    """Spec §7 (the regression gate) for every agent: a ``scan --json`` report used as the baseline
    compares each row with the same skill *of the same agent*. Claude Code's ``deploy`` stays at
    0/5; Codex's ``deploy`` goes from 0/5 to 5/5: a rise of 1.0, over the 0.5 allowed, for Codex
    alone."""
    claude = Transcript()
    _segments(claude, "deploy", 0, 5)
    (tmp_path / "before").mkdir()
    (tmp_path / "before" / "claude.jsonl").write_bytes(claude.to_bytes())
    (tmp_path / "before" / "rollout-a.jsonl").write_bytes(_codex_deploy(0, 5))
    (tmp_path / "after").mkdir()
    (tmp_path / "after" / "claude.jsonl").write_bytes(claude.to_bytes())
    (tmp_path / "after" / "rollout-a.jsonl").write_bytes(_codex_deploy(5, 0))
    saved = CliRunner().invoke(main, ["scan", str(tmp_path / "before"), "--home", "/nonexistent", "--json"])
    baseline = tmp_path / "baseline.json"
    baseline.write_text(saved.stdout)
    result = CliRunner().invoke(
        main,
        ["scan", str(tmp_path / "after"), "--home", "/nonexistent", "--json", "--baseline", str(baseline),
         "--gap-rate-regression", "0.5"],
    )  # fmt: skip
    document = orjson.loads(result.stdout)
    moved = {(m["skill"], m["before"], m["after"]) for m in document["regressions"]}
    assert moved == {("deploy", 0.0, 0.0), ("deploy (codex)", 0.0, 1.0)}
    assert [(f["skill"], f["gate"]) for f in document["gate_failures"]] == [("deploy (codex)", "gap_rate_rise")]
    assert result.exit_code == 1
