"""The ``metacognition`` block of a ``SkillHealth`` (spec §8.6, §8.7), from a skill's totals."""

from __future__ import annotations

from omkd.engine import health
from omkd.engine.figures import LEVEL, SkillTotals
from omkd.engine.intervals import rate_interval
from omkd.engine.metacog import measures, rules
from omkd.engine.report.schema import MetacogIntervals, MetacogReport, MetacogTiers


def _ratio(k: int, n: int) -> tuple[float | None, list[float] | None]:
    if n <= 0:
        return None, None
    lower, upper = rate_interval(k, n, LEVEL)
    return k / n, [lower, upper]


def metacog_report(totals: SkillTotals) -> MetacogReport:
    lookup, open_gap, writing = totals.lookup_gap_segments, totals.open_gap_segments, totals.writing_segments
    outcomes = {o: int(getattr(totals, measures.OUTCOME_TALLIES[o])) for o in rules.OUTCOMES}
    recovery, recovery_interval = _ratio(outcomes["recovered"], lookup)
    asked, asked_interval = _ratio(totals.asked_at_gap_segments, open_gap)
    unchecked, unchecked_interval = _ratio(totals.unchecked_write_segments, writing)
    return MetacogReport(
        lookup_gap_segments=lookup,
        outcomes=outcomes,
        self_recovery_ratio=recovery,
        open_gap_segments=open_gap,
        asked_at_gap=totals.asked_at_gap_segments,
        asked_at_gap_ratio=asked,
        proceeded_candidates=totals.proceeded_candidates,
        writing_segments=writing,
        unchecked_write_segments=totals.unchecked_write_segments,
        unchecked_write_ratio=unchecked,
        max_write_load={b: int(getattr(totals, measures.LOAD_TALLIES[b])) for b in rules.LOAD_BUCKETS},
        unchecked_write_kinds={k: int(getattr(totals, t)) for k, t in measures.KIND_TALLIES.items()},
        confidence=MetacogTiers(
            lookup_gap_segments=health.confidence_tier(lookup),
            open_gap_segments=health.confidence_tier(open_gap),
            writing_segments=health.confidence_tier(writing),
        ),
        intervals=MetacogIntervals(
            self_recovery_ratio=recovery_interval,
            asked_at_gap_ratio=asked_interval,
            unchecked_write_ratio=unchecked_interval,
        ),
    )
