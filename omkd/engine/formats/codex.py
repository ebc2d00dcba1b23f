"""Codex CLI records -> omkd events: session rollouts and ``codex exec --json`` streams.

A rollout (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``, 0.40 to 0.154 seen) is one
``{timestamp, type, payload}`` per line. What omkd reads of it:

- ``response_item`` messages: ``user`` texts are typed prompts unless Codex injected them
  (environment context, the AGENTS.md text, permissions and skill lists: ``NOT_TYPED``) or the
  rollout is a sub-agent's (its first ``session_meta`` has ``source: {"subagent": …}``: a review,
  a guardian, a spawned thread; the launching agent wrote its prompts, spec §2); a
  ``<skill><name>…</name>`` injection is an explicit skill launch (of the work after the prompt
  that named it, whichever of the two is written first); ``assistant`` texts and
  ``reasoning`` summaries (as thinking) are the agent's words. The ``event_msg`` mirrors of
  the same messages (``user_message``, ``agent_message``) are skipped, or each counts twice.
- ``function_call`` / ``custom_tool_call`` / ``tool_search_call`` and their outputs, paired by
  ``call_id``. There is no error flag: the exit code is read from the output, and the output
  given to the rules is the command's own, without its headers (``codex_output.py``).
- ``web_search_call`` records the query and never its result: skipped (and counted), since
  whether it found anything cannot be known.
- ``compacted`` lines are compactions (the ``context_compacted`` event beside each is the same one).
- ``turn_context`` (one before each turn) names the model of the replies that follow it.

An assistant "message" (one model response) is every agent item between two inputs (a user
message or a tool output): it counts one turn, as one Claude Code message does.

``codex exec --json`` (a run's stdout, kept by CI jobs) has ``thread.started`` and
``item.completed`` events whose items carry the command, its output and its exit code.
"""

from __future__ import annotations

import re
from typing import Any, Final

import orjson

from omkd.engine.counters import StreamCounters
from omkd.engine.events import (
    AssistantText,
    CommandInvoked,
    Compaction,
    Event,
    SidechainPrompt,
    ToolCall,
    ToolResult,
    UserPrompt,
)
from omkd.engine.formats import CODEX, codex_prompts
from omkd.engine.formats.codex_output import (
    SANDBOXED_EXIT,
    SESSION_ID,
    parse_output,
    shell_command,
    still_running,
    unwrap_shell,
)
from omkd.engine.formats.common import BAD_SHAPE, MAX_TYPE_CHARS, AdapterBase, bounded, model_name, parse_timestamp

SKILL_INJECTION: Final = re.compile(r"^\s*<skill>\s*<name>\s*([^<]+?)\s*</name>")
QUIET_TYPES: Final = frozenset({"session_meta", "turn_context", "world_state"})
SKIPPED_EVENTS: Final = "event_msg"


class CodexAdapter(AdapterBase):
    """Decodes one Codex stream's lines (a rollout, or ``codex exec --json``)."""

    agent = CODEX

    __slots__ = ("_message", "_model", "_partial", "_polls", "_running", "_sessions", "_skill", "version")

    def __init__(self, counters: StreamCounters | None = None) -> None:
        super().__init__(counters)
        self.version: str | None = None
        #: the id of the assistant message being written ("" between an input and the next reply).
        self._message = ""
        #: the model of the replies from now on (the last ``turn_context``'s; "" before one says).
        self._model = ""
        #: calls whose output came while their command still ran: their end event answers them.
        self._running: set[str] = set()
        #: a running command's session id -> its call; a ``write_stdin`` poll -> the command it polls;
        #: what a running command printed so far.
        self._sessions: dict[str, str] = {}
        self._polls: dict[str, str] = {}
        self._partial: dict[str, str] = {}
        #: a skill injection not handed out yet (``_with_skill``).
        self._skill: CommandInvoked | None = None

    @property
    def stream_key(self) -> str | None:
        return self.session_id

    def decode(self, line: bytes) -> list[Event]:
        record = self._record(line)
        if record is None:
            return []
        kind = record.get("type")
        payload = record.get("payload")
        if isinstance(kind, str) and "." in kind and payload is None:
            return self._exec_event(record, kind)
        if not isinstance(payload, dict):
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        timestamp = parse_timestamp(record.get("timestamp"))
        if kind == "response_item":
            return self._with_skill(self._item(payload, timestamp))
        if kind == "event_msg":
            event = payload.get("type")
            call = payload.get("call_id")
            if event == "exec_command_end" and isinstance(call, str) and call in self._running:
                return self._command_end(payload, timestamp)
            self.counters.ignored[SKIPPED_EVENTS] += 1
            return []
        if kind == "compacted":
            return [Compaction(timestamp)]  # (its ``context_compacted`` event is the same one)
        if isinstance(kind, str) and kind in QUIET_TYPES:
            self._meta(kind, payload)
            self.counters.ignored[kind] += 1
            return []
        self._count_unknown(kind)
        return []

    def _meta(self, kind: str, payload: dict[str, Any]) -> None:
        cwd = payload.get("cwd")
        if isinstance(cwd, str) and cwd:
            self.cwd = cwd
        model = model_name(payload.get("model"))
        if model:
            self._model = model
        if kind == "session_meta" and self.session_id is None:
            # A sub-agent rollout repeats its parent's session_meta after its own: the first names it.
            session = payload.get("id")
            if isinstance(session, str) and session:
                self.session_id = self.first_uuid = session
            version = payload.get("cli_version")
            if isinstance(version, str):
                self.version = version[:32]
            source = payload.get("source")
            self.subagent = isinstance(source, dict) and "subagent" in source

    def _with_skill(self, events: list[Event]) -> list[Event]:
        """A skill injection waits for what comes next: the prompt that named it (``$skill``) may be
        written after it, and the skill is the work that follows the prompt, not cut off by it."""
        skill = self._skill
        if skill is None or not events:
            return events
        self._skill = None
        if isinstance(events[0], (UserPrompt, SidechainPrompt)):
            return [events[0], skill, *events[1:]]
        return [skill, *events]

    def _reply(self) -> str:
        if not self._message:
            self._message = f"codex-{self.line}"
        return self._message

    def _item(self, payload: dict[str, Any], timestamp: float | None) -> list[Event]:
        item = payload.get("type")
        if item == "message":
            return self._message_item(payload, timestamp)
        if item == "reasoning":
            summary = payload.get("summary")
            texts = [
                part["text"]
                for part in (summary if isinstance(summary, list) else ())
                if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"].strip()
            ]
            message = self._reply()
            return [AssistantText(timestamp, message, text, True, None, None, self._model) for text in texts]
        if item in ("function_call", "custom_tool_call", "tool_search_call", "local_shell_call"):
            return self._call(payload, timestamp)
        if item in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
            self._message = ""
            call_id = payload.get("call_id")
            if not isinstance(call_id, str):
                self.counters.bad_lines[BAD_SHAPE] += 1
                return []
            output = payload.get("output")
            polled = self._polls.pop(call_id, None)
            if polled is not None:
                return self._poll_answer(call_id, polled, output, timestamp)
            if isinstance(output, str) and still_running(output):
                self._running.add(call_id)
                session = SESSION_ID.search(output)
                if session is not None:
                    self._sessions[session.group(1)] = call_id
                    self._partial[call_id] = parse_output(output)[1]
                self.counters.ignored["still_running"] += 1
                return []
            failed, text, code = parse_output(output)
            detail: dict[str, object] | None = {"exit_code": code} if code is not None else None
            sandboxed = SANDBOXED_EXIT.match(output) if isinstance(output, str) else None
            if sandboxed is not None:
                detail = {"exit_code": code, "stdout": sandboxed.group(2)}
            return [ToolResult(timestamp, call_id, failed, text, detail)]
        if item == "web_search_call":
            self.counters.ignored["web_search_call"] += 1  # its result is never written
            return []
        self._count_unknown(f"response_item/{item}")
        return []

    def _poll_answer(self, poll_id: str, command_id: str, output: object, timestamp: float | None) -> list[Event]:
        """The answer to a ``write_stdin`` poll of a command still running: the poll itself succeeded;
        when the output ends the command (its exit code), the command's call is answered with what
        it printed over all the polls."""
        failed, text, code = parse_output(output)
        events: list[Event] = [ToolResult(timestamp, poll_id, False, text, None)]
        if command_id not in self._running:
            return events
        if isinstance(output, str) and still_running(output):
            self._partial[command_id] = self._partial.get(command_id, "") + text
            return events
        self._forget_session(command_id)
        whole = self._partial.pop(command_id, "") + text
        detail = {"exit_code": code} if code is not None else None
        return [*events, ToolResult(timestamp, command_id, failed, whole, detail)]

    def _forget_session(self, command_id: str) -> None:
        self._running.discard(command_id)
        self._sessions = {k: v for k, v in self._sessions.items() if v != command_id}

    def _command_end(self, payload: dict[str, Any], timestamp: float | None) -> list[Event]:
        call_id = payload["call_id"]
        self._forget_session(call_id)
        self._partial.pop(call_id, None)
        code = payload.get("exit_code")
        code = code if isinstance(code, int) and not isinstance(code, bool) else None
        output = payload.get("aggregated_output")
        failed = code is not None and code != 0
        detail: dict[str, object] | None = {"exit_code": code} if code is not None else None
        stdout = payload.get("stdout")
        if detail is not None and isinstance(stdout, str):
            detail["stdout"] = stdout
        return [ToolResult(timestamp, call_id, failed, output if isinstance(output, str) else "", detail)]

    def _message_item(self, payload: dict[str, Any], timestamp: float | None) -> list[Event]:
        role = payload.get("role")
        content = payload.get("content")
        if not isinstance(content, list):
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        texts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if role == "assistant":
            reply = self._reply()
            return [AssistantText(timestamp, reply, text, False, None, None, self._model) for text in texts]
        if role != "user":
            self.counters.ignored[f"message/{role}"[:MAX_TYPE_CHARS]] += 1
            return []
        self._message = ""
        text = "\n".join(texts)
        skill = SKILL_INJECTION.match(text)
        if skill is not None:
            self._skill = CommandInvoked(timestamp, skill.group(1))
            return []
        if text.lstrip().startswith(codex_prompts.NOT_TYPED):
            self.counters.ignored["injected_context"] += 1
            return []
        if self.subagent:
            self.counters.ignored["sidechain_prompt"] += 1
            return [SidechainPrompt(timestamp, text)]
        if codex_prompts.prompt_file_text(text):  # a custom prompt expanded: the person's turn, not their words
            self.counters.ignored["prompt_file_text"] += 1
            return [UserPrompt(timestamp, codex_prompts.prompt_arguments(text))]
        return [UserPrompt(timestamp, text)]

    def _call(self, payload: dict[str, Any], timestamp: float | None) -> list[Event]:
        name = payload.get("name") or payload.get("type")
        call_id = payload.get("call_id") or payload.get("id")
        if not isinstance(name, str) or not isinstance(call_id, str):
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        arguments: Any = payload.get("arguments", payload.get("input", payload.get("action")))
        if isinstance(arguments, str):
            try:
                arguments = orjson.loads(arguments) if arguments.startswith("{") else {"input": arguments}
            except orjson.JSONDecodeError:
                arguments = {"input": arguments}
        if not isinstance(arguments, dict):
            arguments = {}
        command = shell_command(arguments)
        if command is not None:
            arguments = {**arguments, "command": command}
        session = arguments.get("session_id")
        if name == "write_stdin" and str(session) in self._sessions:
            self._polls[call_id] = self._sessions[str(session)]
        return [ToolCall(timestamp, self._reply(), call_id, name, bounded(arguments), None, None, self._model)]

    def _exec_event(self, record: dict[str, Any], kind: str) -> list[Event]:
        """A ``codex exec --json`` event: a command, a message, reasoning (no timestamps)."""
        if kind == "thread.started":
            thread = record.get("thread_id")
            if isinstance(thread, str) and self.session_id is None:
                self.session_id = self.first_uuid = thread
            return []
        if kind == "turn.started":
            self._message = ""
        if kind != "item.completed":
            self.counters.ignored[kind[:MAX_TYPE_CHARS]] += 1
            return []
        item = record.get("item")
        if not isinstance(item, dict):
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        item_type = item.get("type") or item.get("item_type")
        item_id = item.get("id")
        if not isinstance(item_id, str):
            item_id = f"item-{self.line}"
        if item_type in ("agent_message", "assistant_message", "reasoning"):
            text = item.get("text")
            if not isinstance(text, str):
                return []
            return [AssistantText(None, self._reply(), text, item_type == "reasoning", None, None)]
        if item_type == "command_execution":
            command = item.get("command")
            if not isinstance(command, str):
                return []
            code = item.get("exit_code")
            code = code if isinstance(code, int) and not isinstance(code, bool) else None
            output = item.get("aggregated_output")
            failed = (code is not None and code != 0) or item.get("status") == "failed"
            script = unwrap_shell(command)
            call = ToolCall(None, self._reply(), item_id, "exec_command", {"command": script}, None, None)
            self._message = ""
            detail = {"exit_code": code} if code is not None else None
            return [call, ToolResult(None, item_id, failed, output if isinstance(output, str) else "", detail)]
        self.counters.ignored[f"item/{item_type}"[:MAX_TYPE_CHARS]] += 1
        return []
