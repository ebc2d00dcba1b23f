"""Claude Code transcript records -> omkd events.

Covers every Claude Code version seen (1.0.17 to 2.1.22x): string or list content, one
part per assistant record, ``tool_result`` parts with or without ``is_error``,
``toolUseResult`` of any shape, command frames in user or ``system`` records, compaction in
its three forms, ``progress``/``agent_progress`` mirrors (skipped: the sub-agent's own file
is read as its own stream). A line that is not JSON, not UTF-8 or not an object is counted
by reason and skipped; record types the adapter does not know are counted and ignored, and
so are ``user``/``assistant`` records without Claude Code's ``message`` envelope (another
agent's format, such as a Gemini CLI chat).

A side-question sub-agent (``/btw``) starts with a copy of its parent's conversation; the
copied records are skipped (the parent counts them) up to the side question itself.
"""

from __future__ import annotations

from typing import Any, Final

from omkd.engine import patterns
from omkd.engine.counters import StreamCounters
from omkd.engine.events import (
    AgentLink,
    AssistantText,
    CommandFailed,
    CommandInvoked,
    Compaction,
    Event,
    ForkQuestion,
    Interrupted,
    SidechainPrompt,
    SkillBody,
    ToolCall,
    ToolResult,
    UserPrompt,
)
from omkd.engine.formats import CLAUDE_CODE
from omkd.engine.formats.common import (
    BAD_SHAPE,
    AdapterBase,
    agent_link,
    bounded,
    flatten_text,
    model_name,
    parse_timestamp,
    quiet_type,
)

# Record types that carry nothing omkd measures (as seen in real transcripts).
QUIET_TYPES: Final = frozenset(
    {
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "last-prompt",
        "ai-title",
        "custom-title",
        "agent-name",
        "permission-mode",
        "pr-link",
        "attachment",
    }
)
# Records skipped without parsing when their top-level type can be read safely (below).
_SKIPPED_UNPARSED: Final = {t.encode(): t for t in QUIET_TYPES | {"progress"}}

# Where a side-question fork is.
_COPY: Final = "copy"
_QUESTION: Final = "question"
_NORMAL: Final = "normal"


class ClaudeCodeAdapter(AdapterBase):
    """Decodes one stream's lines; keeps the stream's context (cwd, session) and counts."""

    agent = CLAUDE_CODE

    __slots__ = ("_after_boundary", "_forked", "_links")

    def __init__(self, counters: StreamCounters | None = None) -> None:
        super().__init__(counters)
        self._links: set[tuple[str, str]] = set()
        #: inside the copied head of a side-question fork (None: not known yet).
        self._forked: bool | None = None
        #: the last record was a ``compact_boundary``: the summary record next is the same compaction.
        self._after_boundary = False

    @property
    def stream_key(self) -> str | None:
        """What tells this stream apart by its content: the sub-agent's id, else its first uuid.

        A fork starts with its parent's first record, so the first uuid alone would give the
        fork's segments the parent's keys.
        """
        if self.agent_id is not None:
            return f"agent-{self.agent_id}"
        return self.first_uuid

    def decode(self, line: bytes) -> list[Event]:
        """Events of one complete line (without its newline)."""
        counters = self.counters
        quiet = quiet_type(line, _SKIPPED_UNPARSED)
        if quiet is not None:
            self.line += 1
            counters.records += 1
            counters.ignored[quiet] += 1
            if quiet == "progress":
                return self._progress(line)
            return []
        record = self._record(line)
        if record is None:
            return []
        kind = record.get("type")
        after_boundary, self._after_boundary = self._after_boundary, False
        if kind == "user" and after_boundary and record.get("isCompactSummary") is True:
            self._envelope(record)  # it may be the stream's first uuid (a session continued after /compact)
            counters.ignored["compact_summary"] += 1  # the boundary before it was this compaction
            return []
        if kind in ("assistant", "user") and "message" not in record:
            self._count_unknown(kind)  # another agent's record that reuses the type name
            return []
        if self._forked is not False:
            fork = self._fork_state(record)
            self.copying = fork == _COPY
            if self.copying:
                counters.ignored["fork_copy"] += 1
            elif fork == _QUESTION:
                return [ForkQuestion(parse_timestamp(record.get("timestamp")))]
        if kind == "assistant":
            return self._assistant(record)
        if kind == "user":
            return self._user(record)
        if kind == "progress" or kind in QUIET_TYPES:
            counters.ignored[kind] += 1
            return []
        if kind == "system":
            return self._system(record)
        self._count_unknown(kind)
        return []

    def _progress(self, line: bytes) -> list[Event]:
        link = agent_link(line)
        if link is None or link in self._links:
            return []
        self._links.add(link)
        return [AgentLink(None, link[0], link[1])]

    @staticmethod
    def _at_fork_question(record: dict[str, Any]) -> bool:
        if record.get("type") != "user":
            return False
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            texts = (p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text")
            content = next(texts, None)
        return isinstance(content, str) and content.startswith(patterns.FORK_QUESTION_PREFIX)

    def _fork_state(self, record: dict[str, Any]) -> str:
        """Where a side-question fork is: in its copied head, at its question, or past both."""
        if self._forked is None:
            agent = record.get("agentId")
            if not isinstance(agent, str):
                if record.get("type") in ("assistant", "user", "system"):
                    self._forked = False
                return _NORMAL
            self._forked = agent.startswith(patterns.FORK_AGENT_PREFIX)
            if not self._forked:
                return _NORMAL
            self.agent_id = agent
        if self._at_fork_question(record):
            self._forked = False
            return _QUESTION
        return _COPY

    def _envelope(self, record: dict[str, Any]) -> None:
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd:
            self.cwd = cwd
        if self.first_uuid is None:
            uuid = record.get("uuid")
            if isinstance(uuid, str) and uuid:
                self.first_uuid = uuid
                agent = record.get("agentId")
                if self.agent_id is None and isinstance(agent, str) and agent:
                    # Only the first record names the stream: a key must never change mid-stream.
                    self.agent_id = agent
            session = record.get("sessionId")
            if isinstance(session, str) and session:
                self.session_id = session

    def _assistant(self, record: dict[str, Any]) -> list[Event]:
        message = record.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        self._envelope(record)
        if message.get("model") == "<synthetic>":
            self.counters.ignored["synthetic"] += 1
            return []
        timestamp = parse_timestamp(record.get("timestamp"))
        message_id = message.get("id")
        if not isinstance(message_id, str):
            message_id = str(record.get("requestId") or record.get("uuid") or "")
        attribution = record.get("attributionSkill")
        skill = attribution if isinstance(attribution, str) and attribution else None
        usage = message.get("usage")
        if not isinstance(usage, dict):
            usage = None
        model = model_name(message.get("model"))
        events: list[Event] = []
        for part in message["content"]:
            if not isinstance(part, dict):
                continue
            part_type = part.get("type")
            if part_type == "text":
                text = part.get("text")
                if isinstance(text, str):
                    events.append(AssistantText(timestamp, message_id, text, False, skill, usage, model))
            elif part_type == "tool_use":
                name, call_id, tool_input = part.get("name"), part.get("id"), part.get("input")
                if isinstance(name, str) and isinstance(call_id, str):
                    if not isinstance(tool_input, dict):
                        tool_input = {}
                    call = ToolCall(timestamp, message_id, call_id, name, bounded(tool_input), skill, usage, model)
                    events.append(call)
            elif part_type == "thinking":
                text = part.get("thinking")
                events.append(
                    AssistantText(
                        timestamp, message_id, text if isinstance(text, str) else "", True, skill, usage, model
                    )
                )
        return events

    def _user(self, record: dict[str, Any]) -> list[Event]:
        message = record.get("message")
        if not isinstance(message, dict):
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        self._envelope(record)
        content = message.get("content")
        timestamp = parse_timestamp(record.get("timestamp"))
        if isinstance(content, str):
            return self._user_text(record, content, timestamp)
        if not isinstance(content, list):
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        events: list[Event] = []
        texts: list[str] = []
        for part in content:
            if not isinstance(part, dict):
                continue
            part_type = part.get("type")
            if part_type == "tool_result":
                call_id = part.get("tool_use_id")
                if isinstance(call_id, str):
                    events.append(
                        ToolResult(
                            timestamp,
                            call_id,
                            part.get("is_error") is True,
                            flatten_text(part.get("content")),
                            bounded(record.get("toolUseResult")),
                        )
                    )
            elif part_type == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
        if texts and not events:
            return self._user_text(record, "\n".join(texts), timestamp)
        return events

    def _user_text(self, record: dict[str, Any], text: str, timestamp: float | None) -> list[Event]:
        if record.get("isMeta") is True:
            if text.startswith(patterns.SKILL_BODY_PREFIX):
                source = record.get("sourceToolUseID")
                base = text[len(patterns.SKILL_BODY_PREFIX) :].split("\n", 1)[0].strip()
                return [SkillBody(timestamp, source if isinstance(source, str) else None, base)]
            return []
        if record.get("isCompactSummary") is True or text.startswith(patterns.COMPACTION_PREFIX):
            return [Compaction(timestamp)]
        if "<command-name>" in text:
            found = patterns.COMMAND_NAME.search(text)
            if found:
                return [CommandInvoked(timestamp, found.group(1))]
        stripped = text.lstrip()
        if stripped.startswith(patterns.COMMAND_FAILED_PREFIX):
            return [CommandFailed(timestamp)]
        if stripped.startswith(patterns.INTERRUPTED_PREFIX):
            return [Interrupted(timestamp)]
        if stripped.startswith(patterns.NOT_TYPED_PREFIXES):
            return []
        if record.get("isSidechain") is True:
            self.counters.ignored["sidechain_prompt"] += 1
            return [SidechainPrompt(timestamp, text)]
        return [UserPrompt(timestamp, text)]

    def _system(self, record: dict[str, Any]) -> list[Event]:
        subtype = record.get("subtype")
        timestamp = parse_timestamp(record.get("timestamp"))
        if subtype in ("compact_boundary", "microcompact_boundary"):
            self._after_boundary = subtype == "compact_boundary"
            return [Compaction(timestamp)] if self._after_boundary else []
        if subtype == "local_command":
            content = record.get("content")
            if isinstance(content, str) and "<command-name>" in content:
                found = patterns.COMMAND_NAME.search(content)
                if found:
                    return [CommandInvoked(timestamp, found.group(1))]
            if isinstance(content, str) and content.lstrip().startswith(patterns.COMMAND_FAILED_PREFIX):
                return [CommandFailed(timestamp)]
        self.counters.ignored["system"] += 1
        return []
