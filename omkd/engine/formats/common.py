"""What every format adapter needs: timestamps, flattened result texts, the reasons a line is
skipped, and reading a record's type (or a field) from its bytes without parsing it."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import orjson

from omkd.engine.counters import StreamCounters
from omkd.engine.labels import OTHER, CappedLabels

_TYPE_KEY: Final = b'"type":"'
_TYPE_SEARCH_WINDOW: Final = 1024
_OPEN_BRACE: Final = ord("{")

# Reasons a line is skipped.
INVALID_JSON: Final = "invalid_json"
INVALID_UTF8: Final = "invalid_utf8"
NOT_OBJECT: Final = "not_object"
BAD_SHAPE: Final = "bad_shape"


def parse_timestamp(value: object) -> float | None:
    """ISO-8601 (``Z`` or offset) to seconds since the epoch; ``None`` if absent or bad."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return moment.timestamp()


MODEL_CHARS: Final = 128
"""A model name is kept to this length (a hostile record cannot make every summary large)."""


def model_name(value: object) -> str:
    """The model a record names (``message.model``, a Codex ``turn_context``'s, a Gemini
    message's), cut to ``MODEL_CHARS``; "" when it names none."""
    return value[:MODEL_CHARS] if isinstance(value, str) else ""


MAX_NESTING: Final = 8
"""Levels of a tool's input (or structured result) kept; the rules read the first two."""
TOO_DEEP: Final = "…"
_CONTAINERS: Final = (dict, list)


def bounded(value: Any, depth: int = MAX_NESTING) -> Any:
    """``value`` with containers nested deeper than ``depth`` replaced by ``TOO_DEEP``.

    A tool input is kept until its result arrives, and with it in the checkpoint: one valid
    line nesting hundreds of levels must not make it unsaveable (pickling, ``repr`` and
    ``orjson.dumps`` all give up long before ``orjson.loads`` does).
    """
    if isinstance(value, dict):
        if depth <= 0:
            return TOO_DEEP
        # most items are strings and numbers: only containers are worth a call
        return {key: bounded(item, depth - 1) if isinstance(item, _CONTAINERS) else item for key, item in value.items()}
    if isinstance(value, list):
        if depth <= 0:
            return TOO_DEEP
        return [bounded(item, depth - 1) if isinstance(item, _CONTAINERS) else item for item in value]
    return value


def flatten_text(content: object) -> str:
    """A tool result's content as one text: strings as they are, text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        ]
        return "\n".join(texts)
    return ""


def quiet_type(line: bytes, skipped: dict[bytes, str]) -> str | None:
    """The record's type when it is one omkd ignores and can be known without parsing.

    ``"type":"`` cannot occur inside a JSON string (its quotes would be escaped), so its
    first occurrence, with no ``{`` or ``[`` before it, is the top-level key. Half of a
    2.1.x transcript's records are ``progress`` mirrors, and they are the largest lines:
    not parsing them is most of the speed of a scan. The cheap tests come first: most
    lines are not skipped and leave after one search.
    """
    at = line.find(_TYPE_KEY, 1, _TYPE_SEARCH_WINDOW)
    if at < 0:
        return None
    start = at + len(_TYPE_KEY)
    kind = skipped.get(line[start : line.find(b'"', start, start + 32)])
    if kind is None or line[0] != _OPEN_BRACE or not line.endswith(b"}"):
        return None
    if line.find(b"{", 1, at) >= 0 or line.find(b"[", 1, at) >= 0:
        return None
    return kind


def agent_link(line: bytes) -> tuple[str, str] | None:
    """(parent call id, sub-agent id) of an ``agent_progress`` mirror, read without parsing it.

    Both keys come after the (large) mirrored message, so they are looked for from the end.
    """
    if b'"agent_progress"' not in line:
        return None
    found = []
    for key in (b'"parentToolUseID":"', b'"agentId":"'):
        at = line.rfind(key)
        if at < 0:
            return None
        start = at + len(key)
        end = line.find(b'"', start, start + 128)
        if end < 0:
            return None
        found.append(line[start:end].decode("utf-8", "replace"))
    return (found[0], found[1])


def why_unparsable(line: bytes) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return INVALID_UTF8
    return INVALID_JSON


MAX_DISTINCT_UNKNOWN: Final = 64
MAX_TYPE_CHARS: Final = 64
"""An unknown record type is counted under at most this many characters of its name."""


class AdapterBase:
    """What every format adapter keeps of its stream (the segmenter reads it: ``StreamContext``),
    its counts, and the steps every line goes through."""

    agent: str = ""
    """The agent that writes this format (``formats.AGENTS``; set by each adapter)."""

    __slots__ = ("_unknown", "agent_id", "copying", "counters", "cwd", "first_uuid", "line", "session_id", "subagent")

    def __init__(self, counters: StreamCounters | None = None) -> None:
        self.counters = counters if counters is not None else StreamCounters()
        self._unknown = CappedLabels(MAX_DISTINCT_UNKNOWN)
        #: the line being decoded (1-based): where the events of a ``decode`` call come from.
        self.line = 0
        #: the line being decoded replays another stream's (a fork's copied head): Claude Code only.
        self.copying = False
        #: a sub-agent's stream, by its own metadata (Codex, Gemini; Claude Code's is told by its file name).
        self.subagent = False
        self.cwd: str | None = None
        self.session_id: str | None = None
        self.first_uuid: str | None = None
        self.agent_id: str | None = None

    def _record(self, line: bytes) -> dict[str, Any] | None:
        """The next line as a JSON object; None (counted by reason) when it is blank or is not one."""
        self.line += 1
        if not line.strip():
            return None
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            self.counters.bad_lines[why_unparsable(line)] += 1
            return None
        if not isinstance(record, dict):
            self.counters.bad_lines[NOT_OBJECT] += 1
            return None
        self.counters.records += 1
        return record

    def _count_unknown(self, kind: object) -> None:
        if not isinstance(kind, str):
            self.counters.unknown_types[OTHER] += 1
            return
        if len(kind) > MAX_TYPE_CHARS:
            kind = kind[: MAX_TYPE_CHARS - 1] + "…"  # a label value, not a copy of the line
        self.counters.unknown_types[self._unknown.label(kind)] += 1
