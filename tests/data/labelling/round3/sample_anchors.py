"""Draw the anchors of spec §8 (what the agent did at a gap) for labelling by reading (a one-off; kept).

An anchor is a failed search omkd kept (its verdict ``failed_search``: a miss after de-duplication)
or a hedging candidate the judge kept. For each, the *episode* a labeller reads: the anchor (the call
and its result, or the sentence), then what followed in the same stream — each later tool call with
its result and each assistant text, up to the person's next typed prompt, the 25th call, or the end
of the stream — and the person's next prompt when there is one. The labeller decides the outcome
(spec §8.5: recovered, created, asked, proceeded, dropped) and whether the miss was eligible (§8.1.2).
omkd's verdicts only pick the anchors (they are omkd's misses by definition); no outcome comes from
omkd. Seeded; stratified by agent and anchor kind, at most ``PER_PERSON`` anchors per person.

    .venv/bin/python tests/data/labelling/round3/sample_anchors.py OUT_DIR
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
from sample import cut, events_of  # type: ignore[import-not-found]  # the sampler beside this one

from omkd.engine import formats
from omkd.engine.events import AssistantText, CommandInvoked, SidechainPrompt, ToolCall, ToolResult, UserPrompt
from omkd.shell.explain import explain
from omkd.shell.scan import discover

ROOTS = {
    "real": Path(__file__).resolve().parents[4].parent / "shared" / "fixtures" / "real",
    "real-2": Path(__file__).resolve().parents[4].parent / "shared" / "fixtures" / "real-2",
}
SEED = 20261205
WINDOW_CALLS = 25
PER_PERSON = 14
QUOTA = {("claude_code", "miss"): 150, ("claude_code", "hedge"): 60, ("codex", "miss"): 60, ("codex", "hedge"): 20,
         ("gemini", "miss"): 40, ("gemini", "hedge"): 15}  # fmt: skip


def anchor_id(row: dict[str, Any]) -> str:
    """One id per anchor: two misses of one message share a line, not a call id."""
    which = row.get("call_id") or row.get("sentence") or ""
    return "a" + hashlib.sha256(f"{row['file']}:{row['line']}:{row['kind']}:{which}".encode()).hexdigest()[:10]


def episode(events: list[tuple[int, Any]], start: int, call_id: str | None) -> list[str]:
    """What followed the anchor (after its result, for a call), as lines a labeller reads."""
    results = {e.call_id: (n, e) for n, e in events if isinstance(e, ToolResult)}
    shown: list[str] = []
    calls = 0
    began = False
    for number, event in events:
        if not began:
            if (call_id is not None and isinstance(event, ToolResult) and event.call_id == call_id) or (
                call_id is None and number > start
            ):
                began = True
            else:
                continue
            if call_id is not None:
                continue
        if isinstance(event, UserPrompt | CommandInvoked):
            text = event.text if isinstance(event, UserPrompt) else f"/{event.name}"
            shown.append(f"[line {number}] PERSON'S NEXT TURN: {cut(text, 400)}")
            break
        if isinstance(event, SidechainPrompt):
            continue
        if isinstance(event, AssistantText):
            kind = "thinking" if event.thinking else "text"
            shown.append(f"[line {number}] assistant {kind}: {cut(event.text, 700)}")
        elif isinstance(event, ToolCall):
            calls += 1
            if calls > WINDOW_CALLS:
                shown.append(f"[line {number}] (25 calls after the anchor: the window ends here)")
                break
            answer = results.get(event.call_id)
            result = cut(answer[1].text, 500) if answer else "(no result recorded)"
            error = " (error)" if answer and answer[1].is_error else ""
            shown.append(f"[line {number}] CALL {event.tool} {cut(orjson.dumps(event.input).decode(), 600)}")
            shown.append(f"        -> result{error}: {result}")
    else:
        shown.append("(end of the stream)")
    return shown


def anchors_of(set_name: str, person: Path) -> list[dict[str, Any]]:
    """Every anchor of one person's files (omkd's kept misses and kept hedges), with its episode."""
    sources = discover([person])
    found, _, _ = explain(sources)
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for call in found.calls:
        if call.verdict == "failed_search":
            by_file[call.file].append({"kind": "miss", "line": call.line, "call_id": call.call_id,
                                       "tool": call.tool, "result_line": call.result_line})  # fmt: skip
    for cand in found.candidates:
        if cand.is_uncertainty:
            by_file[cand.file].append({"kind": "hedge", "line": cand.line, "sentence": cand.sentence,
                                       "thinking": cand.thinking})  # fmt: skip
    mine: list[dict[str, Any]] = []
    for file, anchors in sorted(by_file.items()):
        path = person / file
        agent, events = events_of(path)
        calls_by_id = {e.call_id: (n, e) for n, e in events if isinstance(e, ToolCall)}
        results = {e.call_id: (n, e) for n, e in events if isinstance(e, ToolResult)}
        for anchor in anchors:
            row: dict[str, Any] = {"set": set_name, "repo": person.name, "file": f"{person.name}/{file}",
                                   "agent": agent, **anchor}  # fmt: skip
            if anchor["kind"] == "miss":
                made = calls_by_id.get(anchor["call_id"])
                answer = results.get(anchor["call_id"])
                if made is None or answer is None:
                    continue
                row["anchor"] = (f"CALL {made[1].tool} {cut(orjson.dumps(made[1].input).decode(), 700)}\n"
                                 f"-> result: {cut(answer[1].text, 500)}")  # fmt: skip
                row["episode"] = episode(events, answer[0], anchor["call_id"])
            else:
                row["anchor"] = f"{'thinking' if anchor['thinking'] else 'text'}: {anchor['sentence']}"
                row["episode"] = episode(events, anchor["line"], None)
            before = [p for n, e in events if isinstance(e, UserPrompt) and n < anchor["line"]
                      for p in [cut(e.text, 400)]]  # fmt: skip
            row["prompt_before"] = before[-1] if before else None
            row["subagent"] = "/subagents/" in file or path.name.startswith("agent-")
            row["id"] = anchor_id(row)
            mine.append(row)
    return mine


def fair_draw(
    pool: dict[tuple[str, str], list[dict[str, Any]]], quota: dict[tuple[str, str], int], rng: random.Random
) -> list[dict[str, Any]]:
    """Per (agent, kind), ``quota`` anchors taken one person at a time in turn (each person's at random)."""
    drawn: list[dict[str, Any]] = []
    for key, rows in sorted(pool.items()):
        by_person: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            by_person[row["repo"]].append(row)
        fair: list[dict[str, Any]] = []
        while len(fair) < quota.get(key, 0) and any(by_person.values()):
            for repo in sorted(by_person):
                if by_person[repo] and len(fair) < quota.get(key, 0):
                    fair.append(by_person[repo].pop(rng.randrange(len(by_person[repo]))))
        drawn.extend(fair)
    rng.shuffle(drawn)
    return drawn


def people() -> list[tuple[str, Path]]:
    """(set, person folder) of every person of ``ROOTS``, in order."""
    return [(name, p) for name, root in ROOTS.items() for p in sorted(root.iterdir()) if p.is_dir()]


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    pool: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for set_name, person in people():
        mine = anchors_of(set_name, person)
        for row in rng.sample(mine, min(len(mine), PER_PERSON * 3)):
            pool[(row["agent"], row["kind"])].append(row)
    drawn = fair_draw(pool, QUOTA, rng)
    (out / "anchors.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in drawn))
    counts: dict[str, int] = defaultdict(int)
    for row in drawn:
        counts[f"{row['agent']}/{row['kind']}"] += 1
    print(len(drawn), dict(counts), len({r["repo"] for r in drawn}), "people")


if __name__ == "__main__":
    formats.AGENTS  # noqa: B018 (the sampler reads every agent's format)
    main()
