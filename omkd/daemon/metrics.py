"""The Prometheus exposition: one table of metrics, from which the declared list and the
collector both derive (the custom-collector idea of prometheus/client_python).

Alert inputs are counters (segments, gap segments, the sum of segment weights, signals by
type, tool calls and failures) whose ratios PromQL computes, so sums over many hosts stay
right. Event-time window figures, which PromQL cannot compute, are gauges in
numerator/denominator pairs plus the derived rate, tier, band and coverage. ``skill`` is the
only high-cardinality label and is capped: skills past the cap share ``__other__``. Per-skill
series also carry ``agent`` (``claude_code``, ``codex``, ``gemini``: three values).

Each row says how to read its samples from a ``Snapshot`` (``samples.py``: gathered by
``exporter.py``, off the scrape path). Pipeline and ingest counters come from their fields' metadata.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, Literal

from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector

from omkd.daemon import metacog_rows
from omkd.daemon.samples import (
    MetricSpec,
    Snapshot,
    build_info,
    by_reason,
    from_fields,
    knowledge,
    overall,
    overall_rated,
    per_skill,
    per_skill_family,
    per_window,
    per_window_family,
    plain,
    rated,
    revision,
    rules_info,
    signals,
    watermark_info,
)
from omkd.daemon.selfmetrics import IngestStats
from omkd.engine import figures, health
from omkd.engine.catalogue import Figure
from omkd.engine.counters import PipelineCounters
from omkd.shell.llm_judge import LlmStats

PARSE_ERROR_REASONS: Final = ("invalid_json", "invalid_utf8", "not_object", "bad_shape")
DISCARD_REASONS: Final = ("oversize", "partial_at_delete")
TIER_VALUES: Final = {tier: i for i, tier in enumerate(health.TIERS)}
BAND_VALUES: Final = {band: i for i, band in enumerate(health.BANDS)}

SKILL: Final = ("skill", "agent")


def _catalogue(kind: Literal["counter", "gauge"]) -> list[MetricSpec]:
    """The all-time counter (``figures.COUNTED``) or the window gauge (``figures.GAUGED``) of each
    figure of the catalogue; the figures naming one metric with other label values (``Figure.labels``)
    are one family, in the order of their first figure."""
    families: dict[str, list[tuple[str, Figure]]] = {}
    for name, spec in figures.COUNTED if kind == "counter" else figures.GAUGED:
        declared = spec.counter if kind == "counter" else spec.gauge
        if declared is not None:
            families.setdefault(declared[0], []).append((name, spec))
    rows = []
    for metric, members in families.items():
        first = members[0][1]
        named = first.counter if kind == "counter" else first.gauge
        labels = (*SKILL, *(label for label, _ in first.labels))
        values = [(name, tuple(value for _, value in spec.labels)) for name, spec in members]
        read = per_skill_family(values) if kind == "counter" else per_window_family(values)
        rows.append(MetricSpec(metric, kind, named[1] if named else "", labels, read))
    return rows


TABLE: Final[list[MetricSpec]] = [
    # --- all-time counters per skill (alert inputs) ---
    MetricSpec("omkd_segments", "counter", "Segments counted per skill since the state was created.", SKILL,
               per_skill(lambda c: c.segments)),
    MetricSpec("omkd_gap_segments", "counter", "Segments with at least one gap signal, per skill.", SKILL,
               per_skill(lambda c: c.gap_segments)),
    MetricSpec("omkd_weighted_gap_segments", "counter",
               "Sum of segment weights (max signal weight per segment), per skill.", SKILL,
               per_skill(lambda c: c.weighted_gap_sum)),
    *_catalogue("counter"),
    MetricSpec("omkd_signals", "counter", "Gap signals per skill and type.", (*SKILL, "type"), signals),
    # --- event-time window gauges per skill ---
    MetricSpec("omkd_window_segments", "gauge", "Segments starting in the event-time window, per skill.", SKILL,
               per_window(lambda r: r.figures.segments)),
    MetricSpec("omkd_window_gap_segments", "gauge", "Segments with a gap signal in the window, per skill.", SKILL,
               per_window(lambda r: r.figures.gap_segments)),
    MetricSpec("omkd_window_weighted_gap_segments", "gauge", "Sum of segment weights in the window, per skill.",
               SKILL, per_window(lambda r: r.totals.weight_sum)),
    MetricSpec("omkd_window_gap_ratio", "gauge", "Gap rate over the window, per skill.", SKILL,
               per_window(rated(lambda r: r.figures.gap_rate))),
    MetricSpec("omkd_window_weighted_gap_ratio", "gauge", "Weighted gap rate over the window, per skill.", SKILL,
               per_window(rated(lambda r: r.figures.weighted_gap_rate))),
    MetricSpec("omkd_window_confidence_tier", "gauge",
               "Confidence tier over the window: 0 underpowered (<5), 1 low (<20), 2 high.", SKILL,
               per_window(lambda r: TIER_VALUES[r.figures.tier])),
    MetricSpec("omkd_window_health", "gauge", "Health band over the window: 0 green, 1 yellow, 2 red.", SKILL,
               per_window(rated(lambda r: BAND_VALUES[r.figures.band]))),
    MetricSpec("omkd_window_open_segments", "gauge", "Segments still open (stream active, not idle), per skill.",
               SKILL, per_window(lambda r: r.open_segments)),
    MetricSpec("omkd_window_tool_calls_comparable", "gauge",
               "Answered, not cancelled tool calls in the window, per skill.", SKILL,
               per_window(lambda r: r.totals.comparable_calls)),
    *_catalogue("gauge"),
    MetricSpec("omkd_window_knowledge_files", "gauge", "Knowledge files of the projects the skill ran in.", SKILL,
               per_window(lambda r: r.knowledge_files)),
    MetricSpec("omkd_window_knowledge_files_accessed", "gauge", "Knowledge files read in the window, per skill.",
               SKILL, per_window(lambda r: r.knowledge_accessed)),
    MetricSpec("omkd_window_coverage_ratio", "gauge",
               "Knowledge files accessed / knowledge files, per skill (absent without files).", SKILL,
               per_window(lambda r: r.knowledge_accessed / r.knowledge_files if r.knowledge_files else None)),
    MetricSpec("omkd_window_gap_ratio_lower", "gauge",
               "Lower bound of the gap rate's 95 % interval (Wilson, continuity-corrected), per skill.",
               SKILL, per_window(rated(lambda r: r.figures.gap_interval[0]))),
    MetricSpec("omkd_window_gap_ratio_upper", "gauge",
               "Upper bound of the gap rate's 95 % interval (Wilson, continuity-corrected), per skill.",
               SKILL, per_window(rated(lambda r: r.figures.gap_interval[1]))),
    MetricSpec("omkd_window_weighted_gap_ratio_lower", "gauge",
               "Lower bound of the weighted gap rate's 95 % interval (Wilson, continuity-corrected).", SKILL,
               per_window(rated(lambda r: r.figures.weighted_interval[0]))),
    MetricSpec("omkd_window_weighted_gap_ratio_upper", "gauge",
               "Upper bound of the weighted gap rate's 95 % interval (Wilson, continuity-corrected).", SKILL,
               per_window(rated(lambda r: r.figures.weighted_interval[1]))),
    MetricSpec("omkd_window_health_confident", "gauge",
               "1 when the health band is backed by the interval, 0 when indicative.", SKILL,
               per_window(rated(lambda r: 1 if r.figures.confident else 0))),
    # --- window gauges over all skills ---
    *metacog_rows.ROWS,
    MetricSpec("omkd_window_overall_segments", "gauge", "Segments in the window, all skills.", (),
               overall(lambda r: r.figures.segments)),
    MetricSpec("omkd_window_overall_gap_segments", "gauge", "Segments with a gap signal in the window, all skills.",
               (), overall(lambda r: r.figures.gap_segments)),
    MetricSpec("omkd_window_overall_weighted_gap_segments", "gauge",
               "Sum of segment weights in the window, all skills.", (), overall(lambda r: r.totals.weight_sum)),
    MetricSpec("omkd_window_overall_gap_ratio", "gauge", "Gap rate over the window, all skills.", (),
               overall_rated(lambda r: r.figures.gap_rate)),
    MetricSpec("omkd_window_overall_weighted_gap_ratio", "gauge", "Weighted gap rate over the window, all skills.",
               (), overall_rated(lambda r: r.figures.weighted_gap_rate)),
    MetricSpec("omkd_window_overall_confidence_tier", "gauge", "Confidence tier over the window, all skills.", (),
               overall(lambda r: TIER_VALUES[r.figures.tier])),
    MetricSpec("omkd_window_length_seconds", "gauge", "Length of the event-time window.", (),
               plain(lambda s: s.window_length)),
    # --- the watermark (spec §1): what every figure above describes ---
    MetricSpec("omkd_watermark", "info", "The trace roots the figures were read from (the watermark's roots).", (),
               watermark_info),
    MetricSpec("omkd_window_from_timestamp_seconds", "gauge", "Start of the event-time window (absent before "
               "the first event).", (),
               lambda s: [((), s.watermark.window_from)] if s.watermark.window_from is not None else []),
    MetricSpec("omkd_window_to_timestamp_seconds", "gauge", "End of the event-time window: the newest event "
               "read (absent before the first event).", (),
               lambda s: [((), s.watermark.window_to)] if s.watermark.window_to is not None else []),
    MetricSpec("omkd_window_sessions", "gauge", "Sessions with a segment in the window, all skills.", (),
               plain(lambda s: s.watermark.sessions)),
    MetricSpec("omkd_window_fingerprint", "gauge", "Fingerprint of the window's segment set: the status "
               "page's 12 hex digits as an integer (Grafana unit hex).", (),
               plain(lambda s: s.watermark.fingerprint)),
    MetricSpec("omkd_window_outside_segments", "gauge",
               "Segments read that lie outside the event-time window (kept, or forgotten past retention): "
               "why a window can be empty.", (), plain(lambda s: s.outside_window)),
    MetricSpec("omkd_window_outside_newest_timestamp_seconds", "gauge",
               "Last event of the newest segment outside the window (absent when there is none).", (),
               lambda s: [((), s.newest_outside_window)] if s.newest_outside_window is not None else []),
    # --- the pipeline ---
    MetricSpec("omkd_files_watched", "gauge", "Transcript files being followed.", (),
               plain(lambda s: s.files_watched)),
    MetricSpec("omkd_files_open", "gauge", "Transcript files with an open descriptor.", (),
               plain(lambda s: s.files_open)),
    *from_fields(IngestStats, lambda s: s.ingest),
    *from_fields(PipelineCounters, lambda s: s.pipeline),
    *from_fields(LlmStats, lambda s: s.llm),
    MetricSpec("omkd_hedging_llm_enabled", "gauge", "1 when an LLM judge refines the hedging verdicts.", (),
               plain(lambda s: float(s.llm_cap is not None))),
    MetricSpec("omkd_hedging_llm_queued", "gauge", "Hedging candidates waiting for the LLM judge.", (),
               plain(lambda s: s.llm.queued)),
    MetricSpec("omkd_hedging_llm_spent_today_dollars", "gauge",
               "What the LLM judge spent this UTC day, in US dollars (capped by the daily cost cap).", (),
               plain(lambda s: s.llm.spent_today)),
    MetricSpec("omkd_hedging_llm_daily_cap_dollars", "gauge", "The LLM judge's daily cost cap, in US dollars.", (),
               plain(lambda s: s.llm_cap)),
    MetricSpec("omkd_lines_discarded", "counter", "Lines discarded, by reason.", ("reason",),
               by_reason(lambda s: {**s.ingest.discarded, "oversize": s.pipeline.bad_lines.get("oversize", 0)},
                          DISCARD_REASONS)),
    MetricSpec("omkd_parse_errors", "counter", "Lines that could not be parsed, by reason.", ("reason",),
               by_reason(lambda s: {k: v for k, v in s.pipeline.bad_lines.items() if k != "oversize"},
                          PARSE_ERROR_REASONS)),
    MetricSpec("omkd_segments_unrecoverable", "gauge",
               "Pruned segments the last longer retention could not bring back: their transcripts are gone "
               "(the daily roll-ups still count them).", (), plain(lambda s: s.ingest.unrecoverable_segments)),
    MetricSpec("omkd_lag_bytes", "gauge", "Bytes written to followed files and not read yet.", (),
               plain(lambda s: s.lag_bytes)),
    MetricSpec("omkd_tail_polling", "gauge", "1 when files are followed by polling only, 0 with filesystem events.",
               (), plain(lambda s: 1 if s.polling else 0)),
    MetricSpec("omkd_replaying", "gauge", "1 while omkd catches up on old files (suppress rate alerts).", (),
               plain(lambda s: 1 if s.replaying else 0)),
    MetricSpec("omkd_last_event_timestamp_seconds", "gauge", "Event time of the newest record folded.", (),
               plain(lambda s: s.last_event)),
    MetricSpec("omkd_last_read_timestamp_seconds", "gauge", "When bytes were last read from a transcript.", (),
               plain(lambda s: s.ingest.last_read)),
    MetricSpec("omkd_last_checkpoint_timestamp_seconds", "gauge", "When the state was last checkpointed.", (),
               plain(lambda s: s.ingest.last_checkpoint)),
    MetricSpec("omkd_skill_labels", "gauge", "Distinct skill label values in use (capped).", (),
               plain(lambda s: len(s.labels.labelled))),
    MetricSpec("omkd_skills_overflowed", "gauge", "Skills folded into the __other__ label by the cap.", (),
               plain(lambda s: len(s.labels.overflowed))),
    # --- knowledge bases ---
    MetricSpec("omkd_knowledge_files", "gauge", "Knowledge files per knowledge base (user ~, extra roots, projects).",
               ("base",), knowledge(lambda f: f.files)),
    MetricSpec("omkd_knowledge_changes", "counter",
               "Changes seen in a knowledge base's files (added, removed, edited).", ("base",),
               knowledge(lambda f: f.changes)),
    MetricSpec("omkd_knowledge_last_change_timestamp_seconds", "gauge",
               "Newest modification time among a base's files.", ("base",), knowledge(lambda f: f.last_change)),
    MetricSpec("omkd_knowledge_revision", "info", "Git revision checked out where a knowledge base lives.", ("base",),
               revision),
    MetricSpec("omkd_build", "info", "omkd build information.", (), build_info),
    MetricSpec("omkd_rules", "info",
               "The detection rules in force (hash of the rule tables and the configured rules) and the hedging "
               "judge: a change here is a change of rules, not of the knowledge.", (), rules_info),
]  # fmt: skip

ON_OCCURRENCE: Final = frozenset(
    {"omkd_errors", "omkd_window_outside_newest_timestamp_seconds", "omkd_window_from_timestamp_seconds"}
    | {"omkd_window_to_timestamp_seconds"}
)
"""Families with no sample until something happened (an error's cause; a segment outside the
window), rather than a made-up label or a timestamp of 0."""
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
