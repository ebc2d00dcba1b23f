"""The daemon run in this process by ``omkd.testing.running`` (``async with running(config) as daemon:``):
what a client sees over HTTP, and what the daemon's parts show, without a subprocess."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp

from omkd.config import Config
from omkd.daemon.daemon import Daemon
from omkd.testing import eventually, running
from tests.live_helpers import append, session_bytes

SESSION = "-home-dev-shop/0b3c4d5e-1111-4222-8333-944455556666.jsonl"
# Two segments (live_helpers.minute): one Glob miss, one hit.
PLAN = [("deploy", "miss"), ("deploy", "hit")]


def config_of(tmp_path: Path) -> Config:
    return Config.model_validate(
        {
            "sources": {"roots": [str(tmp_path / "projects")], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "http": {"listen": "127.0.0.1:0"},
            "window": {"length": "3650d", "retention": "3650d"},
        }
    )


def caught_up(daemon: Daemon) -> bool:
    return daemon.scheduler.caught_up and daemon.parts.reader.tailer.lag_bytes() == 0


async def status_of(daemon: Daemon) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{daemon.bound_port}/api/v1/status") as response,
    ):
        assert response.status == 200
        document: dict[str, Any] = await response.json()
        return document


def segments_by_skill(status: dict[str, Any]) -> dict[str, int]:
    return {row["skill"]: row["segments"] for row in status["skills"]}


def test_a_status_request_answers_what_was_on_disk_at_start(tmp_path: Path) -> None:
    """Started in process on a session of two segments: /readyz is ready and /api/v1/status counts both."""
    append(tmp_path / "projects" / SESSION, session_bytes(PLAN))

    async def run() -> tuple[bool, dict[str, int]]:
        async with running(config_of(tmp_path)) as daemon:
            await eventually(lambda: caught_up(daemon), "the first reading")
            return daemon.ready, segments_by_skill(await status_of(daemon))

    assert asyncio.run(run()) == (True, {"deploy": 2})


def test_an_append_is_seen_by_the_keeper_and_the_status(tmp_path: Path) -> None:
    """A segment appended while the daemon runs is folded (the keeper's window counts it) and shown by
    the next status request; the state saved at shutdown holds it."""
    path = tmp_path / "projects" / SESSION
    append(path, session_bytes(PLAN))

    async def run() -> tuple[int, dict[str, int]]:
        async with running(config_of(tmp_path)) as daemon:
            await eventually(lambda: caught_up(daemon), "the first reading")
            append(path, session_bytes([("deploy", "hit")], first_minute=2))
            keeper = daemon.parts.keeper
            await eventually(lambda: keeper.fold.overall.segments == 3, "the appended segment")
            return keeper.fold.overall.segments, segments_by_skill(await status_of(daemon))

    assert asyncio.run(run()) == (3, {"deploy": 3})
