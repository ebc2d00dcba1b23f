"""The recall net of hedging: a wide table of uncertainty cues, English and Chinese, applied to
sentences of assistant text outside quotes, code and tables.

The net is cheap and deliberately wide: on real assistant text a cue alone is wrong more often
than right ("might" in a possibility analysis, 应该 as "should", "seems" about output just seen).
Each hit is a *candidate* — the sentence, its neighbours, the cue — that the judge
(``hedge_judge.py``) then decides. Extra cues (regular expressions) come from the configuration.

``Net`` runs the table fast: an English row's expression runs only when one of its anchors (text
that every match contains) is in the text, the Chinese cues only when the text has Han
characters. ``reference_net`` is the same table as one plain alternation, for tests to compare.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from typing import Final

from omkd.engine import markers

STRONG: Final = "strong"
WEAK: Final = "weak"

# (cue, strength, anchors, note). English cues are regular expressions matched case-insensitively
# between word boundaries; every match contains one of the row's anchors (lower-case substrings,
# separated by ``|``). ``strong``
# cues say outright that a fact is not known or not verified (the phrases of the first draft and
# their kin); ``weak`` ones only soften a statement, and are wrong more often than right. The
# judge starts from the strength (``hedge_judge.PRIORS``) and learns the rest.
ENGLISH_CUES: Final = (
    (r"might", WEAK, "might", "the commonest real form"),
    (r"may (?:be|have|not|also|need|require|contain|exist|differ|fail|already)", WEAK, "may ", "possibility"),
    (r"could (?:be|have|also|mean)", WEAK, "could ", ""),
    (r"(?:un)?likely", WEAK, "likely", ""),
    (r"probably|possibly|perhaps|maybe|apparently|seemingly", WEAK, "probabl|possibl|perhap|maybe|apparent|seem", ""),
    (r"presumably|supposedly", STRONG, "presum|suppos", ""),
    (r"seems?|appears?(?: to)?", WEAK, "seem|appear", "often an observation of output just seen"),
    (r"I (?:think|believe)|assuming", WEAK, "think|believe|assum", ""),
    (r"I (?:guess|suspect|assume)", STRONG, "guess|suspect|assum", ""),
    (r"I(?:['’]m| am) (?:fairly|pretty|not) (?:sure|certain|confident)", STRONG, "sure|certain|confident", ""),
    (r"not (?:sure|certain|clear)|unsure|uncertain|unclear", STRONG, "sure|certain|clear", ""),
    (r"(?:I )?do(?:n['’]t| not) know|no idea", STRONG, "know|idea", ""),
    (r"need to (?:verify|confirm|find out)", STRONG, "need to", ""),
    (r"need to (?:check|investigate|look)", WEAK, "need to", "a plan as often as a doubt"),
    (r"to (?:verify|confirm) (?:that|whether|if)", STRONG, "verif|confirm", ""),
    (r"hard to say|can(?:['’]t|not) tell", STRONG, "hard to|tell", ""),
    (r"(?:my )?guess|if I recall|IIRC|as far as I know|AFAIK", STRONG, "guess|recall|iirc|as far as|afaik", ""),
    (r"should be|must be|would expect", WEAK, "should be|must be|expect", "a requirement as often"),
    (r"(?:haven['’]t|have not|not) (?:been )?verified|unverified", STRONG, "verif", ""),
    (r"insufficient information|not enough information", STRONG, "information", ""),
    (r"(?:I )?(?:can(?:['’]t|not)|couldn['’]t|could not) (?:confirm|determine)", STRONG, "confirm|determine", ""),
    (r"(?:I )?(?:can(?:['’]t|not)|couldn['’]t|could not) (?:find|locate)", WEAK, "find|locate",
     "a failed search as often"),
    (r"(?:don['’]t|do not) see", WEAK, " see", ""),
)  # fmt: skip
CHINESE_CUES: Final = (
    (("可能", "也许", "也許", "或许", "或許", "大概", "估计", "估計", "似乎", "好像", "看起来", "看起來",
      "看来", "看來", "应该是", "應該是", "应该", "應該", "我认为", "我認為", "我觉得", "我覺得", "貌似",
      "疑似", "未必", "不一定", "恐怕"), WEAK, "应该/應該 is 'should' as often as 'presumably'"),
    (("我猜", "猜测", "猜測", "推测", "推測", "不确定", "不確定", "不太确定", "不太確定", "不清楚", "不太清楚",
      "不知道", "无法确认", "無法確認", "无法确定", "無法確定", "需要确认", "需要確認", "需要验证", "需要驗證",
      "需要查证", "需要查證", "待确认", "待確認", "据我所知", "據我所知", "印象中", "没有足够信息",
      "沒有足夠資訊"), STRONG, ""),
)  # fmt: skip

_HAN: Final = re.compile(r"[\u3400-\u9fff]")
_WORD_CHAR: Final = re.compile(r"\w")
_SENTENCE_END: Final = re.compile(r"[.!?]\s+(?=[A-Z\"'(\[*_\-]|[^\x00-\x7f])|[。！？；]|\n+")
"""A sentence ends after . ! ? followed by space and what can start one, after 。！？； or at a line
break (the punctuation stays with the sentence it ends)."""
_QUOTE_MARK: Final = "`…`"
CONTEXT_MARK: Final = "⟨…⟩"
"""Where the candidate sentence sits in its context."""
CONTEXT_BEFORE: Final = 2
CONTEXT_AFTER: Final = 1
MAX_SENTENCE: Final = 600
MAX_CONTEXT: Final = 1200
WINDOW: Final = 40
"""Characters either side of an anchor that a cue holding it can span (the longest is ~25)."""


def _chinese(strength: str | None = None) -> list[str]:
    """Chinese cues (of one strength), longest first so that 不太确定 wins over 不确定."""
    found = [cue for cues, s, _ in CHINESE_CUES if strength in (None, s) for cue in cues]
    return sorted(found, key=len, reverse=True)


def reference_net(extra: tuple[str, ...] = ()) -> re.Pattern[str]:
    """The whole table as one case-insensitive alternation (what ``Net`` must find, found slowly)."""
    english = "|".join(pattern for pattern, _, _, _ in ENGLISH_CUES)
    chinese = "|".join(map(re.escape, _chinese()))
    extras = "".join(f"|(?:{p})" for p in extra)
    return re.compile(rf"\b(?:{english})\b|{chinese}{extras}", re.IGNORECASE)


_STRONG: Final = re.compile(
    r"^(?:"
    + "|".join(pattern for pattern, strength, _, _ in ENGLISH_CUES if strength == STRONG)
    + "|"
    + "|".join(map(re.escape, _chinese(STRONG)))
    + r")$",
    re.IGNORECASE,
)


def strength_of(cue: str) -> str:
    """``strong`` or ``weak`` (a configured extra cue is weak)."""
    return STRONG if _STRONG.match(cue) else WEAK


@functools.lru_cache(maxsize=16)
def net_of(extra: tuple[str, ...] = ()) -> Net:
    """The net for these extra cues, compiled once per process."""
    return Net(extra)


class Net:
    """The cue table (and configured extra cues) compiled for speed."""

    def __init__(self, extra: tuple[str, ...] = ()) -> None:
        self.extra = extra
        # Each row runs on the lower-cased text only around its anchors' occurrences (a row whose
        # expression opens with \b or an optional word is slow to run over a whole text). The regex
        # engine sees the characters before a window's start, so the leading \b is exact; a cue
        # ends well before a window's end.
        self._english = [
            (tuple(anchors.split("|")), re.compile(rf"\b(?:{pattern.lower()})\b"))
            for pattern, _, anchors, _ in ENGLISH_CUES
        ]
        self._slow = reference_net()
        self._anchors = sorted({a for anchors, _ in self._english for a in anchors})
        self._chinese = re.compile("|".join(map(re.escape, _chinese())))
        self._extra = [re.compile(p, re.IGNORECASE) for p in extra]

    def hits(self, text: str) -> list[tuple[int, int, str]]:
        """Every cue in ``text`` as (start, end, cue), in order; at one start the longest first."""
        found: list[tuple[int, int, str]] = []
        lowered = text.lower()
        if len(lowered) != len(text):  # a character whose lower case is longer: the plain way
            found = [(m.start(), m.end(), m.group(0)) for m in self._slow.finditer(text)]
            found.sort(key=lambda hit: (hit[0], -hit[1]))
            return found
        present = {a for a in self._anchors if a in lowered}
        if present:
            found = self._english_hits(text, lowered, present)
        if _HAN.search(text):
            found.extend((m.start(), m.end(), m.group(0)) for m in self._chinese.finditer(text))
        for pattern in self._extra:
            found.extend((m.start(), m.end(), m.group(0)) for m in pattern.finditer(text) if m.end() > m.start())
        found.sort(key=lambda hit: (hit[0], -hit[1]))
        return found

    def _english_hits(self, text: str, lowered: str, present: set[str]) -> list[tuple[int, int, str]]:
        found: set[tuple[int, int]] = set()
        size = len(lowered)
        for anchors, pattern in self._english:
            for anchor in anchors:
                if anchor not in present:
                    continue
                at = lowered.find(anchor)
                while at >= 0:
                    for m in pattern.finditer(lowered, max(0, at - WINDOW), min(size, at + len(anchor) + WINDOW)):
                        found.add(m.span())
                    at = lowered.find(anchor, at + 1)
        return [(start, end, text[start:end]) for start, end in found]

    def pick(self, sentence: str) -> str | None:
        """The cue a sentence is judged by: its first strong cue, else its first; None without one."""
        return pick_of([cue for _, _, cue in self.hits(sentence)])


def pick_of(cues: list[str]) -> str | None:
    if not cues:
        return None
    return next((c for c in cues if strength_of(c) == STRONG), cues[0])


@dataclass(frozen=True, slots=True)
class Candidate:
    """A sentence the net caught: what the judge decides on."""

    sentence: str
    context: str
    """The sentences before it (up to two) and after it (one)."""
    cue: str
    thinking: bool
    after_tool_result: bool
    """The text answers a tool result just read (observations of output are common there)."""

    @property
    def strength(self) -> str:
        return strength_of(self.cue)

    @property
    def chinese(self) -> bool:
        return _HAN.search(self.sentence) is not None


def readable_text(text: str) -> str:
    """The text without what it quotes: code blocks and table rows blanked, inline code marked."""
    spans = markers.quoted_spans(text)
    if not spans:
        return text
    out, at = [], 0
    for start, end in sorted(spans):
        if start < at:
            continue
        out.append(text[at:start])
        piece = text[start:end]
        out.append("\n" if piece.endswith("\n") or "\n" in piece else _QUOTE_MARK)
        at = end
    out.append(text[at:])
    return "".join(out)


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        first = text[end.start()]
        spans.append((start, end.start() if first == "\n" else end.start() + 1))
        start = end.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def sentences(text: str) -> list[str]:
    """English and Chinese sentences (and lines) of a text, quotes and code left out."""
    readable = readable_text(text)
    return [readable[a:b].strip() for a, b in _sentence_spans(readable)]


def candidates(text: str, net: Net, thinking: bool, after_tool_result: bool) -> list[Candidate]:
    """Every sentence holding a cue (its first strong cue, else its first cue), with its neighbours."""
    hits = net.hits(text)
    if not hits:  # most texts hold no cue: never look for their quotes
        return []
    readable = readable_text(text)
    if readable is not text:
        hits = net.hits(readable)
    if not hits:
        return []
    spans = _sentence_spans(readable)
    parts = [readable[a:b].strip() for a, b in spans]
    starts = [a for a, _ in spans]
    cues: dict[int, list[str]] = {}
    for start, end, cue in hits:
        i = bisect.bisect_right(starts, start) - 1
        if i >= 0 and end <= spans[i][1]:
            cues.setdefault(i, []).append(cue)
    found = []
    for i, held in sorted(cues.items()):
        cue = pick_of(held) or held[0]
        around = [*parts[max(0, i - CONTEXT_BEFORE) : i], CONTEXT_MARK, *parts[i + 1 : i + 1 + CONTEXT_AFTER]]
        found.append(
            Candidate(parts[i][:MAX_SENTENCE], " ".join(around)[:MAX_CONTEXT], cue, thinking, after_tool_result)
        )
    return found
