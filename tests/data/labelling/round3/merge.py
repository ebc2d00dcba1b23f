"""Merge the round-3 labellers' files into the labelled sets of tests/data (a one-off; kept for the record).

    python3 tests/data/labelling/round3/merge.py WORK_DIR

WORK_DIR holds what ``sample.py`` drew (``calls.jsonl``, ``sentences.jsonl``, the ``*_design.jsonl``
weights, ``overlap_ids.json``), the chunks given to the labellers and their ``out/*.labels.jsonl``.
Rows labelled twice (the blind overlap) keep the first labeller's label; the second's is kept as
``second_label`` and the agreement is printed (Cohen's kappa and raw agreement).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2]


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def kappa(pairs: list[tuple[Any, Any]]) -> tuple[float, float]:
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[k] * second[k] for k in first) / (n * n)
    return observed, (observed - expected) / (1 - expected) if expected < 1 else 1.0


def merge(work: Path, kind: str, chunks: list[str], label_keys: tuple[str, ...]) -> list[dict[str, Any]]:
    drawn = {row["id"]: row for row in load(work / f"{kind}.jsonl")}
    design = {row["id"]: row for row in load(work / f"{kind}_design.jsonl")}
    merged: dict[str, dict[str, Any]] = {}
    pairs: list[tuple[Any, Any]] = []
    binary: list[tuple[Any, Any]] = []
    for chunk in chunks:
        for row in load(work / "out" / f"{chunk}.labels.jsonl"):
            labels = {k: row[k] for k in (*label_keys, "reason", "doubt") if k in row}
            if row["id"] in merged:
                first = merged[row["id"]]
                if first.get("labeller") == chunk:
                    continue  # the same sentence drawn twice into one chunk
                pairs.append((first[label_keys[0]], row[label_keys[0]]))
                key = "is_uncertainty" if "is_uncertainty" in row else None
                if key:
                    binary.append((first[key], row[key]))
                else:
                    binary.append((first["label"] == "failed_search", row["label"] == "failed_search"))
                first["second_label"] = {k: row[k] for k in (*label_keys, "reason") if k in row}
                continue
            base = {
                k: v
                for k, v in drawn[row["id"]].items()
                if k not in ("prompts_before", "text_before", "calls_before", "result", "input")
            }
            merged[row["id"]] = {
                **base,
                **labels,
                "stratum": design[row["id"]]["stratum"],
                "weight": design[row["id"]]["weight"],
                "labeller": chunk,
            }
    if pairs:
        raw, k = kappa(pairs)
        braw, bk = kappa(binary)
        print(
            f"{kind}: {len(pairs)} rows labelled twice, blind: {label_keys[0]} agreement {raw:.3f} "
            f"(kappa {k:.3f}); positive/negative agreement {braw:.3f} (kappa {bk:.3f})"
        )
    return list(merged.values())


def write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{path.relative_to(DATA.parent.parent)}: {len(rows)} rows")


def main() -> None:
    if sys.argv[1] == "--more":
        merge_more(Path(sys.argv[2]))
        return
    if sys.argv[1] == "--calls-more":
        merge_calls_more(Path(sys.argv[2]))
        return
    if sys.argv[1] == "--calls-real1":
        merge_calls_real(Path(sys.argv[2]))
        return
    if sys.argv[1] in {f"--calls-draw{number}" for number in range(3, 11)}:
        merge_calls_draw(Path(sys.argv[2]), int(sys.argv[1].removeprefix("--calls-draw")))
        return
    work = Path(sys.argv[1])
    calls = merge(work, "calls", ["callsA", "callsB", "callsC"], ("label",))
    write(DATA / "real2_tool_calls.jsonl", calls)
    sentences = merge(work, "sentences", ["sentA", "sentB", "sentC", "sentD"], ("kind", "is_uncertainty", "lang"))
    write(DATA / "real2_hedging_sentences.jsonl", sentences)
    relabelled = load(work / "out" / "relabel.labels.jsonl")
    old = {row["id"]: row for row in load(DATA / "hedging_sentences.jsonl")}
    pairs = [(old[r["id"]]["is_uncertainty"], r["is_uncertainty"]) for r in relabelled]
    raw, k = kappa(pairs)
    print(f"relabelled real sentences: {len(pairs)}; old and new label agree on {raw:.3f} (kappa {k:.3f})")
    write(DATA / "hedging_sentences_relabelled.jsonl", relabelled)


def merge_more(more: Path) -> None:
    """Add the second draw's sentences (``sample_more.py``, labelled by two more labellers) to
    ``real2_hedging_sentences.jsonl`` and give every row of the first draw its weight over both.

        python3 tests/data/labelling/round3/merge.py --more WORK_DIR_OF_THE_SECOND_DRAW
    """
    target = DATA / "real2_hedging_sentences.jsonl"
    first = load(target)
    weights = {row["id"]: row["weight"] for row in load(more / "weights.jsonl")}
    for row in first:
        row["weight"] = weights[row["id"]]
    drawn = {row["id"]: row for row in load(more / "sentences_more.jsonl")}
    added: list[dict[str, Any]] = []
    for chunk in ("moreA", "moreB"):
        for row in load(more / "out" / f"{chunk}.labels.jsonl"):
            base = {k: v for k, v in drawn[row["id"]].items() if k not in ("stratum", "weight")}
            labels: dict[str, Any] = {
                k: row[k] for k in ("kind", "is_uncertainty", "lang", "reason", "doubt") if k in row
            }
            added.append({**base, **labels, "stratum": drawn[row["id"]]["stratum"],
                          "weight": drawn[row["id"]]["weight"], "labeller": chunk, "draw": 2})  # fmt: skip
    write(target, first + added)


def merge_calls_more(more: Path) -> None:
    """Add the second draw of Codex and Gemini calls (``sample_calls_more.py``, labelled by one more
    labeller in the chunks ``out/chunk*.labels.jsonl``) to ``real2_tool_calls.jsonl``, and give every
    row of a stratum drawn from again its weight over both draws: the stratum's population over the
    rows of that stratum in the whole set.

        python3 tests/data/labelling/round3/merge.py --calls-more WORK_DIR_OF_THE_SECOND_DRAW
    """
    target = DATA / "real2_tool_calls.jsonl"
    first = load(target)
    drawn = {row["id"]: row for row in load(more / "calls_more.jsonl")}
    population = json.loads((more / "call_strata.json").read_text(encoding="utf-8"))
    added: list[dict[str, Any]] = []
    for chunk in sorted((more / "out").glob("chunk*.labels.jsonl")):
        for row in load(chunk):
            base = {k: v for k, v in drawn[row["id"]].items()
                    if k not in ("prompts_before", "text_before", "calls_before", "result", "input")}  # fmt: skip
            labels: dict[str, Any] = {k: row[k] for k in ("label", "reason", "doubt") if k in row}
            added.append({**base, **labels, "labeller": "calls2", "draw": 2})
    if {row["id"] for row in added} != set(drawn) or len(added) != len(drawn):
        raise SystemExit(f"{more}: the labels do not cover the draw one for one")
    append_draw(target, first, added, population)


def append_draw(
    target: Path, first: list[dict[str, Any]], added: list[dict[str, Any]], population: dict[str, int]
) -> None:
    """Write ``first`` and the ``added`` rows of a new draw, every row of a stratum drawn from again
    weighted by its stratum's population over its rows in the whole set."""
    rows = first + added
    if len({row["id"] for row in rows}) != len(rows):
        raise SystemExit("duplicate ids after the merge")
    counts = Counter(row["stratum"] for row in rows)
    again = {row["stratum"] for row in added}
    for row in rows:
        if row["stratum"] in again:
            row["weight"] = round(population[row["stratum"]] / counts[row["stratum"]], 4)
    write(target, rows)
    for stratum in sorted(again):
        print(f"{stratum}: population {population[stratum]}, rows {counts[stratum]}, weight "
              f"{population[stratum] / counts[stratum]:.4f}")  # fmt: skip


def merge_calls_draw(work: Path, number: int) -> None:
    """Add the third to tenth draws (``sample_calls_draw.py 3`` to ``10``: Claude Code's
    shell and search calls, more Codex shell calls; three readers ``A``, ``B``, ``C``) to
    ``real2_tool_calls.jsonl``. Each reader also labelled 15 rows of the next reader's chunk blind
    (``A2``, ``B2``, ``C2``): kept as ``second_label``, and the agreement printed. Every row of a stratum
    drawn from again gets its weight over all draws.

        python3 tests/data/labelling/round3/merge.py --calls-draw3 WORK_DIR_OF_THE_THIRD_DRAW
        python3 tests/data/labelling/round3/merge.py --calls-draw4 WORK_DIR_OF_THE_FOURTH_DRAW
        python3 tests/data/labelling/round3/merge.py --calls-draw5 WORK_DIR_OF_THE_FIFTH_DRAW
        python3 tests/data/labelling/round3/merge.py --calls-draw6 WORK_DIR_OF_THE_SIXTH_DRAW
        python3 tests/data/labelling/round3/merge.py --calls-draw7 WORK_DIR_OF_THE_SEVENTH_DRAW
        python3 tests/data/labelling/round3/merge.py --calls-draw8 WORK_DIR_OF_THE_EIGHTH_DRAW
        python3 tests/data/labelling/round3/merge.py --calls-draw9 WORK_DIR_OF_THE_NINTH_DRAW
        python3 tests/data/labelling/round3/merge.py --calls-draw10 WORK_DIR_OF_THE_TENTH_DRAW
    """
    target = DATA / "real2_tool_calls.jsonl"
    first = load(target)
    drawn = {row["id"]: row for row in load(work / f"calls_draw{number}.jsonl")}
    population = json.loads((work / "call_strata.json").read_text(encoding="utf-8"))
    added = _labelled_draw(work, drawn, f"calls{number}", f"draw {number}")
    append_draw(target, first, list(added.values()), population)


def merge_calls_real(work: Path) -> None:
    """Write the draw of ``real/`` calls no set held (``sample_calls_real.py``; readers ``A``, ``B``, ``C``
    and their blind overlap ``A2``, ``B2``, ``C2``) as ``real_tool_calls_more.jsonl``. A call whose
    transcript is redacted is labelled ``unreadable`` (what the reader guessed is kept as ``guess``).

        python3 tests/data/labelling/round3/merge.py --calls-real1 WORK_DIR
    """
    drawn = {row["id"]: row for row in load(work / "calls_real1.jsonl")}
    rows = list(_labelled_draw(work, drawn, "real1", "real/ draw 1").values())
    for row in rows:  # a redacted call (``[REDACTED_ARGUMENTS …]``): nothing to read, the reader's label a guess
        if "[REDACTED_" in drawn[row["id"]]["input"] + str(drawn[row["id"]]["result"]):
            row["guess"], row["label"] = row["label"], "unreadable"
    write(DATA / "real_tool_calls_more.jsonl", rows)


def _labelled_draw(work: Path, drawn: dict[str, dict[str, Any]], prefix: str, name: str) -> dict[str, dict[str, Any]]:
    """The drawn rows with the readers' labels (``out/A…C.labels.jsonl``), each with the blind second
    reading of the overlap chunks (``A2…C2``) as ``second_label``; the agreement printed."""
    added: dict[str, dict[str, Any]] = {}
    for chunk in ("A", "B", "C"):
        for row in load(work / "out" / f"{chunk}.labels.jsonl"):
            base = {k: v for k, v in drawn[row["id"]].items()
                    if k not in ("prompts_before", "text_before", "calls_before", "result", "input")}  # fmt: skip
            labels: dict[str, Any] = {k: row[k] for k in ("label", "reason", "doubt") if k in row}
            added[row["id"]] = {**base, **labels, "labeller": f"{prefix}{chunk}"}
    if set(added) != set(drawn):
        raise SystemExit(f"{work}: the labels do not cover the draw one for one")
    pairs: list[tuple[Any, Any]] = []
    for chunk in ("A2", "B2", "C2"):
        for row in load(work / "out" / f"{chunk}.labels.jsonl"):
            primary = added[row["id"]]
            pairs.append((primary["label"], row["label"]))
            primary["second_label"] = {k: row[k] for k in ("label", "reason") if k in row}
    raw, k = kappa(pairs)
    braw, bk = kappa([(a == "failed_search", b == "failed_search") for a, b in pairs])
    print(f"{name}: {len(pairs)} rows labelled twice, blind: label agreement {raw:.3f} (kappa {k:.3f}); "
          f"failed_search yes/no agreement {braw:.3f} (kappa {bk:.3f})")  # fmt: skip
    return added


if __name__ == "__main__":
    main()
