"""Synthetic Claude Code records for the daemon benchmarks, shaped like ``tests/transcript_builder.py``.

The shapes are written by hand here (the benchmarks import nothing from ``tests/``): a
``Session`` emits envelopes with chained uuids and fresh ids, in the order Claude Code writes
them: a prompt, a skill launch (call, "Launching skill" result, the ``isMeta`` skill body), a
Glob that finds nothing (one ``failed_search`` signal), a successful Read, an answer.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from common import iso
from corpus import DAEMON_NAMESPACE


@dataclass
class Session:
    """One Claude Code session being written: envelopes with chained uuids, fresh ids."""

    session_id: str
    cwd: str
    last_uuid: str | None = None
    serial: int = 0

    def _next(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}{self.session_id[:8]}{self.serial:06d}"

    def _envelope(self, kind: str, when: float) -> dict[str, Any]:
        record_uuid = str(uuid.uuid5(DAEMON_NAMESPACE, f"{self.session_id}/{self.serial}/{kind}"))
        self.serial += 1
        record: dict[str, Any] = {
            "parentUuid": self.last_uuid,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.39",
            "gitBranch": "main",
            "type": kind,
            "uuid": record_uuid,
            "timestamp": iso(when),
        }
        self.last_uuid = record_uuid
        return record

    def prompt(self, text: str, when: float) -> dict[str, Any]:
        record = self._envelope("user", when)
        record["message"] = {"role": "user", "content": text}
        record["permissionMode"] = "default"
        return record

    def _assistant(self, part: dict[str, Any], stop_reason: str, when: float) -> dict[str, Any]:
        record = self._envelope("assistant", when)
        record["message"] = {
            "model": "claude-opus-4-6",
            "id": self._next("msg_01"),
            "type": "message",
            "role": "assistant",
            "content": [part],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 3,
                "output_tokens": 40,
                "cache_read_input_tokens": 18000,
                "cache_creation_input_tokens": 300,
            },
        }
        record["requestId"] = self._next("req_011")
        return record

    def say(self, text: str, when: float) -> dict[str, Any]:
        return self._assistant({"type": "text", "text": text}, "end_turn", when)

    def call(
        self, tool: str, tool_input: dict[str, Any], content: str, detail: object, when: float, is_error: bool = False
    ) -> list[dict[str, Any]]:
        """A ``tool_use`` and the ``user`` record with its ``tool_result``."""
        call_id = self._next("toolu_01")
        use = self._assistant(
            {"type": "tool_use", "id": call_id, "name": tool, "input": tool_input, "caller": {"type": "direct"}},
            "tool_use",
            when,
        )
        part: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": content}
        if is_error:
            part["is_error"] = True
        result = self._envelope("user", when + 0.2)
        result["message"] = {"role": "user", "content": [part]}
        result["toolUseResult"] = detail
        return [use, result]

    def skill(self, name: str, when: float) -> list[dict[str, Any]]:
        """The Skill tool: call, "Launching skill" result, then the isMeta skill body."""
        records = self.call(
            "Skill", {"skill": name}, f"Launching skill: {name}", {"success": True, "commandName": name}, when
        )
        body = self._envelope("user", when + 0.3)
        body["message"] = {
            "role": "user",
            "content": [{"type": "text", "text": f"Base directory for this skill: {self.cwd}/.claude/skills/{name}"}],
        }
        body["isMeta"] = True
        body["sourceToolUseID"] = records[0]["message"]["content"][0]["id"]
        return [*records, body]

    def glob_miss(self, pattern: str, when: float) -> list[dict[str, Any]]:
        detail = {"filenames": [], "durationMs": 12, "numFiles": 0, "truncated": False}
        return self.call("Glob", {"pattern": pattern}, "No files found", detail, when)

    def read_ok(self, path: str, when: float) -> list[dict[str, Any]]:
        body = "# notes\nrun `make deploy` from the repo root\n"
        detail = {
            "type": "text",
            "file": {"filePath": path, "content": body, "numLines": 2, "startLine": 1, "totalLines": 2},
        }
        return self.call("Read", {"file_path": path}, f"     1\u2192{body}", detail, when)


def lines_of(records: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)
