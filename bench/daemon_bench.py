"""All the benchmarks of the real ``omkd run`` daemon in one go, with one table and one JSON file.

Run from the repository root::

    .venv/bin/python bench/daemon_bench.py [--quick] [--only latency|many|catchup|scrape]

Each benchmark is its own module, runnable on its own, where its method and targets are
written: ``latency.py`` (1. append-to-visible latency, events and polling), ``many_files.py``
(2. idle CPU and 3. peak RSS with 10,000 files), ``catch_up.py`` (4. catch-up throughput
against ``omkd scan``), ``scrape.py`` (5. ``/metrics`` scrape time with 1,000 skills). This
entry point runs them in that order in one temporary folder (removed at the end; ``--keep``
keeps it), records how long each phase took and the load average around it, prints one
markdown table and writes ``bench/out/daemon_bench.json``. ``--quick``: 30 s idle, 100 appends
per latency mode, 1 catch-up run (else 60 s, 200, 3). ``--samples``, ``--files``,
``--idle-seconds`` and ``--size-mb`` shrink the workloads for a check that everything still
runs (the figures are then not comparable with the targets' workloads).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import catch_up
import harness
import latency
import many_files
import scrape
from catch_up import CatchUpResult
from common import save, this_run
from corpus import DEFAULT_CORPUS, DEFAULT_SIZE_MB
from latency import LatencyResult
from many_files import ManyFilesResult
from scrape import ScrapeResult

BENCHMARKS = ("latency", "many", "catchup", "scrape")


@dataclass
class Results:
    date: str
    command: str
    quick: bool
    machine: dict[str, Any]
    latency: list[LatencyResult] = field(default_factory=list)
    many_files: ManyFilesResult | None = None
    catch_up: CatchUpResult | None = None
    scrape: ScrapeResult | None = None
    phase_seconds: dict[str, float] = field(default_factory=dict)
    load_average: dict[str, list[float]] = field(default_factory=dict)
    """1-minute load average before and after each phase: other work on the machine shows here."""

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        began = time.perf_counter()
        before = os.getloadavg()[0]
        try:
            yield
        finally:
            self.phase_seconds[name] = time.perf_counter() - began
            self.load_average[name] = [before, os.getloadavg()[0]]

    def rows(self) -> list[str]:
        found = [row for lat in self.latency for row in latency.rows(lat)]
        if self.many_files is not None:
            found += many_files.rows(self.many_files)
        if self.catch_up is not None:
            found += catch_up.rows(self.catch_up)
        if self.scrape is not None:
            found += scrape.rows(self.scrape)
        return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "daemon_bench.json")
    parser.add_argument(
        "--quick", action="store_true", help="30 s idle, 100 appends per mode, 1 catch-up run (else 60 s, 200, 3)"
    )
    parser.add_argument(
        "--corpus", type=harness.resolved_path, default=DEFAULT_CORPUS, help="scan_throughput.py's corpus"
    )
    parser.add_argument(
        "--only", action="append", choices=BENCHMARKS, help="run only these benchmarks (repeatable; default: all)"
    )
    parser.add_argument("--seed", type=int, default=latency.SEED, help="seed of the write phases")
    parser.add_argument("--samples", type=int, default=None, help="appends per latency mode (default 200, quick 100)")
    parser.add_argument("--files", type=int, default=many_files.MANY_FILES, help="files of benchmarks 2-3 (10,000)")
    parser.add_argument("--idle-seconds", type=float, default=None, help="idle period of benchmark 2 (60 s, quick 30)")
    parser.add_argument(
        "--size-mb", type=float, default=DEFAULT_SIZE_MB, help=f"corpus of benchmark 4, in MB ({DEFAULT_SIZE_MB:g})"
    )
    args = parser.parse_args(argv)
    only = set(args.only or BENCHMARKS)
    samples = args.samples or (latency.QUICK_SAMPLES if args.quick else latency.SAMPLES)
    idle = args.idle_seconds or (many_files.QUICK_IDLE_S if args.quick else many_files.IDLE_S)
    runs = catch_up.QUICK_RUNS if args.quick else catch_up.RUNS
    this = this_run(__file__, argv)
    results = Results(date=this.date, command=this.command, quick=args.quick, machine=this.machine)
    with harness.work_folder(args.work, args.keep) as work:
        if "latency" in only:
            for mode in latency.MODES:
                with results.phase(f"latency_{mode}"):
                    lat = latency.run(mode, args.fixtures, work / f"latency-{mode}", samples, args.seed)
                results.latency.append(lat)
        if "many" in only:
            with results.phase("many_files"):
                results.many_files = many_files.run(args.fixtures, work / "many", args.files, idle)
        if "catchup" in only:
            with results.phase("catch_up"):
                results.catch_up = catch_up.run(args.fixtures, args.corpus, work / "catch-up", runs, args.size_mb)
        if "scrape" in only:
            with results.phase("scrape"):
                results.scrape = scrape.run(work / "scrape")
    table = harness.table("omkd daemon benchmarks", this, results.rows())
    save(args.out, "daemon_bench.json", results, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
