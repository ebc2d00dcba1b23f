"""Print items of a chunk of drawn §8 anchors for a reader: ``python3 show_anchors.py CHUNK.jsonl START COUNT``."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    lines = Path(sys.argv[1]).read_text(encoding="utf-8").split("\n")  # not splitlines: U+2028 is in the data
    rows = [json.loads(line) for line in lines if line.strip()]
    start, count = int(sys.argv[2]), int(sys.argv[3])
    for n in range(start, min(len(rows), start + count)):
        r = rows[n]
        print(f"=== item {n}  id={r['id']}  repo={r['repo']}  kind={r['kind']}  agent={r['agent']}")
        print(f"file={r['file']}  line={r['line']}  subagent={r.get('subagent')}")
        print(f"--- the person's prompt before: {str(r.get('prompt_before'))[:1200]}")
        print(f"--- ANCHOR (line {r['line']}): {r['anchor']}")
        print("--- WHAT FOLLOWED:")
        for step in r.get("episode") or []:
            print(step)
        print()


if __name__ == "__main__":
    main()
