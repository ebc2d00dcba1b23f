"""The report built from a fold: a ``SkillHealth`` per skill and overall, the gap inventory, the
failed-search patterns, the watermark; and a report restricted to some skills or agents.

The records are ``schema.py``'s; the gap inventory's entries, ``gaps.py``'s.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Final, Protocol

from omkd.engine import certainty, conventions, figures, health, patterns, skills
from omkd.engine.counters import GapCounts, PastRetention, PipelineCounters
from omkd.engine.figures import SkillTotals
from omkd.engine.fold import Fold, short_fingerprint
from omkd.engine.formats import CLAUDE_CODE
from omkd.engine.hedge_judge import judge_identity
from omkd.engine.plain import to_plain
from omkd.engine.report.gaps import gap_entries
from omkd.engine.report.metacog import metacog_report
from omkd.engine.report.schema import (
    OVERALL,
    SCHEMA_VERSION,
    ConventionReport,
    CoverageReport,
    FailedSearchPattern,
    PipelineReport,
    Report,
    SkillHealth,
    TokenReport,
    ToolReport,
    Watermark,
    iso,
)
from omkd.engine.reproducibility import reproducibility
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.settle import settled
from omkd.engine.summary import SegmentSummary

WATERMARK_STATEMENT: Final = (
    "These figures describe only the traces observed in this window; "
    "they do not measure the completeness of the knowledge base."
)
NEVER_ACCESSED_SHOWN: Final = 50


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
        band_label=derived.label,
        by_model={model: totals.models[model] for model in sorted(totals.models)},
        metacognition=metacog_report(totals),
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
    past_retention: PastRetention | None = None,
    missing_roots: Sequence[str] = (),
) -> PipelineReport:
    """What was read; outside the window, the kept segments and those forgotten past retention."""
    past = past_retention or PastRetention()
    newest = max((t for t in (newest_outside, past.newest) if t is not None), default=None)
    return PipelineReport(
        **to_plain(counters),
        segments_outside_window=outside_window + past.segments,
        newest_outside_window=iso(newest),
        skipped_files=dict(skipped_files or {}),
        missing_roots=list(missing_roots),
    )


def newest_outside(fold: Fold) -> float | None:
    """The newest event of the segments the fold keeps outside its window."""
    return fold.segments.newest_outside(fold.window)


Seen = tuple[str, str, str, str, object]
"""One failed search: (skill, agent, tool, pattern, when) — when is any comparable moment."""


def grouped_searches(seen: Iterable[Seen], limit: int) -> list[tuple[str, str, str, list[str], str, int, Any]]:
    """Failed searches grouped by (skill, agent, pattern), the most seen first (then the latest):
    (skill, agent, most used tool, every tool, pattern, count, latest moment). The one grouping
    of every view's top-patterns table."""
    groups: dict[tuple[str, str, str], tuple[Counter[str], list[Any]]] = {}
    for skill, agent, tool, pattern, when in seen:
        tools, latest = groups.setdefault((skill, agent, pattern), (Counter(), [None]))
        tools[tool] += 1
        if when is not None and (latest[0] is None or when > latest[0]):
            latest[0] = when
    ranked = sorted(groups.items(), key=lambda item: (-item[1][0].total(), _negated(item[1][1][0]), item[0]))
    return [
        (skill, agent, tools.most_common(1)[0][0], sorted(tools), pattern, tools.total(), latest[0])
        for (skill, agent, pattern), (tools, latest) in ranked[:limit]
    ]


def _negated(when: Any) -> tuple[int, Any]:
    """A sort key putting the latest moment first (``None`` last), for numbers and ISO strings alike."""
    if when is None:
        return (1, 0)
    if isinstance(when, str):
        return (0, tuple(-ord(c) for c in when))
    return (0, -when)


def top_failed_searches(segments: Iterable[Any], limit: int) -> list[FailedSearchPattern]:
    """The failed-search patterns seen most, per skill, with when they were last seen."""
    seen = (
        (s.skill, s.agent, str(sig.evidence["tool"]), str(sig.evidence["pattern"]), sig.timestamp or None)
        for s in segments
        for sig in s.signals
        if sig.type == patterns.FAILED_SEARCH
    )
    return [
        FailedSearchPattern(
            skill=skill, agent=agent, tool=tool, tools=tools, pattern=pattern, count=count, last_seen=iso(last)
        )
        for skill, agent, tool, tools, pattern, count, last in grouped_searches(seen, limit)
    ]


def open_segments(segments: Iterable[SegmentSummary], open_after: float | None) -> Counter[str]:
    """Open segments per row: their stream is open and, when ``open_after`` is given, their
    last record is newer than that (idle segments close)."""
    return Counter(s.row for s in segments if not settled(s, open_after))


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
    past_retention: PastRetention | None = None,
    missing_roots: Sequence[str] = (),
) -> Report:
    """Derive the report from a fold; ``gap_limit`` keeps the newest gaps (``None``: all).

    A segment counts as open while its stream is open and, when ``open_after`` is given,
    its last record is newer than that (idle segments close). ``counters`` replace the
    fold's own pipeline counters (the daemon counts its reading apart from the fold);
    ``past_retention`` the segments the daemon read and forgot, ``missing_roots`` the roots not found.
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
            fingerprint=short_fingerprint(fold.fingerprint),
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
            past_retention,
            missing_roots,
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
