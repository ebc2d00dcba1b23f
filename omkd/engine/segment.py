"""Cut one stream into per-skill segments and collect each segment's signals (spec §2-§3).

``StreamSegmenter`` is a state machine fed one event at a time, in file order. It never
looks ahead, so feeding a file whole or a live tail record by record gives the same
segments. A tool result is credited to the segment of the call it answers, even when a
cut happened in between.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from dataclasses import dataclass, field
from typing import Final, Protocol

from omkd.engine import patterns, signals, skills
from omkd.engine.events import (
    AssistantText,
    CommandInvoked,
    Compaction,
    Event,
    ToolCall,
    ToolResult,
    UserPrompt,
)
from omkd.engine.signals import Outcome, Signal

MAX_PROMPT_CHARS: Final = 1_000_000
"""Typed-prompt text kept per stream for the user-given-path rule."""

_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]")


@dataclass(frozen=True, slots=True)
class SegmenterRules:
    """The configurable parts of segmentation and detection."""

    builtin_commands: frozenset[str] = skills.BUILTIN_COMMANDS
    include_thinking: bool = False
    extra_hedging: tuple[str, ...] = ()
    extra_search_tools: frozenset[str] = frozenset()


class StreamContext(Protocol):
    """What the segmenter needs to know about the stream beyond its events."""

    @property
    def cwd(self) -> str | None: ...

    @property
    def session_id(self) -> str | None: ...


@dataclass(slots=True)
class Segment:
    """A contiguous stretch of one stream attributed to one skill."""

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
    user_given_misses: int = 0
    deduplicated: int = 0
    hedged: bool = False
    # failed_search de-duplication and repeated_failure runs (spec §3.1, §3.4)
    _last_kept_miss: tuple[str, str] | None = None
    _outcomes: list[str | None] = field(default_factory=list)
    _cursor: int = 0
    _run_tool: str = ""
    _run_length: int = 0
    _run_first_turn: int = 0
    _run_first_ts: float | None = None

    @property
    def counts(self) -> bool:
        """Empty segments (no assistant record, no tool call) are dropped."""
        return self.assistant_parts > 0 or self.tool_calls > 0

    @property
    def key(self) -> str:
        """Stable identity: the same for a batch pass and a live tail of the same file."""
        return f"{self.session_id or '-'}|{self.stream}|{self.ordinal}"

    @property
    def weight(self) -> float:
        """The max weight of the segment's signals (0 without signals)."""
        return max((s.weight for s in self.signals), default=0.0)

    @property
    def duration(self) -> float:
        if self.first_ts is None or self.last_ts is None:
            return 0.0
        return self.last_ts - self.first_ts

    def touch(self, timestamp: float | None) -> None:
        if timestamp is None:
            return
        if self.first_ts is None or timestamp < self.first_ts:
            self.first_ts = timestamp
        if self.last_ts is None or timestamp > self.last_ts:
            self.last_ts = timestamp

    def record_outcome(self, index: int, failed_tool: str | None, turn: int, timestamp: float | None) -> None:
        """Resolve call ``index`` (``failed_tool`` set for a failed search) and walk the runs."""
        self._outcomes[index] = failed_tool if failed_tool is not None else ""
        self._walk_runs(turn, timestamp)

    def flush_runs(self) -> None:
        """At the end of the stream an unanswered call ends any run."""
        for index in range(self._cursor, len(self._outcomes)):
            if self._outcomes[index] is None:
                self._outcomes[index] = ""
        self._walk_runs(0, None)

    def _walk_runs(self, turn: int, timestamp: float | None) -> None:
        outcomes = self._outcomes
        while self._cursor < len(outcomes) and outcomes[self._cursor] is not None:
            tool = outcomes[self._cursor]
            self._cursor += 1
            if not tool:
                self._run_tool, self._run_length = "", 0
                continue
            if tool == self._run_tool:
                self._run_length += 1
            else:
                self._run_tool, self._run_length = tool, 1
                self._run_first_turn, self._run_first_ts = turn, timestamp
            if self._run_length == 3:
                self.signals.append(
                    Signal(
                        patterns.REPEATED_FAILURE,
                        self._run_first_turn,
                        timestamp,
                        f"{tool} found nothing 3 times in a row",
                        {"tool": tool, "count": 3, "first_turn": self._run_first_turn},
                    )
                )


@dataclass(slots=True)
class _PendingCall:
    segment: Segment
    call: ToolCall
    index: int
    turn: int


class StreamSegmenter:
    """Segments of one stream; finished ones are handed out by ``take_closed``."""

    def __init__(self, stream: str, role: str, context: StreamContext, rules: SegmenterRules) -> None:
        self.stream = stream
        self.role = role
        self._context = context
        self._rules = rules
        self._hedging = patterns.compile_hedging(rules.extra_hedging)
        self._ordinal = 0
        self._pending: dict[str, _PendingCall] = {}
        self._prompts: list[str] = []
        self._prompt_chars = 0
        self._seen_messages: set[str] = set()
        self._turn = 0
        self._closed: list[Segment] = []
        self._finished: list[Segment] = []
        self.invalid_skill_names = 0
        self.orphan_results = 0
        self.compactions = 0
        self.current = self._open(skills.GENERAL)

    # --- segment lifecycle -----------------------------------------------------------

    def _open(self, skill: str) -> Segment:
        segment = Segment(self.stream, self.role, self._ordinal, skill)
        self._ordinal += 1
        segment.session_id = self._context.session_id
        segment.cwd = self._context.cwd
        return segment

    def _cut(self, skill: str) -> None:
        if self.current.counts:
            self._closed.append(self.current)
        self.current = self._open(skill)

    def _start_skill(self, raw: str) -> None:
        name = skills.normalise(raw)
        if not skills.is_valid(name):
            self.invalid_skill_names += 1
            return
        if name != self.current.skill:
            self._cut(name)

    def take_closed(self) -> list[Segment]:
        """Segments closed since the last call (results may still arrive for them)."""
        closed, self._closed = self._closed, []
        return closed

    def finish(self) -> list[Segment]:
        """End of stream: close the current segment and end every run."""
        if self.current.counts:
            self._closed.append(self.current)
        self.current = self._open(skills.GENERAL)
        closed = self.take_closed()
        for pending in self._pending.values():
            pending.segment.flush_runs()
        for segment in closed:
            segment.flush_runs()
        self._pending.clear()
        return closed

    # --- events ------------------------------------------------------------------------

    def handle(self, event: Event) -> None:
        kind = type(event)
        if kind is AssistantText:
            self._assistant_text(event)  # type: ignore[arg-type]
        elif kind is ToolCall:
            self._tool_call(event)  # type: ignore[arg-type]
        elif kind is ToolResult:
            self._tool_result(event)  # type: ignore[arg-type]
        elif kind is UserPrompt:
            self._prompt(event)  # type: ignore[arg-type]
        elif kind is CommandInvoked:
            self._command(event)  # type: ignore[arg-type]
        elif kind is Compaction:
            self.compactions += 1

    def _prompt(self, event: UserPrompt) -> None:
        if self._prompt_chars < MAX_PROMPT_CHARS:
            self._prompts.append(event.text)
            self._prompt_chars += len(event.text)
        if self.current.skill != skills.GENERAL:
            self._cut(skills.GENERAL)
        self.current.touch(event.timestamp)

    def _command(self, event: CommandInvoked) -> None:
        name = skills.normalise(event.name)
        if name.lower() in self._rules.builtin_commands:
            if name.lower() == "clear":
                self._cut(skills.GENERAL)
        else:
            self._start_skill(name)
        self.current.touch(event.timestamp)

    def _assistant(self, message_id: str, tokens: tuple[int, int, int, int], timestamp: float | None) -> Segment:
        segment = self.current
        segment.assistant_parts += 1
        if message_id not in self._seen_messages:
            self._seen_messages.add(message_id)
            self._turn += 1
            segment.turns += 1
            totals = segment.tokens
            totals[0] += tokens[0]
            totals[1] += tokens[1]
            totals[2] += tokens[2]
            totals[3] += tokens[3]
        segment.touch(timestamp)
        if segment.session_id is None:
            segment.session_id = self._context.session_id
        if segment.cwd is None:
            segment.cwd = self._context.cwd
        return segment

    def _assistant_text(self, event: AssistantText) -> None:
        if event.attribution_skill:
            self._start_skill(event.attribution_skill)
        segment = self._assistant(event.message_id, event.tokens, event.timestamp)
        if event.thinking and not self._rules.include_thinking:
            return
        text = event.text
        if not text:
            return
        for match in signals.find_markers(text):
            segment.signals.append(
                Signal(
                    patterns.EXPLICIT_MARKER,
                    self._turn,
                    event.timestamp,
                    signals.context_around(text, match.start(), match.end()),
                    {"text": match.group(0), "thinking": event.thinking},
                )
            )
        if not segment.hedged:
            hedge = self._hedging.search(text)
            if hedge is not None:
                segment.hedged = True
                segment.signals.append(
                    Signal(
                        patterns.HEDGING,
                        self._turn,
                        event.timestamp,
                        signals.context_around(text, hedge.start(), hedge.end()),
                        {"text": hedge.group(0), "thinking": event.thinking},
                    )
                )

    def _tool_call(self, event: ToolCall) -> None:
        if event.attribution_skill:
            self._start_skill(event.attribution_skill)
        if event.tool == "Skill":
            name = event.input.get("skill")
            if isinstance(name, str):
                self._start_skill(name)
        elif self.current.skill == skills.GENERAL:
            from_file = signals.skill_file_read(event)
            if from_file is not None:
                self._start_skill(from_file)
        segment = self._assistant(event.message_id, event.tokens, event.timestamp)
        segment.tool_calls += 1
        segment._outcomes.append(None)
        self._pending[event.call_id] = _PendingCall(segment, event, len(segment._outcomes) - 1, self._turn)

    def _tool_result(self, event: ToolResult) -> None:
        pending = self._pending.pop(event.call_id, None)
        if pending is None:
            self.orphan_results += 1
            return
        segment, call = pending.segment, pending.call
        segment.touch(event.timestamp)
        segment.tool_answered += 1
        verdict = signals.judge(call, event, self._rules.extra_search_tools)
        outcome = verdict.outcome
        failed_tool: str | None = None
        if outcome is Outcome.CANCELLED:
            segment.tool_cancelled += 1
        elif outcome is Outcome.OK:
            for path in signals.read_paths(call):
                segment.accessed.add(self._absolute(path))
        else:
            if event.is_error:
                segment.tool_failures += 1
            if outcome is Outcome.MISSED:
                if call.tool == "Read" and self._user_gave(verdict.search_key):
                    segment.user_given_misses += 1
                else:
                    failed_tool = call.tool
                    self._failed_search(segment, pending, event, verdict.search_key)
        segment.record_outcome(pending.index, failed_tool, pending.turn, event.timestamp)

    def _failed_search(self, segment: Segment, pending: _PendingCall, result: ToolResult, key: str) -> None:
        identity = (pending.call.tool, key)
        if identity == segment._last_kept_miss:
            segment.deduplicated += 1
            return
        segment._last_kept_miss = identity
        answer = signals.collapse(result.text, 80) or "(no output)"
        segment.signals.append(
            Signal(
                patterns.FAILED_SEARCH,
                pending.turn,
                result.timestamp,
                signals.collapse(f"{pending.call.tool} {key} -> {answer}"),
                {"tool": pending.call.tool, "pattern": key},
            )
        )

    def _user_gave(self, path: str) -> bool:
        """The person named this path (or its file name) in an earlier typed prompt."""
        if not path:
            return False
        base = ntpath.basename(path) if _WINDOWS_PATH.match(path) else posixpath.basename(path)
        return any(path in prompt or (base and base in prompt) for prompt in self._prompts)

    def _absolute(self, path: str) -> str:
        if path.startswith("/") or _WINDOWS_PATH.match(path):
            return posixpath.normpath(path) if path.startswith("/") else path
        cwd = self._context.cwd
        if cwd and cwd.startswith("/"):
            return posixpath.normpath(posixpath.join(cwd, path))
        return path
