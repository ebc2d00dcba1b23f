"""Gemini CLI chats -> omkd events: JSONL chats (0.39+) and the older whole-document sessions.

A JSONL chat (``~/.gemini/tmp/<project>/chats/session-*.jsonl``) starts with a metadata line
(``sessionId``, ``kind``…), then messages ``{id, timestamp, type, content, toolCalls?,
thoughts?, tokens?, model?}`` and two control lines: ``{"$set": {…}}`` (``$set.messages`` is a full
checkpoint of the message list) and ``{"$rewindTo": id}``. A message that changes is appended
again under the same ``id``; a ``.json`` session (before 0.39) is one document with the
whole ``messages`` list, rewritten on every change. Both come to the same thing here: each
message is read whenever it is written, and what it adds is handed out once — its text the
first time it has one, each thought and each tool call once, a tool call when it has its
final status (with its result inside). So a chat read line by line as it grows, or a
document read again after each rewrite, gives the events of one reading of the final chat.

``$rewindTo`` drops messages from the chat the agent sees; the calls they made were made and
their misses stand (counted under ``ignored.rewind``). ``info``/``error``/``warning`` messages
are the CLI's own notices. A sub-agent's chat (metadata ``kind: "subagent"``) has no typed
prompts: its user messages are the launching agent's (``SidechainPrompt``, spec §2). Tool
results: ``status`` ``error`` is a failure, ``cancelled`` a cancellation; a shell call's exit
code is its output's ``Exit Code: N`` line.
"""

from __future__ import annotations

import re
from typing import Any, Final

import orjson

from omkd.engine.counters import StreamCounters
from omkd.engine.events import AssistantText, Event, SidechainPrompt, ToolCall, ToolResult, UserPrompt
from omkd.engine.formats import GEMINI
from omkd.engine.formats.common import (
    BAD_SHAPE,
    MAX_TYPE_CHARS,
    NOT_OBJECT,
    AdapterBase,
    bounded,
    model_name,
    parse_timestamp,
    why_unparsable,
)
from omkd.engine.formats.gemini_shell import shell_output

FINAL_STATUSES: Final = frozenset({"success", "error", "cancelled"})
CANCELLED_MARK: Final = "[Operation Cancelled]"
NOT_TYPED: Final = ("<session_context>", "# Initial Context", "<loaded_context>", "<state_snapshot>")
"""User texts the CLI writes: the session context, a sub-agent's initial context, snapshots."""
SUBAGENT_KIND: Final = "subagent"
"""The metadata ``kind`` of a sub-agent's chat (``chats/<parentSessionId>/<id>.jsonl``): its user
messages come from the agent that launched it, not the person (spec §2)."""
NOTICE_TYPES: Final = frozenset({"info", "error", "warning"})
_ARGUMENT_KEYS: Final = (("absolute_path", "file_path"), ("dir_path", "path"), ("name", "skill"))
"""Where Gemini's tools name what omkd's rules read elsewhere (``read_file``'s ``absolute_path``
is a ``file_path``, ``list_directory``'s ``dir_path`` a ``path``, ``activate_skill``'s ``name`` a
``skill``); the original keys stay. ``web_fetch`` names its URLs in its ``prompt`` (the first is its ``url``)."""


def _many_files_pattern(arguments: dict[str, Any]) -> str:
    """``read_many_files``' ``include`` globs and ``paths`` as one Glob pattern (``{docs/*.md,README.md}``)."""
    given = [str(p) for key in ("include", "paths") if isinstance(arguments.get(key), list) for p in arguments[key]]
    return ",".join(given).join("{}") if len(given) > 1 else "".join(given)


_URL: Final = re.compile(r"https?://[^\s<>`]+")
_MCP_DISPLAY: Final = re.compile(r"^(?P<tool>.+) \((?P<server>.+) MCP Server\)$")


def mcp_name(name: str, display: object) -> str:
    """An MCP tool's name as Claude Code and Codex write it, ``mcp__<server>__<tool>``, so that every
    MCP rule reads it (spec §3.1: a search tool by its name; §8.3: SQL writes). Gemini CLI names an MCP
    tool ``mcp_<server>_<tool>`` (newer versions), ``<server>__<tool>`` (a name two servers share) or
    the bare tool name; its ``displayName`` says ``<tool> (<server> MCP Server)`` in each. Only a name
    that is one of those three forms of its display name is renamed; any other stays as written."""
    if not isinstance(display, str) or not display.endswith(" MCP Server)"):
        return name
    match = _MCP_DISPLAY.match(display)
    if match is None:
        return name
    tool, server = match["tool"], match["server"]
    if name in (f"mcp_{server}_{tool}", f"{server}__{tool}", tool):
        return f"mcp__{server}__{tool}"
    return name


def _response_text(call: dict[str, Any]) -> tuple[str, bool]:
    """(text, has an ``error``) of a tool call's function response."""
    result = call.get("result")
    for part in result if isinstance(result, list) else ():
        function = part.get("functionResponse") if isinstance(part, dict) else None
        response = function.get("response") if isinstance(function, dict) else None
        if isinstance(response, dict):
            if "error" in response:
                return str(response["error"]), True
            output = response.get("output")
            if isinstance(output, str):
                return output, False
            return (orjson.dumps(output).decode() if output is not None else ""), False
    display = call.get("resultDisplay")
    return (display if isinstance(display, str) else ""), False


class GeminiAdapter(AdapterBase):
    """Decodes one Gemini CLI chat: JSONL lines (``decode``) or a whole document (``decode_document``)."""

    agent = GEMINI

    __slots__ = ("_calls", "_texts", "_thoughts", "event_lines", "kind", "started", "version")

    def __init__(self, counters: StreamCounters | None = None) -> None:
        super().__init__(counters)
        self.version: str | None = None
        self.kind: str | None = None
        #: the chat's ``startTime`` (with the session id, what tells two chats apart).
        self.started: str | None = None
        #: messages whose text was handed out; thoughts handed out per message; tool calls handed out.
        self._texts: set[str] = set()
        self._thoughts: dict[str, int] = {}
        self._calls: set[str] = set()
        #: the line (1-based message index) of each event of the document last decoded
        self.event_lines: list[int] = []

    @property
    def stream_key(self) -> str | None:
        """The session and when it started: Gemini's A2A server names every chat ``a2a-server``."""
        if self.session_id is None:
            return None
        return f"{self.session_id}@{self.started}" if self.started else self.session_id

    # --- input ---------------------------------------------------------------------------------

    def decode(self, line: bytes) -> list[Event]:
        """Events of one JSONL line."""
        record = self._record(line)
        if record is None:
            return []
        if "$set" in record:
            update = record["$set"]
            if not isinstance(update, dict):
                self.counters.bad_lines[BAD_SHAPE] += 1
                return []
            self._metadata(update)
            messages = update.get("messages")
            if not isinstance(messages, list):
                self.counters.ignored["set"] += 1
                return []
            return self._messages(messages, records=False)
        if "$rewindTo" in record:
            self.counters.ignored["rewind"] += 1
            return []
        if "type" not in record and "sessionId" in record:
            self._metadata(record)
            self.counters.ignored["metadata"] += 1
            return []
        return self._message(record)

    def decode_document(self, data: bytes) -> list[Event] | None:
        """Events of a whole ``session-*.json`` document (read again after each rewrite); None when
        the bytes are not a chat document (yet: it may be being written), counted as a bad line."""
        self.line = 0
        try:
            document = orjson.loads(data)
        except orjson.JSONDecodeError:
            self.counters.bad_lines[why_unparsable(data)] += 1
            return None
        if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
            self.counters.bad_lines[NOT_OBJECT if not isinstance(document, dict) else BAD_SHAPE] += 1
            return None
        self._metadata(document)
        return self._messages(document["messages"], records=True)

    def _messages(self, messages: list[Any], records: bool) -> list[Event]:
        """Events of a message list: a document's (each message is a record, its line is its
        1-based index) or a ``$set`` checkpoint's (one line, its messages mostly read already)."""
        events: list[Event] = []
        lines: list[int] = []
        line = self.line
        for index, message in enumerate(messages, 1):
            if records:
                self.line = index
                self.counters.records += 1
            try:
                events.extend(self._message(message))
            except (TypeError, AttributeError, KeyError, ValueError):
                self.counters.bad_lines[BAD_SHAPE] += 1  # a message of shapes the rules do not expect
            lines.extend([index] * (len(events) - len(lines)))
        if not records:
            self.line = line
        else:
            self.event_lines = lines
        return events

    def _metadata(self, record: dict[str, Any]) -> None:
        session = record.get("sessionId")
        if isinstance(session, str) and session and self.session_id is None:
            self.session_id = self.first_uuid = session
            started = record.get("startTime")
            if isinstance(started, str):
                self.started = started[:40]
        kind = record.get("kind")
        if isinstance(kind, str):
            self.kind = kind[:MAX_TYPE_CHARS]
            self.subagent = kind == SUBAGENT_KIND
        directories = record.get("directories")
        if isinstance(directories, list) and directories and isinstance(directories[0], str):
            self.cwd = directories[0]

    def _message(self, message: object) -> list[Event]:
        if not isinstance(message, dict):
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        kind = message.get("type")
        message_id = message.get("id")
        if not isinstance(message_id, str):
            message_id = f"line-{self.line}"
        timestamp = parse_timestamp(message.get("timestamp"))
        if kind == "gemini":
            return self._reply(message, message_id, timestamp)
        if kind == "user":
            return self._user(message, message_id, timestamp)
        if isinstance(kind, str) and kind in NOTICE_TYPES:
            self.counters.ignored[f"notice/{kind}"] += 1
            return []
        self._count_unknown(kind)
        return []

    def _user(self, message: dict[str, Any], message_id: str, timestamp: float | None) -> list[Event]:
        if message_id in self._texts:
            return []
        content = message.get("content")
        if isinstance(content, list):
            if any(isinstance(p, dict) and "functionResponse" in p for p in content):
                self.counters.ignored["function_response"] += 1  # the call's own record holds it
                return []
            text = "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        elif isinstance(content, str):
            text = content
        else:
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        self._texts.add(message_id)
        if text.lstrip().startswith(NOT_TYPED):
            self.counters.ignored["injected_context"] += 1
            return []
        if self.subagent:
            self.counters.ignored["sidechain_prompt"] += 1
            return [SidechainPrompt(timestamp, text)]
        return [UserPrompt(timestamp, text)]

    def _reply(self, message: dict[str, Any], message_id: str, timestamp: float | None) -> list[Event]:
        events: list[Event] = []
        usage = self._usage(message.get("tokens")) if message_id not in self._thoughts else None
        model = model_name(message.get("model"))
        thoughts = message.get("thoughts")
        done = self._thoughts.get(message_id, 0)
        if isinstance(thoughts, list):
            for thought in thoughts[done:]:
                if isinstance(thought, dict):
                    text = thought.get("description") or thought.get("subject")
                    if isinstance(text, str) and text.strip():
                        events.append(AssistantText(timestamp, message_id, text, True, None, usage, model))
            done = max(done, len(thoughts))
        self._thoughts[message_id] = done
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        if isinstance(content, str) and content.strip() and message_id not in self._texts:
            self._texts.add(message_id)
            events.append(AssistantText(timestamp, message_id, content, False, None, usage, model))
        calls = message.get("toolCalls")
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict):
                events.extend(self._tool_call(call, message_id, timestamp, usage, model))
        return events

    @staticmethod
    def _usage(tokens: object) -> dict[str, int] | None:
        if not isinstance(tokens, dict):
            return None
        values = {k: v for k, v in tokens.items() if isinstance(v, int) and not isinstance(v, bool)}
        cached = values.get("cached", 0)
        return {
            "input_tokens": max(values.get("input", 0) - cached, 0),
            "output_tokens": values.get("output", 0) + values.get("thoughts", 0),
            "cache_read_input_tokens": cached,
        }

    def _tool_call(
        self,
        call: dict[str, Any],
        message_id: str,
        timestamp: float | None,
        usage: dict[str, int] | None,
        model: str = "",
    ) -> list[Event]:
        call_id, name, status = call.get("id"), call.get("name"), call.get("status")
        if not isinstance(call_id, str) or not isinstance(name, str):
            self.counters.bad_lines[BAD_SHAPE] += 1
            return []
        if call_id in self._calls or not isinstance(status, str) or status not in FINAL_STATUSES:
            return []  # handed out already, or still running: it is written again when it ends
        self._calls.add(call_id)
        name = mcp_name(name, call.get("displayName"))
        arguments = call.get("args")
        arguments = dict(arguments) if isinstance(arguments, dict) else {}
        for theirs, ours in _ARGUMENT_KEYS:
            if isinstance(arguments.get(theirs), str) and ours not in arguments:
                arguments[ours] = arguments[theirs]
        if name == "read_many_files" and "pattern" not in arguments:
            arguments["pattern"] = _many_files_pattern(arguments)
        elif name == "web_fetch" and "url" not in arguments and (url := _URL.search(str(arguments.get("prompt")))):
            arguments["url"] = url.group().rstrip(".,;:!?)]'\"")  # its prompt names the pages to fetch
        text, errored = _response_text(call)
        detail: dict[str, Any] | None = None
        if name == "run_shell_command":
            text, code = shell_output(text) if not errored else (text, None)
            detail = {"exit_code": code} if code is not None else None
            errored = errored or (code is not None and code != 0)
        if status == "cancelled" and CANCELLED_MARK not in text[:400]:
            text = f"{CANCELLED_MARK} {text}"
        failed = errored or status != "success"
        when = parse_timestamp(call.get("timestamp")) or timestamp
        return [
            ToolCall(when, message_id, call_id, name, bounded(arguments), None, usage, model),
            ToolResult(when, call_id, failed, text, detail),
        ]
