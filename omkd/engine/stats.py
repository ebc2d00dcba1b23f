"""How sure a gap rate is: intervals, multiple-comparison correction, saturation and trends.

A gap rate over a handful of segments is a guess; this module says how wide the guess is,
so that status, gates and dashboards can tell a confident colour from an indicative one. It
holds the Wilson score interval for ``gap_rate``, a percentile bootstrap for
``weighted_gap_rate`` (whose per-segment weights are 0, 0.5 or 1, so a resample is just a
multinomial draw of three counts) and for the rise of a rate against a baseline, an exact
binomial test and the Bonferroni correction for gating many skills at once, the saturation
test ("have we seen enough segments?"), the coefficient of variation of a rate across
windows, the sample-evolution nudge (spec §7) and bands that respect an interval.

Everything is pure: no I/O, no clock, no global random state. Each bootstrap seeds its own
PCG64 generator from a hash of its inputs, so identical counts give byte-identical intervals
in every run and process, whatever the skill is called and in whatever order skills are
computed. (NumPy does not promise the same ``Generator`` streams across its releases, so an
upgrade of NumPy may move the Monte Carlo figures within their sampling error.)
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Sequence
from functools import lru_cache
from statistics import NormalDist, fmean, stdev
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from omkd.engine.binomial import binomial_tail, exact_lower_bound, rate_exceeds
from omkd.engine.health import RED_AT, YELLOW_AT, health_band

__all__ = ["binomial_tail", "exact_lower_bound", "rate_exceeds"]

DEFAULT_CONFIDENCE: Final = 0.95
DEFAULT_RESAMPLES: Final = 1000
SATURATION_THRESHOLD: Final = 0.05
SATURATION_STEPS: Final = 3
UNSTABLE_CV_ABOVE: Final = 0.15
NUDGE_CEILING: Final = 0.10
NUDGE_WINDOWS: Final = 3
NUDGE_MESSAGE: Final = (
    "gap rate has stayed under 10 % for 3 windows: widen the tasks this skill is exercised on, "
    "or the low rate may only mean the tasks avoid its edges."
)
BOOTSTRAP_CACHE_SIZE: Final = 8192
"""Distinct (counts, confidence, resamples, seed) intervals remembered: about 2 MB at most."""

Counts = tuple[int, int, int]
"""Segments of weight 0, 0.5 and 1.0. A plain gap rate k/n is ``(n - k, 0, k)``."""

_SEED_DOMAIN: Final = "omkd.stats.bootstrap.v1"


# --- Wilson score interval ---------------------------------------------------------------------


def _check_confidence(confidence: float) -> None:
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
    _check_confidence(confidence)
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


# --- bootstrap of the mean weight --------------------------------------------------------------


def _check_counts(counts: Sequence[int]) -> None:
    if len(counts) != 3 or any(c < 0 for c in counts):
        raise ValueError(f"counts must be three non-negative integers (weight 0, 0.5, 1.0), got {counts!r}")


def _check_resamples(resamples: int) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")


def _derived_seed(*parts: object) -> int:
    """A seed that depends only on the inputs: stable across runs, processes and platforms.

    ``hash()`` is salted per process for strings, so the seed comes from blake2b over the
    inputs' reprs (``repr`` of an int or float is exact and stable).
    """
    text = ":".join([_SEED_DOMAIN, *(repr(part) for part in parts)])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _resampled_sums(rng: np.random.Generator, counts: Counts, resamples: int) -> npt.NDArray[np.int64]:
    """Twice the resampled weight sum (halves + 2 x ones) of each resample: integers, so exact."""
    n = sum(counts)
    draws = rng.multinomial(n, np.array(counts, dtype=np.float64) / n, size=resamples)
    return np.asarray(draws[:, 1] + 2 * draws[:, 2], dtype=np.int64)


def _percentiles(values: npt.NDArray[np.int64], confidence: float) -> tuple[float, float]:
    """The (1 - c)/2 and (1 + c)/2 percentiles, interpolated linearly between order statistics.

    The same definition as numpy's default ``linear`` method (Hyndman-Fan type 7), written
    out so the arithmetic is plain Python floats over integer order statistics.
    """
    last = len(values) - 1
    alpha = 1.0 - confidence
    positions = (alpha / 2.0 * last, (1.0 - alpha / 2.0) * last)
    kth = sorted({min(math.floor(h) + step, last) for h in positions for step in (0, 1)})
    ordered = np.partition(values, kth)

    def at(position: float) -> float:
        below = math.floor(position)
        above = min(below + 1, last)
        low, high = int(ordered[below]), int(ordered[above])
        return low + (position - below) * (high - low)

    return (at(positions[0]), at(positions[1]))


@lru_cache(maxsize=BOOTSTRAP_CACHE_SIZE)
def _weighted_interval(counts: Counts, confidence: float, resamples: int, seed: int | None) -> tuple[float, float]:
    n = sum(counts)
    if n == 0:
        return (0.0, 1.0)
    if counts.count(0) == 2:
        # One weight only: every resample is that weight. Drawing would return the same.
        mean = (counts[1] + 2 * counts[2]) / (2 * n)
        return (mean, mean)
    if seed is None:
        seed = _derived_seed("weighted", *counts, resamples, confidence)
    rng = np.random.Generator(np.random.PCG64(seed))
    lower, upper = _percentiles(_resampled_sums(rng, counts, resamples), confidence)
    return (lower / (2 * n), upper / (2 * n))


def bootstrap_weighted_interval(
    n_zero: int,
    n_half: int,
    n_one: int,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean segment weight (``weighted_gap_rate``).

    ``resamples`` multinomial draws of n segments over the three weights, in one call to a
    PCG64 generator seeded with ``seed`` or, when it is None, from the counts, ``resamples``
    and ``confidence``. (0.0, 1.0) when there are no segments. When all segments share one
    weight every resample does too and the interval is that single point: a bootstrap cannot
    see variation the sample lacks, so at k = 0 it says (0, 0) where Wilson says (0, 0.28)
    for n = 10. Results are cached by their arguments.
    """
    counts = (int(n_zero), int(n_half), int(n_one))
    _check_counts(counts)
    _check_confidence(confidence)
    _check_resamples(resamples)
    return _weighted_interval(counts, float(confidence), int(resamples), seed)


def bootstrap_weighted_intervals(
    counts: npt.NDArray[np.integer[Any]],
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> npt.NDArray[np.float64]:
    """``bootstrap_weighted_interval`` for each row of a (K, 3) array of counts: a (K, 2) array.

    Row i is exactly what the scalar function returns for row i (same seed, same draws): each
    row has its own generator, so a batch is a loop over rows, served from the shared cache.
    """
    matrix = np.asarray(counts)
    if matrix.ndim != 2 or matrix.shape[1] != 3 or not np.issubdtype(matrix.dtype, np.integer):
        raise ValueError(f"counts must be an integer array of shape (K, 3), got {matrix.dtype} {matrix.shape}")
    if (matrix < 0).any():
        raise ValueError("counts must be non-negative")
    _check_confidence(confidence)
    _check_resamples(resamples)
    out = np.empty((matrix.shape[0], 2), dtype=np.float64)
    for i, (n_zero, n_half, n_one) in enumerate(matrix.tolist()):
        out[i] = _weighted_interval((n_zero, n_half, n_one), float(confidence), int(resamples), seed)
    return out


def clear_bootstrap_cache() -> None:
    """Forget every cached bootstrap interval (benchmarks measure the cold path with it)."""
    _weighted_interval.cache_clear()


def bootstrap_difference_interval(
    before: Counts,
    after: Counts,
    confidence: float = DEFAULT_CONFIDENCE,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(after) - mean(before), each side resampled apart.

    Pass ``(n - k, 0, k)`` per side for the plain gap rate, the three weight counts for the
    weighted one. (-1.0, 1.0) when either side has no segments. Seeded like
    ``bootstrap_weighted_interval``, from both sides' counts when ``seed`` is None.
    """
    before = (int(before[0]), int(before[1]), int(before[2]))
    after = (int(after[0]), int(after[1]), int(after[2]))
    _check_counts(before)
    _check_counts(after)
    _check_confidence(confidence)
    _check_resamples(resamples)
    n_before, n_after = sum(before), sum(after)
    if n_before == 0 or n_after == 0:
        return (-1.0, 1.0)
    if seed is None:
        seed = _derived_seed("difference", *before, *after, resamples, float(confidence))
    rng = np.random.Generator(np.random.PCG64(seed))
    sums_before = _resampled_sums(rng, before, resamples)
    sums_after = _resampled_sums(rng, after, resamples)
    # after/(2 n_a) - before/(2 n_b) over a common denominator keeps the draws integers.
    numerators = sums_after * n_before - sums_before * n_after
    lower, upper = _percentiles(numerators, confidence)
    denominator = 2 * n_before * n_after
    return (lower / denominator, upper / denominator)


def is_significant_rise(interval: tuple[float, float], by: float = 0.0) -> bool:
    """The whole interval of after - before lies above ``by`` (0: any rise at all)."""
    return interval[0] > by


# --- many skills at once -----------------------------------------------------------------------


def bonferroni(alpha: float, tests: int) -> float:
    """The per-test level that keeps the family-wise false-alarm rate at or under ``alpha``."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    if tests < 1:
        raise ValueError(f"tests must be at least 1, got {tests}")
    return alpha / tests


def corrected_confidence(alpha: float, tests: int) -> float:
    """The confidence level each of ``tests`` intervals is computed at: 1 - alpha / tests."""
    return 1.0 - bonferroni(alpha, tests)


def confidence_label(confidence: float) -> str:
    """``0.975`` -> ``"97.5 %"``: a widened interval must never be labelled "95 %"."""
    _check_confidence(confidence)
    return f"{confidence * 100:.6g} %"


# --- have we seen enough? ----------------------------------------------------------------------


def interval_widths(history: Sequence[tuple[int, int]], confidence: float = DEFAULT_CONFIDENCE) -> list[float]:
    """The Wilson width (upper - lower) at each step of a cumulative (k, n) history.

    A step should be a window (a day's roll-up), not a segment: adding one segment at n
    shrinks the width by about 1/(2n), under 5 % from n = 10 whatever the data say.
    """
    widths = []
    for k, n in history:
        lower, upper = wilson_interval(k, n, confidence)
        widths.append(upper - lower)
    return widths


def is_saturated(
    widths: Sequence[float], threshold: float = SATURATION_THRESHOLD, steps: int = SATURATION_STEPS
) -> bool:
    """Saturated when each of the last ``steps`` steps changed the width by under ``threshold``.

    The change is relative to the previous width and counted in either direction: a width that
    grows by 5 % or more means the estimate is still moving, which is not saturation.
    """
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    if len(widths) < steps + 1:
        return False
    recent = widths[-(steps + 1) :]
    for previous, current in itertools.pairwise(recent):
        if previous <= 0.0:
            if current != previous:
                return False
            continue
        if abs(previous - current) / previous >= threshold:
            return False
    return True


# --- stability over time, and the nudge --------------------------------------------------------


def coefficient_of_variation(values: Sequence[float]) -> float | None:
    """Sample standard deviation (n - 1) over the mean; None with under 2 values or mean 0.

    The values are a few windows out of an ongoing series, so they are a sample: the
    population formula would understate the spread by sqrt((n - 1)/n) (0.71 at two windows,
    0.91 at five) and so under-report exactly the instability this figure is there to catch.
    """
    if len(values) < 2:
        return None
    mean = fmean(values)
    if mean == 0.0:
        return None
    return stdev(values) / abs(mean)


def trend_unstable(cv: float | None, threshold: float = UNSTABLE_CV_ABOVE) -> bool:
    """The rate moves by more than ``threshold`` of its mean from window to window.

    An unmeasured CV (None) is not called unstable: there is nothing to say yet.
    """
    return cv is not None and cv > threshold


def nudge(
    daily_gap_rates: Sequence[float | None], ceiling: float = NUDGE_CEILING, windows: int = NUDGE_WINDOWS
) -> bool:
    """The last ``windows`` windows with data all had a gap rate at or under ``ceiling`` (spec §7).

    None marks a window without segments; it is skipped, neither breaking nor extending a run.
    Show ``NUDGE_MESSAGE`` when this is true; it is a hint, never a failure.
    """
    if windows < 1:
        raise ValueError(f"windows must be at least 1, got {windows}")
    observed = [rate for rate in daily_gap_rates if rate is not None]
    return len(observed) >= windows and all(rate <= ceiling for rate in observed[-windows:])


# --- bands that respect the interval -----------------------------------------------------------


def confident_band(lower: float, upper: float, weighted: float) -> tuple[str, bool]:
    """The health band of ``weighted`` and whether the interval (lower, upper) backs it.

    red is confident when the lower bound is at or above 0.30, yellow when it is at or above
    0.10 (surely not green; it may still be red), green when the upper bound is under 0.10.
    Anything else is indicative. Bounds that collapse to a point (a bootstrap at k = 0 gives
    (0, 0)) would make every gap-free skill a confident green: pass bounds that cannot
    collapse, such as Wilson's upper bound on gap_rate, which also bounds weighted_gap_rate.
    """
    if lower > upper:
        raise ValueError(f"lower bound {lower} is above upper bound {upper}")
    band = health_band(weighted)
    if band == "red":
        return (band, lower >= RED_AT)
    if band == "yellow":
        return (band, lower >= YELLOW_AT)
    return (band, upper < YELLOW_AT)
