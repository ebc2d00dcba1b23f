"""The tailer's state machine run wide: random examples, not the fixed, derandomized set CI runs.

Run from the repository root::

    .venv/bin/python bench/tailer_model.py [--examples 5000] [--batch 250] [--seed 1]

The examples are split into batches, each one run of the state-machine test
(``tests/test_tailer_state_machine.py``) under pytest with ``OMKD_TAILER_EXAMPLES`` and its own
``OMKD_TAILER_SEED``, so that one failure (which Hypothesis shrinks and reports) does not stop the
rest; every failing batch's minimal sequence (the steps, without the daemon's log lines) is printed
and saved. Target: 0 failures.
Results go to ``bench/out/tailer_model.json`` (``--out DIR``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Final

from common import DEFAULT_OUT, heading, save, status, this_run

REPOSITORY: Final = Path(__file__).resolve().parents[1]
TEST: Final = "tests/test_tailer_state_machine.py::test_tailer_folds_exactly_what_it_could_read"
LOG_LINE: Final = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[")
"""A line the daemon logged (pytest shows them with a failure): not part of the report kept."""


def falsifying(report: str) -> str:
    """The failing sequence Hypothesis printed (``state = TailerMachine()`` to ``state.teardown()``)
    and the error, without the daemon's log lines pytest captured around them."""
    lines = [
        line[1:].strip() if line.startswith("E ") else line.rstrip()
        for line in report.splitlines()
        if not LOG_LINE.match(line)
    ]
    starts = [n for n, line in enumerate(lines) if line.strip() == "state = TailerMachine()"]
    errors = [line.strip() for line in lines if "Error" in line or line.strip().startswith(("assert ", "Flaky"))]
    if not starts:
        return "\n".join([*errors[-3:], "(no falsifying sequence printed; the end of the report:)", *lines[-60:]])
    steps: list[str] = []
    for line in lines[starts[-1] :]:
        steps.append(line)
        if line.strip() == "state.teardown()":
            break
    return "\n".join([*errors[-3:], *steps])


def batch(examples: int, seed: int) -> str | None:
    """None when every example passed, else the failing sequence Hypothesis shrank to, and its error."""
    env = {**os.environ, "OMKD_TAILER_EXAMPLES": str(examples), "OMKD_TAILER_SEED": str(seed)}
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TEST],
        cwd=REPOSITORY,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return None if ran.returncode == 0 else falsifying(ran.stdout + ran.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=250)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    this = this_run(__file__, argv)
    failures: list[dict[str, object]] = []
    started = time.monotonic()
    batches = max(1, args.examples // args.batch)
    for n in range(batches):
        found = batch(args.batch, args.seed + n)
        print(f"batch {n + 1}/{batches} (seed {args.seed + n}): {'ok' if found is None else 'FAILED'}", flush=True)
        if found is not None:
            print(found, flush=True)
            failures.append({"seed": args.seed + n, "report": found})
    seconds = time.monotonic() - started
    lines = [
        *heading("Tailer state machine, random examples", this),
        "| examples | steps each | batches | failing batches | seconds | target 0 |",
        "|---:|---:|---:|---:|---:|---|",
        f"| {batches * args.batch} | 50 | {batches} | {len(failures)} | {seconds:.0f} | {status(not failures)} |",
    ]
    for failure in failures:
        lines += ["", f"seed {failure['seed']}:", str(failure["report"])]
    document = {**asdict(this), "examples": batches * args.batch, "failures": failures}
    save(args.out, "tailer_model.json", document, "\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
