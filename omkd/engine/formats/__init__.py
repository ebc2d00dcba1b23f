"""Adapters that turn one transcript format's records into omkd's typed events, and which is which.

A file's format is decided by its first record (its path alone can mislead: a Codex rollout
copied under ``~/.claude/projects`` is still a rollout); a ``.json`` file is a whole-document
Gemini CLI session. Every adapter feeds the same events, segmenter, detectors and fold.
"""

from __future__ import annotations

from typing import Final

import orjson

CLAUDE_CODE: Final = "claude_code"
CODEX: Final = "codex"
GEMINI: Final = "gemini"
AGENTS: Final = (CLAUDE_CODE, CODEX, GEMINI)
"""The agents omkd reads, as the ``agent`` label says them (bounded: three values)."""

CLAUDE_CODE_JSONL: Final = "claude-code"
CODEX_ROLLOUT: Final = "codex-rollout"
CODEX_EXEC: Final = "codex-exec"
GEMINI_JSONL: Final = "gemini-jsonl"
GEMINI_JSON: Final = "gemini-json"
AGENT_OF: Final = {
    CLAUDE_CODE_JSONL: CLAUDE_CODE,
    CODEX_ROLLOUT: CODEX,
    CODEX_EXEC: CODEX,
    GEMINI_JSONL: GEMINI,
    GEMINI_JSON: GEMINI,
}
DOCUMENT_SUFFIX: Final = ".json"
"""A whole-document chat (Gemini CLI before 0.39): read whole, again after each rewrite."""

_CODEX_TYPES: Final = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state"}
)
_CODEX_EXEC_TYPES: Final = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "item.completed",
    }
)


LINES_SUFFIX: Final = ".jsonl"
CHATS_DIR: Final = "chats"
SESSION_PREFIX: Final = "session-"


def is_document(name: str) -> bool:
    return name.endswith(DOCUMENT_SUFFIX)


def is_transcript(path: str) -> bool:
    """A file found below a root that is read as a transcript: every ``*.jsonl``, and of the
    ``*.json`` files Gemini CLI's sessions: ``session-*.json``, and any below a ``chats``
    directory (its sub-agent chats); other JSON files (``*.meta.json``, ``logs.json``) are not chats."""
    if path.endswith(LINES_SUFFIX):
        return True
    if not path.endswith(DOCUMENT_SUFFIX):
        return False
    parts = path.replace("\\", "/").split("/")
    return parts[-1].startswith(SESSION_PREFIX) or CHATS_DIR in parts[:-1]


def detect_lines(lines: list[bytes]) -> str | None:
    """The format of a JSONL stream, from the first of ``lines`` that is a JSON object; None when
    none is yet. Blank, malformed or truncated lines before it decide nothing: the adapter counts
    them as bad lines, and one of them must not make a Codex or Gemini stream read as Claude
    Code's (every record of it lost)."""
    for line in lines:
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            return detect(line)
    return None


def detect(first: bytes) -> str:
    """The format of a JSONL stream, from its first non-blank line (Claude Code unless it is
    clearly another agent's: a record that is not JSON is Claude Code's bad line)."""
    try:
        record = orjson.loads(first)
    except orjson.JSONDecodeError:
        return CLAUDE_CODE_JSONL
    if not isinstance(record, dict):
        return CLAUDE_CODE_JSONL
    kind = record.get("type")
    if not isinstance(kind, str | None):
        return CLAUDE_CODE_JSONL  # a malformed record: Claude Code's adapter counts it
    if isinstance(record.get("payload"), dict) and kind in _CODEX_TYPES:
        return CODEX_ROLLOUT
    if kind in _CODEX_EXEC_TYPES and "uuid" not in record:
        return CODEX_EXEC
    if "$set" in record or "$rewindTo" in record:
        return GEMINI_JSONL
    if kind is None and "sessionId" in record and ("projectHash" in record or "startTime" in record):
        return GEMINI_JSONL
    if kind in ("gemini", "user", "info") and "message" not in record and "id" in record and "uuid" not in record:
        return GEMINI_JSONL
    return CLAUDE_CODE_JSONL
