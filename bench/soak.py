"""Does the daemon stay bounded? A soak: steady writes, rotations, RSS and descriptors over time.

Run from the repository root::

    .venv/bin/python bench/soak.py [--minutes 10] [--rate 50] [--files 20] [--drain-mb 200]

A real daemon (``omkd run``) follows ``--files`` session files written at ``--rate`` records a
second in total (each exchange a prompt, a skill launch, a failed Glob, a Read and an answer:
nine records, one segment); every minute one file is rotated out of the glob
(``x.jsonl`` → ``x.jsonl.1``) and its session goes on in a new file. Every 10 s: RSS, open
descriptors, segments counted. Reported: the RSS slope over the second half (least squares,
MB/min; target ≤ 0.2), and the memory held per segment over the second half (ΔRSS / Δsegments).

Then the drain: a ``--drain-mb`` file is written and rotated out of the roots before the daemon
read it — the daemon drains it through its descriptor — while /healthz is asked every 20 ms;
reported: its p50/p99 (target p99 ≤ 50 ms) and the drain time.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Final

import harness
from common import percentile, rss_mb, sample, status, this_run
from records import Session, lines_of

SAMPLE_EVERY: Final = 10.0
RECORDS_PER_EXCHANGE: Final = 9
SLOPE_TARGET: Final = 0.2
HEALTHZ_TARGET_MS: Final = 50.0
DRAIN_DEADLINE_S: Final = 600.0


@dataclass
class Point:
    seconds: float
    rss_mb: float
    descriptors: int
    segments: float


@dataclass
class SoakResult:
    points: list[Point] = field(default_factory=list)
    slope_mb_per_min: float = 0.0
    bytes_per_segment: float = 0.0
    rotations: int = 0
    records: int = 0
    healthz_p50_ms: float = 0.0
    healthz_p99_ms: float = 0.0
    drain_seconds: float = 0.0
    drain_mb: float = 0.0


def exchange(session: Session, n: int, when: float) -> bytes:
    records = [session.prompt(f"task {n}", when), *session.skill(f"skill-{n % 7}", when + 0.1)]
    records += session.glob_miss(f"docs/**/missing-{n}.md", when + 0.5)
    records += session.read_ok("/srv/app/README.md", when + 0.8)
    records.append(session.say("done", when + 1.0))
    return lines_of(records)


def slope(points: Sequence[Point]) -> float:
    """Least-squares slope of RSS against time, MB per minute."""
    xs = [p.seconds / 60 for p in points]
    ys = [p.rss_mb for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def segments_of(daemon: harness.BenchDaemon) -> float:
    body = daemon.metrics()
    return sum(float(line.rsplit(b" ", 1)[1]) for line in body.splitlines() if line.startswith(b"omkd_segments_total{"))


def soak(daemon: harness.BenchDaemon, root: Path, minutes: float, rate: float, files: int) -> SoakResult:
    result = SoakResult()
    sessions = [Session(f"{n:08d}-5000-4000-8000-{int(time.time()):012d}", "/srv/app") for n in range(files)]
    paths = [root / "-srv-app" / f"{s.session_id}.jsonl" for s in sessions]
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    next_sample, next_rotation, written = started, started + 60, 0
    interval = RECORDS_PER_EXCHANGE / rate
    n = 0
    while (now := time.monotonic()) < started + minutes * 60:
        which = n % files
        with paths[which].open("ab") as handle:
            handle.write(exchange(sessions[which], n, time.time()))
        n += 1
        written += RECORDS_PER_EXCHANGE
        if now >= next_rotation:
            rotated = paths[which].with_name(paths[which].name + ".1")
            paths[which].rename(rotated)
            sessions[which] = Session(f"{which:08d}-5000-4000-8000-{int(time.time() * 1000) % 10**12:012d}", "/srv/app")
            paths[which] = root / "-srv-app" / f"{sessions[which].session_id}.jsonl"
            rotated.unlink()  # the rotated copy is deleted later, as logrotate would: drained by then
            result.rotations += 1
            next_rotation += 60
        if now >= next_sample:
            point = Point(now - started, rss_mb(daemon.pid), descriptors(daemon.pid), segments_of(daemon))
            result.points.append(point)
            print(f"{point.seconds:6.0f} s  RSS {point.rss_mb:6.1f} MB  fds {point.descriptors:4d}  "
                  f"segments {point.segments:8.0f}", flush=True)  # fmt: skip
            next_sample += SAMPLE_EVERY
        time.sleep(max(0.0, started + n * interval - time.monotonic()))
    result.records = written
    second_half = [p for p in result.points if p.seconds >= minutes * 30]
    if len(second_half) >= 2:
        result.slope_mb_per_min = slope(second_half)
        grown = second_half[-1].segments - second_half[0].segments
        held = (second_half[-1].rss_mb - second_half[0].rss_mb) * 1024 * 1024
        result.bytes_per_segment = held / grown if grown else 0.0
    return result


def drain(daemon: harness.BenchDaemon, root: Path, megabytes: float, result: SoakResult) -> None:
    """A large file appears and is rotated out before it is read; /healthz is timed meanwhile."""
    session = Session(f"dddddddd-5000-4000-8000-{int(time.time()):012d}", "/srv/app")
    path = root / "-srv-app" / f"{session.session_id}.jsonl"
    before = sample(daemon.metrics(), "omkd_read_bytes_total") or 0.0
    with path.open("ab") as handle:
        n = 0
        while handle.tell() < megabytes * 1024 * 1024:
            handle.write(b"".join(exchange(session, n + k, time.time()) for k in range(200)))
            n += 200
    result.drain_mb = path.stat().st_size / 1024 / 1024
    handle_fd = os.open(path, os.O_RDONLY)  # keeps the inode alive as a rotated file would be
    path.rename(path.with_name(path.name + ".1"))
    url = f"http://127.0.0.1:{daemon.process.port}/healthz"
    waits: list[float] = []
    started = time.monotonic()
    while time.monotonic() - started < DRAIN_DEADLINE_S:
        asked = time.perf_counter()
        with urllib.request.urlopen(url, timeout=10) as answer:
            answer.read()
        waits.append((time.perf_counter() - asked) * 1000)
        read = sample(daemon.metrics(), "omkd_read_bytes_total") or 0.0
        if read - before >= result.drain_mb * 1024 * 1024 * 0.999:
            break
        time.sleep(0.02)
    result.drain_seconds = time.monotonic() - started
    os.close(handle_fd)
    result.healthz_p50_ms = percentile(waits, 50)
    result.healthz_p99_ms = percentile(waits, 99)


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "soak.json", fixtures=False)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=50.0, help="records a second, all files together")
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--drain-mb", type=float, default=200.0)
    args = parser.parse_args(argv)
    this = this_run(__file__, argv)
    with harness.work_folder(args.work, args.keep) as work:
        root = work / "projects"
        root.mkdir()
        daemon = harness.BenchDaemon(work / "daemon", [root], "")
        daemon.start()
        try:
            result = soak(daemon, root, args.minutes, args.rate, args.files)
            drain(daemon, root, args.drain_mb, result)
        finally:
            daemon.stop()
    rows = [
        f"| 1 | RSS slope, second half | {result.slope_mb_per_min:.3f} MB/min | ≤ {SLOPE_TARGET} | "
        f"{status(result.slope_mb_per_min <= SLOPE_TARGET)} |",
        f"| 2 | memory held per segment, second half | {result.bytes_per_segment:,.0f} B | (reported) | |",
        f"| 3 | descriptors, max | {max(p.descriptors for p in result.points)} | (bounded) | |",
        f"| 4 | /healthz while {result.drain_mb:.0f} MB drain ({result.drain_seconds:.1f} s): p50 / p99 | "
        f"{result.healthz_p50_ms:.1f} / {result.healthz_p99_ms:.1f} ms | p99 ≤ {HEALTHZ_TARGET_MS:.0f} ms | "
        f"{status(result.healthz_p99_ms <= HEALTHZ_TARGET_MS)} |",
    ]
    harness.report(args.out, "soak", f"Soak: {args.minutes:g} min, {args.rate:g} records/s, {args.files} files, "
                   f"{result.rotations} rotations", this, asdict(result), rows)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
