"""The gap inventory: which gaps a query selects, the entries built for them, newest first.

``GapQuery`` is the one predicate of "which gaps count" (a skill, an agent, a type, at or after a
moment): ``select_gaps`` and ``count_gaps`` apply it, and the daemon's count of its stored gaps in
SQLite (``daemon/state/queries.py``'s ``count_signals``) is pinned equal to it by
``tests/test_gap_count_sql.py``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from omkd.engine.metacog.view import Episode
from omkd.engine.patterns import HEDGING
from omkd.engine.report.schema import GapEntry, iso
from omkd.engine.signals import Signal
from omkd.engine.summary import SegmentSummary


@dataclass(frozen=True, slots=True)
class GapQuery:
    """Which gaps a query selects: those of this skill, this agent and this type (None: any),
    stamped at or after ``since`` as the contract writes moments (``iso``: to the millisecond; a
    gap without a timestamp is then not selected)."""

    skill: str | None = None
    agent: str | None = None
    kind: str | None = None
    since: float | None = None
    cutoff: str | None = field(init=False, repr=False)
    """``since`` as ``iso`` writes it (compared as text, as a reader of the entries would)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "cutoff", iso(self.since))

    def takes_segment(self, segment: SegmentSummary) -> bool:
        """Whether the segment's gaps can be selected (it holds some, of the skill and agent)."""
        return (
            bool(segment.signals)
            and (self.skill is None or segment.skill == self.skill)
            and (self.agent is None or segment.agent == self.agent)
        )

    def takes_signal(self, signal: Signal) -> bool:
        """Whether a gap of a segment ``takes_segment`` accepts is selected (its type and moment)."""
        if self.kind is not None and signal.type != self.kind:
            return False
        cutoff = self.cutoff
        return cutoff is None or ((stamp := iso(signal.timestamp)) is not None and stamp >= cutoff)

    def selected(self, segments: Iterable[SegmentSummary]) -> Iterator[tuple[int, SegmentSummary, Signal]]:
        """(place among the segment's signals, segment, signal) of each gap selected, in the
        segments' order."""
        for segment in segments:
            if self.takes_segment(segment):
                for place, signal in enumerate(segment.signals):
                    if self.takes_signal(signal):
                        yield place, segment, signal


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


def _newest_first(gaps: Iterable[tuple[int, SegmentSummary, Signal]]) -> list[_GapRow]:
    rows = [
        _GapRow(signal.timestamp or 0.0, segment.key, signal.turn, n, segment, signal) for n, segment, signal in gaps
    ]
    rows.sort(key=lambda e: (-e.timestamp, e.key, e.turn, e.place))
    return rows


def gap_entries(segments: Iterable[SegmentSummary], limit: int | None = None) -> list[GapEntry]:
    """Every signal of these segments, newest first (the newest ``limit`` of them; None: all)."""
    return [_gap_entry(row.segment, row.signal) for row in _newest_first(GapQuery().selected(segments))[:limit]]


def episode_of(segment: SegmentSummary, signal: Signal) -> Episode | None:
    """The episode of the anchor a gap is (spec §8): a kept miss by its result's line, a hedge or
    marker by its text's line (and sentence, when several share it); None for another gap."""
    found = None
    for episode in segment.episodes:
        if episode.anchor == signal.type and episode.result_line == signal.line:
            if signal.type != HEDGING or episode.tokens[:1] == (signal.evidence.get("sentence"),):
                return episode
            found = found or episode
    return found


def _gap_entry(segment: SegmentSummary, signal: Signal) -> GapEntry:
    episode = episode_of(segment, signal) if segment.episodes else None
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
        outcome=episode.outcome if episode is not None else None,
        outcome_line=episode.outcome_line if episode is not None else None,
        outcome_how=episode.outcome_how if episode is not None else "",
        acknowledged=episode.acknowledged if episode is not None else None,
        window_end=episode.window_end if episode is not None else None,
    )


def select_gaps(
    segments: Iterable[SegmentSummary],
    skill: str | None,
    kind: str | None,
    since: float | None,
    limit: int,
    agent: str | None = None,
) -> list[GapEntry]:
    """The newest ``limit`` gaps, optionally of one skill, one agent, one type, and at or after ``since``."""
    rows = _newest_first(GapQuery(skill, agent, kind, since).selected(segments))
    return [_gap_entry(row.segment, row.signal) for row in rows[:limit]]


def count_gaps(
    segments: Iterable[SegmentSummary],
    skill: str | None,
    kind: str | None,
    since: float | None,
    agent: str | None = None,
) -> int:
    """How many gaps ``select_gaps`` would choose without a limit (none of them built)."""
    return sum(1 for _ in GapQuery(skill, agent, kind, since).selected(segments))
