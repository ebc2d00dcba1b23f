"""The figure catalogue: every additive per-skill figure declared once, and what is derived from it.

``SkillTotals`` is the catalogue. Each of its fields made with ``figure(...)`` is one additive
figure: its metadata says how one segment adds to it (``of``), and where it is shown — an all-time
Prometheus counter (``counter``: name and help, counted as monotone growth by the live fold), a
window gauge per skill (``gauge``), a top-level field of ``SkillHealth`` of the same name
(``report``); ``settled``: its counter counts a segment once it is settled (``engine/settle.py``).
Everything per figure is derived from these fields: ``SkillTotals.add``, the all-time
``SkillCounters`` record (its fields are the counter figures), the live fold's growth counting
(``grow``, ``reaches``), the exporter's per-skill rows and the report's fields. A new figure is one
field here, one count where it happens (``Segment.tallies[name] += 1`` for a figure the segment
does not already hold, read with ``tally(name)``) and, when reported, one ``SkillHealth`` field with a
default (``docs/extending.md``).

The report (``omkd scan``, ``/api/v1/status``) and the daemon's window gauges show the same rates,
tier, band and intervals for a skill; they all come from ``derive`` so they cannot drift apart.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from omkd.engine import health, stats
from omkd.engine.catalogue import FIGURE, Figure, figure, tally
from omkd.engine.counters import GapCounts
from omkd.engine.intervals import rate_interval
from omkd.engine.plain import add_into

if TYPE_CHECKING:
    from omkd.engine.summary import SegmentSummary

UNKNOWN_MODEL: Final = "unknown"
"""The model key of a segment whose assistant records name no model."""


def _bump(counter: Counter[str], keys: Iterable[str], sign: int) -> None:
    for key in keys:
        total = counter[key] + sign
        if total:
            counter[key] = total
        else:
            del counter[key]


OUTCOME_SEGMENTS: Final = (
    (
        "omkd_gap_outcome_segments",
        "Lookup-gap segments by their worst outcome (a partition; proceeded: candidates), once settled.",
    ),
    ("omkd_window_gap_outcome_segments", "Lookup-gap segments in the window by their worst outcome, per skill."),
)
EPISODES: Final = ("omkd_gap_episodes", "Anchors (kept misses, hedge anchors) by kind and outcome, once settled.")


def _outcome(outcome: str) -> Any:
    """One outcome's count of the partition of lookup-gap segments (spec §8.6)."""
    counter, gauge = OUTCOME_SEGMENTS
    labels = (("outcome", outcome),)
    return figure(
        tally(f"outcome_{outcome}"), counter=counter, gauge=gauge, labels=labels, settled=True, partition=True
    )


def _episodes(anchor: str, outcome: str) -> Any:
    """Anchors of one kind (``failed_search``, ``hedging``) and outcome, counted per anchor."""
    labels = (("anchor", anchor), ("outcome", outcome))
    return figure(tally(f"episodes_{anchor}_{outcome}"), counter=EPISODES, labels=labels, settled=True, partition=True)


@dataclass(slots=True)
class SkillTotals(GapCounts):
    """Running sums over the counted segments of one skill (or of all, for overall): the catalogue.

    ``add`` keeps them with sign +1 or -1, so a live fold can replace a segment whose figures grew;
    every rate is derived from the sums when asked, so a ratio is always of totals, never an
    average of ratios.
    """

    tool_calls: int = figure(lambda s: s.tool_calls, counter=("omkd_tool_calls", "Tool calls per skill."))
    tool_answered: int = figure(lambda s: s.tool_answered)
    tool_failures: int = figure(
        lambda s: s.tool_failures,
        counter=("omkd_tool_failures", "Failed tool calls per skill (cancelled calls excluded)."),
        gauge=("omkd_window_tool_failures", "Failed tool calls in the window, per skill."),
    )
    tool_cancelled: int = figure(lambda s: s.tool_cancelled)
    input_tokens: int = figure(lambda s: s.tokens[0])
    output_tokens: int = figure(lambda s: s.tokens[1])
    cache_read_tokens: int = figure(lambda s: s.tokens[2])
    cache_creation_tokens: int = figure(lambda s: s.tokens[3])
    duration: float = figure(lambda s: s.duration, default=0.0)
    turns: int = figure(lambda s: s.turns)
    user_given_misses: int = figure(lambda s: len(s.user_given))
    verified_absent: int = figure(tally("verify_absence"), report=True)
    """Searches that found nothing right after the agent removed what they looked for: not gaps."""
    # --- metacognition (spec §8.6): yes/no per segment as the stream's end where it was read to would
    # decide (window gauges and reports at once; the all-time counters of the figures an outcome can
    # revise count a segment once it is settled: ``settled=True``, ``engine/settle.py``) ---
    lookup_gap_segments: int = figure(
        tally("lookup_gap_segments"),
        counter=(
            "omkd_lookup_gap_segments",
            "Segments with an eligible miss (M1/M3 denominator), per skill, once settled (closed or idle).",
        ),
        gauge=("omkd_window_lookup_gap_segments", "Segments with an eligible miss in the window, per skill."),
        settled=True,
    )
    outcome_recovered: int = _outcome("recovered")
    """Lookup-gap segments whose every eligible miss the agent found itself (M1's numerator)."""
    outcome_created: int = _outcome("created")
    outcome_asked: int = _outcome("asked")
    outcome_dropped: int = _outcome("dropped")
    outcome_proceeded: int = _outcome("proceeded")
    """The partition of lookup-gap segments by their worst outcome (the five sum to them)."""
    open_gap_segments: int = figure(
        tally("open_gap_segments"),
        counter=(
            "omkd_open_gap_segments",
            "Main-stream segments with a gap neither recovered nor created (M2 denominator), once settled.",
        ),
        gauge=("omkd_window_open_gap_segments", "Open-gap segments in the window, per skill."),
        settled=True,
    )
    asked_at_gap_segments: int = figure(
        tally("asked_at_gap_segments"),
        counter=("omkd_asked_at_gap_segments", "Open-gap segments where the agent asked (M2), once settled."),
        gauge=("omkd_window_asked_at_gap_segments", "Segments that asked at a gap in the window, per skill."),
        settled=True,
    )
    proceeded_candidates: int = figure(tally("proceeded_candidates"))
    """Lookup-gap segments with an eligible miss followed by a project write (M3 candidates, unjudged)."""
    writing_segments: int = figure(
        tally("writing_segments"),
        counter=("omkd_writing_segments", "Segments with at least one project write (M4 denominator), per skill."),
        gauge=("omkd_window_writing_segments", "Segments with a project write in the window, per skill."),
    )
    unchecked_write_segments: int = figure(
        tally("unchecked_write_segments"),
        counter=("omkd_unchecked_write_segments", "Segments with a write made at a load of unresolved gaps (M4)."),
        gauge=("omkd_window_unchecked_write_segments", "Segments with an unchecked write in the window, per skill."),
    )
    write_load_0: int = figure(tally("write_load_0"))
    write_load_0_5: int = figure(tally("write_load_0_5"))
    write_load_1: int = figure(tally("write_load_1"))
    write_load_1_5: int = figure(tally("write_load_1_5"))
    write_load_2_plus: int = figure(tally("write_load_2_plus"))
    """Writing segments by their maximum load (buckets 0, 0.5, 1, 1.5, 2+)."""
    unchecked_file_edit: int = figure(tally("unchecked_file_edit"))
    unchecked_shell_write: int = figure(tally("unchecked_shell_write"))
    unchecked_vcs: int = figure(tally("unchecked_vcs"))
    unchecked_dependency: int = figure(tally("unchecked_dependency"))
    unchecked_data: int = figure(tally("unchecked_data"))
    """Unchecked-write segments by the kinds of the writes that tripped M4 (a segment may have several)."""
    episodes_failed_search_recovered: int = _episodes("failed_search", "recovered")
    episodes_failed_search_created: int = _episodes("failed_search", "created")
    episodes_failed_search_asked: int = _episodes("failed_search", "asked")
    episodes_failed_search_dropped: int = _episodes("failed_search", "dropped")
    episodes_failed_search_proceeded: int = _episodes("failed_search", "proceeded")
    episodes_hedging_recovered: int = _episodes("hedging", "recovered")
    episodes_hedging_created: int = _episodes("hedging", "created")
    episodes_hedging_asked: int = _episodes("hedging", "asked")
    episodes_hedging_dropped: int = _episodes("hedging", "dropped")
    episodes_hedging_proceeded: int = _episodes("hedging", "proceeded")
    """Anchors by kind (a kept miss; a hedge anchor: a kept hedge or a marker) and outcome (spec §8.7)."""
    # --- keyed counts (not catalogue figures: sets and breakdowns) ---
    by_type: Counter[str] = field(default_factory=Counter)
    sessions: Counter[str] = field(default_factory=Counter)
    accessed: Counter[str] = field(default_factory=Counter)
    cwds: Counter[str] = field(default_factory=Counter)
    models: Counter[str] = field(default_factory=Counter)
    """Segments per model (``SegmentSummary.model``; ``UNKNOWN_MODEL`` where none was named)."""

    def add(self, segment: SegmentSummary, sign: int = 1) -> None:
        self.count(segment.weight, sign)
        for name, spec in CATALOGUE:
            setattr(self, name, getattr(self, name) + sign * spec.of(segment))
        _bump(self.by_type, (s.type for s in segment.signals), sign)
        _bump(self.sessions, (segment.session_id or "-",), sign)
        _bump(self.accessed, segment.accessed, sign)
        if segment.cwd:
            _bump(self.cwds, (segment.cwd,), sign)
        _bump(self.models, (segment.model or UNKNOWN_MODEL,), sign)

    def merge(self, other: SkillTotals) -> None:
        """Add another skill's totals (skills sharing a metric label)."""
        add_into(self, other)

    @property
    def tokens(self) -> tuple[int, int, int, int]:
        return (self.input_tokens, self.output_tokens, self.cache_read_tokens, self.cache_creation_tokens)

    @property
    def comparable_calls(self) -> int:
        """Answered calls that were not cancelled: the failure rate's denominator."""
        return self.tool_answered - self.tool_cancelled

    @property
    def tool_failure_rate(self) -> float | None:
        comparable = self.comparable_calls
        return self.tool_failures / comparable if comparable else None


CATALOGUE: Final[tuple[tuple[str, Figure], ...]] = tuple(
    (spec.name, spec.metadata[FIGURE]) for spec in dataclasses.fields(SkillTotals) if FIGURE in spec.metadata
)
"""(field name, figure) of every catalogue figure, in declaration order."""
COUNTED: Final = tuple((name, spec) for name, spec in CATALOGUE if spec.counter is not None)
"""The figures kept as all-time counters (the fields of ``SkillCounters`` after the gap counts)."""
GROWN: Final = tuple((name, spec) for name, spec in COUNTED if not spec.settled)
"""The counter figures counted as each segment's growth (``grow``); the others once it settles."""
GAUGED: Final = tuple((name, spec) for name, spec in CATALOGUE if spec.gauge is not None)
REPORTED: Final = tuple(name for name, spec in CATALOGUE if spec.report)


@dataclass(slots=True)
class AllTimeCounts:
    """Monotone totals of one skill since the state was created: they only ever rise. The gap
    counts are fixed; ``SkillCounters`` adds one field per counter figure of the catalogue."""

    segments: int = 0
    gap_segments: int = 0
    weight_halves: int = 0
    """Twice the sum of segment weights (a segment's weight only rises: 0, 0.5, 1)."""
    signals: Counter[str] = field(default_factory=Counter)

    @property
    def weighted_gap_sum(self) -> float:
        return self.weight_halves / 2

    if TYPE_CHECKING:  # the counter figures are fields of ``SkillCounters``, made from the catalogue

        def __getattr__(self, name: str) -> int: ...

    def figure(self, name: str) -> float:
        """A counter figure's value (a field of ``SkillCounters``)."""
        value: float = getattr(self, name)
        return value

    def grow(self, old: SegmentSummary | None, new: SegmentSummary) -> None:
        """Count what ``new`` holds beyond ``old`` (the same segment counted before), figure by figure."""
        for name, spec in GROWN:
            before = spec.of(old) if old is not None else 0
            setattr(self, name, getattr(self, name) + max(0, spec.of(new) - before))


def _skill_counters() -> type[AllTimeCounts]:
    made = dataclasses.make_dataclass(
        "SkillCounters", [(name, int, field(default=0)) for name, _ in COUNTED], bases=(AllTimeCounts,), slots=True
    )
    made.__module__ = __name__  # pickled by name: ``omkd.engine.figures.SkillCounters``
    made.__doc__ = "All-time counters of one skill: the gap counts and each counter figure of the catalogue."
    return made


SkillCounters: Final = _skill_counters()


def reaches(new: SegmentSummary, counted: SegmentSummary) -> bool:
    """``new`` holds at least every grown figure of ``counted`` (its growth is counted from it)."""
    return (
        all(spec.of(new) >= spec.of(counted) for _, spec in GROWN)
        and len(new.signals) >= len(counted.signals)
        and new.weight >= counted.weight
    )


LEVEL: Final = stats.DEFAULT_CONFIDENCE
NO_BAND: Final = "none"
"""The band of a row without a segment in the window: no rate, so no colour (never a green that
reads as healthy)."""


def band_label(band: str, underpowered: bool, confident: bool) -> str:
    """The band as every view writes it (terminal, Markdown, HTML, ``band_label`` in the JSON):
    ``red`` when its interval backs it, ``red~`` when the interval crosses a threshold, ``(red?)``
    for an underpowered row (under 5 segments), ``—`` without a segment (``NO_BAND``)."""
    if band == NO_BAND:
        return "—"
    if underpowered:
        return f"({band}?)"
    return band if confident else f"{band}~"


BAND_LEGEND: Final = (
    "band: red from 30 %, yellow from 10 % weighted gap rate; written plain when its 95 % interval backs it "
    "(red: lower bound ≥ 30 %; yellow: lower bound ≥ 10 %, surely not green though it may be red; "
    "green: upper bound < 10 %), band~ when the interval crosses a threshold, (band?) under 5 segments, "
    "— without a segment in the window"
)
"""What the band column says, one sentence for every view's legend."""


@dataclass(frozen=True, slots=True)
class WindowFigures:
    segments: int
    gap_segments: int
    gap_rate: float
    weighted_gap_rate: float
    soft_share: float
    """gap_rate - weighted_gap_rate: the part of the rate carried by weak signals (>= 0)."""
    tier: str
    band: str
    """``green``, ``yellow``, ``red``; ``NO_BAND`` without a segment."""
    gap_interval: tuple[float, float]
    """The gap rate's interval at ``LEVEL`` (``intervals.rate_interval``)."""
    weighted_interval: tuple[float, float]
    """The weighted gap rate's interval at ``LEVEL``, the weight sum standing in for successes."""
    confident: bool
    """The band is backed by the intervals (red: lower bound >= 0.30; green: upper < 0.10)."""

    @property
    def indicative(self) -> bool:
        """An underpowered skill's band is shown as indicative only, never as a hard colour."""
        return self.tier == "underpowered"

    @property
    def label(self) -> str:
        """The band as every view writes it (``band_label``)."""
        return band_label(self.band, self.indicative, self.confident)

    @property
    def soft_share_warning(self) -> bool:
        return self.segments > 0 and self.soft_share >= health.SOFT_SHARE_WARN_AT


def derive(counts: GapCounts) -> WindowFigures:
    n, k = counts.segments, counts.gap_segments
    weighted = counts.weighted_gap_rate
    gap_rate = counts.gap_rate
    gap_lower, gap_upper = rate_interval(k, n, LEVEL)
    weight_lower, weight_upper = rate_interval(counts.weight_sum, n, LEVEL)
    _, confident = stats.confident_band(weight_lower, weight_upper, weighted)
    return WindowFigures(
        segments=n,
        gap_segments=k,
        gap_rate=gap_rate,
        weighted_gap_rate=weighted,
        # Exact: (2k - halves)/(2n) - ... computed from integers, so never below 0.
        soft_share=(2 * k - counts.weight_halves) / (2 * n) if n else 0.0,
        tier=health.confidence_tier(n),
        band=health.health_band(weighted) if n else NO_BAND,
        gap_interval=(gap_lower, gap_upper),
        weighted_interval=(weight_lower, weight_upper),
        confident=confident and n > 0,
    )
