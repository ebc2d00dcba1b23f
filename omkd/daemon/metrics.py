"""The Prometheus exposition, rendered from the daemon's state off the scrape path.

Alert inputs are counters (segments, gap segments, the sum of segment weights, signals by
type, tool calls and failures) whose ratios PromQL computes, so sums over many hosts stay
right. Event-time window figures, which PromQL cannot compute, are gauges in
numerator/denominator pairs plus the derived rate, tier, band and coverage. ``skill`` is
the only high-cardinality label and is capped: skills past the cap share ``__other__``.

``DECLARED`` lists every metric; a test checks that each appears in ``/metrics``.
"""

from __future__ import annotations

import platform
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily
from prometheus_client.registry import Collector

from omkd import __version__
from omkd.engine import health, patterns, stats
from omkd.engine.health import SkillTotals
from omkd.engine.live import SkillCounters
from omkd.engine.report import KnowledgeIndex
from omkd.shell.knowledge_watch import BaseFigures

OTHER: Final = "__other__"
PARSE_ERROR_REASONS: Final = ("invalid_json", "invalid_utf8", "not_object", "bad_shape")
DISCARD_REASONS: Final = ("oversize", "partial_at_delete")
TIER_VALUES: Final = {tier: i for i, tier in enumerate(health.TIERS)}
BAND_VALUES: Final = {band: i for i, band in enumerate(health.BANDS)}

# name -> (type, help). Counters are listed without their _total suffix.
DECLARED: Final[dict[str, tuple[str, str]]] = {
    "omkd_segments": ("counter", "Segments counted per skill since the state was created."),
    "omkd_gap_segments": ("counter", "Segments with at least one gap signal, per skill."),
    "omkd_weighted_gap_segments": ("counter", "Sum of segment weights (max signal weight per segment), per skill."),
    "omkd_signals": ("counter", "Gap signals per skill and type."),
    "omkd_tool_calls": ("counter", "Tool calls per skill."),
    "omkd_tool_failures": ("counter", "Failed tool calls per skill (cancelled calls excluded)."),
    "omkd_window_segments": ("gauge", "Segments starting in the event-time window, per skill."),
    "omkd_window_gap_segments": ("gauge", "Segments with a gap signal in the window, per skill."),
    "omkd_window_weighted_gap_segments": ("gauge", "Sum of segment weights in the window, per skill."),
    "omkd_window_gap_rate": ("gauge", "Gap rate over the window, per skill."),
    "omkd_window_weighted_gap_rate": ("gauge", "Weighted gap rate over the window, per skill."),
    "omkd_window_confidence_tier": (
        "gauge",
        "Confidence tier over the window: 0 underpowered (<5), 1 low (<20), 2 high.",
    ),
    "omkd_window_health": ("gauge", "Health band over the window: 0 green, 1 yellow, 2 red."),
    "omkd_window_gap_rate_lower": ("gauge", "Lower bound of the gap rate's 95 % Wilson interval, per skill."),
    "omkd_window_gap_rate_upper": ("gauge", "Upper bound of the gap rate's 95 % Wilson interval, per skill."),
    "omkd_window_weighted_gap_rate_lower": ("gauge", "Lower bound of the weighted gap rate's 95 % bootstrap interval."),
    "omkd_window_weighted_gap_rate_upper": ("gauge", "Upper bound of the weighted gap rate's 95 % bootstrap interval."),
    "omkd_window_health_confident": ("gauge", "1 when the health band is backed by the interval, 0 when indicative."),
    "omkd_window_open_segments": ("gauge", "Segments still open (stream active, not idle), per skill."),
    "omkd_window_tool_calls_comparable": ("gauge", "Answered, not cancelled tool calls in the window, per skill."),
    "omkd_window_tool_failures": ("gauge", "Failed tool calls in the window, per skill."),
    "omkd_window_knowledge_files": ("gauge", "Knowledge files of the projects the skill ran in."),
    "omkd_window_knowledge_files_accessed": ("gauge", "Knowledge files read in the window, per skill."),
    "omkd_window_coverage_ratio": (
        "gauge",
        "Knowledge files accessed / knowledge files, per skill (absent without files).",
    ),
    "omkd_window_overall_segments": ("gauge", "Segments in the window, all skills."),
    "omkd_window_overall_gap_segments": ("gauge", "Segments with a gap signal in the window, all skills."),
    "omkd_window_overall_weighted_gap_segments": ("gauge", "Sum of segment weights in the window, all skills."),
    "omkd_window_overall_gap_rate": ("gauge", "Gap rate over the window, all skills."),
    "omkd_window_overall_weighted_gap_rate": ("gauge", "Weighted gap rate over the window, all skills."),
    "omkd_window_overall_confidence_tier": ("gauge", "Confidence tier over the window, all skills."),
    "omkd_window_length_seconds": ("gauge", "Length of the event-time window."),
    "omkd_files_watched": ("gauge", "Transcript files being followed."),
    "omkd_files_open": ("gauge", "Transcript files with an open descriptor."),
    "omkd_files_discovered": ("counter", "Transcript files found (read from offset 0)."),
    "omkd_files_rotated": ("counter", "Files renamed out of the roots and drained."),
    "omkd_files_renamed": ("counter", "Files renamed within the roots (followed by identity)."),
    "omkd_files_truncated": ("counter", "Files truncated or replaced, read again from the start."),
    "omkd_files_deleted": ("counter", "Files deleted (drained first when still open)."),
    "omkd_read_bytes": ("counter", "Bytes read from transcript files by this process."),
    "omkd_lines": ("counter", "Complete lines folded since the state was created."),
    "omkd_records": ("counter", "JSON records folded since the state was created."),
    "omkd_lines_discarded": ("counter", "Lines discarded, by reason."),
    "omkd_parse_errors": ("counter", "Lines that could not be parsed, by reason."),
    "omkd_unknown_records": ("counter", "Records of a type omkd does not know, by type."),
    "omkd_invalid_skill_names": ("counter", "Skill signals whose name was not a valid skill name."),
    "omkd_lag_bytes": ("gauge", "Bytes written to followed files and not read yet."),
    "omkd_rescans": ("counter", "Full rescans of the trace roots."),
    "omkd_watch_overflows": ("counter", "Rescans that found changes no filesystem event announced."),
    "omkd_tail_polling": ("gauge", "1 when files are followed by polling only, 0 with filesystem events."),
    "omkd_checkpoint_writes": ("counter", "State checkpoints written."),
    "omkd_checkpoint_errors": ("counter", "State checkpoints that failed."),
    "omkd_replaying": ("gauge", "1 while omkd catches up on old files (suppress rate alerts)."),
    "omkd_last_event_timestamp_seconds": ("gauge", "Event time of the newest record folded."),
    "omkd_last_read_timestamp_seconds": ("gauge", "When bytes were last read from a transcript."),
    "omkd_last_checkpoint_timestamp_seconds": ("gauge", "When the state was last checkpointed."),
    "omkd_skill_labels": ("gauge", "Distinct skill label values in use (capped)."),
    "omkd_skills_overflowed": ("gauge", "Skills folded into the __other__ label by the cap."),
    "omkd_knowledge_files": ("gauge", "Knowledge files per knowledge base (user ~, extra roots, projects)."),
    "omkd_knowledge_changes": ("counter", "Changes seen in a knowledge base's files (added, removed, edited)."),
    "omkd_knowledge_last_change_timestamp_seconds": ("gauge", "Newest modification time among a base's files."),
    "omkd_knowledge_revision": ("info", "Git revision checked out where a knowledge base lives."),
    "omkd_build": ("info", "omkd build information."),
}


class SkillLabels:
    """Assigns skills their label value; past the cap, skills share ``__other__``."""

    def __init__(self, cap: int, known: Iterable[str] = ()) -> None:
        self.cap = cap
        self.labelled: dict[str, None] = dict.fromkeys(list(known)[:cap])
        self.overflowed: set[str] = set()

    def label(self, skill: str) -> str:
        if skill in self.labelled:
            return skill
        if len(self.labelled) < self.cap:
            self.labelled[skill] = None
            return skill
        self.overflowed.add(skill)
        return OTHER


@dataclass(slots=True)
class PipelineView:
    """The pipeline figures the exposition needs, gathered by the daemon."""

    files_watched: int
    files_open: int
    files_discovered: int
    files_rotated: int
    files_renamed: int
    files_truncated: int
    files_deleted: int
    read_bytes: int
    lines: int
    records: int
    discarded: dict[str, int]
    parse_errors: dict[str, int]
    unknown_records: dict[str, int]
    invalid_skill_names: int
    lag_bytes: int
    rescans: int
    watch_overflows: int
    polling: bool
    checkpoint_writes: int
    checkpoint_errors: int
    replaying: bool
    last_event: float | None
    last_read: float | None
    last_checkpoint: float | None
    window_length: float


def _merge_counters(counters: dict[str, SkillCounters], labels: SkillLabels) -> dict[str, SkillCounters]:
    merged: dict[str, SkillCounters] = {}
    for skill in sorted(counters):
        label = labels.label(skill)
        target = merged.get(label)
        if target is None:
            target = merged[label] = SkillCounters()
        source = counters[skill]
        target.segments += source.segments
        target.gap_segments += source.gap_segments
        target.weighted_gap_sum += source.weighted_gap_sum
        target.signals.update(source.signals)
        target.tool_calls += source.tool_calls
        target.tool_failures += source.tool_failures
    return merged


def _merge_totals(skills: dict[str, SkillTotals], labels: SkillLabels) -> dict[str, list[SkillTotals]]:
    merged: dict[str, list[SkillTotals]] = {}
    for skill in sorted(skills):
        merged.setdefault(labels.label(skill), []).append(skills[skill])
    return merged


class Exposition(Collector):
    """A one-shot collector over the figures passed in."""

    def __init__(
        self,
        counters: dict[str, SkillCounters],
        window: dict[str, SkillTotals],
        overall: SkillTotals,
        open_segments: dict[str, int],
        knowledge: KnowledgeIndex,
        labels: SkillLabels,
        pipeline: PipelineView,
        knowledge_bases: dict[str, BaseFigures] | None = None,
    ) -> None:
        self._counters = counters
        self._window = window
        self._overall = overall
        self._open = open_segments
        self._knowledge = knowledge
        self._labels = labels
        self._pipeline = pipeline
        self._bases = knowledge_bases or {}

    def describe(self) -> list[object]:
        return []

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily | InfoMetricFamily]:
        yield from self._skill_counters()
        yield from self._window_gauges()
        yield from self._pipeline_metrics()
        yield from self._knowledge_metrics()

    @staticmethod
    def _family(name: str, labels: tuple[str, ...] = ()) -> CounterMetricFamily | GaugeMetricFamily:
        kind, text = DECLARED[name]
        if kind == "counter":
            return CounterMetricFamily(name, text, labels=labels)
        return GaugeMetricFamily(name, text, labels=labels)

    def _skill_counters(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        merged = _merge_counters(self._counters, self._labels)
        names = (
            "omkd_segments",
            "omkd_gap_segments",
            "omkd_weighted_gap_segments",
            "omkd_tool_calls",
            "omkd_tool_failures",
        )
        families = {name: self._family(name, ("skill",)) for name in names}
        signals = self._family("omkd_signals", ("skill", "type"))
        for label, c in merged.items():
            families["omkd_segments"].add_metric([label], c.segments)
            families["omkd_gap_segments"].add_metric([label], c.gap_segments)
            families["omkd_weighted_gap_segments"].add_metric([label], c.weighted_gap_sum)
            families["omkd_tool_calls"].add_metric([label], c.tool_calls)
            families["omkd_tool_failures"].add_metric([label], c.tool_failures)
            for kind in patterns.SIGNAL_TYPES:
                signals.add_metric([label, kind], c.signals.get(kind, 0))
        yield from families.values()
        yield signals

    def _window_gauges(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        names = (
            "omkd_window_segments", "omkd_window_gap_segments", "omkd_window_weighted_gap_segments",
            "omkd_window_gap_rate", "omkd_window_weighted_gap_rate", "omkd_window_confidence_tier",
            "omkd_window_health", "omkd_window_open_segments", "omkd_window_tool_calls_comparable",
            "omkd_window_tool_failures", "omkd_window_knowledge_files", "omkd_window_knowledge_files_accessed",
            "omkd_window_coverage_ratio", "omkd_window_gap_rate_lower", "omkd_window_gap_rate_upper",
            "omkd_window_weighted_gap_rate_lower", "omkd_window_weighted_gap_rate_upper",
            "omkd_window_health_confident",
        )  # fmt: skip
        families = {name: self._family(name, ("skill",)) for name in names}
        open_by_label: dict[str, int] = {}
        for skill, count in self._open.items():
            key = self._labels.label(skill)
            open_by_label[key] = open_by_label.get(key, 0) + count
        for label, parts in _merge_totals(self._window, self._labels).items():
            segments = sum(t.segments for t in parts)
            gaps = sum(t.gap_segments for t in parts)
            weight = sum(t.weight_sum for t in parts)
            comparable = sum(t.comparable_calls for t in parts)
            failures = sum(t.tool_failures for t in parts)
            weighted_rate = weight / segments if segments else 0.0
            half = sum(t.half_weight_segments for t in parts)
            gap_lower, gap_upper = stats.wilson_interval(gaps, segments)
            weight_lower, weight_upper = stats.bootstrap_weighted_interval(segments - gaps, half, gaps - half)
            _, confident = stats.confident_band(
                min(weight_lower, gap_lower), max(weight_upper, gap_upper), weighted_rate
            )
            files: set[str] = set(self._knowledge.files_for(None))
            accessed: set[str] = set()
            for totals in parts:
                for cwd in totals.cwds:
                    files.update(self._knowledge.files_for(cwd))
                accessed.update(totals.accessed)
            hit = len(files & accessed)
            opened = open_by_label.get(label, 0)
            values = {
                "omkd_window_segments": segments,
                "omkd_window_gap_segments": gaps,
                "omkd_window_weighted_gap_segments": weight,
                "omkd_window_gap_rate": gaps / segments if segments else 0.0,
                "omkd_window_weighted_gap_rate": weighted_rate,
                "omkd_window_confidence_tier": TIER_VALUES[health.confidence_tier(segments)],
                "omkd_window_health": BAND_VALUES[health.health_band(weighted_rate)],
                "omkd_window_open_segments": opened,
                "omkd_window_tool_calls_comparable": comparable,
                "omkd_window_tool_failures": failures,
                "omkd_window_knowledge_files": len(files),
                "omkd_window_knowledge_files_accessed": hit,
                "omkd_window_gap_rate_lower": gap_lower,
                "omkd_window_gap_rate_upper": gap_upper,
                "omkd_window_weighted_gap_rate_lower": weight_lower,
                "omkd_window_weighted_gap_rate_upper": weight_upper,
                "omkd_window_health_confident": 1 if confident and segments else 0,
            }
            for name, value in values.items():
                families[name].add_metric([label], value)
            if files:
                families["omkd_window_coverage_ratio"].add_metric([label], hit / len(files))
        yield from families.values()
        overall = self._overall
        for name, value in (
            ("omkd_window_overall_segments", overall.segments),
            ("omkd_window_overall_gap_segments", overall.gap_segments),
            ("omkd_window_overall_weighted_gap_segments", overall.weight_sum),
            ("omkd_window_overall_gap_rate", overall.gap_rate),
            ("omkd_window_overall_weighted_gap_rate", overall.weighted_gap_rate),
            ("omkd_window_overall_confidence_tier", TIER_VALUES[health.confidence_tier(overall.segments)]),
        ):
            family = self._family(name)
            family.add_metric([], value)
            yield family

    def _pipeline_metrics(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily | InfoMetricFamily]:
        p = self._pipeline
        plain: dict[str, float | None] = {
            "omkd_window_length_seconds": p.window_length,
            "omkd_files_watched": p.files_watched,
            "omkd_files_open": p.files_open,
            "omkd_files_discovered": p.files_discovered,
            "omkd_files_rotated": p.files_rotated,
            "omkd_files_renamed": p.files_renamed,
            "omkd_files_truncated": p.files_truncated,
            "omkd_files_deleted": p.files_deleted,
            "omkd_read_bytes": p.read_bytes,
            "omkd_lines": p.lines,
            "omkd_records": p.records,
            "omkd_invalid_skill_names": p.invalid_skill_names,
            "omkd_lag_bytes": p.lag_bytes,
            "omkd_rescans": p.rescans,
            "omkd_watch_overflows": p.watch_overflows,
            "omkd_tail_polling": 1 if p.polling else 0,
            "omkd_checkpoint_writes": p.checkpoint_writes,
            "omkd_checkpoint_errors": p.checkpoint_errors,
            "omkd_replaying": 1 if p.replaying else 0,
            "omkd_last_event_timestamp_seconds": p.last_event or 0.0,
            "omkd_last_read_timestamp_seconds": p.last_read or 0.0,
            "omkd_last_checkpoint_timestamp_seconds": p.last_checkpoint or 0.0,
            "omkd_skill_labels": len(self._labels.labelled),
            "omkd_skills_overflowed": len(self._labels.overflowed),
        }
        for name, value in plain.items():
            family = self._family(name)
            family.add_metric([], value or 0)
            yield family
        for name, label, values, seeded in (
            ("omkd_lines_discarded", "reason", p.discarded, DISCARD_REASONS),
            ("omkd_parse_errors", "reason", p.parse_errors, PARSE_ERROR_REASONS),
            ("omkd_unknown_records", "type", p.unknown_records, ()),
        ):
            family = self._family(name, (label,))
            for key in sorted(set(seeded) | set(values)):
                family.add_metric([key], values.get(key, 0))
            yield family
        info = InfoMetricFamily("omkd_build", DECLARED["omkd_build"][1])
        info.add_metric([], {"version": __version__, "python": platform.python_version()})
        yield info

    def _knowledge_metrics(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily | InfoMetricFamily]:
        files = self._family("omkd_knowledge_files", ("base",))
        changes = self._family("omkd_knowledge_changes", ("base",))
        last = self._family("omkd_knowledge_last_change_timestamp_seconds", ("base",))
        revision = InfoMetricFamily("omkd_knowledge_revision", DECLARED["omkd_knowledge_revision"][1], labels=("base",))
        for base, figures in sorted(self._bases.items()):
            files.add_metric([base], figures.files)
            changes.add_metric([base], figures.changes)
            if figures.last_change is not None:
                last.add_metric([base], figures.last_change)
            if figures.revision is not None:
                revision.add_metric([base], {"revision": figures.revision})
        yield from (files, changes, last, revision)


def render(exposition: Exposition) -> bytes:
    """The text exposition of one collection."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(exposition)
    return generate_latest(registry)
