"""What every benchmark in ``bench/`` needs and none of them owns.

Figures (nearest-rank percentiles, PASS/MISS, milliseconds), what ``/proc`` says about a process
(CPU seconds, RSS), one sample read out of a ``/metrics`` body, the free-disk check, the
description of the machine and of the omkd under test, ``omkd scan`` run as a child process
(timed, with its peak RSS from ``/usr/bin/time -v``), and the output every benchmark ends with: a
JSON file in ``bench/out/`` and a markdown table on stdout. Each benchmark is a script run on its
own (``.venv/bin/python bench/NAME.py``), so ``bench/`` is first on ``sys.path`` and the modules
import each other by their bare names. Nothing here knows a workload or a target.
"""

from __future__ import annotations

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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

BENCH_DIR: Final = Path(__file__).resolve().parent
REPO_ROOT: Final = BENCH_DIR.parent
DEFAULT_OUT: Final = BENCH_DIR / "out"
MB: Final = 1_000_000
"""MB means 10**6 bytes throughout, RSS included."""
DISK_MARGIN_BYTES: Final = 1 << 30
CLOCK_TICKS: Final = os.sysconf("SC_CLK_TCK")
NEUTRAL_CWD: Final = tempfile.gettempdir()
"""Children run here, so ``python -m omkd`` imports the installed omkd (or PYTHONPATH's), never ./omkd."""
SCAN_FLAGS: Final = ("--json", "--home", "/nonexistent")


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (never interpolated below a measured value)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def status(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.010 else f"{seconds * 1000:.1f} ms"


def iso(moment: float) -> str:
    return dt.datetime.fromtimestamp(moment, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ---------------------------------------------------------------------------------------------
# A process seen from outside
# ---------------------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), from /proc/PID/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def proc_status_kib(pid: int, key: str) -> int:
    """A ``kB`` line of /proc/PID/status (VmHWM, VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def rss_mb(pid: int, key: str = "VmRSS") -> float:
    return proc_status_kib(pid, key) * 1024 / MB


def sample(body: bytes, series: str) -> float | None:
    """The value of one exposition sample, ``name{labels}`` exactly as omkd renders it."""
    needle = b"\n" + series.encode() + b" "
    start = body.find(needle)
    if start < 0:
        return None
    start += len(needle)
    end = body.find(b"\n", start)
    return float(body[start : end if end >= 0 else len(body)])


def free_disk_check(path: Path, needed: int) -> None:
    free = shutil.disk_usage(path).free
    if free < needed + DISK_MARGIN_BYTES:
        raise SystemExit(f"not enough disk in {path}: need {needed / MB:.0f} MB + 1 GiB, {free / MB:.0f} MB free")


# ---------------------------------------------------------------------------------------------
# The machine and the omkd under test
# ---------------------------------------------------------------------------------------------


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, check=False)
    except OSError:
        return None
    return done.stdout.decode().strip() if done.returncode == 0 else None


def omkd_under_test() -> dict[str, str | None]:
    """Which omkd the child processes run (as they import it), and its git state."""
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


def compile_omkd() -> Path:
    """Byte-compile the omkd the children run, as an installed package is (pip compiles what it
    installs). An editable install run with ``PYTHONDONTWRITEBYTECODE`` set, as on this machine,
    has no bytecode of omkd and compiles every module again at each start: 0.5-1 s of a daemon's
    start and of every worker's it spawns, which no installed omkd pays. Returns the package."""
    package = Path(omkd_under_test()["path"] or REPO_ROOT / "omkd")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True, cwd=NEUTRAL_CWD)
    return package


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "omkd": omkd_under_test(),
    }


def shown(path: Path) -> str:
    """``path`` relative to the repository root when it is inside it (``.venv/bin/python``)."""
    absolute = Path(os.path.abspath(path))  # not resolve(): keep the venv's python link as typed
    return str(absolute.relative_to(REPO_ROOT)) if absolute.is_relative_to(REPO_ROOT) else str(path)


@dataclass(frozen=True)
class Run:
    """When, as which command and on what a benchmark ran: the head of its JSON and of its table."""

    date: str
    command: str
    machine: dict[str, Any]


def this_run(script: str, argv: Sequence[str] | None) -> Run:
    """``script`` is the benchmark's ``__file__``; ``argv`` its arguments (``None``: the command line's)."""
    arguments = sys.argv[1:] if argv is None else argv
    return Run(
        date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        command=" ".join([shown(Path(sys.executable)), shown(Path(script)), *arguments]),
        machine=machine(),
    )


def heading(title: str, run: Run) -> list[str]:
    """The lines above a benchmark's table: what, when, which command, which machine and omkd."""
    m = run.machine
    return [
        f"{title} — {run.date} — `{run.command}`",
        "",
        f"Machine: {m['cpus']} CPUs, {m['cpu']}, Python {m['python']}, omkd {m['omkd']['version']} at "
        f"{m['omkd']['path']} (git {m['omkd']['git'] or 'n/a: not the working tree'}; "
        f"repository HEAD {m['omkd']['repository_head']})",
        "",
    ]


def save(out_dir: Path, name: str, document: object, table: str) -> Path:
    """Write ``document`` (dataclasses are serialised field by field) to ``OUT/name``; print ``table``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file = out_dir / name
    out_file.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    print()
    print(table)
    print()
    print(f"written: {out_file}")
    return out_file


# ---------------------------------------------------------------------------------------------
# omkd scan as a child process
# ---------------------------------------------------------------------------------------------


def scan_command(paths: Sequence[Path]) -> list[str]:
    return [sys.executable, "-m", "omkd", "scan", *(str(p) for p in paths), *SCAN_FLAGS]


def scan_json(paths: Sequence[Path]) -> tuple[float, dict[str, Any]]:
    """One ``omkd scan --json`` with its report captured: wall seconds around the child, the report."""
    started = time.perf_counter()
    done = subprocess.run(scan_command(paths), capture_output=True, check=False, cwd=NEUTRAL_CWD)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"omkd scan failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    report: dict[str, Any] = orjson.loads(done.stdout)
    return seconds, report


@dataclass
class ScanRun:
    seconds: float
    peak_rss_bytes: int


def time_binary() -> str | None:
    """``/usr/bin/time`` when it is GNU time (``-v`` reports the peak RSS), else ``None``."""
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


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (read from /proc/PID/task/TID/children)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                queue += [int(child) for child in Path(f"/proc/{current}/task/{task}/children").read_text().split()]
            except OSError:
                continue
    return found


def tree_peak_rss(command: Sequence[str], every: float = 0.01) -> tuple[float, int]:
    """Run ``command`` (stdout discarded); (wall seconds, the largest sum of the resident memory of
    it and all its descendants seen, sampled every ``every`` seconds). Workers count with the
    process that started them, which ``getrusage`` and ``time -v`` (the largest one alone) do not."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=NEUTRAL_CWD)
    peak = 0
    while process.poll() is None:
        total = 0
        for pid in _descendants(process.pid):
            try:
                total += proc_status_kib(pid, "VmRSS") * 1024
            except (OSError, KeyError):
                continue  # gone between the listing and the read, or a zombie
        peak = max(peak, total)
        time.sleep(every)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(
            f"{command[0]} failed ({process.returncode}): {process.stderr.read().decode() if process.stderr else ''}"
        )
    return seconds, peak


def run_scan(paths: Sequence[Path], time_path: str | None) -> ScanRun:
    """One ``omkd scan`` in a fresh child process, stdout discarded: wall time and peak RSS.

    The peak RSS comes from ``time_path -v`` (see ``time_binary``) or, without it, from a fresh
    wrapper process per run, so that ``RUSAGE_CHILDREN`` covers exactly this one scan.
    """
    command = scan_command(paths)
    if time_path is not None:
        with tempfile.NamedTemporaryFile(prefix="omkd-bench-time-", suffix=".txt") as report:
            started = time.perf_counter()
            done = subprocess.run(
                [time_path, "-v", "-o", report.name, *command],
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
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", RUSAGE_WRAPPER, *command], capture_output=True, check=False, cwd=NEUTRAL_CWD
    )  # fmt: skip
    seconds = time.perf_counter() - started
    fields = done.stdout.split()
    if done.returncode != 0 or len(fields) != 2 or int(fields[1]) != 0:
        raise SystemExit(f"omkd scan failed ({done.stdout!r}): {done.stderr.decode(errors='replace')}")
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return ScanRun(seconds, int(fields[0]) * unit)
