"""The knowledge changes of the projects transcripts ran in, for ``engine/impact`` (spec §9).

Each knowledge file of the segments' projects and of the user (``knowledge.FileKnowledgeIndex``)
gets its place (a skill's folder or not, a project or the user's), and the git history of them
all (``knowledge_history``, git asked once per work tree) gives the edits.
"""

from __future__ import annotations

from collections.abc import Iterable

from omkd.engine.impact.build import impact_report
from omkd.engine.impact.changes import Edit, Place
from omkd.engine.impact.query import ImpactQuery
from omkd.engine.impact.schema import ImpactReport
from omkd.engine.report.build import KnowledgeIndex
from omkd.engine.summary import SegmentSummary
from omkd.shell.knowledge import skill_folder
from omkd.shell.knowledge_history import knowledge_changes


def places_of(segments: Iterable[SegmentSummary], index: KnowledgeIndex) -> dict[str, Place]:
    """Every knowledge file of every agent (spec §9.1: ``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md``,
    the knowledge trees and each agent's skill folders), with its place: the user's files (and
    extra roots') first, then each project's (the segments' ``cwd``s). Every agent's, whichever
    agents' segments were read: an instruction file affects every skill of its project (§9.2), and
    a row's changes never depend on which other agents' traces were read beside it."""
    held = list(segments)
    places = {path: Place(skill_folder(path), None) for path in sorted(index.files_for(None))}
    for cwd in sorted({s.cwd for s in held if s.cwd}):
        for path in sorted(index.files_for(cwd)):
            places.setdefault(path, Place(skill_folder(path), cwd))
    return places


def edits_of(places: dict[str, Place], since: float | None = None) -> list[Edit]:
    """The commits and mtimes of these files since ``since`` (None: all their history)."""
    return [Edit(c.timestamp, c.commit, c.subject, c.files) for c in knowledge_changes(places, since)]


def impact_of(
    segments: Iterable[SegmentSummary], index: KnowledgeIndex, query: ImpactQuery, held_since: float | None = None
) -> ImpactReport:
    """The effect of every knowledge change on the skills of these segments (those since
    ``held_since`` only: a daemon's window)."""
    held = [s for s in segments if s.counts]
    places = places_of(held, index)
    starts = [s.first_ts for s in held if s.first_ts is not None]
    earliest = max(query.since or 0.0, min(starts, default=0.0)) - query.span - query.merge_within
    return impact_report(held, edits_of(places, max(earliest, 0.0) or None), places, query, held_since)
