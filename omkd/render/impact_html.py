"""The effect of a knowledge change in the HTML report's skill section (spec §9): beside the
chart's marker, the change's before/after table — each figure's rate and counts per side, the rise
with its exact interval, the verdict in words — the model mix, the failed-search patterns closed
or still open, and the sentence every result carries. Pure: records in, HTML out, all escaped."""

from __future__ import annotations

from html import escape
from typing import Final

from omkd.engine.impact.schema import ImpactResult, PatternFate, Side, Verdict

FIGURE_NAMES: Final = {"gap_rate": "Gap rate", "weighted_gap_rate": "Weighted gap rate"}
PATTERNS_SHOWN: Final = 8


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def _points(value: float) -> str:
    return f"{100 * value:+.1f}".replace("-", "−")


def _side(side: Side, figure: str) -> str:
    rate = side.gap_rate if figure == "gap_rate" else side.weighted_gap_rate
    count = f"{side.gap_segments} of {side.segments}" if figure == "gap_rate" else f"{side.segments} segments"
    return f"{_pct(rate)}<span class='ci'>{count}</span>"


def _rise(verdict: Verdict) -> str:
    if verdict.rise is None or verdict.interval is None:
        return "—"
    lower, upper = verdict.interval
    return f"{_points(verdict.rise)} pts<span class='ci'>95 % [{_points(lower)}, {_points(upper)}]</span>"


def _when(stamp: str | None) -> str:
    return f"{stamp[:16].replace('T', ' ')} UTC" if stamp else "?"


def _after(fate: PatternFate) -> str:
    """A recurring pattern's count after the change and when it was last seen (spec §9.6)."""
    if not fate.after_count:
        return ""
    return f", {fate.after_count} after, last seen {escape(_when(fate.after_last_seen))}"


def _table(result: ImpactResult, verdicts: list[Verdict], repeated: bool) -> str:
    rows = []
    for verdict in verdicts:
        if repeated:
            before, after = _pct(verdict.before), _pct(verdict.after)
        else:
            before, after = _side(result.before, verdict.figure), _side(result.after, verdict.figure)
        rows.append(
            f"<tr><td>{FIGURE_NAMES.get(verdict.figure, escape(verdict.figure))}</td><td class='num'>{before}</td>"
            f"<td class='num'>{after}</td><td class='num'>{_rise(verdict)}</td>"
            f"<td><strong class='verdict'>{escape(verdict.verdict)}</strong></td></tr>"
        )
    head = "".join(f"<th scope='col'>{h}</th>" for h in ("Figure", "Before", "After", "Rise", "Verdict"))
    return f"<table class='impact'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def effect(result: ImpactResult, marker: int | None) -> str:
    """One change's effect on this skill, labelled with its chart marker's number when it has one."""
    label = f"<strong>[{marker}]</strong> " if marker is not None else ""
    change = result.change
    what = ", ".join(f"<code>{escape(c)}</code>" for c in change.commits) or "uncommitted edit"
    html = [
        f"<div class='effect'><h4>{label}{escape(change.at[:16].replace('T', ' '))} UTC — {what} "
        f"{escape('; '.join(change.subjects))}</h4>",
        f"<p class='note'>Before: {result.before.segments} segments from {escape(result.before.start[:10])}; "
        f"after: {result.after.segments} segments to {escape(result.after.end[:10])}.</p>",
        _table(result, result.verdicts, False),
    ]
    mix = result.model_mix
    if mix.changed:
        common = ", ".join(mix.common) or "none"
        html.append(
            f"<p><strong>Model changed</strong>: {escape(mix.dominant or '')} wrote {_pct(mix.share_before)} of the "
            f"segments before and {_pct(mix.share_after)} after. Over the models on both sides ({escape(common)}; "
            f"{mix.before_segments} before, {mix.after_segments} after):</p>"
        )
        html.append(_table(result, mix.verdicts, True))
    fates = [
        f"<li><code>{escape(f.pattern)}</code>: {escape(f.status)} ({f.before_count} before{_after(f)})</li>"
        for f in result.gaps[:PATTERNS_SHOWN]
    ]
    fates += [
        f"<li><code>{escape(p.pattern)}</code>: new after the change ({p.count})</li>"
        for p in result.new_patterns[:PATTERNS_SHOWN]
    ]
    if fates:
        html.append(f"<ul class='fates'>{''.join(fates)}</ul>")
    html.append(f"<p class='statement'><em>{escape(result.statement)}</em></p></div>")
    return "".join(html)
