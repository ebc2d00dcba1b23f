"""Codex and Gemini sessions followed by the real daemon equal one batch scan of the final files.

- the real Codex rollout kept at two moments (``chasekb__codex@6cae70e2`` holds a byte-exact prefix
  of the file in ``chasekb__codex``): the earlier version is written, then grown into the later one
  in random pieces; the daemon's figures equal ``omkd scan`` of the later file;
- a Gemini JSONL chat with messages written again under their id and a ``$rewindTo``, appended in
  random pieces;
- a Gemini whole-document session rewritten in place after each message, as the CLI before 0.39 did.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import orjson

from omkd.testing import DaemonProcess
from tests.agent_lines import GeminiChat, tool_call
from tests.live_helpers import append, omkd, wait_lines
from tests.test_stream_equivalence import comparable

ROLLOUT: Final = Path("2026/04/08/rollout-2026-04-08T08-27-18-019d6d46-a233-7eb1-8e9b-923935d7d416.jsonl")
SEED: Final = 20261201


def scan_of(tmp_path: Path, root: Path) -> dict[str, Any]:
    scanned = omkd("scan", "--json", "--home", tmp_path / "home", root, timeout=120)
    assert scanned.returncode == 0, scanned.stderr
    document: dict[str, Any] = orjson.loads(scanned.stdout)
    return document


def pieces(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(data)), min(count, len(data) - 1)))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def test_a_codex_rollout_grown_live_equals_the_scan_of_its_final_version(real_fixtures: Path, tmp_path: Path) -> None:
    earlier = (real_fixtures / "chasekb__codex@6cae70e2" / ROLLOUT).read_bytes()
    final = (real_fixtures / "chasekb__codex" / ROLLOUT).read_bytes()
    assert (final.startswith(earlier), len(final) > len(earlier)) == (True, True)
    root = tmp_path / "sessions"
    target = root / ROLLOUT
    rng = random.Random(SEED)  # noqa: S311 (reproducible test data)
    with DaemonProcess(tmp_path, [root]) as daemon:
        append(target, earlier)
        daemon.start()
        wait_lines(daemon, earlier.count(b"\n"))
        for piece in pieces(final[len(earlier) :], rng, 40):
            append(target, piece)
        wait_lines(daemon, final.count(b"\n"))
        live = daemon.get("/api/v1/status")
        assert daemon.stop() == 0, daemon.log_text()
    batch = scan_of(tmp_path, root)
    assert comparable(live) == comparable(batch)
    assert [(s["skill"], s["agent"]) for s in live["skills"]][:1] == [("general", "codex")]


def gemini_chat() -> GeminiChat:
    chat = GeminiChat()
    chat.prompt("where is the docket?")
    chat.reply("Looking [unknown] where it lives.", message_id="g1")
    missing = tool_call("glob", {"pattern": "**/DOCKET.md"}, 'No files found matching pattern "**/DOCKET.md"')
    chat.reply("Looking [unknown] where it lives.", [missing], message_id="g1")  # written again, with its call
    chat.reply("", [tool_call("read_file", {"absolute_path": "/v/DOCKET.md"}, error="File not found: /v/DOCKET.md",
                              status="error")], message_id="g2")  # fmt: skip
    chat.rewind("g2")
    chat.prompt("it is under !/")
    chat.reply("", [tool_call("activate_skill", {"name": "docket"}, '<activated_skill name="docket">')])
    chat.reply("", [tool_call("grep_search", {"pattern": "owner"}, 'No matches found for pattern "owner" in "."')])
    chat.reply("Found the docket; it has no owner.")
    return chat


def test_a_gemini_jsonl_chat_appended_live_equals_the_scan(tmp_path: Path) -> None:
    data = gemini_chat().data()
    root = tmp_path / "tmp"
    target = root / "proj" / "chats" / "session-2026-06-09T08-50-55b29702.jsonl"
    rng = random.Random(SEED)  # noqa: S311 (reproducible test data)
    with DaemonProcess(tmp_path, [root]) as daemon:
        root.mkdir()
        daemon.start()
        for piece in pieces(data, rng, 25):
            append(target, piece)
        wait_lines(daemon, data.count(b"\n"))
        live = daemon.get("/api/v1/status")
        assert daemon.stop() == 0, daemon.log_text()
    batch = scan_of(tmp_path, root)
    assert comparable(live) == comparable(batch)
    # by hand: general (glob miss, read miss kept across the rewind, the marker once), then docket
    # (a grep miss)
    rows = {(s["skill"], s["agent"]): (s["segments"], s["by_type"]["failed_search"]) for s in live["skills"]}
    assert rows == {("general", "gemini"): (1, 2), ("docket", "gemini"): (1, 1)}
    assert live["overall"]["by_type"]["explicit_marker"] == 1


def test_a_gemini_document_rewritten_after_each_message_equals_the_scan_of_its_last_version(tmp_path: Path) -> None:
    chat = GeminiChat()
    root = tmp_path / "tmp"
    target = root / "proj" / "chats" / "session-2025-10-27T19-55-981c87cb.json"
    target.parent.mkdir(parents=True)
    steps: list[Callable[[], object]] = [
        lambda: chat.prompt("audit the repo"),
        lambda: chat.reply(
            "", [tool_call("list_directory", {"path": "."}, error="Path must be absolute: .", status="error")]
        ),
        lambda: chat.reply("", [tool_call("glob", {"pattern": "tests/**"}, "No files found")]),
        lambda: chat.reply("I think [inferred] there are no tests."),
    ]
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        for step in steps:
            step()
            target.write_bytes(chat.document())  # in place, as Node's writeFileSync does
            expected = len(chat.messages)

            def read(expected: int = expected) -> bool:
                return bool(daemon.get("/api/v1/status")["pipeline"]["records"] >= expected)

            daemon.wait_for(read, f"{expected} messages read")
        batch = scan_of(tmp_path, root)
        daemon.wait_for(lambda: comparable(daemon.get("/api/v1/status")) == comparable(batch), "the last version")
        assert daemon.stop() == 0, daemon.log_text()
    [general] = batch["skills"]
    assert (general["agent"], general["segments"], general["tools"]["calls"], general["gap_segments"]) == (
        "gemini",
        1,
        2,
        1,
    )
    assert (general["by_type"]["failed_search"], general["by_type"]["explicit_marker"]) == (1, 1)
