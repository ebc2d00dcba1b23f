"""What the interval statistics cost a status or a scrape: 1,000 skills, every figure from cold.

Run from the repository root::

    .venv/bin/python bench/stats_bench.py [--skills 1000] [--days 7] [--runs 5]

Counts are random but shaped like real skills (fixed seed): segments per skill log-normal with a
median of 20 (1..2,000), a true gap rate drawn from Beta(1.2, 6) (mean 0.17), gaps binomial, each
gap segment weak (weight 0.5) with a probability drawn from Beta(2, 3), the segments spread over
``--days`` days.

Measured, each as the best of ``--runs`` (median in brackets), with ``time.perf_counter``, and
nothing cached between runs (the z-quantile and day-name caches are cleared before each):

- ``derive``: ``figures.derive`` for every skill: both rates' continuity-corrected Wilson
  intervals, tier and band, as the window gauges and the report compute them.
- ``derive + assess``: the same, plus ``certainty.assess`` (interval widths by day for
  saturation, the trend's CV, the nudge): everything a report row holds.
- ``confident gates``: the exact Clopper-Pearson lower bound of both rates at 1 - 0.05/K for every
  skill, as ``scan --confident`` computes them.

The target is 20 ms for the cold computation of 1,000 skills. The machine's load average is
printed: on a shared VM the figures move with it. Every run's milliseconds go to
``bench/out/stats_bench.json`` (``--out DIR``).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Final

import numpy as np
from common import DEFAULT_OUT, save, status, this_run

from omkd.engine import certainty, figures, intervals, stats
from omkd.engine.binomial import exact_lower_bound
from omkd.engine.counters import GapCounts

TARGET_MS: Final = 20.0
COUNTS_SEED: Final = 20261130
ALPHA: Final = 0.05


def realistic_skills(
    skills: int, days: int, seed: int = COUNTS_SEED
) -> list[tuple[GapCounts, list[tuple[int, GapCounts]]]]:
    """Per skill: its window's counts and the same counts split over ``days`` days."""
    rng = np.random.default_rng(seed)
    segments = np.clip(np.round(rng.lognormal(np.log(20), 1.0, skills)), 1, 2000).astype(np.int64)
    gaps = rng.binomial(segments, rng.beta(1.2, 6.0, skills))
    weak = rng.binomial(gaps, rng.beta(2.0, 3.0, skills))
    found = []
    for n, k, half in zip(segments.tolist(), gaps.tolist(), weak.tolist(), strict=True):
        weights = [0.0] * (n - k) + [0.5] * half + [1.0] * (k - half)
        day_of = rng.integers(0, days, n)
        by_day: dict[int, GapCounts] = {}
        for weight, day in zip(weights, day_of.tolist(), strict=True):
            by_day.setdefault(day, GapCounts()).count(weight)
        found.append((GapCounts(n, k, half), sorted(by_day.items())))
    return found


def timed(action: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds of ``action`` per run, from cold (the quantile cache cleared)."""
    times = []
    for _ in range(runs):
        intervals.z_of.cache_clear()
        certainty._iso_day.cache_clear()
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where stats_bench.json goes")
    args = parser.parse_args(argv)
    this = this_run(__file__, argv)
    skills = realistic_skills(args.skills, args.days)
    level = stats.corrected_confidence(ALPHA, args.skills)

    def derive() -> None:
        for counts, _ in skills:
            figures.derive(counts)

    def report_rows() -> None:
        for counts, days in skills:
            certainty.assess(figures.derive(counts), days)

    def gates() -> None:
        for counts, _ in skills:
            exact_lower_bound(counts.gap_segments, counts.segments, level)
            exact_lower_bound(counts.weight_sum, counts.segments, level)

    measured = {"derive": timed(derive, args.runs), "derive + assess": timed(report_rows, args.runs)}
    measured["confident gates"] = timed(gates, args.runs)

    def row(label: str, times: list[float]) -> str:
        verdict = status(min(times) <= TARGET_MS) if label != "confident gates" else "(CI only)"
        return f"| {label} | {min(times):.2f} | {statistics.median(times):.2f} | {verdict} |"

    load = os.getloadavg()
    sizes = [counts.segments for counts, _ in skills]
    lines = [
        f"{args.skills} skills (median {int(np.median(sizes))} segments, max {max(sizes)}) over {args.days} days, "
        f"best of {args.runs} runs, nothing cached",
        f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
        "",
        f"| step | best ms | median ms | target <= {TARGET_MS:.0f} ms |",
        "|---|---:|---:|---|",
        *(row(label, times) for label, times in measured.items()),
    ]
    document = {
        **asdict(this),
        "load_average": list(load),
        "skills": args.skills,
        "days": args.days,
        "target_ms": TARGET_MS,
        "milliseconds": measured,
    }
    save(args.out, "stats_bench.json", document, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
