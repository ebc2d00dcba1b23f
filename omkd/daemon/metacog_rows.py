"""The metric rows of spec §8.7 that are not one catalogue figure each: the three ratios with their
95 % Wilson bounds, per skill and overall, and the overall twins of the §8 window gauges.

A ratio has no sample where its denominator is 0 (a 0.0 would read as healthy); there is no
``proceeded`` ratio (M3's candidates are unjudged). The ratios and bounds are the report's own
(``report.metacog.metacog_report``), so ``/metrics`` and ``omkd scan`` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from omkd.daemon.samples import MetricSpec, Sample, Snapshot, WindowRow, per_window
from omkd.engine import figures
from omkd.engine.catalogue import Figure
from omkd.engine.metacog import measures
from omkd.engine.report.metacog import metacog_report
from omkd.engine.report.schema import MetacogReport

SKILL: Final = ("skill", "agent")
RATIOS: Final = (
    ("omkd_window_self_recovery_ratio", "self_recovery_ratio",
     "M1: lookup-gap segments whose every eligible miss the agent found itself / lookup-gap segments"),
    ("omkd_window_asked_at_gap_ratio", "asked_at_gap_ratio",
     "M2: open-gap segments where the agent asked the person / open-gap segments"),
    ("omkd_window_unchecked_write_ratio", "unchecked_write_ratio",
     "M4: writing segments with a write made at a load of unresolved gaps / writing segments"),
)  # fmt: skip
"""(metric, ``MetacogReport`` field, help) of each window ratio."""
BOUNDS: Final = (("", None), ("_lower", 0), ("_upper", 1))
"""The ratio, then its Wilson bounds (``MetacogReport.intervals``)."""
OVERALL_OF: Final = frozenset(
    {measures.LOOKUP_GAP, *measures.OUTCOME_TALLIES.values(), measures.OPEN_GAP, measures.ASKED_AT_GAP}
    | {measures.WRITING, measures.UNCHECKED}
)
"""The §8 window gauges that also have an ``omkd_window_overall_`` twin."""


def metacog_of(row: WindowRow) -> MetacogReport:
    """The row's metacognition figures (kept on the row by the exporter; made here otherwise)."""
    return row.metacog if row.metacog is not None else metacog_report(row.totals)


def _value(field: str, bound: int | None) -> Callable[[WindowRow], float | None]:
    def read(row: WindowRow) -> float | None:
        report = metacog_of(row)
        if bound is None:
            ratio: float | None = getattr(report, field)
            return ratio
        interval: list[float] | None = getattr(report.intervals, field)
        return interval[bound] if interval is not None else None

    return read


def _overall(value: Callable[[WindowRow], float | None]) -> Callable[[Snapshot], Iterable[Sample]]:
    def read(s: Snapshot) -> Iterable[Sample]:
        found = value(s.overall) if s.overall is not None else None
        return [((), found)] if found is not None else []

    return read


def _overall_family(members: list[tuple[str, tuple[str, ...]]]) -> Callable[[Snapshot], Iterable[Sample]]:
    return lambda s: [
        (values, float(getattr(s.overall.totals, name)) if s.overall else 0.0) for name, values in members
    ]


def _overall_gauges() -> list[MetricSpec]:
    families: dict[str, list[tuple[str, Figure]]] = {}
    for name, spec in figures.GAUGED:
        if name in OVERALL_OF and spec.gauge is not None:
            families.setdefault(spec.gauge[0], []).append((name, spec))
    rows = []
    for metric, members in families.items():
        first = members[0][1]
        help_text = (first.gauge[1] if first.gauge else "").replace(", per skill.", ".").rstrip(".") + ", all skills."
        values = [(name, tuple(value for _, value in spec.labels)) for name, spec in members]
        overall_name = metric.replace("omkd_window_", "omkd_window_overall_", 1)
        rows.append(
            MetricSpec(overall_name, "gauge", help_text, tuple(k for k, _ in first.labels), _overall_family(values))
        )
    return rows


def _ratios() -> list[MetricSpec]:
    rows = []
    for metric, field, help_text in RATIOS:
        for suffix, bound in BOUNDS:
            said = help_text if bound is None else f"{'Lower' if bound == 0 else 'Upper'} 95 % Wilson bound of {metric}"
            absent = " (absent when the denominator is 0)."
            rows.append(MetricSpec(metric + suffix, "gauge", said + absent, SKILL, per_window(_value(field, bound))))
            overall_name = metric.replace("omkd_window_", "omkd_window_overall_", 1) + suffix
            rows.append(
                MetricSpec(overall_name, "gauge", said + ", all skills" + absent, (), _overall(_value(field, bound)))
            )
    return rows


ROWS: Final = [*_ratios(), *_overall_gauges()]
"""Added to ``metrics.TABLE`` after the window gauges."""
