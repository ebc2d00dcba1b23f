"""An anchor of spec §8.1 (a kept miss, a kept hedge, a marker) with its window and outcome, and a
project write with its load: the plain data a segment's ``SegmentMeta`` keeps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from omkd.engine.metacog.targets import Target
from omkd.engine.metacog.view import Episode
from omkd.engine.native import mypyc_attr

MISS: Final = "failed_search"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
@dataclass(slots=True)
class Anchor:
    kind: str
    seq: int
    line: int
    result_line: int
    call_id: str
    message_id: str
    target: Target | None
    sentence: str = ""
    answered: bool = False
    calls: int = 0
    end_seq: int | None = None
    window_end: int | None = None
    end_reason: str = ""
    outcome: str | None = None
    outcome_seq: int = 0
    outcome_line: int | None = None
    outcome_how: str = ""
    acknowledged: bool = False
    related: bool = False
    rejected: bool = False
    failed: bool = False

    @property
    def miss(self) -> bool:
        return self.kind == MISS

    @property
    def eligible(self) -> bool:
        return self.miss and self.target is not None and self.target.specific and not self.answered

    def decide(self, outcome: str, seq: int, line: int, how: str) -> None:
        self.outcome, self.outcome_seq, self.outcome_line, self.outcome_how = outcome, seq, line, how

    def recoverable_at(self, line: int) -> bool:
        """A recovery at ``line`` decides it: nothing has yet, or only an event of that same record
        (§8.5: at one position a recovery comes first; Gemini CLI keeps a reply's calls and results
        in one record)."""
        return self.outcome is None or (self.outcome != "recovered" and self.outcome_line == line)

    def asked_after(self, text: tuple[int, int, str]) -> bool:
        """A closing question in ``text`` (seq, line, text) comes before its outcome: none yet, or one
        decided later — but not a recovery of the text's own record."""
        if self.outcome is None:
            return True
        return self.outcome_seq > text[0] and not (self.outcome == "recovered" and self.outcome_line == text[1])

    def view(self, now: tuple[str, int | None, str, int | None, str]) -> Episode:
        """Its episode, with ``now``: (outcome, its line, how, window end, why it ended)."""
        target = self.target
        why = ""
        if self.miss:
            why = "answered in the same message" if self.answered else (target.why if target else "")
        return Episode(
            self.kind, self.line, self.result_line, self.call_id,
            tuple(target.tokens) if target is not None else (self.sentence,),
            self.eligible if self.miss else None, why, now[0], now[1], now[2],
            self.acknowledged, self.related, self.rejected, now[3], now[4], self.failed,
        )  # fmt: skip


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
@dataclass(slots=True)
class WriteRow:
    kind: str
    paths: tuple[str, ...]
    load: float
    anchors: tuple[int, ...]
    """The lines of the anchors that made its load."""
    line: int
    call_id: str
    rejected: bool = False
    failed: bool = False
