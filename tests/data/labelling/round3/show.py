"""Print items of a drawn chunk for a reader: ``python3 show.py CHUNK.jsonl START COUNT``.

A chunk of tool calls (``sample_calls_*.py``) or of §8 anchors (``sample_anchors*.py``: rows with an
``episode``), each shown as its reader needs it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _call(r: dict[str, Any]) -> None:
    print(f"file={r['file']}  line={r['line']}  result_line={r['result_line']}")
    print(f"agent={r['agent']}  tool={r['tool']}  is_error={r['is_error']}")
    for i, prompt in enumerate(r.get("prompts_before") or []):
        print(f"--- prompt_before[{i}]: {str(prompt)[:1200]}")
    if r.get("text_before"):
        print(f"--- text_before: {str(r['text_before'])[:800]}")
    for call in r.get("calls_before") or []:
        print(f"--- call_before: {str(call)[:300]}")
    print(f"--- INPUT: {str(r.get('input'))[:2500]}")
    print(f"--- RESULT: {str(r.get('result'))[:2000]}")


def _anchor(r: dict[str, Any]) -> None:
    print(f"kind={r['kind']}  agent={r['agent']}  file={r['file']}  line={r['line']}  subagent={r.get('subagent')}")
    print(f"--- the person's prompt before: {str(r.get('prompt_before'))[:1200]}")
    print(f"--- ANCHOR (line {r['line']}): {r['anchor']}")
    print("--- WHAT FOLLOWED:")
    for step in r["episode"]:
        print(step)


def main() -> None:
    lines = Path(sys.argv[1]).read_text(encoding="utf-8").split("\n")  # not splitlines: U+2028 is in the data
    rows = [json.loads(line) for line in lines if line.strip()]
    start, count = int(sys.argv[2]), int(sys.argv[3])
    for n in range(start, min(len(rows), start + count)):
        r = rows[n]
        print(f"=== item {n}  id={r['id']}  repo={r['repo']}")
        (_anchor if "episode" in r else _call)(r)
        print()


if __name__ == "__main__":
    main()
