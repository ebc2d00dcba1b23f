"""Pick 80 draw-2 rows of ``real2_tool_calls.jsonl`` for a blind second reading (a one-off; kept for the record).

The second draw (``"draw": 2``, Codex CLI and Gemini CLI calls) had one labeller. This picks every
draw-2 row first labelled ``failed_search`` plus enough other draw-2 rows, drawn at random, to make
80, shuffles them and writes a chunk holding only what a second labeller needs (repo, file, line,
call_id, agent, tool, id): never the first ``label``, ``reason``, ``doubt`` or ``second_label``.

    .venv/bin/python tests/data/labelling/round3/overlap_draw2.py tests/data/real2_tool_calls.jsonl CHUNK.jsonl
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SEED = 20261203
SIZE = 80
KEEP = ("repo", "file", "line", "call_id", "agent", "tool", "id")


def main() -> None:
    rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if line.strip()]
    draw2 = [row for row in rows if row.get("draw") == 2]
    misses = [row for row in draw2 if row["label"] == "failed_search"]
    others = [row for row in draw2 if row["label"] != "failed_search"]
    rng = random.Random(SEED)
    picked = misses + rng.sample(others, SIZE - len(misses))
    rng.shuffle(picked)
    with Path(sys.argv[2]).open("w") as out:
        for row in picked:
            out.write(json.dumps({key: row[key] for key in KEEP}, ensure_ascii=False) + "\n")
    print(f"{len(draw2)} draw-2 rows; wrote {len(picked)} to {sys.argv[2]}")


if __name__ == "__main__":
    main()
