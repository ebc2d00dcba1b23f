"""The one interval omkd puts on a rate, and on the rise of one rate over another.

**A rate** (the gap rate k/n, the weighted gap rate S/n with S the sum of segment weights in
{0, ½, 1}) gets the Wilson score interval with continuity correction (Newcombe 1998, method 4):

    lower = (2nP + z² - 1 - z·sqrt(z² - 2 - 1/n + 4P(n(1 - P) + 1))) / (2(n + z²)),  0 when P = 0
    upper = (2nP + z² + 1 + z·sqrt(z² + 2 - 1/n + 4P(n(1 - P) - 1))) / (2(n + z²)),  1 when P = 1

Why this one: it never collapses to a point at 0/n or n/n (a bootstrap does), its coverage of
the nominal 95 % stays at or above 0.949 for every n from 1 to 200 and every true rate of the
grid in ``bench/stats_coverage.py`` (plain Wilson falls to 0.80 at n = 1), it needs nothing but
n and P, so Prometheus computes the very same bounds from summed counters
(``config/prometheus/omkd-rules.yml``), and it is deterministic. For the weighted rate the
weights stand in for successes: a variable in [0, 1] with mean P has variance at most P(1 - P),
the variance of a 0/1 variable, so the interval is if anything conservative there (simulated
coverage is in ``bench/README.md``).

**A rise** p1 - p2 (now against a baseline) gets the difference of exact (Clopper-Pearson)
bounds of each sample: lower = L1 - U2 and upper = U1 - L2, each one-sided bound at 1 - (1 - c)/4
for a two-sided level c (at 1 - (1 - c)/2 for a one-sided bound of the rise). Each sample's own
uncertainty counts, so a baseline of 0/5 is not taken for a certain 0; by the union bound the
rise lies outside with probability at most 1 - c, whatever the sample sizes (Newcombe's score
interval, tried first, let twice the promised false alarms through at Bonferroni levels).

One-sided bounds at level c are the two-sided interval at level 2c - 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from statistics import NormalDist
from typing import Final

from omkd.engine.binomial import exact_lower_bound, exact_upper_bound

DEFAULT_CONFIDENCE: Final = 0.95
METHOD: Final = "wilson-cc"
"""How the interval of a rate is computed (shown in every report's reproducibility block)."""
RISE_METHOD: Final = "clopper-pearson-difference"
GATE_METHOD: Final = "clopper-pearson"
"""The one-sided bound a confident gate compares with its limit."""


def check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")


@lru_cache(maxsize=64)
def z_of(confidence: float) -> float:
    """The normal quantile of a two-sided interval at this level (1.959964 for 0.95)."""
    check_confidence(confidence)
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def two_sided(level: float) -> float:
    """The two-sided level whose lower bound is the one-sided bound at ``level``."""
    check_confidence(level)
    return 2.0 * level - 1.0


def rate_interval(successes: float, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """The continuity-corrected Wilson interval of ``successes`` in ``n`` (successes may be a
    sum of weights in [0, 1]); (0.0, 1.0) when n is 0."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    return _wilson_cc(successes, n, z_of(confidence))


def rate_intervals(
    history: Iterable[tuple[float, int]], confidence: float = DEFAULT_CONFIDENCE
) -> list[tuple[float, float]]:
    """``rate_interval`` of each (successes, n), the quantile looked up once."""
    z = z_of(confidence)
    found = []
    for successes, n in history:
        if n < 0 or not 0 <= successes <= n:
            raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
        found.append(_wilson_cc(successes, n, z))
    return found


def _wilson_cc(successes: float, n: int, z: float) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre, denominator = 2.0 * n * p + z2, 2.0 * (n + z2)
    lower = 0.0
    if successes > 0:
        spread = z * math.sqrt(max(0.0, z2 - 2.0 - 1.0 / n + 4.0 * p * (n * (1.0 - p) + 1.0)))
        lower = max(0.0, (centre - 1.0 - spread) / denominator)
    upper = 1.0
    if successes < n:
        spread = z * math.sqrt(max(0.0, z2 + 2.0 - 1.0 / n + 4.0 * p * (n * (1.0 - p) - 1.0)))
        upper = min(1.0, (centre + 1.0 + spread) / denominator)
    return (lower, upper)


def lower_bound(successes: float, n: int, level: float) -> float:
    """The one-sided lower bound at ``level``: the true rate lies above it with that probability."""
    return rate_interval(successes, n, two_sided(level))[0]


def rise_interval(
    now: tuple[float, int], before: tuple[float, int], confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """The two-sided interval of now's rate minus before's; each a (successes, n) with n > 0."""
    side = 1.0 - (1.0 - confidence) / 4.0
    return (
        _bound(now, side, lower=True) - _bound(before, side, lower=False),
        _bound(now, side, lower=False) - _bound(before, side, lower=True),
    )


def rise_lower_bound(now: tuple[float, int], before: tuple[float, int], level: float) -> float:
    """The one-sided lower bound of the rise at ``level``."""
    side = 1.0 - (1.0 - level) / 2.0
    return _bound(now, side, lower=True) - _bound(before, side, lower=False)


def _bound(sample: tuple[float, int], confidence: float, lower: bool) -> float:
    successes, n = sample
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n with n > 0, got {successes} of {n}")
    return exact_lower_bound(successes, n, confidence) if lower else exact_upper_bound(successes, n, confidence)


PROMQL_DIGITS: Final = 9
"""Decimals of z and z² in the PromQL form: a bound moves by under 1e-8."""


def promql_rate_interval(n: str, p: str, confidence: float = DEFAULT_CONFIDENCE) -> tuple[str, str]:
    """``rate_interval`` as PromQL over the expressions ``n`` (segments) and ``p`` (the rate, no
    sample where n is 0): the recording rules and the dashboard are written with it, so that
    Prometheus computes from summed counters the very bounds omkd shows (checked by the tests)."""
    z = f"{z_of(confidence):.{PROMQL_DIGITS}f}"
    z2 = f"{z_of(confidence) ** 2:.{PROMQL_DIGITS}f}"
    centre, denominator = f"2 * {n} * {p} + {z2}", f"(2 * ({n} + {z2}))"
    lower = (
        f"clamp_min(({centre} - 1 - {z} * sqrt(clamp_min({z2} - 2 - 1 / {n} + 4 * {p} * ({n} * (1 - {p}) + 1), 0)))"
        f" / {denominator}, 0) * ({p} > bool 0)"
    )
    upper = (
        f"clamp_max(({centre} + 1 + {z} * sqrt(clamp_min({z2} + 2 - 1 / {n} + 4 * {p} * ({n} * (1 - {p}) - 1), 0)))"
        f" / {denominator}, 1) * ({p} < bool 1) + ({p} == bool 1)"
    )
    return lower, upper
