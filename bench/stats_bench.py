"""What the interval statistics add to a status or a scrape: 1,000 skills, Wilson + bootstrap.

Run from the repository root::

    .venv/bin/python bench/stats_bench.py [--skills 1000] [--resamples 1000] [--runs 5] [--changed-percent 1]

Counts are random but shaped like real skills (fixed seed): segments per skill log-normal with a
median of 20 (1..2,000), a true gap rate drawn from Beta(1.2, 6) (mean 0.17), gaps binomial, and
each gap segment weak (weight 0.5) with a probability drawn from Beta(2, 3). About a fifth of the
skills then have no gap at all, and their bootstrap needs no draws.

Measured, each as the best of ``--runs`` (median in brackets), with ``time.perf_counter``:

- ``wilson``: ``wilson_interval`` for every skill.
- ``bootstrap cold``: ``bootstrap_weighted_intervals`` right after ``clear_bootstrap_cache()``.
- ``bootstrap warm``: the same call again, every row served from the cache.
- ``bootstrap, N skills changed``: warm cache, but ``--changed-percent`` (1 %) of the skills
  gained a segment since the last call, as between two scrapes of a running daemon.

The target is 20 ms added to a status or scrape (Wilson + bootstrap). The machine's load average
is printed: on a shared VM the cold figure moves with it. Every run's milliseconds go to
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
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from common import DEFAULT_OUT, save, status, this_run

from omkd.engine import stats

TARGET_MS: Final = 20.0
COUNTS_SEED: Final = 20261130


def realistic_counts(skills: int, seed: int = COUNTS_SEED) -> npt.NDArray[np.int64]:
    """(skills, 3) counts of segments with weight 0, 0.5 and 1.0."""
    rng = np.random.default_rng(seed)
    segments = np.clip(np.round(rng.lognormal(np.log(20), 1.0, skills)), 1, 2000).astype(np.int64)
    gaps = rng.binomial(segments, rng.beta(1.2, 6.0, skills))
    weak = rng.binomial(gaps, rng.beta(2.0, 3.0, skills))
    return np.stack([segments - gaps, weak, gaps - weak], axis=1).astype(np.int64)


def timed(action: Callable[[], object], runs: int, before: Callable[[], object] | None = None) -> list[float]:
    """Milliseconds of ``action`` per run; ``before`` runs untimed ahead of each."""
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=stats.DEFAULT_RESAMPLES)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--changed-percent", type=float, default=1.0, help="skills changed since the last call")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where stats_bench.json goes")
    args = parser.parse_args(argv)
    this = this_run(__file__, argv)

    counts = realistic_counts(args.skills)
    segments = counts.sum(axis=1)
    gaps = counts[:, 1] + counts[:, 2]
    pairs = list(zip(gaps.tolist(), segments.tolist(), strict=True))
    single_weight = int(((counts > 0).sum(axis=1) <= 1).sum())
    changed = counts.copy()
    changed_skills = max(1, round(args.skills * args.changed_percent / 100))
    changed[np.arange(changed_skills) * (args.skills // changed_skills), 0] += 1  # one more clean segment

    def wilson() -> None:
        for k, n in pairs:
            stats.wilson_interval(k, n)

    def bootstrap(table: npt.NDArray[Any]) -> Callable[[], object]:
        return lambda: stats.bootstrap_weighted_intervals(table, resamples=args.resamples)

    wilson_ms = timed(wilson, args.runs)
    cold_ms = timed(bootstrap(counts), args.runs, before=stats.clear_bootstrap_cache)
    warm_ms = timed(bootstrap(counts), args.runs)

    def warm_original() -> None:
        stats.clear_bootstrap_cache()
        stats.bootstrap_weighted_intervals(counts, resamples=args.resamples)

    changed_ms = timed(bootstrap(changed), args.runs, before=warm_original)

    def row(label: str, times: list[float], with_wilson: bool = False) -> str:
        best = min(times) + (min(wilson_ms) if with_wilson else 0.0)
        verdict = status(best <= TARGET_MS) if with_wilson else ""
        return f"| {label} | {min(times):.2f} | {statistics.median(times):.2f} | {best:.2f} | {verdict} |"

    load = os.getloadavg()
    drawn = args.skills - single_weight
    lines = [
        f"{args.skills} skills (median {int(np.median(segments))} segments, max {int(segments.max())}; "
        f"{single_weight} with a single weight, no draws), {args.resamples} resamples, best of {args.runs} runs",
        f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
        "",
        f"| step | best ms | median ms | with Wilson, best ms | target <= {TARGET_MS:.0f} ms |",
        "|---|---:|---:|---:|---|",
        row("wilson", wilson_ms),
        row("bootstrap cold (empty cache)", cold_ms, with_wilson=True),
        row("bootstrap warm (all cached)", warm_ms, with_wilson=True),
        row(f"bootstrap, {changed_skills} skills changed", changed_ms, with_wilson=True),
        "",
        f"cold cost per skill that needs draws: {min(cold_ms) / max(drawn, 1) * 1000:.0f} us",
    ]
    document = {
        **asdict(this),
        "numpy": np.__version__,
        "load_average": list(load),
        "skills": args.skills,
        "skills_without_draws": single_weight,
        "resamples": args.resamples,
        "changed_skills": changed_skills,
        "target_ms": TARGET_MS,
        "milliseconds": {
            "wilson": wilson_ms,
            "bootstrap_cold": cold_ms,
            "bootstrap_warm": warm_ms,
            "bootstrap_changed": changed_ms,
        },
    }
    save(args.out, "stats_bench.json", document, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
