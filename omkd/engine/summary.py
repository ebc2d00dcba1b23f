"""A segment's figures: the summary the fold adds up, and the record that builds it.

A segment is a contiguous stretch of one stream attributed to one skill. ``Segment`` is
mutable while the segmenter adds to it; ``SegmentSummary`` is a frozen copy of its figures
at one moment, keyed so that the fold can replace an older summary of the same segment.
A sub-agent's first segments may not know their skill yet (the parent that launched them may
be read later): their summaries carry the link keys by which the fold will learn it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Final

from omkd.engine import skills
from omkd.engine.formats import CLAUDE_CODE
from omkd.engine.metacog.view import Episode, episode_of
from omkd.engine.signals import Signal

PLAIN_VERSION: Final = 1
"""The version of ``SegmentSummary.to_plain``'s data."""


@dataclass(frozen=True, slots=True)
class SegmentSummary:
    """A segment's figures at one moment: what the fold adds up."""

    key: str
    stream: str
    role: str
    skill: str
    session_id: str | None
    cwd: str | None
    first_ts: float | None
    last_ts: float | None
    assistant_parts: int
    turns: int
    tool_calls: int
    tool_answered: int
    tool_failures: int
    tool_cancelled: int
    tokens: tuple[int, int, int, int]
    signals: tuple[Signal, ...]
    accessed: frozenset[str]
    open: bool
    user_given: tuple[str, ...] = ()
    """What the person named that a search or read did not find: recorded, never a gap."""
    inherit: tuple[str, ...] = ()
    """Link keys of the launching skill, while it is not known (the skill is ``general`` until then)."""
    start_line: int = 0
    end_line: int = 0
    agent: str = CLAUDE_CODE
    """The agent that wrote the stream (``formats.AGENTS``)."""
    tallies: tuple[tuple[str, int], ...] = ()
    """Counts of catalogue figures the segment holds no field for (``figures.tally``), by name."""
    model: str = ""
    """The model that wrote most of the segment's assistant messages ("" when none said)."""
    episodes: tuple[Episode, ...] = ()
    """What the agent did at each of its gaps that is a signal here (spec §8: ``metacog.view.Episode``;
    the segment's other hedge anchors count in its figures, and ``omkd explain`` shows them)."""

    def tally(self, name: str) -> int:
        """A tallied figure's count (0 when never counted)."""
        for key, count in self.tallies:
            if key == name:
                return count
        return 0

    def __getstate__(self) -> list[object]:
        return [getattr(self, f.name) for f in fields(self)]

    def __setstate__(self, state: list[object]) -> None:
        # a summary saved by an older omkd lacks the fields added since: they take their defaults
        names = fields(self)
        for name, value in zip(names, state, strict=False):
            object.__setattr__(self, name.name, value)
        for name in names[len(state) :]:
            object.__setattr__(self, name.name, name.default)

    @property
    def row(self) -> str:
        """The key its figures are kept under: its skill, for its agent (``skills.row_key``)."""
        return skills.row_key(self.skill, self.agent)

    def to_plain(self) -> dict[str, Any]:
        """Plain data (what the state store saves, as JSON): every field by name, ``PLAIN_VERSION``."""
        plain: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        plain["signals"] = [
            {"type": g.type, "turn": g.turn, "timestamp": g.timestamp, "context": g.context,
             "evidence": g.evidence, "line": g.line}
            for g in self.signals
        ]  # fmt: skip
        plain["accessed"] = sorted(self.accessed)
        if self.tallies:
            plain["tallies"] = [list(pair) for pair in self.tallies]
        else:
            del plain["tallies"]  # a summary without tallies is saved as before they existed
        if self.episodes:
            plain["episodes"] = [list(episode) for episode in self.episodes]  # compact: by position
        else:
            del plain["episodes"]
        plain["v"] = PLAIN_VERSION
        return plain

    @classmethod
    def from_plain(cls, plain: dict[str, Any]) -> SegmentSummary:
        """The summary of ``to_plain``'s data, of this or an older omkd: a field it lacks takes its
        default, a field it has that this omkd does not know is left out. ``KeyError``,
        ``TypeError`` or ``ValueError`` when a field without a default is missing or malformed."""
        values: dict[str, Any] = {}
        for name, required in _PLAIN_FIELDS:
            if name in plain:
                values[name] = plain[name]
            elif required:
                raise KeyError(name)
        values["tokens"] = tuple(map(int, values["tokens"]))
        values["signals"] = tuple(Signal(**_known_keys(signal)) for signal in values["signals"])
        values["accessed"] = frozenset(map(str, values["accessed"]))
        for name in ("user_given", "inherit"):
            if name in values:
                values[name] = tuple(values[name])
        if "tallies" in values:
            values["tallies"] = tuple((str(key), int(count)) for key, count in values["tallies"])
        if "episodes" in values:
            values["episodes"] = tuple(episode_of(e) for e in values["episodes"])
        return cls(**values)

    @property
    def counts(self) -> bool:
        """Empty segments (no assistant record, no tool call) are dropped."""
        return self.assistant_parts > 0 or self.tool_calls > 0

    @property
    def weight(self) -> float:
        """The max weight of the segment's signals (0 without signals)."""
        return max((s.weight for s in self.signals), default=0.0)

    @property
    def duration(self) -> float:
        if self.first_ts is None or self.last_ts is None:
            return 0.0
        return self.last_ts - self.first_ts


_PLAIN_FIELDS: Final = tuple((f.name, f.default is MISSING) for f in fields(SegmentSummary))
"""(name, required) of each field, in order: what ``from_plain`` reads (asked once, not per summary)."""
_SIGNAL_FIELDS: Final = frozenset(f.name for f in fields(Signal))


def _known_keys(signal: dict[str, Any]) -> dict[str, Any]:
    """A saved signal's keys that this omkd knows (one saved by another omkd may hold others)."""
    return signal if signal.keys() <= _SIGNAL_FIELDS else {k: v for k, v in signal.items() if k in _SIGNAL_FIELDS}


@dataclass(slots=True)
class Segment:
    """A contiguous stretch of one stream attributed to one skill, while it is being built."""

    stream: str
    role: str
    ordinal: int
    skill: str
    session_id: str | None = None
    cwd: str | None = None
    first_ts: float | None = None
    last_ts: float | None = None
    assistant_parts: int = 0
    turns: int = 0
    tool_calls: int = 0
    tool_answered: int = 0
    tool_failures: int = 0
    tool_cancelled: int = 0
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    signals: list[Signal] = field(default_factory=list)
    accessed: set[str] = field(default_factory=set)
    open: bool = True
    user_given: list[str] = field(default_factory=list)
    deduplicated: int = 0
    hedges: list[tuple[Signal, bool]] = field(default_factory=list)
    """Hedging signals kept (with whether a refined verdict is awaited for it): the strongest
    settled one and every awaited one; the summary shows the strongest positive."""
    hedges_asked: int = 0
    tallies: Counter[str] = field(default_factory=Counter)
    """Catalogue figures counted where they happen (``figures.tally``), by name."""
    models: Counter[str] = field(default_factory=Counter)
    """Assistant messages per model (``message.model``): the segment's model is the most frequent."""
    removed_texts: list[tuple[str, str]] = field(default_factory=list)
    """(old, new) texts of the segment's latest successful edits (``removals``: verify_absence)."""
    removed_paths: list[str] = field(default_factory=list)
    """Paths the segment's writes deleted or moved away (``removals``)."""
    inherit: bool = False
    """The skill is the launching segment's, not known yet (a sub-agent's first stretch)."""
    tentative: bool = False
    """Opened by a ``Skill`` call or command frame whose launch is not confirmed yet: not handed
    out, and undone when the launch fails."""
    emitted: bool = False
    """Handed out by ``take_changed``: its skill name is final."""
    started_by: str = ""
    start_line: int = 0
    end_line: int = 0
    # failed_search de-duplication and repeated_failure runs
    last_kept_miss: tuple[str, str] | None = None
    run_tool: str = ""
    run_length: int = 0
    run_first_turn: int = 0
    run_held: list[tuple[int, int, str, float | None, int]] = field(default_factory=list)
    """Answered calls waiting for an earlier call of their message (``runs.py``: call order)."""
    meta: Any = None
    """What the agent did at this segment's gaps (``metacog.episodes.SegmentMeta``; None before any)."""

    @property
    def counts(self) -> bool:
        return self.assistant_parts > 0 or self.tool_calls > 0

    def touch(self, timestamp: float | None, line: int) -> None:
        self.end_line = max(self.end_line, line)
        if not self.start_line:
            self.start_line = line
        if timestamp is None:
            return
        if self.first_ts is None or timestamp < self.first_ts:
            self.first_ts = timestamp
        if self.last_ts is None or timestamp > self.last_ts:
            self.last_ts = timestamp

    def absorb(self, other: Segment) -> None:
        """Take in a segment that should never have been cut from this one (a failed launch)."""
        self.assistant_parts += other.assistant_parts
        self.turns += other.turns
        self.tool_calls += other.tool_calls
        self.tool_answered += other.tool_answered
        self.tool_failures += other.tool_failures
        self.tool_cancelled += other.tool_cancelled
        self.tokens = [a + b for a, b in zip(self.tokens, other.tokens, strict=True)]
        self.signals.extend(other.signals)
        self.accessed |= other.accessed
        self.user_given.extend(other.user_given)
        self.run_held.extend(other.run_held)  # walked with this segment's next answer
        self.hedges.extend(other.hedges)
        self.hedges_asked += other.hedges_asked
        self.tallies.update(other.tallies)
        self.models.update(other.models)
        self.removed_texts = (self.removed_texts + other.removed_texts)[-32:]
        self.removed_paths = (self.removed_paths + other.removed_paths)[-64:]
        if other.meta is not None:
            if self.meta is None:
                self.meta = other.meta
            else:
                self.meta.absorb(other.meta)
        self._prune_hedges()
        for timestamp in (other.first_ts, other.last_ts):
            self.touch(timestamp, other.end_line)

    # --- hedging: at most one signal per segment, the strongest verdict ------------------------

    def strongest_hedge(self) -> Signal | None:
        best: Signal | None = None
        for signal, _ in self.hedges:
            if signal.evidence["is_uncertainty"] and (
                best is None or signal.evidence["confidence"] > best.evidence["confidence"]
            ):
                best = signal
        return best

    def offer_hedge(self, signal: Signal, awaited: bool = False) -> None:
        """A judged candidate (``awaited``: a refined verdict will follow)."""
        self.hedges.append((signal, awaited))
        self._prune_hedges()

    def settle_hedge(self, signal: Signal) -> bool:
        """The refined verdict for a candidate offered as awaited; True when the strongest changed."""
        before = self.strongest_hedge()
        same = (signal.line, signal.evidence["sentence"])
        self.hedges = [(s, a) for s, a in self.hedges if not (a and (s.line, s.evidence["sentence"]) == same)]
        self.hedges.append((signal, False))
        self._prune_hedges()
        return self.strongest_hedge() != before

    def _prune_hedges(self) -> None:
        settled = [s for s, awaited in self.hedges if not awaited and s.evidence["is_uncertainty"]]
        best = max(settled, key=lambda s: s.evidence["confidence"], default=None)
        self.hedges = [(s, a) for s, a in self.hedges if a or s is best]

    def _signals(self) -> tuple[Signal, ...]:
        hedge = self.strongest_hedge()
        if hedge is None:
            return tuple(self.signals)
        at = next((i for i, s in enumerate(self.signals) if s.line > hedge.line), len(self.signals))
        return (*self.signals[:at], hedge, *self.signals[at:])

    def _tallies(self) -> tuple[tuple[str, int], ...]:
        """Its tallies, with its metacognition figures as the stream's end here would decide them."""
        tallies = self.tallies
        if self.meta is not None:
            tallies = tallies + Counter(self.meta.figures(self.end_line))
        return tuple(sorted((k, v) for k, v in tallies.items() if v)) if tallies else ()

    def summary(self, stream_key: str, inherit: tuple[str, ...] = (), agent: str = CLAUDE_CODE) -> SegmentSummary:
        """The figures now; ``stream_key`` names the stream by its content."""
        signals = self._signals()
        return SegmentSummary(
            key=f"{self.session_id or '-'}|{stream_key}|{self.ordinal}",
            stream=self.stream,
            role=self.role,
            skill=self.skill,
            session_id=self.session_id,
            cwd=self.cwd,
            first_ts=self.first_ts,
            last_ts=self.last_ts,
            assistant_parts=self.assistant_parts,
            turns=self.turns,
            tool_calls=self.tool_calls,
            tool_answered=self.tool_answered,
            tool_failures=self.tool_failures,
            tool_cancelled=self.tool_cancelled,
            tokens=(self.tokens[0], self.tokens[1], self.tokens[2], self.tokens[3]),
            signals=signals,
            accessed=frozenset(self.accessed),
            open=self.open,
            user_given=tuple(self.user_given),
            inherit=inherit if self.inherit else (),
            start_line=self.start_line,
            end_line=self.end_line,
            agent=agent,
            tallies=self._tallies(),
            model=min(self.models, key=lambda m: (-self.models[m], m)) if self.models else "",
            episodes=self.meta.views(self.end_line, signals) if self.meta is not None else (),
        )
