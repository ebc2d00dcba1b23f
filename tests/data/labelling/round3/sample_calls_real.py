"""A draw of tool calls from ``../shared/fixtures/real`` that no labelled set holds yet (a one-off; kept for
the record).

``real/`` is the people omkd was first built on; its labelled calls (``tool_calls.jsonl``, Claude Code, and
``agent_tool_calls.jsonl``, Codex CLI and Gemini CLI) were drawn before the revised §3.1, and a third of
its *suspect* calls (a plain reading of the result alone, as ``sample.py`` defines it; omkd's verdicts are
never used) were never read. This draws them, stratum by stratum, with the same row shape as the
real-2 draws, so that ``show.py`` shows them and three readers label them from ``calls-guide.md``
(15 rows of each chunk read again blind by another reader). Each row's ``weight`` is its stratum's
population over the rows of it labelled in all (this draw and the earlier sets).

    .venv/bin/python tests/data/labelling/round3/sample_calls_real.py OUT_DIR
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Final

import orjson
import sample  # type: ignore[import-not-found]  # the sampler beside this one
from sample_calls_more import call_id  # type: ignore[import-not-found]

SEED: Final = 20261241
QUOTA: Final[dict[str, int]] = {
    "claude_code/shell/suspect": 117,
    "codex/shell/suspect": 90,
    "claude_code/grep/suspect": 26,
    "claude_code/web/suspect": 11,
    "claude_code/read/suspect": 7,
    "claude_code/other/suspect": 19,
}
"""Calls to draw per stratum (at most what is left of it)."""
DATA: Final = Path(__file__).resolve().parents[2]
CHUNKS: Final = ("A", "B", "C")
OVERLAP: Final = 15


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    sample.ROOT = DATA.parents[1].parent / "shared" / "fixtures" / "real"
    labelled = [
        orjson.loads(line)
        for name in ("tool_calls.jsonl", "agent_tool_calls.jsonl")
        for line in (DATA / name).read_bytes().splitlines()
        if line.strip()
    ]
    done = {(row["file"], row["call_id"]) for row in labelled}
    calls, _ = sample.pools()
    rng = random.Random(SEED)
    drawn: list[dict[str, Any]] = []
    sizes: dict[str, int] = {}
    before: Counter[str] = Counter()
    for (agent, fam, is_suspect), rows in sorted(calls.items()):
        stratum = f"{agent}/{fam}/{'suspect' if is_suspect else 'plain'}"
        sizes[stratum] = len(rows)
        left = [r for r in rows if (r["file"], r["call_id"]) not in done]
        before[stratum] = len(rows) - len(left)
        for row in rng.sample(left, min(len(left), QUOTA.get(stratum, 0))):
            row.update(id=call_id(row), stratum=stratum, draw="real-1")
            drawn.append(row)
    now = Counter(row["stratum"] for row in drawn)
    for row in drawn:
        row["weight"] = round(sizes[row["stratum"]] / (before[row["stratum"]] + now[row["stratum"]]), 4)
    rng.shuffle(drawn)
    size = -(-len(drawn) // len(CHUNKS))
    chunks = {name: drawn[i * size : (i + 1) * size] for i, name in enumerate(CHUNKS)}
    for i, name in enumerate(CHUNKS):
        (out / f"{name}.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in chunks[name]))
        other = chunks[CHUNKS[(i + 1) % len(CHUNKS)]]  # the next reader's rows, labelled blind here
        overlap = rng.sample(other, min(OVERLAP, len(other)))
        (out / f"{name}2.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in overlap))
    (out / "calls_real1.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in drawn))
    print(f"drawn {len(drawn)} {dict(now)}")


if __name__ == "__main__":
    main()
