"""The Wilson score interval of a proportion, and the checks every interval shares."""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist
from typing import Final

DEFAULT_CONFIDENCE: Final = 0.95


def check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")


@lru_cache(maxsize=64)
def _z(confidence: float) -> float:
    """The normal quantile of a two-sided interval at this level (1.959964 for 0.95)."""
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def wilson_interval(k: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of k successes in n trials; (0.0, 1.0) when n is 0.

    Unlike the normal ("Wald") interval it stays inside [0, 1] and does not collapse to a
    point at k = 0 or k = n, which is where most skills' gap rates sit.
    """
    check_confidence(confidence)
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    z = _z(confidence)
    p = k / n
    z2_n = z * z / n
    denominator = 1.0 + z2_n
    centre = (p + z2_n / 2.0) / denominator
    half_width = z / denominator * math.sqrt(p * (1.0 - p) / n + z2_n / (4.0 * n))
    # At k = 0 (k = n) the bound is exactly 0 (1) in exact arithmetic; floats leave ~1e-17.
    lower = 0.0 if k == 0 else max(0.0, centre - half_width)
    upper = 1.0 if k == n else min(1.0, centre + half_width)
    return (lower, upper)
