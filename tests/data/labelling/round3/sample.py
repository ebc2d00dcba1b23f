"""Draw the round-3 labelling samples from ../shared/fixtures/real-2 (a one-off; kept for the record).

Calls: every tool call with its result, stratified by (agent, family, suspect), where *suspect* is a
plain reading of the result alone (an error flag, a non-zero exit, an empty or very short output, or
a not-found phrase): misses are oversampled through that stratum, and each row carries its design
weight (stratum population / stratum sample). omkd's verdicts are never used to draw.
Sentences: every sentence of assistant text and thinking parts that a wide multilingual cue list
(written here, wider than omkd's net) catches, sampled per (agent, part, language), plus sentences no
cue catches (to estimate what the wide list misses), each with its weight.

    .venv/bin/python tests/data/labelling/round3/sample.py OUT_DIR
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

from omkd.engine import formats
from omkd.engine.events import AssistantText, SidechainPrompt, ToolCall, ToolResult, UserPrompt
from omkd.engine.formats.claude_code import ClaudeCodeAdapter
from omkd.engine.formats.codex import CodexAdapter
from omkd.engine.formats.gemini import GeminiAdapter

ROOT = Path(__file__).resolve().parents[4].parent / "shared" / "fixtures" / "real-2"
SEED = 20261203
SHELL = {
    "Bash",
    "PowerShell",
    "shell",
    "exec_command",
    "shell_command",
    "command_execution",
    "run_shell_command",
    "local_shell",
    "container.exec",
}
NOT_FOUND = re.compile(
    r"no such file|not found|no matches|no files found|does not exist|cannot access|cannot find|"
    r"could not find|couldn't find|enoent|404|modulenotfounderror|no module named|is not installed|"
    r"not recognized|unable to find|nothing found|0 matches|no results",
    re.I,
)


def family(tool: str) -> str:
    name = tool.rsplit("__", maxsplit=1)[-1] if tool.startswith("mcp__") else tool
    if name in SHELL:
        return "shell"
    low = name.lower()
    for fam, keys in (
        ("read", ("read",)),
        ("grep", ("grep", "search_file_content", "search")),
        ("glob", ("glob", "find")),
        ("list", ("list", "ls")),
        ("web", ("web", "fetch", "url")),
    ):
        if any(k in low for k in keys):
            return fam
    return "mcp" if tool.startswith("mcp__") else "other"


def suspect(result: ToolResult | None) -> bool:
    if result is None:
        return True
    text = result.text.strip()
    if result.is_error or len(text) < 80:
        return True
    if re.search(r"(exit(ed)? (with )?code|Exit code:?) *[1-9]", text[:400]):
        return True
    return bool(NOT_FOUND.search(text[:600]))


def adapter_for(first: bytes) -> Any:
    kind = formats.detect(first)
    return {
        formats.CLAUDE_CODE_JSONL: ClaudeCodeAdapter,
        formats.CODEX_ROLLOUT: CodexAdapter,
        formats.CODEX_EXEC: CodexAdapter,
        formats.GEMINI_JSONL: GeminiAdapter,
    }[kind](), formats.AGENT_OF[kind]


def events_of(path: Path) -> tuple[str, list[tuple[int, Any]]]:
    data = path.read_bytes()
    out: list[tuple[int, Any]] = []
    if path.suffix == ".json":
        adapter = GeminiAdapter()
        try:
            document = orjson.loads(data)
        except orjson.JSONDecodeError:
            return "gemini", []
        messages = document.get("messages") if isinstance(document, dict) else None
        if not isinstance(messages, list):
            return "gemini", []
        for index, message in enumerate(messages, 1):
            adapter.line = index
            with contextlib.suppress(TypeError, AttributeError, KeyError, ValueError):
                out.extend((index, e) for e in adapter._message(message))
        return "gemini", out
    lines = data.splitlines()
    first = next((line for line in lines if line.strip()), b"")
    adapter, agent = adapter_for(first)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        adapter.line = number - 1
        with contextlib.suppress(TypeError, AttributeError, KeyError, ValueError, IndexError):
            out.extend((number, e) for e in adapter.decode(line))
    return agent, out


def cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n] + f" …[{len(text) - n} more chars]"


# --- sentences ----------------------------------------------------------------------------------
CUES = {
    "en": r"\b(might|may|maybe|perhaps|probably|likely|unlikely|seems?|seemingly|appears?|apparently|"
    r"i think|i believe|i suspect|i guess|i assume|assuming|not sure|unsure|uncertain|unclear|"
    r"don't know|do not know|no idea|need to (check|verify|confirm|figure out|find out|see)|"
    r"let me (check|verify|confirm)|could be|should be|would be|must be|presumably|possibly|"
    r"i'm not certain|hard to say|not clear|wonder|guess|hypothes|suppos)",
    "de": r"\b(vielleicht|wahrscheinlich|vermutlich|scheint|anscheinend|eventuell|möglicherweise|"
    r"ich glaube|ich denke|nicht sicher|unklar|weiß nicht|keine ahnung|müsste|dürfte|sollte|könnte)",
    "pt": r"\b(talvez|provavelmente|parece|acho que|não sei|não tenho certeza|possivelmente|deve ser|"
    r"pode ser|preciso verificar|aparentemente|suponho)",
    "es": r"\b(quizás|quizá|probablemente|parece|creo que|no sé|no estoy seguro|posiblemente|debe ser|"
    r"puede ser|necesito verificar)",
    "fr": r"\b(peut-être|probablement|semble|je pense|je crois|pas sûr|je ne sais pas|il faudrait vérifier)",
    "zh": r"(可能|也许|或许|大概|应该是|應該是|应该|應該|似乎|好像|看起来|看起來|估计|估計|猜|不确定|不確定|"
    r"不清楚|不知道|需要确认|需要確認|需要检查|需要檢查|待确认|待確認|疑似|推测|推測|貌似|恐怕|未必|"
    r"不太确定|不一定)",
    "ja": r"(かもしれ|おそらく|恐らく|たぶん|多分|ようです|ようだ|みたい|らしい|と思います|と思う|"
    r"はず|わかりません|分かりません|不明|確認が必要|確認する必要|可能性|でしょう|だろう)",
    "ko": r"(것 같|것같|아마|확실하지|모르겠|모릅니다|확인이 필요|확인해야|확인해 봐야|추정|가능성|"
    r"듯합니다|듯해|듯하|일 수도|일지도|수도 있|수 있|보입니다|보인다|같습니다|같아요|불확실|불분명|"
    r"겁니다|것입니다|않을까|나 봐|가 봐|확인 필요|추측)",
}
CUE_RE = {lang: re.compile(p, re.I) for lang, p in CUES.items()}
SENT_SPLIT = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\n+")


def lang_of(text: str) -> str:
    if re.search(r"[\uac00-\ud7af]", text):
        return "ko"
    if re.search(r"[\u3040-\u30ff]", text):
        return "ja"
    if re.search(r"[\u4e00-\u9fff]", text):
        return "zh"
    low = f" {text.lower()} "
    scores = {
        "de": len(re.findall(r" (der|die|das|und|ist|nicht|ich|wir|mit|für|auf|eine?) ", low)),
        "pt": len(re.findall(r" (não|que|uma?|para|com|está|são|você|isso|também) ", low)),
        "es": len(re.findall(r" (el|los|las|una?|para|con|está|pero|también|esto) ", low)),
        "fr": len(re.findall(r" (le|les|une?|pour|avec|est|pas|je|nous|cette) ", low)),
        "en": len(re.findall(r" (the|and|is|to|of|it|this|that|with|for|not) ", low)),
    }
    best = max(scores, key=lambda k: scores[k])
    return best if scores[best] >= 2 or best == "en" else "en"


def sentences(text: str) -> list[str]:
    # drop fenced code blocks (kept out of the net by every rule)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    return [s.strip() for s in SENT_SPLIT.split(text) if s and len(s.strip()) >= 8]


Pools = tuple[dict[tuple[str, str, bool], list[dict[str, Any]]], dict[tuple[str, str, str, bool], list[dict[str, Any]]]]


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    calls, sents = pools()
    draw(out, rng, calls, sents)


def pools() -> Pools:
    """Every call and every sentence of real-2, by stratum (what the draws choose from)."""
    calls: dict[tuple[str, str, bool], list[dict[str, Any]]] = defaultdict(list)
    sents: dict[tuple[str, str, str, bool], list[dict[str, Any]]] = defaultdict(list)
    files = sorted(p for p in ROOT.rglob("*") if p.is_file() and formats.is_transcript(str(p)))
    for path in files:
        rel = str(path.relative_to(ROOT))
        repo = rel.split("/", 1)[0]
        agent, events = events_of(path)
        results = {e.call_id: (n, e) for n, e in events if isinstance(e, ToolResult)}
        prompts: list[str] = []
        last_text = ""
        recent: list[str] = []
        for number, event in events:
            if isinstance(event, UserPrompt | SidechainPrompt):
                prompts.append(cut(event.text, 600))
            elif isinstance(event, AssistantText):
                if not event.thinking:
                    last_text = cut(event.text, 600)
                parts = sentences(event.text)
                for i, sentence in enumerate(parts):
                    lang = lang_of(sentence)
                    caught = None
                    for cue_lang in (lang, "en") if lang != "en" else ("en",):
                        m = CUE_RE[cue_lang].search(sentence)
                        if m:
                            caught = m.group(0)
                            break
                    part = "thinking" if event.thinking else "text"
                    sents[(agent, part, lang, caught is not None)].append(
                        {
                            "repo": repo,
                            "file": rel,
                            "line": number,
                            "agent": agent,
                            "part": part,
                            "lang": lang,
                            "wide_cue": caught,
                            "sentence": cut(sentence, 500),
                            "before": cut(" ".join(parts[max(0, i - 2) : i]), 500),
                            "after": cut(" ".join(parts[i + 1 : i + 3]), 400),
                        }
                    )
            elif isinstance(event, ToolCall):
                answer = results.get(event.call_id)
                result = answer[1] if answer else None
                fam = family(event.tool)
                is_suspect = suspect(result)
                calls[(agent, fam, is_suspect)].append(
                    {
                        "repo": repo,
                        "file": rel,
                        "line": number,
                        "call_id": event.call_id,
                        "agent": agent,
                        "tool": event.tool,
                        "family": fam,
                        "input": cut(orjson.dumps(event.input).decode(), 1500),
                        "result_line": answer[0] if answer else None,
                        "is_error": result.is_error if result else None,
                        "result": cut(result.text, 2000) if result else "(no result recorded)",
                        "prompts_before": prompts[-2:],
                        "text_before": last_text,
                        "calls_before": recent[-6:],
                    }
                )
                recent.append(cut(f"{event.tool} {orjson.dumps(event.input).decode()}", 300))
    return calls, sents


def draw(
    out: Path,
    rng: random.Random,
    calls: dict[tuple[str, str, bool], list[dict[str, Any]]],
    sents: dict[tuple[str, str, str, bool], list[dict[str, Any]]],
) -> None:
    # --- draw calls
    # (suspect, plain) per agent and family: shell calls and each agent's lookups weigh most
    quota = {
        "claude_code": {
            "shell": (100, 40),
            "read": (40, 12),
            "grep": (40, 15),
            "glob": (30, 10),
            "list": (3, 3),
            "web": (15, 8),
            "mcp": (10, 6),
            "other": (10, 8),
        },
        "codex": {"shell": (100, 45), "other": (10, 10)},
        "gemini": {
            "shell": (40, 20),
            "read": (4, 12),
            "grep": (4, 4),
            "glob": (4, 4),
            "list": (2, 10),
            "other": (8, 12),
        },
    }
    drawn: list[dict[str, Any]] = []
    for (agent, fam, is_suspect), rows in sorted(calls.items()):
        k = min(len(rows), quota[agent].get(fam, (6, 6))[0 if is_suspect else 1])
        pick = rng.sample(rows, k)
        for row in pick:
            row["stratum"] = f"{agent}/{fam}/{'suspect' if is_suspect else 'plain'}"
            row["weight"] = round(len(rows) / k, 4)
            drawn.append(row)
    rng.shuffle(drawn)
    # --- draw sentences
    sdrawn: list[dict[str, Any]] = []
    for (agent, part, lang, with_cue), rows in sorted(sents.items()):
        # every caught sentence up to a cap per stratum; a few uncaught ones for the net's misses
        cap = (300 if lang == "en" else 120) if with_cue else (20 if lang == "en" else 10)
        k = min(len(rows), cap)
        for row in rng.sample(rows, k):
            row["stratum"] = f"{agent}/{part}/{lang}/{'cue' if with_cue else 'nocue'}"
            row["weight"] = round(len(rows) / k, 4)
            sdrawn.append(row)
    rng.shuffle(sdrawn)
    for name, rows in (("calls", drawn), ("sentences", sdrawn)):
        for row in rows:
            row["id"] = (
                name[0]
                + hashlib.sha256(
                    f"{row['file']}:{row['line']}:{row.get('call_id', row.get('sentence'))}".encode()
                ).hexdigest()[:10]
            )
        (out / f"{name}.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
        print(name, len(rows))
    pop = {"/".join(map(str, k)): len(v) for k, v in calls.items()}
    (out / "call_strata.json").write_bytes(orjson.dumps(pop, option=orjson.OPT_INDENT_2))
    spop = {"/".join(map(str, k)): len(v) for k, v in sents.items()}
    (out / "sentence_strata.json").write_bytes(orjson.dumps(spop, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
