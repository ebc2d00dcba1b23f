"""Does omkd hold on people it was not built on? failed_search and hedging, split by person.

Run from the repository root::

    .venv/bin/python bench/generalisation.py [--fixtures ../shared/fixtures/real-2]

The labelled sets are ``tests/data/real2_tool_calls.jsonl`` and ``real2_hedging_sentences.jsonl``
(27 people's transcripts of ``../shared/fixtures/real-2``, labelled by reading, never by running
omkd; ``tests/data/README.md``). The people (repositories) are split once, by the SHA-256 of the
repository name: **dev** (first hex digit 0 to 7: the disagreements a developer may read while
changing the rules) and **held out** (8 to f: measured, never read). Every figure is given per split,
per person, per tool family and per agent, with 95 % Wilson intervals on the labelled counts, and
the design-weighted point estimate (each row weighs its stratum's population over its sample:
misses were oversampled).

``--fixtures ../shared/fixtures/real --labels tests/data/real_tool_calls_more.jsonl`` measures the draw
of ``real/`` calls no earlier set held (the people omkd was first built on: no split applies, read the
``all`` tables).

Targets (issue 28, held-out people): failed_search P >= 0.93 and R >= 0.93 overall, each of
shell, Codex and Gemini >= 0.85 on both. Output: markdown on stdout and
``bench/out/generalisation.json``.
"""

from __future__ import annotations

import argparse
import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final

import hedging_cv
import orjson
from common import DEFAULT_OUT, REPO_ROOT, heading, save, this_run

from omkd.shell import quality

DEFAULT_FIXTURES: Final = REPO_ROOT.parent / "shared" / "fixtures" / "real-2"
CALL_LABELS: Final = REPO_ROOT / "tests" / "data" / "real2_tool_calls.jsonl"
UNREADABLE: Final = "unreadable"
"""A labelled call whose transcript is redacted: the reader could only guess, so it measures nothing."""
TARGETS: Final = {"overall": (0.93, 0.93), "shell": (0.85, 0.85), "codex": (0.85, 0.85), "gemini": (0.85, 0.85)}


def split_of(repo: str) -> str:
    """``dev`` or ``held-out``: fixed by the repository's name, never by its content."""
    return "dev" if hashlib.sha256(repo.encode()).hexdigest()[0] in "01234567" else "held-out"


def wilson(k: int, n: int) -> tuple[float, float] | None:
    """The 95 % Wilson interval of k in n (``hedging_cv.wilson``'s, without the proportion)."""
    _, lower, upper = hedging_cv.wilson(k, n)
    return None if lower is None or upper is None else (lower, upper)


def scores(rows: Iterable[tuple[bool, bool, float]]) -> dict[str, Any]:
    """(labelled positive, predicted positive, design weight) -> counts, P and R with intervals."""
    tp = fp = fn = tn = 0
    wtp = wfp = wfn = 0.0
    for truth, predicted, weight in rows:
        if truth and predicted:
            tp, wtp = tp + 1, wtp + weight
        elif predicted:
            fp, wfp = fp + 1, wfp + weight
        elif truth:
            fn, wfn = fn + 1, wfn + weight
        else:
            tn += 1
    return {
        "tp": tp, "fp": fp, "fn": fn, "tn": tn,
        "precision": tp / (tp + fp) if tp + fp else None, "precision_ci": wilson(tp, tp + fp),
        "recall": tp / (tp + fn) if tp + fn else None, "recall_ci": wilson(tp, tp + fn),
        "weighted_precision": wtp / (wtp + wfp) if wtp + wfp else None,
        "weighted_recall": wtp / (wtp + wfn) if wtp + wfn else None,
    }  # fmt: skip


def _family(row: dict[str, Any]) -> str:
    fam = quality.family(row["tool"])
    return "shell" if row.get("family") == "shell" or fam == "Bash" else fam


def call_quality(fixtures: Path, labels: list[dict[str, Any]]) -> dict[str, Any]:
    verdicts = quality.call_verdicts(fixtures, (row["file"] for row in labels))
    groups: dict[str, list[tuple[bool, bool, float]]] = defaultdict(list)
    disagreements = []
    for row in labels:
        if row["label"] == UNREADABLE:
            continue
        verdict, rule = verdicts.get((row["file"], row["call_id"]), ("(no verdict)", ""))
        truth = row["label"] == "failed_search"
        predicted = verdict in quality.POSITIVE_VERDICTS
        item = (truth, predicted, float(row.get("weight", 1.0)))
        split = split_of(row["repo"])
        for key in ("overall", f"agent:{row['agent']}", f"family:{_family(row)}", f"person:{row['repo']}"):
            groups[f"{split}|{key}"].append(item)
            groups[f"all|{key}"].append(item)
        if truth != predicted:
            disagreements.append({**row, "split": split, "verdict": verdict, "rule": rule})
    return {"scores": {key: scores(items) for key, items in sorted(groups.items())}, "disagreements": disagreements}


def _f(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _ci(value: tuple[float, float] | None) -> str:
    return "" if value is None else f" [{value[0]:.2f}–{value[1]:.2f}]"


def table(result: dict[str, Any], split: str, prefix: str) -> list[str]:
    lines = [f"| {prefix or 'overall'} ({split}) | labelled +| TP | FP | FN | P [95 %] | R [95 %] | weighted P / R |",
             "|---|---:|---:|---:|---:|---|---|---|"]  # fmt: skip
    for key, s in result["scores"].items():
        where, _, name = key.partition("|")
        if where != split or not (name.startswith(prefix) if prefix else name == "overall"):
            continue
        lines.append(
            f"| {name.removeprefix(prefix)} | {s['tp'] + s['fn']} | {s['tp']} | {s['fp']} | {s['fn']} "
            f"| {_f(s['precision'])}{_ci(s['precision_ci'])} | {_f(s['recall'])}{_ci(s['recall_ci'])} "
            f"| {_f(s['weighted_precision'])} / {_f(s['weighted_recall'])} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--labels", type=Path, default=CALL_LABELS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    run = this_run(__file__, argv)
    labels = [orjson.loads(line) for line in args.labels.read_bytes().splitlines() if line.strip()]
    result = call_quality(args.fixtures, labels)
    lines = heading("Generalisation: failed_search on people omkd was not built on", run)
    for split in ("held-out", "dev", "all"):
        lines += ["", f"### {split}", ""]
        for prefix in ("", "agent:", "family:", "person:"):
            lines += [*table(result, split, prefix), ""]
    save(args.out, "generalisation.json", result, "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
