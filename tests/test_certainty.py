"""Every rate carries its uncertainty: intervals in the report, bands that respect them,
saturation, the daily trend, the nudge, and gates that fail only on evidence."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from omkd.cli import main
from omkd.engine import stats
from omkd.engine.report import Report
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


def test_gap_rate_carries_its_wilson_interval() -> None:
    """3 gaps in 10 segments: Wilson 95 % is (0.1078, 0.6032).

    z = 1.959964, z^2 = 3.841459; centre (0.3 + 0.192073) / 1.384146 = 0.355503;
    half width 1.416009 * sqrt(0.021 + 0.009604) = 0.247715.
    """
    interval = health_of(_report(("deploy", 3, 7)), "deploy").certainty.gap_rate_interval
    assert (round(interval.lower, 4), round(interval.upper, 4), interval.level, interval.method) == (
        0.1078,
        0.6032,
        0.95,
        "wilson",
    )


def test_weighted_interval_is_the_seeded_bootstrap_and_reproducible() -> None:
    """The weighted interval is the 1,000-resample bootstrap of the weight counts, the same on every run."""
    first = health_of(_report(("deploy", 3, 7)), "deploy").certainty.weighted_gap_rate_interval
    again = health_of(_report(("deploy", 3, 7)), "deploy").certainty.weighted_gap_rate_interval
    expected = stats.bootstrap_weighted_interval(7, 0, 3)
    assert (first.lower, first.upper, first.method) == (expected[0], expected[1], "bootstrap-1000")
    assert first == again


def test_red_is_confident_only_when_the_lower_bound_clears_the_threshold() -> None:
    """20 of 20 segments with gaps: Wilson lower 0.8389 >= 0.30, a confident red; 4 of 10 is red but indicative.

    For 4/10: centre 0.427751, half width 1.416009 * sqrt(0.024 + 0.009604) = 0.259573, lower 0.1682 < 0.30.
    """
    report = _report(("always", 20, 0), ("often", 4, 6))
    always, often = health_of(report, "always"), health_of(report, "often")
    assert (always.health, always.certainty.health_confident) == ("red", True)
    assert (often.health, often.certainty.health_confident) == ("red", False)
    assert round(often.certainty.gap_rate_interval.lower, 4) == 0.1682


def test_daily_trend_cv_and_instability() -> None:
    """Daily weighted rates 0.2 and 0.4: mean 0.3, sample sd 0.141421, CV 0.471405 > 0.15: unstable."""
    t = Transcript()
    _segments(t, "api", 1, 4, day=0)
    _segments(t, "api", 2, 3, day=1)
    trend = health_of(report_of(t), "api").certainty.trend
    assert (trend.days, trend.daily_weighted_gap_rate) == (["2026-02-12", "2026-02-13"], [0.2, 0.4])
    assert trend.cv == pytest.approx(0.471405, abs=1e-6)
    assert trend.unstable is True


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
    """100 segments on day one, then one a day: each day moves the Wilson width by under 5 %: saturated."""
    t = Transcript()
    _segments(t, "big", 10, 90, day=0)
    for day in (1, 2, 3):
        _segments(t, "big", 0, 1, day=day)
    saturation = health_of(report_of(t), "big").certainty.saturation
    assert (len(saturation.widths), saturation.saturated) == (4, True)


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
    assert "always: gap_rate 1.000 exceeds 0.300 (lower bound 0.832, one-sided 97.5 %, Bonferroni over 2 skills)" in (
        output.replace("\n", " ")
    )
    assert "often: gap_rate" not in output


def test_baseline_regression_reports_significance(gate_file: Path, tmp_path: Path) -> None:
    """Against a baseline of 0/20 for `always`, a rise to 20/20 is significant; the JSON says so."""
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
    assert (moved["skill"], moved["rise"], moved["significant"], moved["interval"]) == ("always", 1.0, True, [1.0, 1.0])
    assert result.exit_code == 1
