"""The tailer's state machine run wide: random examples (not the fixed, derandomized set CI runs).

Run from the repository root::

    .venv/bin/python bench/tailer_model.py [--examples 5000] [--batch 250] [--steps 50] [--seed 1]

The examples are split into batches, each a ``run_state_machine_as_test`` with its own seed and
no example database, so that one failure (which Hypothesis shrinks and reports) does not stop
the rest; every failing batch's minimal sequence is printed and saved. Target: 0 failures.
Results go to ``bench/out/tailer_model.json`` (``--out DIR``).
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from common import DEFAULT_OUT, heading, save, status, this_run
from hypothesis import seed as seeded
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from omkd import logs  # noqa: E402
from tests.test_tailer_state_machine import TailerMachine  # noqa: E402  (the model lives with the tests)


def batch(examples: int, steps: int, seed: int) -> str | None:
    """None when every example passed, else the failure as Hypothesis reports it."""

    @seeded(seed)
    def run() -> None:
        run_state_machine_as_test(
            TailerMachine,
            settings=settings(
                max_examples=examples,
                stateful_step_count=steps,
                deadline=None,
                report_multiple_bugs=False,
                derandomize=False,
                database=None,
                print_blob=True,
            ),
        )

    try:
        run()
    except Exception:  # the failure, shrunk: kept as text
        return traceback.format_exc(limit=3)[-6000:]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=250)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    this = this_run(__file__, argv)
    logs.configure("error", json=True)  # the daemon's info lines, thousands of them, are not the result
    failures: list[dict[str, object]] = []
    started = time.monotonic()
    batches = max(1, args.examples // args.batch)
    for n in range(batches):
        found = batch(args.batch, args.steps, args.seed + n)
        print(f"batch {n + 1}/{batches} (seed {args.seed + n}): {'ok' if found is None else 'FAILED'}", flush=True)
        if found is not None:
            failures.append({"seed": args.seed + n, "report": found})
    seconds = time.monotonic() - started
    lines = [
        *heading("Tailer state machine, random examples", this),
        "| examples | steps each | batches | failing batches | seconds | target 0 |",
        "|---:|---:|---:|---:|---:|---|",
        f"| {batches * args.batch} | {args.steps} | {batches} | {len(failures)} | {seconds:.0f} | "
        f"{status(not failures)} |",
    ]
    for failure in failures:
        lines += ["", f"seed {failure['seed']}:", str(failure["report"])]
    document = {**asdict(this), "examples": batches * args.batch, "steps": args.steps, "failures": failures}
    save(args.out, "tailer_model.json", document, "\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
