"""The pure and the compiled build of ``omkd scan`` side by side with the parse floor, in one run.

Run from the repository root::

    .venv/bin/python bench/build_pairs.py [--rounds 6] [--corpus bench/corpus] [--compiled DIR]

Each round runs three whole processes in turn, each from a directory outside the checkout (``python
-m omkd`` puts the current directory first on ``sys.path``, so from the repository root it would import
the source tree whatever ``PYTHONPATH`` names):

1. the floor: a process running ``scan_throughput.parse_floor`` over the corpus (start-up included);
2. ``omkd scan CORPUS --json --jobs 2`` of this checkout's sources (pure Python);
3. the same scan of the compiled build: a wheel built with ``OMKD_COMPILE=1`` and installed into
   ``--compiled`` (built there first when it holds none; ``omkd --version`` must name mypyc).

The first round is a warm-up. Printed: every round's wall seconds and the medians of pure / floor,
compiled / floor and compiled / pure, each ratio taken within its round (the machine's load moves the
three together). Targets (issue 27): pure at most 2.5 times the floor, compiled at most 2.0 times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

from common import NEUTRAL_CWD
from corpus import DEFAULT_CORPUS

ROOT: Final = Path(__file__).resolve().parent.parent
DEFAULT_COMPILED: Final = ROOT / "build" / "bench-compiled"
FLOOR: Final = (
    "import sys; sys.path.insert(0, {bench!r}); from pathlib import Path; from scan_throughput import parse_floor; "
    "root = Path({corpus!r}); parse_floor(sorted(root.rglob('*.jsonl')) + sorted(root.rglob('*.json')))"
)


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=NEUTRAL_CWD, env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: a gate failed, not a crash
        raise SystemExit(f"{' '.join(command[:4])}…: exit {done.returncode}\n{done.stderr.decode()[-2000:]}")
    return seconds


def compiled_site(target: Path) -> Path:
    """The compiled build installed into ``target/site`` (built when missing)."""
    site = target / "site"
    if not (site / "omkd").is_dir():
        wheel = target / "wheel"
        env = {**os.environ, "OMKD_COMPILE": "1"}
        pip = [sys.executable, "-m", "pip"]
        subprocess.run([*pip, "wheel", "-q", "--no-deps", "-w", str(wheel), str(ROOT)], env=env, check=True)
        built = sorted(wheel.glob("omkd-*.whl"))[-1]
        subprocess.run([*pip, "install", "-q", "--no-deps", "--target", str(site), str(built)], check=True)
    version = subprocess.run(
        [sys.executable, "-m", "omkd", "--version"], cwd=NEUTRAL_CWD, env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if "mypyc" not in version:
        raise SystemExit(f"{site}: not a compiled build ({version})")
    return site


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=6, help="rounds, the first a warm-up (default 6)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="scan_throughput.py's corpus")
    parser.add_argument("--compiled", type=Path, default=DEFAULT_COMPILED, help="where the compiled build lives")
    args = parser.parse_args()
    corpus = args.corpus.resolve()
    if not corpus.is_dir():
        raise SystemExit(f"{corpus}: no such directory (bench/scan_throughput.py builds it)")
    site = compiled_site(args.compiled.resolve())
    floor = [sys.executable, "-c", FLOOR.format(bench=str(ROOT / "bench"), corpus=str(corpus))]
    scan = [sys.executable, "-m", "omkd", "scan", str(corpus), "--json", "--home", "/nonexistent", "--jobs", "2"]
    pure_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    compiled_env = {**os.environ, "PYTHONPATH": str(site)}
    rows = []
    print("| round | floor s | pure s | compiled s | pure / floor | compiled / floor | compiled / pure |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for number in range(args.rounds):
        f, p, c = timed(floor, dict(os.environ)), timed(scan, pure_env), timed(scan, compiled_env)
        if number:
            rows.append((p / f, c / f, c / p))
        label = f"{number} (warm-up)" if number == 0 else str(number)
        print(f"| {label} | {f:.2f} | {p:.2f} | {c:.2f} | {p / f:.2f} | {c / f:.2f} | {c / p:.2f} |")
    if rows:
        medians = [statistics.median(column) for column in zip(*rows, strict=True)]
        print(f"| median | | | | **{medians[0]:.2f}** | **{medians[1]:.2f}** | {medians[2]:.2f} |")
        print(f"\ntargets: pure / floor <= 2.5 {'PASS' if medians[0] <= 2.5 else 'MISS'}; "
              f"compiled / floor <= 2.0 {'PASS' if medians[1] <= 2.0 else 'MISS'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
