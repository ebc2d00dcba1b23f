"""Signals in assistant text: explicit markers and hedging, at most one hedge per segment.

``markers.py`` finds them in a text, outside quoted text and code; this module turns them into
signals of the segment the text belongs to, and tells ``omkd explain`` about every candidate.
"""

from __future__ import annotations

from omkd.engine import markers, patterns
from omkd.engine.events import AssistantText
from omkd.engine.segmenting import Observer
from omkd.engine.signals import Signal, context_around
from omkd.engine.summary import Segment


class TextSignals:
    def __init__(self, include_thinking: bool, extra_hedging: tuple[str, ...], observer: Observer | None) -> None:
        self._include_thinking = include_thinking
        self._extra = extra_hedging
        self._observer = observer
        self._hedging = markers.HedgingMatcher(extra_hedging)

    def __getstate__(self) -> dict[str, object]:
        # compiled patterns are rebuilt from the rules; an observer is never saved
        return {"include_thinking": self._include_thinking, "extra": self._extra}

    def __setstate__(self, state: dict[str, object]) -> None:
        self._include_thinking = bool(state["include_thinking"])
        extra = state["extra"]
        self._extra = tuple(str(p) for p in extra) if isinstance(extra, tuple | list) else ()
        self._observer = None
        self._hedging = markers.HedgingMatcher(self._extra)

    def read(self, event: AssistantText, segment: Segment, turn: int, line: int) -> None:
        if event.thinking and not self._include_thinking:
            return
        text = event.text
        if not text:
            return
        for match in markers.find_markers(text):
            segment.signals.append(
                self._signal(patterns.EXPLICIT_MARKER, event, match.start(), match.group(0), turn, line)
            )
        observer = self._observer
        if segment.hedged and observer is None:
            return
        hedge = self._hedging.search(text)
        if hedge is None:
            return
        signal = self._signal(patterns.HEDGING, event, hedge.start(), hedge.group(0), turn, line)
        if observer is not None:
            observer.text_candidate(
                signal.context, signal.context, hedge.group(0), True, "phrases-v1", line, event.thinking
            )
        if not segment.hedged:
            segment.hedged = True
            segment.signals.append(signal)

    @staticmethod
    def _signal(kind: str, event: AssistantText, start: int, found: str, turn: int, line: int) -> Signal:
        context = context_around(event.text, start, start + len(found))
        return Signal(kind, turn, event.timestamp, context, {"text": found, "thinking": event.thinking}, line)
