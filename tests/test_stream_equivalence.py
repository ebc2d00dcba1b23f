"""Batch versus stream on the real daemon.

The real Claude Code fixture transcripts are written into a live root in random chunks
(split points anywhere, including inside multi-byte characters), interleaved across files,
while ``omkd run`` follows them; on the way the daemon is stopped cleanly once and killed
with SIGKILL once, and one file is rotated (renamed to ``name.jsonl.1`` at a line boundary,
its remainder then written to a fresh ``name.jsonl``). At the end the daemon's
``/api/v1/status`` must equal ``omkd scan --json`` over the final files.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from omkd.testing import DaemonProcess
from tests.live_helpers import append, omkd, wait_lines

SEED: Final = 20261130
ROTATED: Final = Path("marot__spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
"""A 2.7 MB session with a Skill call and sub-agents: the file rotated half way."""
SYNC_EVERY: Final = 20
"""Pieces written between two waits for the daemon to have read every complete line."""
OPS_WHILE_DOWN: Final = 10
CONTINUATION_BYTE: Final = re.compile(rb"[\x80-\xbf]")


@dataclass(frozen=True)
class Piece:
    relative: Path
    start: int
    end: int


def claude_code_transcripts(real: Path) -> list[Path]:
    """Every Claude Code ``*.jsonl`` below the fixtures: not a Codex stream (its first record has a
    ``payload``, or a dotted ``type`` such as ``thread.started``), not a Gemini chat (a header with
    ``sessionId`` and no ``type``), not the redacted localpush set."""

    def other_agent(path: Path) -> bool:
        first = path.read_bytes().split(b"\n", 1)[0]
        try:
            record = json.loads(first)
        except ValueError:
            return False
        if not isinstance(record, dict):
            return False
        kind = record.get("type")
        return (
            "payload" in record or (isinstance(kind, str) and "." in kind) or ("sessionId" in record and kind is None)
        )

    relative = [path.relative_to(real) for path in real.rglob("*.jsonl")]
    return sorted(
        path
        for path in relative
        if "codex" not in path.parts[:-1] and path.parts[0] != "madshn__localpush" and not other_agent(real / path)
    )


def cut_points(data: bytes, rng: random.Random, forced: set[int]) -> list[int]:
    """Random split points of one file, one of them inside a multi-byte character when it has one."""
    points = set(forced)
    if len(data) > 1:
        points.update(rng.randrange(1, len(data)) for _ in range(rng.randint(2, 6) + len(data) // 200_000))
        inside = CONTINUATION_BYTE.search(data, rng.randrange(len(data))) or CONTINUATION_BYTE.search(data)
        if inside is not None:
            points.add(inside.start())
    return [0, *sorted(p for p in points if 0 < p < len(data)), len(data)]


def plan_writes(real: Path, rng: random.Random) -> tuple[list[Piece], int]:
    """The pieces of every file in a random interleaving (each file's own order kept), and
    the offset at which ``ROTATED`` is rotated."""
    rotated = (real / ROTATED).read_bytes()
    rotate_at = rotated.index(b"\n", len(rotated) // 2) + 1
    queues: dict[Path, list[Piece]] = {}
    for relative in claude_code_transcripts(real):
        data = (real / relative).read_bytes()
        points = cut_points(data, rng, {rotate_at} if relative == ROTATED else set())
        queues[relative] = [Piece(relative, a, b) for a, b in itertools.pairwise(points)]
    turns = [relative for relative, pieces in queues.items() for _ in pieces]
    rng.shuffle(turns)
    return [queues[relative].pop(0) for relative in turns], rotate_at


def reading_past(daemon: DaemonProcess, read_bytes: float) -> Callable[[], bool]:
    """True once this daemon process has read more than ``read_bytes``."""
    return lambda: daemon.metrics().get("omkd_read_bytes_total", 0) > read_bytes


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    """What batch and stream must agree on: no open segments, gaps without their file name."""

    def health(entry: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in entry.items() if k != "open_segments"}

    return {
        "overall": health(report["overall"]),
        "skills": [health(entry) for entry in report["skills"]],
        "top_failed_searches": report["top_failed_searches"],
        "watermark": {k: report["watermark"][k] for k in ("segments", "sessions", "fingerprint")},
        "gaps": [{k: v for k, v in gap.items() if k not in ("stream", "file")} for gap in report["gaps"]],
    }


def test_live_tail_with_restarts_kill_and_rotation_equals_one_scan(real_fixtures: Path, tmp_path: Path) -> None:
    """Fed in random chunks across a clean restart, a kill -9 and a rotation, the daemon reports what one scan does."""
    rng = random.Random(SEED)  # noqa: S311 (reproducible test data, not cryptography)
    pieces, rotate_at = plan_writes(real_fixtures, rng)
    rotation = next(i for i, p in enumerate(pieces) if p.relative == ROTATED and p.start == rotate_at)
    stop_at = rotation // 3
    restart_at = stop_at + OPS_WHILE_DOWN
    kill_at = rotation + (len(pieces) - rotation) // 2
    restart_after_kill_at = kill_at + OPS_WHILE_DOWN
    assert restart_at < rotation < kill_at < restart_after_kill_at < len(pieces), "the seed gives no usable schedule"

    live = tmp_path / "projects"
    live.mkdir()
    sources = {relative: (real_fixtures / relative).read_bytes() for relative in {p.relative for p in pieces}}
    written_lines = 0
    read_at_sync = 0.0
    with DaemonProcess(tmp_path, [live]) as daemon:
        daemon.start()
        for index, piece in enumerate(pieces):
            if index == stop_at:
                assert daemon.stop() == 0, daemon.log_text()
            elif index in (restart_at, restart_after_kill_at):
                daemon.start()
                read_at_sync = 0.0
            elif index == kill_at:
                # Kill once the daemon is busy with the pieces written since the last sync.
                daemon.wait_for(reading_past(daemon, read_at_sync), "the daemon to be reading")
                daemon.kill()
            if piece.relative == ROTATED and piece.start == rotate_at:
                target = live / ROTATED
                target.rename(target.with_name(target.name + ".1"))
            chunk = sources[piece.relative][piece.start : piece.end]
            append(live / piece.relative, chunk)
            written_lines += chunk.count(b"\n")
            # No sync just before the stop and the kill: they should find the daemon mid-read.
            quiet = stop_at - SYNC_EVERY < index < stop_at or kill_at - SYNC_EVERY < index < kill_at
            if daemon.process is not None and index % SYNC_EVERY == SYNC_EVERY - 1 and not quiet:
                read_at_sync = wait_lines(daemon, written_lines)["omkd_read_bytes_total"]
        wait_lines(daemon, written_lines)
        live_report = daemon.get("/api/v1/status")
        assert daemon.stop() == 0, daemon.log_text()

    final_files = sorted(p for p in live.rglob("*") if p.name.endswith((".jsonl", ".jsonl.1")))
    assert live / ROTATED.with_name(ROTATED.name + ".1") in final_files
    scanned = omkd("scan", "--json", "--home", tmp_path / "home", *final_files, timeout=120)
    assert scanned.returncode == 0, scanned.stderr
    batch_report = orjson.loads(scanned.stdout)
    assert comparable(batch_report) == comparable(live_report)
