"""How the terminal writes each kind of value of the skill tables (``render/columns.py``): one
formatter per kind, read by ``omkd scan``/``omkd status``'s tables (``render.py``, ``at_gap.py``)."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from omkd.cli import fit
from omkd.engine import gates
from omkd.engine.certainty import Interval
from omkd.engine.report.schema import CoverageReport, SkillHealth
from omkd.render import columns, metacog
from omkd.render.columns import Band, Column

BAND_STYLES = {"red": "bold red", "yellow": "yellow", "green": "green"}


def percent(value: float | None) -> str:
    return "—" if value is None else gates.percent(value)


def band(value: Band) -> Text:
    """The band's label (``Band.label``): a hard colour only when its interval backs it, dim when
    underpowered or without a segment."""
    style = BAND_STYLES.get(value.health, "dim")
    if value.indicative or value.health not in BAND_STYLES:
        style = "dim"
    elif not value.confident:
        style = style.replace("bold ", "")
    return Text(value.label, style=style)


def with_interval(value: float | None, interval: Interval) -> Text:
    if value is None:
        return Text("—")
    return Text(f"{100 * value:.1f} % [{100 * interval.lower:.1f}–{100 * interval.upper:.1f}]")


def tier(value: str, short: bool = False) -> Text:
    return Text(fit.label(value, short), style="dim" if value == "underpowered" else "")


def coverage(cov: CoverageReport) -> str:
    if cov.files == 0:
        return "—"
    return f"{percent(cov.ratio)} ({cov.accessed}/{cov.files})"


def cell(column: Column, skill: SkillHealth, overall: bool, intervals: bool, short: bool = False) -> str | Text:
    """One cell of the skill table: the column's value as the terminal shows its kind (``short``: an
    agent's and a tier's short label, ``fit.SHORT_VALUES``)."""
    value: Any = column.read(skill)
    kind = column.kind
    if kind == columns.NAME:
        return Text("overall", style="bold") if overall else Text(value)
    if kind == columns.AGENT:
        return Text(fit.label(value or "", short))
    if kind == columns.RATE:
        return with_interval(value.value, value.interval) if intervals else Text(percent(value.value))
    if kind == columns.TIER:
        return tier(value, short)
    if kind == columns.BAND:
        return band(value)
    if kind == columns.COVERAGE:
        return coverage(value)
    if kind == columns.OUTCOMES:
        return Text(metacog.described(value, intervals))
    return str(value)
