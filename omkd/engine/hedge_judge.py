"""The embedded judge of hedging candidates: does the sentence express uncertainty about knowledge?

A logistic model over the words (Latin-script languages) or character n-grams (Chinese, Japanese
kana, Korean Hangul) of the sentence, the cue and the words around it, its language, and a few
signs of what the sentence is doing: speaking in the first person, reasoning about an "if",
addressing the person, planning a next step, observing output just seen, predicting. Its weights
and its decision thresholds (one per part, ``text`` or ``thinking``, and language, chosen by
cross-validation by person) are data (``data/hedging_judge.json``), trained by
``bench/train_hedging_judge.py`` from the real labelled sentences, which rebuilds the file bit for
bit; the file also holds a key of every sentence it was trained on (``trained_on``: ``omkd
calibrate`` leaves those out of a score). Offline, CPU-only, deterministic: the same sentence gets
the same verdict on every machine.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from omkd.engine import cues
from omkd.engine.cues import CONTEXT_MARK, Candidate

MODEL_FILE: Final = "hedging_judge.json"
CONTEXT_CHARS: Final = 600
"""The context's signs are read from its first characters only (a few sentences' worth)."""
PRIORS: Final = {"strength:strong": 2.0}
"""Prior means of weights (log-odds), the rest 0: a strong cue (``cues.STRONG``) says outright
that a fact is not known; training moves the weight only as far as the sentences show."""
_WORD: Final = re.compile(r"[a-zà-öø-ÿ][a-zà-öø-ÿ']*")
_HAN: Final = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
"""Runs of Chinese, Japanese (kana and kanji) and Korean (Hangul) characters, read as n-grams."""
_DIGITS: Final = re.compile(r"\d+")
_SPACE: Final = re.compile(r"\s+")
# sign: (words, phrases of several words, CJK strings). A sign is in a sentence when one of its
# words is a word of it (English, German, Portuguese), or one of its phrases or Chinese,
# Japanese or Korean strings is in it.
_SIGN_TABLE: Final = {
    "first_person": ("i i'm i'll i've i'd we we're my our ich wir mein eu nós meu", "",
                     "我 我们 我們 私 僕 저는 제가 우리"),
    "you": ("you your you're you'll du sie ihr você", "", "你 您 あなた 당신"),
    "if": ("if when unless otherwise falls wenn se caso", "in case",
           "如果 若 假如 要是 萬一 万一 もし 場合 만약 경우"),
    "plan": ("let's i'll next dann vou", "let me|i will|then i|going to|now i|ich werde",
             "接下来 接下來 我来 我來 我先 然后 然後 次に まず 먼저 다음"),
    "observed": (
        "output result results show shows showed returned log logs passed failed error printed listed ausgabe "
        "ergebnis resultado saída",
        "",
        "显示 顯示 输出 輸出 结果 結果 日志 日誌 返回 出力 ログ 表示 결과 출력 로그 표시",
    ),
    "future": ("will won't later eventually wird werden", "going to", "将会 將會 以后 以後 将来 나중"),
    "negated": ("not no never nicht kein não", "", "不 没 沒 ない ません 않 안 못"),
    "fact": ("is are was were use uses live lives defined configured stored located support supports ist sind é",
             "", "是 在 用 です 이다 입니다"),
    "verify": ("verify verified confirm confirmed check checked unverified prüfen verificar", "",
               "确认 確認 验证 驗證 查证 查證 检查 檢查 確認 확인 검증"),
    "know": ("know sure certain idea recall remember weiß sicher sei certeza", "",
             "知道 确定 確定 清楚 记得 記得 分か わか 모르 확실"),
}  # fmt: skip
_SIGNS: Final = {
    name: (frozenset(words.split()), tuple(f" {p} " for p in phrases.split("|") if p), tuple(chinese.split()))
    for name, (words, phrases, chinese) in _SIGN_TABLE.items()
}


def _signs(text: str) -> list[str]:
    """The signs in a normalised text, in table order."""
    tokens = _WORD.findall(text)
    words = set(tokens)
    spaced = f" {' '.join(tokens)} "
    han = _HAN.search(text) is not None
    return [
        name
        for name, (sign_words, phrases, chinese) in _SIGNS.items()
        if not sign_words.isdisjoint(words)
        or (phrases and any(p in spaced for p in phrases))
        or (han and any(c in text for c in chinese))
    ]


_CROSSED: Final = frozenset({"you", "if", "plan", "observed", "future", "first_person"})
"""Signs whose meaning depends on the cue: "might" to the person is a suggestion, "might" about X a guess."""


@dataclass(frozen=True, slots=True)
class HedgeVerdict:
    """What a judge said of a candidate (kept on the hedging signal)."""

    is_uncertainty: bool
    confidence: float
    """How sure the judge is of its verdict, 0.5 to 1."""
    reason: str
    judge: str
    """Which judge and version: ``embedded-v2``, ``llm:<model>:<prompt version>``."""


def _normal(text: str) -> str:
    return " ".join(_DIGITS.sub("0", text.lower()).split())  # runs of whitespace as one space, stripped


def _grams(text: str, prefix: str) -> list[str]:
    words = _WORD.findall(text)
    found = [f"{prefix}w:{w}" for w in words]
    found += [f"{prefix}ww:{a} {b}" for a, b in itertools.pairwise(words)]
    for run in _HAN.findall(text):
        found += [f"{prefix}h:{c}" for c in run]
        found += [f"{prefix}hh:{run[i : i + 2]}" for i in range(len(run) - 1)]
        found += [f"{prefix}hhh:{run[i : i + 3]}" for i in range(len(run) - 2)]
    return found


def features(candidate: Candidate) -> list[str]:
    """The features a candidate is judged by (the same in training and at run time)."""
    return _features(candidate, cues.language_of(candidate.sentence))


def _features(candidate: Candidate, lang: str) -> list[str]:
    """``features`` with the sentence's language known (the judge needs it for its threshold too)."""
    sentence = _normal(candidate.sentence)
    cue = _normal(candidate.cue)
    part = "part:thinking" if candidate.thinking else "part:text"
    found = [f"cue:{cue}", f"strength:{candidate.strength}", part, f"lang:{lang}"]
    at = sentence.find(cue)
    if at >= 0:
        before, after = sentence[:at], sentence[at + len(cue) :]
        left, right = _WORD.findall(before)[-2:], _WORD.findall(after)[:2]
        found += [f"left:{w}" for w in left] + [f"right:{w}" for w in right]
        if left:
            found.append(f"left1:{left[-1]}|{cue}")
        if right:
            found.append(f"right1:{cue}|{right[0]}")
        han_left, han_right = before[-2:], after[:2]
        if _HAN.fullmatch(han_left or "x"):
            found.append(f"hleft:{han_left}")
        if _HAN.fullmatch(han_right or "x"):
            found.append(f"hright:{han_right}")
        found.append("cue_at:start" if at <= 3 else "cue_at:later")
    signs = _signs(sentence)
    found += [f"sign:{name}" for name in signs]
    found += [f"cue:{cue}&{name}" for name in signs if name in _CROSSED]
    if sentence.endswith(("?", "？")):
        found.append("sign:question")
    found += _grams(sentence, "")
    context = _normal(candidate.context[:CONTEXT_CHARS].replace(CONTEXT_MARK, " "))
    found += [f"ctx:{name}" for name in _signs(context)]
    return found


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def sentence_key(sentence: str) -> str:
    """A sentence's key in the model file's ``trained_on`` (its words, spacing aside, hashed)."""
    return hashlib.sha256(_SPACE.sub(" ", sentence).strip().encode()).hexdigest()[:16]


def threshold_of(thresholds: dict[str, dict[str, float]], thinking: bool, lang: str) -> float:
    """The decision threshold of a part and language (the part's own where the language has none)."""
    table = thresholds["thinking" if thinking else "text"]
    return table.get(lang, table["*"])


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


class EmbeddedJudge:
    """The logistic model shipped in the package."""

    def __init__(self, model: dict[str, Any], digest: str = "") -> None:
        self.version = str(model["version"])
        self.name = f"embedded-{self.version}"
        self.digest = digest
        """The model file's hash: a retrained model under the same version is another judge."""
        self._bias = float(model["bias"])
        self.thresholds: dict[str, dict[str, float]] = {
            part: {str(lang): float(t) for lang, t in table.items()} for part, table in model["thresholds"].items()
        }
        self._weights: dict[str, float] = {str(k): float(v) for k, v in model["weights"].items()}
        self._trained_on = frozenset(str(k) for k in model.get("trained_on", ()))

    def trained_on(self, sentence: str) -> bool:
        """The model was trained on this sentence (a score on it would flatter the judge)."""
        return sentence_key(sentence) in self._trained_on

    def score(self, candidate: Candidate) -> float:
        """The model's probability that the candidate expresses uncertainty about knowledge."""
        return self._score(set(features(candidate)))

    def threshold(self, candidate: Candidate) -> float:
        return threshold_of(self.thresholds, candidate.thinking, cues.language_of(candidate.sentence))

    def tuned(self, thinking: bool, lang: str) -> bool:
        """The judge was tuned on this part's sentences of this language: it has a threshold of its
        own, chosen on enough labelled uncertain sentences of it. A language without one is judged
        by the words of the others and the part's threshold, and keeps few of its uncertain
        sentences (``bench/hedging_quality.py``: a language left out of training entirely)."""
        return lang in self.thresholds["thinking" if thinking else "text"]

    def _score(self, present: set[str]) -> float:
        # the weights in the set's order, added one by one as before: the same sum to the last bit
        return sigmoid(self._bias + sum(map(self._weights.get, present, itertools.repeat(0.0))))

    def judge(self, candidate: Candidate, explain: bool = True) -> HedgeVerdict:
        """The verdict; its reason (the features that weighed most) is given for a verdict of
        uncertainty, and for the others only when ``explain`` (it costs as much as the score).
        The confidence is how far the score is from the threshold (0.5 at it, in log-odds)."""
        lang = cues.language_of(candidate.sentence)
        present = set(_features(candidate, lang))
        p = self._score(present)
        threshold = threshold_of(self.thresholds, candidate.thinking, lang)
        uncertain = p >= threshold
        reason = self._reason(present) if uncertain or explain else ""
        confidence = sigmoid(abs(_logit(p) - _logit(threshold)))
        return HedgeVerdict(uncertain, round(confidence, 3), reason, self.name)

    def _reason(self, present: set[str]) -> str:
        """The three features that pushed the verdict most, in words a person reviewing it reads:
        ``for: talks of checking or verifying; against: the word "for"``."""
        weights = self._weights
        strongest = [f for f in heapq.nsmallest(3, present, key=lambda f: (-abs(weights.get(f, 0.0)), f))
                     if weights.get(f, 0.0)]  # fmt: skip
        pushed = [readable(f) for f in strongest if weights[f] > 0]
        held = [readable(f) for f in strongest if weights[f] < 0]
        return "; ".join(part for part in (
            f"for: {', '.join(pushed)}" if pushed else "", f"against: {', '.join(held)}" if held else ""
        ) if part)  # fmt: skip


_SIGN_WORDS: Final = {
    "first_person": "speaks in the first person",
    "you": "addresses the person",
    "if": 'reasons about an "if"',
    "plan": "plans a next step",
    "observed": "speaks of output just seen",
    "future": "speaks of the future",
    "negated": "is negated",
    "fact": "states what something is or does",
    "verify": "talks of checking or verifying",
    "know": "talks of knowing or being sure",
}
_FEATURE_WORDS: Final = {
    "w": "the word “{}”",
    "ww": "the words “{}”",
    "h": "the character “{}”",
    "hh": "the characters “{}”",
    "hhh": "the characters “{}”",
    "left": "“{}” before the cue",
    "right": "“{}” after the cue",
    "hleft": "“{}” before the cue",
    "hright": "“{}” after the cue",
    "cue": "the cue “{}”",
    "strength": "a {} cue",
    "part": "a {} part",
    "lang": "language {}",
    "after": "right after a {}",
}


def readable(feature: str) -> str:
    """A feature as a person reads it (``sign:verify`` → "talks of checking or verifying")."""
    kind, _, value = feature.partition(":")
    if kind in ("sign", "ctx"):
        said = _SIGN_WORDS.get(value, value.replace("_", " "))
        return said if kind == "sign" else f"its context {said}"
    if kind.startswith("ctx"):  # n-grams of the context
        return f"{readable(kind[3:] + ':' + value)} nearby"
    if kind in ("left1", "right1"):
        return f"“{value.replace('|', ' ')}”"
    template = _FEATURE_WORDS.get(kind)
    return template.format(value.replace("&", " while it ").replace("_", " ")) if template else feature


@functools.cache
def embedded_judge() -> EmbeddedJudge:
    """The judge of the model file in the package (read once)."""
    # Beside this module, not through importlib.resources: its import (zipfile, tempfile, shutil)
    # cost an empty scan about 15 ms of its start-up, and omkd is installed as files, not zipped.
    data = (Path(__file__).parent / "data" / MODEL_FILE).read_bytes()
    return EmbeddedJudge(orjson.loads(data), hashlib.sha256(data).hexdigest()[:12])


def judge_identity(llm: str | None = None) -> str:
    """The hedging judge in force, for the reproducibility block: the embedded model with its
    file's hash, and the LLM judge (model, prompt version and hash) when one refines it."""
    embedded = embedded_judge()
    identity = f"{embedded.name}@{embedded.digest}"
    return f"{llm}+{identity}" if llm else identity
