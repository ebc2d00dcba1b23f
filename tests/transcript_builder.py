"""Hand-made Claude Code transcripts for tests, record by record.

``Transcript`` writes the JSON lines a real session would hold (as seen in real transcripts):
the envelope (``type``, ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``cwd``,
``version``, ``isSidechain``), assistant records with exactly one content part and a
repeated ``usage``, ``tool_result`` records carrying ``toolUseResult``, command frames,
meta injections and the rest. Every test states the figures it expects by hand; the
helpers at the bottom only run the pipeline, they never compute an expectation.
"""

from __future__ import annotations

import json
import uuid as uuid_module
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from omkd.engine.fold import Fold
from omkd.engine.report.build import KnowledgeIndex, build_report
from omkd.engine.report.schema import GapEntry, Report, SkillHealth
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.stream import StreamProcessor

START: Final = datetime(2026, 2, 12, 14, 0, 0, tzinfo=UTC)
CWD: Final = "/home/dev/shop"
SESSION: Final = "6f1c2a9e-4b7d-4c1e-9a3f-2d8e5b7c0a11"
ABSENT: Final = object()
"""Marks an optional field the record must not carry at all (``is_error`` is often absent)."""

DEFAULT_USAGE: Final = {
    "input_tokens": 3,
    "output_tokens": 10,
    "cache_read_input_tokens": 100,
    "cache_creation_input_tokens": 20,
}

REJECTED: Final = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
    "edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to "
    "tell you how to proceed."
)


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Transcript:
    """One transcript file being written, one record per call."""

    session_id: str = SESSION
    cwd: str = CWD
    version: str = "2.1.39"
    sidechain: bool = False
    agent_id: str | None = None
    step: float = 1.0
    """Seconds the clock moves between records when ``at`` is not given."""
    model: str = "claude-opus-4-6"
    """The ``message.model`` of the assistant records written from now on."""
    records: list[dict[str, Any]] = field(default_factory=list)
    clock: float = 0.0
    _last_uuid: str | None = None
    _ids: int = 0
    _made: int = 0

    # --- plumbing ------------------------------------------------------------------------

    def _next_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}{self._ids:04d}"

    def _stamp(self, at: float | None) -> str:
        if at is None:
            self.clock += self.step
        else:
            self.clock = at
        return iso(START + timedelta(seconds=self.clock))

    def _envelope(self, kind: str, at: float | None, sidechain: bool | None = None) -> dict[str, Any]:
        self._made += 1
        record_uuid = str(uuid_module.uuid5(uuid_module.NAMESPACE_URL, f"{self.session_id}/{self._made}"))
        record: dict[str, Any] = {
            "parentUuid": self._last_uuid,
            "isSidechain": self.sidechain if sidechain is None else sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": record_uuid,
            "timestamp": self._stamp(at),
        }
        if self.agent_id is not None:
            record["agentId"] = self.agent_id
        self._last_uuid = record_uuid
        return record

    def add(self, record: dict[str, Any]) -> dict[str, Any]:
        self.records.append(record)
        return record

    def to_bytes(self) -> bytes:
        return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in self.records)

    # --- user records --------------------------------------------------------------------

    def user(
        self,
        content: str | list[dict[str, Any]],
        *,
        at: float | None = None,
        sidechain: bool | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """A ``user`` record with the given content and extra envelope fields."""
        record = self._envelope("user", at, sidechain)
        record["message"] = {"role": "user", "content": content}
        record.update(extra)
        return self.add(record)

    def prompt(self, text: str, *, at: float | None = None) -> dict[str, Any]:
        """A prompt typed by the person (string content, 2.1.x envelope extras)."""
        return self.user(text, at=at, permissionMode="default", promptId=self._next_id("prompt-"))

    def prompt_parts(self, text: str, *, at: float | None = None) -> dict[str, Any]:
        """A typed prompt written as a list: a pasted image and the text part."""
        image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
        return self.user([image, {"type": "text", "text": text}], at=at)

    def meta(self, text: str, *, at: float | None = None, source_tool_use_id: str | None = None) -> dict[str, Any]:
        """Injected user text not typed by the person (skill body, caveat, hook context)."""
        extra: dict[str, Any] = {"isMeta": True}
        if source_tool_use_id is not None:
            extra["sourceToolUseID"] = source_tool_use_id
        return self.user([{"type": "text", "text": text}], at=at, **extra)

    def command(
        self,
        name: str,
        *,
        args: str = "",
        frame: str = "name-first",
        slash: bool = True,
        as_part: bool = False,
        at: float | None = None,
    ) -> dict[str, Any]:
        """A slash-command frame: ``name-first`` (built-ins, 1.0.24+) or ``message-first`` (prompt commands)."""
        written = f"/{name}" if slash else name
        if frame == "name-first":
            text = (
                f"<command-name>{written}</command-name>\n            <command-message>{name}</command-message>\n"
                f"            <command-args>{args}</command-args>"
            )
        else:
            text = f"<command-message>{name}</command-message>\n<command-name>{written}</command-name>"
            if args:
                text += f"\n<command-args>{args}</command-args>"
        content: str | list[dict[str, Any]] = [{"type": "text", "text": text}] if as_part else text
        return self.user(content, at=at)

    def local_command(self, name: str, *, at: float | None = None) -> dict[str, Any]:
        """A built-in command written as a ``system`` ``local_command`` record (2.1.12+)."""
        record = self._envelope("system", at)
        record.update(
            {
                "subtype": "local_command",
                "content": (
                    f"<command-name>/{name}</command-name>\n            <command-message>{name}</command-message>\n"
                    "            <command-args></command-args>"
                ),
                "level": "info",
                "isMeta": False,
            }
        )
        return self.add(record)

    def local_stdout(self, text: str, *, at: float | None = None) -> dict[str, Any]:
        return self.user(f"<local-command-stdout>{text}</local-command-stdout>", at=at)

    def interruption(self, text: str = "[Request interrupted by user]", *, at: float | None = None) -> dict[str, Any]:
        return self.user([{"type": "text", "text": text}], at=at)

    def compact_summary(self, *, at: float | None = None) -> dict[str, Any]:
        return self.user(
            "This session is being continued from a previous conversation that ran out of context. "
            "The summary below covers the earlier portion of the conversation.\n\nAnalysis: ...",
            at=at,
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        )

    def compact_boundary(self, *, at: float | None = None) -> dict[str, Any]:
        record = self._envelope("system", at)
        record.update(
            {
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": 155000},
            }
        )
        return self.add(record)

    # --- assistant records ---------------------------------------------------------------

    def _assistant(
        self,
        part: dict[str, Any],
        *,
        message_id: str | None,
        attribution: str | None,
        usage: dict[str, int] | None,
        stop_reason: str | None,
        at: float | None,
    ) -> dict[str, Any]:
        record = self._envelope("assistant", at)
        record["message"] = {
            "model": self.model,
            "id": message_id or self._next_id("msg_01"),
            "type": "message",
            "role": "assistant",
            "content": [part],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": dict(DEFAULT_USAGE if usage is None else usage),
        }
        record["requestId"] = self._next_id("req_011")
        if attribution is not None:
            record["attributionSkill"] = attribution
        return self.add(record)

    def say(
        self,
        text: str,
        *,
        message_id: str | None = None,
        attribution: str | None = None,
        usage: dict[str, int] | None = None,
        at: float | None = None,
    ) -> dict[str, Any]:
        """An assistant ``text`` part."""
        return self._assistant(
            {"type": "text", "text": text},
            message_id=message_id,
            attribution=attribution,
            usage=usage,
            stop_reason="end_turn",
            at=at,
        )

    def think(
        self,
        text: str,
        *,
        message_id: str | None = None,
        usage: dict[str, int] | None = None,
        at: float | None = None,
    ) -> dict[str, Any]:
        """An assistant ``thinking`` part."""
        return self._assistant(
            {"type": "thinking", "thinking": text, "signature": "EqQBCkYIBxgCKkB0c2lnbmF0dXJl"},
            message_id=message_id,
            attribution=None,
            usage=usage,
            stop_reason=None,
            at=at,
        )

    def tool_use(
        self,
        name: str,
        tool_input: dict[str, Any],
        *,
        message_id: str | None = None,
        attribution: str | None = None,
        usage: dict[str, int] | None = None,
        at: float | None = None,
    ) -> str:
        """An assistant ``tool_use`` part; returns its call id."""
        call_id = self._next_id("toolu_01")
        self._assistant(
            {"type": "tool_use", "id": call_id, "name": name, "input": tool_input, "caller": {"type": "direct"}},
            message_id=message_id,
            attribution=attribution,
            usage=usage,
            stop_reason="tool_use",
            at=at,
        )
        return call_id

    def tool_result(
        self,
        call_id: str,
        content: str | list[dict[str, Any]],
        *,
        is_error: object = ABSENT,
        detail: object = ABSENT,
        at: float | None = None,
    ) -> dict[str, Any]:
        """The ``user`` record answering ``call_id``; ``detail`` is the ``toolUseResult``."""
        part: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": content}
        if is_error is not ABSENT:
            part["is_error"] = is_error
        extra: dict[str, Any] = {}
        if detail is not ABSENT:
            extra["toolUseResult"] = detail
        return self.user([part], at=at, **extra)

    def call(
        self,
        name: str,
        tool_input: dict[str, Any],
        content: str | list[dict[str, Any]],
        *,
        is_error: object = ABSENT,
        detail: object = ABSENT,
        attribution: str | None = None,
    ) -> str:
        """A tool call and its answer, one right after the other."""
        call_id = self.tool_use(name, tool_input, attribution=attribution)
        self.tool_result(call_id, content, is_error=is_error, detail=detail)
        return call_id

    # --- common tool shapes (as seen in real transcripts) ------------------------------------

    def skill(self, name: str, *, attribution: str | None = None) -> str:
        """The Skill tool: call, "Launching skill" result, then the isMeta skill body."""
        call_id = self.tool_use("Skill", {"skill": name}, attribution=attribution)
        self.tool_result(call_id, f"Launching skill: {name}", detail={"success": True, "commandName": name})
        self.meta(
            f"Base directory for this skill: {self.cwd}/.claude/skills/{name}\n\n# {name}\n\nSteps ...",
            source_tool_use_id=call_id,
        )
        return call_id

    def glob_miss(self, pattern: str) -> str:
        return self.call(
            "Glob",
            {"pattern": pattern},
            "No files found",
            detail={"filenames": [], "durationMs": 12, "numFiles": 0, "truncated": False},
        )

    def glob_hit(self, pattern: str, path: str = "/home/dev/shop/src/client.py") -> str:
        return self.call(
            "Glob",
            {"pattern": pattern},
            path,
            detail={"filenames": [path], "durationMs": 9, "numFiles": 1, "truncated": False},
        )

    def grep_miss(self, pattern: str) -> str:
        return self.call(
            "Grep",
            {"pattern": pattern, "output_mode": "files_with_matches"},
            "No files found",
            detail={"mode": "files_with_matches", "filenames": [], "numFiles": 0},
        )

    def read_ok(self, path: str, body: str = "# notes\n") -> str:
        return self.call(
            "Read",
            {"file_path": path},
            f"     1\u2192{body}",
            detail={
                "type": "text",
                "file": {"filePath": path, "content": body, "numLines": 1, "startLine": 1, "totalLines": 1},
            },
        )

    def read_missing(self, path: str) -> str:
        return self.call(
            "Read",
            {"file_path": path},
            f"File does not exist. Note: your current working directory is {self.cwd}.",
            is_error=True,
            detail=f"Error: File does not exist. Note: your current working directory is {self.cwd}.",
        )

    def bash(self, command: str, stdout: str, **detail: Any) -> str:
        """A Bash call that exited 0 (``is_error`` absent, as usual on success)."""
        shape = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False, **detail}
        return self.call("Bash", {"command": command, "description": "run"}, stdout, detail=shape)

    def bash_error(self, command: str, output: str, code: int = 1) -> str:
        """A Bash call that exited non-zero (2.0.37+ form)."""
        text = f"Exit code {code}\n{output}" if output else f"Exit code {code}"
        return self.call("Bash", {"command": command}, text, is_error=True, detail=f"Error: {text}")

    def agent_progress(self, inner: dict[str, Any], *, at: float | None = None) -> dict[str, Any]:
        """A ``progress`` record mirroring a sub-agent record into the parent file (2.1.12-2.1.49)."""
        record = self._envelope("progress", at)
        record.update(
            {
                "data": {"message": inner, "normalizedMessages": [], "type": "agent_progress", "agentId": "a4f2"},
                "toolUseID": "agent_msg_01",
                "parentToolUseID": "toolu_01Task",
            }
        )
        return self.add(record)


# --- running the pipeline ------------------------------------------------------------------
# Only the public entry points: StreamProcessor(name).feed(bytes), Fold().add_stream(stream),
# Fold.finish(), build_report(fold, roots, knowledge).

ROOTS: Final = ["/home/dev/.claude/projects"]


def process(transcript: Transcript, name: str | None = None, rules: SegmenterRules | None = None) -> StreamProcessor:
    """A stream processor fed the whole transcript."""
    stream = StreamProcessor(name or f"{transcript.session_id}.jsonl", rules)
    stream.feed(transcript.to_bytes())
    return stream


def report_of(
    *transcripts: Transcript,
    rules: SegmenterRules | None = None,
    knowledge: KnowledgeIndex | None = None,
    names: Iterable[str] = (),
) -> Report:
    """Fold transcripts (one stream each, read to their end) and build the report."""
    fold = Fold()
    given = list(names)
    for position, transcript in enumerate(transcripts):
        name = given[position] if position < len(given) else f"{transcript.session_id}-{position}.jsonl"
        fold.add_stream(process(transcript, name, rules))
    fold.finish()
    return build_report(fold, ROOTS, knowledge)


def segments_by_skill(report: Report) -> dict[str, int]:
    """Counted segments per skill."""
    return {entry.skill: entry.segments for entry in report.skills}


def health_of(report: Report, skill: str) -> SkillHealth:
    for entry in report.skills:
        if entry.skill == skill:
            return entry
    raise KeyError(skill)


def signal_counts(health: SkillHealth) -> dict[str, int]:
    """Signals by type, types with none left out."""
    return {kind: count for kind, count in health.by_type.items() if count}


def gaps_of(report: Report, kind: str | None = None) -> list[GapEntry]:
    """The report's gap inventory, optionally of one signal type."""
    return [gap for gap in report.gaps if kind is None or gap.type == kind]


def bash_detail(stdout: str = "", interpretation: str | None = None) -> dict[str, Any]:
    """A Bash ``toolUseResult`` (with Claude Code's ``returnCodeInterpretation`` when given)."""
    detail: dict[str, Any] = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
    if interpretation is not None:
        detail["returnCodeInterpretation"] = interpretation
    return detail


def overall_signals(t: Transcript, rules: SegmenterRules | None = None) -> dict[str, int]:
    """Signals by type over every segment of one transcript."""
    return signal_counts(report_of(t, rules=rules).overall)
