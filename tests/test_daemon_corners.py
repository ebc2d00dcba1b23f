"""Corners where the real daemon and ``omkd scan`` over the same bytes disagreed (issue 29, item 10):
each a hand-made reproduction on the real daemon (``omkd run`` as a subprocess), compared with
``omkd scan --json`` of the same bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import orjson
import pytest

from omkd.testing import DaemonProcess
from tests import claude_lines as cl
from tests.agent_lines import GeminiChat, exec_stream, tool_call
from tests.live_helpers import append, family, omkd, session_bytes, wait_lines

pytestmark = pytest.mark.slow

SINCE: Final = "2000-01-01"
"""The scan's window: from a date every record here is after (the daemon's ends now and is 3,650
days long), so a segment without any timestamp is outside both windows."""
CHAT: Final = Path("proj/chats/session-2025-10-27T19-55-981c87cb.json")
"""A Gemini CLI chat as the CLI before 0.39 wrote it: one JSON document, rewritten in place."""
SUBAGENT: Final = Path("-home-dev-shop/6f1c2a9e-4b7d-4c1e-9a3f-2d8e5b7c0a11/subagents/agent-a1b2c3.jsonl")


def scan_of(workdir: Path, *paths: Path) -> dict[str, Any]:
    """``omkd scan --json --since SINCE`` over ``paths``."""
    scanned = omkd("scan", "--json", "--since", SINCE, "--home", workdir / "home", *paths)
    assert scanned.returncode == 0, scanned.stderr
    document: dict[str, Any] = orjson.loads(scanned.stdout)
    return document


def segments_by_row(samples: dict[str, float]) -> dict[str, float]:
    """``omkd_segments_total`` by its labels (the all-time count of segments folded per row)."""
    return {k.split("{", 1)[1].rstrip("}"): v for k, v in family(samples, "omkd_segments_total").items() if "{" in k}


def test_a_subagent_stream_without_timestamps_is_given_up_as_general_like_the_scan(tmp_path: Path) -> None:
    """A ``codex exec --json`` stream at a sub-agent's path has no timestamp at all: no event time
    measures its wait for a link. The scan folds it as ``general`` at its end; the daemon gives it
    up after ``segments.subagent_link_timeout`` of waiting (it used to hold it for ever: not
    folded, not counted in ``omkd_segments_total``, nor among the segments outside the window)."""
    items: list[dict[str, Any]] = [
        {"type": "agent_message", "text": "I am not sure where the runbook is."},
        {"type": "command_execution", "command": "bash -lc 'ls docs/runbook.md'", "exit_code": 2,
         "aggregated_output": "ls: cannot access 'docs/runbook.md': No such file or directory", "status": "failed"},
    ]  # fmt: skip
    data = exec_stream(items)
    root = tmp_path / "projects"
    append(root / SUBAGENT, data)
    batch = scan_of(tmp_path, root)
    assert (batch["overall"]["segments"], batch["pipeline"]["segments_outside_window"]) == (0, 1)
    with DaemonProcess(tmp_path, [root], '[segments]\nsubagent_link_timeout = "1s"\n') as daemon:
        daemon.start()
        wait_lines(daemon, data.count(b"\n"))
        daemon.wait_for(lambda: sum(segments_by_row(daemon.metrics()).values()) > 0, "the segment given up", 40)
        status = daemon.get("/api/v1/status")
        assert segments_by_row(daemon.metrics()) == {'agent="codex",skill="general"': 1.0}
        assert daemon.stop() == 0
    assert status["pipeline"]["segments_outside_window"] == batch["pipeline"]["segments_outside_window"]
    assert status["overall"]["segments"] == batch["overall"]["segments"]


def gemini_document() -> bytes:
    chat = GeminiChat()
    chat.prompt("audit the repo")
    chat.reply("", [tool_call("glob", {"pattern": "tests/**"}, "No files found")])
    chat.reply("I think [inferred] there are no tests.")
    return chat.document()


def pipeline_of(report: dict[str, Any]) -> dict[str, Any]:
    """What was read: bytes, lines, records, bad lines, files."""
    return {k: report["pipeline"][k] for k in ("bytes", "lines", "records", "bad_lines", "files")}


def read_bytes_reach(daemon: DaemonProcess, count: int) -> None:
    daemon.wait_for(lambda: daemon.metrics().get("omkd_read_bytes_total", 0) >= count, f"{count} bytes read")


def test_a_gemini_document_caught_mid_write_counts_only_its_whole_version(tmp_path: Path) -> None:
    """The daemon reads a document while it is being written (its first half does not parse), then
    again from 0 once it is whole: what was read of the unfinished version leaves the pipeline, as a
    version replaced by the next one (it used to stay in ``pipeline.bytes``)."""
    document = gemini_document()
    root = tmp_path / "tmp"
    target = root / CHAT
    target.parent.mkdir(parents=True)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        with target.open("wb") as handle:
            handle.write(document[: len(document) // 2])
            handle.flush()
            read_bytes_reach(daemon, len(document) // 2)
            handle.write(document[len(document) // 2 :])
        read_bytes_reach(daemon, len(document) // 2 + len(document))
        daemon.wait_caught_up()
        wait_lines(daemon, document.count(b"\n"))
        status = daemon.get("/api/v1/status")
        assert daemon.stop() == 0
    batch = scan_of(tmp_path, root)
    assert status["overall"]["segments"] == batch["overall"]["segments"] > 0
    assert pipeline_of(status) == pipeline_of(batch)


def test_a_gemini_document_that_never_parses_then_is_deleted_counts_as_the_scan_of_it(tmp_path: Path) -> None:
    """A document cut short for good (a crash while the CLI wrote it), read, then deleted: its stream
    ends, its lines and its ``invalid_json`` bad line count, as ``omkd scan`` of the same bytes counts
    them (the counters its closing added used to be lost)."""
    cut = gemini_document()[:300]
    root = tmp_path / "tmp"
    append(root / CHAT, cut)
    copy = tmp_path / "copy"
    append(copy / CHAT, cut)
    with DaemonProcess(tmp_path, [root], '[tail]\nrescan_interval = "1s"\n') as daemon:
        daemon.start()
        read_bytes_reach(daemon, len(cut))
        (root / CHAT).unlink()
        daemon.wait_for(lambda: daemon.metrics().get("omkd_files_deleted_total", 0) >= 1, "the deletion seen")
        daemon.wait_for(lambda: daemon.get("/api/v1/status")["pipeline"]["lines"] > 0, "the closing counted", 10)
        status = daemon.get("/api/v1/status")
        assert daemon.stop() == 0
    batch = scan_of(tmp_path, copy)
    assert batch["pipeline"]["bad_lines"] == {"invalid_json": 1}
    assert pipeline_of(status) == pipeline_of(batch)


def interrupted_in_a_skill_call() -> tuple[bytes, bytes]:
    """A session that stops inside an unanswered ``Skill`` call (the Glob of the same message was
    answered, and found nothing), and what the session writes when it goes on: the call's error."""
    records = [
        cl.user("deploy the shop"),
        cl.tool_use("toolu_skill", "Skill", {"skill": "deploy"}, "msg_1"),
        cl.tool_use("toolu_glob", "Glob", {"pattern": "docs/**/runbook.md"}, "msg_1"),
        cl.tool_result("toolu_glob", "No files found", cl.GLOB_EMPTY),
    ]
    failed = [cl.tool_result("toolu_skill", "<tool_use_error>Unknown skill: deploy</tool_use_error>", is_error=True)]
    for record in (*records, *failed):
        record["timestamp"] = "2026-01-01T00:00:00.000Z"
    return cl.jsonl(records), cl.jsonl(failed)


def rows(report: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Segments and failed searches per skill."""
    return {s["skill"]: (s["segments"], s["by_type"]["failed_search"]) for s in report["skills"]}


def test_a_stream_quiet_inside_an_unanswered_skill_call_settles_as_the_scan_and_reopens(tmp_path: Path) -> None:
    """The launch stays tentative while the call is unanswered. Once the stream has been quiet for
    ``segments.idle_close`` the daemon counts the segment as a batch read does at its end (it used to
    settle it only when the stream closed: never, for a file that goes quiet). When the file grows
    with the call's error, the launch is undone in both: the segment is taken back."""
    first, more = interrupted_in_a_skill_call()
    root = tmp_path / "projects"
    session = root / "-home-dev-shop" / "6f1c2a9e-4b7d-4c1e-9a3f-2d8e5b7c0a11.jsonl"
    append(session, first)
    quiet = rows(scan_of(tmp_path, root))
    assert quiet == {"deploy": (1, 1)}
    with DaemonProcess(tmp_path, [root], '[segments]\nidle_close = "1s"\n') as daemon:
        daemon.start()
        wait_lines(daemon, first.count(b"\n"))
        daemon.wait_for(lambda: rows(daemon.get("/api/v1/status")) == quiet, "the quiet stream settled", 40)
        append(session, more)
        grown = rows(scan_of(tmp_path, root))
        assert grown == {"general": (1, 1)}
        wait_lines(daemon, (first + more).count(b"\n"))
        daemon.wait_for(lambda: rows(daemon.get("/api/v1/status")) == grown, "the launch undone", 10)
        status = daemon.get("/api/v1/status")
        assert daemon.stop() == 0
    assert status["overall"]["segments"] == 1


def test_a_launch_left_unanswered_before_a_restart_settles_once_quiet_after_it(tmp_path: Path) -> None:
    """The held launch lives in the parser state the checkpoint saved: after a restart (the file not
    grown) it is held again, and settles when its stream is quiet."""
    first, _ = interrupted_in_a_skill_call()
    root = tmp_path / "projects"
    append(root / "-home-dev-shop" / "6f1c2a9e-4b7d-4c1e-9a3f-2d8e5b7c0a11.jsonl", first)
    with DaemonProcess(tmp_path, [root], '[segments]\nidle_close = "1000d"\n') as daemon:
        daemon.start()
        wait_lines(daemon, first.count(b"\n"))
        assert rows(daemon.get("/api/v1/status")) == {}
        assert daemon.stop() == 0
        daemon.write_config('[segments]\nidle_close = "1s"\n')
        daemon.start()
        daemon.wait_for(lambda: rows(daemon.get("/api/v1/status")) == {"deploy": (1, 1)}, "settled after start", 40)
        assert daemon.stop() == 0


def gaps_named(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Each gap's type and the names it points at: the file name and the path below the root."""
    return sorted((g["type"], g["stream"], g["file"]) for g in report["gaps"])


@pytest.mark.parametrize("header", [True, False], ids=["claude code session", "gemini chat without its header"])
def test_a_renamed_transcript_is_reported_under_its_current_name(tmp_path: Path, header: bool) -> None:
    """A transcript read, renamed below its root, then grown: its gaps name the file as it is now
    (``stream``, ``file``), and a stream whose segments are keyed by its name (nothing in its content
    tells it apart: a Gemini JSONL chat continued without its header) has the keys of the new name,
    as ``omkd scan`` of the renamed file says — whether the daemon read it before the rename or not."""
    root = tmp_path / "projects"
    if header:
        old, new = root / "-home-dev-shop" / "a.jsonl", root / "-home-dev-shop" / "b.jsonl"
        first, more = session_bytes([("deploy", "miss")]), session_bytes([("deploy", "misses3")], 5)
    else:
        old, new = root / "proj" / "chats" / "session-a.jsonl", root / "proj" / "chats" / "session-b.jsonl"
        chat = GeminiChat()
        chat.prompt("where is the docket?")
        chat.reply(
            "", [tool_call("glob", {"pattern": "**/DOCKET.md"}, 'No files found matching pattern "**/DOCKET.md"')]
        )
        lines = chat.data().splitlines(keepends=True)[1:]  # without the session header
        first = b"".join(lines)
        chat.reply("", [tool_call("grep_search", {"pattern": "owner"}, 'No matches found for pattern "owner" in "."')])
        more = b"".join(chat.data().splitlines(keepends=True)[1 + len(lines) :])
    append(old, first)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        wait_lines(daemon, first.count(b"\n"))
        old.rename(new)
        append(new, more)
        wait_lines(daemon, (first + more).count(b"\n"))
        status = daemon.get("/api/v1/status")
        assert daemon.stop() == 0
    batch = scan_of(tmp_path, root)
    assert {g[2] for g in gaps_named(batch)} == {new.relative_to(root).as_posix()}
    assert gaps_named(status) == gaps_named(batch)
    assert status["watermark"]["fingerprint"] == batch["watermark"]["fingerprint"]


def test_one_relative_path_in_two_roots_keeps_the_copy_read_further(tmp_path: Path) -> None:
    """Two roots hold one relative path: a session, and an earlier copy of it (a backup, a sync) that
    stops inside its second segment. Their segments have the same keys; the daemon keeps, of each, the
    copy read further, as ``omkd scan`` of both roots does, whichever it reads last (it used to keep
    the copy read last under one name: here the shorter one)."""
    relative = Path("-home-dev-shop/6f1c2a9e-4b7d-4c1e-9a3f-2d8e5b7c0a11.jsonl")
    full = session_bytes([("deploy", "miss"), ("db-migrate", "misses3"), ("deploy", "hedge")])
    lines = full.splitlines(keepends=True)
    earlier = b"".join(lines[: len(lines) // 2])
    first, second = tmp_path / "projects", tmp_path / "backup"
    append(first / relative, full)
    second.mkdir()
    with DaemonProcess(tmp_path, [first, second], '[tail]\nrescan_interval = "1s"\n') as daemon:
        daemon.start()
        wait_lines(daemon, full.count(b"\n"))
        append(second / relative, earlier)  # read last
        wait_lines(daemon, (full + earlier).count(b"\n"))
        status = daemon.get("/api/v1/status")
        assert daemon.stop() == 0
    batch = scan_of(tmp_path, first, second)
    assert rows(batch) == {"deploy": (2, 1), "db-migrate": (1, 3)}
    assert rows(status) == rows(batch)
    assert status["watermark"]["fingerprint"] == batch["watermark"]["fingerprint"]
