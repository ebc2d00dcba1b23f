"""The /metrics exposition of the real daemon.

Hand-made sessions follow the recipes of ``tests/live_helpers.py``; the figures each test
expects are counted by hand from its plan, in the comments next to it.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Final

import pytest
from prometheus_client.parser import text_string_to_metric_families

from omkd.daemon.metrics import DECLARED, ON_OCCURRENCE, render
from omkd.daemon.samples import Snapshot, WindowRow
from omkd.engine.figures import SkillTotals, derive
from omkd.testing import DaemonProcess
from tests import claude_lines as cl
from tests.live_helpers import append, family, samples_of, session_bytes, skill_of, wait_lines

# deploy: miss, miss, hedge, marker, hit, misses3 -> 6 segments; 5 with a signal (all but hit);
#   weights 1 + 1 + 0.5 + 0.5 + 0 + 1 = 4.0; failed_search 1 + 1 + 3 = 5, repeated_failure 1
#   (the three misses in a row), hedging 1, explicit_marker 1; gap rate 5/6; tier 1 (low: 5 <= 6 < 20).
# lint: hedge -> 1 segment, 1 with a signal, weight 0.5, hedging 1; gap rate 1.0; tier 0 (underpowered).
# release: unchecked -> 1 segment, 1 with a signal, weight 1.0, failed_search 2.
# Spec §8 (each window ends at the next segment's prompt, or at the stream's end where it was read to
# for lint's, the last; no question, and no write but release's Edit):
#   deploy: lookup-gap segments 3 (miss, miss, misses3), all dropped; open-gap 5 (every segment with a
#     signal); no writing segment; anchors: 5 misses dropped, 2 hedge anchors (hedge, marker) dropped.
#   lint: no lookup gap; open-gap 1 (its hedge); 1 hedge anchor dropped.
#   release: lookup-gap 1, proceeded (both misses before the Edit); open-gap 1; writing 1, unchecked 1
#     (load 2 at the Edit); 2 misses proceeded.
GOLDEN_PLAN: Final = [
    *[("deploy", outcome) for outcome in ("miss", "miss", "hedge", "marker", "hit", "misses3")],
    ("release", "unchecked"),
    ("lint", "hedge"),
]
_OUTCOMES: Final = ("recovered", "created", "asked", "dropped", "proceeded")
_NONZERO_OUTCOMES: Final = {("deploy", "dropped"): 3.0, ("release", "proceeded"): 1.0}
_NONZERO_EPISODES: Final = {
    ("deploy", "failed_search", "dropped"): 5.0,
    ("deploy", "hedging", "dropped"): 2.0,
    ("lint", "hedging", "dropped"): 1.0,
    ("release", "failed_search", "proceeded"): 2.0,
}


def _key(name: str, skill: str, **labels: str) -> str:
    inner = ",".join(f'{k}="{v}"' for k, v in sorted({"agent": "claude_code", "skill": skill, **labels}.items()))
    return f"{name}{{{inner}}}"


BOUNDS: Final = ("", "_lower", "_upper")
METACOG_GOLDEN: Final = {
    **{_key("omkd_lookup_gap_segments_total", k): v for k, v in (("deploy", 3.0), ("lint", 0.0), ("release", 1.0))},
    **{
        _key("omkd_gap_outcome_segments_total", skill, outcome=o): _NONZERO_OUTCOMES.get((skill, o), 0.0)
        for skill in ("deploy", "lint", "release")
        for o in _OUTCOMES
    },
    **{
        _key("omkd_gap_episodes_total", skill, anchor=a, outcome=o): _NONZERO_EPISODES.get((skill, a, o), 0.0)
        for skill in ("deploy", "lint", "release")
        for a in ("failed_search", "hedging")
        for o in _OUTCOMES
    },
    **{_key("omkd_open_gap_segments_total", k): v for k, v in (("deploy", 5.0), ("lint", 1.0), ("release", 1.0))},
    **{_key("omkd_writing_segments_total", k): v for k, v in (("deploy", 0.0), ("lint", 0.0), ("release", 1.0))},
    **{
        _key("omkd_unchecked_write_segments_total", k): v for k, v in (("deploy", 0.0), ("lint", 0.0), ("release", 1.0))
    },
    **{_key("omkd_window_lookup_gap_segments", k): v for k, v in (("deploy", 3.0), ("lint", 0.0), ("release", 1.0))},
    # Ratios only where the denominator is not 0: no self-recovery for lint, no unchecked-write ratio
    # for deploy and lint (no writing segment).
    _key("omkd_window_self_recovery_ratio", "deploy"): 0.0,
    _key("omkd_window_self_recovery_ratio", "release"): 0.0,
    _key("omkd_window_asked_at_gap_ratio", "deploy"): 0.0,
    _key("omkd_window_asked_at_gap_ratio", "lint"): 0.0,
    _key("omkd_window_asked_at_gap_ratio", "release"): 0.0,
    _key("omkd_window_unchecked_write_ratio", "release"): 1.0,
    # all skills: 4 lookup-gap segments (3 dropped, 1 proceeded), 7 open-gap, 1 writing, 1 unchecked.
    "omkd_window_overall_lookup_gap_segments": 4.0,
    "omkd_window_overall_open_gap_segments": 7.0,
    "omkd_window_overall_writing_segments": 1.0,
    "omkd_window_overall_unchecked_write_segments": 1.0,
    "omkd_window_overall_self_recovery_ratio": 0.0,
    "omkd_window_overall_asked_at_gap_ratio": 0.0,
    "omkd_window_overall_unchecked_write_ratio": 1.0,
    **{
        f'omkd_window_overall_gap_outcome_segments{{outcome="{o}"}}': {"dropped": 3.0, "proceeded": 1.0}.get(o, 0.0)
        for o in _OUTCOMES
    },
}
GOLDEN: Final = {
    'omkd_segments_total{agent="claude_code",skill="deploy"}': 6.0,
    'omkd_segments_total{agent="claude_code",skill="lint"}': 1.0,
    'omkd_gap_segments_total{agent="claude_code",skill="deploy"}': 5.0,
    'omkd_gap_segments_total{agent="claude_code",skill="lint"}': 1.0,
    'omkd_weighted_gap_segments_total{agent="claude_code",skill="deploy"}': 4.0,
    'omkd_weighted_gap_segments_total{agent="claude_code",skill="lint"}': 0.5,
    'omkd_signals_total{agent="claude_code",skill="deploy",type="failed_search"}': 5.0,
    'omkd_signals_total{agent="claude_code",skill="deploy",type="repeated_failure"}': 1.0,
    'omkd_signals_total{agent="claude_code",skill="deploy",type="explicit_marker"}': 1.0,
    'omkd_signals_total{agent="claude_code",skill="deploy",type="hedging"}': 1.0,
    'omkd_signals_total{agent="claude_code",skill="lint",type="failed_search"}': 0.0,
    'omkd_signals_total{agent="claude_code",skill="lint",type="repeated_failure"}': 0.0,
    'omkd_signals_total{agent="claude_code",skill="lint",type="explicit_marker"}': 0.0,
    'omkd_signals_total{agent="claude_code",skill="lint",type="hedging"}': 1.0,
    'omkd_window_gap_ratio{agent="claude_code",skill="deploy"}': 5 / 6,
    'omkd_window_gap_ratio{agent="claude_code",skill="lint"}': 1.0,
    'omkd_window_confidence_tier{agent="claude_code",skill="deploy"}': 1.0,
    'omkd_window_confidence_tier{agent="claude_code",skill="lint"}': 0.0,
    'omkd_segments_total{agent="claude_code",skill="release"}': 1.0,
    'omkd_gap_segments_total{agent="claude_code",skill="release"}': 1.0,
    'omkd_weighted_gap_segments_total{agent="claude_code",skill="release"}': 1.0,
    'omkd_signals_total{agent="claude_code",skill="release",type="failed_search"}': 2.0,
    'omkd_signals_total{agent="claude_code",skill="release",type="repeated_failure"}': 0.0,
    'omkd_signals_total{agent="claude_code",skill="release",type="explicit_marker"}': 0.0,
    'omkd_signals_total{agent="claude_code",skill="release",type="hedging"}': 0.0,
    'omkd_window_gap_ratio{agent="claude_code",skill="release"}': 1.0,
    'omkd_window_confidence_tier{agent="claude_code",skill="release"}': 0.0,
    # all skills: 8 segments, 7 with a signal, weights 4.0 + 0.5 + 1.0; tier 1 (low).
    "omkd_window_overall_segments": 8.0,
    "omkd_window_overall_gap_segments": 7.0,
    "omkd_window_overall_weighted_gap_segments": 5.5,
    "omkd_window_overall_confidence_tier": 1.0,
    # One tool result answers a call the file never made (added by the fixture below).
    "omkd_orphan_results_total": 1.0,
    **METACOG_GOLDEN,
}
# Four skills, max_skills = 2: alpha 1 segment (miss), beta 2 (hit, hedge), gamma 3 (miss, hit, hit),
# delta 4 (hit, hit, hit, marker). Per skill (segments, gap segments, weight sum):
CAP_PLAN: Final = [
    ("alpha", "miss"),
    ("beta", "hit"),
    ("beta", "hedge"),
    ("gamma", "miss"),
    ("gamma", "hit"),
    ("gamma", "hit"),
    *[("delta", outcome) for outcome in ("hit", "hit", "hit", "marker")],
]
CAP_FIGURES: Final = {"alpha": (1, 1, 1.0), "beta": (2, 1, 0.5), "gamma": (3, 1, 1.0), "delta": (4, 1, 0.5)}
# Counters kept in the state file, so a restart must never lower them (the pipeline
# self-metrics such as omkd_read_bytes_total count for one process and restart from 0).
PERSISTENT_COUNTERS: Final = (
    "omkd_segments_total",
    "omkd_gap_segments_total",
    "omkd_weighted_gap_segments_total",
    "omkd_signals_total",
    "omkd_tool_calls_total",
    "omkd_tool_failures_total",
    "omkd_lines_total",
    "omkd_records_total",
    "omkd_parse_errors_total",
    "omkd_unknown_records_total",
    "omkd_invalid_skill_names_total",
    "omkd_lookup_gap_segments_total",
    "omkd_gap_outcome_segments_total",
    "omkd_gap_episodes_total",
    "omkd_open_gap_segments_total",
    "omkd_writing_segments_total",
    "omkd_unchecked_write_segments_total",
)


@contextlib.contextmanager
def started(workdir: Path, data: bytes, extra_config: str = "") -> Iterator[DaemonProcess]:
    """A daemon following one session file holding ``data``, every line of it read."""
    root = workdir / "projects"
    append(root / "-home-dev-shop" / "session.jsonl", data)
    with DaemonProcess(workdir, [root], extra_config) as daemon:
        daemon.start()
        wait_lines(daemon, data.count(b"\n"))
        yield daemon


def exported_names(text: bytes) -> set[str]:
    """Names of the samples in an exposition."""
    return {sample.name for fam in text_string_to_metric_families(text.decode()) for sample in fam.samples}


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.fail(
            "promtool not found on PATH: install Debian's `prometheus` package (CI does) to check the exposition",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="module")
def golden_scrape(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """/metrics once the golden session is read. A user-level knowledge file makes the coverage
    ratio defined, a git HEAD above it gives that knowledge base a revision, a record of an
    unknown type fills omkd_unknown_records and a tool result whose call is not in the file
    fills omkd_orphan_results, so every declared family has samples."""
    workdir = tmp_path_factory.mktemp("golden")
    append(workdir / "home" / ".claude" / "CLAUDE.md", b"# house rules\n")
    append(workdir / "home" / ".git" / "HEAD", b"0123456789abcdef0123456789abcdef01234567\n")
    unknown = cl.line({"type": "mystery-record", "timestamp": cl.TS, "sessionId": cl.SESSION}) + b"\n"
    orphan = cl.line(cl.tool_result("toolu_never_called", "No files found")) + b"\n"
    with started(workdir, session_bytes(GOLDEN_PLAN) + unknown + orphan) as daemon:
        text: bytes = daemon.get("/metrics", raw=True)
        assert daemon.stop() == 0
    return text


def test_every_declared_metric_is_exported(golden_scrape: bytes) -> None:
    """Each metric in DECLARED has samples in /metrics (counters as ``_total``, the info as ``omkd_build_info``)."""
    suffix = {"counter": "_total", "info": "_info", "gauge": ""}
    expected = {name + suffix[kind] for name, (kind, _) in DECLARED.items() if name not in ON_OCCURRENCE}
    assert sorted(expected - exported_names(golden_scrape)) == []


def test_promtool_check_metrics_passes(golden_scrape: bytes) -> None:
    """``promtool check metrics`` accepts the scraped exposition without a problem."""
    checked = subprocess.run(
        [promtool(), "check", "metrics"], input=golden_scrape, capture_output=True, check=False, timeout=30
    )
    output = (checked.stdout + checked.stderr).decode()
    assert (checked.returncode, output) == (0, ""), output


def test_golden_figures_of_a_hand_made_session(golden_scrape: bytes) -> None:
    """The alert-input counters and window gauges of a hand-made session are the figures counted by hand."""
    samples = samples_of(golden_scrape)
    names = {key.split("{")[0] for key in GOLDEN}
    actual = {key: value for name in names for key, value in family(samples, name).items()}
    assert actual == pytest.approx(GOLDEN)


def test_skill_label_cap_folds_extra_skills_into_other(tmp_path: Path) -> None:
    """With ``max_skills = 2`` and four skills, two keep their label, the rest share ``__other__``, sums preserved."""
    with started(tmp_path, session_bytes(CAP_PLAN), "[metrics]\nmax_skills = 2\n") as daemon:
        samples = daemon.metrics()
        assert daemon.stop() == 0
    segments = {skill_of(key): value for key, value in family(samples, "omkd_segments_total").items()}
    named = sorted(set(segments) - {"__other__"})
    assert (len(named), set(named) <= set(CAP_FIGURES), "__other__" in segments) == (2, True, True), segments
    others = [skill for skill in CAP_FIGURES if skill not in named]

    def expected(position: int) -> dict[str, float]:
        values: dict[str, float] = {skill: CAP_FIGURES[skill][position] for skill in named}
        values["__other__"] = sum(CAP_FIGURES[skill][position] for skill in others)
        return values

    def by_label(name: str) -> dict[str, float]:
        return {skill_of(key): value for key, value in family(samples, name).items()}

    assert by_label("omkd_segments_total") == expected(0)
    assert by_label("omkd_gap_segments_total") == expected(1)
    assert by_label("omkd_weighted_gap_segments_total") == expected(2)
    assert by_label("omkd_window_segments") == expected(0)
    assert by_label("omkd_window_gap_segments") == expected(1)
    assert (samples["omkd_skill_labels"], samples["omkd_skills_overflowed"]) == (2, 2)
    # 1 + 2 + 3 + 4 = 10 segments over all labels, and in the window.
    assert (sum(segments.values()), samples["omkd_window_overall_segments"]) == (10, 10)


def test_counters_never_decrease_across_a_restart(tmp_path: Path) -> None:
    """After SIGTERM and a restart, no persistent counter is lower than before, first scrape included."""
    first = session_bytes(GOLDEN_PLAN[:3])
    second = session_bytes(GOLDEN_PLAN[3:], first_minute=3)
    with started(tmp_path, first) as daemon:
        before = daemon.metrics()
        assert daemon.stop() == 0
        append(tmp_path / "projects" / "-home-dev-shop" / "session.jsonl", second)
        daemon.start()
        first_scrape = daemon.metrics()
        after = wait_lines(daemon, first.count(b"\n") + second.count(b"\n"))
        assert daemon.stop() == 0
    persistent = {key: value for name in PERSISTENT_COUNTERS for key, value in family(before, name).items()}
    assert persistent
    lower_at_first = {k: (v, first_scrape.get(k)) for k, v in persistent.items() if first_scrape.get(k, -1) < v}
    lower_at_end = {k: (v, after.get(k)) for k, v in persistent.items() if after.get(k, -1) < v}
    assert (lower_at_first, lower_at_end) == ({}, {})
    # Once the rest is read, the counters hold both parts: the golden figures.
    assert (
        after['omkd_segments_total{agent="claude_code",skill="deploy"}']
        == GOLDEN['omkd_segments_total{agent="claude_code",skill="deploy"}']
    )


def test_counters_never_decrease_across_a_kill(tmp_path: Path) -> None:
    """After kill -9 and a restart, no persistent counter is lower than the last scrape before the kill showed."""
    root = tmp_path / "projects"
    first = session_bytes(GOLDEN_PLAN[:3])
    second = session_bytes(GOLDEN_PLAN[3:], first_minute=3)
    lines = first.count(b"\n") + second.count(b"\n")
    with DaemonProcess(tmp_path, [root]) as daemon:
        # Checkpoints only at SIGTERM: the second part is read and exported, never saved, when
        # the kill comes (with the default 1 s interval the same happens whenever a crash falls
        # within a second of a read).
        daemon.write_config()
        config = daemon.config_path.read_text()
        assert "[state]\n" in config
        daemon.config_path.write_text(config.replace("[state]\n", '[state]\ncheckpoint_interval = "1h"\n', 1))
        append(root / "-home-dev-shop" / "session.jsonl", first)
        daemon.start()
        wait_lines(daemon, first.count(b"\n"))
        assert daemon.stop() == 0
        daemon.start()
        append(root / "-home-dev-shop" / "session.jsonl", second)
        before = wait_lines(daemon, lines)
        daemon.kill()
        daemon.start()
        first_scrape = daemon.metrics()
        wait_lines(daemon, lines)
        assert daemon.stop() == 0
    persistent = {key: value for name in PERSISTENT_COUNTERS for key, value in family(before, name).items()}
    lower = {k: (v, first_scrape.get(k)) for k, v in persistent.items() if first_scrape.get(k, -1) < v}
    assert lower == {}


def test_an_empty_window_exports_no_rate_bound_or_band() -> None:
    """A skill whose segments all left the window keeps its counts (0) but exports no rate, no
    interval bound and no band: a 0.0 there would read as "healthy". The same for overall."""
    empty = SkillTotals()
    row = WindowRow(empty, derive(empty), 0, 0, 0)
    text = render(Snapshot(window={"deploy": row}, overall=row, rules_hash="0123456789ab", judge="embedded-v1@x"))
    samples = {f"{s.name}{s.labels}" for f in text_string_to_metric_families(text.decode()) for s in f.samples}
    rated = (
        "gap_ratio",
        "weighted_gap_ratio",
        "health",
        "health_confident",
        "gap_ratio_lower",
        "weighted_gap_ratio_upper",
        *(f"{m}{b}" for m in ("self_recovery_ratio", "asked_at_gap_ratio", "unchecked_write_ratio") for b in BOUNDS),
    )
    assert [
        name for name in rated if f"omkd_window_{name}{{'agent': 'claude_code', 'skill': 'deploy'}}" in samples
    ] == []
    overall_rated = ("gap_ratio", "weighted_gap_ratio", "self_recovery_ratio_lower", "unchecked_write_ratio")
    assert [name for name in overall_rated if f"omkd_window_overall_{name}{{}}" in samples] == []
    assert "omkd_window_segments{'agent': 'claude_code', 'skill': 'deploy'}" in samples


def test_the_process_metrics_are_exported(golden_scrape: bytes) -> None:
    """``process_*`` (memory, descriptors, CPU): what MemoryMax and LimitNOFILE are measured against."""
    names = exported_names(golden_scrape)
    wanted = {"process_resident_memory_bytes", "process_open_fds", "process_max_fds", "process_cpu_seconds_total"}
    assert wanted - names == set()


def test_the_watermark_is_exported_as_the_status_page_states_it(tmp_path: Path) -> None:
    """Spec §1: the dashboard carries the watermark, so /metrics does: the roots, the window's ends,
    the sessions and the fingerprint, each equal to what ``/api/v1/status`` states of the same moment."""
    with started(tmp_path, session_bytes(GOLDEN_PLAN)) as daemon:
        status = daemon.get("/api/v1/status")
        samples = samples_of(daemon.get("/metrics", raw=True))
        assert daemon.stop() == 0
    mark = status["watermark"]
    roots = next(key for key in samples if key.startswith("omkd_watermark_info{"))
    assert roots == f'omkd_watermark_info{{roots="{", ".join(mark["roots"])}"}}'
    assert samples["omkd_window_sessions"] == mark["sessions"] == 1
    assert f"{int(samples['omkd_window_fingerprint']):012x}" == mark["fingerprint"]

    def seconds(iso: str) -> float:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()

    assert samples["omkd_window_to_timestamp_seconds"] == pytest.approx(seconds(mark["window_to"]))
    assert samples["omkd_window_from_timestamp_seconds"] == pytest.approx(seconds(mark["window_from"]))
