"""Hand-made Claude Code transcript records, shaped like the real ones (as seen in real transcripts).

Each function returns one record as a dict; ``jsonl`` turns records into file bytes.
Expected figures in tests that use these are worked out by hand from the records the
test writes, never by running omkd.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from typing import Any

Record = dict[str, Any]

SESSION = "0b3c4d5e-1111-4222-8333-944455556666"
CWD = "/home/dev/omkd-test-project-that-does-not-exist"
TS = "2026-01-01T00:00:00.000Z"

_ids = itertools.count(1)


def _uuid() -> str:
    return f"00000000-0000-4000-8000-{next(_ids):012d}"


def _envelope(kind: str, timestamp: str, session: str) -> Record:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": CWD,
        "sessionId": session,
        "version": "2.1.39",
        "gitBranch": "main",
        "type": kind,
        "uuid": _uuid(),
        "timestamp": timestamp,
    }


def assistant(part: Record, message_id: str, timestamp: str = TS, session: str = SESSION) -> Record:
    """An assistant record holding one content part, as Claude Code streams them."""
    record = _envelope("assistant", timestamp, session)
    record["requestId"] = f"req_{message_id}"
    record["message"] = {
        "model": "claude-opus-4-6",
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": [part],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 3,
            "output_tokens": 10,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 20,
        },
    }
    return record


def tool_use(call_id: str, name: str, tool_input: Record, message_id: str, timestamp: str = TS) -> Record:
    return assistant({"type": "tool_use", "id": call_id, "name": name, "input": tool_input}, message_id, timestamp)


def text(words: str, message_id: str, timestamp: str = TS) -> Record:
    return assistant({"type": "text", "text": words}, message_id, timestamp)


def tool_result(
    call_id: str,
    content: object,
    detail: object = None,
    is_error: bool | None = None,
    timestamp: str = TS,
) -> Record:
    """The user record answering a call; ``is_error`` left out when ``None`` (as on most successes)."""
    part: Record = {"tool_use_id": call_id, "type": "tool_result", "content": content}
    if is_error is not None:
        part["is_error"] = is_error
    record = _envelope("user", timestamp, SESSION)
    record["message"] = {"role": "user", "content": [part]}
    if detail is not None:
        record["toolUseResult"] = detail
    return record


def user(content: object, timestamp: str = TS, **extra: object) -> Record:
    """A user record with string or list content (typed prompt, frame, meta text...)."""
    record = _envelope("user", timestamp, SESSION)
    record["message"] = {"role": "user", "content": content}
    record.update(extra)
    return record


def system(subtype: str, content: str, timestamp: str = TS) -> Record:
    record = _envelope("system", timestamp, SESSION)
    record.update({"subtype": subtype, "content": content, "level": "info", "isMeta": False})
    return record


GLOB_EMPTY: Record = {"filenames": [], "durationMs": 5, "numFiles": 0, "truncated": False}


def glob_hit(path: str) -> Record:
    return {"filenames": [path], "durationMs": 5, "numFiles": 1, "truncated": False}


def line(record: Record) -> bytes:
    """One record as Claude Code writes it: compact JSON, no trailing newline."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()


def jsonl(records: Iterable[Record]) -> bytes:
    return b"".join(line(r) + b"\n" for r in records)
