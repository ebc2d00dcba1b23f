"""Run the real ``omkd run`` and talk to it over HTTP: for tests and benchmarks.

Two harnesses. ``DaemonProcess`` runs it as a subprocess: synchronisation is by observation
only — the bound port is read from the daemon's ``started`` log line, readiness from ``/readyz``,
progress from ``/metrics`` counters, each with a deadline. ``running`` runs it in this process,
on the caller's event loop, in uvicorn's manner (``async with running(config) as daemon:``): the
daemon's parts can then be looked at directly, and ``eventually`` waits for what they show.

omkd's own tests and benchmarks use them, and so can anyone who embeds omkd in a test suite of
their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from prometheus_client.parser import text_string_to_metric_families

if TYPE_CHECKING:
    from omkd.config import Config
    from omkd.daemon.clock import Clock
    from omkd.daemon.daemon import Daemon

DEADLINE_SECONDS = 30.0


class ManualClock:
    """A ``Clock`` (``omkd.daemon.clock``) that moves only when told: wall and monotonic time."""

    def __init__(self, wall: float = 1_767_225_600.0, monotonic: float = 1000.0) -> None:
        self.wall = wall
        self.mono = monotonic

    def time(self) -> float:
        return self.wall

    def monotonic(self) -> float:
        return self.mono

    def advance(self, seconds: float) -> None:
        """Both clocks move on by ``seconds``."""
        self.wall += seconds
        self.mono += seconds


class DaemonProcess:
    """One omkd daemon with its own config, state directory and log file."""

    def __init__(self, workdir: Path, roots: list[Path], extra_config: str = "", env: dict[str, str] | None = None):
        self.workdir = workdir
        self.roots = roots
        self.state_dir = workdir / "state"
        self.config_path = workdir / "omkd.toml"
        self.log_path = workdir / "omkd.log"
        self.extra_config = extra_config
        self.env = env or {}
        self.process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None
        self._log_offset = 0

    def write_config(self, extra: str | None = None) -> None:
        roots = ", ".join(f'"{root}"' for root in self.roots)
        self.config_path.write_text(
            "[sources]\n"
            f"roots = [{roots}]\n"
            f'home = "{self.workdir / "home"}"\n'
            "[state]\n"
            f'directory = "{self.state_dir}"\n'
            "[http]\n"
            'listen = "127.0.0.1:0"\n'
            "[window]\n"
            'length = "3650d"\n'
            'retention = "3650d"\n' + (self.extra_config if extra is None else extra)
        )

    def start(self, wait_ready: bool = True) -> DaemonProcess:
        if not self.config_path.exists():
            self.write_config()
        env = {**os.environ, **self.env}
        if "NOTIFY_SOCKET" not in self.env:
            env.pop("NOTIFY_SOCKET", None)
        with self.log_path.open("ab") as log:
            self._log_offset = log.tell()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "omkd", "run", "--config", str(self.config_path), "--log-json"],
                stdout=log,
                stderr=log,
                env=env,
            )
        if wait_ready:
            self.port = int(self.wait_log_event("started")["listen"].rsplit(":", 1)[1])
            self.wait_for(lambda: (self.get("/readyz", raw=True) or b"").startswith(b"ready\n"), "readyz")
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_events(self) -> list[dict[str, Any]]:
        events = []
        with self.log_path.open("rb") as log:
            log.seek(self._log_offset)
            for line in log:
                try:
                    events.append(orjson.loads(line))
                except orjson.JSONDecodeError:
                    events.append({"event": "(not json)", "line": line.decode(errors="replace")})
        return events

    def wait_log_event(self, name: str, deadline: float = DEADLINE_SECONDS) -> dict[str, Any]:
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            for event in self.log_events():
                if event.get("event") == name:
                    return event
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(f"omkd exited ({self.process.returncode}) before {name!r}:\n{self.log_text()}")
            time.sleep(0.02)
        raise AssertionError(f"no {name!r} log event within {deadline}s:\n{self.log_text()}")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def get(self, path: str, raw: bool = False) -> Any:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:  # noqa: S310 (loopback)
                body = response.read()
        except urllib.error.HTTPError as error:
            body = error.read()
            if not raw:
                raise
        except (urllib.error.URLError, ConnectionError):
            return None
        return body if raw else orjson.loads(body)

    def metrics(self) -> dict[str, float]:
        """Every sample of /metrics, keyed by ``name{label="v",...}`` (labels sorted)."""
        text = self.get("/metrics", raw=True)
        samples: dict[str, float] = {}
        if text is None:
            return samples
        for family in text_string_to_metric_families(text.decode()):
            for sample in family.samples:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
                samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
        return samples

    def wait_for(self, predicate: Callable[[], bool], what: str, deadline: float = DEADLINE_SECONDS) -> None:
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if predicate():
                return
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(f"omkd exited ({self.process.returncode}) waiting for {what}:\n{self.log_text()}")
            time.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}:\n{self.log_text()}")

    def wait_caught_up(self, deadline: float = DEADLINE_SECONDS) -> dict[str, float]:
        """Wait until every file is read, nothing is replaying and a checkpoint holds it all."""
        seen: dict[str, float] = {}

        def done() -> bool:
            nonlocal seen
            seen = self.metrics()
            return (
                seen.get("omkd_lag_bytes") == 0
                and seen.get("omkd_replaying") == 0
                and seen.get("omkd_last_checkpoint_timestamp_seconds", 0) > 0
            )

        self.wait_for(done, "catch-up", deadline)
        return seen

    def stop(self, timeout: float = DEADLINE_SECONDS) -> int:
        """SIGTERM; the exit code."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout)
        self.process = None
        return code

    def kill(self) -> None:
        """SIGKILL: no chance to checkpoint."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(DEADLINE_SECONDS)
        self.process = None

    def __enter__(self) -> DaemonProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(DEADLINE_SECONDS)


@contextlib.asynccontextmanager
async def running(config: Config, clock: Clock | None = None) -> AsyncIterator[Daemon]:
    """``omkd run`` with ``config`` in this process, on the running loop, for the ``async with``
    block: started (its HTTP port bound: ``Daemon.bound_port``; the first rescan done: ``ready``)
    when the block begins, its main loop running as a task meanwhile; asked to exit when the block
    ends, then shut down as on SIGTERM (what is on disk read, the last checkpoint saved). No signal
    handler is installed and systemd is not told. ``clock``: a ``ManualClock``, say."""
    from omkd.daemon.clock import SYSTEM_CLOCK  # deferred: the daemon's imports (asyncio, aiohttp, pydantic)
    from omkd.daemon.daemon import Daemon
    from omkd.daemon.notify import Notifier

    daemon = Daemon(config, clock=clock or SYSTEM_CLOCK, notifier=Notifier(""))
    await daemon.startup()
    try:
        main_loop = asyncio.create_task(daemon.main_loop(), name="omkd-main-loop")
        try:
            yield daemon
        finally:
            daemon.request_exit()
            await asyncio.wait_for(main_loop, DEADLINE_SECONDS)
    finally:
        await daemon.shutdown()


async def eventually(predicate: Callable[[], bool], what: str, deadline: float = DEADLINE_SECONDS) -> None:
    """Wait, letting the loop run, until ``predicate`` holds (an ``AssertionError`` naming ``what``
    after ``deadline`` seconds)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while not predicate():
        if loop.time() >= end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)
