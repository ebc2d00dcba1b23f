"""Select the turn-2 labelled calls that spec §3.1's revision can change (a one-off; kept for the record).

Reads only `tests/data/tool_calls.jsonl`, `tests/data/agent_tool_calls.jsonl` and the transcripts of
`../shared/fixtures/real` (never omkd, its verdicts or its bench outputs: the labels measure omkd).
A row is selected when its current label is `failed_search`, or when its result, read plainly, is
*suspect*: an error flag, a non-zero exit code, an empty or under-80-character output, or a
not-found phrase.

    python3 tests/data/labelling/round3/relabel_turn2.py OUT.jsonl

writes one JSON object per selected row (the row's keys plus what a reader needs: the call's input,
its result, the prompts and calls before it, and the edits, deletions and moves of the same stretch
of work, for `verify_absence`).
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2]
ROOT = DATA.parents[3] / "shared" / "fixtures" / "real"
if not ROOT.is_dir():
    ROOT = Path("/work/shared/fixtures/real")
SETS = ("tool_calls.jsonl", "agent_tool_calls.jsonl")
NOT_FOUND = re.compile(
    r"no such file|not found|no matches|no files found|does not exist|cannot access|cannot find|"
    r"could not find|couldn't find|enoent|\b404\b|modulenotfounderror|no module named|is not installed|"
    r"not recognized|unable to find|nothing found|0 matches|no results|cannot be found|not installed",
    re.I,
)
EXIT = re.compile(r"(?:Exit code:?|exited with code|Exit Code:) *(-?\d+)")
HARNESS = ("<task-notification>", "<local-command-stdout>", "<local-command-stderr>", "<system-reminder>")
REMOVE = re.compile(r"(^|[;&|(\s])(rm|rmdir|mv|git rm|git mv|del|Remove-Item|Move-Item|Rename-Item|unlink)\s")


def cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n] + f" …[{len(text) - n} more chars]"


def part_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") if isinstance(p, dict) else str(p)
            for p in content
            if not isinstance(p, dict) or p.get("type") != "image"
        )
    return json.dumps(content)


class Stream:
    """What a reader needs of one transcript: calls, their results, prompts, texts and edits in order."""

    def __init__(self) -> None:
        self.events: list[tuple[int, str, dict[str, Any]]] = []  # (line, kind, data)
        self.results: dict[str, dict[str, Any]] = {}

    def add(self, line: int, kind: str, **data: Any) -> None:
        self.events.append((line, kind, data))


def claude(path: Path) -> Stream:
    s = Stream()
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        rec = json.loads(raw)
        t = rec.get("type")
        msg = rec.get("message") or {}
        content = msg.get("content")
        if t == "assistant" and isinstance(content, list):
            for p in content:
                if p.get("type") == "tool_use":
                    s.add(n, "call", id=p.get("id"), tool=p.get("name"), input=p.get("input"))
                elif p.get("type") == "text":
                    s.add(n, "text", text=p.get("text", ""))
        elif t == "user":
            if isinstance(content, list) and any(
                isinstance(p, dict) and p.get("type") == "tool_result" for p in content
            ):
                for p in content:
                    if isinstance(p, dict) and p.get("type") == "tool_result":
                        tur = rec.get("toolUseResult")
                        rci = tur.get("returnCodeInterpretation") if isinstance(tur, dict) else None
                        s.results[str(p.get("tool_use_id"))] = {
                            "line": n,
                            "is_error": bool(p.get("is_error")),
                            "text": part_text(p.get("content")),
                            "rci": rci,
                        }
                continue
            text = part_text(content)
            if "<command-name>" in text:
                m = re.search(r"<command-name>/?([^<]+)</command-name>", text)
                s.add(n, "skill", name=m.group(1) if m else "?", text=text)
                continue
            if rec.get("isMeta") or rec.get("isCompactSummary") or rec.get("isSidechain"):
                continue
            if text.startswith("[Request interrupted") or text.lstrip().startswith(HARNESS):
                continue
            s.add(n, "prompt", text=text)
    for _, kind, d in s.events:
        if kind == "call" and d["tool"] == "Skill":
            d["skill"] = True
    return s


def codex_output(payload: dict[str, Any]) -> tuple[str, int | None]:
    out = payload.get("output")
    if isinstance(out, str) and out.startswith("{"):
        try:
            o = json.loads(out)
            return str(o.get("output", "")), (o.get("metadata") or {}).get("exit_code")
        except json.JSONDecodeError:
            pass
    text = out if isinstance(out, str) else json.dumps(out)
    m = EXIT.search(text[:400])
    return text, int(m.group(1)) if m else None


def codex(path: Path) -> Stream:
    s = Stream()
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        rec = json.loads(raw)
        p = rec.get("payload") or {}
        pt = p.get("type")
        if rec.get("type") == "response_item":
            if pt in ("function_call", "custom_tool_call"):
                args: Any = p.get("arguments", p.get("input"))
                with contextlib.suppress(json.JSONDecodeError, TypeError):
                    args = json.loads(str(args)) if pt == "function_call" else args
                s.add(n, "call", id=p.get("call_id"), tool=p.get("name"), input=args)
            elif pt in ("function_call_output", "custom_tool_call_output"):
                text, code = codex_output(p)
                s.results[str(p.get("call_id"))] = {"line": n, "is_error": bool(code), "text": text, "exit": code}
            elif pt == "message" and p.get("role") == "user":
                text = part_text([c for c in p.get("content", []) if isinstance(c, dict)])
                if not text.lstrip().startswith(
                    ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<skill")
                ):
                    s.add(n, "prompt", text=text)
                elif text.lstrip().startswith("<skill"):
                    s.add(n, "skill", name=text[:80], text=text)
            elif pt == "message" and p.get("role") == "assistant":
                s.add(n, "text", text=part_text([c for c in p.get("content", []) if isinstance(c, dict)]))
        elif rec.get("type") == "event_msg" and pt == "exec_command_end":
            cid = str(p.get("call_id"))
            if cid not in s.results:
                s.results[cid] = {
                    "line": n,
                    "is_error": bool(p.get("exit_code")),
                    "text": p.get("aggregated_output") or (p.get("stdout", "") + p.get("stderr", "")),
                    "exit": p.get("exit_code"),
                }
    return s


def gemini_call(s: Stream, n: int, tc: dict[str, Any]) -> None:
    s.add(n, "call", id=tc.get("id"), tool=tc.get("name"), input=tc.get("args"))
    res = tc.get("result") or []
    texts = []
    err = tc.get("status") == "error"
    for r in res:
        resp = ((r or {}).get("functionResponse") or {}).get("response") or {}
        if "error" in resp:
            err = True
            texts.append(str(resp["error"]))
        else:
            texts.append(str(resp.get("output", "")))
    if res or tc.get("status"):
        text = "\n".join(texts)
        m = EXIT.search(text[-200:])
        s.results[str(tc.get("id"))] = {
            "line": n,
            "is_error": err,
            "status": tc.get("status"),
            "text": text,
            "exit": int(m.group(1)) if m else None,
        }


def gemini(path: Path) -> Stream:
    s = Stream()
    if path.suffix == ".json":
        messages = json.loads(path.read_text(encoding="utf-8")).get("messages", [])
        numbered = list(enumerate(messages, 1))
    else:
        # JSONL: a message appended again with the same id replaces it (last write wins)
        by_id: dict[str, tuple[int, dict[str, Any]]] = {}
        order: list[str] = []
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not raw.strip():
                continue
            rec = json.loads(raw)
            if "type" not in rec or "id" not in rec:
                continue
            if rec["id"] not in by_id:
                order.append(rec["id"])
                by_id[rec["id"]] = (n, rec)
            else:
                by_id[rec["id"]] = (by_id[rec["id"]][0] if not rec.get("toolCalls") else n, rec)
        numbered = [by_id[i] for i in order]
    for n, m in numbered:
        if m.get("type") == "user":
            c = m.get("content")
            if isinstance(c, list) and any(isinstance(x, dict) and "functionResponse" in x for x in c):
                continue
            s.add(n, "prompt", text=part_text(c))
        elif m.get("type") == "gemini":
            if m.get("content"):
                s.add(n, "text", text=part_text(m.get("content")))
            for tc in m.get("toolCalls") or []:
                gemini_call(s, n, tc)
    return s


def stream_of(rel: str, agent: str | None) -> Stream:
    path = ROOT / rel
    if agent == "gemini":
        return gemini(path)
    if agent == "codex":
        return codex(path)
    return claude(path)


def suspect(res: dict[str, Any] | None) -> list[str]:
    if res is None:
        return ["no result"]
    why = []
    text = res["text"].strip()
    if res.get("is_error"):
        why.append("error flag")
    if res.get("exit") not in (None, 0):
        why.append(f"exit {res['exit']}")
    if len(text) < 80:
        why.append(f"short output ({len(text)})")
    if res.get("rci") == "No matches found":
        why.append("rci no matches")
    m = NOT_FOUND.search(text[:2000])
    if m:
        why.append(f"not-found phrase: {m.group(0)}")
    return why


def stretch_edits(s: Stream, index: int) -> tuple[list[dict[str, Any]], int]:
    """Edits, deletions and moves from the start of the call's stretch of work up to the call."""
    start = 0
    for i in range(index - 1, -1, -1):
        kind, d = s.events[i][1], s.events[i][2]
        if kind in ("prompt", "skill") or (kind == "call" and d.get("skill")):
            start = i
            break
    edits: list[dict[str, Any]] = []
    for line, kind, d in s.events[start:index]:
        if kind != "call":
            continue
        tool, inp = d["tool"] or "", d["input"]
        inp_s = inp if isinstance(inp, str) else json.dumps(inp, ensure_ascii=False)
        if tool in ("Edit", "MultiEdit", "replace") and isinstance(inp, dict):
            pairs = inp.get("edits") or [inp]
            edits.extend(
                {
                    "line": line,
                    "tool": tool,
                    "file": inp.get("file_path"),
                    "old": e.get("old_string", ""),
                    "new": e.get("new_string", ""),
                }
                for e in pairs
            )
        elif tool == "apply_patch":
            edits.append({"line": line, "tool": tool, "patch": inp_s})
        elif REMOVE.search(inp_s) or "sed -i" in inp_s:
            edits.append({"line": line, "tool": tool, "cmd": cut(inp_s, 400)})
    return edits, s.events[start][0] if s.events else 0


def main() -> None:
    out = Path(sys.argv[1])
    rows: list[dict[str, Any]] = []
    for name in SETS:
        for k, raw in enumerate((DATA / name).read_text(encoding="utf-8").splitlines()):
            row = json.loads(raw)
            row["_set"], row["_index"] = name, k
            rows.append(row)
    streams: dict[str, Stream] = {}
    selected = []
    for row in rows:
        label = row.get("label_turn2", row["label"])
        s = streams.get(row["file"]) or streams.setdefault(row["file"], stream_of(row["file"], row.get("agent")))
        index = next((i for i, (_, k, d) in enumerate(s.events) if k == "call" and d["id"] == row["call_id"]), None)
        res = s.results.get(row["call_id"])
        why = suspect(res)
        if label != "failed_search" and not why:
            continue
        item = {k: row[k] for k in ("_set", "_index", "file", "line", "call_id", "tool")}
        item.update(
            agent=row.get("agent", "claude_code"),
            label_turn2=label,
            reason_turn2=row.get("reason_turn2", row["reason"]),
        )
        item["suspect"] = why
        if index is None:
            item["missing"] = True
            selected.append(item)
            continue
        call = s.events[index][2]
        prompts = [cut(d["text"], 500) for _, k, d in s.events[:index] if k == "prompt"]
        texts = [cut(d["text"], 400) for _, k, d in s.events[:index] if k == "text"]
        calls = [
            cut(f"L{ln} {d['tool']} {json.dumps(d['input'], ensure_ascii=False)}", 240)
            for ln, k, d in s.events[:index]
            if k == "call"
        ]
        edits, start = stretch_edits(s, index)
        item.update(
            input=cut(
                call["input"] if isinstance(call["input"], str) else json.dumps(call["input"], ensure_ascii=False), 1500
            ),
            result=cut(res["text"], 1500) if res else None,
            is_error=res.get("is_error") if res else None,
            rci=res.get("rci") if res else None,
            prompts_before=prompts[-2:],
            text_before=texts[-1] if texts else "",
            calls_before=calls[-5:],
            stretch_start=start,
            stretch_edits=edits,
        )
        selected.append(item)
    out.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in selected), encoding="utf-8")
    print(len(selected), "selected of", len(rows))


if __name__ == "__main__":
    main()
