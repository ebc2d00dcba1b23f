"""Benchmark 5 of the daemon: how long a ``/metrics`` scrape takes with 1,000 skills.

Run from the repository root::

    .venv/bin/python bench/scrape.py [--skills 1000] [--scrapes 50]

300 hand-made sessions (``records.Session``), each calling 10 skills (``skill-0001`` …
``skill-1000``, each skill in 3 sessions), each call followed by a Glob miss, a Read and a
hedged answer; ``[metrics] max_skills = 1000``. After catch-up, 50 GETs of ``/metrics`` 100 ms
apart on a keep-alive connection, each timed from sending the request to reading the whole body.
``--skills`` scales the corpus (and ``max_skills``) down for a quick check. Target: p99 <= 50 ms.
Writes ``bench/out/scrape.json``.
"""

from __future__ import annotations

import re
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import harness
from common import ms, percentile, sample, status, this_run
from corpus import DAEMON_NAMESPACE, CorpusStats
from records import Session, lines_of

TARGET_SCRAPE_S: Final = 0.050

SKILLS: Final = 1000
SESSIONS_PER_SKILL: Final = 3
SKILLS_PER_FILE: Final = 10
PROJECT_DIRS: Final = 10
SCRAPES: Final = 50
SCRAPE_GAP_S: Final = 0.100
SKILL_LABEL_RE: Final = re.compile(rb'^omkd_segments_total\{skill="([^"]*)"\}', re.MULTILINE)


def build_skills_corpus(root: Path, skills: int, files: int, per_file: int, now: float) -> CorpusStats:
    """Transcripts that use ``skills`` distinct skills (``skill-0001``...), each in several sessions."""
    started = time.perf_counter()
    total_bytes = 0
    total_lines = 0
    for index in range(files):
        session = Session(
            str(uuid.uuid5(DAEMON_NAMESPACE, f"skills/{index}")), f"/home/dev/project-{index % PROJECT_DIRS}"
        )
        when = now - 86400 + index * 60.0
        records: list[dict[str, Any]] = []
        for k in range(per_file):
            name = f"skill-{(index * per_file + k) % skills + 1:04d}"
            records += session.skill(name, when)
            records += session.glob_miss(f"**/{name}/config*.yaml", when + 1)
            records += session.read_ok(f"{session.cwd}/docs/{name}.md", when + 2)
            records.append(session.say(f"Done with {name}; I'm not sure the config is complete.", when + 3))
            when += 5
        folder = root / f"-home-dev-project-{index % PROJECT_DIRS}"
        folder.mkdir(parents=True, exist_ok=True)
        data = lines_of(records)
        (folder / f"{session.session_id}.jsonl").write_bytes(data)
        total_bytes += len(data)
        total_lines += len(records)
    return CorpusStats(str(root), files, PROJECT_DIRS, total_bytes, total_lines, time.perf_counter() - started)


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


def measure_scrapes(workdir: Path, scrapes: int, skills: int = SKILLS) -> ScrapeResult:
    root = workdir / "roots"
    files = skills * SESSIONS_PER_SKILL // SKILLS_PER_FILE
    corpus = build_skills_corpus(root, skills, files, SKILLS_PER_FILE, time.time())
    daemon = harness.BenchDaemon(workdir / "daemon", [root], f"[metrics]\nmax_skills = {skills}\n")
    seconds: list[float] = []
    try:
        daemon.start()
        body = daemon.wait_caught_up()
        for _ in range(scrapes):
            started = time.perf_counter()
            body = daemon.scraper.get()
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


def run(workdir: Path, scrapes: int = SCRAPES, skills: int = SKILLS) -> ScrapeResult:
    """``measure_scrapes`` with its progress lines."""
    print(f"[5] /metrics scrape time with {skills} skills", flush=True)
    sc = measure_scrapes(workdir, scrapes, skills)
    print(f"  p50 {ms(sc.p50_s)}, p99 {ms(sc.p99_s)} -> {sc.status}", flush=True)
    return sc


def rows(sc: ScrapeResult) -> list[str]:
    return [
        f"| 5 | /metrics scrape, {sc.skill_labels} skills, {sc.series:,} series, {sc.body_bytes / 1000:.0f} kB: "
        f"p50 / p99 ({sc.scrapes} scrapes) | {ms(sc.p50_s)} / {ms(sc.p99_s)} | <= {ms(sc.target_s)} "
        f"| {sc.status} |"
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "scrape.json", fixtures=False)
    parser.add_argument("--skills", type=int, default=SKILLS, help=f"distinct skills (default {SKILLS})")
    parser.add_argument("--scrapes", type=int, default=SCRAPES, help=f"timed scrapes (default {SCRAPES})")
    args = parser.parse_args(argv)
    this = this_run(__file__, argv)
    with harness.work_folder(args.work, args.keep) as work:
        sc = run(work / "scrape", args.scrapes, args.skills)
    harness.report(args.out, "scrape", "omkd /metrics scrape time", this, sc, rows(sc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
