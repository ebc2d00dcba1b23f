"""Merge the labelled §8 anchors into ``tests/data/metacog_anchors.jsonl`` (a one-off; kept for the record).

    python3 tests/data/labelling/round3/merge_anchors.py WORK_DIR [--more]

WORK_DIR holds ``anchors.jsonl`` (``sample_anchors.py``'s draw), the chunks and ``out/*.labels.jsonl``.
With ``--more`` (a later draw, ``sample_anchors_more.py``), the anchors already in the data are kept and
the new ones appended, each with ``draw: 2``; an anchor already labelled under another id (its file and
call or sentence the same) is left out and its two outcomes compared.
Rows labelled twice (the blind overlap) keep the first labeller's labels and the second's as
``second_label``; the agreement on the outcome is printed.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from sample_anchors import anchor_id  # type: ignore[import-not-found]  # the sampler beside this one

DATA = Path(__file__).resolve().parents[2]
KEPT = ("id", "set", "repo", "file", "line", "agent", "kind", "call_id", "tool", "result_line", "sentence", "thinking",
        "subagent")  # fmt: skip
LABELS = ("anchor_ok", "eligible", "outcome", "deciding_line", "reason", "doubt")


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def _what(row: dict[str, Any]) -> tuple[str, str]:
    """An anchor whatever its line: its file and call (a miss) or sentence (a hedge)."""
    return row["file"], row.get("call_id") or row.get("sentence") or ""


def main() -> None:
    """Labels are matched to the chunk rows they were written for by position (each labeller kept the
    chunk's order: checked by the ids), and each anchor takes ``sample_anchors.anchor_id`` (the first
    draw's ids gave two misses of one message one id)."""
    work = Path(sys.argv[1])
    more = "--more" in sys.argv[2:]
    before = load(DATA / "metacog_anchors.jsonl") if more else []
    known = {row["id"] for row in before}
    merged: dict[str, dict[str, Any]] = {}
    pairs: list[tuple[str, str]] = []
    for chunk in ("anchA", "anchB", "anchC"):
        rows = load(work / f"{chunk}.jsonl")
        labelled = load(work / "out" / f"{chunk}.labels.jsonl")
        assert [r["id"] for r in rows] == [r["id"] for r in labelled], chunk
        for source, row in zip(rows, labelled, strict=True):
            key = anchor_id(source)
            labels = {k: row[k] for k in LABELS if k in row}
            if key in merged:
                pairs.append((merged[key]["outcome"], row["outcome"]))
                merged[key]["second_label"] = labels
                continue
            assert key not in known, f"{key} is labelled already"
            kept = {k: source[k] for k in KEPT if k in source}
            merged[key] = {**kept, "id": key, **labels, "labeller": chunk, **({"draw": 2} if more else {})}
    agree = sum(a == b for a, b in pairs)
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[k] * second[k] for k in first) / (len(pairs) ** 2)
    kappa = (agree / len(pairs) - expected) / (1 - expected)
    print(f"{len(pairs)} anchors labelled twice, blind: outcome agreement {agree / len(pairs):.3f} (kappa {kappa:.3f})")
    same = {_what(row): row for row in before}
    again = [(same[_what(row)], row) for row in merged.values() if _what(row) in same]
    if again:  # a first-draw anchor drawn again under another id (Gemini chats' lines were renumbered)
        kept_same = sum(old["outcome"] == new["outcome"] for old, new in again)
        print(f"{len(again)} anchors of an earlier draw drawn again, left out: the same outcome in {kept_same}")
    out = before + [row for row in merged.values() if _what(row) not in same]
    (DATA / "metacog_anchors.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out))
    print(len(out), "anchors;", dict(Counter((r["kind"], r["outcome"]) for r in out)))


if __name__ == "__main__":
    main()
