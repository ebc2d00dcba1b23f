"""The third, fourth and fifth draws of tool calls from real-2 (one-offs; kept for the record).

After two draws, ``real2_tool_calls.jsonl`` held 100 of the 858 ``claude_code/shell/suspect`` calls
(weight 8.6 each) and 43 held-out positives in all: the shell figure of the people held out rested on
12 misses. Both draws take calls not yet labelled, with the same strata (agent / tool family /
*suspect*, a plain reading of the result alone; omkd's verdicts are never used):

- **draw 3**: 150 more ``claude_code/shell/suspect``, 30 more ``claude_code/grep/suspect`` and
  ``claude_code/glob/suspect``, 60 more ``codex/shell/suspect``. Its dev people's disagreements were
  read and rules written from them.
- **draw 4**, drawn after those rules, to measure them on calls no rule was written from: 150 more
  ``claude_code/shell/suspect``, 90 more ``codex/shell/suspect``, 30 ``claude_code/other/suspect``.
- **draw 5** (session 39), before that session's rules: 150 more ``claude_code/shell/suspect``, 90 more
  ``codex/shell/suspect``, 30 more ``claude_code/read/suspect``.
- **draw 6** (session 39), after draw 5's rule, wider: 60 ``claude_code/shell/plain`` and 40
  ``codex/shell/plain`` (calls whose result reads as success: what recall's weights rest on), 40 more each
  of ``claude_code/grep/suspect`` and ``glob/suspect``, 60 more ``claude_code/other/suspect``, 30 more
  ``codex/other/suspect``.
- **draw 7** (session 39), after draw 6's rules: the rest of every small suspect stratum of Claude Code
  (web, mcp, read, grep, glob) and of ``codex/shell/suspect``, 100 more ``claude_code/shell/suspect``, 14
  more ``codex/other/suspect``.
- **draw 8** (session 39), after draw 7's rules: 150 more ``claude_code/shell/suspect``, 60 more
  ``claude_code/other/suspect``, the rest of ``codex/other/suspect`` (31), 29 ``gemini/other/plain``.
- **draw 9** (session 39), after draw 8's rules: the rest of ``claude_code/shell/suspect`` (58), 100 more
  ``claude_code/other/suspect``, 40 each of ``claude_code/grep/plain`` and ``glob/plain``, 32 more
  ``codex/shell/plain``.
- **draw 10** (session 39), after draw 9: the rest of ``claude_code/other/suspect`` (58), 92 more
  ``claude_code/shell/plain``, 60 more ``codex/shell/plain``, 60 ``claude_code/read/plain``.

Each row's ``weight`` is its stratum's population over the rows drawn from it in all draws;
``weights.jsonl`` has the new weight of every labelled row of a stratum drawn from again. The rows are
cut into three chunks for three readers (``A``, ``B``, ``C``), and 15 rows of each chunk are copied into
an overlap chunk (``A2``: from ``B``, ``B2``: from ``C``, ``C2``: from ``A``) another reader labels blind.
Run against the labelled set as it was before the draw (each draw with every earlier one merged).
The readers saw the rows with ``show.py`` (beside this file, copied into OUT_DIR with
``calls-guide.md``):

    .venv/bin/python tests/data/labelling/round3/sample_calls_draw.py 3 LABELLED.jsonl OUT_DIR
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any, Final

import orjson
from sample_calls_more import draw_fresh, write_draw  # type: ignore[import-not-found]  # beside this one

DRAWS: Final[dict[int, tuple[int, dict[str, int]]]] = {
    3: (20261204, {"claude_code/shell/suspect": 150, "claude_code/grep/suspect": 30,
                   "claude_code/glob/suspect": 30, "codex/shell/suspect": 60}),
    4: (20261214, {"claude_code/other/suspect": 30, "claude_code/shell/suspect": 150, "codex/shell/suspect": 90}),
    5: (20261224, {"claude_code/read/suspect": 30, "claude_code/shell/suspect": 150, "codex/shell/suspect": 90}),
    6: (20261234, {"claude_code/shell/plain": 60, "claude_code/grep/suspect": 40, "claude_code/glob/suspect": 40,
                   "claude_code/other/suspect": 60, "codex/shell/plain": 40, "codex/other/suspect": 30}),
    7: (20261244, {"claude_code/shell/suspect": 100, "codex/shell/suspect": 17, "claude_code/web/suspect": 36,
                   "claude_code/mcp/suspect": 7, "claude_code/read/suspect": 39, "claude_code/grep/suspect": 32,
                   "claude_code/glob/suspect": 25, "codex/other/suspect": 14}),
    8: (20261254, {"claude_code/shell/suspect": 150, "claude_code/other/suspect": 60, "codex/other/suspect": 31,
                   "gemini/other/plain": 29}),
    9: (20261264, {"claude_code/shell/suspect": 58, "claude_code/other/suspect": 100, "claude_code/grep/plain": 40,
                   "claude_code/glob/plain": 40, "codex/shell/plain": 32}),
    10: (20261274, {"claude_code/other/suspect": 58, "claude_code/shell/plain": 92, "codex/shell/plain": 60,
                    "claude_code/read/plain": 60}),
}  # fmt: skip
"""Each draw's seed and quota per stratum."""
CHUNKS: Final = ("A", "B", "C")
OVERLAP: Final = 15


def main() -> None:
    number = int(sys.argv[1])
    seed, quota = DRAWS[number]
    labelled_rows = [orjson.loads(line) for line in Path(sys.argv[2]).read_bytes().splitlines() if line.strip()]
    out = Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)

    def quota_of(agent: str, fam: str, is_suspect: bool, left: int) -> int:
        return min(left, quota.get(f"{agent}/{fam}/{'suspect' if is_suspect else 'plain'}", 0))

    drawn, sizes, before, now = draw_fresh(labelled_rows, quota_of, rng)
    for row in drawn:
        row["draw"] = number
    rng.shuffle(drawn)
    size = -(-len(drawn) // len(CHUNKS))
    chunks: dict[str, list[dict[str, Any]]] = {n: drawn[i * size : (i + 1) * size] for i, n in enumerate(CHUNKS)}
    for i, name in enumerate(CHUNKS):
        (out / f"{name}.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in chunks[name]))
        other = chunks[CHUNKS[(i + 1) % len(CHUNKS)]]  # the next reader's rows, labelled blind here
        overlap = rng.sample(other, min(OVERLAP, len(other)))
        (out / f"{name}2.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in overlap))
    reweighted = write_draw(out, f"calls_draw{number}.jsonl", drawn, labelled_rows, sizes, before, now)
    print(f"drawn {len(drawn)} {dict(now)}; labelled rows reweighted {reweighted}")


if __name__ == "__main__":
    main()
