"""Signals in assistant text: explicit markers, and hedging in two stages (spec §3.2 and §3.3).

Markers are found by ``markers.py``; hedging candidates by the recall net (``cues.py``), each then
decided by the embedded judge (``hedge_judge.py``) or, where one is configured, refined by an LLM
judge (``Refiner``). A segment keeps at most one hedging signal: its strongest verdict. An LLM
verdict arrives after the text was read; until then the embedded one stands, and when it differs
the segment changes (``refine``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from omkd.engine import cue_rules, cues, markers, patterns
from omkd.engine.cues import Candidate
from omkd.engine.events import AssistantText
from omkd.engine.hedge_judge import HedgeVerdict, embedded_judge
from omkd.engine.native import mypyc_attr
from omkd.engine.segmenting import Observer, SegmenterRules
from omkd.engine.signals import Signal, collapse, context_around
from omkd.engine.summary import Segment


class Refiner(Protocol):
    """A second judge that answers later (the LLM judge); the shell implements it."""

    def consult(self, candidate: Candidate, asked: int) -> HedgeVerdict | str | None:
        """``asked``: the segment's candidates this judge has had already. Its verdict when known
        (cached); else the key its answer will come back with, once queued; None when it will not
        judge this one (a cap reached, an earlier failure: the embedded verdict stands)."""


@dataclass(slots=True)
class _Waiting:
    segment: Segment
    candidate: Candidate
    turn: int
    timestamp: float | None
    line: int


def hedge_signal(candidate: Candidate, verdict: HedgeVerdict, turn: int, timestamp: float | None, line: int) -> Signal:
    """A hedging signal with the verdict that made it one (or the candidate a refinement awaits)."""
    evidence = {
        "text": candidate.cue,
        "sentence": candidate.sentence,
        "thinking": candidate.thinking,
        "is_uncertainty": verdict.is_uncertainty,
        "confidence": verdict.confidence,
        "reason": verdict.reason,
        "judge": verdict.judge,
    }
    return Signal(patterns.HEDGING, turn, timestamp, collapse(candidate.sentence), evidence, line)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
class TextSignals:
    """The text side of one stream's segmenter."""

    def __init__(self, rules: SegmenterRules, observer: Observer | None, refiner: Refiner | None = None) -> None:
        self._include_thinking = rules.include_thinking
        self._hedging = rules.hedging
        self._extra = rules.extra_hedging
        self._net = cues.net_of(rules.extra_hedging)
        self._observer = observer
        self._refiner = refiner
        self._waiting: dict[str, list[_Waiting]] = {}

    def __getstate__(self) -> dict[str, object]:
        # the net is rebuilt from the rules; observer, refiner and awaited answers are not saved
        # (an answer that never comes leaves the embedded verdict standing)
        return {"include_thinking": self._include_thinking, "hedging": self._hedging, "extra": self._extra}

    def __setstate__(self, state: dict[str, object]) -> None:
        self._include_thinking = bool(state["include_thinking"])
        self._hedging = bool(state.get("hedging", True))
        extra = state["extra"]
        self._extra = tuple(str(p) for p in extra) if isinstance(extra, tuple | list) else ()
        self._net = cues.net_of(self._extra)
        self._observer = None
        self._refiner = None
        self._waiting = {}

    @property
    def refiner(self) -> Refiner | None:
        return self._refiner

    def attach(self, refiner: Refiner | None) -> None:
        """Use ``refiner`` from now on (a restored stream gets the running daemon's)."""
        self._refiner = refiner

    def read(
        self, event: AssistantText, segment: Segment, turn: int, line: int, after_tool_result: bool
    ) -> list[tuple[str, str]]:
        """Read one text part; its hedge anchors of spec §8.1.3 — (signal type, sentence) of each
        marker and each candidate the judge kept (every one, not only the segment's strongest)."""
        kept: list[tuple[str, str]] = []
        if event.thinking and not self._include_thinking:
            return kept
        text = event.text
        if not text:
            return kept
        if not event.thinking:
            for match in markers.find_markers(text):
                context = context_around(text, match.start(), match.end())
                evidence = {"text": match.group(0), "thinking": False}
                segment.signals.append(Signal(patterns.EXPLICIT_MARKER, turn, event.timestamp, context, evidence, line))
                kept.append((patterns.EXPLICIT_MARKER, context))
        if not self._hedging:
            return kept
        if self._observer is not None and (language := cue_rules.uncovered_language(text)) is not None:
            self._observer.uncovered_text(language, line, event.thinking)  # said, never counted as certain
        kept.extend(
            (patterns.HEDGING, candidate.sentence)
            for candidate in cues.candidates(text, self._net, event.thinking, after_tool_result)
            if self._judge(candidate, segment, turn, event.timestamp, line)
        )
        return kept

    def _judge(self, candidate: Candidate, segment: Segment, turn: int, timestamp: float | None, line: int) -> bool:
        """Judge a candidate; True when the verdict known now keeps it."""
        refiner = self._refiner
        answer = refiner.consult(candidate, segment.hedges_asked) if refiner is not None else None
        awaited = isinstance(answer, str)
        if isinstance(answer, HedgeVerdict):
            verdict = answer
        else:  # the reason of a negative verdict only for omkd explain (it costs as much as the score)
            verdict = embedded_judge().judge(candidate, explain=self._observer is not None)
        if answer is not None:
            segment.hedges_asked += 1
        if isinstance(answer, str):
            self._waiting.setdefault(answer, []).append(_Waiting(segment, candidate, turn, timestamp, line))
        if self._observer is not None:
            self._observer.text_candidate(candidate, verdict, line)
        if verdict.is_uncertainty or awaited:
            segment.offer_hedge(hedge_signal(candidate, verdict, turn, timestamp, line), awaited)
        return bool(verdict.is_uncertainty)

    def refine(self, key: str, verdict: HedgeVerdict | None) -> list[Segment]:
        """The refiner's answer for ``key`` (None: it failed, the embedded verdict stands); the
        segments whose hedging signal changed."""
        changed = []
        for waiting in self._waiting.pop(key, []):
            segment = waiting.segment
            # one key, several candidates (a thinking and a text part): each falls back to its own verdict
            settled = verdict if verdict is not None else embedded_judge().judge(waiting.candidate)
            signal = hedge_signal(waiting.candidate, settled, waiting.turn, waiting.timestamp, waiting.line)
            if segment.settle_hedge(signal):
                changed.append(segment)
        return changed

    def repoint(self, old: Segment, new: Segment) -> None:
        """``old`` was absorbed into ``new`` (an undone launch): answers for it go to ``new``."""
        for waiting in (w for ws in self._waiting.values() for w in ws):
            if waiting.segment is old:
                waiting.segment = new

    @property
    def awaiting(self) -> int:
        return len(self._waiting)
