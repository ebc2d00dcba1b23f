"""What the agents did at a gap (spec §8), in words every view says alike: the outcome partition
beside the gap rate ("of 20 segments that hit a gap: 8 found it, 2 asked, 6 left it, 4 wrote anyway
(candidates)") and the three measures, each over its own denominator.

Read from the report's ``metacognition`` block, never computed here. A measure whose denominator is
0 is not said at all (no 0 % that would read as healthy); one whose denominator is under 5 is said
as a count, "underpowered", without a percentage.
"""

from __future__ import annotations

from typing import Final

from omkd.engine.metacog.rules import OUTCOMES
from omkd.engine.report.schema import GapEntry, MetacogReport, SkillHealth
from omkd.render.notes import plural

OUTCOME_WORDS: Final = {
    "recovered": "found it",
    "created": "created it",
    "asked": "asked",
    "dropped": "left it",
    "proceeded": "wrote anyway (candidates)",
}
"""Each outcome as the partition says it (``proceeded`` only nominates: a judge would confirm)."""
UNDERPOWERED: Final = "underpowered"
LEGEND: Final = (
    "at a gap: the segments with a failed search that named something, by the worst that came of it — "
    "found it (a later search found it: the knowledge is there but hard to find), created it, asked the person, "
    "left it (not found within its window: likely missing), "
    "wrote anyway (a project write followed; candidates, unjudged); "
    "self-recovery over those segments, asked over the segments with an open gap (hedges count too, and "
    "omkd finds about a quarter of them: a floor), unchecked writes over the "
    "segments that wrote (a write after two or more unresolved gaps and no check-in); "
    "under 5 in a denominator: counts only (underpowered)"
)
"""What the at-a-gap column says, one sentence for every view's legend."""


def shown(skill: SkillHealth) -> bool:
    """A row worth a line: it hit a gap, left one open, or wrote over unresolved ones."""
    m = skill.metacognition
    return m is not None and (m.lookup_gap_segments > 0 or m.open_gap_segments > 0 or m.unchecked_write_segments > 0)


def partition(m: MetacogReport) -> str:
    """The outcome partition in words; its counts sum to the segments that hit a gap."""
    n = m.lookup_gap_segments
    if n == 0:
        return "no segment hit a lookup gap"
    said = [f"{m.outcomes.get(o, 0)} {OUTCOME_WORDS[o]}" for o in OUTCOMES if m.outcomes.get(o, 0)]
    weak = f" ({UNDERPOWERED})" if m.confidence.lookup_gap_segments == UNDERPOWERED else ""
    return f"of {plural(n, 'segment')} that hit a gap{weak}: {', '.join(said)}"


def _rate(
    label: str, k: int, n: int, of: str, tier: str, value: float | None, interval: list[float] | None, wide: bool
) -> str:
    counted = f"{k} of {plural(n, of)}"
    if tier == UNDERPOWERED or value is None:
        return f"{label} {counted} ({UNDERPOWERED})"
    bounds = f" [{100 * interval[0]:.0f}–{100 * interval[1]:.0f}]" if wide and interval is not None else ""
    return f"{label} {100 * value:.0f} %{bounds} ({counted})"


def measures(m: MetacogReport, wide: bool = True) -> list[str]:
    """M1, M2 and M4 in words, each only when its denominator is not 0; ``wide``: with its 95 %
    interval. M3 has no rate: its candidates are the partition's "wrote anyway"."""
    said = []
    if m.lookup_gap_segments:
        recovered = m.outcomes.get("recovered", 0)
        ratio, interval = m.self_recovery_ratio, m.intervals.self_recovery_ratio
        tier = m.confidence.lookup_gap_segments
        said.append(_rate("self-recovery", recovered, m.lookup_gap_segments, "segment", tier, ratio, interval, wide))
    if m.open_gap_segments:
        ratio, interval = m.asked_at_gap_ratio, m.intervals.asked_at_gap_ratio
        tier = m.confidence.open_gap_segments
        said.append(_rate("asked at", m.asked_at_gap, m.open_gap_segments, "open gap", tier, ratio, interval, wide))
    if m.writing_segments:
        ratio, interval = m.unchecked_write_ratio, m.intervals.unchecked_write_ratio
        k, n, tier = m.unchecked_write_segments, m.writing_segments, m.confidence.writing_segments
        said.append(_rate("unchecked writes", k, n, "writing segment", tier, ratio, interval, wide))
    return said


def described(m: MetacogReport | None, wide: bool = True) -> str:
    """The partition and the measures, one text (``—`` for a document of an older omkd)."""
    if m is None:
        return "—"
    return "; ".join([partition(m), *measures(m, wide)])


def outcome_of(gap: GapEntry) -> str:
    """What came of one gap, in the partition's words, with what decided it (the recovering call,
    the write, the question) and its line; "" for a gap that is no anchor or still open."""
    if gap.outcome is None:
        return ""
    said = OUTCOME_WORDS.get(gap.outcome, gap.outcome)
    how = f": {gap.outcome_how}" if gap.outcome_how else ""
    where = f" (line {gap.outcome_line})" if gap.outcome_line is not None and gap.outcome != "dropped" else ""
    return f"{said}{how}{where}"
