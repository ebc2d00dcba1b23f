"""A second draw of Codex CLI and Gemini CLI tool calls from real-2 (a one-off; kept for the record).

The first draw (``sample.py``) left 10 Codex and 4 Gemini labelled misses in
``real2_tool_calls.jsonl``: too few to tell whether each agent reaches P, R >= 0.85. This draws more
of the calls not yet labelled, with the same strata (agent / tool family / *suspect*, a plain reading
of the result alone; omkd's verdicts are never used): up to 150 more ``codex/shell/suspect`` calls,
up to 30 more from every other Codex stratum, every Gemini suspect call left and up to 30 more from
each Gemini plain stratum. A call already labelled (same file and call_id) is never drawn again.
Each row's ``weight`` is its stratum's population over the rows drawn from it in both draws;
``weights.jsonl`` has the new weight of every labelled row of a stratum drawn from again.

    .venv/bin/python tests/data/labelling/round3/sample_calls_more.py LABELLED.jsonl OUT_DIR
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from sample import pools  # type: ignore[import-not-found]  # the sampler beside this one

SEED = 20261205
CODEX_SHELL_SUSPECT = 150
PER_STRATUM = 30
"""Calls drawn from every other Codex stratum and from each Gemini plain stratum."""


def call_id(row: dict[str, Any]) -> str:
    return "c" + hashlib.sha256(f"{row['file']}:{row['line']}:{row['call_id']}".encode()).hexdigest()[:10]


def quota(agent: str, fam: str, is_suspect: bool, left: int) -> int:
    if agent == "codex":
        return min(left, CODEX_SHELL_SUSPECT if (fam, is_suspect) == ("shell", True) else PER_STRATUM)
    if agent == "gemini":
        return left if is_suspect else min(left, PER_STRATUM)
    return 0


Quota = Callable[[str, str, bool, int], int]
"""How many calls to draw from a stratum: (agent, family, suspect, calls not yet labelled) -> count."""


def draw_fresh(
    labelled_rows: list[dict[str, Any]], quota_of: Quota, rng: random.Random, show: bool = False
) -> tuple[list[dict[str, Any]], dict[str, int], Counter[str], Counter[str]]:
    """Draw calls not yet labelled, stratum by stratum (sorted), as many as ``quota_of`` says: the rows
    drawn (with ``id``, ``stratum`` and ``weight``: the stratum's population over its rows in every draw),
    each stratum's population, and its labelled and drawn counts."""
    labelled = {(row["file"], row["call_id"]) for row in labelled_rows}
    calls, _ = pools()
    before = Counter(row["stratum"] for row in labelled_rows)
    drawn: list[dict[str, Any]] = []
    sizes: dict[str, int] = {}
    if show:
        print(f"{'stratum':28} {'population':>10} {'labelled':>8} {'left':>6} {'drawn':>6}")
    for (agent, fam, is_suspect), rows in sorted(calls.items()):
        stratum = f"{agent}/{fam}/{'suspect' if is_suspect else 'plain'}"
        sizes[stratum] = len(rows)
        left = [r for r in rows if (r["file"], r["call_id"]) not in labelled]
        k = quota_of(agent, fam, is_suspect, len(left))
        if show and agent in ("codex", "gemini"):
            print(f"{stratum:28} {len(rows):>10} {before[stratum]:>8} {len(left):>6} {k:>6}")
        for row in rng.sample(left, k):
            row["id"] = call_id(row)
            row["stratum"] = stratum
            drawn.append(row)
    now = Counter(row["stratum"] for row in drawn)
    for row in drawn:
        row["weight"] = round(sizes[row["stratum"]] / (before[row["stratum"]] + now[row["stratum"]]), 4)
    return drawn, sizes, before, now


def write_draw(
    out: Path, name: str, drawn: list[dict[str, Any]], labelled_rows: list[dict[str, Any]],
    sizes: dict[str, int], before: Counter[str], now: Counter[str],
) -> int:  # fmt: skip
    """The draw (``name``), the new weight of every labelled row of a stratum drawn from again
    (``weights.jsonl``) and the strata's populations (``call_strata.json``); the count reweighted."""
    (out / name).write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in drawn))
    weights = [{"id": r["id"], "weight": round(sizes[r["stratum"]] / (before[r["stratum"]] + now[r["stratum"]]), 4)}
               for r in labelled_rows if now[r["stratum"]]]  # fmt: skip
    (out / "weights.jsonl").write_bytes(b"".join(orjson.dumps(w) + b"\n" for w in weights))
    (out / "call_strata.json").write_bytes(orjson.dumps(sizes, option=orjson.OPT_INDENT_2))
    return len(weights)


def main() -> None:
    labelled_rows = [orjson.loads(line) for line in Path(sys.argv[1]).read_bytes().splitlines() if line.strip()]
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    drawn, sizes, before, now = draw_fresh(labelled_rows, quota, rng, show=True)
    rng.shuffle(drawn)
    reweighted = write_draw(out, "calls_more.jsonl", drawn, labelled_rows, sizes, before, now)
    print(f"drawn {len(drawn)}; labelled rows reweighted {reweighted}")


if __name__ == "__main__":
    main()
