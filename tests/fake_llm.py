"""A small real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions and the
Anthropic messages protocols and answers as a judge model would: for the LLM judge's tests.

Its verdict is a rule a test can predict: a sentence holding "might", "probably", "not sure"
or 可能 is uncertain, anything else is not; a gap wiki entry gets a summary naming what was
missing. ``mode`` makes it fail instead: ``error`` (HTTP 500), ``slow`` (answers after ``delay``
seconds), ``garbage`` (a reply without JSON; an empty summary).
Every request is recorded (path and body), so a test can count what reached the model.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

UNCERTAIN: Final = re.compile(r"might|probably|not sure|可能", re.IGNORECASE)
SENTENCE: Final = re.compile(r"^Sentence: (.*)$", re.MULTILINE)
MISSING: Final = re.compile(r"^Missing: (.*)$", re.MULTILINE)
"""A gap wiki entry's request (``engine/wiki/prose.py``): answered with a summary."""
PROMPT_TOKENS: Final = 300
COMPLETION_TOKENS: Final = 40


class FakeModel:
    def __init__(self) -> None:
        self.mode = "ok"
        self.delay = 2.0
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeModel:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def sentences(self) -> list[str]:
        """The sentences asked about, in order."""
        found = []
        for _, body in self.requests:
            user = body["messages"][-1]["content"]
            match = SENTENCE.search(user)
            found.append(match.group(1) if match else "")
        return found

    def prose(self, missing: str) -> str:
        """A wiki entry's summary: a sentence naming what was missing."""
        return f"The agents looked for {missing} and it does not exist;\nwrite it down."

    def verdict(self, sentence: str) -> str:
        uncertain = bool(UNCERTAIN.search(sentence))
        reason = "a hedged claim about a fact" if uncertain else "not about the agent's knowledge"
        return json.dumps({"is_uncertainty": uncertain, "confidence": 0.9, "reason": reason})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with model._lock:
                    model.requests.append((self.path, body))
                    mode, delay = model.mode, model.delay
                if mode == "error":
                    self._send(500, {"error": {"message": "the model is down", "type": "server_error"}})
                    return
                if mode == "slow":
                    time.sleep(delay)
                user = body["messages"][-1]["content"]
                found, missing = SENTENCE.search(user), MISSING.search(user)
                text = (
                    model.verdict(found.group(1) if found else "") if missing is None else model.prose(missing.group(1))
                )
                if mode == "garbage":
                    text = "I would rather not say." if missing is None else ""
                if self.path.endswith("/messages"):
                    self._send(200, anthropic_reply(body, text))
                else:
                    self._send(200, openai_reply(body, text))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        return Handler


def openai_reply(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": PROMPT_TOKENS,
            "completion_tokens": COMPLETION_TOKENS,
            "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
        },
    }


def anthropic_reply(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": PROMPT_TOKENS, "output_tokens": COMPLETION_TOKENS},
    }
