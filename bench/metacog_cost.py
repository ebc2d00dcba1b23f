"""What following each gap's outcome (spec §8) costs the daemon's catch-up: on and off, alternating.

Run from the repository root::

    .venv/bin/python bench/metacog_cost.py [--runs 3] [--size-mb 300] [--corpus DIR]

The corpus is ``catch_up.py``'s (``bench/corpus``, built or reused), page cache warmed. Each run
starts a daemon from an empty state with ``[metacog] enabled = false``, then one with the default
(``true``), and times each until it has read everything (``catch_up.daemon_catch_up``); the runs
alternate so that a drift of the machine's speed falls on both. Reported: each time, the best and
the median of each, the extra time of the measures best over best, and each run's pair (on over the
off run just before it) with their median and range. Target (issue 25): < 10 %.
Writes ``bench/out/metacog_cost.json``.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import harness
from catch_up import daemon_catch_up
from common import MB, compile_omkd, status, this_run
from corpus import DEFAULT_CORPUS, DEFAULT_SIZE_MB, build_corpus, list_files, warm_cache

TARGET_EXTRA: Final = 0.10
OFF: Final = "[metacog]\nenabled = false\n"


@dataclass
class CostResult:
    corpus: str
    bytes: int
    runs: int
    off_seconds: list[float]
    on_seconds: list[float]
    best_off: float
    best_on: float
    median_off: float
    median_on: float
    extra: float
    """best on / best off - 1."""
    median_extra: float
    paired_extras: list[float]
    """Each run's on / off - 1 (the runs alternate, so each pair shares the machine's state)."""
    paired_median_extra: float
    target: float
    status: str


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "metacog_cost.json")
    parser.add_argument("--runs", type=int, default=3, help="runs of each (alternating), best kept")
    parser.add_argument("--size-mb", type=float, default=DEFAULT_SIZE_MB, help="minimum corpus size in MB")
    parser.add_argument("--corpus", type=harness.resolved_path, default=DEFAULT_CORPUS)
    args = parser.parse_args(argv)
    this = this_run(__file__, argv)
    print(f"  bytecode of {compile_omkd()} compiled (as an installed omkd has it)", flush=True)
    corpus = build_corpus(args.fixtures, args.corpus, args.size_mb)
    files = list_files([corpus.root])
    total = sum(f.stat().st_size for f in files)
    warm_cache(files)
    offs: list[float] = []
    ons: list[float] = []
    with harness.work_folder(args.work, args.keep) as work:
        for run in range(args.runs):
            for label, extra, times in (("off", OFF, offs), ("on", "", ons)):
                seconds = daemon_catch_up(corpus.root, work / f"{label}-{run}", extra)[0]
                times.append(seconds)
                print(f"  run {run + 1} metacog {label}: {seconds:.2f} s", flush=True)
    best_off, best_on = min(offs), min(ons)
    paired = [on / off - 1 for off, on in zip(offs, ons, strict=True)]
    result = CostResult(
        corpus=str(corpus.root), bytes=total, runs=args.runs, off_seconds=offs, on_seconds=ons,
        best_off=best_off, best_on=best_on, median_off=statistics.median(offs), median_on=statistics.median(ons),
        extra=best_on / best_off - 1, median_extra=statistics.median(ons) / statistics.median(offs) - 1,
        paired_extras=paired, paired_median_extra=statistics.median(paired),
        target=TARGET_EXTRA, status=status(best_on / best_off - 1 < TARGET_EXTRA),
    )  # fmt: skip
    rows = [
        f"| catch-up {total / MB:.0f} MB, metacog off / on, best of {args.runs} | {best_off:.2f} s / {best_on:.2f} s "
        f"= +{result.extra:.1%} | < {TARGET_EXTRA:.0%} | {result.status} |",
        f"| medians off / on | {result.median_off:.2f} s / {result.median_on:.2f} s = +{result.median_extra:.1%} | | |",
        f"| each run's on / off, median (lowest to highest) | +{result.paired_median_extra:.1%} "
        f"({min(paired):+.1%} to {max(paired):+.1%}) | | |",
    ]
    harness.report(
        args.out, "metacog_cost", "omkd catch-up with and without the metacognition measures", this, result, rows
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
