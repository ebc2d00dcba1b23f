"""What the optional LLM judge is asked, and how its answer is read (spec §3.3, seed 000 §4.3).

The prompt is versioned: ``PROMPT_VERSION`` names it in every verdict, ``PROMPT_HASH`` changes
with its text, and both enter the cache key, so a reworded prompt never reuses old verdicts.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

import orjson

from omkd.engine.cues import Candidate
from omkd.engine.hedge_judge import HedgeVerdict

PROMPT_VERSION: Final = "p1"

SYSTEM: Final = """\
You review single sentences written by an AI coding agent while it worked. Decide whether the \
sentence expresses the agent's own uncertainty about knowledge or facts of the world it works \
in: the code, files, systems, APIs, libraries, configuration, data or documents.

It does (true) when the agent:
- guesses what something is or does without having checked ("the config is probably read from \
~/.foo", "这个接口可能不支持分页"), including a diagnosis offered unverified;
- says it does not know a fact or lacks the information ("I'm not sure which version is \
installed", "我不确定这个字段的含义");
- says a fact has to be verified because it is not known ("need to confirm whether the endpoint \
supports batching", "需要确认").

It does not (false) when the sentence:
- analyses possibilities, cases, risks or business scenarios ("if the file is large it might \
time out");
- suggests or offers something to the person ("you might want to restart");
- states a plan or a routine check of the agent's own work ("next I'll verify the tests pass");
- hedges about output the agent has just seen ("it seems the build passed now");
- predicts the future ("this will likely take a minute");
- guesses what the person means or wants;
- uses the cue word in another sense: permission, "should" as obligation (应该/應該), a \
requirement, a quotation, code, an identifier, politeness.

Ask yourself: would the people who maintain this project's knowledge files learn that the agent \
lacked a fact it needed? Answer with one JSON object and nothing else:
{"is_uncertainty": true or false, "confidence": a number from 0 to 1, "reason": "at most 20 words"}
"""

USER_TEMPLATE: Final = "Sentence: {sentence}\nAround it ({mark} marks where it stands): {context}\n"

PROMPT_HASH: Final = hashlib.sha256((SYSTEM + "\x00" + USER_TEMPLATE).encode()).hexdigest()[:12]

_OBJECT: Final = re.compile(r"\{.*?\}", re.DOTALL)
MAX_REASON: Final = 200


def judge_name(model: str) -> str:
    return f"llm:{model}:{PROMPT_VERSION}"


def user_message(candidate: Candidate) -> str:
    return USER_TEMPLATE.format(sentence=candidate.sentence, mark="⟨…⟩", context=candidate.context or "(none)")


def cache_key(model: str, candidate: Candidate) -> str:
    """The verdict cache key: model, prompt version and text, sentence, context."""
    parts = (model, PROMPT_VERSION, PROMPT_HASH, candidate.sentence, candidate.context)
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def parse_reply(text: str, model: str) -> HedgeVerdict | None:
    """The verdict in a model's reply (the first JSON object in it), None when there is none."""
    for found in _OBJECT.finditer(text):
        try:
            data = orjson.loads(found.group(0))
        except orjson.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        label = data.get("is_uncertainty", data.get("isUncertainty"))
        if not isinstance(label, bool):
            continue
        confidence = data.get("confidence", 0.5)
        if not isinstance(confidence, int | float) or isinstance(confidence, bool):
            confidence = 0.5
        reason = data.get("reason", "")
        reason = reason if isinstance(reason, str) else ""
        return HedgeVerdict(
            label, round(min(1.0, max(0.0, float(confidence))), 3), reason[:MAX_REASON], judge_name(model)
        )
    return None


_FAMILIES: Final = (
    ("anthropic", ("claude", "anthropic")),
    ("openai", ("gpt", "o1", "o3", "o4", "codex", "openai", "chatgpt")),
    ("google", ("gemini", "gemma", "palm")),
    ("meta", ("llama",)),
    ("alibaba", ("qwen",)),
    ("deepseek", ("deepseek",)),
    ("mistral", ("mistral", "mixtral", "codestral")),
)


def model_family(model: str | None) -> str | None:
    """The vendor family of a model name (``claude-sonnet-4`` → ``anthropic``), None when unknown."""
    if not model:
        return None
    name = model.lower().rsplit("/", 1)[-1]
    for family, prefixes in _FAMILIES:
        if name.startswith(prefixes) or any(f"-{p}" in name or f":{p}" in name for p in prefixes):
            return family
    return None
