"""The segmenter's interfaces: the rules it is configured by, what it reads about its stream,
and whom it tells what it decided.

``StreamContext`` is the format adapter's view of the stream (cwd, session, the line being read);
``Observer`` is ``omkd explain``'s ear (None in normal runs, so deciding costs nothing extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from omkd.engine import skills
from omkd.engine.calls import CallObserver
from omkd.engine.cues import Candidate
from omkd.engine.hedge_judge import HedgeVerdict
from omkd.engine.metacog import rules as metacog_rules
from omkd.engine.plain import fields_state, set_fields_state
from omkd.engine.summary import Segment


@dataclass(frozen=True, slots=True)
class SegmenterRules:
    """The configurable parts of segmentation and detection."""

    builtin_commands: frozenset[str] = skills.BUILTIN_COMMANDS
    hedging: bool = True
    include_thinking: bool = False
    """Hedging candidates are also looked for in ``thinking`` parts (marked so)."""
    extra_hedging: tuple[str, ...] = ()
    """Extra cues of the recall net (regular expressions)."""
    extra_search_tools: frozenset[str] = frozenset()
    metacog: bool = True
    """Follow what the agent did at each gap (spec §8; ``metacog.enabled``)."""
    window_calls: int = metacog_rules.WINDOW_CALLS
    """The follow-up window's call cap (``metacog.window_calls``)."""
    unchecked_write_load: float = metacog_rules.UNCHECKED_WRITE_LOAD
    """M4's threshold (``metacog.unchecked_write_load``)."""

    def __getstate__(self) -> list[object]:
        return fields_state(self)

    def __setstate__(self, state: list[object]) -> None:
        set_fields_state(self, state)


class StreamContext(Protocol):
    """What the segmenter needs to know about the stream beyond its events."""

    @property
    def cwd(self) -> str | None: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def stream_key(self) -> str | None:
        """What tells this stream apart by its content (a sub-agent's id, else its first uuid)."""

    @property
    def agent_id(self) -> str | None: ...
    @property
    def agent(self) -> str:
        """The agent that writes this format (``formats.AGENTS``)."""

    @property
    def line(self) -> int:
        """The line the events being handled come from."""

    @property
    def copying(self) -> bool:
        """The events replay a fork's copy of its parent's conversation."""

    @property
    def subagent(self) -> bool:
        """The stream's own records say a sub-agent wrote it (Codex's ``session_meta.source``, Gemini's
        ``kind``): its user messages come from the agent that launched it, not the person."""


class Observer(CallObserver, Protocol):
    """Told every decision, for ``omkd explain`` (None in normal runs)."""

    def segment_started(self, segment: Segment, rule: str, line: int) -> None: ...
    def segment_ended(self, segment: Segment, reason: str, line: int) -> None: ...
    def segment_undone(self, segment: Segment, into: Segment, reason: str, line: int) -> None: ...
    def text_candidate(self, candidate: Candidate, verdict: HedgeVerdict, line: int) -> None: ...
    def uncovered_text(self, language: str, line: int, thinking: bool) -> None: ...
    def assistant_record(self, segment: Segment, line: int) -> None: ...
