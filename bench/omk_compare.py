"""``omkd scan`` against ``omk observe`` (npm ``oh-my-knowledge``) on the same Claude Code files.

Run from the repository root::

    .venv/bin/python bench/omk_compare.py [--corpus DIR] [--runs 3] [--jobs 2] [--omk-dir DIR]

1. Installs ``oh-my-knowledge`` with ``npm install --prefix OMK_DIR`` when ``OMK_DIR`` holds no
   ``omk`` yet (default ``~/.cache/omkd-bench/omk``, outside the repository; it needs npm and
   the network once). A benchmark, not a test: without npm, or when the install fails, it stops
   and says so.
2. Builds (or reuses) the corpus of ``scan_throughput.py`` and takes its Claude Code part, the
   ``copy-NNNN/`` sets, and hard-links those files into one work folder (copies them when the
   work folder is on another file system). ``omk observe DIR`` reads one folder and passes over
   every entry whose real path lies outside it, so a folder of symbolic links would read nothing,
   and the corpus root also holds other agents' files (``agents/``) that omk would read too.
   Both tools read that one folder: the same inodes, the same bytes.
3. Runs, alternating (the first of each round changes), ``omkd scan DIR --json --home /nonexistent
   --jobs N`` and ``omk observe DIR --lang en --output-dir REPORTS --kb EMPTY`` with ``HOME`` a
   fresh folder (omk writes its health report and its managed-skill feedback there, and ``--kb``
   on an empty folder keeps it from indexing a session's working directory on this machine the
   way ``--home /nonexistent`` does for omkd). ``--runs`` rounds; best and median wall time, MB/s,
   the peak resident memory of all the processes of each (``common.tree_peak_rss``) and their CPU
   seconds (user + system, workers included: less moved by a busy machine than wall time).
4. Checks that both read the whole folder: omk's ``meta.ingestion`` (files, records) and omkd's
   ``pipeline`` (files, records) against the files listed and their lines.
5. Prints a markdown table with the ratio omkd MB/s / omk MB/s against the target and writes
   ``OUT/omk_compare.json``.

Every figure is measured; only the target below is fixed. MB means 10**6 bytes throughout.
"""

from __future__ import annotations

import argparse
import errno
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson
from common import (
    DEFAULT_OUT,
    MB,
    compile_omkd,
    free_disk_check,
    heading,
    percentile,
    save,
    scan_command,
    scan_json,
    status,
    this_run,
    tree_peak_rss,
)
from corpus import DEFAULT_CORPUS, DEFAULT_FIXTURES, DEFAULT_SIZE_MB, build_corpus, list_files, warm_cache

TARGET_RATIO: Final = 5.0
"""omkd scan MB/s / omk observe MB/s on the same files (issue 16), best of the runs."""
OMK_PACKAGE: Final = "oh-my-knowledge"
DEFAULT_OMK_DIR: Final = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "omkd-bench" / "omk"


# ---------------------------------------------------------------------------------------------
# omk: installed once, outside the repository
# ---------------------------------------------------------------------------------------------


def install_omk(prefix: Path, spec: str) -> Path:
    """The ``omk`` executable below ``prefix``, installed there with npm when it is missing."""
    omk = prefix / "node_modules" / ".bin" / "omk"
    if omk.exists():
        return omk
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            f"npm is not on PATH: install Node.js and npm ({OMK_PACKAGE} asks for node >= 22), "
            f"or point --omk-dir at a folder where `npm install --prefix DIR {OMK_PACKAGE}` was run"
        )
    prefix.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", spec]
    print(f"installing omk: {' '.join(command)}")
    done = subprocess.run(command, capture_output=True, check=False)
    if done.returncode != 0 or not omk.exists():
        tail = "\n".join(done.stderr.decode(errors="replace").splitlines()[-20:])
        raise SystemExit(f"`{' '.join(command)}` failed ({done.returncode}); no omk to compare with:\n{tail}")
    return omk


def omk_versions(prefix: Path) -> dict[str, Any]:
    """The installed package's version and the node it asks for, and the node that runs it."""
    package = orjson.loads((prefix / "node_modules" / OMK_PACKAGE / "package.json").read_bytes())
    node = shutil.which("node")
    node_version = (
        subprocess.run([node, "--version"], capture_output=True, check=False).stdout.decode().strip() if node else None
    )
    return {
        "version": package.get("version"),
        "engines_node": package.get("engines", {}).get("node"),
        "node": node_version,
    }


# ---------------------------------------------------------------------------------------------
# The folder both tools read
# ---------------------------------------------------------------------------------------------


def mirror(files: Sequence[Path], root: Path, target: Path) -> str:
    """Every file of ``files`` (below ``root``) at the same place below ``target``: hard links,
    or copies when ``target`` is on another file system. Returns which of the two it made."""
    how = "hard links"
    for path in files:
        dest = target / path.relative_to(root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if how == "hard links":
            try:
                os.link(path, dest)
                continue
            except OSError as error:
                if error.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
                    raise
                free_disk_check(target, sum(f.stat().st_size for f in files))
                print(f"cannot hard-link into {target} ({error.strerror}): copying the files instead")
                how = "copies"
        shutil.copyfile(path, dest)
    return how


# ---------------------------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------------------------


@dataclass
class Side:
    """One tool's runs over the folder."""

    name: str
    command: list[str]
    seconds: list[float]
    peak_rss_bytes: list[int]
    cpu_seconds: list[float]
    """user + system time of the run's processes, workers included (``RUSAGE_CHILDREN``, reaped)."""

    def figures(self, size: int) -> dict[str, Any]:
        best, median = min(self.seconds), percentile(self.seconds, 50)
        return {
            "name": self.name,
            "command": " ".join(self.command),
            "runs": len(self.seconds),
            "seconds": self.seconds,
            "best_seconds": best,
            "median_seconds": median,
            "mb_per_s_best": size / MB / best,
            "mb_per_s_median": size / MB / median,
            "peak_rss_bytes": self.peak_rss_bytes,
            "peak_rss_mb": max(self.peak_rss_bytes) / MB,
            "cpu_seconds": self.cpu_seconds,
            "median_cpu_seconds": percentile(self.cpu_seconds, 50),
        }


def omk_command(omk: Path, folder: Path, home: Path, reports: Path, kb: Path) -> list[str]:
    return [
        "env", f"HOME={home}", str(omk), "observe", str(folder),
        "--lang", "en", "--output-dir", str(reports), "--kb", str(kb),
    ]  # fmt: skip


def children_cpu_seconds() -> float:
    """user + system seconds of every reaped child of this process (and theirs, when they reaped them)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def omk_report(reports: Path) -> dict[str, Any]:
    """The health report ``omk observe`` wrote into ``reports`` (one run, one report)."""
    found = sorted(reports.glob("*.report.json"))
    if len(found) != 1:
        raise SystemExit(f"expected one omk report in {reports}, found {[p.name for p in found]}")
    report: dict[str, Any] = orjson.loads(found[0].read_bytes())
    return report


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


def markdown(results: dict[str, Any], run_heading: list[str]) -> str:
    c, omkd, omk, t, r = (results[k] for k in ("corpus", "omkd", "omk", "targets", "read"))
    load, installed = results["load_average"], results["omk_install"]
    rows = [
        *run_heading,
        f"Corpus: {c['bytes'] / MB:.1f} MB, {c['files']:,} files, {c['records']:,} records "
        f"({c['copies']} copy sets of {c['path']}, as {c['mirror']}); "
        f"omk {installed['version']} on node {installed['node']}; "
        f"load average {load['start']:.2f} at the start, {load['end']:.2f} at the end.",
        "",
        "| tool | wall s, best | wall s, median | MB/s, best | MB/s, median | CPU s, median "
        "| peak RSS, all processes | read: files, records |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for side, key in ((omkd, "omkd"), (omk, "omk")):
        rows.append(
            f"| {side['name']} | {side['best_seconds']:.2f} | {side['median_seconds']:.2f} "
            f"| {side['mb_per_s_best']:.1f} | {side['mb_per_s_median']:.1f} | {side['median_cpu_seconds']:.2f} "
            f"| {side['peak_rss_mb']:.1f} MB "
            f"| {r[key]['files']:,}, {r[key]['records']:,} |"
        )
    rows += [
        "",
        "| metric | value | target | status |",
        "|---|---:|---:|---|",
        f"| omkd MB/s ÷ omk MB/s, best of {omkd['runs']} | {t['best']['value']:.2f} | >= {TARGET_RATIO:g} "
        f"| {t['best']['status']} |",
        f"| omkd MB/s ÷ omk MB/s, medians | {t['median']['value']:.2f} | >= {TARGET_RATIO:g} "
        f"| {t['median']['status']} |",
        f"| omk CPU s ÷ omkd CPU s, medians | {omk['median_cpu_seconds'] / omkd['median_cpu_seconds']:.2f} | | |",
        f"| omk RSS ÷ omkd RSS (all processes, peaks) | {omk['peak_rss_mb'] / omkd['peak_rss_mb']:.2f} | | |",
        f"| both read every file and every record | {r['complete']} | | |",
    ]
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="corpus work directory (copy-* sets)")
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES, help="real transcripts to replicate")
    parser.add_argument("--size-mb", type=float, default=DEFAULT_SIZE_MB, help="minimum corpus size in MB")
    parser.add_argument("--runs", type=int, default=3, help="runs of each tool, alternating (default 3)")
    parser.add_argument("--jobs", type=int, default=2, help="omkd scan --jobs (default 2)")
    parser.add_argument("--omk-dir", type=Path, default=DEFAULT_OMK_DIR, help=f"npm prefix of omk ({DEFAULT_OMK_DIR})")
    parser.add_argument("--omk-spec", default=OMK_PACKAGE, help="what npm installs when omk is missing")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where omk_compare.json goes")
    args = parser.parse_args(argv)
    if args.size_mb <= 0 or args.runs < 1 or args.jobs < 1:
        parser.error("--size-mb must be positive, --runs and --jobs at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    load_start = os.getloadavg()[0]
    omk = install_omk(args.omk_dir.resolve(), args.omk_spec)
    installed = omk_versions(args.omk_dir.resolve())
    print(f"omk {installed['version']} at {omk} (asks for node {installed['engines_node']}; node {installed['node']})")
    this = this_run(__file__, argv)
    print(f"  bytecode of {compile_omkd()} compiled (as an installed omkd has it)", flush=True)
    corpus = build_corpus(args.fixtures.resolve(), args.corpus.resolve(), args.size_mb)
    files = list_files(corpus.copies)
    size = sum(f.stat().st_size for f in files)

    with tempfile.TemporaryDirectory(prefix="omk-compare-", dir=args.omk_dir.resolve().parent) as work_name:
        work = Path(work_name)
        folder, home, kb = work / "corpus", work / "home", work / "kb"
        home.mkdir()
        kb.mkdir()
        how = mirror(files, corpus.root, folder)
        print(f"{len(files):,} files, {size / MB:.1f} MB of {len(corpus.copies)} copy sets -> {folder} ({how})")
        warm_cache(list_files([folder]))

        # Untimed: what omkd reads (its report names files and records).
        _, report = scan_json([folder])
        omkd_read = {"files": report["pipeline"]["files"], "records": report["pipeline"]["records"]}
        lines = sum(f.read_bytes().count(b"\n") for f in files)

        omkd_command = [*scan_command([folder]), "--jobs", str(args.jobs)]
        omkd = Side(f"`omkd scan --jobs {args.jobs}`", omkd_command, [], [], [])
        omk_side = Side(
            f"`omk observe` {installed['version']}", omk_command(omk, folder, home, work / "reports-0", kb), [], [], []
        )
        omk_read: dict[str, Any] = {}
        for round_ in range(args.runs):
            for side in (omkd, omk_side) if round_ % 2 == 0 else (omk_side, omkd):
                reports = work / f"reports-{round_}"  # a fresh one per run: omk indexes what it finds there
                cpu_before = children_cpu_seconds()
                seconds, peak = tree_peak_rss(
                    omkd_command if side is omkd else omk_command(omk, folder, home, reports, kb)
                )
                side.seconds.append(seconds)
                side.peak_rss_bytes.append(peak)
                side.cpu_seconds.append(children_cpu_seconds() - cpu_before)
                print(f"{side.name}: {seconds:.2f} s, {peak / MB:.1f} MB, {side.cpu_seconds[-1]:.2f} CPU s")
                if side is omk_side:
                    meta = omk_report(reports)["meta"]
                    omk_read = {
                        "files": meta["ingestion"]["fileCount"],
                        "records": meta["ingestion"]["sourceRecordCount"],
                        "malformed": meta["ingestion"]["malformedRecordCount"],
                        "unknown_events": meta["ingestion"]["unknownEventCount"],
                        "sessions_with_skills": meta["sessionCount"],
                        "segments": meta["segmentCount"],
                    }

    a, b = omkd.figures(size), omk_side.figures(size)
    best = a["mb_per_s_best"] / b["mb_per_s_best"]
    median = a["mb_per_s_median"] / b["mb_per_s_median"]
    listed = {"files": len(files), "records": lines}
    complete = omkd_read == listed == {"files": omk_read.get("files"), "records": omk_read.get("records")}
    results: dict[str, Any] = {
        "date": this.date,
        "command": this.command,
        "machine": this.machine,
        "load_average": {"start": load_start, "end": os.getloadavg()[0]},
        "omk_install": {**installed, "prefix": str(args.omk_dir.resolve()), "spec": args.omk_spec},
        "corpus": {
            "path": str(corpus.root),
            "copies": len(corpus.copies),
            "files": len(files),
            "bytes": size,
            "records": lines,
            "mirror": how,
        },
        "omkd": a,
        "omk": b,
        "read": {"omkd": omkd_read, "omk": omk_read, "complete": complete},
        "targets": {
            "best": {"value": best, "target": TARGET_RATIO, "status": status(best >= TARGET_RATIO)},
            "median": {"value": median, "target": TARGET_RATIO, "status": status(median >= TARGET_RATIO)},
        },
    }
    if not complete:
        print(f"WARNING: the tools did not read the same whole corpus: {results['read']}", file=sys.stderr)
    save(args.out, "omk_compare.json", results, markdown(results, heading("omkd scan against omk observe", this)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
