"""Knowledge changes and their effect as Markdown (``omkd impact``, the terminal and ``--markdown``;
``omkd scan --markdown``/``--step-summary`` for the changes inside the scanned span).

Each result: the change (when, commits, subjects, files), the before/after table with each
figure's rise and its exact interval and the verdict, the model mix (and the comparison repeated
over the models on both sides when it moved), the failed-search patterns closed, still open or
too early to tell, the new ones, and the sentence every result carries. Transcript and commit text
is escaped (``markdown.text``).
"""

from __future__ import annotations

from typing import Final

from omkd.cli.markdown import text
from omkd.engine.impact.schema import TOO_EARLY, ImpactReport, ImpactResult, PatternFate, Side, Verdict

PATTERNS_SHOWN: Final = 10
FIGURE_NAMES: Final = {"gap_rate": "gap rate", "weighted_gap_rate": "weighted gap rate"}


def _when(stamp: str) -> str:
    return stamp.replace("T", " ")[:16] + " UTC" if stamp else "?"


def _points(value: float) -> str:
    return f"{100 * value:+.1f}".replace("-", "−")


def _rise(verdict: Verdict) -> str:
    if verdict.rise is None or verdict.interval is None:
        return "—"
    lower, upper = verdict.interval
    return f"{_points(verdict.rise)} pts [{_points(lower)}, {_points(upper)}]"


def _rate(side: Side, figure: str) -> str:
    rate = side.gap_rate if figure == "gap_rate" else side.weighted_gap_rate
    if rate is None:
        return "0 segments"
    count = f"{side.gap_segments}/{side.segments}" if figure == "gap_rate" else f"of {side.segments}"
    return f"{100 * rate:.1f} % ({count})"


def table(result: ImpactResult, verdicts: list[Verdict] | None = None) -> list[str]:
    """The before/after table of a result (or of its repeated comparison's ``verdicts``)."""
    lines = ["| figure | before | after | rise, 95 % interval | verdict |", "|---|---|---|---|---|"]
    for verdict in verdicts if verdicts is not None else result.verdicts:
        if verdicts is None:
            before, after = _rate(result.before, verdict.figure), _rate(result.after, verdict.figure)
        else:
            before = f"{100 * verdict.before:.1f} %" if verdict.before is not None else "—"
            after = f"{100 * verdict.after:.1f} %" if verdict.after is not None else "—"
        name = FIGURE_NAMES.get(verdict.figure, verdict.figure)
        lines.append(f"| {name} | {before} | {after} | {_rise(verdict)} | **{verdict.verdict}** |")
    return lines


def change_title(result: ImpactResult) -> str:
    change = result.change
    what = ", ".join(f"`{c}`" for c in change.commits) or "uncommitted edit"
    subjects = "; ".join(text(s) for s in change.subjects)
    return f"{_when(change.at)} — {what} {subjects}".rstrip()


def _fate(fate: PatternFate) -> str:
    if fate.after_count:
        after = f"; {fate.after_count} after, last {_when(fate.after_last_seen or '')}"
    elif fate.status == TOO_EARLY:
        after = f"; needs {fate.needed} segment{'' if fate.needed == 1 else 's'} after"
    else:
        after = ""
    return f"- `{text(fate.pattern)}`: {fate.status} ({fate.before_count} before{after})"


def _inside(path: str, projects: list[str] | None) -> str:
    """A file named relative to the project it is in (the project is said beside it)."""
    for project in projects or ():
        if path.startswith(project.rstrip("/") + "/"):
            return path[len(project.rstrip("/")) + 1 :]
    return path


def result_section(result: ImpactResult, heading: str = "###") -> list[str]:
    label = text(result.skill) + ("" if result.agent == "claude_code" else f" ({text(result.agent)})")
    lines = [f"{heading} {label}: {change_title(result)}", ""]
    projects = result.change.projects
    where = "every project" if projects is None else ", ".join(text(p) for p in projects)
    lines.append(
        f"Files: {', '.join(text(_inside(f, projects)) for f in result.change.files)} (affects {where}). "
        f"Before: {_when(result.before.start)} to the change; after: to {_when(result.after.end)}."
    )
    lines += ["", *table(result), ""]
    mix = result.model_mix
    if mix.changed:
        common = ", ".join(text(m) for m in mix.common) or "none"
        lines.append(
            f"**Model changed**: {text(mix.dominant or '')} wrote {100 * (mix.share_before or 0):.0f} % of the "
            f"segments before and {100 * (mix.share_after or 0):.0f} % after. Over the models on both sides "
            f"({common}; {mix.before_segments} before, {mix.after_segments} after):"
        )
        lines += ["", *table(result, mix.verdicts), ""]
    lines += [_fate(fate) for fate in result.gaps[:PATTERNS_SHOWN]]
    for seen in result.new_patterns[:PATTERNS_SHOWN]:
        lines.append(f"- `{text(seen.pattern)}`: new after the change ({seen.count})")
    return [*lines, "", f"*{result.statement}*", ""]


def impact_markdown(report: ImpactReport, heading: str = "##") -> str:
    """The whole impact report; ``heading`` is its title's level."""
    mark = report.watermark
    lines = [f"{heading} Knowledge changes and their effect", ""]
    if not report.results:
        lines += ["No knowledge change with segments of an affected skill around it.", ""]
    for result in report.results:
        lines += result_section(result, heading + "#")
    if report.window_note:
        lines += [f"*{text(report.window_note)}*", ""]
    roots = f"roots {', '.join(text(root) for root in mark.roots)}; " if mark.roots else ""
    lines.append(
        f"<sub>{roots}{mark.segments} segments, {mark.sessions} sessions, {_when(mark.window_from or '')} to "
        f"{_when(mark.window_to or '')}, fingerprint {mark.fingerprint}, span {report.span_seconds / 86400:g} days. "
        f"{mark.statement}</sub>"
    )
    return "\n".join(lines) + "\n"
