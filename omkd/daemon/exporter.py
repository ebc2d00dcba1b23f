"""Keeps the /metrics snapshot current: gathers the figures, renders them off the scrape path.

A rebuild happens only when something a metric shows has changed (the keeper's version,
the clock-driven window, knowledge files), and at most once per snapshot interval; while
omkd catches up on old files or drains a backlog (``omkd_replaying``), once a second is enough.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

from omkd.daemon.clock import Clock
from omkd.daemon.metrics import render
from omkd.daemon.samples import Snapshot, WatermarkFigures, WindowRow
from omkd.daemon.selfmetrics import IngestStats
from omkd.engine import figures
from omkd.engine.counters import PastRetention, PipelineCounters
from omkd.engine.figures import AllTimeCounts, SkillCounters, SkillTotals
from omkd.engine.fold import Fold, short_fingerprint
from omkd.engine.labels import CappedLabels
from omkd.engine.plain import add_into
from omkd.engine.report.build import KnowledgeIndex, agents_of, knowledge_of, open_segments
from omkd.engine.report.metacog import metacog_report
from omkd.shell.knowledge_watch import BaseFigures
from omkd.shell.llm_judge import LlmStats

REPLAY_SNAPSHOT_INTERVAL: Final = 1.0


@dataclass(slots=True)
class TailFigures:
    """What the exporter needs to know about the reading side (the scheduler, the tailer, the LLM
    judge), taken when a snapshot is."""

    polling: bool
    replaying: bool
    files_watched: int = 0
    files_open: int = 0
    lag_bytes: int = 0
    llm: LlmStats = field(default_factory=LlmStats)
    llm_cap: float | None = None
    """The LLM judge's daily cost cap; None when no LLM judge is configured."""


class Exported(Protocol):
    """What /metrics shows of the keeper (``keeper.Keeper``)."""

    @property
    def version(self) -> int:
        """Bumped on every change a metric could show."""

    @property
    def fold(self) -> Fold: ...
    @property
    def exported_counters(self) -> dict[str, AllTimeCounts]:
        """The all-time counters as of the last checkpoint."""

    @property
    def exported_pipeline(self) -> PipelineCounters: ...
    @property
    def stats(self) -> IngestStats: ...
    @property
    def last_event(self) -> float | None: ...
    @property
    def window_length(self) -> float: ...
    @property
    def roots(self) -> tuple[str, ...]: ...
    @property
    def past_retention(self) -> PastRetention: ...
    @property
    def rules_hash(self) -> str: ...
    @property
    def judge(self) -> str: ...
    def open_after(self) -> float: ...


def window_rows(
    skills: dict[str, SkillTotals],
    open_by_skill: Mapping[str, int],
    knowledge: KnowledgeIndex,
    labels: CappedLabels,
) -> dict[str, WindowRow]:
    """Per label: the skills sharing it summed, and the figures derived from the sums."""
    merged: dict[str, SkillTotals] = {}
    opened: dict[str, int] = {}
    rows: dict[str, list[str]] = {}
    for skill in sorted(skills):
        label = labels.label(skill)
        target = merged.setdefault(label, SkillTotals())
        target.merge(skills[skill])
        opened[label] = opened.get(label, 0) + open_by_skill.get(skill, 0)
        rows.setdefault(label, []).append(skill)
    return {
        label: _row(totals, opened.get(label, 0), knowledge, agents_of(rows[label])) for label, totals in merged.items()
    }


def _row(totals: SkillTotals, open_segments: int, knowledge: KnowledgeIndex, agents: tuple[str, ...]) -> WindowRow:
    files = knowledge_of(totals, knowledge, agents)
    return WindowRow(
        totals=totals,
        figures=figures.derive(totals),
        open_segments=open_segments,
        knowledge_files=len(files),
        knowledge_accessed=len(files.intersection(totals.accessed)),
        metacog=metacog_report(totals),
    )


def merge_counters(counters: dict[str, AllTimeCounts], labels: CappedLabels) -> dict[str, AllTimeCounts]:
    merged: dict[str, AllTimeCounts] = {}
    for skill in sorted(counters):
        add_into(merged.setdefault(labels.label(skill), SkillCounters()), counters[skill])
    return merged


class Exporter:
    """The current /metrics text and when to rebuild it."""

    def __init__(self, labels: CappedLabels, clock: Clock, snapshot_interval: float) -> None:
        self.labels = labels
        self.snapshot_interval = snapshot_interval
        self._clock = clock
        self.text = b""
        self.dirty = True
        self._built = 0.0
        self._version = -1
        self._backlog = False
        """The last snapshot, taken once caught up, showed ``omkd_replaying``: a backlog drains."""

    def interval(self, caught_up: bool) -> float:
        """While catching up, or draining a backlog (a large file rotated before it was read), a
        snapshot a second is enough: nobody waits on each replayed line, and during a drain a
        rebuild held the event loop for 10-70 ms, 20 times a second."""
        if caught_up and not self._backlog:
            return self.snapshot_interval
        return max(self.snapshot_interval, REPLAY_SNAPSHOT_INTERVAL)

    def next_due(self, caught_up: bool) -> float | None:
        """Monotonic time of the next rebuild, or None when nothing changed."""
        return self._built + self.interval(caught_up) if self.dirty else None

    def note(self, kept: Exported) -> None:
        if kept.version != self._version:
            self.dirty = True

    def rebuild(
        self,
        kept: Exported,
        knowledge: KnowledgeIndex,
        bases: dict[str, BaseFigures],
        tail: Callable[[], TailFigures],
        caught_up: bool,
        force: bool = False,
    ) -> bool:
        """Render a new snapshot when due; True when one was rendered."""
        now = self._clock.monotonic()
        if not force and (not self.dirty or now - self._built < self.interval(caught_up)):
            return False
        tailing = tail()
        self.text = render(self.snapshot(kept, knowledge, bases, tailing))
        self._backlog = caught_up and tailing.replaying
        self.dirty = False
        self._built = self._clock.monotonic()
        self._version = kept.version
        return True

    def snapshot(
        self, kept: Exported, knowledge: KnowledgeIndex, bases: dict[str, BaseFigures], tail: TailFigures
    ) -> Snapshot:
        fold = kept.fold
        open_by_skill = open_segments(fold.open_in_window(), kept.open_after())
        overall = fold.overall
        outside, newest_outside = fold.outside(kept.past_retention)
        # the window's end: its own, else the newest event read; none while no segment lies in it
        until = fold.window.until
        if until is None and overall.segments:
            until = kept.last_event
        return Snapshot(
            counters=merge_counters(kept.exported_counters, self.labels),
            window=window_rows(fold.skills, open_by_skill, knowledge, self.labels),
            overall=WindowRow(
                overall, figures.derive(overall), sum(open_by_skill.values()), 0, 0, metacog_report(overall)
            ),
            pipeline=kept.exported_pipeline,
            ingest=kept.stats,
            files_watched=tail.files_watched,
            files_open=tail.files_open,
            lag_bytes=tail.lag_bytes,
            polling=tail.polling,
            replaying=tail.replaying,
            last_event=kept.last_event,
            window_length=kept.window_length,
            watermark=WatermarkFigures(
                kept.roots,
                fold.window.since,
                until,
                len(overall.sessions),
                int(short_fingerprint(fold.fingerprint), 16),
            ),
            outside_window=outside,
            newest_outside_window=newest_outside,
            labels=self.labels,
            knowledge=bases,
            llm=tail.llm,
            llm_cap=tail.llm_cap,
            rules_hash=kept.rules_hash,
            judge=kept.judge,
        )
