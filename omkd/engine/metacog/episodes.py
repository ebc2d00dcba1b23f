"""Anchors, their follow-up windows and outcomes (spec §8.1, §8.4, §8.5), per segment.

``MetaTracker`` is one stream's: it numbers the events (the positions §8.5 orders by) and is told
each call, result, text, person's turn and segment end by the segmenter. Each segment keeps its own
``SegmentMeta`` (plain data on ``Segment.meta``), so a parser state saved and restored in any
chunking decides the same. A segment's yes/no figures are counted when it ends (``measures.py``):
then every window in it is closed and its figures no longer change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from omkd.engine import judge
from omkd.engine.events import ToolCall, ToolResult
from omkd.engine.metacog import loads, measures, outcomes, rules, targets
from omkd.engine.metacog.anchor import MISS, Anchor, WriteRow
from omkd.engine.metacog.outcomes import asks, creates, is_lookup, looked_at, related, states_gap
from omkd.engine.metacog.targets import Target
from omkd.engine.metacog.view import Episode
from omkd.engine.metacog.writes import Write, write_of
from omkd.engine.native import mypyc_attr
from omkd.engine.patterns import HEDGING
from omkd.engine.signals import Signal
from omkd.engine.summary import Segment

FOUND: Final = "found"
KEPT_WRITES: Final = 200
"""Writes kept per segment for ``omkd explain`` (the figures count every one)."""
_NOT_CHECKPOINTS: Final = frozenset({"cancelled"})  # a write the person refused (or that never ran)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
@dataclass(slots=True)
class SegmentMeta:
    anchors: list[Anchor] = field(default_factory=list)
    open: list[Anchor] = field(default_factory=list)
    """Anchors whose window has not ended (decided or not: a closing question may still come first)."""
    capped: list[Anchor] = field(default_factory=list)
    """Undecided anchors whose window ended at the call cap: their calls' results still count."""
    writes: list[WriteRow] = field(default_factory=list)
    call_seqs: dict[str, int] = field(default_factory=dict)
    write_anchors: dict[str, list[Anchor]] = field(default_factory=dict)
    checkpoint: int = 0
    max_load: float = 0.0
    writing: bool = False
    unchecked: bool = False
    tripped: set[str] = field(default_factory=set)
    last_text: tuple[int, int, str] | None = None
    found_messages: list[str] = field(default_factory=list)
    ended: bool = False
    main: bool = True
    """A main stream's segment (a sub-agent's never asks, and has no open-gap figure)."""

    def absorb(self, other: SegmentMeta) -> None:
        """An undone launch's records come back (its anchors and writes with them)."""
        self.anchors += other.anchors
        self.open += other.open
        self.capped += other.capped
        self.writes = (self.writes + other.writes)[:KEPT_WRITES]
        self.call_seqs.update(other.call_seqs)
        self.write_anchors.update(other.write_anchors)
        self.max_load = max(self.max_load, other.max_load)
        self.writing |= other.writing
        self.unchecked |= other.unchecked
        self.tripped |= other.tripped
        self.last_text = other.last_text or self.last_text
        self.ended = False

    def now(self, anchor: Anchor, end_line: int) -> tuple[str, int | None, str, int | None, str]:
        """An anchor's outcome as the stream's end here would decide it (what ``omkd scan`` of the
        bytes read so far says: batch = live): a window still open ends at the end of the stream."""
        if anchor.end_seq is None:
            text = self.last_text
            if (
                self.main
                and text is not None
                and text[0] >= anchor.seq
                and anchor.asked_after(text)
                and asks(text[2], anchor.target.strong if anchor.target else (), anchor.sentence)
            ):
                return "asked", text[1], outcomes.closing(text[2]), end_line, "end of stream"
            if anchor.outcome is None:
                return "dropped", end_line, "", end_line, "end of stream"
            return anchor.outcome, anchor.outcome_line, anchor.outcome_how, end_line, "end of stream"
        if anchor.outcome is None:  # a window ended at the call cap, waiting for its calls' results
            return "dropped", anchor.window_end, "", anchor.window_end, anchor.end_reason
        return anchor.outcome, anchor.outcome_line, anchor.outcome_how, anchor.window_end, anchor.end_reason

    def views(self, end_line: int, signals: Sequence[Signal] | None = None) -> tuple[Episode, ...]:
        """Every anchor's episode; with ``signals``, those of the anchors among them (a hedge anchor
        only when it is the segment's hedging signal: the others count in the figures, not in the
        gap entries)."""
        if signals is None:
            return tuple(a.view(self.now(a, end_line)) for a in self.anchors)
        hedges = {(s.line, s.evidence.get("sentence")) for s in signals if s.type == HEDGING}
        return tuple(
            a.view(self.now(a, end_line)) for a in self.anchors if a.kind != HEDGING or (a.line, a.sentence) in hedges
        )

    def figures(self, end_line: int) -> dict[str, int]:
        """The segment's yes/no figures now (``measures.figures_of``)."""
        outcomes = [(a.miss, a.eligible, self.now(a, end_line)[0]) for a in self.anchors]
        return measures.figures_of(outcomes, self.main, self.writing, self.max_load, self.unchecked, self.tripped)


def meta_of(segment: Segment) -> SegmentMeta:
    """The segment's metacognition record (made at its first call or anchor)."""
    if segment.meta is None:
        segment.meta = SegmentMeta(main=segment.role == "main")
    return segment.meta  # type: ignore[no-any-return]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
class MetaTracker:
    """One stream's episodes: told each event by the segmenter, in file order."""

    def __init__(self, window_calls: int, load_at: float, enabled: bool = True) -> None:
        self.window_calls = window_calls
        self.load_at = load_at
        self.enabled = enabled
        self.seq = 0

    # --- calls ----------------------------------------------------------------------------------

    def call(self, meta: SegmentMeta, call: ToolCall, line: int) -> None:
        self.seq += 1
        seq = self.seq
        meta.call_seqs[call.call_id] = seq
        opened = meta.open
        for anchor in opened:
            anchor.calls += 1
        tool = judge.unwrapped(call.tool)
        if tool in rules.QUESTION_TOOLS and meta.main:
            how = outcomes.asked_by_tool(call)
            for anchor in opened:
                if anchor.outcome is None:
                    anchor.decide("asked", seq, line, how)
        write = write_of(call, tool)
        if write is not None and not write.scratch:
            self._write(meta, call, write, seq, line)
        if opened:
            for anchor in [a for a in opened if a.calls >= self.window_calls]:
                self._end(meta, anchor, line, "cap")

    def _write(self, meta: SegmentMeta, call: ToolCall, write: Write, seq: int, line: int) -> None:
        deciding: list[Anchor] = []
        for anchor in meta.open:
            if anchor.outcome is not None:
                continue
            how = f"{call.tool} {', '.join(write.paths) or write.kind}"[: outcomes.HOW_CHARS]
            if anchor.miss and anchor.target is not None and creates(write, anchor.target):
                anchor.decide("created", seq, line, how)
            else:
                anchor.decide("proceeded", seq, line, how)
                anchor.related = anchor.miss and anchor.target is not None and related(write, anchor.target)
            deciding.append(anchor)
        if deciding:
            meta.write_anchors[call.call_id] = deciding
        # its load after what it decided: a miss this very write creates is resolved "at" it (§8.6 M4 (c))
        load, making = loads.load_at(meta.anchors, meta.checkpoint, seq)
        meta.writing = True
        meta.max_load = max(meta.max_load, load)
        if load >= self.load_at:
            meta.unchecked = True
            meta.tripped.add(write.kind)
        if len(meta.writes) < KEPT_WRITES:
            meta.writes.append(
                WriteRow(write.kind, write.paths, load, tuple(a.line for a in making), line, call.call_id)
            )

    # --- results --------------------------------------------------------------------------------

    def result(
        self, meta: SegmentMeta, call: ToolCall, result: ToolResult, verdict: str, call_line: int, line: int,
        cwd: str | None = None,
    ) -> Anchor | None:  # fmt: skip
        """A result for a call of this segment; the anchor it makes when it is a kept miss (``cwd``:
        the stream's working directory, which no Glob targets)."""
        self.seq += 1
        seq = self.seq
        call_seq = meta.call_seqs.pop(call.call_id, 0)
        decided = meta.write_anchors.pop(call.call_id, None)
        rejected = verdict in _NOT_CHECKPOINTS
        failed = result.is_error and not rejected  # §8.3.3: an error, a non-zero exit, a harness refusal
        if rejected or failed:
            for anchor in decided or ():
                anchor.rejected, anchor.failed = rejected, failed
            for row in meta.writes[-8:]:
                if row.call_id == call.call_id:
                    row.rejected, row.failed = rejected, failed
        tool = judge.unwrapped(call.tool)
        if tool in rules.QUESTION_TOOLS or tool in rules.PLAN_APPROVAL:
            meta.checkpoint = seq
        if verdict == FOUND:
            if call.message_id not in meta.found_messages:
                meta.found_messages = [*meta.found_messages[-15:], call.message_id]
            for anchor in meta.anchors[-32:]:
                if anchor.miss and anchor.message_id == call.message_id:
                    anchor.answered = True
        if meta.open or meta.capped:
            waiting = [a for a in (*meta.open, *meta.capped) if a.miss and a.recoverable_at(line) and a.seq < call_seq]
            if waiting:
                self._recover(meta, waiting, call, result, verdict, (call_seq, seq, line), cwd)
        if verdict != MISS or meta.ended:
            return None
        target = targets.target_of(call, cwd, result)
        anchor = Anchor(MISS, seq, call_line, line, call.call_id, call.message_id, target)
        anchor.answered = call.message_id in meta.found_messages
        meta.anchors.append(anchor)
        meta.open.append(anchor)
        return anchor

    def _recover(
        self, meta: SegmentMeta, waiting: list[Anchor], call: ToolCall, result: ToolResult, verdict: str,
        where: tuple[int, int, int], cwd: str | None,
    ) -> None:  # fmt: skip
        call_seq, seq, line = where
        later: Target | None = None
        lookup: bool | None = None
        for anchor in waiting:
            if anchor.end_seq is not None and call_seq > anchor.end_seq:
                continue
            miss = anchor.target
            if miss is None:
                continue
            if verdict == FOUND:
                later = later or targets.target_of(call, cwd)
                if targets.same_target(miss, later):
                    anchor.related = anchor.rejected = anchor.failed = False
                    anchor.decide("recovered", seq, line, f"{call.tool} found the same target{looked_at(call)}")
                    continue
            if lookup is None:  # §8.2.4: any call judged found reads the world
                lookup = verdict == FOUND or (verdict == "not_a_search" and is_lookup(call))
            if lookup:
                word = targets.names(result.text, targets.naming_words(miss))
                if word is not None:
                    anchor.related = anchor.rejected = anchor.failed = False
                    anchor.decide("recovered", seq, line, f"{call.tool} output names {word}{looked_at(call)}")
        meta.capped = [a for a in meta.capped if a.outcome is None]

    # --- text -----------------------------------------------------------------------------------

    def text(
        self, meta: SegmentMeta, text: str, thinking: bool, message_id: str, line: int, kept: list[tuple[str, str]]
    ) -> None:
        """An assistant text part; ``kept``: its hedge anchors (kind, sentence)."""
        self.seq += 1
        seq = self.seq
        if not thinking:
            meta.last_text = (seq, line, text)
            says: bool | None = None  # read once, and only when an anchor still waits for it
            for anchor in meta.open:
                if anchor.outcome is None and not anchor.acknowledged:
                    if says is None:
                        says = states_gap(text)
                    words = anchor.target.strong if anchor.target is not None else ()
                    anchor.acknowledged = says or targets.names(text, words) is not None
        if kept:  # each kept hedge acknowledges the gaps open before it, this text's earlier hedges among them
            for anchor in meta.open:
                if anchor.outcome is None:
                    anchor.acknowledged = True
        for index, (kind, sentence) in enumerate(kept):
            anchor = Anchor(kind, seq, line, line, "", message_id, None, sentence)
            anchor.acknowledged = index < len(kept) - 1
            meta.anchors.append(anchor)
            meta.open.append(anchor)

    # --- ends -----------------------------------------------------------------------------------

    def person_turn(self, meta: SegmentMeta, line: int) -> None:
        """The person's turn: every window of the segment ends; a checkpoint for M4."""
        self.seq += 1
        for anchor in list(meta.open):
            self._end(meta, anchor, line, "turn")
        meta.checkpoint = self.seq
        meta.last_text = None

    def ended(self, meta: SegmentMeta, reason: str, line: int, end_line: int) -> None:
        """The segment ended: its windows end with it; undecided anchors are dropped. At the end of
        the stream a window ends at the segment's last line (as ``SegmentMeta.now`` has it)."""
        why = "end of stream" if reason == "end of stream" else "segment end"
        if why == "end of stream":
            line = end_line
        for anchor in list(meta.open):
            self._end(meta, anchor, line, why)
        for anchor in meta.capped:
            if anchor.outcome is None:
                anchor.decide("dropped", anchor.end_seq or self.seq, anchor.window_end or line, "")
        meta.capped = []
        meta.call_seqs.clear()
        meta.write_anchors.clear()
        meta.ended = True

    def _end(self, meta: SegmentMeta, anchor: Anchor, line: int, reason: str) -> None:
        meta.open.remove(anchor)
        anchor.end_seq, anchor.window_end, anchor.end_reason = self.seq, line, reason
        closing = reason == "turn" or (reason == "end of stream" and meta.main)
        text = meta.last_text
        if (
            closing
            and meta.main
            and text is not None
            and text[0] >= anchor.seq
            and anchor.asked_after(text)
            and asks(text[2], anchor.target.strong if anchor.target else (), anchor.sentence)
        ):
            anchor.decide("asked", text[0], text[1], outcomes.closing(text[2]))
            return
        if anchor.outcome is not None:
            return
        if reason == "cap":
            meta.capped.append(anchor)
            return
        anchor.decide("dropped", self.seq, line, "")
