"""The JSON contract of ``omkd impact --json`` and the daemon's ``/api/v1/impact`` (spec §9).

Records as the report's (``report/schema.py``): a field is only ever added with a default, a
reader ignores keys it does not know. Rates are the exact ratios of the counts beside them; an
interval is of the rise (after minus before), two-sided, ``None`` when a side has no segment.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Final

from omkd.engine.records import Record
from omkd.engine.report.schema import Watermark

IMPACT_SCHEMA_VERSION: Final = 1
IMPROVED: Final = "improved"
WORSENED: Final = "worsened"
NO_EVIDENCE: Final = "no evidence"
UNDERPOWERED: Final = "underpowered"
VERDICTS: Final = (IMPROVED, WORSENED, NO_EVIDENCE, UNDERPOWERED)
RECURRING: Final = "recurring"
NOT_SEEN_SINCE: Final = "not seen since"
TOO_EARLY: Final = "too early to tell"
STATEMENT: Final = (
    "Before and after cover different tasks; a difference can come from the work done, not only from the change."
)
"""The sentence every result carries (spec §9.7)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeInfo(Record):
    at: str
    """When the change was complete (its last edit), ISO-8601."""
    first: str
    """Its first edit (the same as ``at`` for a single edit)."""
    commits: list[str]
    """Short hashes of its commits; empty for an edit known by its mtime alone."""
    subjects: list[str]
    files: list[str]
    projects: list[str] | None
    """The projects whose segments it affects; None: every project (a user-level file)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Side(Record):
    start: str
    """The span's start (inclusive), ISO-8601: the change minus the span, or the change before."""
    end: str
    """The span's end (exclusive): the change plus the span, or the change after."""
    segments: int
    gap_segments: int
    half_weight_segments: int
    gap_rate: float | None
    weighted_gap_rate: float | None
    by_model: dict[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict(Record):
    figure: str
    """``gap_rate`` or ``weighted_gap_rate``."""
    before: float | None
    after: float | None
    rise: float | None
    """after minus before (a fall is negative)."""
    interval: list[float] | None
    """The rise's exact interval (difference of Clopper-Pearson bounds, spec §7)."""
    verdict: str
    """``improved`` (upper bound below 0), ``worsened`` (lower above 0), ``no evidence``,
    ``underpowered`` (a side under 5 segments)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelMix(Record):
    dominant: str | None
    """The model of most segments over both sides."""
    share_before: float | None
    share_after: float | None
    changed: bool
    """The dominant model's share moved by more than 20 points between the sides."""
    common: list[str]
    """The models present on both sides."""
    before_segments: int = 0
    """Segments of the common models before (the repeated comparison's)."""
    after_segments: int = 0
    verdicts: list[Verdict] = dataclasses.field(default_factory=list)
    """The comparison again over the common models' segments (when ``changed``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternFate(Record):
    pattern: str
    before_count: int
    before_last_seen: str | None
    status: str
    """``recurring``, ``not seen since`` or ``too early to tell``."""
    after_count: int
    after_last_seen: str | None
    needed: int
    """After-side segments needed to claim ``not seen since``: the before side's segments started
    by the pattern's last occurrence (spec §9.6: as many as the before side had then)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PatternSeen(Record):
    pattern: str
    count: int
    last_seen: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ImpactResult(Record):
    skill: str
    agent: str
    change: ChangeInfo
    before: Side
    after: Side
    verdicts: list[Verdict]
    model_mix: ModelMix
    gaps: list[PatternFate]
    """Each failed-search pattern seen before the change, and whether it was seen after."""
    new_patterns: list[PatternSeen]
    """Failed-search patterns seen after the change and not before it."""
    statement: str = STATEMENT


@dataclass(frozen=True, slots=True, kw_only=True)
class ImpactReport(Record):
    schema_version: int
    watermark: Watermark
    span_seconds: float
    merge_within_seconds: float
    results: list[ImpactResult]
    statement: str = STATEMENT
    window_note: str | None = None
    """Said when the segments held do not cover every span (a daemon's window or retention)."""
