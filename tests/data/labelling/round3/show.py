"""Print items of a chunk of drawn calls for a reader: ``python3 show.py CHUNK.jsonl START COUNT``."""

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
        print(f"=== item {n}  id={r['id']}  repo={r['repo']}")
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
        print()


if __name__ == "__main__":
    main()
