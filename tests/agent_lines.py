"""Hand-made Codex CLI rollouts and Gemini CLI chats, in the shapes the real files have
(``../shared/docs/other-agents.md``; the fixtures under ``fixtures/real``)."""

from __future__ import annotations

import itertools
import json
from typing import Any

T0 = "2026-04-08T13:27:20.000Z"


def _stamp(n: int) -> str:
    return f"2026-04-08T13:{27 + n // 60:02d}:{n % 60:02d}.000Z"


class Rollout:
    """A Codex rollout (``rollout-*.jsonl``) written record by record."""

    def __init__(self, session: str = "019d6d46-test", cwd: str = "/home/dev/shop", version: str = "0.118.0") -> None:
        self._n = itertools.count()
        self._calls = itertools.count(1)
        self.lines: list[dict[str, Any]] = []
        self.record("session_meta", {"id": session, "cwd": cwd, "cli_version": version, "originator": "codex-tui"})
        self.record("turn_context", {"cwd": cwd, "model": "gpt-5.4"})
        self.message("developer", "<permissions instructions>\nsandbox_mode is workspace-write\n")
        self.message("user", f"# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\nUse make.\n</INSTRUCTIONS>")
        self.message("user", f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>")

    def record(self, kind: str, payload: dict[str, Any]) -> None:
        self.lines.append({"timestamp": _stamp(next(self._n)), "type": kind, "payload": payload})

    def item(self, payload: dict[str, Any]) -> None:
        self.record("response_item", payload)

    def message(self, role: str, text: str) -> None:
        kind = "output_text" if role == "assistant" else "input_text"
        self.item({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})

    def prompt(self, text: str) -> None:
        self.message("user", text)
        self.record("event_msg", {"type": "user_message", "message": text})  # the mirror omkd skips

    def say(self, text: str) -> None:
        self.message("assistant", text)
        self.record("event_msg", {"type": "agent_message", "message": text})

    def reasoning(self, summary: str) -> None:
        self.item({"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}], "content": None})

    def skill(self, name: str, path: str) -> None:
        self.message("user", f"<skill>\n<name>{name}</name>\n<path>{path}</path>\n---\nname: {name}\n</skill>")

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        call_id = f"call_{next(self._calls):04d}"
        self.item({"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": call_id})
        return call_id

    def output(self, call_id: str, output: str) -> None:
        self.item({"type": "function_call_output", "call_id": call_id, "output": output})

    def exec(self, command: str, output: str, code: int | None = 0) -> str:
        """``exec_command`` as 0.104+ writes it: a text header, then the output."""
        call_id = self.call("exec_command", {"cmd": command, "workdir": "/home/dev/shop"})
        exit_line = f"Process exited with code {code}\n" if code is not None else "Process running with session ID 7\n"
        self.output(
            call_id,
            f"Command: /bin/zsh -lc '{command}'\nChunk ID: 1a2b3c\nWall time: 0.1 seconds\n{exit_line}"
            f"Original token count: 9\nOutput:\n{output}",
        )
        return call_id

    def shell_040(self, script: str, output: str, code: int) -> str:
        """``shell`` as 0.40 writes it: an argv, and a JSON string output with ``metadata.exit_code``."""
        call_id = self.call("shell", {"command": ["bash", "-lc", script], "workdir": "/home/dev/shop"})
        self.output(call_id, json.dumps({"output": output, "metadata": {"exit_code": code, "duration_seconds": 0.1}}))
        return call_id

    def command_end(self, call_id: str, code: int, output: str) -> None:
        self.record("event_msg", {"type": "exec_command_end", "call_id": call_id, "exit_code": code,
                                  "aggregated_output": output})  # fmt: skip

    def data(self) -> bytes:
        return b"".join(json.dumps(line).encode() + b"\n" for line in self.lines)


def exec_stream(items: list[dict[str, Any]], thread: str = "019a2d7a-exec") -> bytes:
    """A ``codex exec --json`` stream: its thread, one turn, these completed items."""
    events: list[dict[str, Any]] = [{"type": "thread.started", "thread_id": thread}, {"type": "turn.started"}]
    events += [{"type": "item.completed", "item": {"id": f"item_{n}", **item}} for n, item in enumerate(items)]
    events.append({"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 2}})
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


class GeminiChat:
    """A Gemini CLI chat, kept as its message list; written as 0.39+ JSONL or as a pre-0.39 document."""

    def __init__(self, session: str = "55b29702-test") -> None:
        self.session = session
        self.messages: list[dict[str, Any]] = []
        self.jsonl: list[dict[str, Any]] = [
            {"sessionId": session, "projectHash": "e3454", "startTime": T0, "lastUpdated": T0, "kind": "main"}
        ]
        self._n = itertools.count()
        self.add(
            {"type": "user", "content": [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}
        )

    def add(self, message: dict[str, Any], message_id: str | None = None) -> dict[str, Any]:
        n = next(self._n)
        message = {"id": message_id or f"m{n:03d}", "timestamp": _stamp(n), **message}
        self.messages = [m for m in self.messages if m["id"] != message["id"]] + [message]
        self.jsonl.append(message)
        self.jsonl.append({"$set": {"lastUpdated": message["timestamp"]}})
        return message

    def prompt(self, text: str) -> None:
        self.add({"type": "user", "content": [{"text": text}]})

    def reply(self, text: str = "", calls: list[dict[str, Any]] | None = None, message_id: str | None = None) -> str:
        tokens = {"input": 100, "output": 10, "cached": 40, "thoughts": 5, "total": 115}
        message: dict[str, Any] = {"type": "gemini", "content": text, "model": "gemini-2.5-pro", "tokens": tokens}
        if calls is not None:
            message["toolCalls"] = calls
        return str(self.add(message, message_id)["id"])

    def rewind(self, message_id: str) -> None:
        at = next(i for i, m in enumerate(self.messages) if m["id"] == message_id)
        self.messages = self.messages[:at]
        self.jsonl.append({"$rewindTo": message_id})

    def data(self) -> bytes:
        return b"".join(json.dumps(line).encode() + b"\n" for line in self.jsonl)

    def document(self) -> bytes:
        head = {k: v for k, v in self.jsonl[0].items() if k != "kind"}
        return json.dumps({**head, "messages": self.messages}, indent=2).encode()


_CALL_IDS = itertools.count(1780995205646)


def tool_call(name: str, args: dict[str, Any], output: str | None = None, error: str | None = None,
              status: str = "success", call_id: str | None = None) -> dict[str, Any]:  # fmt: skip
    """One ``toolCalls`` entry with its function response inside."""
    response = {"error": error} if error is not None else {"output": output or ""}
    call_id = call_id or f"{name}_{next(_CALL_IDS)}_0"
    return {
        "id": call_id,
        "name": name,
        "args": args,
        "result": [{"functionResponse": {"id": call_id, "name": name, "response": response}}],
        "status": status,
        "timestamp": T0,
    }
