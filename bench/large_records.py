"""Does one large record cost what its size says? Adversarial tool outputs and assistant texts, timed.

Run from the repository root::

    .venv/bin/python bench/large_records.py [--kb 200] [--out bench/out]

A real agent rarely writes a tool output or a text of hundreds of KB that repeats one phrase, but a
daemon must not stall on one: an expression with several ``.*`` runs, or a loop over every pair of
hits, turns such a record into seconds. Each case is one Claude Code transcript written to a
temporary folder: a prompt, then either a shell call of each of several forms (a list of probes, a
grep, curl with a write-out format, a loop of probes…) answered by an output that repeats a phrase of
omkd's own rules (``: cannot access``, ``No such file or directory``, ``HTTP/1.1 404``…) to ``--kb``
KB, a command of thousands of stages with a line of output each (``FLOODS``), or an assistant text
(and a thinking part) repeating a cue, a marker or a quoted cue. Each file is
read by ``omkd scan``'s engine in this process (``omkd.shell.scan.scan``, one job), the best of three
kept. Reported: each case's seconds and the worst; the line to stay under is 1 s a record
(``LIMIT_SECONDS``), about 100 times what reading a 200 KB record costs. Writes
``bench/out/large_records.json``.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import harness
import orjson
from common import heading, save, status, this_run

from omkd.shell.scan import scan

LIMIT_SECONDS: Final = 1.0
COMMANDS: Final = (
    "ls /srv/a /srv/b 2>/dev/null; cat /srv/c",
    "grep -rn RetryBudget src | head",
    'curl -s -o /dev/null -w "%{http_code} %{url_effective}\\n" https://docs.acme.dev/v2',
    'for f in a.md b.md; do cat "$f" || echo "(missing)"; done',
    'echo "---"; ls /srv/a; echo "==="; ls /srv/b',
    "find . -name 'retry*'",
    "pip show tenacity",
)
OUTPUT_PHRASES: Final = (
    "a: cannot access ", ": No such file or directory ", "Cannot find path ", ": cannot open ", " not found",
    "which: no ", "File Not Found ", "HTTP/1.1 404 ", "404 ", "(missing) ", "Package(s) not found: ",
    "At line:1 char:1\n+ ", "/home/u/.bashrc: line 1: ", "x" * 50,
)  # fmt: skip
TEXT_PHRASES: Final = (
    "maybe ", "I think ", "not sure ", "可能", "아마 ", "vielleicht ", "【推断】", "[inferred] ", '"maybe" ',
    "`maybe` ", "- maybe\n", "| maybe |", "```\nmaybe\n", "maybe? ", "用户可能不知道", "he does not know ",
)  # fmt: skip
FLOODS: Final = (
    ("grep -q k{i} f{i}; ", ""),
    ("cat f{i} | grep k{i}; ", ""),
    ("ls d{i}/*.x; ", "zsh:1: no matches found: d{i}/*.x\n"),
    ("ls d{i}; ", "ls: cannot access 'd{i}': No such file or directory\n"),
    ("ls d{i} || echo none{i}; ", "none{i}\n"),
)
"""A command of thousands of stages with an output of a line for each (a generated script, a loop
unrolled): a loop over every pair of stage and line turns it into minutes."""
CWD: Final = "/home/dev/shop"


def _record(kind: str, index: int, content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "type": kind, "uuid": f"u{index}", "parentUuid": f"u{index - 1}" if index else None,
        "sessionId": "large-records", "timestamp": f"2026-12-04T10:00:{index:02d}.000Z", "cwd": CWD,
        "version": "2.1.90", "message": {"role": "user" if kind == "user" else "assistant", "content": content},
        **extra,
    }  # fmt: skip


def transcript(parts: list[tuple[str, Any]]) -> bytes:
    """A prompt, then each part: ``("call", (command, output))`` or ``("text", (text, thinking))``."""
    records = [_record("user", 0, "please fix the build")]
    for kind, value in parts:
        at = len(records)
        if kind == "call":
            command, output = value
            use = {"type": "tool_use", "id": f"t{at}", "name": "Bash", "input": {"command": command}}
            records.append(_record("assistant", at, [use], requestId=f"r{at}"))
            answer = {"type": "tool_result", "tool_use_id": f"t{at}", "content": output, "is_error": True}
            records.append(_record("user", at + 1, [answer]))
        else:
            text, thinking = value
            part = {"type": "thinking", "thinking": text} if thinking else {"type": "text", "text": text}
            records.append(_record("assistant", at, [part], requestId=f"r{at}"))
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def timed(data: bytes, folder: Path) -> float:
    path = folder / "session.jsonl"
    path.write_bytes(data)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        scan([path])
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "large_records.json")
    parser.add_argument("--kb", type=int, default=200, help="size of each repeated output or text")
    args = parser.parse_args(argv)
    run = this_run(__file__, argv)
    size = args.kb * 1000
    cases: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        for phrase in OUTPUT_PHRASES:
            output = "Exit code 1\n" + phrase * (size // len(phrase))
            seconds = timed(transcript([("call", (c, output)) for c in COMMANDS]), Path(folder))
            cases.append({"record": "tool output", "phrase": phrase[:24], "seconds": seconds / len(COMMANDS)})
        for unit, line in FLOODS:
            count = size // len(unit.format(i=0))
            command = "".join(unit.format(i=i) for i in range(count))
            output = "Exit code 1\n" + "".join(line.format(i=i) for i in range(count))
            seconds = timed(transcript([("call", (command, output))]), Path(folder))
            cases.append({"record": "command and output", "phrase": unit.strip()[:24], "seconds": seconds})
        for phrase in TEXT_PHRASES:
            text = phrase * (size // len(phrase.encode()))
            seconds = timed(transcript([("text", (text, False)), ("text", (text, True))]), Path(folder))
            cases.append({"record": "assistant text", "phrase": phrase[:24], "seconds": seconds / 2})
    worst = max(case["seconds"] for case in cases)
    lines = heading("One large record: adversarial tool outputs and texts", run)
    lines += ["", f"| record | repeats | seconds per record (best of 3) | under {LIMIT_SECONDS:g} s |",
              "|---|---|---:|---|"]  # fmt: skip
    for case in cases:
        shown = case["phrase"].replace("\n", "\\n").replace("|", "\\|")
        lines.append(
            f"| {case['record']} | `{shown}` | {case['seconds']:.3f} | {status(case['seconds'] < LIMIT_SECONDS)} |"
        )
    lines += ["", f"worst: {worst:.3f} s per record of {args.kb} KB"]
    save(args.out, "large_records.json", {"kb": args.kb, "cases": cases, "worst": worst}, "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
