"""Before and after one change: the spans, the verdict per figure, the model mix, the patterns
(spec §9.3 to §9.6).

A verdict is read from the rise interval the regression gate uses (``intervals.rise_interval``:
difference of exact bounds, two-sided 95 %), never from the point estimates: ``improved`` when
its upper bound is below 0, ``worsened`` when its lower bound is above 0, otherwise ``no
evidence``; ``underpowered`` when either side has fewer than 5 segments.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from omkd.engine import intervals, patterns
from omkd.engine.figures import UNKNOWN_MODEL
from omkd.engine.impact.schema import (
    IMPROVED,
    NO_EVIDENCE,
    NOT_SEEN_SINCE,
    RECURRING,
    TOO_EARLY,
    UNDERPOWERED,
    WORSENED,
    ModelMix,
    PatternFate,
    PatternSeen,
    Side,
    Verdict,
)
from omkd.engine.report.schema import iso
from omkd.engine.summary import SegmentSummary

MIN_SEGMENTS: Final = 5
"""A side with fewer segments makes the verdict ``underpowered``."""
MODEL_SHARE_MOVE: Final = 20
"""The dominant model's share moving by more than this many points between the sides is a model
change (compared exactly, in counts: 70 % to 90 % is 20 points, not more)."""
FIGURES: Final = ("gap_rate", "weighted_gap_rate")


@dataclass(frozen=True, slots=True)
class Counts:
    """One side's gap counts: segments, gap segments, half-weight gap segments."""

    segments: int
    gapped: int
    halves: int

    @classmethod
    def of(cls, segments: Sequence[SegmentSummary]) -> Counts:
        weights = [s.weight for s in segments]
        return cls(len(weights), sum(1 for w in weights if w > 0), sum(1 for w in weights if 0 < w < 1))

    def sample(self, figure: str) -> tuple[float, int]:
        """(successes, n) of a figure: the gap segments, or the weight sum (exact: halves / 2)."""
        if figure == "gap_rate":
            return (float(self.gapped), self.segments)
        return ((2 * (self.gapped - self.halves) + self.halves) / 2, self.segments)

    def rate(self, figure: str) -> float | None:
        successes, n = self.sample(figure)
        return successes / n if n else None


def verdict(figure: str, before: Counts, after: Counts) -> Verdict:
    """The verdict on one figure from its rise interval (after minus before)."""
    was, now = before.rate(figure), after.rate(figure)
    if was is None or now is None:
        return Verdict(figure=figure, before=was, after=now, rise=None, interval=None, verdict=UNDERPOWERED)
    lower, upper = intervals.rise_interval(after.sample(figure), before.sample(figure))
    if min(before.segments, after.segments) < MIN_SEGMENTS:
        said = UNDERPOWERED
    elif upper < 0:
        said = IMPROVED
    elif lower > 0:
        said = WORSENED
    else:
        said = NO_EVIDENCE
    return Verdict(figure=figure, before=was, after=now, rise=now - was, interval=[lower, upper], verdict=said)


def verdicts(before: Sequence[SegmentSummary], after: Sequence[SegmentSummary]) -> list[Verdict]:
    was, now = Counts.of(before), Counts.of(after)
    return [verdict(figure, was, now) for figure in FIGURES]


def model_of(segment: SegmentSummary) -> str:
    return segment.model or UNKNOWN_MODEL


def side(segments: Sequence[SegmentSummary], start: float, end: float) -> Side:
    counts = Counts.of(segments)
    models = Counter(model_of(s) for s in segments)
    return Side(
        start=iso(start) or "",
        end=iso(end) or "",
        segments=counts.segments,
        gap_segments=counts.gapped,
        half_weight_segments=counts.halves,
        gap_rate=counts.rate("gap_rate"),
        weighted_gap_rate=counts.rate("weighted_gap_rate"),
        by_model={model: models[model] for model in sorted(models)},
    )


def model_mix(before: Sequence[SegmentSummary], after: Sequence[SegmentSummary]) -> ModelMix:
    """Whether the model changed between the sides, and if so the comparison again over the models
    present on both (a model upgrade must not pass for a knowledge improvement)."""
    was, now = Counter(map(model_of, before)), Counter(map(model_of, after))
    both = was + now
    if not both:
        return ModelMix(dominant=None, share_before=None, share_after=None, changed=False, common=[])
    dominant = min(both, key=lambda m: (-both[m], m))
    share_before = was[dominant] / len(before) if before else None
    share_after = now[dominant] / len(after) if after else None
    changed = bool(before and after) and 100 * abs(now[dominant] * len(before) - was[dominant] * len(after)) > (
        MODEL_SHARE_MOVE * len(before) * len(after)
    )
    common = sorted(set(was) & set(now))
    if not changed:
        return ModelMix(
            dominant=dominant, share_before=share_before, share_after=share_after, changed=False, common=common
        )
    kept_before = [s for s in before if model_of(s) in common]
    kept_after = [s for s in after if model_of(s) in common]
    return ModelMix(
        dominant=dominant,
        share_before=share_before,
        share_after=share_after,
        changed=True,
        common=common,
        before_segments=len(kept_before),
        after_segments=len(kept_after),
        verdicts=verdicts(kept_before, kept_after),
    )


@dataclass(slots=True)
class _Seen:
    count: int = 0
    last: float | None = None
    position: int = 0
    """The side's segments (in start order) up to the one of its last occurrence."""

    def had(self, starts: Sequence[float]) -> int:
        """The segments the side had when the pattern last occurred: those started by then (a
        segment started before the one holding it, or in a parallel session while it ran, counts);
        at least those up to the one holding it."""
        if self.last is None:
            return self.position
        return max(self.position, bisect.bisect_right(starts, self.last))


def _patterns(segments: Sequence[SegmentSummary]) -> dict[str, _Seen]:
    """Failed-search patterns (spec §6) of segments in start order, with counts and last seen."""
    found: dict[str, _Seen] = {}
    for position, segment in enumerate(segments, 1):
        for signal in segment.signals:
            if signal.type != patterns.FAILED_SEARCH:
                continue
            seen = found.setdefault(str(signal.evidence.get("pattern", "")), _Seen())
            seen.count += 1
            when = signal.timestamp if signal.timestamp is not None else segment.first_ts
            if when is not None and (seen.last is None or when >= seen.last):
                seen.last = when
            seen.position = position
    return found


def pattern_fates(
    before: Sequence[SegmentSummary], after: Sequence[SegmentSummary]
) -> tuple[list[PatternFate], list[PatternSeen]]:
    """Each pattern seen before: ``recurring`` after, ``not seen since`` (only when the after side
    has at least as many segments as the before side had when it last occurred: those started by
    then), or ``too early to tell``; and the patterns new after the change. Most seen first."""
    was, now = _patterns(before), _patterns(after)
    starts = sorted(s.first_ts for s in before if s.first_ts is not None)
    fates = []
    for pattern, seen in sorted(was.items(), key=lambda item: (-item[1].count, item[0])):
        again = now.get(pattern)
        needed = seen.had(starts)
        if again is not None:
            status = RECURRING
        elif len(after) >= needed:
            status = NOT_SEEN_SINCE
        else:
            status = TOO_EARLY
        fates.append(
            PatternFate(
                pattern=pattern,
                before_count=seen.count,
                before_last_seen=iso(seen.last),
                status=status,
                after_count=again.count if again else 0,
                after_last_seen=iso(again.last) if again else None,
                needed=needed,
            )
        )
    new = [
        PatternSeen(pattern=pattern, count=seen.count, last_seen=iso(seen.last))
        for pattern, seen in sorted(now.items(), key=lambda item: (-item[1].count, item[0]))
        if pattern not in was
    ]
    return fates, new
