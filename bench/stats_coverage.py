"""Do the intervals and gates keep their promises? Exact coverage and false-alarm rates.

Run from the repository root::

    .venv/bin/python bench/stats_coverage.py [--max-n 200] [--out DIR]

Every figure is computed exactly from the sampling distribution (binomial for the gap rate,
trinomial over weights 0, 1/2, 1 for the weighted rate), not simulated, so the run needs no
seed and repeats to the last digit. omkd's own functions compute every interval and bound.

- **Rate interval** (``intervals.rate_interval``, continuity-corrected Wilson, nominal 95 %): its
  coverage P(lower <= p <= upper) for n = 1..max-n and p on a grid including 0 and 1; for the
  weighted rate the same over mixes of segment weights (the true rate is the mean weight).
- **Rise interval** (``intervals.rise_interval``, nominal 95 %): its coverage of p_now - p_before
  with both samples random, n_before and n_now on a grid, both rates on a grid.
- **Confident gates** (``--confident``, alpha 0.05, Bonferroni over K = 1, 10, 50): the family-wise
  false-alarm rate when all K skills sit exactly at the limit (the worst case of the null), for the
  gap rate (exact Clopper-Pearson bound), the weighted rate (the same on the weight sum, every
  split of the limit between half and full weights) and the regression gate (a rise of exactly
  the allowance, both samples random).

Targets (issue 13): coverage >= 0.94 averaged over the grid and >= 0.90 at every point;
family-wise false-alarm rate <= alpha.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Sequence
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from common import DEFAULT_OUT, heading, save, status, this_run

from omkd.engine import intervals, stats
from omkd.engine.binomial import exact_lower_bound, exact_upper_bound

NOMINAL: Final = 0.95
AVERAGE_AT_LEAST: Final = 0.94
EVERY_POINT_AT_LEAST: Final = 0.90
ALPHA: Final = 0.05
FAMILIES: Final = (1, 10, 50)
RATES: Final = (0.0, 0.001, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 1.0)
WEIGHT_MIXES: Final = (
    # P(weight 0), P(weight 1/2), P(weight 1)
    (1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (0.9, 0.1, 0.0), (0.9, 0.0, 0.1), (0.5, 0.5, 0.0),
    (0.5, 0.0, 0.5), (0.7, 0.2, 0.1), (0.2, 0.6, 0.2), (0.1, 0.1, 0.8), (0.98, 0.02, 0.0), (0.33, 0.34, 0.33),
    (0.8, 0.1, 0.1), (0.6, 0.3, 0.1),
)  # fmt: skip
RISE_SIZES: Final = (1, 2, 5, 10, 23, 50, 100, 200)
RISE_RATES: Final = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0)
GATE_SIZES: Final = (5, 8, 12, 20, 35, 60, 100, 200)
GATE_LIMITS: Final = (0.05, 0.1, 0.2, 0.3, 0.5)
HALF_SHARES: Final = (0.0, 0.5, 1.0)
"""Share of the weighted limit carried by half-weight segments."""
REGRESSION_SIZES: Final = (5, 10, 23, 50, 100, 200)
REGRESSION_BEFORE: Final = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)
REGRESSION_ALLOWANCES: Final = (0.0, 0.1)


def binomial_pmf(n: int, p: float) -> npt.NDArray[np.float64]:
    """P(X = k) for k = 0..n."""
    if p in (0.0, 1.0):
        pmf = np.zeros(n + 1)
        pmf[0 if p == 0.0 else n] = 1.0
        return pmf
    k = np.arange(n + 1)
    log_choose = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(n + 1)])
    return np.asarray(np.exp(log_choose + k * math.log(p) + (n - k) * math.log1p(-p)))


def weight_sum_pmf(n: int, mix: tuple[float, float, float]) -> npt.NDArray[np.float64]:
    """P(2 S = j) for j = 0..2n, S the sum of n weights drawn from ``mix``."""
    _, half, full = mix
    pmf = np.zeros(2 * n + 1)
    full_pmf = binomial_pmf(n, full)
    for f in range(n + 1):
        if full_pmf[f] == 0.0:
            continue
        rest = n - f
        share = half / (1.0 - full) if full < 1.0 else 0.0
        pmf[2 * f + np.arange(rest + 1)] += full_pmf[f] * binomial_pmf(rest, min(1.0, share))  # 2S = 2f + h
    return pmf


@cache
def halves_intervals(n: int) -> npt.NDArray[np.float64]:
    """(2n + 1, 2): the rate interval of S = j/2 in n, for j = 0..2n."""
    return np.array(intervals.rate_intervals([(j / 2, n) for j in range(2 * n + 1)], NOMINAL))


@cache
def exact_bounds(n: int, level: float, halves: bool) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """One-sided Clopper-Pearson (lower, upper) bounds at ``level`` of every count (or half-count)."""
    steps = 2 * n + 1 if halves else n + 1
    scale = 0.5 if halves else 1.0
    lower = np.array([exact_lower_bound(j * scale, n, level) for j in range(steps)])
    upper = np.array([exact_upper_bound(j * scale, n, level) for j in range(steps)])
    return lower, upper


def rate_coverage(max_n: int) -> dict[str, Any]:
    points = []
    for n in range(1, max_n + 1):
        bounds = halves_intervals(n)[::2]  # whole counts
        for p in RATES:
            inside = (bounds[:, 0] <= p + 1e-12) & (p - 1e-12 <= bounds[:, 1])
            points.append((float(binomial_pmf(n, p)[inside].sum()), n, p))
    return summary(points)


def weighted_coverage(max_n: int) -> dict[str, Any]:
    points = []
    for n in range(1, max_n + 1):
        bounds = halves_intervals(n)
        for mix in WEIGHT_MIXES:
            mean = mix[1] / 2 + mix[2]
            inside = (bounds[:, 0] <= mean + 1e-12) & (mean - 1e-12 <= bounds[:, 1])
            points.append((float(weight_sum_pmf(n, mix)[inside].sum()), n, mix))
    return summary(points)


def rise_coverage() -> dict[str, Any]:
    side = 1.0 - (1.0 - NOMINAL) / 4.0
    points = []
    for n_before in RISE_SIZES:
        low_b, up_b = exact_bounds(n_before, side, halves=False)
        for n_now in RISE_SIZES:
            low_n, up_n = exact_bounds(n_now, side, halves=False)
            lower = low_n[None, :] - up_b[:, None]
            upper = up_n[None, :] - low_b[:, None]
            for p_before in RISE_RATES:
                for p_now in RISE_RATES:
                    joint = np.outer(binomial_pmf(n_before, p_before), binomial_pmf(n_now, p_now))
                    rise = p_now - p_before
                    inside = (lower <= rise + 1e-12) & (rise - 1e-12 <= upper)
                    points.append((float(joint[inside].sum()), (n_before, n_now), (p_before, p_now)))
    return summary(points)


def summary(points: list[tuple[float, Any, Any]]) -> dict[str, Any]:
    worst = min(points, key=lambda point: point[0])
    mean = statistics.fmean(point[0] for point in points)
    return {
        "points": len(points),
        "mean": mean,
        "min": worst[0],
        "min_at": {"n": worst[1], "rate": worst[2]},
        "pass": mean >= AVERAGE_AT_LEAST and worst[0] >= EVERY_POINT_AT_LEAST,
    }


def family_rate(per_skill: float, family: int) -> float:
    """P(at least one false alarm) among ``family`` independent skills each at ``per_skill``."""
    return 1.0 - (1.0 - per_skill) ** family


def gate_false_alarms() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for family in FAMILIES:
        level = stats.corrected_confidence(ALPHA, family)
        nothing: tuple[float, dict[str, Any] | None] = (0.0, None)
        rate_worst = weighted_worst = regression_worst = nothing
        for n in GATE_SIZES:
            lower, _ = exact_bounds(n, level, halves=False)
            half_lower, _ = exact_bounds(n, level, halves=True)
            for limit in GATE_LIMITS:
                alarm = float(binomial_pmf(n, limit)[lower > limit].sum())
                rate_worst = max(rate_worst, (alarm, {"n": n, "limit": limit}), key=lambda item: item[0])
                for share in HALF_SHARES:
                    half = min(1.0, 2.0 * limit * share)
                    full = limit - half / 2.0
                    mix = (1.0 - half - full, half, full)
                    alarm = float(weight_sum_pmf(n, mix)[half_lower > limit].sum())
                    where = {"n": n, "limit": limit, "half_share": share}
                    weighted_worst = max(weighted_worst, (alarm, where), key=lambda item: item[0])
        side = 1.0 - (1.0 - level) / 2.0
        for n_before in REGRESSION_SIZES:
            _, up_b = exact_bounds(n_before, side, halves=False)
            for n_now in REGRESSION_SIZES:
                low_n, _ = exact_bounds(n_now, side, halves=False)
                lower_rise = low_n[None, :] - up_b[:, None]
                for p_before in REGRESSION_BEFORE:
                    for allowance in REGRESSION_ALLOWANCES:
                        p_now = p_before + allowance
                        joint = np.outer(binomial_pmf(n_before, p_before), binomial_pmf(n_now, p_now))
                        alarm = float(joint[lower_rise > allowance].sum())
                        where = {"n_before": n_before, "n_now": n_now, "before": p_before, "allowance": allowance}
                        regression_worst = max(regression_worst, (alarm, where), key=lambda item: item[0])
        found[str(family)] = {
            gate: {"per_skill": worst[0], "family_wise": family_rate(worst[0], family), "at": worst[1]}
            for gate, worst in (
                ("gap_rate", rate_worst),
                ("weighted_gap_rate", weighted_worst),
                ("gap_rate_rise", regression_worst),
            )
        }
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--max-n", type=int, default=200)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where stats_coverage.json goes")
    args = parser.parse_args(argv)
    this = this_run(__file__, argv)
    coverage = {
        f"gap rate ({intervals.METHOD})": rate_coverage(args.max_n),
        f"weighted gap rate ({intervals.METHOD} on the weight sum)": weighted_coverage(args.max_n),
        f"rise ({intervals.RISE_METHOD})": rise_coverage(),
    }
    gates = gate_false_alarms()
    lines = [
        *heading("Interval coverage and gate false alarms", this),
        f"Coverage of the nominal {NOMINAL:.0%} (n = 1..{args.max_n} for the rates; "
        f"targets: mean >= {AVERAGE_AT_LEAST}, every point >= {EVERY_POINT_AT_LEAST})",
        "",
        "| interval | grid points | mean | min | min at | verdict |",
        "|---|---:|---:|---:|---|---|",
        *(
            f"| {name} | {row['points']} | {row['mean']:.4f} | {row['min']:.4f} | "
            f"n={row['min_at']['n']}, rate={row['min_at']['rate']} | {status(row['pass'])} |"
            for name, row in coverage.items()
        ),
        "",
        f"Family-wise false-alarm rate of the --confident gates, all K skills at the limit (alpha {ALPHA})",
        "",
        "| K | gate | worst per skill | family-wise | worst at | verdict |",
        "|---:|---|---:|---:|---|---|",
        *(
            f"| {family} | {gate} | {row['per_skill']:.5f} | {row['family_wise']:.5f} | "
            f"{', '.join(f'{k}={v}' for k, v in row['at'].items())} | {status(row['family_wise'] <= ALPHA)} |"
            for family, by_gate in gates.items()
            for gate, row in by_gate.items()
        ),
    ]
    document = {**asdict(this), "coverage": coverage, "false_alarms": gates, "alpha": ALPHA}
    save(args.out, "stats_coverage.json", document, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
