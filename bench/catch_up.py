"""Benchmark 4 of the daemon: catch-up throughput from an empty state, against ``omkd scan``.

Run from the repository root::

    .venv/bin/python bench/catch_up.py [--quick] [--runs N] [--size-mb 300] [--corpus DIR]

The corpus is the one of ``scan_throughput.py`` (``bench/corpus``, ~300 MB of copy sets of the
real fixtures, built or reused), page cache warmed. The daemon (default config: events) is
timed from just before its process is spawned until a scrape (every 50 ms) shows
``omkd_lag_bytes == 0`` and ``omkd_replaying == 0``; ``omkd scan CORPUS --json --home
/nonexistent`` is timed around its child process. Runs interleave (scan, daemon), 3 of each
(1 with ``--quick``), best of each; ratio = daemon / scan. Also reported: the ratio with start-up
left out (daemon minus its time to the ``started`` line, over scan minus a scan of an empty
folder), and the CPU seconds of each (user + system of the process and its workers: the scan's
as reaped; the daemon's read from /proc at the scrape that shows it caught up, its workers then
reaped or still running), which a busy neighbour moves much less than wall time. Target: ratio
<= 1.2. Writes ``bench/out/catch_up.json``.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import harness
from common import MB, compile_omkd, rss_mb, sample, scan_json, status, this_run
from corpus import DEFAULT_CORPUS, DEFAULT_SIZE_MB, build_corpus, list_files, warm_cache

TARGET_CATCH_UP_RATIO: Final = 1.2

RUNS: Final = 3
QUICK_RUNS: Final = 1
CATCH_UP_POLL_S: Final = 0.050
SETTLE_S: Final = 10.0


@dataclass
class CatchUpResult:
    corpus: str
    files: int
    bytes: int
    runs: int
    scan_seconds: list[float]
    daemon_seconds: list[float]
    daemon_started_seconds: list[float]
    daemon_peak_rss_mb: list[float]
    daemon_records: float | None
    scan_records: int
    scan_empty_seconds: list[float]
    scan_cpu_seconds: list[float]
    daemon_cpu_seconds: list[float]
    best_scan_seconds: float
    best_daemon_seconds: float
    net_ratio: float
    """(daemon - its time to the ``started`` line) / (scan - scan of an empty folder): start-up left out."""
    scan_mb_per_s: float
    daemon_mb_per_s: float
    ratio: float
    target_ratio: float
    status: str


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid``, its reaped children and its live ones (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")

    def fields(stat: Path) -> list[str]:
        return stat.read_text().rsplit(")", 1)[1].split()

    own = fields(Path(f"/proc/{pid}/stat"))
    total = sum(int(value) for value in own[11:15])  # utime, stime, cutime, cstime
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                child = fields(entry / "stat")
            except OSError:
                continue
            if int(child[1]) == pid:
                total += int(child[11]) + int(child[12])
    return total / ticks


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def daemon_catch_up(
    root: Path, workdir: Path, extra_config: str = "", records: int | None = None
) -> tuple[float, float, float, float | None, float]:
    """Seconds from spawn to caught up, seconds to the ``started`` log line, peak RSS MB, the
    records it shows (with ``records``, the scan's: once they are equal, or after ``SETTLE_S``)
    and the CPU seconds of the daemon and its workers until caught up."""
    daemon = harness.BenchDaemon(workdir, [root], extra_config)
    try:
        spawned = daemon.start()
        started = time.perf_counter() - spawned
        daemon.wait_read_all(poll=CATCH_UP_POLL_S)
        seconds = time.perf_counter() - spawned
        cpu = cpu_seconds(daemon.pid)
        # /metrics shows the counters as of the last checkpoint, which may follow the catch-up
        end = time.monotonic() + (SETTLE_S if records is not None else 0.0)
        while sample(body := daemon.metrics(), "omkd_records_total") != records and time.monotonic() < end:
            time.sleep(CATCH_UP_POLL_S)
        peak = rss_mb(daemon.pid, "VmHWM")
    finally:
        daemon.stop()
    return seconds, started, peak, sample(body, "omkd_records_total"), cpu


def measure_catch_up(fixtures: Path, corpus_dir: Path, workdir: Path, runs: int, size_mb: float) -> CatchUpResult:
    corpus = build_corpus(fixtures, corpus_dir, size_mb)
    files = list_files([corpus.root])
    total = sum(f.stat().st_size for f in files)
    print(f"  corpus {'reused' if corpus.reused else 'built'}: {corpus.root}, {total / MB:.0f} MB", flush=True)
    warm_cache(files)
    empty = workdir / "empty"
    empty.mkdir(parents=True, exist_ok=True)
    scans: list[float] = []
    empties: list[float] = []
    daemons: list[float] = []
    startups: list[float] = []
    peaks: list[float] = []
    scan_cpus: list[float] = []
    daemon_cpus: list[float] = []
    records: float | None = None
    scan_records = 0
    for run in range(runs):
        before = children_cpu_seconds()
        seconds, report = scan_json([corpus.root])
        scan_cpus.append(children_cpu_seconds() - before)
        scans.append(seconds)
        scan_records = int(report["pipeline"]["records"])
        print(f"  scan run {run + 1}: {seconds:.2f} s, {scan_cpus[-1]:.2f} CPU s", flush=True)
        empties.append(scan_json([empty])[0])
        seconds, started, peak, records, cpu = daemon_catch_up(
            corpus.root, workdir / f"run-{run}", records=scan_records
        )
        daemon_cpus.append(cpu)
        daemons.append(seconds)
        startups.append(started)
        peaks.append(peak)
        print(
            f"  daemon run {run + 1}: {seconds:.2f} s (started after {started:.2f} s), {cpu:.2f} CPU s, "
            f"load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    best_scan, best_daemon = min(scans), min(daemons)
    ratio = best_daemon / best_scan
    net = min(d - s for d, s in zip(daemons, startups, strict=True)) / (best_scan - min(empties))
    return CatchUpResult(
        corpus=str(corpus.root),
        files=len(files),
        bytes=total,
        runs=runs,
        scan_seconds=scans,
        daemon_seconds=daemons,
        daemon_started_seconds=startups,
        daemon_peak_rss_mb=peaks,
        daemon_records=records,
        scan_records=scan_records,
        scan_empty_seconds=empties,
        scan_cpu_seconds=scan_cpus,
        daemon_cpu_seconds=daemon_cpus,
        best_scan_seconds=best_scan,
        best_daemon_seconds=best_daemon,
        scan_mb_per_s=total / MB / best_scan,
        daemon_mb_per_s=total / MB / best_daemon,
        ratio=ratio,
        net_ratio=net,
        target_ratio=TARGET_CATCH_UP_RATIO,
        status=status(ratio <= TARGET_CATCH_UP_RATIO),
    )


def run(fixtures: Path, corpus_dir: Path, workdir: Path, runs: int, size_mb: float = DEFAULT_SIZE_MB) -> CatchUpResult:
    """``measure_catch_up`` with its progress lines."""
    print("[4] catch-up throughput vs omkd scan", flush=True)
    cu = measure_catch_up(fixtures, corpus_dir, workdir, runs, size_mb)
    print(f"  ratio {cu.ratio:.2f} (start-up left out: {cu.net_ratio:.2f}) -> {cu.status}", flush=True)
    return cu


def rows(cu: CatchUpResult) -> list[str]:
    return [
        f"| 4 | catch-up {cu.bytes / MB:.0f} MB: daemon / scan, best of {cu.runs} "
        f"| {cu.best_daemon_seconds:.2f} s / {cu.best_scan_seconds:.2f} s = {cu.ratio:.2f} "
        f"| <= {cu.target_ratio} | {cu.status} |",
        f"| 4 | throughput daemon / scan | {cu.daemon_mb_per_s:.1f} / {cu.scan_mb_per_s:.1f} MB/s | | |",
        f"| 4 | ratio with start-up left out (daemon to `started`, scan of an empty folder) | {cu.net_ratio:.2f} | | |",
        f"| 4 | CPU s (process and workers), least of {cu.runs}: daemon / scan | {min(cu.daemon_cpu_seconds):.2f} / "
        f"{min(cu.scan_cpu_seconds):.2f} = {min(cu.daemon_cpu_seconds) / min(cu.scan_cpu_seconds):.2f} | | |",
        f"| 4 | records: daemon (after its next checkpoint) / scan | {cu.daemon_records or 0:,.0f} / "
        f"{cu.scan_records:,} | equal | {status(cu.daemon_records == cu.scan_records)} |",
        f"| 4 | daemon peak RSS (main process; workers apart) | {max(cu.daemon_peak_rss_mb):.1f} MB | | |",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "catch_up.json")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} run of each (else {RUNS})")
    parser.add_argument("--runs", type=int, default=None, help="runs of each, best kept (overrides --quick)")
    parser.add_argument(
        "--size-mb",
        type=float,
        default=DEFAULT_SIZE_MB,
        help=f"minimum corpus size in MB (default {DEFAULT_SIZE_MB:g})",
    )
    parser.add_argument(
        "--corpus", type=harness.resolved_path, default=DEFAULT_CORPUS, help="scan_throughput.py's corpus"
    )
    args = parser.parse_args(argv)
    runs = args.runs or (QUICK_RUNS if args.quick else RUNS)
    this = this_run(__file__, argv)
    print(f"  bytecode of {compile_omkd()} compiled (as an installed omkd has it)", flush=True)
    with harness.work_folder(args.work, args.keep) as work:
        cu = run(args.fixtures, args.corpus, work / "catch-up", runs, args.size_mb)
    harness.report(args.out, "catch_up", "omkd catch-up vs omkd scan", this, cu, rows(cu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
