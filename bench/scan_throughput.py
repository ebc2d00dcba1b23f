"""Throughput and memory benchmark for ``omkd scan`` against a parse-only floor.

Run from the repository root::

    .venv/bin/python bench/scan_throughput.py [--size-mb 300] [--out DIR]

1. Builds (or reuses) a corpus of at least ``--size-mb`` MB by replicating the real Claude Code
   fixtures, each copy set in its own ``copy-NNNN/`` folder with fresh session ids.
2. Measures the parse-only floor in-process: 1 MiB reads, line split, ``orjson.loads`` per line.
3. Measures ``omkd scan CORPUS --json --home /nonexistent`` as a subprocess: wall time, peak RSS.
   Floor and scan runs alternate (floor, scan, floor, scan) and the best of each is kept.
4. Measures peak RSS on 1/4 and 1/2 of the copy folders to show whether memory stays flat.
5. Prints a markdown table and writes ``OUT/scan_throughput.json``.

Every figure is measured; only the targets below are fixed. MB means 10**6 bytes throughout.
The scans run whichever omkd ``python -m omkd`` imports from a neutral cwd: the editable install,
or a snapshot put first on ``PYTHONPATH`` (the JSON records which).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson
from common import (
    DEFAULT_OUT,
    MB,
    Run,
    ScanRun,
    compile_omkd,
    heading,
    run_scan,
    save,
    scan_command,
    scan_json,
    status,
    this_run,
    time_binary,
    tree_peak_rss,
)
from corpus import DEFAULT_CORPUS, DEFAULT_FIXTURES, DEFAULT_SIZE_MB, build_corpus, list_files, warm_cache

CHUNK_BYTES: Final = 1 << 20

# Targets (the only fixed numbers; everything reported is measured).
TARGET_RATIO: Final = 1.2
"""scan wall time / parse-only floor time, on the full corpus (issue 16; 2.5 before it)."""
TARGET_RSS_MB: Final = 150.0
"""peak RSS of ``omkd scan``, at every corpus size."""
TARGET_RSS_GROWTH: Final = 0.10
"""flat: peak RSS on the full corpus at most this fraction above the RSS on the 1/4 corpus."""


# ---------------------------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------------------------


@dataclass
class FloorRun:
    seconds: float
    records: list[int]
    """Records parsed, per file (same order as the file list)."""
    bad_lines: int
    partial_at_end: int


def parse_floor(files: Sequence[Path]) -> FloorRun:
    """The floor: 1 MiB reads, split into lines, ``orjson.loads`` every non-empty line; a
    whole-document chat (Gemini's ``.json``) read and parsed in one piece. Nothing else."""
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    per_file: list[int] = []
    bad = 0
    partial = 0
    started = time.perf_counter()
    for path in files:
        records = 0
        if path.suffix == ".json":
            try:
                loads(path.read_bytes())
            except decode_error:
                bad += 1
            per_file.append(0)  # a document's records are its messages, not counted here
            continue
        tail = b""
        with path.open("rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                if tail:
                    chunk = tail + chunk  # a line split across two reads
                lines = chunk.split(b"\n")
                tail = lines.pop()
                for line in lines:
                    if line:
                        try:
                            loads(line)
                        except decode_error:
                            bad += 1
                        else:
                            records += 1
        if tail:
            partial += 1
        per_file.append(records)
    return FloorRun(time.perf_counter() - started, per_file, bad, partial)


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


@dataclass
class SizePoint:
    label: str
    copies: int
    files: int
    bytes: int
    records: int
    scan_seconds: list[float]
    peak_rss_bytes: list[int]

    @property
    def best_seconds(self) -> float:
        return min(self.scan_seconds)

    @property
    def peak_rss_mb(self) -> float:
        return max(self.peak_rss_bytes) / MB


@dataclass
class Results:
    date: str
    command: str
    machine: dict[str, Any]
    corpus: dict[str, Any]
    floor: dict[str, Any]
    scan: dict[str, Any]
    startup: dict[str, Any]
    rss_by_size: list[dict[str, Any]]
    targets: dict[str, Any]
    sanity: dict[str, Any] = field(default_factory=dict)


def markdown(results: Results) -> str:
    c, f, s, t = results.corpus, results.floor, results.scan, results.targets
    run = Run(results.date, results.command, results.machine)
    lines = [
        *heading("omkd scan throughput", run),
        "| metric | value | target | status |",
        "|---|---:|---:|---|",
        f"| corpus bytes | {c['bytes']:,} ({c['bytes'] / MB:.1f} MB) | | |",
        f"| corpus files | {c['files']:,} ({c['copies']} copy sets) | | |",
        f"| corpus records | {c['records']:,} | | |",
        f"| floor (parse-only) time, best of {f['runs']} | {f['best_seconds']:.2f} s | | |",
        f"| floor MB/s | {f['mb_per_s']:.1f} | | |",
        f"| floor records/s | {f['records_per_s']:,.0f} | | |",
        f"| scan wall time, best of {s['runs']} | {s['best_seconds']:.2f} s | | |",
        f"| scan MB/s | {s['mb_per_s']:.1f} | | |",
        f"| scan records/s | {s['records_per_s']:,.0f} | | |",
        f"| ratio scan / floor time | {t['ratio']['value']:.2f} | <= {t['ratio']['target']} | {t['ratio']['status']} |",
        f"| peak RSS, max over sizes | {t['peak_rss_mb']['value']:.1f} MB | <= {t['peak_rss_mb']['target']} MB "
        f"| {t['peak_rss_mb']['status']} |",
        f"| peak RSS, all processes together (sampled every 10 ms): 1/4 of the copy sets, all of them, "
        f"the whole corpus | {t['tree_rss_mb']['quarter']:.1f} / {t['tree_rss_mb']['copies']:.1f} / "
        f"{t['tree_rss_mb']['value']:.1f} MB | <= {t['tree_rss_mb']['target']} MB | {t['tree_rss_mb']['status']} |",
        f"| all processes: growth 1/4 -> all copy sets | {t['tree_rss_mb']['growth'] * 100:+.1f} % "
        f"| <= +{t['rss_flat']['target'] * 100:.0f} % | {t['tree_rss_mb']['flat']} |",
        f"| largest process: growth 1/4 -> all copy sets | {t['rss_flat']['value'] * 100:+.1f} % "
        f"| <= +{t['rss_flat']['target'] * 100:.0f} % | {t['rss_flat']['status']} |",
        f"| largest process: slope 1/4 -> all copy sets "
        f"| {t['rss_flat']['mb_rss_per_100_mb_input']:+.2f} MB per 100 MB input | | |",
        f"| corpus check: scan records == floor records (1 copy set); sessions x2 with 2 copy sets "
        f"| {results.sanity.get('records_match')}; {results.sanity.get('fresh_session_ids')} | | |",
        f"| scan startup (empty input): wall, peak RSS | {results.startup['seconds']:.2f} s, "
        f"{results.startup['peak_rss_mb']:.1f} MB | | |",
        "",
        "| corpus | copy sets | MB | files | records | scan s (best) | scan MB/s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines.extend(
        f"| {p['label']} | {p['copies']} | {p['bytes'] / MB:.1f} | {p['files']:,} | {p['records']:,} "
        f"| {p['best_seconds']:.2f} | {p['bytes'] / MB / p['best_seconds']:.1f} | {p['peak_rss_mb']:.1f} |"
        for p in results.rss_by_size
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------


def corpus_check(copies: Sequence[Path], records_of: dict[Path, int]) -> dict[str, Any]:
    """Scan sees every record the floor parsed, and fresh ids make every copy set's sessions new ones."""
    _, one = scan_json(copies[:1])
    sanity: dict[str, Any] = {
        "scan_records_one_copy": one["pipeline"]["records"],
        "floor_records_one_copy": sum(records_of[f] for f in list_files(copies[:1])),
        "sessions_one_copy": one["watermark"]["sessions"],
    }
    if len(copies) > 1:
        _, two = scan_json(copies[:2])
        sanity["sessions_two_copies"] = two["watermark"]["sessions"]
        sanity["fresh_session_ids"] = two["watermark"]["sessions"] == 2 * one["watermark"]["sessions"]
    sanity["records_match"] = sanity["scan_records_one_copy"] == sanity["floor_records_one_copy"]
    print(f"sanity: {sanity}")
    if not sanity["records_match"] or sanity.get("fresh_session_ids") is False:
        print("WARNING: the corpus check failed; see 'sanity' in the JSON", file=sys.stderr)
    return sanity


def size_point(label: str, subset: Sequence[Path], records_of: dict[Path, int], runs: Sequence[ScanRun]) -> SizePoint:
    subset_files = list_files(subset)
    point = SizePoint(
        label=label,
        copies=len(subset),
        files=len(subset_files),
        bytes=sum(f.stat().st_size for f in subset_files),
        records=sum(records_of[f] for f in subset_files),
        scan_seconds=[r.seconds for r in runs],
        peak_rss_bytes=[r.peak_rss_bytes for r in runs],
    )
    print(
        f"scan {label}: {[round(s, 3) for s in point.scan_seconds]} s, "
        f"peak RSS {[round(b / MB, 1) for b in point.peak_rss_bytes]} MB"
    )
    return point


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument(
        "--size-mb",
        type=float,
        default=DEFAULT_SIZE_MB,
        help=f"minimum corpus size in MB (default {DEFAULT_SIZE_MB:g})",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where scan_throughput.json goes")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="corpus work directory")
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES, help="real transcripts to replicate")
    parser.add_argument("--runs", type=int, default=2, help="runs per measurement; the best is kept (default 2)")
    args = parser.parse_args(argv)
    if args.size_mb <= 0 or args.runs < 1:
        parser.error("--size-mb must be positive and --runs at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    timer = time_binary()
    this = this_run(__file__, argv)
    print(f"  bytecode of {compile_omkd()} compiled (as an installed omkd has it)", flush=True)
    machine = {**this.machine, "rss_via": "/usr/bin/time -v" if timer else "getrusage(RUSAGE_CHILDREN)"}
    corpus = build_corpus(args.fixtures.resolve(), args.corpus.resolve(), args.size_mb)
    copies = corpus.copies
    print(f"corpus {'reused' if corpus.reused else 'built'}: {corpus.root} ({len(copies)} copy sets)")

    files = list_files([corpus.root], documents=True)
    total_bytes = sum(f.stat().st_size for f in files)

    # Warm the page cache (untimed), so the floor and the scans all read from memory.
    warm_cache(files)
    # Floor (in-process) and full-corpus scan (subprocess), interleaved run by run, so that a
    # noisy neighbour slows both sides of the ratio alike rather than only one of them.
    floor_runs: list[FloorRun] = []
    full_runs: list[ScanRun] = []
    for _ in range(args.runs):
        floor_runs.append(parse_floor(files))
        full_runs.append(run_scan([corpus.root], timer))
    floor_best = min(run.seconds for run in floor_runs)
    per_file_records = floor_runs[0].records
    total_records = sum(per_file_records)
    records_of = dict(zip(files, per_file_records, strict=True))
    print(f"floor: {[round(r.seconds, 3) for r in floor_runs]} s over {total_records:,} records")

    sanity = corpus_check(copies, records_of)
    with tempfile.TemporaryDirectory(prefix="omkd-bench-empty-") as empty:
        startup_runs = [run_scan([Path(empty)], timer) for _ in range(args.runs)]

    points: list[SizePoint] = []
    for label, fraction in [("1/4", 0.25), ("1/2", 0.5)]:
        subset = copies[: max(1, math.ceil(len(copies) * fraction))]
        points.append(size_point(label, subset, records_of, [run_scan(subset, timer) for _ in range(args.runs)]))
    points.append(size_point("all", copies, records_of, [run_scan(copies, timer) for _ in range(args.runs)]))

    # All processes together (the scan and its workers): a quarter of the copy sets, all of them
    # (the same transcripts, 4x as many), and the whole corpus (the other agents' files too).
    tree_quarter = tree_peak_rss(scan_command(copies[: max(1, math.ceil(len(copies) * 0.25))]))[1]
    tree_copies = tree_peak_rss(scan_command(copies))[1]
    tree_full = tree_peak_rss(scan_command([corpus.root]))[1]

    full = points[-1]
    whole_best = min(run.seconds for run in full_runs)
    ratio = whole_best / floor_best
    peak_rss = max(p.peak_rss_mb for p in points)
    growth = full.peak_rss_mb / points[0].peak_rss_mb - 1
    slope = (
        (full.peak_rss_mb - points[0].peak_rss_mb) / ((full.bytes - points[0].bytes) / MB / 100)
        if full.bytes > points[0].bytes
        else 0.0
    )
    results = Results(
        date=this.date,
        command=this.command,
        machine=machine,
        corpus={
            "path": str(corpus.root),
            "reused": corpus.reused,
            "copies": len(copies),
            "copy_set_bytes": corpus.set_bytes,
            "files": len(files),
            "bytes": total_bytes,
            "records": total_records,
            "bad_lines": floor_runs[0].bad_lines,
            "partial_at_end": floor_runs[0].partial_at_end,
        },
        floor={
            "runs": args.runs,
            "seconds": [r.seconds for r in floor_runs],
            "best_seconds": floor_best,
            "mb_per_s": total_bytes / MB / floor_best,
            "records_per_s": total_records / floor_best,
        },
        scan={
            "command": " ".join(scan_command([corpus.root])),
            "runs": args.runs,
            "seconds": [run.seconds for run in full_runs],
            "best_seconds": whole_best,
            "mb_per_s": total_bytes / MB / whole_best,
            "records_per_s": total_records / whole_best,
            "peak_rss_mb": max(run.peak_rss_bytes for run in full_runs) / MB,
        },
        startup={
            "seconds": min(r.seconds for r in startup_runs),
            "peak_rss_mb": max(r.peak_rss_bytes for r in startup_runs) / MB,
        },
        rss_by_size=[{**asdict(p), "best_seconds": p.best_seconds, "peak_rss_mb": p.peak_rss_mb} for p in points],
        targets={
            "ratio": {"value": ratio, "target": TARGET_RATIO, "status": status(ratio <= TARGET_RATIO)},
            "peak_rss_mb": {"value": peak_rss, "target": TARGET_RSS_MB, "status": status(peak_rss <= TARGET_RSS_MB)},
            "tree_rss_mb": {
                "value": tree_full / MB,
                "quarter": tree_quarter / MB,
                "copies": tree_copies / MB,
                "growth": tree_copies / tree_quarter - 1,
                "target": TARGET_RSS_MB,
                "status": status(max(tree_full, tree_copies) / MB <= TARGET_RSS_MB),
                "flat": status(tree_copies / tree_quarter - 1 <= TARGET_RSS_GROWTH),
            },
            "rss_flat": {
                "value": growth,
                "target": TARGET_RSS_GROWTH,
                "status": status(growth <= TARGET_RSS_GROWTH) if full.bytes > points[0].bytes else "n/a (one copy set)",
                "mb_rss_per_100_mb_input": slope,
            },
        },
        sanity=sanity,
    )
    save(args.out, "scan_throughput.json", results, markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
