"""A second draw of §8 anchors (session 40; a one-off, kept for the record).

The first draw (``sample_anchors.py``) left 117 anchors of the people held out and about 26 of them
recovered by the reader: the held-out ``recovered`` figure rests on few rows. This draws anchors not
yet labelled, the same way (omkd's kept misses and kept hedges pick them; no outcome comes from omkd),
at most ``PER_PERSON`` new ones per person, one person at a time per agent and kind. Anchors are picked
by the rules of the day: a miss the first draw's omkd kept and today's does not is not drawn again.

    .venv/bin/python tests/data/labelling/round3/sample_anchors_more.py LABELLED.jsonl OUT_DIR
"""

from __future__ import annotations

import random
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson
from sample_anchors import anchors_of, fair_draw, people  # type: ignore[import-not-found]  # beside this one

from omkd.engine import formats

SEED = 20261240
PER_PERSON = 10
OVERLAP = 10
"""Rows of each chunk copied into the next reader's chunk, read there blind."""
QUOTA = {("claude_code", "miss"): 90, ("claude_code", "hedge"): 25, ("codex", "miss"): 40, ("codex", "hedge"): 10,
         ("gemini", "miss"): 15, ("gemini", "hedge"): 5}  # fmt: skip


def write_chunks(out: Path, drawn: list[dict[str, Any]]) -> None:
    """Three chunks (``anchA``, ``anchB``, ``anchC``) for three readers; each ends with ``OVERLAP`` rows of
    the next chunk (A with B's, B with C's, C with A's), which its reader labels blind."""
    size = -(-len(drawn) // 3)
    own = [drawn[i * size : (i + 1) * size] for i in range(3)]
    for i, name in enumerate(("anchA", "anchB", "anchC")):
        rows = own[i] + own[(i + 1) % 3][:OVERLAP]
        (out / f"{name}.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))


def main() -> None:
    labelled = {orjson.loads(line)["id"] for line in Path(sys.argv[1]).read_bytes().split(b"\n") if line.strip()}
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    pool: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for set_name, person in people():
        mine = [row for row in anchors_of(set_name, person) if row["id"] not in labelled]
        for row in rng.sample(mine, min(len(mine), PER_PERSON)):
            pool[(row["agent"], row["kind"])].append(row)
    drawn = fair_draw(pool, QUOTA, rng)
    (out / "anchors.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in drawn))
    write_chunks(out, drawn)
    counts = Counter(f"{r['agent']}/{r['kind']}" for r in drawn)
    print(len(drawn), dict(counts), len({r["repo"] for r in drawn}), "people")


if __name__ == "__main__":
    formats.AGENTS  # noqa: B018 (the sampler reads every agent's format)
    main()
