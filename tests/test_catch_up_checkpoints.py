"""Checkpoints while catch-up workers read (issue 27: the catch-up keeps its ratio to the scan).

A read burst that ends is saved at once (``Chores.burst_ended``), so that /metrics is current
within a fraction of a second of a write. While workers read, the loop's own list of files to read
is empty after each reading it adopts: that is not the end of a burst, and saving then cost the
catch-up a checkpoint every 0.2 s on top of those taken by size and interval.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from omkd.config import Config
from omkd.daemon.backfill import ADOPTED
from omkd.daemon.daemon import Daemon
from omkd.testing import eventually, running


def config_of(tmp_path: Path, root: Path) -> Config:
    return Config.model_validate(
        {
            "sources": {"roots": [str(root)], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "http": {"listen": "127.0.0.1:0"},
            "window": {"length": "3650d", "retention": "3650d"},
            "tail": {"catch_up_workers": 2},
        }
    )


def caught_up(daemon: Daemon) -> bool:
    return daemon.scheduler.caught_up and daemon.parts.reader.tailer.lag_bytes() == 0


def test_no_burst_checkpoint_while_catch_up_workers_read(real_fixtures: Path, tmp_path: Path) -> None:
    backfilling_at_burst_end: list[bool] = []

    async def catch_up() -> int:
        async with running(config_of(tmp_path, real_fixtures)) as daemon:
            chores = daemon._chores
            assert chores is not None
            burst_ended = chores.burst_ended

            def noted() -> None:
                backfilling_at_burst_end.append(daemon.scheduler.backfilling)
                burst_ended()

            chores.burst_ended = noted  # type: ignore[method-assign]
            await eventually(lambda: caught_up(daemon), "catch-up", deadline=120)
            await asyncio.sleep(0.5)  # the burst that ends with the catch-up is saved
            backfill = daemon.scheduler.backfill
            assert backfill is not None
            return backfill.outcomes[ADOPTED]

    adopted = asyncio.run(catch_up())
    assert adopted >= 50, "the workers read most files"
    assert backfilling_at_burst_end, "the burst that ends with the catch-up is saved"
    assert not any(backfilling_at_burst_end), "a burst ended while workers read"
