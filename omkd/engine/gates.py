"""CI gates over a report (spec §7): rate ceilings and regression against a baseline.

Rate gates apply to skills with at least ``low`` confidence: an underpowered skill's rate
is too uncertain to fail a build on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from omkd.engine.report import Report, SkillHealth

BASELINE_SCHEMA: Final = 1
GATED_TIERS: Final = frozenset({"low", "high"})


@dataclass(frozen=True, slots=True)
class GateFailure:
    skill: str
    gate: str
    value: float
    limit: float

    def describe(self) -> str:
        return f"{self.skill}: {self.gate} {self.value:.3f} exceeds {self.limit:.3f}"


@dataclass(frozen=True, slots=True)
class Gates:
    max_gap_rate: float | None = None
    max_weighted_gap_rate: float | None = None
    baseline: Mapping[str, float] | None = None
    gap_rate_regression: float | None = None


def check(skills: list[SkillHealth], gates: Gates) -> list[GateFailure]:
    """Every gate every gated skill fails, in skill order."""
    failures: list[GateFailure] = []
    for skill in skills:
        if skill.confidence not in GATED_TIERS:
            continue
        if gates.max_gap_rate is not None and skill.gap_rate > gates.max_gap_rate:
            failures.append(GateFailure(skill.skill, "gap_rate", skill.gap_rate, gates.max_gap_rate))
        if gates.max_weighted_gap_rate is not None and skill.weighted_gap_rate > gates.max_weighted_gap_rate:
            failures.append(
                GateFailure(skill.skill, "weighted_gap_rate", skill.weighted_gap_rate, gates.max_weighted_gap_rate)
            )
        if gates.baseline is not None and gates.gap_rate_regression is not None:
            before = gates.baseline.get(skill.skill)
            if before is not None and skill.gap_rate - before > gates.gap_rate_regression:
                failures.append(
                    GateFailure(skill.skill, "gap_rate_rise", skill.gap_rate - before, gates.gap_rate_regression)
                )
    return failures


def baseline_of(report: Report) -> dict[str, Any]:
    """What ``--save-baseline`` writes: per-skill rates with the watermark they came from."""
    return {
        "schema_version": BASELINE_SCHEMA,
        "watermark": report.watermark.model_dump(),
        "skills": {
            s.skill: {"gap_rate": s.gap_rate, "weighted_gap_rate": s.weighted_gap_rate, "segments": s.segments}
            for s in report.skills
        },
    }


class BaselineError(ValueError):
    """The baseline file does not hold per-skill gap rates."""


def baseline_rates(document: object) -> dict[str, float]:
    """Per-skill gap rates from a saved baseline or from a ``scan --json`` report."""
    if not isinstance(document, dict):
        raise BaselineError("expected a JSON object")
    skills = document.get("skills")
    rates: dict[str, float] = {}
    if isinstance(skills, dict):
        items = [(name, entry) for name, entry in skills.items()]
    elif isinstance(skills, list):
        items = [(entry.get("skill"), entry) for entry in skills if isinstance(entry, dict)]
    else:
        raise BaselineError("no 'skills' in it")
    for name, entry in items:
        rate = entry.get("gap_rate") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not isinstance(rate, int | float):
            raise BaselineError(f"skill entry {name!r} has no numeric gap_rate")
        rates[name] = float(rate)
    return rates
