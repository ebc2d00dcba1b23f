"""The report's JSON contract: the records of ``omkd scan --json`` and the daemon's ``/api/v1/status``.

One schema serves both. Bump ``SCHEMA_VERSION`` on any change that could break a reader; a field is
only ever added with a default, and a reader ignores the keys it does not know (``records.Record``),
so an older reader reads a newer document. How a report is built is ``build.py``; which gaps a
query selects, ``gaps.py``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from omkd.engine import conventions, skills
from omkd.engine.certainty import Certainty
from omkd.engine.counters import PipelineCounters
from omkd.engine.records import Record
from omkd.engine.reproducibility import Reproducibility

SCHEMA_VERSION: Final = 1
"""Fields are added without a bump; renaming or removing one bumps it."""
OVERALL: Final = "__overall__"
"""The ``skill`` of the overall row."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CoverageReport(Record):
    accessed: int
    files: int
    ratio: float | None
    never_accessed: list[str]
    never_accessed_total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolReport(Record):
    calls: int
    answered: int
    failures: int
    cancelled: int
    failure_rate: float | None
    stability: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenReport(Record):
    input: int
    output: int
    cache_read: int
    cache_creation: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MetacogTiers(Record):
    """The confidence tier of each metacognition denominator (underpowered under 5, low under 20)."""

    lookup_gap_segments: str = "underpowered"
    open_gap_segments: str = "underpowered"
    writing_segments: str = "underpowered"


@dataclass(frozen=True, slots=True, kw_only=True)
class MetacogIntervals(Record):
    """The 95 % Wilson interval [lower, upper] of each ratio; None when its denominator is 0."""

    self_recovery_ratio: list[float] | None = None
    asked_at_gap_ratio: list[float] | None = None
    unchecked_write_ratio: list[float] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MetacogReport(Record):
    """What the agent did at its gaps (spec §8.6), each measure on its own denominator. A ratio
    is None when its denominator is 0 (a 0.0 would read as healthy)."""

    lookup_gap_segments: int = 0
    """Segments with at least one eligible miss: M1's and M3's denominator."""
    outcomes: dict[str, int] = dataclasses.field(default_factory=dict)
    """Lookup-gap segments by their worst outcome (``recovered``, ``created``, ``asked``, ``dropped``,
    ``proceeded``): the five sum to ``lookup_gap_segments``."""
    self_recovery_ratio: float | None = None
    """M1: segments whose every eligible miss the agent found itself / lookup-gap segments."""
    open_gap_segments: int = 0
    """Main-stream segments with a gap neither recovered nor created: M2's denominator."""
    asked_at_gap: int = 0
    asked_at_gap_ratio: float | None = None
    proceeded_candidates: int = 0
    """M3 candidates: lookup-gap segments with an eligible miss followed by a project write
    (unjudged: never a gate or an alert)."""
    writing_segments: int = 0
    """Segments with a project write: M4's denominator."""
    unchecked_write_segments: int = 0
    unchecked_write_ratio: float | None = None
    max_write_load: dict[str, int] = dataclasses.field(default_factory=dict)
    """Writing segments by their highest load (``0``, ``0.5``, ``1``, ``1.5``, ``2+``)."""
    unchecked_write_kinds: dict[str, int] = dataclasses.field(default_factory=dict)
    """Unchecked-write segments by the kinds of the writes that tripped M4 (``vcs``, ``dependency``,
    ``data`` are seed 004's hard ones)."""
    confidence: MetacogTiers = dataclasses.field(default_factory=MetacogTiers)
    intervals: MetacogIntervals = dataclasses.field(default_factory=MetacogIntervals)


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillHealth(Record):
    skill: str
    agent: str | None
    """The agent that ran it (``claude_code``, ``codex``, ``gemini``); None on the overall row."""
    segments: int
    open_segments: int
    sessions: int
    gap_segments: int
    half_weight_segments: int
    """Gap segments whose strongest signal is weak (0.5); the others weigh 1."""
    gap_rate: float
    weighted_gap_rate: float
    soft_share: float
    soft_share_warning: bool
    by_type: dict[str, int]
    user_given_misses: int
    confidence: str
    health: str
    health_indicative: bool
    tools: ToolReport
    tokens: TokenReport
    duration_seconds: float
    turns: int
    coverage: CoverageReport
    certainty: Certainty
    markers: str = conventions.UNKNOWN
    """Whether the projects the skill ran in ask the agent for uncertainty markers: ``asked``,
    ``not asked`` (a marker rate of 0 then means nothing), ``partly asked``, ``unknown``."""
    projects: list[str] = dataclasses.field(default_factory=list)
    """The working directories its segments ran in (where its knowledge files are looked for)."""
    verified_absent: int = 0
    """Searches that found nothing and confirmed a removal the agent had just made (not gaps)."""
    band_label: str = ""
    """The band as every view writes it: ``red`` backed by its interval, ``red~`` the interval
    crosses a threshold, ``(red?)`` underpowered, ``—`` no segment in the window (``health``
    is then ``none``); empty in a document of an older omkd (a view then derives it)."""
    by_model: dict[str, int] = dataclasses.field(default_factory=dict)
    """Segments per model that wrote them (the most frequent ``model`` of a segment's assistant
    records; ``unknown`` where the records name none): the model mix of spec §9."""
    metacognition: MetacogReport | None = None
    """What the agent did at its gaps (spec §8); None in a document of an older omkd."""

    @property
    def row(self) -> str:
        """The key of its figures (``skills.row_key``; baselines are keyed by it)."""
        return skills.row_key(self.skill, self.agent) if self.agent is not None else self.skill

    @property
    def label(self) -> str:
        """Its name for a person: the skill, with its agent when that is not Claude Code."""
        return skills.row_label(self.skill, self.agent)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConventionReport(Record):
    """Whether one project's instructions ask for the markers (``omkd conventions``)."""

    cwd: str
    asked: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class FailedSearchPattern(Record):
    """What a skill's agents looked for and did not find, however they looked (grouped by the
    pattern, the README's *How omkd computes*: never the whole command)."""

    skill: str
    agent: str
    tool: str
    """The tool that looked for it most often (``tools`` has them all)."""
    pattern: str
    count: int
    last_seen: str | None
    tools: list[str] = dataclasses.field(default_factory=list)
    """Every tool that looked for it, sorted."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Watermark(Record):
    roots: list[str]
    window_from: str | None
    window_to: str | None
    sessions: int
    segments: int
    fingerprint: str
    statement: str


@dataclass(slots=True, kw_only=True)
class PipelineReport(PipelineCounters, Record):
    """``PipelineCounters`` as reported, every field of it, with what fell outside the window."""

    segments_outside_window: int = 0
    """Segments read that lie outside the window: kept (older than it, or newer), or forgotten past
    the daemon's retention."""
    newest_outside_window: str | None = None
    """The newest event of the segments outside the window (ISO-8601): how far back the history is."""
    missing_roots: list[str] = dataclasses.field(default_factory=list)
    """The daemon: configured roots that do not exist (nothing is read there)."""
    skipped_files: dict[str, int] = dataclasses.field(default_factory=dict)
    """``omkd scan``: files below a PATH that were not read, by reason (``not_regular``: a FIFO,
    a device or a socket named ``*.jsonl``; ``symlink_loop``; ``dangling``; ``unreadable``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GapEntry(Record):
    skill: str
    agent: str
    session_id: str
    stream: str
    """The transcript's file name."""
    file: str
    """The transcript's path relative to the root it was found under."""
    line: int
    """The line of the transcript where the gap was found (1-based)."""
    cwd: str | None
    """The project directory the agent worked in."""
    segment: str
    turn: int
    type: str
    weight: float
    timestamp: str | None
    context: str
    evidence: dict[str, object]
    outcome: str | None = None
    """What the agent did next (spec §8.5): ``recovered``, ``created``, ``asked``, ``proceeded``,
    ``dropped``; None for a gap that is no anchor (a repeated failure, a deduplicated miss) or
    whose window is still open."""
    outcome_line: int | None = None
    """The line of the event that decided it (the recovering result, the write, the question)."""
    outcome_how: str = ""
    """The recovering call, the write, the question, in words."""
    acknowledged: bool | None = None
    """Text between the gap and its outcome stated the gap (or a hedge lay between)."""
    window_end: int | None = None
    """The line its follow-up window ended at."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Report(Record):
    schema_version: int
    watermark: Watermark
    overall: SkillHealth
    skills: list[SkillHealth]
    top_failed_searches: list[FailedSearchPattern]
    gaps: list[GapEntry]
    pipeline: PipelineReport
    conventions: list[ConventionReport] = dataclasses.field(default_factory=list)
    """Per project directory transcripts ran in: does it ask for uncertainty markers."""
    reproducibility: Reproducibility | None = None
    """What the figures were computed by: version, rules hash, judge, window, methods."""


def iso(timestamp: float | None) -> str | None:
    """A moment as the contract writes it: ISO-8601 in UTC, to the millisecond (``…Z``)."""
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
