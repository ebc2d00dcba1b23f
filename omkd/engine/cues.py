"""The recall net of hedging (spec §3.3): the cue table of ``cue_rules.py`` (English, German,
Portuguese, Chinese in both scripts, Japanese, Korean) applied to sentences of assistant text
outside code, tables and quotation marks, with the guard against someone else's not-knowing.

The net is cheap and deliberately wide: on real assistant text a cue alone is wrong more often
than right ("might" in a possibility analysis, 应该 as "should", "seems" about output just seen).
Each hit is a *candidate* — the sentence, its neighbours, the cue — that the judge
(``hedge_judge.py``) then decides. Extra cues (regular expressions) come from the configuration.

``Net`` runs the table in one pass: an Aho-Corasick automaton finds every row's anchors (text
that every match contains) at once; a literal row (most Chinese, Japanese and Korean cues) is its
anchor, and a row's expression runs only around its anchors. ``reference_net`` is the same table
as one plain alternation, for tests to compare. The guards (``guarded``): a cue inside quotation
marks of any kind is quoted, not used; a not-knowing whose subject is a third person ("the user
doesn't know", 用户不知道) is not the agent's.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from typing import Final

import ahocorasick

from omkd.engine import markers
from omkd.engine.cue_rules import (
    LATIN,
    STRONG,
    TABLE,
    THIRD_PERSON,
    WEAK,
    CueRow,
    has_cues,
    language_of,
    uncovered_language,
)

__all__ = [
    "STRONG",
    "WEAK",
    "Candidate",
    "Net",
    "candidates",
    "has_cues",
    "language_of",
    "net_of",
    "uncovered_language",
]

_HAN: Final = re.compile(r"[\u3400-\u9fff]")
_KANA: Final = re.compile(r"[\u3040-\u30ff]")
_HANGUL: Final = re.compile(r"[\uac00-\ud7af]")
_SENTENCE_END: Final = re.compile(r"[.!?]\s+(?=[A-Z\"'(\[*_\-`]|[^\x00-\x7f])|[。！？；]|\n+")
"""A sentence ends after . ! ? followed by space and what can start one (inline code among them),
after 。！？； or at a line break (the punctuation stays with the sentence it ends)."""
_QUOTE_MARK: Final = "`…`"
CONTEXT_MARK: Final = "⟨…⟩"
"""Where the candidate sentence sits in its context."""
CONTEXT_BEFORE: Final = 2
CONTEXT_AFTER: Final = 1
MAX_SENTENCE: Final = 600
MAX_CONTEXT: Final = 1200
WINDOW: Final = 40
"""Characters either side of an anchor that a cue holding it can span (the longest is ~35)."""
SUBJECT_CHARS: Final = 48
"""How far before a not-knowing cue its subject is looked for."""
MAX_QUOTE: Final = 300
"""A quotation is closed within a line and this many characters (an unmatched mark quotes nothing)."""


def _pattern(row: CueRow) -> str:
    return rf"\b(?:{row.pattern})\b" if row.lang in LATIN else f"(?:{row.pattern})"


def reference_net(extra: tuple[str, ...] = ()) -> re.Pattern[str]:
    """The whole table as one case-insensitive alternation (what ``Net`` must find, found slowly)."""
    rows = sorted(TABLE, key=lambda row: -len(row.pattern) if row.literal else 0)  # 不太确定 before 不确定
    alternatives = [_pattern(row) for row in rows] + [f"(?:{p})" for p in extra]
    return re.compile("|".join(alternatives), re.IGNORECASE)


_STRONG: Final = re.compile(
    "^(?:" + "|".join(_pattern(row) for row in TABLE if row.strength == STRONG) + ")$", re.IGNORECASE
)


@functools.lru_cache(maxsize=1024)
def strength_of(cue: str) -> str:
    """``strong`` or ``weak`` (a configured extra cue is weak). Cached: the net's cues are few and
    recur in every text, and the expression of every strong cue is long."""
    return STRONG if _STRONG.match(cue) else WEAK


@functools.lru_cache(maxsize=16)
def net_of(extra: tuple[str, ...] = ()) -> Net:
    """The net for these extra cues, compiled once per process."""
    return Net(extra)


Hit = tuple[int, int, str, CueRow | None]
"""(start, end, cue, the row that found it; None for a configured extra cue)."""


class Net:
    """The cue table (and configured extra cues) compiled for speed."""

    def __init__(self, extra: tuple[str, ...] = ()) -> None:
        self.extra = extra
        self._rows = TABLE
        self._compiled = [re.compile(_pattern(row).lower()) for row in TABLE]
        automaton = ahocorasick.Automaton()
        by_anchor: dict[str, list[int]] = {}
        for i, row in enumerate(TABLE):
            for anchor in row.anchors:
                by_anchor.setdefault(anchor.lower(), []).append(i)
        for anchor, rows in by_anchor.items():
            automaton.add_word(anchor, (len(anchor), tuple(rows)))
        automaton.make_automaton()
        self._automaton = automaton
        self._slow = reference_net()
        self._by_pattern = {p.pattern: row for p, row in zip(self._compiled, TABLE, strict=True)}
        self._extra = [re.compile(p, re.IGNORECASE) for p in extra]

    def hits(self, text: str) -> list[tuple[int, int, str]]:
        """Every cue in ``text`` as (start, end, cue), in order; at one start the longest first."""
        return [(start, end, cue) for start, end, cue, _ in self.row_hits(text)]

    def row_hits(self, text: str) -> list[Hit]:
        """Every cue in ``text`` with the row that found it, in order; at one start the longest first."""
        lowered = text.lower()
        found: dict[tuple[int, int], CueRow | None]
        if len(lowered) != len(text):  # a character whose lower case is longer: the plain way
            found = {m.span(): self._row_of(m.group(0)) for m in self._slow.finditer(text)}
        else:
            found = self._table_hits(lowered)
        for pattern in self._extra:
            for m in pattern.finditer(text):
                if m.end() > m.start():
                    found.setdefault(m.span(), None)
        hits = [(start, end, text[start:end], row) for (start, end), row in found.items()]
        hits.sort(key=lambda hit: (hit[0], -hit[1]))
        return hits

    def _row_of(self, cue: str) -> CueRow | None:
        lowered = cue.lower()
        return next((TABLE[i] for i, p in enumerate(self._compiled) if p.fullmatch(lowered)), None)

    def _table_hits(self, lowered: str) -> dict[tuple[int, int], CueRow | None]:
        found: dict[tuple[int, int], CueRow | None] = {}
        windows: dict[int, list[tuple[int, int]]] = {}
        rows, compiled, size = self._rows, self._compiled, len(lowered)
        for last, (length, indices) in self._automaton.iter(lowered):
            start = last + 1 - length
            for i in indices:
                row = rows[i]
                if row.literal:
                    found.setdefault((start, last + 1), row)
                else:
                    windows.setdefault(i, []).append((max(0, start - WINDOW), min(size, last + 1 + WINDOW)))
        for i, spans in windows.items():
            pattern, row = compiled[i], rows[i]
            spans.sort()
            merged = [list(spans[0])]
            for low, high in spans[1:]:  # anchors come in text order: overlapping windows are read as one
                if low <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], high)
                else:
                    merged.append([low, high])
            for low, high in merged:
                for m in pattern.finditer(lowered, low, high):
                    found.setdefault(m.span(), row)
        return found

    def pick(self, sentence: str) -> str | None:
        """The cue a sentence is judged by: its first strong cue, else its first; None without one."""
        return pick_of([cue for _, _, cue, _ in guarded(sentence, self.row_hits(sentence))])


_QUOTATION: Final = re.compile(
    (
        r'"[^"\n]{1,N}"|“[^”\n]{1,N}”|„[^“”\n]{1,N}[“”]|«[^»\n]{1,N}»|»(?=\S)[^«»\n]{1,N}(?<=\S)«'
        r"|「[^」\n]{1,N}」|『[^』\n]{1,N}』"
        r"|(?:(?<!\w)'|(?<![L])‘)(?=\S)(?:[^'‘’\n]|(?<=\w)['’](?=\w)){1,N}?(?<=\S)['’](?![L])"
    )
    .replace("N", str(MAX_QUOTE))
    .replace("L", "A-Za-z0-9À-ɏ")
)
"""Quotation marks of any kind (German ``»…«`` too, not a ``»`` between words), each closed within a
line. A straight single quote opens where no letter is before it, a curly one where no Latin letter is
(``写着‘也许’，``); either closes where no Latin letter follows (``라벨은 '확실하지 않음'이고``): "don't",
"users'" and ``在'24年`` hold no quotation."""
_THIRD_LATIN: Final = re.compile(THIRD_PERSON["latin"])
_THIRD_CJK: Final = re.compile(THIRD_PERSON["cjk"])
_OWN_SUBJECT: Final = ("i ", "ich ")
"""A not-knowing cue that starts with these names its subject, the agent ("I told them I don't know")."""
_CLAUSE_END: Final = re.compile(r".*[.!?;:。！？；：\n]", re.DOTALL)


def quotation_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` quotes something between quotation marks (the marks included)."""
    if not any(mark in text for mark in "\"'“„«「『‘"):
        return []
    return [m.span() for m in _QUOTATION.finditer(text)]


def third_person(before: str) -> int | None:
    """Where the clause before a not-knowing cue names a third person as its subject (the offset in
    ``before`` of the subject), or None."""
    cut = max(0, len(before) - SUBJECT_CHARS)
    clause = _CLAUSE_END.match(before, cut)
    start = clause.end() if clause else cut
    lowered = before[start:].lower()  # lower() keeps the length of what the guard reads, or it fails
    found = _THIRD_LATIN.search(lowered) or _THIRD_CJK.search(lowered)
    return start + found.start() if found and len(lowered) == len(before) - start else None


def guarded(text: str, hits: list[Hit]) -> list[Hit]:
    """The hits of ``text`` that are candidates: not inside quotation marks, and no not-knowing
    whose subject is someone else, nor a softener between that subject and it ("用户可能不知道",
    spec §3.3's quote and third-person guards)."""
    if not hits:
        return hits
    quotes = span_cover(quotation_spans(text))
    dropped: list[tuple[int, int]] = []
    for start, end, _, row in hits:
        if covers(quotes, start, end):
            dropped.append((start, end))
        elif row is not None and row.knowing and not text[start:end].lower().startswith(_OWN_SUBJECT):
            near = max(0, start - SUBJECT_CHARS)  # the guard reads no further back: no copy of the whole text
            subject = third_person(text[near:start])
            if subject is not None:
                dropped.append((near + subject, end))
    cover = span_cover(dropped)
    return [hit for hit in hits if not covers(cover, hit[0], hit[1])]


def span_cover(spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Spans by start, with the furthest end any of them reaches up to each: whether one holds a range is
    then a search, not a walk over all of them (a text of thousands of quoted cues)."""
    ordered = sorted(spans)
    reach: list[int] = []
    for _, end in ordered:
        reach.append(max(end, reach[-1]) if reach else end)
    return [start for start, _ in ordered], reach


def covers(cover: tuple[list[int], list[int]], start: int, end: int) -> bool:
    """Some span of ``cover`` holds ``start``..``end``."""
    starts, reach = cover
    at = bisect.bisect_right(starts, start)
    return at > 0 and reach[at - 1] >= end


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

    @property
    def lang(self) -> str:
        return language_of(self.sentence)


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
    """Every sentence holding a cue that passes the guards (its first strong cue, else its first),
    with its neighbours."""
    hits = net.row_hits(text)
    if not hits:  # most texts hold no cue: never look for their quotes
        return []
    readable = readable_text(text)
    if readable is not text:
        hits = net.row_hits(readable)
    hits = guarded(readable, hits)
    if not hits:
        return []
    spans = _sentence_spans(readable)
    parts = [readable[a:b].strip() for a, b in spans]
    starts = [a for a, _ in spans]
    cues: dict[int, list[str]] = {}
    for start, end, cue, _ in hits:
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
