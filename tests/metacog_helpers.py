"""Hand-made transcripts for the metacognition tests (spec §8): helpers that read them."""

from __future__ import annotations

from typing import Any

from omkd.engine.metacog.view import Episode
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.stream import StreamProcessor
from omkd.engine.summary import SegmentSummary
from tests import claude_lines as cl

NO_MATCH = "No matches found"


def run(*records: dict[str, Any] | list[dict[str, Any]]) -> bytes:
    """A Claude Code transcript: a typed prompt, then these records (a list is a call and its result)."""
    flat: list[dict[str, Any]] = [cl.user("please fix the build")]
    for item in records:
        flat.extend(item if isinstance(item, list) else [item])
    return cl.jsonl(flat)


def summaries(data: bytes, name: str = "session.jsonl", rules: SegmenterRules | None = None) -> list[SegmentSummary]:
    stream = StreamProcessor(name, rules)
    stream.feed(data)
    return [s for s in stream.close() if s.counts]


def episodes(data: bytes, name: str = "session.jsonl", rules: SegmenterRules | None = None) -> list[Episode]:
    return [e for s in summaries(data, name, rules) for e in s.episodes]


def tallies(data: bytes, name: str = "session.jsonl", rules: SegmenterRules | None = None) -> dict[str, int]:
    found: dict[str, int] = {}
    for summary in summaries(data, name, rules):
        for key, count in summary.tallies:
            found[key] = found.get(key, 0) + count
    return found


def glob_miss(call_id: str, pattern: str, message: str) -> list[dict[str, Any]]:
    return [
        cl.tool_use(call_id, "Glob", {"pattern": pattern}, message),
        cl.tool_result(call_id, "No files found", cl.GLOB_EMPTY),
    ]


def read_miss(call_id: str, path: str, message: str) -> list[dict[str, Any]]:
    return [
        cl.tool_use(call_id, "Read", {"file_path": path}, message),
        cl.tool_result(call_id, f"File does not exist. Current working directory: {cl.CWD}", is_error=True),
    ]


def read_hit(call_id: str, path: str, message: str, body: str = "     1\tcontent") -> list[dict[str, Any]]:
    return [cl.tool_use(call_id, "Read", {"file_path": path}, message), cl.tool_result(call_id, body)]


def bash(call_id: str, command: str, output: str, message: str) -> list[dict[str, Any]]:
    detail = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
    return [cl.tool_use(call_id, "Bash", {"command": command}, message), cl.tool_result(call_id, output, detail)]


def edit(call_id: str, path: str, message: str, old: str = "a = 1", new: str = "a = 2") -> list[dict[str, Any]]:
    return [
        cl.tool_use(call_id, "Edit", {"file_path": path, "old_string": old, "new_string": new}, message),
        cl.tool_result(call_id, f"The file {path} has been updated."),
    ]


def write(call_id: str, path: str, message: str, content: str = "x") -> list[dict[str, Any]]:
    return [
        cl.tool_use(call_id, "Write", {"file_path": path, "content": content}, message),
        cl.tool_result(call_id, f"File created successfully at: {path}"),
    ]


def only(found: list[Episode], anchor: str = "failed_search") -> Episode:
    chosen = [e for e in found if e.anchor == anchor]
    assert len(chosen) == 1, found
    return chosen[0]
