"""Typed events: what a transcript record means to omkd, whatever format wrote it.

A format adapter turns each record into zero or more of these; the segmenter consumes
them in order. Timestamps are event time (seconds since the epoch, from the transcript),
``None`` where the record carried none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Tokens = tuple[int, int, int, int]
"""(input, output, cache read, cache creation)."""

NO_TOKENS: Tokens = (0, 0, 0, 0)


@dataclass(slots=True, frozen=True)
class UserPrompt:
    """A prompt the person typed."""

    timestamp: float | None
    text: str


@dataclass(slots=True, frozen=True)
class CommandInvoked:
    """A slash-command frame (``<command-name>/X</command-name>``); ``name`` as written."""

    timestamp: float | None
    name: str


@dataclass(slots=True, frozen=True)
class AssistantText:
    """One text (or thinking) part of an assistant message."""

    timestamp: float | None
    message_id: str
    text: str
    thinking: bool
    attribution_skill: str | None
    tokens: Tokens


@dataclass(slots=True, frozen=True)
class ToolCall:
    """One ``tool_use`` part of an assistant message."""

    timestamp: float | None
    message_id: str
    call_id: str
    tool: str
    input: dict[str, Any]
    attribution_skill: str | None
    tokens: Tokens


@dataclass(slots=True, frozen=True)
class ToolResult:
    """The answer to a tool call; ``text`` is the result content flattened to text."""

    timestamp: float | None
    call_id: str
    is_error: bool
    text: str
    detail: Any = field(default=None)
    """The structured ``toolUseResult`` when the transcript has one."""


@dataclass(slots=True, frozen=True)
class Compaction:
    """The conversation was compacted (boundary record or summary prompt)."""

    timestamp: float | None


Event = UserPrompt | CommandInvoked | AssistantText | ToolCall | ToolResult | Compaction
