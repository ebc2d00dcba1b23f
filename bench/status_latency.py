"""Benchmark 6 of the daemon: what ``omkd status`` and the gap list cost a daemon holding a window.

Run from the repository root::

    .venv/bin/python bench/status_latency.py [--requests N] [--corpus DIR]

The daemon follows ``scan_throughput.py``'s corpus (``bench/corpus``, built or reused) with a
window of ten years (``omkd.testing``'s), so that every segment of it is in the window, and is left to catch up and
write a checkpoint (its closed summaries are then in the state store, not in memory). Then, with
a thread asking ``/healthz`` every 5 ms on its own connection, this asks ``/api/v1/status`` once
(the report is built: nothing was asked before) and ``/api/v1/gaps?limit=50`` N times (20 by
default; each request reads the window's summaries again). Reported: each answer's time, and the
slowest ``/healthz`` answer while they were asked — how long the event loop was held at worst.
Both build on the event loop, so the slowest ``/healthz`` follows the slowest of them. No target:
the figures compare trees (put a snapshot first on ``PYTHONPATH``, see ``bench/README.md``).
Writes ``bench/out/status_latency.json``.
"""

from __future__ import annotations

import http.client
import statistics
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import harness
import orjson
from common import compile_omkd, ms, percentile, this_run
from corpus import DEFAULT_CORPUS, DEFAULT_SIZE_MB, build_corpus, list_files, warm_cache

REQUESTS: Final = 20
HEALTH_EVERY_S: Final = 0.005


@dataclass
class StatusLatency:
    corpus: str
    files: int
    segments: int
    gaps_listed: int
    status_seconds: float
    gaps_seconds: list[float]
    health_answers: int
    health_p50_seconds: float
    health_max_seconds: float


class HealthPoller(threading.Thread):
    """Asks ``/healthz`` every ``HEALTH_EVERY_S`` on a keep-alive connection, timing each answer."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self._done = threading.Event()
        self.seconds: list[float] = []

    def run(self) -> None:
        while not self._done.is_set():
            asked = time.perf_counter()
            self._connection.request("GET", "/healthz")
            self._connection.getresponse().read()
            self.seconds.append(time.perf_counter() - asked)
            time.sleep(HEALTH_EVERY_S)

    def stop(self) -> None:
        self._done.set()
        self.join()
        self._connection.close()


def timed_get(connection: http.client.HTTPConnection, path: str) -> tuple[float, bytes]:
    asked = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"{path}: HTTP {response.status}: {body[:200]!r}")
    return time.perf_counter() - asked, body


def measure(fixtures: Path, corpus_dir: Path, workdir: Path, requests: int) -> StatusLatency:
    corpus = build_corpus(fixtures, corpus_dir, DEFAULT_SIZE_MB)
    files = list_files([corpus.root])
    warm_cache(files)
    daemon = harness.BenchDaemon(workdir, [corpus.root], "")
    try:
        daemon.start()
        daemon.wait_caught_up()
        port = daemon.process.port
        assert port is not None
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        poller = HealthPoller(port)
        poller.start()
        time.sleep(0.5)  # the poller's own pace first
        status_seconds, body = timed_get(connection, "/api/v1/status")
        gaps: list[float] = []
        listed = 0
        for _ in range(requests):
            seconds, answer = timed_get(connection, "/api/v1/gaps?limit=50")
            gaps.append(seconds)
            listed = int(orjson.loads(answer)["count"])
        poller.stop()
        connection.close()
    finally:
        daemon.stop()
    report = orjson.loads(body)
    return StatusLatency(
        corpus=str(corpus.root),
        files=len(files),
        segments=int(report["watermark"]["segments"]),
        gaps_listed=listed,
        status_seconds=status_seconds,
        gaps_seconds=gaps,
        health_answers=len(poller.seconds),
        health_p50_seconds=percentile(poller.seconds, 50),
        health_max_seconds=max(poller.seconds, default=0.0),
    )


def rows(result: StatusLatency) -> list[str]:
    return [
        f"| 6 | window: segments (files) | {result.segments:,} ({result.files:,}) | | |",
        f"| 6 | `/api/v1/status`, first (built) | {ms(result.status_seconds)} | | |",
        f"| 6 | `/api/v1/gaps?limit=50`, median / max of {len(result.gaps_seconds)} | "
        f"{ms(statistics.median(result.gaps_seconds))} / {ms(max(result.gaps_seconds))} | | |",
        f"| 6 | `/healthz` meanwhile ({result.health_answers} asked): median / slowest | "
        f"{ms(result.health_p50_seconds)} / {ms(result.health_max_seconds)} | | |",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "status_latency.json")
    parser.add_argument("--requests", type=int, default=REQUESTS, help=f"gap lists asked (default {REQUESTS})")
    parser.add_argument(
        "--corpus", type=harness.resolved_path, default=DEFAULT_CORPUS, help="scan_throughput.py's corpus"
    )
    args = parser.parse_args(argv)
    this = this_run(__file__, argv)
    print(f"  bytecode of {compile_omkd()} compiled (as an installed omkd has it)", flush=True)
    with harness.work_folder(args.work, args.keep) as work:
        result = measure(args.fixtures, args.corpus, work / "status", args.requests)
    harness.report(args.out, "status_latency", "omkd status and gaps on a daemon", this, result, rows(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
