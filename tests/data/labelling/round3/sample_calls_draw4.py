"""A fourth draw of tool calls from real-2 (a one-off; kept for the record).

Drawn after the third draw's labels had been read and rules written from the dev people's
disagreements, to measure those rules on calls no rule was written from: 150 more
``claude_code/shell/suspect``, 90 more ``codex/shell/suspect`` and 30 ``claude_code/other/suspect`` (MCP
and other tools), from the calls not yet labelled, with the same strata (omkd's verdicts are never
used). Weights, chunks and the blind overlap as in ``sample_calls_draw3.py``.

    .venv/bin/python tests/data/labelling/round3/sample_calls_draw4.py LABELLED.jsonl OUT_DIR
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
from sample import pools  # type: ignore[import-not-found]  # the sampler beside this one
from sample_calls_more import call_id  # type: ignore[import-not-found]

SEED = 20261214
QUOTA = {
    "claude_code/shell/suspect": 150,
    "claude_code/other/suspect": 30,
    "codex/shell/suspect": 90,
}
CHUNKS = ("A", "B", "C")
OVERLAP = 15


def main() -> None:
    labelled_rows = [orjson.loads(line) for line in Path(sys.argv[1]).read_bytes().splitlines() if line.strip()]
    labelled = {(row["file"], row["call_id"]) for row in labelled_rows}
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    calls, _ = pools()
    before = Counter(row["stratum"] for row in labelled_rows)
    drawn: list[dict[str, Any]] = []
    sizes: dict[str, int] = {}
    for (agent, fam, is_suspect), rows in sorted(calls.items()):
        stratum = f"{agent}/{fam}/{'suspect' if is_suspect else 'plain'}"
        sizes[stratum] = len(rows)
        left = [r for r in rows if (r["file"], r["call_id"]) not in labelled]
        k = min(len(left), QUOTA.get(stratum, 0))
        for row in rng.sample(left, k):
            row["id"] = call_id(row)
            row["stratum"] = stratum
            row["draw"] = 4
            drawn.append(row)
    now = Counter(row["stratum"] for row in drawn)
    for row in drawn:
        row["weight"] = round(sizes[row["stratum"]] / (before[row["stratum"]] + now[row["stratum"]]), 4)
    rng.shuffle(drawn)
    (out / "calls_draw4.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in drawn))
    size = -(-len(drawn) // len(CHUNKS))
    chunks = {name: drawn[i * size : (i + 1) * size] for i, name in enumerate(CHUNKS)}
    for i, name in enumerate(CHUNKS):
        (out / f"{name}.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in chunks[name]))
        other = chunks[CHUNKS[(i + 1) % len(CHUNKS)]]  # the next reader's rows, labelled blind here
        overlap = rng.sample(other, min(OVERLAP, len(other)))
        (out / f"{name}2.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in overlap))
    weights = [{"id": r["id"], "weight": round(sizes[r["stratum"]] / (before[r["stratum"]] + now[r["stratum"]]), 4)}
               for r in labelled_rows if now[r["stratum"]]]  # fmt: skip
    (out / "weights.jsonl").write_bytes(b"".join(orjson.dumps(w) + b"\n" for w in weights))
    (out / "call_strata.json").write_bytes(orjson.dumps(sizes, option=orjson.OPT_INDENT_2))
    print(f"drawn {len(drawn)} {dict(now)}; labelled rows reweighted {len(weights)}")


if __name__ == "__main__":
    main()
