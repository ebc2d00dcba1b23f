"""Typed events: what a transcript record means to omkd, whatever format wrote it.

A format adapter turns each record into zero or more of these; the segmenter consumes
them in order. They are named tuples: a scan makes one per content part, and a tuple is
several times cheaper to build than a frozen dataclass. Timestamps are event time
(seconds since the epoch, from the transcript), ``None`` where the record had none.
"""

from __future__ import annotations

from typing import Any, NamedTuple

Tokens = tuple[int, int, int, int]
"""(input, output, cache read, cache creation)."""

NO_TOKENS: Tokens = (0, 0, 0, 0)

Usage = dict[str, Any] | None
"""The message's ``usage`` object as written: repeated on every record of a message, so
it is turned into ``Tokens`` only for the first record of each message (``tokens_of``)."""


def tokens_of(usage: Usage) -> Tokens:
    if usage is None:
        return NO_TOKENS
    values = (
        usage.get("input_tokens", 0),
        usage.get("output_tokens", 0),
        usage.get("cache_read_input_tokens", 0),
        usage.get("cache_creation_input_tokens", 0),
    )
    return tuple(v if isinstance(v, int) else 0 for v in values)  # type: ignore[return-value]


class UserPrompt(NamedTuple):
    """A prompt the person typed."""

    timestamp: float | None
    text: str


class CommandInvoked(NamedTuple):
    """A slash-command frame (``<command-name>/X</command-name>``); ``name`` as written."""

    timestamp: float | None
    name: str


class AssistantText(NamedTuple):
    """One text (or thinking) part of an assistant message."""

    timestamp: float | None
    message_id: str
    text: str
    thinking: bool
    attribution_skill: str | None
    usage: Usage
    model: str = ""
    """The model that wrote the message (``message.model``), "" where the record does not say."""


class ToolCall(NamedTuple):
    """One ``tool_use`` part of an assistant message."""

    timestamp: float | None
    message_id: str
    call_id: str
    tool: str
    input: dict[str, Any]
    attribution_skill: str | None
    usage: Usage
    model: str = ""
    """The model that wrote the message (``message.model``), "" where the record does not say."""


class ToolResult(NamedTuple):
    """The answer to a tool call; ``text`` is the result content flattened to text."""

    timestamp: float | None
    call_id: str
    is_error: bool
    text: str
    detail: Any = None
    """The structured ``toolUseResult`` when the transcript has one."""


class Compaction(NamedTuple):
    """The conversation was compacted (boundary record or summary prompt)."""

    timestamp: float | None


class CommandFailed(NamedTuple):
    """A command frame was answered only by ``<local-command-stderr>``: it did not run."""

    timestamp: float | None


class Interrupted(NamedTuple):
    """``[Request interrupted by user…]``: the person stopped the agent. Not a typed prompt (the
    segment goes on, §2), but the person's turn for a follow-up window (§8.4.3)."""

    timestamp: float | None


class SkillBody(NamedTuple):
    """The body a skill injects after it launches: ``Base directory for this skill: <dir>``."""

    timestamp: float | None
    call_id: str | None
    """The ``Skill`` call that injected it (``sourceToolUseID``), when the record says."""
    base_dir: str


class SidechainPrompt(NamedTuple):
    """A prompt in a sub-agent stream: written by the launching agent, not typed by the person."""

    timestamp: float | None
    text: str


class ForkQuestion(NamedTuple):
    """A side-question fork's own question: the copied conversation ends here."""

    timestamp: float | None


class AgentLink(NamedTuple):
    """A parent stream names the sub-agent a call launched (``progress`` mirrors carry it)."""

    timestamp: float | None
    call_id: str
    agent_id: str


Event = (
    UserPrompt
    | CommandInvoked
    | AssistantText
    | ToolCall
    | ToolResult
    | Compaction
    | CommandFailed
    | Interrupted
    | SkillBody
    | SidechainPrompt
    | ForkQuestion
    | AgentLink
)
