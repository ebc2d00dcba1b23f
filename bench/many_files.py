"""Benchmarks 2 and 3 of the daemon: idle CPU and peak RSS while it follows 10,000 transcripts.

Run from the repository root::

    .venv/bin/python bench/many_files.py [--quick] [--files N] [--idle-seconds S]

10,000 transcript files (``--files``) in 100 project folders, copies of small real fixtures with
every uuid fresh, so each file is a new session with new records (1.3 GB, over a million
records; free disk is checked first). Page cache warmed, then the daemon (``mode = "events"``,
default ``rescan_interval``) reads them all; once caught up and settled, its utime+stime from
``/proc/PID/stat`` over 60 s (30 s with ``--quick``, or ``--idle-seconds``) of no writes and no
scrapes, then its peak RSS (``VmHWM`` in ``/proc/PID/status``), which covers the catch-up. Also
reported: the catch-up time against ``omkd scan`` of the same folder, and the slowest
``/metrics`` answer while catching up (how long the event loop stalled). Targets: idle CPU
<= 1 % of one core, peak RSS <= 200 MB. Writes ``bench/out/many_files.json``.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import harness
from common import MB, cpu_seconds, free_disk_check, rss_mb, sample, scan_json, status, this_run
from corpus import CorpusStats, UuidTemplate, list_files, warm_cache

TARGET_IDLE_CPU_PERCENT: Final = 1.0
TARGET_PEAK_RSS_MB: Final = 200.0

MANY_FILES: Final = 10_000
MANY_DIRS: Final = 100
TARGET_RECORDS: Final = 1_000_000
"""Not a target of the daemon: a check that the corpus is as large as the benchmark says."""
IDLE_S: Final = 60.0
QUICK_IDLE_S: Final = 30.0
SETTLE_S: Final = 3.0
FIXTURE_POOL: Final = (
    "marot__spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl",
    "iansherr__claude-code-log/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
    "marot__spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl",
    "chiphuyen__sniffly/-Users-chip-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
    "iansherr__claude-code-log/-Users-dain-workspace-claude-code-log-sample/12a546d1-83a7-49a6-abba-5400db340b43.jsonl",
    "marot__spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl",
)
"""Real transcripts of 61-131 records, cycled: about 107 records and 130 KB per file."""


def build_many_files(fixtures: Path, root: Path, files: int, dirs: int) -> CorpusStats:
    """``files`` copies of the fixture pool (fresh session ids and record uuids) in ``dirs`` project folders."""
    started = time.perf_counter()
    templates = []
    for rel in FIXTURE_POOL:
        path = fixtures / rel
        if not path.is_file():
            raise SystemExit(f"fixture missing: {path}")
        templates.append(UuidTemplate(rel, path.read_bytes()))
    per_file = sum(t.size for t in templates) / len(templates)
    root.mkdir(parents=True, exist_ok=True)
    free_disk_check(root, int(per_file * files))
    total_bytes = 0
    total_lines = 0
    for index in range(files):
        template = templates[index % len(templates)]
        data, mapping = template.render(f"many/{index}")
        stem = Path(template.rel).stem
        name = f"{mapping[stem]}.jsonl" if template.stem_is_uuid else f"{stem}-{index:05d}.jsonl"
        folder = root / f"-home-bench-project-{index % dirs:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
        total_bytes += len(data)
        total_lines += template.lines
    return CorpusStats(str(root), files, dirs, total_bytes, total_lines, time.perf_counter() - started)


@dataclass
class ManyFilesResult:
    corpus: CorpusStats
    catch_up_seconds: float
    slowest_scrape_during_catch_up_s: float
    scan_seconds: float
    files_watched: float | None
    records_folded: float | None
    lines_folded: float | None
    idle_seconds: float
    idle_cpu_seconds: float
    idle_cpu_percent: float
    rescans_during_idle: float
    checkpoints_during_idle: float
    rss_after_catch_up_mb: float
    rss_after_idle_mb: float
    peak_rss_mb: float
    target_idle_cpu_percent: float
    target_peak_rss_mb: float
    idle_status: str
    rss_status: str
    records_status: str


def measure_many_files(fixtures: Path, workdir: Path, files: int, idle_seconds: float) -> ManyFilesResult:
    root = workdir / "roots"
    print(f"  building {files:,} files in {MANY_DIRS} folders ...", flush=True)
    corpus = build_many_files(fixtures, root, files, MANY_DIRS)
    print(
        f"  built {corpus.files:,} files, {corpus.bytes / MB:.0f} MB, {corpus.lines:,} lines "
        f"in {corpus.build_seconds:.1f} s",
        flush=True,
    )
    warm_cache(list_files([root]))
    daemon = harness.BenchDaemon(workdir / "daemon", [root], '[tail]\nmode = "events"\n')
    try:
        started = daemon.start()
        daemon.wait_caught_up(poll=0.5)
        catch_up = time.perf_counter() - started
        print(
            f"  caught up in {catch_up:.1f} s (slowest /metrics answer meanwhile {daemon.slowest_scrape_s:.1f} s); "
            f"settling {SETTLE_S:.0f} s",
            flush=True,
        )
        time.sleep(SETTLE_S)
        body = daemon.metrics()
        pid = daemon.pid
        rss_caught_up = rss_mb(pid)
        rescans_before = sample(body, "omkd_rescans_total") or 0
        checkpoints_before = sample(body, "omkd_checkpoint_writes_total") or 0
        cpu_before = cpu_seconds(pid)
        wall_before = time.perf_counter()
        time.sleep(idle_seconds)
        cpu_after = cpu_seconds(pid)
        wall = time.perf_counter() - wall_before
        body = daemon.metrics()
        rss_idle = rss_mb(pid)
        peak = rss_mb(pid, "VmHWM")
    finally:
        daemon.stop()
    scan_seconds, _ = scan_json([root])
    print(f"  omkd scan of the same files: {scan_seconds:.1f} s", flush=True)
    idle_cpu = cpu_after - cpu_before
    percent = idle_cpu / wall * 100
    records = sample(body, "omkd_records_total")
    return ManyFilesResult(
        corpus=corpus,
        catch_up_seconds=catch_up,
        slowest_scrape_during_catch_up_s=daemon.slowest_scrape_s,
        scan_seconds=scan_seconds,
        files_watched=sample(body, "omkd_files_watched"),
        records_folded=records,
        lines_folded=sample(body, "omkd_lines_total"),
        idle_seconds=wall,
        idle_cpu_seconds=idle_cpu,
        idle_cpu_percent=percent,
        rescans_during_idle=(sample(body, "omkd_rescans_total") or 0) - rescans_before,
        checkpoints_during_idle=(sample(body, "omkd_checkpoint_writes_total") or 0) - checkpoints_before,
        rss_after_catch_up_mb=rss_caught_up,
        rss_after_idle_mb=rss_idle,
        peak_rss_mb=peak,
        target_idle_cpu_percent=TARGET_IDLE_CPU_PERCENT,
        target_peak_rss_mb=TARGET_PEAK_RSS_MB,
        idle_status=status(percent <= TARGET_IDLE_CPU_PERCENT),
        rss_status=status(peak <= TARGET_PEAK_RSS_MB),
        records_status="ok" if (records or 0) >= TARGET_RECORDS else f"only {records} records folded",
    )


def run(fixtures: Path, workdir: Path, files: int, idle_seconds: float) -> ManyFilesResult:
    """``measure_many_files`` with its progress lines.

    The corpus (1.3 GB at full size) is removed once measured, even with ``--keep``.
    """
    print(f"[2,3] idle CPU and peak RSS with {files:,} files", flush=True)
    many = measure_many_files(fixtures, workdir, files, idle_seconds)
    shutil.rmtree(workdir, ignore_errors=True)
    print(
        f"  idle CPU {many.idle_cpu_percent:.2f} % -> {many.idle_status}; "
        f"peak RSS {many.peak_rss_mb:.1f} MB -> {many.rss_status}; records {many.records_folded}",
        flush=True,
    )
    return many


def rows(many: ManyFilesResult) -> list[str]:
    c = many.corpus
    return [
        f"| 2 | idle CPU, {c.files:,} files, events, rescan 30 s ({many.idle_seconds:.0f} s idle) "
        f"| {many.idle_cpu_percent:.2f} % ({many.idle_cpu_seconds:.2f} s CPU) "
        f"| <= {many.target_idle_cpu_percent:.0f} % | {many.idle_status} |",
        f"| 3 | peak RSS (VmHWM), {c.files:,} files, {int(many.records_folded or 0):,} records folded "
        f"| {many.peak_rss_mb:.1f} MB | <= {many.target_peak_rss_mb:.0f} MB | {many.rss_status} |",
        f"| 2-3 | catch-up of those {c.bytes / MB:.0f} MB: daemon / `omkd scan` "
        f"| {many.catch_up_seconds:.1f} s / {many.scan_seconds:.1f} s | | |",
        f"| 2-3 | slowest /metrics answer during that catch-up (event-loop stall) "
        f"| {many.slowest_scrape_during_catch_up_s:.2f} s | | |",
        f"| 2-3 | RSS after catch-up / after the idle period | {many.rss_after_catch_up_mb:.1f} / "
        f"{many.rss_after_idle_mb:.1f} MB | | |",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "many_files.json")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_IDLE_S:.0f} s idle (else {IDLE_S:.0f} s)")
    parser.add_argument("--files", type=int, default=MANY_FILES, help=f"transcript files (default {MANY_FILES:,})")
    parser.add_argument("--idle-seconds", type=float, default=None, help="idle period (overrides --quick)")
    args = parser.parse_args(argv)
    idle = args.idle_seconds or (QUICK_IDLE_S if args.quick else IDLE_S)
    this = this_run(__file__, argv)
    with harness.work_folder(args.work, args.keep) as work:
        many = run(args.fixtures, work / "many", args.files, idle)
    harness.report(args.out, "many_files", "omkd idle CPU and peak RSS", this, many, rows(many))
    return 0


if __name__ == "__main__":
    sys.exit(main())
