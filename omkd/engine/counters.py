"""The counter records: what was read, and how many segments carried gaps. One record per concept.

- ``StreamCounters``: what one stream's reader saw (lines, records, bad lines by reason, …).
  The splitter, adapter and segmenter of a stream all count into the same record.
- ``PipelineCounters``: the same summed over streams, plus files and partial last lines.
- ``GapCounts``: segments, gap segments and half-weight segments of a set of segments (a
  day's roll-up, a skill in the window); every rate is derived from these integers.
- ``SkillCounters`` (monotone all-time totals of one skill) is derived from the figure catalogue
  (``figures.py``).

Fields carry their metric as metadata (``metric``): the exporter derives its declared list
and its collector from them, so a new counter is one field here and one increment where it
happens. Saving, restoring, adding and copying are generic (``plain.py``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from omkd.engine.plain import add_into

METRIC: Final = "metric"
"""Field metadata key: ``(name, help, label)`` of the metric a field is exported as."""


def metric(name: str, help_text: str, label: str | None = None) -> dict[str, Any]:
    """Field metadata: export the field as the counter ``name`` (by ``label`` for a ``Counter``)."""
    return {METRIC: (name, help_text, label)}


@dataclass(slots=True)
class StreamCounters:
    """What one stream's reader saw. Every field is summed into ``PipelineCounters``."""

    bytes: int = 0
    """Bytes behind the last complete line."""
    lines: int = field(default=0, metadata=metric("omkd_lines", "Complete lines folded since the state was created."))
    records: int = field(default=0, metadata=metric("omkd_records", "JSON records folded since the state was created."))
    bad_lines: Counter[str] = field(default_factory=Counter)
    """Lines skipped, by reason (``oversize`` included; exported split into parse errors and
    discarded lines)."""
    unknown_types: Counter[str] = field(
        default_factory=Counter,
        metadata=metric("omkd_unknown_records", "Records of a type omkd does not know, by type.", "type"),
    )
    ignored: Counter[str] = field(default_factory=Counter)
    """Records read and deliberately not turned into events, by kind."""
    invalid_skill_names: int = field(
        default=0, metadata=metric("omkd_invalid_skill_names", "Skill signals whose name was not a valid skill name.")
    )
    orphan_results: int = field(
        default=0,
        metadata=metric("omkd_orphan_results", "Tool results whose call was never seen in their stream (not folded)."),
    )
    compactions: int = 0


@dataclass(slots=True)
class PipelineCounters(StreamCounters):
    """``StreamCounters`` summed over streams, with the files they came from."""

    files: int = 0
    partial_at_end: int = 0
    """Streams whose last line had no newline when reading stopped."""

    def add_stream(self, stream: StreamCounters, sign: int = 1) -> None:
        """Add (or with ``sign=-1`` take away) one stream's counts."""
        add_into(self, stream, sign)


@dataclass(slots=True)
class PastRetention:
    """Segments read and then forgotten past the retention (``window.retention``): outside the
    window and no longer kept, yet what a person with old history must be told of."""

    segments: int = 0
    newest: float | None = None
    """The newest last event of them (epoch seconds)."""

    def forgot(self, last: float | None) -> None:
        self.segments += 1
        if last is not None and (self.newest is None or last > self.newest):
            self.newest = last


@dataclass(slots=True)
class GapCounts:
    """Segments, gap segments and half-weight segments: everything a gap rate is made of.

    A segment weighs the max weight of its signals: 0, 0.5 or 1. Keeping the half-weight
    segments as an integer makes the weighted rate exact, so ``weighted_gap_rate`` never
    exceeds ``gap_rate`` by a rounding error and their difference is never negative.
    """

    segments: int = 0
    gap_segments: int = 0
    half_weight_segments: int = 0
    """Gap segments whose strongest signal is weak (weight 0.5); the others weigh 1."""

    def count(self, weight: float, sign: int = 1) -> None:
        self.segments += sign
        if weight > 0:
            self.gap_segments += sign
        if weight == 0.5:
            self.half_weight_segments += sign

    @property
    def full_weight_segments(self) -> int:
        return self.gap_segments - self.half_weight_segments

    @property
    def weight_halves(self) -> int:
        """Twice the sum of segment weights: an integer."""
        return 2 * self.full_weight_segments + self.half_weight_segments

    @property
    def weight_sum(self) -> float:
        return self.weight_halves / 2

    @property
    def gap_rate(self) -> float:
        return self.gap_segments / self.segments if self.segments else 0.0

    @property
    def weighted_gap_rate(self) -> float:
        return self.weight_halves / (2 * self.segments) if self.segments else 0.0

    @property
    def weight_counts(self) -> tuple[int, int, int]:
        """Segments of weight 0, 0.5 and 1."""
        return (self.segments - self.gap_segments, self.half_weight_segments, self.full_weight_segments)
