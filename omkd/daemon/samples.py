"""What the exposition shows, gathered at one moment (``Snapshot``, by ``exporter.py``, off the
scrape path), and how a row of the metrics table (``metrics.TABLE``) reads its samples from it.
"""

from __future__ import annotations

import dataclasses
import platform
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from omkd import __version__
from omkd.daemon.selfmetrics import IngestStats
from omkd.engine import patterns, skills
from omkd.engine.counters import METRIC, PipelineCounters
from omkd.engine.figures import AllTimeCounts, SkillTotals, WindowFigures
from omkd.engine.labels import OTHER, CappedLabels
from omkd.engine.report.schema import MetacogReport
from omkd.shell.knowledge_watch import BaseFigures
from omkd.shell.llm_judge import LlmStats

Value = float | dict[str, str]
Sample = tuple[tuple[str, ...], Value]


@dataclass(frozen=True, slots=True)
class WindowRow:
    """One skill label's window figures (skills sharing ``__other__`` summed first)."""

    totals: SkillTotals
    figures: WindowFigures
    open_segments: int
    knowledge_files: int
    knowledge_accessed: int
    metacog: MetacogReport | None = None
    """Its metacognition figures (spec §8.7), made once by the exporter."""


@dataclass(frozen=True, slots=True)
class WatermarkFigures:
    """Spec §1's watermark as /metrics carries it: the roots (an info metric's label), the window's
    ends, the sessions, and the fingerprint of the segment set as a number (its 12 hex digits read as
    an integer, exact in a float: Grafana's ``hex`` unit writes it as the status page does)."""

    roots: tuple[str, ...] = ()
    window_from: float | None = None
    window_to: float | None = None
    sessions: int = 0
    fingerprint: int = 0


@dataclass(slots=True)
class Snapshot:
    """Everything the exposition shows, gathered at one moment."""

    counters: dict[str, AllTimeCounts] = field(default_factory=dict)
    """All-time counters by label (checkpointed values only)."""
    window: dict[str, WindowRow] = field(default_factory=dict)
    overall: WindowRow | None = None
    pipeline: PipelineCounters = field(default_factory=PipelineCounters)
    ingest: IngestStats = field(default_factory=IngestStats)
    files_watched: int = 0
    files_open: int = 0
    lag_bytes: int = 0
    polling: bool = False
    replaying: bool = False
    last_event: float | None = None
    window_length: float = 0.0
    watermark: WatermarkFigures = field(default_factory=WatermarkFigures)
    outside_window: int = 0
    """Segments read outside the window (kept, or forgotten past retention)."""
    newest_outside_window: float | None = None
    labels: CappedLabels = field(default_factory=lambda: CappedLabels(1))
    knowledge: dict[str, BaseFigures] = field(default_factory=dict)
    llm: LlmStats = field(default_factory=LlmStats)
    llm_cap: float | None = None
    """The LLM judge's daily cost cap; None when no LLM judge is configured."""
    rules_hash: str = ""
    judge: str = ""


@dataclass(frozen=True, slots=True)
class MetricSpec:
    name: str
    """Without the ``_total`` / ``_info`` suffix the client library adds."""
    kind: Literal["counter", "gauge", "info"]
    help: str
    labels: tuple[str, ...]
    read: Callable[[Snapshot], Iterable[Sample]]


def plain(value: Callable[[Snapshot], float | None]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [((), value(s) or 0.0)]


def skill_labels(label: str) -> tuple[str, str]:
    """The ``skill`` and ``agent`` label values of a row's label (``skills.row_key``, capped):
    the skills past the cap share ``__other__``, of no one agent."""
    if label == OTHER:
        return (OTHER, "")
    agent, skill = skills.split_row(label)
    return (skill, agent)


def per_skill(value: Callable[[AllTimeCounts], float]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [(skill_labels(label), value(c)) for label, c in s.counters.items()]


def per_window(value: Callable[[WindowRow], float | None]) -> Callable[[Snapshot], Iterable[Sample]]:
    def read(s: Snapshot) -> Iterable[Sample]:
        for label, row in s.window.items():
            v = value(row)
            if v is not None:
                yield (skill_labels(label), v)

    return read


def per_skill_family(members: list[tuple[str, tuple[str, ...]]]) -> Callable[[Snapshot], Iterable[Sample]]:
    """The counter figures of one family (catalogue field name, its label values), per skill."""
    return lambda s: [
        ((*skill_labels(label), *values), c.figure(name)) for label, c in s.counters.items() for name, values in members
    ]


def per_window_family(members: list[tuple[str, tuple[str, ...]]]) -> Callable[[Snapshot], Iterable[Sample]]:
    """The window gauges of one family (catalogue field name, its label values), per skill."""
    return lambda s: [
        ((*skill_labels(label), *values), float(getattr(row.totals, name)))
        for label, row in s.window.items()
        for name, values in members
    ]


def overall(value: Callable[[WindowRow], float]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [((), value(s.overall))] if s.overall is not None else [((), 0.0)]


def rated(value: Callable[[WindowRow], float]) -> Callable[[WindowRow], float | None]:
    """A rate, its bounds or its band: no sample for a skill without segments in the window (a
    0.0 there would read as healthy)."""
    return lambda r: value(r) if r.figures.segments else None


def overall_rated(value: Callable[[WindowRow], float]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [((), value(s.overall))] if s.overall is not None and s.overall.figures.segments else []


def watermark_info(s: Snapshot) -> Iterable[Sample]:
    return [((), {"roots": ", ".join(s.watermark.roots)})] if s.watermark.roots else []


def rules_info(s: Snapshot) -> Iterable[Sample]:
    return [((), {"rules_hash": s.rules_hash, "judge": s.judge})] if s.rules_hash else []


def signals(s: Snapshot) -> Iterator[Sample]:
    for label, c in s.counters.items():
        for kind in patterns.SIGNAL_TYPES:
            yield ((*skill_labels(label), kind), c.signals.get(kind, 0))


def by_reason(values: Callable[[Snapshot], dict[str, int]], seeded: tuple[str, ...]) -> Callable[..., Iterable[Sample]]:
    def read(s: Snapshot) -> Iterable[Sample]:
        found = values(s)
        return [((key,), found.get(key, 0)) for key in sorted(set(seeded) | set(found))]

    return read


def counter_of(reach: Callable[[Snapshot], object], name: str) -> Callable[[Snapshot], dict[str, int]]:
    return lambda s: dict(getattr(reach(s), name))


def number_of(reach: Callable[[Snapshot], object], name: str) -> Callable[[Snapshot], float]:
    return lambda s: float(getattr(reach(s), name))


def from_fields(record: type, reach: Callable[[Snapshot], object]) -> list[MetricSpec]:
    """Rows for the fields of a counter record that name a metric."""
    rows = []
    for spec in dataclasses.fields(record):
        meta = spec.metadata.get(METRIC)
        if not meta:
            continue
        name, help_text, label = meta
        if label is None:
            rows.append(MetricSpec(name, "counter", help_text, (), plain(number_of(reach, spec.name))))
        else:
            rows.append(MetricSpec(name, "counter", help_text, (label,), by_reason(counter_of(reach, spec.name), ())))
    return rows


def build_info(_: Snapshot) -> Iterable[Sample]:
    return [((), {"version": __version__, "python": platform.python_version()})]


def knowledge(value: Callable[[BaseFigures], float | None]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [((b,), v) for b, f in sorted(s.knowledge.items()) if (v := value(f)) is not None]


def revision(s: Snapshot) -> Iterable[Sample]:
    return [((b,), {"revision": f.revision}) for b, f in sorted(s.knowledge.items()) if f.revision is not None]
