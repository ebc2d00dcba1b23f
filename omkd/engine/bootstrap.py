"""Percentile bootstrap intervals of a mean segment weight, and of the rise of one against another.

Segment weights are 0, 0.5 or 1, so a resample is a multinomial draw of three counts. Each
bootstrap seeds its own PCG64 generator from a hash of its inputs, so identical counts give
byte-identical intervals in every run and process, whatever the skill is called and in
whatever order skills are computed. (NumPy does not promise the same ``Generator`` streams
across its releases, so an upgrade of NumPy may move the figures within their sampling error.)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from omkd.engine.intervals import DEFAULT_CONFIDENCE, check_confidence

DEFAULT_RESAMPLES: Final = 1000
BOOTSTRAP_CACHE_SIZE: Final = 8192
"""Distinct (counts, confidence, resamples, seed) intervals remembered: about 2 MB at most."""

Counts = tuple[int, int, int]
"""Segments of weight 0, 0.5 and 1.0. A plain gap rate k/n is ``(n - k, 0, k)``."""

_SEED_DOMAIN: Final = "omkd.stats.bootstrap.v1"


# --- bootstrap of the mean weight --------------------------------------------------------------


def _check_counts(counts: Sequence[int]) -> None:
    if len(counts) != 3 or any(c < 0 for c in counts):
        raise ValueError(f"counts must be three non-negative integers (weight 0, 0.5, 1.0), got {counts!r}")


def _check_resamples(resamples: int) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")


def derived_seed(*parts: object) -> int:
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
        seed = derived_seed("weighted", *counts, resamples, confidence)
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
    check_confidence(confidence)
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
    check_confidence(confidence)
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
    check_confidence(confidence)
    _check_resamples(resamples)
    n_before, n_after = sum(before), sum(after)
    if n_before == 0 or n_after == 0:
        return (-1.0, 1.0)
    if seed is None:
        seed = derived_seed("difference", *before, *after, resamples, float(confidence))
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
