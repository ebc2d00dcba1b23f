"""Benchmark 1 of the daemon: how long an appended tool call takes to show on ``/metrics``.

Run from the repository root::

    .venv/bin/python bench/latency.py [--quick] [--samples N] [--mode events|polling] [--seed N]

A writer appends one complete tool call (a Glob ``tool_use`` and its empty ``tool_result``: one
more ``failed_search`` signal of the skill ``bench-latency``) to a followed file, in one
``write``; a poller scrapes ``/metrics`` every ~5 ms on a keep-alive connection until
``omkd_signals_total`` shows it. Latency is the time the first scrape showing it was received
minus the time ``write`` returned. Once with ``[tail] mode = "events"``, once with
``mode = "polling"``, ``poll_interval = "1s"`` (``--mode`` picks one). Writes are at least 50 ms
apart, at a random phase. 200 appends per mode, 100 with ``--quick``. The followed root also
holds one copy set of the real fixtures as background. Target: p99 <= 250 ms with events,
p99 <= poll_interval + 100 ms with polling. Writes ``bench/out/latency.json``.
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import harness
from common import ms, percentile, sample, status, this_run
from corpus import DAEMON_NAMESPACE, write_fixture_copy
from records import Session, lines_of

TARGET_EVENTS_P99_S: Final = 0.250
POLL_INTERVAL_S: Final = 1.0
TARGET_POLLING_P99_S: Final = POLL_INTERVAL_S + 0.100

MODES: Final = ("events", "polling")
SAMPLES: Final = 200
QUICK_SAMPLES: Final = 100
SEED: Final = 7
LATENCY_SKILL: Final = "bench-latency"
LATENCY_SERIES: Final = f'omkd_signals_total{{skill="{LATENCY_SKILL}",type="failed_search"}}'
POLL_PERIOD_S: Final = 0.005
MIN_WRITE_GAP_S: Final = 0.050
EVENTS_SPREAD_S: Final = 0.100
"""Extra random gap after a write became visible (events mode); polling mode spreads over poll_interval."""
VISIBLE_TIMEOUT_S: Final = 10.0


@dataclass
class LatencyResult:
    mode: str
    config: str
    samples: int
    timeouts: int
    latencies_s: list[float]
    p50_s: float
    p90_s: float
    p99_s: float
    max_s: float
    mean_s: float
    scrapes: int
    mean_scrape_period_s: float
    background_bytes: int
    target_p99_s: float
    status: str


def poll_until_seen(scraper: harness.Scraper, expected: float, written: float) -> tuple[float | None, int]:
    """Scrape every ``POLL_PERIOD_S`` from ``written`` on until the counter reaches ``expected``.

    Returns the ``perf_counter`` at which the first scrape showing it was received (``None``
    after ``VISIBLE_TIMEOUT_S``) and the number of scrapes.
    """
    scrapes = 0
    next_poll = written
    while True:
        value = sample(scraper.get(), LATENCY_SERIES)
        stamp = time.perf_counter()
        scrapes += 1
        if value is not None and value >= expected:
            return stamp, scrapes
        if stamp - written > VISIBLE_TIMEOUT_S:
            return None, scrapes
        next_poll += POLL_PERIOD_S
        pause = next_poll - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        else:
            next_poll = time.perf_counter()


def measure_latency(mode: str, fixtures: Path, workdir: Path, samples: int, seed: int) -> LatencyResult:
    root = workdir / "roots"
    project = root / "-home-dev-latency"
    project.mkdir(parents=True)
    background = write_fixture_copy(fixtures, root / "background")
    session = Session(str(uuid.uuid5(DAEMON_NAMESPACE, f"latency/{mode}")), "/home/dev/latency")
    path = project / f"{session.session_id}.jsonl"
    now = time.time()
    path.write_bytes(lines_of([session.prompt("find the deploy config", now), *session.skill(LATENCY_SKILL, now)]))
    tail = f'[tail]\nmode = "{mode}"\n'
    if mode == "polling":
        tail += f'poll_interval = "{POLL_INTERVAL_S:g}s"\n'
    daemon = harness.BenchDaemon(workdir / "daemon", [root], tail)
    rng = random.Random(seed)  # noqa: S311 (write phases, not secrets)
    spread = POLL_INTERVAL_S if mode == "polling" else EVENTS_SPREAD_S
    latencies: list[float] = []
    timeouts = 0
    scrapes = 0
    try:
        daemon.start()
        baseline = sample(daemon.wait_caught_up(), LATENCY_SERIES)
        if baseline is None:
            raise SystemExit(f"{LATENCY_SERIES} missing from /metrics after catch-up")
        scraper = daemon.scraper
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        expected = baseline
        next_write = time.perf_counter() + 0.5
        try:
            for index in range(samples):
                delay = next_write - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                os.write(fd, lines_of(session.glob_miss(f"**/deploy-{index:04d}*.toml", time.time())))
                written = time.perf_counter()
                expected += 1
                seen, polls = poll_until_seen(scraper, expected, written)
                scrapes += polls
                if seen is None:
                    timeouts += 1
                    expected = sample(scraper.get(), LATENCY_SERIES) or expected
                    next_write = time.perf_counter() + MIN_WRITE_GAP_S
                    continue
                latencies.append(seen - written)
                next_write = seen + rng.uniform(MIN_WRITE_GAP_S, MIN_WRITE_GAP_S + spread)
        finally:
            os.close(fd)
        final = daemon.value(LATENCY_SERIES)
        if final != baseline + samples:
            print(f"WARNING: {mode}: {LATENCY_SERIES} = {final}, expected {baseline + samples}", file=sys.stderr)
    finally:
        daemon.stop()
    target = TARGET_EVENTS_P99_S if mode == "events" else TARGET_POLLING_P99_S
    p99 = percentile(latencies, 99) if not timeouts else math.inf
    return LatencyResult(
        mode=mode,
        config=tail.strip().replace("\n", "; "),
        samples=samples,
        timeouts=timeouts,
        latencies_s=latencies,
        p50_s=percentile(latencies, 50),
        p90_s=percentile(latencies, 90),
        p99_s=p99,
        max_s=max(latencies, default=math.nan),
        mean_s=sum(latencies) / len(latencies) if latencies else math.nan,
        scrapes=scrapes,
        mean_scrape_period_s=sum(latencies) / max(1, scrapes - len(latencies)),
        background_bytes=background,
        target_p99_s=target,
        status=status(p99 <= target),
    )


def run(mode: str, fixtures: Path, workdir: Path, samples: int, seed: int) -> LatencyResult:
    """``measure_latency`` with its progress lines."""
    print(f"[1] append->visible latency, {mode} mode, {samples} appends", flush=True)
    lat = measure_latency(mode, fixtures, workdir, samples, seed)
    print(
        f"  p50 {ms(lat.p50_s)}, p99 {ms(lat.p99_s)}, max {ms(lat.max_s)}, timeouts {lat.timeouts} -> {lat.status}",
        flush=True,
    )
    return lat


def rows(lat: LatencyResult) -> list[str]:
    return [
        f"| 1 | append→visible latency, {lat.mode} ({lat.samples} appends, {lat.timeouts} not seen in "
        f"{VISIBLE_TIMEOUT_S:.0f} s): p50 / p99 / max "
        f"| {ms(lat.p50_s)} / {ms(lat.p99_s)} / {ms(lat.max_s)} | p99 <= {ms(lat.target_p99_s)} | {lat.status} |"
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "latency.json")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_SAMPLES} appends per mode (else {SAMPLES})")
    parser.add_argument("--samples", type=int, default=None, help="appends per mode (overrides --quick)")
    parser.add_argument("--mode", action="append", choices=MODES, help="only this tail mode (repeatable)")
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the write phases")
    args = parser.parse_args(argv)
    samples = args.samples or (QUICK_SAMPLES if args.quick else SAMPLES)
    this = this_run(__file__, argv)
    with harness.work_folder(args.work, args.keep) as work:
        results = [
            run(mode, args.fixtures, work / f"latency-{mode}", samples, args.seed) for mode in args.mode or MODES
        ]
    table_rows = [row for lat in results for row in rows(lat)]
    harness.report(args.out, "latency", "omkd append→visible latency", this, results, table_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
