"""The effect of each knowledge change on each skill it affects: ``impact_report`` (spec §9).

For each row (a skill, for its agent) the changes affecting it (``changes.changes_of``) are taken
in turn; the row's segments inside the change's projects that started in ``[t - span, t)`` and
``[t, t + span)``, each side cut at the neighbouring change of the row that can affect the same
segments, are compared (``compare.py``). A change whose sides hold no segment of the row is left
out (a project the skill never ran in, a commit long before the traces).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from omkd.engine import skills
from omkd.engine.fold import segment_fingerprint
from omkd.engine.impact.changes import Change, Edit, Place, changes_of, inside
from omkd.engine.impact.compare import model_mix, pattern_fates, side, verdicts
from omkd.engine.impact.query import ImpactQuery
from omkd.engine.impact.schema import IMPACT_SCHEMA_VERSION, ChangeInfo, ImpactReport, ImpactResult
from omkd.engine.report.build import WATERMARK_STATEMENT
from omkd.engine.report.schema import Watermark, iso
from omkd.engine.summary import SegmentSummary

_MOD = 1 << 64


def watermark(segments: Sequence[SegmentSummary], roots: Sequence[str]) -> Watermark:
    """The watermark of the segments the results were read from (spec §1)."""
    starts = [s.first_ts for s in segments if s.first_ts is not None]
    ends = [s.last_ts for s in segments if s.last_ts is not None]
    fingerprint = 0
    for segment in segments:
        fingerprint = (fingerprint + segment_fingerprint(segment.key)) % _MOD
    return Watermark(
        roots=list(roots),
        window_from=iso(min(starts, default=None)),
        window_to=iso(max(ends, default=None)),
        sessions=len({s.session_id or "-" for s in segments}),
        segments=len(segments),
        fingerprint=f"{fingerprint:016x}"[:12],
        statement=WATERMARK_STATEMENT,
    )


def window_note(results: Iterable[ImpactResult], held_since: float | None) -> str | None:
    """What a report read from segments held only since ``held_since`` (a daemon's window) must
    say: a before side reaching earlier was counted from there (None: every side lies inside)."""
    start = iso(held_since)
    if start is None or all(r.before.start >= start for r in results):
        return None
    return f"The daemon holds segments since {start} (its window): a span reaching before it is cut there."


def impact_report(
    segments: Iterable[SegmentSummary],
    edits: Sequence[Edit],
    places: Mapping[str, Place],
    query: ImpactQuery | None = None,
    held_since: float | None = None,
) -> ImpactReport:
    """Every change affecting a row of ``segments`` (since ``query.since``), compared before and
    after; ``held_since``: the segments are only those since then (a daemon's window)."""
    asked = query or ImpactQuery()
    counted = sorted((s for s in segments if s.counts), key=lambda s: (s.first_ts or 0.0, s.key))
    rows: dict[tuple[str, str], list[SegmentSummary]] = defaultdict(list)
    for segment in counted:
        if asked.skills is not None and segment.skill not in asked.skills:
            continue
        if asked.agents is not None and segment.agent not in asked.agents:
            continue
        rows[(segment.skill, segment.agent)].append(segment)
    results = []
    for (skill, agent), held in sorted(rows.items()):
        changes = changes_of(skill, edits, places, asked.merge_within)
        for position, change in enumerate(changes):
            if asked.since is not None and change.at < asked.since:
                continue
            result = _result(skill, agent, change, changes[:position], changes[position + 1 :], held, asked.span)
            if result is not None:
                results.append(result)
    results.sort(key=lambda r: (r.change.at, skills.row_key(r.skill, r.agent)))
    return ImpactReport(
        schema_version=IMPACT_SCHEMA_VERSION,
        watermark=watermark(counted, asked.roots),
        span_seconds=asked.span,
        merge_within_seconds=asked.merge_within,
        results=results,
        window_note=window_note(results, held_since),
    )


def _result(
    skill: str,
    agent: str,
    change: Change,
    earlier: Sequence[Change],
    later: Sequence[Change],
    held: Sequence[SegmentSummary],
    span: float,
) -> ImpactResult | None:
    start = max([change.at - span, *(c.at for c in earlier if c.overlaps(change))])
    end = min([change.at + span, *(c.first for c in later if c.overlaps(change))])
    scoped = [s for s in held if s.first_ts is not None and inside(s.cwd, change.projects)]
    before = [s for s in scoped if start <= (s.first_ts or 0.0) < change.at]
    after = [s for s in scoped if change.at <= (s.first_ts or 0.0) < end]
    if not before and not after:
        return None
    fates, new = pattern_fates(before, after)
    return ImpactResult(
        skill=skill,
        agent=agent,
        change=ChangeInfo(
            at=iso(change.at) or "",
            first=iso(change.first) or "",
            commits=list(change.commits),
            subjects=list(change.subjects),
            files=list(change.files),
            projects=list(change.projects) if change.projects is not None else None,
        ),
        before=side(before, start, change.at),
        after=side(after, change.at, end),
        verdicts=verdicts(before, after),
        model_mix=model_mix(before, after),
        gaps=fates,
        new_patterns=new,
    )
