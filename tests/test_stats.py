"""Intervals, gates, saturation, trends, the nudge and interval-aware bands (omkd.engine.stats)."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from omkd.engine import stats
from omkd.engine.stats import (
    NUDGE_MESSAGE,
    binomial_tail,
    bonferroni,
    bootstrap_difference_interval,
    bootstrap_weighted_interval,
    bootstrap_weighted_intervals,
    clear_bootstrap_cache,
    coefficient_of_variation,
    confidence_label,
    confident_band,
    corrected_confidence,
    interval_widths,
    is_saturated,
    is_significant_rise,
    nudge,
    rate_exceeds,
    trend_unstable,
    wilson_interval,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
SPEC = REPO_ROOT.parent / "shared" / "docs" / "spec.md"

# Expected Wilson bounds are written to 4 decimals, so they are compared to half a unit of the 4th.
FOUR_DECIMALS = 5e-5


# --- Wilson score interval ---------------------------------------------------------------------
#
# Textbook formula, p = k/n:
#   centre = (p + z^2/(2n)) / (1 + z^2/n)
#   half   = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4n^2))
# with z = 1.959964 at 95 % (z^2 = 3.841459) and z = 2.575829 at 99 % (z^2 = 6.634897).


@pytest.mark.parametrize(
    ("k", "n", "confidence", "expected"),
    [
        # n=10, k=3: z^2/n = 0.384146, denominator 1.384146, centre = 0.492073/1.384146 = 0.355507;
        # half = 1.959964/1.384146 * sqrt(0.021 + 0.0096036) = 1.416010 * 0.174939 = 0.247714
        # -> (0.1078, 0.6032)
        (3, 10, 0.95, (0.1078, 0.6032)),
        # n=20, k=5: z^2/n = 0.192073, denominator 1.192073, centre = 0.346036/1.192073 = 0.290280;
        # half = 1.959964/1.192073 * sqrt(0.009375 + 0.0024009) = 1.644168 * 0.108517 = 0.178420
        # -> (0.1119, 0.4687)
        (5, 20, 0.95, (0.1119, 0.4687)),
        # n=100, k=50: centre 0.5; half = 1.959964/1.038415 * sqrt(0.0025 + 0.00009604)
        # = 1.887458 * 0.0509514 = 0.096169 -> (0.4038, 0.5962)
        (50, 100, 0.95, (0.4038, 0.5962)),
        # n=5, k=2: z^2/n = 0.768292, denominator 1.768292, centre = 0.784146/1.768292 = 0.443449;
        # half = 1.959964/1.768292 * sqrt(0.048 + 0.0384146) = 1.108393 * 0.293963 = 0.325827
        # -> (0.1176, 0.7693)
        (2, 5, 0.95, (0.1176, 0.7693)),
        # 99 %, n=10, k=3: z^2/n = 0.663490, denominator 1.663490, centre = 0.631745/1.663490 = 0.379770;
        # half = 2.575829/1.663490 * sqrt(0.021 + 0.0165872) = 1.548449 * 0.193874 = 0.300204
        # -> (0.0796, 0.6800)
        (3, 10, 0.99, (0.0796, 0.6800)),
    ],
)
def test_wilson_matches_the_textbook_formula_by_hand(
    k: int, n: int, confidence: float, expected: tuple[float, float]
) -> None:
    """Wilson bounds equal the hand-computed textbook values to 4 decimals."""
    assert wilson_interval(k, n, confidence) == pytest.approx(expected, abs=FOUR_DECIMALS)


def test_wilson_with_no_gaps_starts_exactly_at_zero() -> None:
    """k = 0: lower bound exactly 0.0, upper z^2/(n + z^2) = 3.841459/13.841459 = 0.2775 for n = 10."""
    lower, upper = wilson_interval(0, 10)
    assert lower == 0.0
    assert upper == pytest.approx(0.2775, abs=FOUR_DECIMALS)


def test_wilson_with_only_gaps_ends_exactly_at_one() -> None:
    """k = n: upper bound exactly 1.0, lower n/(n + z^2) = 10/13.841459 = 0.7225 for n = 10."""
    lower, upper = wilson_interval(10, 10)
    assert lower == pytest.approx(0.7225, abs=FOUR_DECIMALS)
    assert upper == 1.0


def test_wilson_without_segments_knows_nothing() -> None:
    """n = 0 gives the whole unit interval."""
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(("k", "n", "confidence"), [(3, 2, 0.95), (-1, 5, 0.95), (1, 5, 1.0), (1, 5, 0.0)])
def test_wilson_rejects_impossible_input(k: int, n: int, confidence: float) -> None:
    """k outside 0..n or a confidence outside (0, 1) is a caller's error."""
    with pytest.raises(ValueError, match=r"must|need"):
        wilson_interval(k, n, confidence)


def test_wilson_95_covers_the_true_rate_in_at_least_93_percent_of_simulated_skills() -> None:
    """2,000 skills, n in 5..200, true rate in 0.02..0.6: the 95 % interval holds the truth >= 93 %."""
    rng = np.random.default_rng(20261130)
    n = rng.integers(5, 201, size=2000)
    p = rng.uniform(0.02, 0.6, size=2000)
    k = rng.binomial(n, p)
    covered = 0
    for gaps, segments, truth in zip(k.tolist(), n.tolist(), p.tolist(), strict=True):
        lower, upper = wilson_interval(gaps, segments)
        covered += lower <= truth <= upper
    assert covered / 2000 >= 0.93


# --- bootstrap of the weighted gap rate --------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((10, 0, 0), (0.0, 0.0)),
        ((0, 4, 0), (0.5, 0.5)),
        ((0, 0, 3), (1.0, 1.0)),
        ((0, 0, 0), (0.0, 1.0)),
    ],
)
def test_bootstrap_of_a_single_weight_is_that_weight(
    counts: tuple[int, int, int], expected: tuple[float, float]
) -> None:
    """When every segment has the same weight every resample does too; no segments: (0, 1)."""
    assert bootstrap_weighted_interval(*counts) == expected


def test_bootstrap_interval_is_close_to_the_normal_approximation_for_a_large_sample() -> None:
    """150 segments (100 x 0, 20 x 0.5, 30 x 1.0): close to mean +- 1.96 standard errors.

    mean = (0.5*20 + 30)/150 = 0.266667; E[w^2] = (0.25*20 + 30)/150 = 0.233333;
    variance = 0.233333 - 0.071111 = 0.162222; se = sqrt(0.162222/150) = 0.032886;
    1.96 se = 0.064457 -> (0.2022, 0.3311). The bootstrap is discrete (steps of 1/300) and
    Monte Carlo (1,000 resamples): within 0.01.
    """
    lower, upper = bootstrap_weighted_interval(100, 20, 30)
    assert lower == pytest.approx(0.2022, abs=0.01)
    assert upper == pytest.approx(0.3311, abs=0.01)
    assert 0.0 <= lower <= 40 / 150 <= upper <= 1.0


def test_bootstrap_gives_the_same_floats_whatever_the_call_order() -> None:
    """The seed comes from the counts: computing A then B or B then A gives identical intervals."""
    clear_bootstrap_cache()
    first_a = bootstrap_weighted_interval(40, 7, 13)
    first_b = bootstrap_weighted_interval(12, 3, 5)
    clear_bootstrap_cache()
    second_b = bootstrap_weighted_interval(12, 3, 5)
    second_a = bootstrap_weighted_interval(40, 7, 13)
    assert (repr(first_a), repr(first_b)) == (repr(second_a), repr(second_b))


def test_explicit_seed_is_reproducible_and_changes_the_draws() -> None:
    """The same explicit seed repeats its interval; another seed draws differently."""
    clear_bootstrap_cache()
    seeded = bootstrap_weighted_interval(400, 70, 130, seed=1)
    clear_bootstrap_cache()
    assert bootstrap_weighted_interval(400, 70, 130, seed=1) == seeded
    assert bootstrap_weighted_interval(400, 70, 130, seed=2) != seeded


@pytest.mark.slow
def test_bootstrap_gives_byte_identical_floats_in_another_process() -> None:
    """A fresh interpreter with another hash salt prints the same float reprs."""
    code = (
        "from omkd.engine.stats import bootstrap_weighted_interval as w, bootstrap_difference_interval as d\n"
        "print(repr([w(40, 7, 13), w(3, 1, 1), w(400, 70, 130, confidence=0.99),"
        " d((90, 0, 10), (60, 0, 40)), d((50, 10, 5), (45, 12, 9))]))"
    )
    clear_bootstrap_cache()
    here = repr(
        [
            bootstrap_weighted_interval(40, 7, 13),
            bootstrap_weighted_interval(3, 1, 1),
            bootstrap_weighted_interval(400, 70, 130, confidence=0.99),
            bootstrap_difference_interval((90, 0, 10), (60, 0, 40)),
            bootstrap_difference_interval((50, 10, 5), (45, 12, 9)),
        ]
    )
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    there = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert here == there


@pytest.mark.parametrize("seed", [None, 7])
def test_vectorised_bootstrap_equals_the_scalar_one_row_by_row(seed: int | None) -> None:
    """Each row of bootstrap_weighted_intervals is exactly bootstrap_weighted_interval of that row."""
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 40, size=(120, 3))
    counts[:10, 1:] = 0  # only weight 0
    counts[10:15] = 0  # no segments
    clear_bootstrap_cache()
    scalar = [bootstrap_weighted_interval(zero, half, one, seed=seed) for zero, half, one in counts.tolist()]
    clear_bootstrap_cache()
    vectorised = bootstrap_weighted_intervals(counts, seed=seed)
    assert vectorised.shape == (120, 2)
    assert [tuple(row) for row in vectorised.tolist()] == scalar


@pytest.mark.parametrize("counts", [np.zeros((3, 2), dtype=np.int64), np.zeros(3, dtype=np.int64), np.ones((2, 3))])
def test_vectorised_bootstrap_rejects_other_shapes_and_float_counts(counts: npt.NDArray[Any]) -> None:
    """Only an integer (K, 3) array is a table of weight counts."""
    with pytest.raises(ValueError, match="shape"):
        bootstrap_weighted_intervals(counts)


def test_bootstrap_rejects_negative_counts() -> None:
    """A negative count is a caller's error, in the scalar and the vectorised form."""
    with pytest.raises(ValueError, match="non-negative"):
        bootstrap_weighted_interval(-1, 2, 3)
    with pytest.raises(ValueError, match="non-negative"):
        bootstrap_weighted_intervals(np.array([[1, -2, 3]]))


# --- baseline versus now -----------------------------------------------------------------------


def test_difference_interval_sees_a_clear_rise() -> None:
    """10/100 -> 40/100: difference 0.30, normal approximation (0.187, 0.413), and significant.

    se = sqrt(0.1*0.9/100 + 0.4*0.6/100) = sqrt(0.0033) = 0.057446; 1.96 se = 0.112594.
    """
    interval = bootstrap_difference_interval((90, 0, 10), (60, 0, 40))
    assert interval == pytest.approx((0.187, 0.413), abs=0.02)
    assert is_significant_rise(interval)
    assert is_significant_rise(interval, by=0.15)
    assert not is_significant_rise(interval, by=0.25)


def test_difference_interval_of_no_change_straddles_zero() -> None:
    """The same counts before and after: the interval holds 0, so no significant rise."""
    lower, upper = bootstrap_difference_interval((80, 10, 10), (80, 10, 10))
    assert lower < 0.0 < upper
    assert not is_significant_rise((lower, upper))


def test_difference_interval_without_segments_on_one_side_knows_nothing() -> None:
    """No baseline segments (or none now): (-1, 1)."""
    assert bootstrap_difference_interval((0, 0, 0), (5, 1, 1)) == (-1.0, 1.0)
    assert bootstrap_difference_interval((5, 1, 1), (0, 0, 0)) == (-1.0, 1.0)


def test_a_rise_needs_the_lower_bound_strictly_above_zero() -> None:
    """An interval touching 0 is not a significant rise."""
    assert not is_significant_rise((0.0, 0.2))
    assert is_significant_rise((0.001, 0.2))


# --- many skills: Bonferroni and the exact gate ------------------------------------------------


def test_bonferroni_and_the_confidence_actually_used() -> None:
    """alpha 0.05 over 2 tests: 0.025 each, intervals at 97.5 %, labelled so."""
    assert bonferroni(0.05, 2) == 0.025
    assert bonferroni(0.05, 1) == 0.05
    assert corrected_confidence(0.05, 2) == pytest.approx(0.975)
    assert confidence_label(corrected_confidence(0.05, 2)) == "97.5 %"
    assert confidence_label(0.95) == "95 %"
    assert confidence_label(corrected_confidence(0.05, 3)) == "98.3333 %"
    assert confidence_label(corrected_confidence(0.05, 1000)) == "99.995 %"


@pytest.mark.parametrize(("alpha", "tests"), [(0.05, 0), (0.0, 3), (1.0, 3)])
def test_bonferroni_rejects_impossible_input(alpha: float, tests: int) -> None:
    """At least one test, and alpha strictly between 0 and 1."""
    with pytest.raises(ValueError, match="must"):
        bonferroni(alpha, tests)


def test_binomial_tail_by_hand() -> None:
    """P(X >= k) for n = 5, p = 0.1, from the binomial terms written out.

    P(0) = 0.9^5 = 0.59049; P(1) = 5 * 0.1 * 0.9^4 = 0.32805; P(2) = 10 * 0.01 * 0.729 = 0.0729.
    P(X >= 2) = 1 - 0.59049 - 0.32805 = 0.08146; P(X >= 3) = 0.08146 - 0.0729 = 0.00856.
    """
    assert binomial_tail(2, 5, 0.1) == pytest.approx(0.08146, rel=1e-9)
    assert binomial_tail(3, 5, 0.1) == pytest.approx(0.00856, rel=1e-9)
    assert binomial_tail(0, 5, 0.1) == 1.0
    assert binomial_tail(5, 5, 0.0) == 0.0


@pytest.mark.parametrize("n", [1, 7, 40, 150])
@pytest.mark.parametrize("p", [0.01, 0.1, 0.3, 0.5, 0.97])
def test_binomial_tail_equals_the_sum_of_its_terms(n: int, p: float) -> None:
    """The incomplete-beta tail equals the plain sum of binomial terms for every k."""
    for k in range(n + 1):
        direct = math.fsum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))
        assert binomial_tail(k, n, p) == pytest.approx(direct, rel=1e-9, abs=1e-300)


def test_rate_exceeds_by_hand() -> None:
    """At threshold 0.10 and alpha 0.05, 3 gaps of 5 exceed (P = 0.00856) and 2 of 5 do not (0.08146)."""
    assert rate_exceeds(3, 5, 0.10, 0.05)
    assert not rate_exceeds(2, 5, 0.10, 0.05)
    assert not rate_exceeds(0, 0, 0.10, 0.05)


@pytest.mark.parametrize("true_rate", [0.10, 0.05])
def test_bonferroni_gate_keeps_the_family_wise_false_alarm_rate_at_or_under_alpha(true_rate: float) -> None:
    """2,000 families of 20 skills at (or under) the 0.10 threshold: any false alarm in <= 5 % of them.

    The gate fails a skill when rate_exceeds(k, n, 0.10, bonferroni(0.05, 20)). The estimated
    rate has a Monte Carlo standard error of sqrt(0.05 * 0.95 / 2000) = 0.0049, so a gate truly
    at 0.05 would read above 0.05 + 3 x 0.0049 = 0.0646 about once in 700 runs; the margin is 3
    standard errors. (The seed is fixed, so the run is the same every time.) The uncorrected gate
    at the threshold alarms in most families, which shows the simulation can see a broken gate.
    """
    families, skills, alpha, threshold = 2000, 20, 0.05, 0.10
    rng = np.random.default_rng(1130)
    n = rng.integers(5, 201, size=(families, skills))
    k = rng.binomial(n, true_rate)
    gate = cache(rate_exceeds)  # the same (k, n) recurs often; the gate is a pure function

    def family_alarm_rate(alpha_per_skill: float) -> float:
        alarms = [
            any(gate(gaps, segments, threshold, alpha_per_skill) for gaps, segments in zip(row_k, row_n, strict=True))
            for row_k, row_n in zip(k.tolist(), n.tolist(), strict=True)
        ]
        return sum(alarms) / families

    margin = 3 * math.sqrt(alpha * (1 - alpha) / families)
    assert family_alarm_rate(bonferroni(alpha, skills)) <= alpha + margin
    if true_rate == threshold:
        assert family_alarm_rate(alpha) > 0.4


def test_wilson_lower_bound_is_not_a_safe_gate_at_the_threshold() -> None:
    """Why the gate uses the exact test: Wilson at 1 - alpha/K breaks the family-wise promise.

    Exact, not simulated: 20 skills with n = 5..24 segments, true rate 0.10 = threshold. For each
    n, the skill alarms when Wilson's lower bound at 99.75 % is above 0.10; the probability of
    that is the sum of binomial terms over those k, and the family's chance of any alarm is
    1 - prod(1 - a_n). Wilson gives more than 0.05; the exact test stays under it.
    """
    alpha, threshold, skills = 0.05, 0.10, range(5, 25)
    level = corrected_confidence(alpha, len(skills))

    def alarm_probability(n: int, alarms: object) -> float:
        assert callable(alarms)
        return math.fsum(
            math.comb(n, k) * threshold**k * (1 - threshold) ** (n - k) for k in range(n + 1) if alarms(k, n)
        )

    def family(alarms: object) -> float:
        return 1.0 - math.prod(1.0 - alarm_probability(n, alarms) for n in skills)

    wilson = family(lambda k, n: wilson_interval(k, n, level)[0] > threshold)
    exact = family(lambda k, n: rate_exceeds(k, n, threshold, bonferroni(alpha, len(skills))))
    assert wilson > alpha
    assert exact <= alpha


# --- saturation --------------------------------------------------------------------------------


def test_interval_widths_by_hand() -> None:
    """Widths of (0, 0), (0, 10), (3, 10): 1, 0.2775 - 0 and 0.6032 - 0.1078 = 0.4954."""
    assert interval_widths([(0, 0), (0, 10), (3, 10)]) == pytest.approx([1.0, 0.2775, 0.4954], abs=1e-4)


@pytest.mark.parametrize(
    ("widths", "saturated"),
    [
        # changes: 25 %, 3.33 %, 3.45 %, 3.57 %: the last three are under 5 %
        ([0.40, 0.30, 0.29, 0.28, 0.27], True),
        # the last three changes are 25 %, 3.33 %, 3.45 %: one is not
        ([0.40, 0.30, 0.29, 0.28], False),
        # only two changes so far
        ([0.30, 0.29, 0.28], False),
        # 3.33 %, 3.45 %, then the width grows by 7.1 %: still moving
        ([0.30, 0.29, 0.28, 0.30], False),
        # 4.9 % three times: under 5 %, just
        ([1.0, 0.951, 0.904401, 0.86008535], True),
        # exactly 5 % is not under 5 %
        ([1.0, 0.95, 0.9025, 0.857375], False),
    ],
)
def test_is_saturated_by_hand(widths: list[float], saturated: bool) -> None:
    """Saturated when each of the last 3 steps changed the width by under 5 %."""
    assert is_saturated(widths) is saturated


def test_a_steady_rate_saturates_only_once_the_windows_add_little() -> None:
    """Windows of 50 segments at a 10 % rate: widths shrink ~1/sqrt(n), so 150 -> 200 still shrinks 13 %.

    (k, n) = (5, 50) ... (100, 1000): the shrink from n to n + 50 is about 1 - sqrt(n/(n + 50)),
    under 5 % once n is past 463 (n/(n + 50) > 0.95^2), so the last three of 20 windows are
    saturated and the first four are not.
    """
    history = [(5 * i, 50 * i) for i in range(1, 21)]
    widths = interval_widths(history)
    assert not is_saturated(widths[:4])
    assert is_saturated(widths)


# --- stability over time -----------------------------------------------------------------------


def test_coefficient_of_variation_by_hand() -> None:
    """Sample standard deviation over the mean.

    [0.10, 0.20, 0.30]: mean 0.2, squared deviations 0.01 + 0 + 0.01 = 0.02, / (3 - 1) = 0.01,
    sd 0.1, CV 0.5. [0.20, 0.22, 0.18, 0.20]: mean 0.2, squares 0.0008, / 3 = 0.00026667,
    sd 0.0163299, CV 0.0816497.
    """
    assert coefficient_of_variation([0.10, 0.20, 0.30]) == pytest.approx(0.5)
    assert coefficient_of_variation([0.20, 0.22, 0.18, 0.20]) == pytest.approx(0.0816497, rel=1e-6)


def test_coefficient_of_variation_is_undefined_without_two_values_or_a_mean() -> None:
    """Fewer than 2 values, or a mean of 0, give None."""
    assert coefficient_of_variation([]) is None
    assert coefficient_of_variation([0.3]) is None
    assert coefficient_of_variation([0.0, 0.0, 0.0]) is None


def test_trend_is_unstable_only_above_15_percent() -> None:
    """CV 0.5 is unstable; 0.0816, exactly 0.15 and an unmeasured CV are not."""
    assert trend_unstable(0.5)
    assert not trend_unstable(0.0816497)
    assert not trend_unstable(0.15)
    assert not trend_unstable(None)


# --- the sample-evolution nudge ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("daily", "expected"),
    [
        ([0.05, 0.08, 0.10], True),  # three windows, all at or under 10 %
        ([0.20, None, 0.05, 0.10, None, 0.0], True),  # days without data are skipped
        ([0.05, 0.05], False),  # only two windows
        ([0.05, 0.11, 0.05, 0.05], False),  # the last three include 11 %
        ([0.30, 0.02, 0.03, 0.04], True),  # an old high day does not matter
        ([None, None, None], False),  # no data at all
    ],
)
def test_nudge_by_hand(daily: list[float | None], expected: bool) -> None:
    """The nudge fires when the last 3 windows with data all stayed at or under 10 %."""
    assert nudge(daily) is expected


def test_nudge_message_is_the_spec_text() -> None:
    """NUDGE_MESSAGE is word for word the sentence the README gives for the nudge."""
    spec = re.sub(r"\s+", " ", SPEC.read_text(encoding="utf-8"))
    assert f'"{NUDGE_MESSAGE}"' in spec


# --- bands that respect the interval -----------------------------------------------------------


@pytest.mark.parametrize(
    ("lower", "upper", "weighted", "expected"),
    [
        (0.35, 0.60, 0.45, ("red", True)),
        (0.30, 0.60, 0.45, ("red", True)),  # lower bound exactly at 0.30
        (0.25, 0.60, 0.40, ("red", False)),
        (0.12, 0.40, 0.20, ("yellow", True)),
        (0.05, 0.30, 0.15, ("yellow", False)),
        (0.00, 0.08, 0.03, ("green", True)),
        (0.00, 0.10, 0.03, ("green", False)),  # upper bound exactly at 0.10
        (0.00, 0.25, 0.05, ("green", False)),
    ],
)
def test_confident_band(lower: float, upper: float, weighted: float, expected: tuple[str, bool]) -> None:
    """A band is confident only when the interval rules out the better (or, for green, worse) bands."""
    assert confident_band(lower, upper, weighted) == expected


def test_confident_band_rejects_crossed_bounds() -> None:
    """A lower bound above the upper bound is a caller's error."""
    with pytest.raises(ValueError, match="above"):
        confident_band(0.5, 0.4, 0.45)


def test_module_holds_no_random_state() -> None:
    """stats keeps no generator at module level: every bootstrap builds its own."""
    assert not [name for name, value in vars(stats).items() if isinstance(value, np.random.Generator)]
