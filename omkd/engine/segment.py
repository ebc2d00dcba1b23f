"""Cut one stream into per-skill segments and collect each segment's signals.

``StreamSegmenter`` is a state machine fed one event at a time, in file order. It never
looks ahead and has no end-of-stream step that changes figures, so the figures after N
lines are the same whether the lines came in one pass or as a live tail in any chunking.
A tool result is credited to the segment of the call it answers, even when a cut happened
in between. Runs of failed searches are walked in the order the results arrive (the call
order, except for parallel calls) so a run never waits for a result that may never come.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections import deque
from dataclasses import dataclass
from typing import Final, Protocol

from omkd.engine import judge, markers, patterns, skills
from omkd.engine.counters import StreamCounters
from omkd.engine.events import (
    AssistantText,
    CommandInvoked,
    Compaction,
    Event,
    ToolCall,
    ToolResult,
    Usage,
    UserPrompt,
    tokens_of,
)
from omkd.engine.signals import Outcome, Signal, collapse, context_around
from omkd.engine.summary import Segment, SegmentSummary

MAX_PROMPT_CHARS: Final = 65_536
"""Typed-prompt text kept per stream (the newest) for the user-given-path rule."""
RECENT_MESSAGES: Final = 64
"""Assistant message ids remembered per stream to count a message's tokens once."""

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

    @property
    def stream_key(self) -> str | None:
        """What tells this stream apart by its content (a sub-agent's id, else its first uuid)."""


@dataclass(slots=True)
class _PendingCall:
    segment: Segment
    call: ToolCall
    turn: int


class StreamSegmenter:
    """Segments of one stream. ``take_changed`` hands out the segments that changed."""

    def __init__(
        self, stream: str, role: str, context: StreamContext, rules: SegmenterRules, counters: StreamCounters
    ) -> None:
        self.stream = stream
        self.role = role
        self._context = context
        self._rules = rules
        self.counters = counters
        self._hedging = markers.HedgingMatcher(rules.extra_hedging)
        self._ordinal = 0
        self._pending: dict[str, _PendingCall] = {}
        self._prompts: deque[str] = deque()
        self._prompt_chars = 0
        self._recent_messages: deque[str] = deque()
        self._recent_set: set[str] = set()
        self._turn = 0
        self._changed: dict[int, Segment] = {}
        self.current = self._open(skills.GENERAL)

    def __getstate__(self) -> dict[str, object]:
        state = {name: getattr(self, name) for name in vars(self)}
        del state["_hedging"]  # compiled patterns are rebuilt from the rules
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        vars(self).update(state)
        self._hedging = markers.HedgingMatcher(self._rules.extra_hedging)

    # --- segment lifecycle -----------------------------------------------------------

    def _open(self, skill: str) -> Segment:
        segment = Segment(self.stream, self.role, self._ordinal, skill)
        self._ordinal += 1
        segment.session_id = self._context.session_id
        segment.cwd = self._context.cwd
        return segment

    def _cut(self, skill: str) -> None:
        closing = self.current
        closing.open = False
        if closing.counts:
            self._changed[closing.ordinal] = closing
        self.current = self._open(skill)

    def _start_skill(self, raw: str) -> None:
        name = skills.normalise(raw)
        if not skills.is_valid(name):
            self.counters.invalid_skill_names += 1
            return
        if name != self.current.skill:
            self._cut(name)

    def take_changed(self) -> list[SegmentSummary]:
        """Summaries of the counted segments that changed since the last call."""
        stream_key = self._context.stream_key or self.stream
        changed = [s.summary(stream_key) for s in self._changed.values() if s.counts]
        self._changed.clear()
        return changed

    def close(self) -> list[SegmentSummary]:
        """The stream ended (idle, deleted, end of a batch read): close its open segment.

        Closing changes no figure; pending calls are forgotten.
        """
        self._cut(skills.GENERAL)
        self._pending.clear()
        return self.take_changed()

    @property
    def pending_calls(self) -> int:
        return len(self._pending)

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
            self.counters.compactions += 1

    def _prompt(self, event: UserPrompt) -> None:
        self._remember_prompt(event.text)
        if self.current.skill != skills.GENERAL:
            self._cut(skills.GENERAL)
        self._touch(self.current, event.timestamp)

    def _remember_prompt(self, text: str) -> None:
        text = text[-MAX_PROMPT_CHARS:]
        self._prompts.append(text)
        self._prompt_chars += len(text)
        while self._prompt_chars > MAX_PROMPT_CHARS:
            self._prompt_chars -= len(self._prompts.popleft())

    def _command(self, event: CommandInvoked) -> None:
        name = skills.normalise(event.name)
        if name.lower() in self._rules.builtin_commands:
            if name.lower() == "clear":
                self._cut(skills.GENERAL)
        else:
            self._start_skill(name)
        self._touch(self.current, event.timestamp)

    def _touch(self, segment: Segment, timestamp: float | None) -> None:
        segment.touch(timestamp)
        self._changed[segment.ordinal] = segment

    def _assistant(self, message_id: str, usage: Usage, timestamp: float | None) -> Segment:
        segment = self.current
        segment.assistant_parts += 1
        if message_id not in self._recent_set:
            self._recent_set.add(message_id)
            self._recent_messages.append(message_id)
            if len(self._recent_messages) > RECENT_MESSAGES:
                self._recent_set.discard(self._recent_messages.popleft())
            self._turn += 1
            segment.turns += 1
            tokens = tokens_of(usage)
            totals = segment.tokens
            totals[0] += tokens[0]
            totals[1] += tokens[1]
            totals[2] += tokens[2]
            totals[3] += tokens[3]
        if segment.session_id is None:
            segment.session_id = self._context.session_id
        if segment.cwd is None:
            segment.cwd = self._context.cwd
        self._touch(segment, timestamp)
        return segment

    def _assistant_text(self, event: AssistantText) -> None:
        if event.attribution_skill:
            self._start_skill(event.attribution_skill)
        segment = self._assistant(event.message_id, event.usage, event.timestamp)
        if event.thinking and not self._rules.include_thinking:
            return
        text = event.text
        if not text:
            return
        for match in markers.find_markers(text):
            segment.signals.append(self._text_signal(patterns.EXPLICIT_MARKER, event, match))
        if not segment.hedged:
            hedge = self._hedging.search(text)
            if hedge is not None:
                segment.hedged = True
                segment.signals.append(self._text_signal(patterns.HEDGING, event, hedge))

    def _text_signal(self, kind: str, event: AssistantText, match: re.Match[str]) -> Signal:
        context = context_around(event.text, match.start(), match.end())
        return Signal(kind, self._turn, event.timestamp, context, {"text": match.group(0), "thinking": event.thinking})

    def _tool_call(self, event: ToolCall) -> None:
        if event.attribution_skill:
            self._start_skill(event.attribution_skill)
        if event.tool == "Skill":
            name = event.input.get("skill")
            if isinstance(name, str):
                self._start_skill(name)
        elif self.current.skill == skills.GENERAL:
            from_file = judge.skill_file_read(event)
            if from_file is not None:
                self._start_skill(from_file)
        segment = self._assistant(event.message_id, event.usage, event.timestamp)
        segment.tool_calls += 1
        self._pending[event.call_id] = _PendingCall(segment, event, self._turn)

    def _tool_result(self, event: ToolResult) -> None:
        pending = self._pending.pop(event.call_id, None)
        if pending is None:
            self.counters.orphan_results += 1
            return
        segment, call = pending.segment, pending.call
        self._touch(segment, event.timestamp)
        segment.tool_answered += 1
        verdict = judge.judge(call, event, self._rules.extra_search_tools)
        outcome = verdict.outcome
        failed_tool: str | None = None
        if outcome is Outcome.CANCELLED:
            segment.tool_cancelled += 1
        elif outcome is Outcome.OK:
            for path in judge.read_paths(call):
                segment.accessed.add(self._absolute(path))
        else:
            if event.is_error:
                segment.tool_failures += 1
            if outcome is Outcome.MISSED:
                if verdict.user_given and self._user_gave(verdict.search_key):
                    segment.user_given.append(verdict.search_key)
                else:
                    failed_tool = call.tool
                    self._failed_search(segment, pending, event, verdict.search_key)
        segment.note_outcome(failed_tool, pending.turn, event.timestamp)

    def _failed_search(self, segment: Segment, pending: _PendingCall, result: ToolResult, key: str) -> None:
        identity = (pending.call.tool, key)
        if identity == segment.last_kept_miss:
            segment.deduplicated += 1
            return
        segment.last_kept_miss = identity
        answer = collapse(result.text, 80) or "(no output)"
        segment.signals.append(
            Signal(
                patterns.FAILED_SEARCH,
                pending.turn,
                result.timestamp,
                collapse(f"{pending.call.tool} {key} -> {answer}"),
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
        if path.startswith("/"):
            return posixpath.normpath(path)
        if _WINDOWS_PATH.match(path):
            return path
        cwd = self._context.cwd
        if cwd and cwd.startswith("/"):
            return posixpath.normpath(posixpath.join(cwd, path))
        return path
