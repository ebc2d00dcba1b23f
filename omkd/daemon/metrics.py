"""The Prometheus exposition: one table of metrics, from which the declared list and the
collector both derive (the custom-collector idea of prometheus/client_python).

Alert inputs are counters (segments, gap segments, the sum of segment weights, signals by
type, tool calls and failures) whose ratios PromQL computes, so sums over many hosts stay
right. Event-time window figures, which PromQL cannot compute, are gauges in
numerator/denominator pairs plus the derived rate, tier, band and coverage. ``skill`` is the
only high-cardinality label and is capped: skills past the cap share ``__other__``. Per-skill
series also carry ``agent`` (``claude_code``, ``codex``, ``gemini``: three values).

Each row says how to read its samples from a ``Snapshot`` (gathered by ``exporter.py``, off
the scrape path). Pipeline and ingest counters come from their fields' metadata.
"""

from __future__ import annotations

import dataclasses
import platform
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final, Literal

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector

from omkd import __version__
from omkd.daemon.selfmetrics import IngestStats
from omkd.engine import figures, health, patterns, skills
from omkd.engine.counters import METRIC, PipelineCounters
from omkd.engine.figures import AllTimeCounts, SkillTotals, WindowFigures
from omkd.engine.labels import OTHER, CappedLabels
from omkd.shell.knowledge_watch import BaseFigures
from omkd.shell.llm_judge import LlmStats

PARSE_ERROR_REASONS: Final = ("invalid_json", "invalid_utf8", "not_object", "bad_shape")
DISCARD_REASONS: Final = ("oversize", "partial_at_delete")
TIER_VALUES: Final = {tier: i for i, tier in enumerate(health.TIERS)}
BAND_VALUES: Final = {band: i for i, band in enumerate(health.BANDS)}

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


def _plain(value: Callable[[Snapshot], float | None]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [((), value(s) or 0.0)]


def skill_labels(label: str) -> tuple[str, str]:
    """The ``skill`` and ``agent`` label values of a row's label (``skills.row_key``, capped):
    the skills past the cap share ``__other__``, of no one agent."""
    if label == OTHER:
        return (OTHER, "")
    agent, skill = skills.split_row(label)
    return (skill, agent)


def _per_skill(value: Callable[[AllTimeCounts], float]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [(skill_labels(label), value(c)) for label, c in s.counters.items()]


def _per_window(value: Callable[[WindowRow], float | None]) -> Callable[[Snapshot], Iterable[Sample]]:
    def read(s: Snapshot) -> Iterable[Sample]:
        for label, row in s.window.items():
            v = value(row)
            if v is not None:
                yield (skill_labels(label), v)

    return read


def _overall(value: Callable[[WindowRow], float]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [((), value(s.overall))] if s.overall is not None else [((), 0.0)]


def _rated(value: Callable[[WindowRow], float]) -> Callable[[WindowRow], float | None]:
    """A rate, its bounds or its band: no sample for a skill without segments in the window (a
    0.0 there would read as healthy)."""
    return lambda r: value(r) if r.figures.segments else None


def _overall_rated(value: Callable[[WindowRow], float]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [((), value(s.overall))] if s.overall is not None and s.overall.figures.segments else []


def _rules_info(s: Snapshot) -> Iterable[Sample]:
    return [((), {"rules_hash": s.rules_hash, "judge": s.judge})] if s.rules_hash else []


def _signals(s: Snapshot) -> Iterator[Sample]:
    for label, c in s.counters.items():
        for kind in patterns.SIGNAL_TYPES:
            yield ((*skill_labels(label), kind), c.signals.get(kind, 0))


def _by_reason(
    values: Callable[[Snapshot], dict[str, int]], seeded: tuple[str, ...]
) -> Callable[..., Iterable[Sample]]:
    def read(s: Snapshot) -> Iterable[Sample]:
        found = values(s)
        return [((key,), found.get(key, 0)) for key in sorted(set(seeded) | set(found))]

    return read


def _counter_of(reach: Callable[[Snapshot], object], name: str) -> Callable[[Snapshot], dict[str, int]]:
    return lambda s: dict(getattr(reach(s), name))


def _number_of(reach: Callable[[Snapshot], object], name: str) -> Callable[[Snapshot], float]:
    return lambda s: float(getattr(reach(s), name))


def _from_fields(record: type, reach: Callable[[Snapshot], object]) -> list[MetricSpec]:
    """Rows for the fields of a counter record that name a metric."""
    rows = []
    for spec in dataclasses.fields(record):
        meta = spec.metadata.get(METRIC)
        if not meta:
            continue
        name, help_text, label = meta
        if label is None:
            rows.append(MetricSpec(name, "counter", help_text, (), _plain(_number_of(reach, spec.name))))
        else:
            rows.append(MetricSpec(name, "counter", help_text, (label,), _by_reason(_counter_of(reach, spec.name), ())))
    return rows


def _build_info(_: Snapshot) -> Iterable[Sample]:
    return [((), {"version": __version__, "python": platform.python_version()})]


def _knowledge(value: Callable[[BaseFigures], float | None]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [((b,), v) for b, f in sorted(s.knowledge.items()) if (v := value(f)) is not None]


def _revision(s: Snapshot) -> Iterable[Sample]:
    return [((b,), {"revision": f.revision}) for b, f in sorted(s.knowledge.items()) if f.revision is not None]


SKILL: Final = ("skill", "agent")


def _catalogue_counters() -> list[MetricSpec]:
    """The all-time counter of each counter figure of the catalogue (``figures.COUNTED``)."""

    def value(name: str) -> Callable[[AllTimeCounts], float]:
        return lambda c: c.figure(name)

    return [
        MetricSpec(spec.counter[0], "counter", spec.counter[1], SKILL, _per_skill(value(name)))
        for name, spec in figures.COUNTED
        if spec.counter is not None
    ]


def _catalogue_gauges() -> list[MetricSpec]:
    """The window gauge of each gauged figure of the catalogue (``figures.GAUGED``)."""

    def value(name: str) -> Callable[[WindowRow], float]:
        return lambda r: float(getattr(r.totals, name))

    return [
        MetricSpec(spec.gauge[0], "gauge", spec.gauge[1], SKILL, _per_window(value(name)))
        for name, spec in figures.GAUGED
        if spec.gauge is not None
    ]


TABLE: Final[list[MetricSpec]] = [
    # --- all-time counters per skill (alert inputs) ---
    MetricSpec("omkd_segments", "counter", "Segments counted per skill since the state was created.", SKILL,
               _per_skill(lambda c: c.segments)),
    MetricSpec("omkd_gap_segments", "counter", "Segments with at least one gap signal, per skill.", SKILL,
               _per_skill(lambda c: c.gap_segments)),
    MetricSpec("omkd_weighted_gap_segments", "counter",
               "Sum of segment weights (max signal weight per segment), per skill.", SKILL,
               _per_skill(lambda c: c.weighted_gap_sum)),
    *_catalogue_counters(),
    MetricSpec("omkd_signals", "counter", "Gap signals per skill and type.", (*SKILL, "type"), _signals),
    # --- event-time window gauges per skill ---
    MetricSpec("omkd_window_segments", "gauge", "Segments starting in the event-time window, per skill.", SKILL,
               _per_window(lambda r: r.figures.segments)),
    MetricSpec("omkd_window_gap_segments", "gauge", "Segments with a gap signal in the window, per skill.", SKILL,
               _per_window(lambda r: r.figures.gap_segments)),
    MetricSpec("omkd_window_weighted_gap_segments", "gauge", "Sum of segment weights in the window, per skill.",
               SKILL, _per_window(lambda r: r.totals.weight_sum)),
    MetricSpec("omkd_window_gap_ratio", "gauge", "Gap rate over the window, per skill.", SKILL,
               _per_window(_rated(lambda r: r.figures.gap_rate))),
    MetricSpec("omkd_window_weighted_gap_ratio", "gauge", "Weighted gap rate over the window, per skill.", SKILL,
               _per_window(_rated(lambda r: r.figures.weighted_gap_rate))),
    MetricSpec("omkd_window_confidence_tier", "gauge",
               "Confidence tier over the window: 0 underpowered (<5), 1 low (<20), 2 high.", SKILL,
               _per_window(lambda r: TIER_VALUES[r.figures.tier])),
    MetricSpec("omkd_window_health", "gauge", "Health band over the window: 0 green, 1 yellow, 2 red.", SKILL,
               _per_window(_rated(lambda r: BAND_VALUES[r.figures.band]))),
    MetricSpec("omkd_window_open_segments", "gauge", "Segments still open (stream active, not idle), per skill.",
               SKILL, _per_window(lambda r: r.open_segments)),
    MetricSpec("omkd_window_tool_calls_comparable", "gauge",
               "Answered, not cancelled tool calls in the window, per skill.", SKILL,
               _per_window(lambda r: r.totals.comparable_calls)),
    *_catalogue_gauges(),
    MetricSpec("omkd_window_knowledge_files", "gauge", "Knowledge files of the projects the skill ran in.", SKILL,
               _per_window(lambda r: r.knowledge_files)),
    MetricSpec("omkd_window_knowledge_files_accessed", "gauge", "Knowledge files read in the window, per skill.",
               SKILL, _per_window(lambda r: r.knowledge_accessed)),
    MetricSpec("omkd_window_coverage_ratio", "gauge",
               "Knowledge files accessed / knowledge files, per skill (absent without files).", SKILL,
               _per_window(lambda r: r.knowledge_accessed / r.knowledge_files if r.knowledge_files else None)),
    MetricSpec("omkd_window_gap_ratio_lower", "gauge",
               "Lower bound of the gap rate's 95 % interval (Wilson, continuity-corrected), per skill.",
               SKILL, _per_window(_rated(lambda r: r.figures.gap_interval[0]))),
    MetricSpec("omkd_window_gap_ratio_upper", "gauge",
               "Upper bound of the gap rate's 95 % interval (Wilson, continuity-corrected), per skill.",
               SKILL, _per_window(_rated(lambda r: r.figures.gap_interval[1]))),
    MetricSpec("omkd_window_weighted_gap_ratio_lower", "gauge",
               "Lower bound of the weighted gap rate's 95 % interval (Wilson, continuity-corrected).", SKILL,
               _per_window(_rated(lambda r: r.figures.weighted_interval[0]))),
    MetricSpec("omkd_window_weighted_gap_ratio_upper", "gauge",
               "Upper bound of the weighted gap rate's 95 % interval (Wilson, continuity-corrected).", SKILL,
               _per_window(_rated(lambda r: r.figures.weighted_interval[1]))),
    MetricSpec("omkd_window_health_confident", "gauge",
               "1 when the health band is backed by the interval, 0 when indicative.", SKILL,
               _per_window(_rated(lambda r: 1 if r.figures.confident else 0))),
    # --- window gauges over all skills ---
    MetricSpec("omkd_window_overall_segments", "gauge", "Segments in the window, all skills.", (),
               _overall(lambda r: r.figures.segments)),
    MetricSpec("omkd_window_overall_gap_segments", "gauge", "Segments with a gap signal in the window, all skills.",
               (), _overall(lambda r: r.figures.gap_segments)),
    MetricSpec("omkd_window_overall_weighted_gap_segments", "gauge",
               "Sum of segment weights in the window, all skills.", (), _overall(lambda r: r.totals.weight_sum)),
    MetricSpec("omkd_window_overall_gap_ratio", "gauge", "Gap rate over the window, all skills.", (),
               _overall_rated(lambda r: r.figures.gap_rate)),
    MetricSpec("omkd_window_overall_weighted_gap_ratio", "gauge", "Weighted gap rate over the window, all skills.",
               (), _overall_rated(lambda r: r.figures.weighted_gap_rate)),
    MetricSpec("omkd_window_overall_confidence_tier", "gauge", "Confidence tier over the window, all skills.", (),
               _overall(lambda r: TIER_VALUES[r.figures.tier])),
    MetricSpec("omkd_window_length_seconds", "gauge", "Length of the event-time window.", (),
               _plain(lambda s: s.window_length)),
    # --- the pipeline ---
    MetricSpec("omkd_files_watched", "gauge", "Transcript files being followed.", (),
               _plain(lambda s: s.files_watched)),
    MetricSpec("omkd_files_open", "gauge", "Transcript files with an open descriptor.", (),
               _plain(lambda s: s.files_open)),
    *_from_fields(IngestStats, lambda s: s.ingest),
    *_from_fields(PipelineCounters, lambda s: s.pipeline),
    *_from_fields(LlmStats, lambda s: s.llm),
    MetricSpec("omkd_hedging_llm_enabled", "gauge", "1 when an LLM judge refines the hedging verdicts.", (),
               _plain(lambda s: float(s.llm_cap is not None))),
    MetricSpec("omkd_hedging_llm_queued", "gauge", "Hedging candidates waiting for the LLM judge.", (),
               _plain(lambda s: s.llm.queued)),
    MetricSpec("omkd_hedging_llm_spent_today_dollars", "gauge",
               "What the LLM judge spent this UTC day, in US dollars (capped by the daily cost cap).", (),
               _plain(lambda s: s.llm.spent_today)),
    MetricSpec("omkd_hedging_llm_daily_cap_dollars", "gauge", "The LLM judge's daily cost cap, in US dollars.", (),
               _plain(lambda s: s.llm_cap)),
    MetricSpec("omkd_lines_discarded", "counter", "Lines discarded, by reason.", ("reason",),
               _by_reason(lambda s: {**s.ingest.discarded, "oversize": s.pipeline.bad_lines.get("oversize", 0)},
                          DISCARD_REASONS)),
    MetricSpec("omkd_parse_errors", "counter", "Lines that could not be parsed, by reason.", ("reason",),
               _by_reason(lambda s: {k: v for k, v in s.pipeline.bad_lines.items() if k != "oversize"},
                          PARSE_ERROR_REASONS)),
    MetricSpec("omkd_segments_unrecoverable", "gauge",
               "Pruned segments the last longer retention could not bring back: their transcripts are gone "
               "(the daily roll-ups still count them).", (), _plain(lambda s: s.ingest.unrecoverable_segments)),
    MetricSpec("omkd_lag_bytes", "gauge", "Bytes written to followed files and not read yet.", (),
               _plain(lambda s: s.lag_bytes)),
    MetricSpec("omkd_tail_polling", "gauge", "1 when files are followed by polling only, 0 with filesystem events.",
               (), _plain(lambda s: 1 if s.polling else 0)),
    MetricSpec("omkd_replaying", "gauge", "1 while omkd catches up on old files (suppress rate alerts).", (),
               _plain(lambda s: 1 if s.replaying else 0)),
    MetricSpec("omkd_last_event_timestamp_seconds", "gauge", "Event time of the newest record folded.", (),
               _plain(lambda s: s.last_event)),
    MetricSpec("omkd_last_read_timestamp_seconds", "gauge", "When bytes were last read from a transcript.", (),
               _plain(lambda s: s.ingest.last_read)),
    MetricSpec("omkd_last_checkpoint_timestamp_seconds", "gauge", "When the state was last checkpointed.", (),
               _plain(lambda s: s.ingest.last_checkpoint)),
    MetricSpec("omkd_skill_labels", "gauge", "Distinct skill label values in use (capped).", (),
               _plain(lambda s: len(s.labels.labelled))),
    MetricSpec("omkd_skills_overflowed", "gauge", "Skills folded into the __other__ label by the cap.", (),
               _plain(lambda s: len(s.labels.overflowed))),
    # --- knowledge bases ---
    MetricSpec("omkd_knowledge_files", "gauge", "Knowledge files per knowledge base (user ~, extra roots, projects).",
               ("base",), _knowledge(lambda f: f.files)),
    MetricSpec("omkd_knowledge_changes", "counter",
               "Changes seen in a knowledge base's files (added, removed, edited).", ("base",),
               _knowledge(lambda f: f.changes)),
    MetricSpec("omkd_knowledge_last_change_timestamp_seconds", "gauge",
               "Newest modification time among a base's files.", ("base",), _knowledge(lambda f: f.last_change)),
    MetricSpec("omkd_knowledge_revision", "info", "Git revision checked out where a knowledge base lives.", ("base",),
               _revision),
    MetricSpec("omkd_build", "info", "omkd build information.", (), _build_info),
    MetricSpec("omkd_rules", "info",
               "The detection rules in force (hash of the rule tables and the configured rules) and the hedging "
               "judge: a change here is a change of rules, not of the knowledge.", (), _rules_info),
]  # fmt: skip

ON_OCCURRENCE: Final = frozenset({"omkd_errors"})
"""Families whose label values exist only once something happened (an error's cause): no
sample until then, rather than a made-up label."""
DECLARED: Final[dict[str, tuple[str, str]]] = {spec.name: (spec.kind, spec.help) for spec in TABLE}
"""name -> (type, help) of every metric; counters without their ``_total`` suffix."""


def _family(spec: MetricSpec) -> Metric:
    if spec.kind == "counter":
        return CounterMetricFamily(spec.name, spec.help, labels=spec.labels)
    if spec.kind == "gauge":
        return GaugeMetricFamily(spec.name, spec.help, labels=spec.labels)
    return InfoMetricFamily(spec.name, spec.help, labels=spec.labels)


class Exposition(Collector):
    """A one-shot collector over one snapshot."""

    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        for spec in TABLE:
            family = _family(spec)
            for labels, value in spec.read(self._snapshot):
                family.add_metric(list(labels), value)  # type: ignore[attr-defined]
            yield family


def render(snapshot: Snapshot) -> bytes:
    """The text exposition of one snapshot."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Exposition(snapshot))
    # process_resident_memory_bytes, process_open_fds, process_cpu_seconds_total…: what the unit's
    # MemoryMax and LimitNOFILE are measured against (read from /proc/self at each rebuild).
    ProcessCollector(registry=registry)
    return generate_latest(registry)
