"""Benchmarks of the real ``omkd run`` daemon, run as a subprocess and observed from outside.

Run from the repository root::

    .venv/bin/python bench/daemon_bench.py [--quick]

1. Append-to-visible latency. A writer appends one complete tool call (a Glob ``tool_use``
   and its empty ``tool_result``: one more ``failed_search`` signal of the skill
   ``bench-latency``) to a followed file, in one ``write``; a poller scrapes ``/metrics``
   every ~5 ms on a keep-alive connection until ``omkd_signals_total`` shows it. Latency is
   the time the first scrape showing it was received minus the time ``write`` returned.
   Once with ``[tail] mode = "events"``, once with ``mode = "polling"``, ``poll_interval = "1s"``.
   Writes are at least 50 ms apart, at a random phase.
2. Idle CPU with 10,000 transcript files (copies of small real fixtures with fresh session
   ids and uuids, in 100 project folders): after catch-up, the daemon's utime+stime from
   ``/proc/PID/stat`` over 60 s (30 s with ``--quick``) of no writes and no scrapes, in events
   mode with the default ``rescan_interval``.
3. Peak RSS (``VmHWM`` in ``/proc/PID/status``) of that same daemon, which folded the 10,000
   files and over a million records.
4. Catch-up throughput: the daemon reading the ~300 MB replicated corpus of
   ``scan_throughput.py`` (``bench/corpus``, built or reused) from an empty state, timed
   from process start until ``omkd_lag_bytes == 0`` and ``omkd_replaying == 0`` (scraped
   every 50 ms), against ``omkd scan`` over the same corpus; runs interleaved, best of each.
5. ``/metrics`` scrape time with 1,000 skills (``[metrics] max_skills = 1000``): 50 scrapes
   100 ms apart on a keep-alive connection, request sent to body read.

Every figure is measured; only the targets are fixed. Results are printed as a markdown table
and written to ``bench/out/daemon_bench.json``. Temporary corpora go to a temporary folder that
is removed at the end (``--keep`` keeps it); ``bench/corpus`` is reused as scan_throughput.py
builds it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.client
import math
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

BENCH_DIR: Final = Path(__file__).resolve().parent
REPO_ROOT: Final = BENCH_DIR.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))  # for tests.daemon_process

import scan_throughput as scan_bench  # noqa: E402  (bench/ is on sys.path: this script's folder)

from tests.daemon_process import DaemonProcess  # noqa: E402

DEFAULT_OUT: Final = BENCH_DIR / "out"
MB: Final = 1_000_000

# --- targets (the only fixed figures) ------------------------------------------------------------
TARGET_EVENTS_P99_S: Final = 0.250
POLL_INTERVAL_S: Final = 1.0
TARGET_POLLING_P99_S: Final = POLL_INTERVAL_S + 0.100
TARGET_IDLE_CPU_PERCENT: Final = 1.0
TARGET_PEAK_RSS_MB: Final = 200.0
TARGET_CATCH_UP_RATIO: Final = 1.2
TARGET_SCRAPE_S: Final = 0.050

# --- workload shape ------------------------------------------------------------------------------
LATENCY_SKILL: Final = "bench-latency"
LATENCY_SERIES: Final = f'omkd_signals_total{{skill="{LATENCY_SKILL}",type="failed_search"}}'
POLL_PERIOD_S: Final = 0.005
MIN_WRITE_GAP_S: Final = 0.050
EVENTS_SPREAD_S: Final = 0.100
"""Extra random gap after a write became visible (events mode); polling mode spreads over poll_interval."""
VISIBLE_TIMEOUT_S: Final = 10.0

MANY_FILES: Final = 10_000
MANY_DIRS: Final = 100
TARGET_RECORDS: Final = 1_000_000
FIXTURE_POOL: Final = (
    "marot__spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl",
    "iansherr__claude-code-log/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
    "marot__spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl",
    "chiphuyen__sniffly/-Users-chip-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
    "iansherr__claude-code-log/-Users-dain-workspace-claude-code-log-sample/12a546d1-83a7-49a6-abba-5400db340b43.jsonl",
    "marot__spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-a7be2f0.jsonl",
)
"""Real transcripts of 61-131 records, cycled: about 107 records and 130 KB per file."""
UUID_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/omkd/bench/daemon_bench")
UUID_BYTES_RE: Final = re.compile(rb"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})")

SKILLS: Final = 1000
SKILL_FILES: Final = 300
SKILLS_PER_FILE: Final = 10
SCRAPES: Final = 50
SCRAPE_GAP_S: Final = 0.100

CATCH_UP_POLL_S: Final = 0.050
DAEMON_DEADLINE_S: Final = 600.0
SETTLE_S: Final = 3.0
CLOCK_TICKS: Final = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (never interpolated below a measured value)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def status(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def iso(moment: float) -> str:
    return dt.datetime.fromtimestamp(moment, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), from /proc/PID/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def proc_status_kib(pid: int, key: str) -> int:
    """A ``kB`` line of /proc/PID/status (VmHWM, VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def sample(body: bytes, series: str) -> float | None:
    """The value of one exposition sample, ``name{labels}`` exactly as omkd renders it."""
    needle = b"\n" + series.encode() + b" "
    start = body.find(needle)
    if start < 0:
        return None
    start += len(needle)
    end = body.find(b"\n", start)
    return float(body[start : end if end >= 0 else len(body)])


def free_disk_check(path: Path, needed: int) -> None:
    free = shutil.disk_usage(path).free
    if free < needed + (1 << 30):
        raise SystemExit(f"not enough disk in {path}: need {needed / MB:.0f} MB + 1 GiB, {free / MB:.0f} MB free")


# ---------------------------------------------------------------------------------------------
# Talking to the daemon
# ---------------------------------------------------------------------------------------------


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
    """``tests/daemon_process.DaemonProcess`` plus what the benchmarks read: pid, CPU, memory, metrics."""

    def __init__(self, workdir: Path, roots: list[Path], extra_config: str) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.process = DaemonProcess(workdir, roots, extra_config)
        self.scraper: Scraper | None = None
        self.started_at = 0.0
        self.slowest_scrape_s = 0.0
        """The longest /metrics response seen by ``wait``: how long the event loop stalled at worst."""

    def start(self) -> float:
        """Start the daemon; returns the ``perf_counter`` just before the process was spawned."""
        self.started_at = time.perf_counter()
        self.process.start(wait_ready=False)
        event = self.process.wait_log_event("started", deadline=DAEMON_DEADLINE_S)
        self.process.port = int(str(event["listen"]).rsplit(":", 1)[1])
        self.scraper = Scraper(self.process.port, timeout=DAEMON_DEADLINE_S)
        return self.started_at

    @property
    def pid(self) -> int:
        assert self.process.process is not None
        return self.process.process.pid

    def metrics(self) -> bytes:
        assert self.scraper is not None
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
        if self.scraper is not None:
            self.scraper.close()
        if self.process.process is not None:
            self.process.stop(timeout=DAEMON_DEADLINE_S)


# ---------------------------------------------------------------------------------------------
# Synthetic records (the shapes of tests/transcript_builder.py, written by hand here)
# ---------------------------------------------------------------------------------------------


@dataclass
class Session:
    """One Claude Code session being written: envelopes with chained uuids, fresh ids."""

    session_id: str
    cwd: str
    last_uuid: str | None = None
    serial: int = 0

    def _next(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}{self.session_id[:8]}{self.serial:06d}"

    def _envelope(self, kind: str, when: float) -> dict[str, Any]:
        record_uuid = str(uuid.uuid5(UUID_NAMESPACE, f"{self.session_id}/{self.serial}/{kind}"))
        self.serial += 1
        record: dict[str, Any] = {
            "parentUuid": self.last_uuid,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.39",
            "gitBranch": "main",
            "type": kind,
            "uuid": record_uuid,
            "timestamp": iso(when),
        }
        self.last_uuid = record_uuid
        return record

    def prompt(self, text: str, when: float) -> dict[str, Any]:
        record = self._envelope("user", when)
        record["message"] = {"role": "user", "content": text}
        record["permissionMode"] = "default"
        return record

    def _assistant(self, part: dict[str, Any], stop_reason: str, when: float) -> dict[str, Any]:
        record = self._envelope("assistant", when)
        record["message"] = {
            "model": "claude-opus-4-6",
            "id": self._next("msg_01"),
            "type": "message",
            "role": "assistant",
            "content": [part],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 3,
                "output_tokens": 40,
                "cache_read_input_tokens": 18000,
                "cache_creation_input_tokens": 300,
            },
        }
        record["requestId"] = self._next("req_011")
        return record

    def say(self, text: str, when: float) -> dict[str, Any]:
        return self._assistant({"type": "text", "text": text}, "end_turn", when)

    def call(
        self, tool: str, tool_input: dict[str, Any], content: str, detail: object, when: float, is_error: bool = False
    ) -> list[dict[str, Any]]:
        """A ``tool_use`` and the ``user`` record with its ``tool_result``."""
        call_id = self._next("toolu_01")
        use = self._assistant(
            {"type": "tool_use", "id": call_id, "name": tool, "input": tool_input, "caller": {"type": "direct"}},
            "tool_use",
            when,
        )
        part: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": content}
        if is_error:
            part["is_error"] = True
        result = self._envelope("user", when + 0.2)
        result["message"] = {"role": "user", "content": [part]}
        result["toolUseResult"] = detail
        return [use, result]

    def skill(self, name: str, when: float) -> list[dict[str, Any]]:
        """The Skill tool: call, "Launching skill" result, then the isMeta skill body."""
        records = self.call(
            "Skill", {"skill": name}, f"Launching skill: {name}", {"success": True, "commandName": name}, when
        )
        body = self._envelope("user", when + 0.3)
        body["message"] = {
            "role": "user",
            "content": [{"type": "text", "text": f"Base directory for this skill: {self.cwd}/.claude/skills/{name}"}],
        }
        body["isMeta"] = True
        body["sourceToolUseID"] = records[0]["message"]["content"][0]["id"]
        return [*records, body]

    def glob_miss(self, pattern: str, when: float) -> list[dict[str, Any]]:
        detail = {"filenames": [], "durationMs": 12, "numFiles": 0, "truncated": False}
        return self.call("Glob", {"pattern": pattern}, "No files found", detail, when)

    def read_ok(self, path: str, when: float) -> list[dict[str, Any]]:
        body = "# notes\nrun `make deploy` from the repo root\n"
        detail = {
            "type": "text",
            "file": {"filePath": path, "content": body, "numLines": 2, "startLine": 1, "totalLines": 2},
        }
        return self.call("Read", {"file_path": path}, f"     1\u2192{body}", detail, when)


def lines_of(records: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


# ---------------------------------------------------------------------------------------------
# Corpora
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CorpusStats:
    root: str
    files: int
    dirs: int
    bytes: int
    lines: int
    build_seconds: float


class UuidTemplate:
    """A real transcript split at every uuid, rendered again with a fresh uuid for each."""

    def __init__(self, rel: str, data: bytes) -> None:
        self.rel = rel
        self.parts = UUID_BYTES_RE.split(data)
        self.uuids = sorted({p.decode() for p in self.parts[1::2]})
        self.lines = data.count(b"\n")
        stem = Path(rel).stem
        self.stem_is_uuid = stem in self.uuids

    def render(self, copy_key: str) -> tuple[bytes, dict[str, str]]:
        mapping = {u: str(uuid.uuid5(UUID_NAMESPACE, f"{copy_key}/{u.lower()}")) for u in self.uuids}
        encoded = {u.encode(): m.encode() for u, m in mapping.items()}
        parts = self.parts
        out = [encoded[p] if i % 2 else p for i, p in enumerate(parts)]
        return b"".join(out), mapping


def build_many_files(fixtures: Path, root: Path, files: int, dirs: int) -> CorpusStats:
    """``files`` copies of the fixture pool (fresh session ids and record uuids) in ``dirs`` project folders."""
    started = time.perf_counter()
    templates = []
    for rel in FIXTURE_POOL:
        path = fixtures / rel
        if not path.is_file():
            raise SystemExit(f"fixture missing: {path}")
        templates.append(UuidTemplate(rel, path.read_bytes()))
    per_file = sum(len(b"".join(t.parts)) for t in templates) / len(templates)
    root.mkdir(parents=True, exist_ok=True)
    free_disk_check(root, int(per_file * files))
    total_bytes = 0
    total_lines = 0
    for index in range(files):
        template = templates[index % len(templates)]
        data, mapping = template.render(f"many/{index}")
        stem = Path(template.rel).stem
        name = f"{mapping[stem]}.jsonl" if template.stem_is_uuid else f"{stem}-{index:05d}.jsonl"
        folder = root / f"-home-bench-project-{index % dirs:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
        total_bytes += len(data)
        total_lines += template.lines
    return CorpusStats(str(root), files, dirs, total_bytes, total_lines, time.perf_counter() - started)


def build_skills_corpus(root: Path, skills: int, files: int, per_file: int, now: float) -> CorpusStats:
    """Transcripts that use ``skills`` distinct skills (``skill-0001``...), each in several sessions."""
    started = time.perf_counter()
    total_bytes = 0
    total_lines = 0
    dirs = 10
    for index in range(files):
        session = Session(str(uuid.uuid5(UUID_NAMESPACE, f"skills/{index}")), f"/home/dev/project-{index % dirs}")
        when = now - 86400 + index * 60.0
        records: list[dict[str, Any]] = []
        for k in range(per_file):
            name = f"skill-{(index * per_file + k) % skills + 1:04d}"
            records += session.skill(name, when)
            records += session.glob_miss(f"**/{name}/config*.yaml", when + 1)
            records += session.read_ok(f"{session.cwd}/docs/{name}.md", when + 2)
            records.append(session.say(f"Done with {name}; I'm not sure the config is complete.", when + 3))
            when += 5
        folder = root / f"-home-dev-project-{index % dirs}"
        folder.mkdir(parents=True, exist_ok=True)
        data = lines_of(records)
        (folder / f"{session.session_id}.jsonl").write_bytes(data)
        total_bytes += len(data)
        total_lines += len(records)
    return CorpusStats(str(root), files, dirs, total_bytes, total_lines, time.perf_counter() - started)


def write_fixture_copy(fixtures: Path, root: Path) -> int:
    """One copy set of all the real fixtures (fresh session ids) as background files; returns bytes."""
    sources, known_ids = scan_bench.load_sources(fixtures)
    mapping = {original: scan_bench.fresh_id(9999, original) for original in known_ids}
    written = 0
    for source in sources:
        target = root / scan_bench.copy_path(source.rel, mapping)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = scan_bench.copy_bytes(source, mapping)
        target.write_bytes(data)
        written += len(data)
    return written


# ---------------------------------------------------------------------------------------------
# 1. Append -> visible latency
# ---------------------------------------------------------------------------------------------


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


def measure_latency(mode: str, fixtures: Path, workdir: Path, samples: int, seed: int) -> LatencyResult:
    root = workdir / "roots"
    project = root / "-home-dev-latency"
    project.mkdir(parents=True)
    background = write_fixture_copy(fixtures, root / "background")
    session = Session(str(uuid.uuid5(UUID_NAMESPACE, f"latency/{mode}")), "/home/dev/latency")
    path = project / f"{session.session_id}.jsonl"
    now = time.time()
    path.write_bytes(lines_of([session.prompt("find the deploy config", now), *session.skill(LATENCY_SKILL, now)]))
    tail = f'[tail]\nmode = "{mode}"\n'
    if mode == "polling":
        tail += f'poll_interval = "{POLL_INTERVAL_S:g}s"\n'
    daemon = BenchDaemon(workdir / "daemon", [root], tail)
    rng = random.Random(seed)  # noqa: S311 (write phases, not secrets)
    spread = POLL_INTERVAL_S if mode == "polling" else EVENTS_SPREAD_S
    latencies: list[float] = []
    timeouts = 0
    scrapes = 0
    poll_time = 0.0
    try:
        daemon.start()
        body = daemon.wait_caught_up()
        baseline = sample(body, LATENCY_SERIES)
        if baseline is None:
            raise SystemExit(f"{LATENCY_SERIES} missing from /metrics after catch-up")
        assert daemon.scraper is not None
        scraper = daemon.scraper
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        expected = baseline
        next_write = time.perf_counter() + 0.5
        try:
            for index in range(samples):
                delay = next_write - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                data = lines_of(session.glob_miss(f"**/deploy-{index:04d}*.toml", time.time()))
                os.write(fd, data)
                written = time.perf_counter()
                expected += 1
                seen: float | None = None
                next_poll = written
                while True:
                    value = sample(scraper.get(), LATENCY_SERIES)
                    stamp = time.perf_counter()
                    scrapes += 1
                    if value is not None and value >= expected:
                        seen = stamp
                        break
                    if stamp - written > VISIBLE_TIMEOUT_S:
                        break
                    next_poll += POLL_PERIOD_S
                    pause = next_poll - time.perf_counter()
                    if pause > 0:
                        time.sleep(pause)
                    else:
                        next_poll = time.perf_counter()
                if seen is None:
                    timeouts += 1
                    expected = sample(scraper.get(), LATENCY_SERIES) or expected
                    next_write = time.perf_counter() + MIN_WRITE_GAP_S
                    continue
                latencies.append(seen - written)
                poll_time += seen - written
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
        mean_scrape_period_s=poll_time / max(1, scrapes - len(latencies)),
        background_bytes=background,
        target_p99_s=target,
        status=status(p99 <= target),
    )


# ---------------------------------------------------------------------------------------------
# 2 + 3. Idle CPU and peak RSS with 10,000 files
# ---------------------------------------------------------------------------------------------


@dataclass
class ManyFilesResult:
    corpus: CorpusStats
    catch_up_seconds: float
    slowest_scrape_during_catch_up_s: float
    scan_seconds: float
    files_watched: float | None
    records_folded: float | None
    lines_folded: float | None
    idle_seconds: float
    idle_cpu_seconds: float
    idle_cpu_percent: float
    rescans_during_idle: float
    checkpoints_during_idle: float
    rss_after_catch_up_mb: float
    rss_after_idle_mb: float
    peak_rss_mb: float
    target_idle_cpu_percent: float
    target_peak_rss_mb: float
    idle_status: str
    rss_status: str
    records_status: str


def measure_many_files(fixtures: Path, workdir: Path, idle_seconds: float) -> ManyFilesResult:
    root = workdir / "roots"
    print(f"  building {MANY_FILES:,} files in {MANY_DIRS} folders ...", flush=True)
    corpus = build_many_files(fixtures, root, MANY_FILES, MANY_DIRS)
    print(
        f"  built {corpus.files:,} files, {corpus.bytes / MB:.0f} MB, {corpus.lines:,} lines "
        f"in {corpus.build_seconds:.1f} s",
        flush=True,
    )
    scan_bench.warm_cache(scan_bench.list_files([root]))
    daemon = BenchDaemon(workdir / "daemon", [root], '[tail]\nmode = "events"\n')
    try:
        started = daemon.start()
        body = daemon.wait_caught_up(poll=0.5)
        catch_up = time.perf_counter() - started
        print(
            f"  caught up in {catch_up:.1f} s (slowest /metrics answer meanwhile {daemon.slowest_scrape_s:.1f} s); "
            f"settling {SETTLE_S:.0f} s",
            flush=True,
        )
        time.sleep(SETTLE_S)
        body = daemon.metrics()
        rss_caught_up = proc_status_kib(daemon.pid, "VmRSS") * 1024 / MB
        rescans_before = sample(body, "omkd_rescans_total") or 0
        checkpoints_before = sample(body, "omkd_checkpoint_writes_total") or 0
        pid = daemon.pid
        cpu_before = cpu_seconds(pid)
        wall_before = time.perf_counter()
        time.sleep(idle_seconds)
        cpu_after = cpu_seconds(pid)
        wall = time.perf_counter() - wall_before
        body = daemon.metrics()
        rss_idle = proc_status_kib(pid, "VmRSS") * 1024 / MB
        peak = proc_status_kib(pid, "VmHWM") * 1024 / MB
    finally:
        daemon.stop()
    scan_seconds, _ = scan_once(root)
    print(f"  omkd scan of the same files: {scan_seconds:.1f} s", flush=True)
    idle_cpu = cpu_after - cpu_before
    percent = idle_cpu / wall * 100
    records = sample(body, "omkd_records_total")
    return ManyFilesResult(
        corpus=corpus,
        catch_up_seconds=catch_up,
        slowest_scrape_during_catch_up_s=daemon.slowest_scrape_s,
        scan_seconds=scan_seconds,
        files_watched=sample(body, "omkd_files_watched"),
        records_folded=records,
        lines_folded=sample(body, "omkd_lines_total"),
        idle_seconds=wall,
        idle_cpu_seconds=idle_cpu,
        idle_cpu_percent=percent,
        rescans_during_idle=(sample(body, "omkd_rescans_total") or 0) - rescans_before,
        checkpoints_during_idle=(sample(body, "omkd_checkpoint_writes_total") or 0) - checkpoints_before,
        rss_after_catch_up_mb=rss_caught_up,
        rss_after_idle_mb=rss_idle,
        peak_rss_mb=peak,
        target_idle_cpu_percent=TARGET_IDLE_CPU_PERCENT,
        target_peak_rss_mb=TARGET_PEAK_RSS_MB,
        idle_status=status(percent <= TARGET_IDLE_CPU_PERCENT),
        rss_status=status(peak <= TARGET_PEAK_RSS_MB),
        records_status="ok" if (records or 0) >= TARGET_RECORDS else f"only {records} records folded",
    )


# ---------------------------------------------------------------------------------------------
# 4. Catch-up throughput vs omkd scan
# ---------------------------------------------------------------------------------------------


@dataclass
class CatchUpResult:
    corpus: str
    files: int
    bytes: int
    runs: int
    scan_seconds: list[float]
    daemon_seconds: list[float]
    daemon_started_seconds: list[float]
    daemon_peak_rss_mb: list[float]
    daemon_records: float | None
    scan_records: int
    scan_empty_seconds: list[float]
    best_scan_seconds: float
    best_daemon_seconds: float
    net_ratio: float
    """(daemon - its time to the ``started`` line) / (scan - scan of an empty folder): start-up left out."""
    scan_mb_per_s: float
    daemon_mb_per_s: float
    ratio: float
    target_ratio: float
    status: str


def daemon_catch_up(root: Path, workdir: Path) -> tuple[float, float, float, float | None]:
    """Seconds from spawn to caught up, seconds to the ``started`` log line, peak RSS MB, records."""
    daemon = BenchDaemon(workdir, [root], "")
    try:
        spawned = daemon.start()
        started = time.perf_counter() - spawned

        def done(body: bytes) -> bool:
            return sample(body, "omkd_lag_bytes") == 0 and sample(body, "omkd_replaying") == 0

        body = daemon.wait(done, "catch-up", poll=CATCH_UP_POLL_S)
        seconds = time.perf_counter() - spawned
        peak = proc_status_kib(daemon.pid, "VmHWM") * 1024 / MB
    finally:
        daemon.stop()
    return seconds, started, peak, sample(body, "omkd_records_total")


def scan_once(root: Path) -> tuple[float, dict[str, Any]]:
    command = scan_bench.scan_command([root])
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False, cwd=scan_bench.NEUTRAL_CWD)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"omkd scan failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    report: dict[str, Any] = orjson.loads(done.stdout)
    return seconds, report


def measure_catch_up(fixtures: Path, corpus_dir: Path, workdir: Path, runs: int) -> CatchUpResult:
    corpus = scan_bench.build_corpus(fixtures, corpus_dir, 300.0)
    files = scan_bench.list_files([corpus.root])
    total = sum(f.stat().st_size for f in files)
    print(f"  corpus {'reused' if corpus.reused else 'built'}: {corpus.root}, {total / MB:.0f} MB", flush=True)
    scan_bench.warm_cache(files)
    scans: list[float] = []
    empties: list[float] = []
    daemons: list[float] = []
    startups: list[float] = []
    peaks: list[float] = []
    records: float | None = None
    scan_records = 0
    for run in range(runs):
        seconds, report = scan_once(corpus.root)
        scans.append(seconds)
        scan_records = int(report["pipeline"]["records"])
        print(f"  scan run {run + 1}: {seconds:.2f} s", flush=True)
        empty = workdir / "empty"
        empty.mkdir(parents=True, exist_ok=True)
        empties.append(scan_once(empty)[0])
        seconds, started, peak, records = daemon_catch_up(corpus.root, workdir / f"run-{run}")
        daemons.append(seconds)
        startups.append(started)
        peaks.append(peak)
        print(f"  daemon run {run + 1}: {seconds:.2f} s (started after {started:.2f} s)", flush=True)
    best_scan, best_daemon = min(scans), min(daemons)
    ratio = best_daemon / best_scan
    net = min(d - s for d, s in zip(daemons, startups, strict=True)) / (best_scan - min(empties))
    return CatchUpResult(
        corpus=str(corpus.root),
        files=len(files),
        bytes=total,
        runs=runs,
        scan_seconds=scans,
        daemon_seconds=daemons,
        daemon_started_seconds=startups,
        daemon_peak_rss_mb=peaks,
        daemon_records=records,
        scan_records=scan_records,
        scan_empty_seconds=empties,
        best_scan_seconds=best_scan,
        best_daemon_seconds=best_daemon,
        scan_mb_per_s=total / MB / best_scan,
        daemon_mb_per_s=total / MB / best_daemon,
        ratio=ratio,
        net_ratio=net,
        target_ratio=TARGET_CATCH_UP_RATIO,
        status=status(ratio <= TARGET_CATCH_UP_RATIO),
    )


# ---------------------------------------------------------------------------------------------
# 5. /metrics scrape time with 1,000 skills
# ---------------------------------------------------------------------------------------------


@dataclass
class ScrapeResult:
    corpus: CorpusStats
    skill_labels: int
    skills_overflowed: float | None
    body_bytes: int
    series: int
    scrapes: int
    seconds: list[float]
    p50_s: float
    p99_s: float
    max_s: float
    target_s: float
    status: str


SKILL_LABEL_RE: Final = re.compile(rb'^omkd_segments_total\{skill="([^"]*)"\}', re.MULTILINE)


def measure_scrapes(workdir: Path, scrapes: int) -> ScrapeResult:
    root = workdir / "roots"
    corpus = build_skills_corpus(root, SKILLS, SKILL_FILES, SKILLS_PER_FILE, time.time())
    daemon = BenchDaemon(workdir / "daemon", [root], f"[metrics]\nmax_skills = {SKILLS}\n")
    seconds: list[float] = []
    try:
        daemon.start()
        body = daemon.wait_caught_up()
        assert daemon.scraper is not None
        scraper = daemon.scraper
        for _ in range(scrapes):
            started = time.perf_counter()
            body = scraper.get()
            seconds.append(time.perf_counter() - started)
            time.sleep(SCRAPE_GAP_S)
    finally:
        daemon.stop()
    labels = {m.decode() for m in SKILL_LABEL_RE.findall(body)}
    series = sum(1 for line in body.splitlines() if line and not line.startswith(b"#"))
    p99 = percentile(seconds, 99)
    return ScrapeResult(
        corpus=corpus,
        skill_labels=len(labels),
        skills_overflowed=sample(body, "omkd_skills_overflowed"),
        body_bytes=len(body),
        series=series,
        scrapes=scrapes,
        seconds=seconds,
        p50_s=percentile(seconds, 50),
        p99_s=p99,
        max_s=max(seconds),
        target_s=TARGET_SCRAPE_S,
        status=status(p99 <= TARGET_SCRAPE_S),
    )


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


@dataclass
class Results:
    date: str
    command: str
    quick: bool
    machine: dict[str, Any]
    latency: list[LatencyResult] = field(default_factory=list)
    many_files: ManyFilesResult | None = None
    catch_up: CatchUpResult | None = None
    scrape: ScrapeResult | None = None
    phase_seconds: dict[str, float] = field(default_factory=dict)
    load_average: dict[str, list[float]] = field(default_factory=dict)
    """1-minute load average before and after each phase: other work on the machine shows here."""

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        began = time.perf_counter()
        before = os.getloadavg()[0]
        try:
            yield
        finally:
            self.phase_seconds[name] = time.perf_counter() - began
            self.load_average[name] = [before, os.getloadavg()[0]]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.010 else f"{seconds * 1000:.1f} ms"


def markdown(results: Results) -> str:
    m = results.machine
    lines = [
        f"omkd daemon benchmarks — {results.date} — `{results.command}`",
        "",
        f"Machine: {m['cpus']} CPUs, {m['cpu']}, Python {m['python']}, omkd {m['omkd']['version']} at "
        f"{m['omkd']['path']} (git {m['omkd']['git'] or 'n/a: not the working tree'}; "
        f"repository HEAD {m['omkd']['repository_head']})",
        "",
        "| # | metric | value | target | status |",
        "|---|---|---:|---:|---|",
    ]
    lines.extend(
        f"| 1 | append→visible latency, {lat.mode} ({lat.samples} appends, {lat.timeouts} not seen in "
        f"{VISIBLE_TIMEOUT_S:.0f} s): p50 / p99 / max "
        f"| {ms(lat.p50_s)} / {ms(lat.p99_s)} / {ms(lat.max_s)} | p99 <= {ms(lat.target_p99_s)} | {lat.status} |"
        for lat in results.latency
    )
    many = results.many_files
    if many is not None:
        c = many.corpus
        lines += [
            f"| 2 | idle CPU, {c.files:,} files, events, rescan 30 s ({many.idle_seconds:.0f} s idle) "
            f"| {many.idle_cpu_percent:.2f} % ({many.idle_cpu_seconds:.2f} s CPU) "
            f"| <= {many.target_idle_cpu_percent:.0f} % | {many.idle_status} |",
            f"| 3 | peak RSS (VmHWM), {c.files:,} files, {int(many.records_folded or 0):,} records folded "
            f"| {many.peak_rss_mb:.1f} MB | <= {many.target_peak_rss_mb:.0f} MB | {many.rss_status} |",
            f"| 2-3 | catch-up of those {c.bytes / MB:.0f} MB: daemon / `omkd scan` "
            f"| {many.catch_up_seconds:.1f} s / {many.scan_seconds:.1f} s | | |",
            f"| 2-3 | slowest /metrics answer during that catch-up (event-loop stall) "
            f"| {many.slowest_scrape_during_catch_up_s:.2f} s | | |",
            f"| 2-3 | RSS after catch-up / after the idle period | {many.rss_after_catch_up_mb:.1f} / "
            f"{many.rss_after_idle_mb:.1f} MB | | |",
        ]
    cu = results.catch_up
    if cu is not None:
        lines += [
            f"| 4 | catch-up {cu.bytes / MB:.0f} MB: daemon / scan, best of {cu.runs} "
            f"| {cu.best_daemon_seconds:.2f} s / {cu.best_scan_seconds:.2f} s = {cu.ratio:.2f} "
            f"| <= {cu.target_ratio} | {cu.status} |",
            f"| 4 | throughput daemon / scan | {cu.daemon_mb_per_s:.1f} / {cu.scan_mb_per_s:.1f} MB/s | | |",
            f"| 4 | ratio with start-up left out (daemon to `started`, scan of an empty folder) "
            f"| {cu.net_ratio:.2f} | | |",
        ]
    sc = results.scrape
    if sc is not None:
        lines.append(
            f"| 5 | /metrics scrape, {sc.skill_labels} skills, {sc.series:,} series, {sc.body_bytes / 1000:.0f} kB: "
            f"p50 / p99 ({sc.scrapes} scrapes) | {ms(sc.p50_s)} / {ms(sc.p99_s)} | <= {ms(sc.target_s)} "
            f"| {sc.status} |"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument(
        "--quick", action="store_true", help="30 s idle, 100 appends per mode, 1 catch-up run (else 60 s, 200, 3)"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where daemon_bench.json goes")
    parser.add_argument("--fixtures", type=Path, default=scan_bench.DEFAULT_FIXTURES, help="real transcripts")
    parser.add_argument("--corpus", type=Path, default=scan_bench.DEFAULT_CORPUS, help="scan_throughput.py's corpus")
    parser.add_argument("--work", type=Path, default=None, help="parent of the temporary folder (default: $TMPDIR)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument(
        "--only",
        action="append",
        choices=["latency", "many", "catchup", "scrape"],
        help="run only these benchmarks (repeatable; default: all)",
    )
    parser.add_argument("--seed", type=int, default=7, help="seed of the write phases")
    parser.add_argument("--samples", type=int, default=None, help="appends per latency mode (default 200, quick 100)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    only = set(args.only or ["latency", "many", "catchup", "scrape"])
    fixtures = args.fixtures.resolve()
    corpus_dir = args.corpus.resolve()
    out_dir = args.out.resolve()
    work_parent = args.work.resolve() if args.work is not None else None
    samples = args.samples or (100 if args.quick else 200)
    idle = 30.0 if args.quick else 60.0
    runs = 1 if args.quick else 3
    command = " ".join(
        [scan_bench._shown(Path(sys.executable)), scan_bench._shown(Path(__file__)), *(argv or sys.argv[1:])]
    )
    results = Results(
        date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        command=command,
        quick=args.quick,
        machine={
            "cpus": os.cpu_count(),
            "cpu": scan_bench.cpu_model(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "omkd": scan_bench.omkd_under_test(),
        },
    )
    work = Path(tempfile.mkdtemp(prefix="omkd-daemon-bench-", dir=work_parent))
    # The daemons are spawned with this process's cwd: a neutral one makes `python -m omkd` import the
    # installed omkd (or a snapshot first on PYTHONPATH), never ./omkd of the working tree.
    os.chdir(scan_bench.NEUTRAL_CWD)
    print(f"work folder: {work}")
    try:
        if "latency" in only:
            for mode in ("events", "polling"):
                print(f"[1] append->visible latency, {mode} mode, {samples} appends", flush=True)
                with results.phase(f"latency_{mode}"):
                    lat = measure_latency(mode, fixtures, work / f"latency-{mode}", samples, args.seed)
                results.latency.append(lat)
                print(
                    f"  p50 {ms(lat.p50_s)}, p99 {ms(lat.p99_s)}, max {ms(lat.max_s)}, timeouts {lat.timeouts} "
                    f"-> {lat.status}",
                    flush=True,
                )
        if "many" in only:
            print(f"[2,3] idle CPU and peak RSS with {MANY_FILES:,} files", flush=True)
            with results.phase("many_files"):
                many = measure_many_files(fixtures, work / "many", idle)
            results.many_files = many
            shutil.rmtree(work / "many", ignore_errors=True)
            print(
                f"  idle CPU {many.idle_cpu_percent:.2f} % -> {many.idle_status}; "
                f"peak RSS {many.peak_rss_mb:.1f} MB -> {many.rss_status}; records {many.records_folded}",
                flush=True,
            )
        if "catchup" in only:
            print("[4] catch-up throughput vs omkd scan", flush=True)
            with results.phase("catch_up"):
                cu = measure_catch_up(fixtures, corpus_dir, work / "catch-up", runs)
            results.catch_up = cu
            print(f"  ratio {cu.ratio:.2f} (start-up left out: {cu.net_ratio:.2f}) -> {cu.status}", flush=True)
        if "scrape" in only:
            print(f"[5] /metrics scrape time with {SKILLS} skills", flush=True)
            with results.phase("scrape"):
                sc = measure_scrapes(work / "scrape", SCRAPES)
            results.scrape = sc
            print(f"  p50 {ms(sc.p50_s)}, p99 {ms(sc.p99_s)} -> {sc.status}", flush=True)
    finally:
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file = out_dir / "daemon_bench.json"
    out_file.write_bytes(orjson.dumps(asdict(results), option=orjson.OPT_INDENT_2) + b"\n")
    print()
    print(markdown(results))
    print()
    print(f"written: {out_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
