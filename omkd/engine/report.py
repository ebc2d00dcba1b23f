"""The report: SkillHealth per skill and overall, the gap inventory, and the watermark.

One schema serves ``omkd scan --json`` and the daemon's ``/api/v1/status``. Bump
``SCHEMA_VERSION`` on any change that could break a reader.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, NamedTuple, Protocol

from omkd.engine import certainty, conventions, figures, health, patterns, skills
from omkd.engine.certainty import Certainty
from omkd.engine.counters import GapCounts, PipelineCounters
from omkd.engine.figures import SkillTotals
from omkd.engine.formats import CLAUDE_CODE
from omkd.engine.hedge_judge import judge_identity
from omkd.engine.pipeline import Fold
from omkd.engine.plain import to_plain
from omkd.engine.records import Record
from omkd.engine.reproducibility import Reproducibility, reproducibility
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.signals import Signal
from omkd.engine.summary import SegmentSummary

SCHEMA_VERSION: Final = 1
"""Fields are added without a bump; renaming or removing one bumps it."""
WATERMARK_STATEMENT: Final = (
    "These figures describe only the traces observed in this window; "
    "they do not measure the completeness of the knowledge base."
)
NEVER_ACCESSED_SHOWN: Final = 50
OVERALL: Final = "__overall__"


class KnowledgeIndex(Protocol):
    """Which knowledge files exist for a project directory."""

    def files_for(self, cwd: str | None, agents: tuple[str, ...] = ()) -> frozenset[str]:
        """The knowledge files of ``cwd`` (None: the user's) for these agents (``()``: all)."""

    def asks_markers(self, cwd: str | None) -> bool | None:
        """Whether the agent's instructions there ask for uncertainty markers (None: not known)."""


class NoKnowledge:
    """A knowledge index that knows no files (coverage is then not defined)."""

    def files_for(self, cwd: str | None, agents: tuple[str, ...] = ()) -> frozenset[str]:
        return frozenset()

    def asks_markers(self, cwd: str | None) -> bool | None:
        return None


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
    skill: str
    agent: str
    tool: str
    pattern: str
    count: int
    last_seen: str | None


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
    newest_outside_window: str | None = None
    """The newest event of the segments outside the window (ISO-8601): how far back the history is."""
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
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def skill_health(
    name: str,
    totals: SkillTotals,
    knowledge_files: frozenset[str],
    open_segments: int = 0,
    days: list[tuple[int, GapCounts]] | None = None,
    markers: str = conventions.UNKNOWN,
) -> SkillHealth:
    """The row of ``name``: a row key (``skills.row_key``), or ``OVERALL``."""
    derived = figures.derive(totals)
    cov = health.coverage(knowledge_files, totals.accessed)
    tokens = totals.tokens
    agent, skill = skills.split_row(name) if name != OVERALL else (None, name)
    return SkillHealth(
        skill=skill,
        agent=agent,
        segments=totals.segments,
        open_segments=open_segments,
        sessions=len(totals.sessions),
        gap_segments=totals.gap_segments,
        half_weight_segments=totals.half_weight_segments,
        gap_rate=derived.gap_rate,
        weighted_gap_rate=derived.weighted_gap_rate,
        soft_share=derived.soft_share,
        soft_share_warning=derived.soft_share_warning,
        by_type={kind: totals.by_type.get(kind, 0) for kind in patterns.SIGNAL_TYPES},
        user_given_misses=totals.user_given_misses,
        confidence=derived.tier,
        health=derived.band,
        health_indicative=derived.indicative,
        tools=ToolReport(
            calls=totals.tool_calls,
            answered=totals.tool_answered,
            failures=totals.tool_failures,
            cancelled=totals.tool_cancelled,
            failure_rate=totals.tool_failure_rate,
            stability=health.stability(totals.comparable_calls, totals.tool_failures),
        ),
        tokens=TokenReport(input=tokens[0], output=tokens[1], cache_read=tokens[2], cache_creation=tokens[3]),
        duration_seconds=round(totals.duration, 3),
        turns=totals.turns,
        coverage=CoverageReport(
            accessed=cov.accessed,
            files=cov.files,
            ratio=cov.ratio,
            never_accessed=list(cov.never_accessed[:NEVER_ACCESSED_SHOWN]),
            never_accessed_total=len(cov.never_accessed),
        ),
        certainty=certainty.assess(derived, days or []),
        markers=markers,
        projects=sorted(totals.cwds),
        **{name: getattr(totals, name) for name in figures.REPORTED},
    )


def knowledge_of(totals: SkillTotals, index: KnowledgeIndex, agents: tuple[str, ...]) -> frozenset[str]:
    """The knowledge files the agents could have read where these segments ran (coverage)."""
    files: set[str] = set(index.files_for(None, agents))
    for cwd in totals.cwds:
        files.update(index.files_for(cwd, agents))
    return frozenset(files)


def agents_of(rows: Iterable[str]) -> tuple[str, ...]:
    """The agents of these row keys, each once (Claude Code's when there are none)."""
    return tuple(dict.fromkeys(skills.split_row(row)[0] for row in rows)) or (CLAUDE_CODE,)


def _markers_of(totals: SkillTotals, index: KnowledgeIndex) -> str:
    cwds = sorted(totals.cwds)
    return conventions.combined([index.asks_markers(cwd) for cwd in cwds] or [index.asks_markers(None)])


def pipeline_report(
    counters: PipelineCounters,
    outside_window: int,
    skipped_files: dict[str, int] | None = None,
    newest_outside: float | None = None,
) -> PipelineReport:
    return PipelineReport(
        **to_plain(counters),
        segments_outside_window=outside_window,
        newest_outside_window=iso(newest_outside),
        skipped_files=dict(skipped_files or {}),
    )


def newest_outside(fold: Fold) -> float | None:
    """The newest event of the segments the fold keeps outside its window."""
    return fold.segments.newest_outside(fold.window)


def gap_entries(segments: Iterable[SegmentSummary], limit: int | None = None) -> list[GapEntry]:
    """Every signal of these segments, newest first (the newest ``limit`` of them; None: all)."""
    return [_gap_entry(row.segment, row.signal) for row in _newest_first(segments)[:limit]]


class _GapRow(NamedTuple):
    """A gap before its entry is built (only the entries kept are: building one costs more than
    sorting it)."""

    timestamp: float
    key: str
    turn: int
    place: int
    """Its place among the segment's signals."""
    segment: SegmentSummary
    signal: Signal


def _newest_first(segments: Iterable[SegmentSummary]) -> list[_GapRow]:
    rows = [
        _GapRow(signal.timestamp or 0.0, segment.key, signal.turn, n, segment, signal)
        for segment in segments
        for n, signal in enumerate(segment.signals)
    ]
    rows.sort(key=lambda e: (-e.timestamp, e.key, e.turn, e.place))
    return rows


def _gap_entry(segment: SegmentSummary, signal: Signal) -> GapEntry:
    return GapEntry(
        skill=segment.skill,
        agent=segment.agent,
        session_id=segment.session_id or "-",
        stream=posixpath.basename(segment.stream),
        file=segment.stream,
        line=signal.line,
        cwd=segment.cwd,
        segment=segment.key,
        turn=signal.turn,
        type=signal.type,
        weight=signal.weight,
        timestamp=iso(signal.timestamp),
        context=signal.context,
        evidence=signal.evidence,
    )


def _chosen(segments: Iterable[SegmentSummary], skill: str | None, agent: str | None) -> list[SegmentSummary]:
    return [
        s for s in segments if s.signals and (skill is None or s.skill == skill) and (agent is None or s.agent == agent)
    ]


def select_gaps(
    segments: Iterable[SegmentSummary],
    skill: str | None,
    kind: str | None,
    since: float | None,
    limit: int,
    agent: str | None = None,
) -> list[GapEntry]:
    """The newest ``limit`` gaps, optionally of one skill, one agent, one type, and at or after ``since``."""
    rows = _newest_first(_chosen(segments, skill, agent))
    if kind is not None:
        rows = [row for row in rows if row.signal.type == kind]
    if since is not None:
        cutoff = iso(since) or ""
        rows = [row for row in rows if (stamp := iso(row.signal.timestamp)) is not None and stamp >= cutoff]
    return [_gap_entry(row.segment, row.signal) for row in rows[:limit]]


def count_gaps(
    segments: Iterable[SegmentSummary],
    skill: str | None,
    kind: str | None,
    since: float | None,
    agent: str | None = None,
) -> int:
    """How many gaps ``select_gaps`` would choose without a limit (none of them built)."""
    cutoff = iso(since) if since is not None else None
    return sum(
        1
        for segment in _chosen(segments, skill, agent)
        for signal in segment.signals
        if (kind is None or signal.type == kind)
        and (cutoff is None or ((stamp := iso(signal.timestamp)) is not None and stamp >= cutoff))
    )


def top_failed_searches(segments: list[SegmentSummary], limit: int) -> list[FailedSearchPattern]:
    """The failed-search patterns seen most, per skill, with when they were last seen."""
    stats: dict[tuple[str, str, str, str], list[float]] = {}
    for segment in segments:
        for signal in segment.signals:
            if signal.type != patterns.FAILED_SEARCH:
                continue
            key = (segment.skill, segment.agent, str(signal.evidence["tool"]), str(signal.evidence["pattern"]))
            entry = stats.setdefault(key, [0, 0.0])
            entry[0] += 1
            entry[1] = max(entry[1], signal.timestamp or 0.0)
    ranked = sorted(stats.items(), key=lambda item: (-item[1][0], -item[1][1], item[0]))
    return [
        FailedSearchPattern(
            skill=skill, agent=agent, tool=tool, pattern=pattern, count=int(count), last_seen=iso(last_seen or None)
        )
        for (skill, agent, tool, pattern), (count, last_seen) in ranked[:limit]
    ]


def open_segments(segments: Iterable[SegmentSummary], open_after: float | None) -> Counter[str]:
    """Open segments per row: their stream is open and, when ``open_after`` is given, their
    last record is newer than that (idle segments close)."""
    return Counter(s.row for s in segments if s.open and (open_after is None or (s.last_ts or 0.0) >= open_after))


def build_report(
    fold: Fold,
    roots: Sequence[str],
    knowledge: KnowledgeIndex | None = None,
    top_patterns: int = 10,
    gap_limit: int | None = 100,
    open_after: float | None = None,
    counters: PipelineCounters | None = None,
    rules: SegmenterRules | None = None,
    judge: str | None = None,
    skipped_files: dict[str, int] | None = None,
) -> Report:
    """Derive the report from a fold; ``gap_limit`` keeps the newest gaps (``None``: all).

    A segment counts as open while its stream is open and, when ``open_after`` is given,
    its last record is newer than that (idle segments close). ``counters`` replace the
    fold's own pipeline counters (the daemon counts its reading apart from the fold).
    """
    index = knowledge or NoKnowledge()
    inside = list(fold.in_window())
    open_by_skill = open_segments(inside, open_after)
    series = certainty.daily_series(inside)
    rows = [
        skill_health(
            name, totals, knowledge_of(totals, index, agents_of([name])), open_by_skill[name], series.days(name),
            _markers_of(totals, index),
        )
        for name, totals in sorted(fold.skills.items(), key=lambda item: (-item[1].segments, item[0]))
    ]  # fmt: skip
    overall = skill_health(
        OVERALL, fold.overall, knowledge_of(fold.overall, index, agents_of(fold.skills)), open_by_skill.total(),
        series.days(None),
        _markers_of(fold.overall, index),
    )  # fmt: skip
    asked = [(cwd, index.asks_markers(cwd)) for cwd in sorted(fold.overall.cwds)]
    window = fold.window
    starts = [s.first_ts for s in inside if s.first_ts is not None]
    ends = [s.last_ts for s in inside if s.last_ts is not None]
    gaps = gap_entries(inside, gap_limit)
    window_from = iso(window.since if window.since is not None else min(starts, default=None))
    window_to = iso(window.until if window.until is not None else max(ends, default=None))
    return Report(
        schema_version=SCHEMA_VERSION,
        watermark=Watermark(
            roots=list(roots),
            window_from=window_from,
            window_to=window_to,
            sessions=len(fold.overall.sessions),
            segments=fold.overall.segments,
            fingerprint=f"{fold.fingerprint:016x}"[:12],
            statement=WATERMARK_STATEMENT,
        ),
        overall=overall,
        skills=rows,
        top_failed_searches=top_failed_searches(inside, top_patterns),
        conventions=[ConventionReport(cwd=cwd, asked=a) for cwd, a in asked if a is not None],
        reproducibility=reproducibility(SCHEMA_VERSION, rules or SegmenterRules(), judge or judge_identity()),
        gaps=gaps,
        pipeline=pipeline_report(
            counters or fold.counters,
            fold.outside_window,
            skipped_files,
            newest_outside(fold) if fold.outside_window else None,
        ),
    )


def restrict(report: Report, names: set[str] | None = None, agents: set[str] | None = None) -> Report:
    """The report restricted to these skills (``None``: all) and agents (``None``: all); the overall
    row and the watermark stay whole."""

    def kept(skill: str, agent: str | None) -> bool:
        return (names is None or skill in names) and (agents is None or agent in agents)

    return dataclasses.replace(
        report,
        skills=[s for s in report.skills if kept(s.skill, s.agent)],
        top_failed_searches=[p for p in report.top_failed_searches if kept(p.skill, p.agent)],
        gaps=[g for g in report.gaps if kept(g.skill, g.agent)],
    )
