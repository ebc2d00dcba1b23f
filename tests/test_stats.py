"""Intervals, gates, saturation, trends, the nudge and interval-aware bands (omkd.engine.stats)."""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from omkd.engine import stats
from omkd.engine.binomial import binomial_tail, rate_exceeds
from omkd.engine.intervals import rate_interval, rise_interval, rise_lower_bound
from omkd.engine.stats import (
    NUDGE_MESSAGE,
    bonferroni,
    coefficient_of_variation,
    confidence_label,
    confident_band,
    corrected_confidence,
    interval_widths,
    is_saturated,
    nudge,
    trend_unstable,
)

pytestmark = pytest.mark.engine

REPO_ROOT = Path(__file__).resolve().parents[1]
SPEC = REPO_ROOT.parent / "shared" / "docs" / "spec.md"

# Expected bounds are written to 4 decimals, so they are compared to half a unit of the 4th.
FOUR_DECIMALS = 5e-5


# --- the interval of a rate: Wilson with continuity correction --------------------------------
#
# Newcombe (1998) method 4, P = k/n, z = 1.959964 at 95 % (z^2 = 3.841459), a = 2nP + z^2,
# d = 2(n + z^2):
#   lower = (a - 1 - z sqrt(z^2 - 2 - 1/n + 4P(n(1 - P) + 1))) / d     (0 when k = 0)
#   upper = (a + 1 + z sqrt(z^2 + 2 - 1/n + 4P(n(1 - P) - 1))) / d     (1 when k = n)


@pytest.mark.parametrize(
    ("k", "n", "expected"),
    [
        # n=10, k=3: a = 6 + 3.841459 = 9.841459, d = 27.682918. Lower: 3.841459 - 2 - 0.1 + 1.2 * 8
        # = 11.341459, sqrt 3.367708, x z = 6.600587, (9.841459 - 1 - 6.600587) / d = 0.080948.
        # Upper: 3.841459 + 2 - 0.1 + 1.2 * 6 = 12.941459, sqrt 3.597424, x z = 7.050822,
        # (9.841459 + 1 + 7.050822) / d = 0.646329.
        (3, 10, (0.0809, 0.6463)),
        # n=5, k=2: a = 4 + 3.841459 = 7.841459, d = 17.682918. Lower: 1.841459 - 0.2 + 1.6 * 4
        # = 8.041459, sqrt 2.835747, x z = 5.557962, (6.841459 - 5.557962) / d = 0.072584.
        # Upper: 5.841459 - 0.2 + 1.6 * 2 = 8.841459, sqrt 2.973459, x z = 5.827873,
        # (8.841459 + 5.827873) / d = 0.829575.
        (2, 5, (0.0726, 0.8296)),
        # n=1, k=0: lower 0; upper: 5.841459 - 1 + 0 = 4.841459, sqrt 2.200332, x z = 4.312571,
        # (3.841459 + 1 + 4.312571) / 9.682918 = 0.945374.
        (0, 1, (0.0, 0.9454)),
    ],
)
def test_the_rate_interval_by_hand(k: int, n: int, expected: tuple[float, float]) -> None:
    assert rate_interval(k, n) == pytest.approx(expected, abs=FOUR_DECIMALS)


def test_a_rate_interval_never_collapses_at_0_or_n() -> None:
    """One segment, with or without a gap: wide, never a point (a bootstrap gave [0, 0])."""
    assert rate_interval(0, 1) == pytest.approx((0.0, 0.9454), abs=FOUR_DECIMALS)
    assert rate_interval(1, 1) == pytest.approx((0.0546, 1.0), abs=FOUR_DECIMALS)
    lower, upper = rate_interval(0, 10)
    assert lower == 0.0
    assert 0.0 < upper < 1.0
    assert rate_interval(0, 0) == (0.0, 1.0)


def test_a_weighted_rate_uses_the_weight_sum_as_successes() -> None:
    """Four half-weight segments of ten: the interval of 2 successes in 10, never a point."""
    assert rate_interval(2.0, 10) == rate_interval(2, 10)
    low, high = rate_interval(1.5, 3)
    assert 0.0 < low < 0.5 < high < 1.0


@pytest.mark.parametrize(("k", "n", "confidence"), [(3, 2, 0.95), (-1, 5, 0.95), (1, 5, 1.0), (1, 5, 0.0)])
def test_the_rate_interval_rejects_impossible_input(k: int, n: int, confidence: float) -> None:
    with pytest.raises(ValueError, match=r"must|need"):
        rate_interval(k, n, confidence)


def test_the_rate_interval_covers_at_least_95_percent_at_every_point_of_a_small_grid() -> None:
    """Exact coverage (binomial terms summed), n = 1..40 and true rates 0, 0.05 ... 1: at least
    0.949 everywhere (plain Wilson falls to 0.80 at n = 1, p = 0.2). The full grid, n to 200 and
    the weighted rate, is ``bench/stats_coverage.py``."""
    worst = 1.0
    for n in range(1, 41):
        bounds = [rate_interval(k, n) for k in range(n + 1)]
        for p in (0.0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95, 1.0):
            covered = math.fsum(
                math.comb(n, k) * p**k * (1 - p) ** (n - k) for k, (lo, hi) in enumerate(bounds) if lo <= p <= hi
            )
            worst = min(worst, covered)
    assert worst >= 0.949


# --- the interval of a rise --------------------------------------------------------------------


def test_the_rise_interval_by_hand() -> None:
    """0 of 10 before, 10 of 10 now, 95 %: each side's exact bound at 1 - 0.05/4 = 98.75 %.
    Clopper-Pearson at k = n: lower = 0.0125^(1/10) = exp(-4.382027/10) = 0.645195; at k = 0 the
    upper bound is 1 - 0.645195 = 0.354805. Lower rise 0.645195 - 0.354805 = 0.290390; upper
    1 - 0 = 1."""
    assert rise_interval((10, 10), (0, 10)) == pytest.approx((0.2904, 1.0), abs=FOUR_DECIMALS)


def test_a_rise_from_0_of_5_to_10_of_23_is_not_significant() -> None:
    """The issue's case: the bootstrap took 0/5 for a certain 0 and called it significant (lower
    bound 0.261). An exact test of the two proportions gives p = 0.087; the rise's interval holds 0,
    one-sided at 95 % too."""
    lower, upper = rise_interval((10, 23), (0, 5))
    assert lower < 0.0 < upper
    assert rise_lower_bound((10, 23), (0, 5), 0.95) < 0.0


def test_a_clear_rise_is_seen() -> None:
    """10/100 -> 60/100: the rise's lower bound is well above 0."""
    lower, upper = rise_interval((60, 100), (10, 100))
    assert 0.25 < lower < 0.5 < upper < 0.75


def test_no_change_straddles_zero() -> None:
    lower, upper = rise_interval((20, 100), (20, 100))
    assert lower < 0.0 < upper


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


def test_the_wilson_lower_bound_is_not_a_safe_gate_at_the_threshold() -> None:
    """Why the gate uses the exact test: Wilson (even continuity-corrected) at 1 - alpha/K breaks
    the family-wise promise.

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

    wilson = family(lambda k, n: rate_interval(k, n, 2 * level - 1)[0] > threshold)
    exact = family(lambda k, n: rate_exceeds(k, n, threshold, bonferroni(alpha, len(skills))))
    assert wilson > alpha
    assert exact <= alpha


# --- saturation --------------------------------------------------------------------------------


def test_interval_widths_by_hand() -> None:
    """Widths of (0, 0), (0, 10), (3, 10): 1; 0.3445 - 0 (upper at k = 0: 3.841459 + 2 - 0.1 = 5.741459,
    sqrt 2.396134, x z = 4.696339, (3.841459 + 1 + 4.696339) / 27.682918 = 0.344537); and
    0.646329 - 0.080948 = 0.5654 (``test_the_rate_interval_by_hand``)."""
    assert interval_widths([(0, 0), (0, 10), (3, 10)]) == pytest.approx([1.0, 0.3445, 0.5654], abs=1e-4)


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
