"""A second draw of hedging sentences from real-2 (a one-off; kept for the record).

The first draw (``sample.py``) capped each (agent, part, language) stratum of caught sentences at 300
(English) and 120 (others). The judge's learning curve was still rising, so this draws more of the
caught sentences left: every caught text sentence left, and the caught thinking sentences left up
to a cap per stratum; none already labelled. Each row's ``weight`` is its stratum's population over
the rows drawn from it in both draws (``weights.jsonl`` has the new weight of every row of both).

    .venv/bin/python tests/data/labelling/round3/sample_more.py LABELLED.jsonl OUT_DIR
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
from sample import pools  # type: ignore[import-not-found]  # the sampler beside this one

SEED = 20261204
CAP_THINKING = 400
"""Caught thinking sentences drawn per stratum in this draw (text: all that are left)."""


def sentence_id(row: dict[str, Any]) -> str:
    return "s" + hashlib.sha256(f"{row['file']}:{row['line']}:{row['sentence']}".encode()).hexdigest()[:10]


def main() -> None:
    labelled_rows = [orjson.loads(line) for line in Path(sys.argv[1]).read_bytes().splitlines() if line.strip()]
    labelled = {row["id"] for row in labelled_rows}
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    _, sents = pools()
    drawn: list[dict[str, Any]] = []
    sizes: dict[str, int] = {}
    for (agent, part, lang, with_cue), rows in sorted(sents.items()):
        stratum = f"{agent}/{part}/{lang}/{'cue' if with_cue else 'nocue'}"
        sizes[stratum] = len(rows)
        if not with_cue:
            continue
        left = [r for r in rows if sentence_id(r) not in labelled]
        k = len(left) if part == "text" else min(len(left), CAP_THINKING)
        for row in rng.sample(left, k):
            row["id"] = sentence_id(row)
            row["stratum"] = stratum
            drawn.append(row)
    before = Counter(row["stratum"] for row in labelled_rows)
    now = Counter(row["stratum"] for row in drawn)
    for row in drawn:
        row["weight"] = round(sizes[row["stratum"]] / (before[row["stratum"]] + now[row["stratum"]]), 4)
    rng.shuffle(drawn)
    (out / "sentences_more.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in drawn))
    weights = [{"id": r["id"], "weight": round(sizes[r["stratum"]] / (before[r["stratum"]] + now[r["stratum"]]), 4)}
               for r in labelled_rows]  # fmt: skip
    (out / "weights.jsonl").write_bytes(b"".join(orjson.dumps(w) + b"\n" for w in weights))
    print(len(drawn), dict(Counter(r["stratum"] for r in drawn)))


if __name__ == "__main__":
    main()
