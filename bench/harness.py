"""The daemon under benchmark: a real ``omkd run`` subprocess, watched from outside.

``BenchDaemon`` wraps ``omkd.testing.DaemonProcess`` (own config, state directory, log file,
port 0) with what the benchmarks read: its pid, ``/metrics`` over one keep-alive connection,
waits on what a scrape shows. ``work_folder``, ``parser`` and ``report`` are what the daemon
benchmarks (``latency.py``, ``many_files.py``, ``catch_up.py``, ``scrape.py`` and
``daemon_bench.py``, which runs them all) share around their measurement: a temporary folder,
their common options, their table.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Final

from common import DEFAULT_OUT, NEUTRAL_CWD, Run, heading, sample, save
from corpus import DEFAULT_FIXTURES

from omkd.testing import DaemonProcess

DAEMON_DEADLINE_S: Final = 600.0
TABLE_HEAD: Final = ("| # | metric | value | target | status |", "|---|---|---:|---:|---|")


class Scraper:
    """GET /metrics on one keep-alive connection (reconnects when the daemon closes it)."""

    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self.port = port
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def get(self, path: str = "/metrics") -> bytes:
        for attempt in range(2):
            if self._conn is None:
                self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                self._conn.request("GET", path)
                response = self._conn.getresponse()
                body = response.read()
            except (ConnectionError, http.client.HTTPException, OSError):
                self.close()
                if attempt:
                    raise
                continue
            if response.status != 200:
                raise RuntimeError(f"GET {path}: HTTP {response.status}")
            return body
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class BenchDaemon:
    """``omkd.testing.DaemonProcess`` plus what the benchmarks read: pid, CPU, memory, metrics."""

    def __init__(self, workdir: Path, roots: list[Path], extra_config: str) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.process = DaemonProcess(workdir, roots, extra_config)
        self._scraper: Scraper | None = None
        self.started_at = 0.0
        self.slowest_scrape_s = 0.0
        """The longest /metrics response seen by ``wait``: how long the event loop stalled at worst."""

    def start(self) -> float:
        """Start the daemon; returns the ``perf_counter`` just before the process was spawned."""
        self.started_at = time.perf_counter()
        self.process.start(wait_ready=False)
        event = self.process.wait_log_event("started", deadline=DAEMON_DEADLINE_S)
        self.process.port = int(str(event["listen"]).rsplit(":", 1)[1])
        self._scraper = Scraper(self.process.port, timeout=DAEMON_DEADLINE_S)
        return self.started_at

    @property
    def pid(self) -> int:
        assert self.process.process is not None
        return self.process.process.pid

    @property
    def scraper(self) -> Scraper:
        """The keep-alive connection, for timed scrapes (errors are raised, not swallowed)."""
        assert self._scraper is not None, "start() first"
        return self._scraper

    def metrics(self) -> bytes:
        try:
            return self.scraper.get()
        except (OSError, http.client.HTTPException, RuntimeError):
            return b""

    def value(self, series: str) -> float | None:
        return sample(self.metrics(), series)

    def wait(self, predicate: Callable[[bytes], bool], what: str, poll: float = 0.1) -> bytes:
        end = time.monotonic() + DAEMON_DEADLINE_S
        while time.monotonic() < end:
            asked = time.perf_counter()
            body = self.metrics()
            self.slowest_scrape_s = max(self.slowest_scrape_s, time.perf_counter() - asked)
            if body and predicate(body):
                return body
            if self.process.process is not None and self.process.process.poll() is not None:
                raise SystemExit(f"omkd exited waiting for {what}:\n{self.process.log_text()}")
            time.sleep(poll)
        raise SystemExit(f"timed out waiting for {what}:\n{self.process.log_text()}")

    def wait_read_all(self, poll: float = 0.1) -> bytes:
        """Every byte read and not replaying (a checkpoint may still be on its way)."""

        def done(body: bytes) -> bool:
            return sample(body, "omkd_lag_bytes") == 0 and sample(body, "omkd_replaying") == 0

        return self.wait(done, "catch-up", poll)

    def wait_caught_up(self, poll: float = 0.1) -> bytes:
        """Every byte read, not replaying, and a checkpoint written."""

        def done(body: bytes) -> bool:
            return (
                sample(body, "omkd_lag_bytes") == 0
                and sample(body, "omkd_replaying") == 0
                and (sample(body, "omkd_last_checkpoint_timestamp_seconds") or 0) > 0
            )

        return self.wait(done, "catch-up", poll)

    def stop(self) -> None:
        if self._scraper is not None:
            self._scraper.close()
        if self.process.process is not None:
            self.process.stop(timeout=DAEMON_DEADLINE_S)


# ---------------------------------------------------------------------------------------------
# Around the measurement
# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def work_folder(parent: Path | None, keep: bool) -> Iterator[Path]:
    """A temporary folder for corpora and daemon state, removed at the end unless ``keep``.

    It also moves this process to a neutral cwd: the daemons are spawned with it, so that
    ``python -m omkd`` imports the installed omkd (or a snapshot first on PYTHONPATH), never
    ./omkd of the working tree. Resolve relative paths before entering.
    """
    work = Path(tempfile.mkdtemp(prefix="omkd-daemon-bench-", dir=parent))
    os.chdir(NEUTRAL_CWD)
    print(f"work folder: {work}")
    try:
        yield work
    finally:
        if keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def resolved_path(text: str) -> Path:
    return Path(text).resolve()


def parser(doc: str | None, out_name: str, fixtures: bool = True) -> argparse.ArgumentParser:
    """An argument parser with the options the daemon benchmarks take (paths come resolved)."""
    parser = argparse.ArgumentParser(description=doc.split("\n", 1)[0] if doc else None)
    parser.add_argument("--out", type=resolved_path, default=DEFAULT_OUT, help=f"where {out_name} goes")
    if fixtures:
        parser.add_argument("--fixtures", type=resolved_path, default=DEFAULT_FIXTURES, help="real transcripts")
    parser.add_argument(
        "--work", type=resolved_path, default=None, help="parent of the temporary folder (default: $TMPDIR)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    return parser


def table(title: str, run: Run, rows: Sequence[str]) -> str:
    return "\n".join([*heading(title, run), *TABLE_HEAD, *rows])


def report(out_dir: Path, name: str, title: str, run: Run, results: object, rows: Sequence[str]) -> None:
    """One benchmark run on its own: ``OUT/NAME.json`` holds the run and ``{NAME: results}``."""
    save(out_dir, f"{name}.json", {**asdict(run), name: results}, table(title, run, rows))
