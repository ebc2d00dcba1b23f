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
import datetime as dt
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

BENCH_DIR: Final = Path(__file__).resolve().parent
REPO_ROOT: Final = BENCH_DIR.parent
DEFAULT_FIXTURES: Final = Path("/work/shared/fixtures/real")
DEFAULT_CORPUS: Final = BENCH_DIR / "corpus"
DEFAULT_OUT: Final = BENCH_DIR / "out"

MB: Final = 1_000_000
CHUNK_BYTES: Final = 1 << 20
SKIPPED_PATH_PARTS: Final = ("/codex/", "madshn__localpush")
COPY_PREFIX: Final = "copy-"
MANIFEST_NAME: Final = "manifest.json"
MANIFEST_VERSION: Final = 1
UUID_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/omkd/bench/scan_throughput")
UUID_RE: Final = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
DISK_MARGIN_BYTES: Final = 1 << 30

# Targets (the only fixed numbers; everything reported is measured).
TARGET_RATIO: Final = 2.5
"""scan wall time / parse-only floor time, on the full corpus."""
TARGET_RSS_MB: Final = 150.0
"""peak RSS of ``omkd scan``, at every corpus size."""
TARGET_RSS_GROWTH: Final = 0.10
"""flat: peak RSS on the full corpus at most this fraction above the RSS on the 1/4 corpus."""

SCAN_FLAGS: Final = ("--json", "--home", "/nonexistent")
NEUTRAL_CWD: Final = tempfile.gettempdir()
"""Children run here, so ``python -m omkd`` imports the installed omkd (or PYTHONPATH's), never ./omkd."""


# ---------------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceFile:
    """One real fixture: where it sits (relative to the fixtures root), its bytes, its ids."""

    rel: Path
    data: bytes
    ids: tuple[str, ...]
    """Known session ids that occur in ``data``, to be replaced in every copy."""


def source_files(fixtures: Path) -> list[Path]:
    """The Claude Code ``*.jsonl`` fixtures (Codex streams skipped), in a stable order."""
    found = []
    for path in sorted(fixtures.rglob("*.jsonl")):
        posix = path.as_posix()
        if any(part in posix for part in SKIPPED_PATH_PARTS) or not path.is_file():
            continue
        found.append(path)
    if not found:
        raise SystemExit(f"no Claude Code *.jsonl fixtures under {fixtures}")
    return found


def session_ids_of(path: Path, data: bytes) -> set[str]:
    """The ``sessionId`` values of a transcript, plus its file stem when that is a uuid."""
    ids: set[str] = set()
    if UUID_RE.fullmatch(path.stem):
        ids.add(path.stem)
    for line in data.split(b"\n"):
        if b'"sessionId"' not in line:
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        session = record.get("sessionId") if isinstance(record, dict) else None
        if isinstance(session, str) and session:
            ids.add(session)
    return ids


def load_sources(fixtures: Path) -> tuple[list[SourceFile], list[str]]:
    """Read the fixtures once; return them with every session id known across all of them.

    Ids are shared between files (a sub-agent transcript carries its parent's session id, and its
    folder is named after it), so one id -> new id mapping is used per copy set for all files.
    """
    raw = [(path, path.read_bytes()) for path in source_files(fixtures)]
    known: set[str] = set()
    for path, data in raw:
        known |= session_ids_of(path, data)
    ordered = sorted(known)
    sources = [
        SourceFile(path.relative_to(fixtures), data, tuple(i for i in ordered if i.encode() in data))
        for path, data in raw
    ]
    return sources, ordered


def fresh_id(copy_index: int, original: str) -> str:
    return str(uuid.uuid5(UUID_NAMESPACE, f"copy-{copy_index:04d}/{original}"))


def copy_bytes(source: SourceFile, mapping: dict[str, str]) -> bytes:
    """The source bytes with every known session id replaced by its fresh id."""
    data = source.data
    for original in source.ids:
        new = mapping[original]
        if UUID_RE.fullmatch(original):
            # Same length: the copy has exactly the size of the original.
            data = data.replace(original.encode(), new.encode())
        else:
            # A free-form id could be a substring of anything; replace it only as a JSON string.
            data = data.replace(orjson.dumps(original), orjson.dumps(new))
    return data


def copy_path(rel: Path, mapping: dict[str, str]) -> Path:
    """``rel`` with session-id folder names and a session-id file stem renamed."""
    parts = [mapping.get(part, part) for part in rel.parent.parts]
    name = mapping[rel.stem] + rel.suffix if rel.stem in mapping else rel.name
    return Path(*parts, name)


def copy_dirs(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.glob(f"{COPY_PREFIX}*") if p.is_dir())


def list_files(roots: Sequence[Path]) -> list[Path]:
    """Every ``*.jsonl`` below ``roots``, in the order ``omkd scan`` walks them (sorted)."""
    files: list[Path] = []
    for root in roots:
        for directory, subdirs, names in os.walk(root):
            subdirs.sort()
            files.extend(Path(directory, n) for n in sorted(names) if n.endswith(".jsonl"))
    return files


@dataclass(frozen=True)
class Corpus:
    root: Path
    copies: list[Path]
    set_bytes: int
    reused: bool


def build_corpus(fixtures: Path, corpus: Path, size_mb: float) -> Corpus:
    """Replicate the fixtures until the corpus holds at least ``size_mb`` MB; reuse a matching build."""
    sources, known_ids = load_sources(fixtures)
    set_bytes = sum(len(s.data) for s in sources)
    copies = max(1, math.ceil(size_mb * MB / set_bytes))
    wanted = {
        "version": MANIFEST_VERSION,
        "size_mb": size_mb,
        "copies": copies,
        "fixtures": str(fixtures),
        "sources": [[s.rel.as_posix(), len(s.data)] for s in sources],
    }
    manifest = corpus / MANIFEST_NAME
    if manifest.is_file():
        try:
            existing = orjson.loads(manifest.read_bytes())
        except orjson.JSONDecodeError:
            existing = None
        dirs = copy_dirs(corpus)
        if (
            existing == wanted
            and len(dirs) == copies
            and sum(f.stat().st_size for f in list_files(dirs)) == copies * set_bytes
        ):
            return Corpus(corpus, dirs, set_bytes, reused=True)
        manifest.unlink()

    corpus.mkdir(parents=True, exist_ok=True)
    for stale in copy_dirs(corpus):
        shutil.rmtree(stale)
    needed = copies * set_bytes
    free = shutil.disk_usage(corpus).free
    if free < needed + DISK_MARGIN_BYTES:
        raise SystemExit(
            f"not enough disk for the corpus: need {needed / MB:.0f} MB (+1 GiB margin), {free / MB:.0f} MB free"
        )
    print(f"building corpus: {copies} copies x {set_bytes / MB:.2f} MB of {len(sources)} files -> {corpus}")
    for index in range(copies):
        mapping = {original: fresh_id(index, original) for original in known_ids}
        base = corpus / f"{COPY_PREFIX}{index:04d}"
        for source in sources:
            target = base / copy_path(source.rel, mapping)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(copy_bytes(source, mapping))
    manifest.write_bytes(orjson.dumps(wanted, option=orjson.OPT_INDENT_2))
    return Corpus(corpus, copy_dirs(corpus), set_bytes, reused=False)


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
    """The floor: 1 MiB reads, split into lines, ``orjson.loads`` every non-empty line. Nothing else."""
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    per_file: list[int] = []
    bad = 0
    partial = 0
    started = time.perf_counter()
    for path in files:
        records = 0
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


def warm_cache(files: Sequence[Path]) -> None:
    for path in files:
        with path.open("rb") as handle:
            while handle.read(CHUNK_BYTES):
                pass


@dataclass
class ScanRun:
    seconds: float
    peak_rss_bytes: int


def _time_binary() -> str | None:
    path = shutil.which("time", path="/usr/bin")
    if path is None:
        return None
    probe = subprocess.run([path, "-v", "true"], capture_output=True, check=False)
    return path if probe.returncode == 0 and b"Maximum resident set size" in probe.stderr else None


RUSAGE_WRAPPER: Final = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
"""


def scan_command(paths: Sequence[Path]) -> list[str]:
    return [sys.executable, "-m", "omkd", "scan", *(str(p) for p in paths), *SCAN_FLAGS]


def run_scan(paths: Sequence[Path], time_binary: str | None) -> ScanRun:
    """One ``omkd scan`` in a fresh child process: wall time and peak RSS."""
    command = scan_command(paths)
    if time_binary is not None:
        with tempfile.NamedTemporaryFile(prefix="omkd-bench-time-", suffix=".txt") as report:
            started = time.perf_counter()
            done = subprocess.run(
                [time_binary, "-v", "-o", report.name, *command],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                check=False,
                cwd=NEUTRAL_CWD,
            )
            seconds = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"omkd scan failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
            text = Path(report.name).read_text()
        found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        if found is None:
            raise SystemExit(f"no peak RSS in /usr/bin/time output:\n{text}")
        return ScanRun(seconds, int(found.group(1)) * 1024)
    # Fallback: a fresh wrapper per run, so RUSAGE_CHILDREN covers exactly this one scan.
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", RUSAGE_WRAPPER, *command], capture_output=True, check=False, cwd=NEUTRAL_CWD
    )  # fmt: skip
    seconds = time.perf_counter() - started
    fields = done.stdout.split()
    if done.returncode != 0 or len(fields) != 2 or int(fields[1]) != 0:
        raise SystemExit(f"omkd scan failed ({done.stdout!r}): {done.stderr.decode(errors='replace')}")
    maxrss = fields[0]
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return ScanRun(seconds, int(maxrss) * unit)


def scan_report(paths: Sequence[Path]) -> dict[str, Any]:
    """One ``omkd scan --json`` with its report captured (for the corpus sanity check)."""
    done = subprocess.run(scan_command(paths), capture_output=True, check=False, cwd=NEUTRAL_CWD)
    if done.returncode != 0:
        raise SystemExit(f"omkd scan failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    report: dict[str, Any] = orjson.loads(done.stdout)
    return report


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


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, check=False)
    except OSError:
        return None
    return done.stdout.decode().strip() if done.returncode == 0 else None


def omkd_under_test() -> dict[str, str | None]:
    """Which omkd the scans run (as the child processes import it), and its git state."""
    done = subprocess.run(
        [sys.executable, "-c", "import omkd; print(omkd.__version__); print(omkd.__file__)"],
        capture_output=True,
        check=False,
        cwd=NEUTRAL_CWD,
    )
    version, _, module = done.stdout.decode().partition("\n")
    package = Path(module.strip()).parent
    head = _git("rev-parse", "--short", "HEAD")
    if package != REPO_ROOT / "omkd":
        # e.g. a `git archive` snapshot put first on PYTHONPATH: its folder should name its commit.
        return {"version": version.strip() or "unknown", "path": str(package), "git": None, "repository_head": head}
    dirty = _git("status", "--porcelain", "--", "omkd")
    commit = f"{head}+uncommitted" if head and dirty else head
    return {"version": version.strip() or "unknown", "path": str(package), "git": commit, "repository_head": head}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _shown(path: Path) -> str:
    """``path`` relative to the repository root when it is inside it (``.venv/bin/python``)."""
    absolute = Path(os.path.abspath(path))  # not resolve(): keep the venv's python link as typed
    return str(absolute.relative_to(REPO_ROOT)) if absolute.is_relative_to(REPO_ROOT) else str(path)


def status(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def markdown(results: Results) -> str:
    c, f, s, t = results.corpus, results.floor, results.scan, results.targets
    lines = [
        f"omkd scan throughput — {results.date} — `{results.command}`",
        "",
        f"Machine: {results.machine['cpus']} CPUs, {results.machine['cpu']}, Python {results.machine['python']}, "
        f"omkd {results.machine['omkd']['version']} at {results.machine['omkd']['path']} "
        f"(git {results.machine['omkd']['git'] or 'n/a: not the working tree'})",
        "",
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
        f"| RSS growth 1/4 -> full corpus | {t['rss_flat']['value'] * 100:+.1f} % "
        f"| <= +{t['rss_flat']['target'] * 100:.0f} % | {t['rss_flat']['status']} |",
        f"| RSS slope 1/4 -> full corpus | {t['rss_flat']['mb_rss_per_100_mb_input']:+.2f} MB per 100 MB input | | |",
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


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--size-mb", type=float, default=300.0, help="minimum corpus size in MB (default 300)")
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
    time_binary = _time_binary()
    machine = {
        "cpus": os.cpu_count(),
        "cpu": cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "omkd": omkd_under_test(),
        "rss_via": "/usr/bin/time -v" if time_binary else "getrusage(RUSAGE_CHILDREN)",
    }
    command = " ".join(
        [_shown(Path(sys.executable)), _shown(Path(__file__)), *(sys.argv[1:] if argv is None else argv)]
    )
    corpus = build_corpus(args.fixtures.resolve(), args.corpus.resolve(), args.size_mb)
    copies = corpus.copies
    print(f"corpus {'reused' if corpus.reused else 'built'}: {corpus.root} ({len(copies)} copy sets)")

    files = list_files([corpus.root])
    sizes = [f.stat().st_size for f in files]
    total_bytes = sum(sizes)

    # Warm the page cache (untimed), so the floor and the scans all read from memory.
    warm_cache(files)
    # Floor (in-process) and full-corpus scan (subprocess), interleaved run by run, so that a
    # noisy neighbour slows both sides of the ratio alike rather than only one of them.
    floor_runs: list[FloorRun] = []
    full_runs: list[ScanRun] = []
    for _ in range(args.runs):
        floor_runs.append(parse_floor(files))
        full_runs.append(run_scan([corpus.root], time_binary))
    floor_best = min(run.seconds for run in floor_runs)
    per_file_records = floor_runs[0].records
    total_records = sum(per_file_records)
    records_of = dict(zip(files, per_file_records, strict=True))
    print(f"floor: {[round(r.seconds, 3) for r in floor_runs]} s over {total_records:,} records")

    # Sanity: scan sees every record, and fresh ids make every copy set's sessions new ones.
    one = scan_report(copies[:1])
    sanity: dict[str, Any] = {
        "scan_records_one_copy": one["pipeline"]["records"],
        "floor_records_one_copy": sum(records_of[f] for f in list_files(copies[:1])),
        "sessions_one_copy": one["watermark"]["sessions"],
    }
    if len(copies) > 1:
        two = scan_report(copies[:2])
        sanity["sessions_two_copies"] = two["watermark"]["sessions"]
        sanity["fresh_session_ids"] = two["watermark"]["sessions"] == 2 * one["watermark"]["sessions"]
    sanity["records_match"] = sanity["scan_records_one_copy"] == sanity["floor_records_one_copy"]
    print(f"sanity: {sanity}")
    if not sanity["records_match"] or sanity.get("fresh_session_ids") is False:
        print("WARNING: the corpus check failed; see 'sanity' in the JSON", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="omkd-bench-empty-") as empty:
        startup_runs = [run_scan([Path(empty)], time_binary) for _ in range(args.runs)]

    fractions = [("1/4", 0.25), ("1/2", 0.5), ("full", 1.0)]
    points: list[SizePoint] = []
    for label, fraction in fractions:
        subset = copies[: max(1, math.ceil(len(copies) * fraction))]
        subset_files = list_files(subset)
        runs = full_runs if label == "full" else [run_scan(subset, time_binary) for _ in range(args.runs)]
        point = SizePoint(
            label=label,
            copies=len(subset),
            files=len(subset_files),
            bytes=sum(f.stat().st_size for f in subset_files),
            records=sum(records_of[f] for f in subset_files),
            scan_seconds=[r.seconds for r in runs],
            peak_rss_bytes=[r.peak_rss_bytes for r in runs],
        )
        points.append(point)
        print(
            f"scan {label}: {[round(s, 3) for s in point.scan_seconds]} s, "
            f"peak RSS {[round(b / MB, 1) for b in point.peak_rss_bytes]} MB"
        )

    full = points[-1]
    ratio = full.best_seconds / floor_best
    peak_rss = max(p.peak_rss_mb for p in points)
    growth = full.peak_rss_mb / points[0].peak_rss_mb - 1
    slope = (
        (full.peak_rss_mb - points[0].peak_rss_mb) / ((full.bytes - points[0].bytes) / MB / 100)
        if full.bytes > points[0].bytes
        else 0.0
    )
    results = Results(
        date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        command=command.strip(),
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
            "seconds": full.scan_seconds,
            "best_seconds": full.best_seconds,
            "mb_per_s": total_bytes / MB / full.best_seconds,
            "records_per_s": total_records / full.best_seconds,
            "peak_rss_mb": full.peak_rss_mb,
        },
        startup={
            "seconds": min(r.seconds for r in startup_runs),
            "peak_rss_mb": max(r.peak_rss_bytes for r in startup_runs) / MB,
        },
        rss_by_size=[{**asdict(p), "best_seconds": p.best_seconds, "peak_rss_mb": p.peak_rss_mb} for p in points],
        targets={
            "ratio": {"value": ratio, "target": TARGET_RATIO, "status": status(ratio <= TARGET_RATIO)},
            "peak_rss_mb": {"value": peak_rss, "target": TARGET_RSS_MB, "status": status(peak_rss <= TARGET_RSS_MB)},
            "rss_flat": {
                "value": growth,
                "target": TARGET_RSS_GROWTH,
                "status": status(growth <= TARGET_RSS_GROWTH) if full.bytes > points[0].bytes else "n/a (one copy set)",
                "mb_rss_per_100_mb_input": slope,
            },
        },
        sanity=sanity,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    out_file = args.out / "scan_throughput.json"
    out_file.write_bytes(orjson.dumps(asdict(results), option=orjson.OPT_INDENT_2) + b"\n")
    print()
    print(markdown(results))
    print()
    print(f"written: {out_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
