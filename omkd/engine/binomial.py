"""The exact binomial test and its bounds (Clopper-Pearson): gates that never cry wolf more than alpha.

A rate gate over K skills with a Bonferroni correction keeps its family-wise false-alarm
rate at or under alpha only with an exact test: at the levels Bonferroni asks for (99.9 % one-
sided over 50 skills) the normal approximation behind the Wilson interval lets 0.8 % of skills
at the limit through where 0.1 % may pass (``bench/stats_coverage.py``). The successes may be a
sum of weights in [0, 1] (the weighted gap rate): the incomplete beta takes any real k, and a
variable in [0, 1] spreads at most as a 0/1 one does, which the simulation bears out. The
incomplete beta function is computed here (modified Lentz continued fraction) so the project
needs no SciPy.
"""

from __future__ import annotations

import math
from typing import Final

_BETA_MAX_TERMS: Final = 10_000
_BETA_TOLERANCE: Final = 1e-15
_BISECTION_STEPS: Final = 60


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, _BETA_MAX_TERMS + 1):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            step = c * d
            result *= step
        if abs(step - 1.0) < _BETA_TOLERANCE:
            return result
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def _regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 < x < 1."""
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    # The fraction converges fast on this side of the mean; use the symmetry on the other.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _continued_fraction(a, b, x) / a
    return 1.0 - front * _continued_fraction(b, a, 1.0 - x) / b


def binomial_tail(k: float, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p): the exact one-sided p-value of k gaps in n segments."""
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must lie in [0, 1], got {p!r}")
    if k == 0 or p == 1.0:
        return 1.0
    if p == 0.0:
        return 0.0
    return min(1.0, max(0.0, _regularized_beta(k, n - k + 1, p)))


def rate_exceeds(k: float, n: int, threshold: float, alpha: float) -> bool:
    """k gaps in n segments are too many for a true rate at or under ``threshold``, at level alpha.

    The exact one-sided binomial test, P(X >= k | n, threshold) <= alpha; the same as "the
    one-sided Clopper-Pearson lower bound at 1 - alpha is above threshold". It never raises a
    false alarm more often than alpha, whatever n is, so with ``alpha = bonferroni(a, K)`` a
    gate over K skills keeps its family-wise false-alarm rate at or under a. Wilson's lower
    bound does not: at a true rate of 0.10 and n = 5, "2 gaps of 5" already puts it at 0.118,
    and that happens 8 % of the time.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    if n == 0:
        return False
    return binomial_tail(k, n, threshold) <= alpha


def exact_lower_bound(k: float, n: int, confidence: float) -> float:
    """The one-sided Clopper-Pearson lower bound: the least p with P(X >= k | n, p) > 1 - confidence.

    ``exact_lower_bound(k, n, 1 - alpha) > threshold`` exactly when ``rate_exceeds(k, n,
    threshold, alpha)``; this is the figure to print beside that verdict.
    """
    if n == 0 or k == 0:
        return 0.0
    alpha = 1.0 - confidence
    low, high = 0.0, k / n
    for _ in range(_BISECTION_STEPS):
        middle = (low + high) / 2
        if binomial_tail(k, n, middle) <= alpha:
            low = middle
        else:
            high = middle
    return low


def exact_upper_bound(k: float, n: int, confidence: float) -> float:
    """The one-sided Clopper-Pearson upper bound (the lower bound of the failures, mirrored)."""
    if n == 0:
        return 1.0
    return 1.0 - exact_lower_bound(n - k, n, confidence)
