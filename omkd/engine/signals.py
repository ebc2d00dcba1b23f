"""The vocabulary of gap detection: a signal, a tool call's outcome and verdict, short contexts.

The detectors that produce them are ``judge.py`` (tool calls), ``shell.py`` (shell commands)
and ``markers.py`` (assistant text); the rules they apply are the tables in ``patterns.py``.
State that spans several events (de-duplication, runs of failures, one hedge per segment) is
kept by the segment in ``segment.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from omkd.engine import patterns
from omkd.engine.plain import fields_state, set_fields_state

CONTEXT_CHARS: Final = 160
HEAD_FACTOR: Final = 4
"""``collapse`` reads a long text's first ``HEAD_FACTOR`` × limit characters first."""


@dataclass(slots=True, frozen=True)
class Signal:
    """One knowledge-gap signal, before it is tied to a skill and session by the fold."""

    type: str
    turn: int
    timestamp: float | None
    context: str
    evidence: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    """The line of its stream where it was found (1-based; 0 when not known)."""

    @property
    def weight(self) -> float:
        return patterns.SIGNAL_WEIGHTS[self.type]

    def __getstate__(self) -> list[object]:
        return fields_state(self)

    def __setstate__(self, state: list[object]) -> None:
        set_fields_state(self, state)


class Outcome(Enum):
    """What a tool call came to."""

    OK = "ok"
    CANCELLED = "cancelled"  # rejected, denied, sibling errored, interrupted: never a gap, not a failure
    REFUSED = "refused"  # the harness would not run it: a tool fault (a failure), never a gap
    FAILED = "failed"  # an error that is not a search finding nothing
    MISSED = "missed"  # a search or probe that found nothing: failed_search


@dataclass(slots=True, frozen=True)
class Verdict:
    outcome: Outcome
    search_key: str = ""
    """The call's pattern, path, URL, query or command: what was looked for."""
    user_given: str | None = None
    """What of a miss the person's own earlier prompts may excuse (``SearchRule.user_given``)."""
    rule: str = ""
    """The rule row that decided (shown by ``omkd explain``)."""

    def __getstate__(self) -> list[object]:
        return fields_state(self)

    def __setstate__(self, state: list[object]) -> None:
        set_fields_state(self, state)


def collapse(text: str, limit: int = CONTEXT_CHARS) -> str:
    """Whitespace collapsed, cut to ``limit`` characters."""
    if len(text) > HEAD_FACTOR * limit:
        # A long text (a command with a here-document, a tool's whole output): collapse its head
        # alone when that already holds more than ``limit`` characters. Collapsing a prefix gives
        # a prefix of the collapsed whole (a run of whitespace cut short is still one space), so
        # the cut is the same.
        head = " ".join(text[: HEAD_FACTOR * limit].split())
        if len(head) > limit:
            return head[: limit - 1] + "…"
    # split() cuts at the characters ``\s`` matches (``str.isspace``) and drops the ends: the same
    # as replacing each run by a space and stripping, without a regular expression
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def context_around(text: str, start: int, end: int) -> str:
    """A short window of ``text`` around ``[start, end)``."""
    lead = max(0, start - 60)
    return collapse(text[lead : end + 100])
