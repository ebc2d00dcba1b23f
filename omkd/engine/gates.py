"""CI gates over a report: rate ceilings and regression against a baseline.

Rate gates apply to skills with at least ``low`` confidence: an underpowered skill's rate
is too uncertain to fail a build on. With ``confident`` a gate fails only when the
evidence says so: the rate's one-sided lower bound at level 1 - alpha/K must exceed the
limit, K being the number of skills gated (Bonferroni), so that K skills at the limit raise
a false alarm together at most alpha of the time. The gap rate uses the exact binomial
(Clopper-Pearson) bound, the weighted rate the bootstrap; the regression gate a bootstrap
interval of the rise since the baseline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from omkd.engine import stats
from omkd.engine.binomial import exact_lower_bound, rate_exceeds
from omkd.engine.report import Report, SkillHealth

BASELINE_SCHEMA: Final = 2
GATED_TIERS: Final = frozenset({"low", "high"})
DEFAULT_ALPHA: Final = 0.05


@dataclass(frozen=True, slots=True)
class BaselineSkill:
    gap_rate: float
    segments: int | None = None
    gap_segments: int | None = None


@dataclass(frozen=True, slots=True)
class GateFailure:
    skill: str
    gate: str
    value: float
    limit: float
    detail: str = ""

    def describe(self) -> str:
        text = f"{self.skill}: {self.gate} {self.value:.3f} exceeds {self.limit:.3f}"
        return f"{text} ({self.detail})" if self.detail else text


@dataclass(frozen=True, slots=True)
class Regression:
    """How a skill's gap rate moved since the baseline, with a bootstrap interval of the rise."""

    skill: str
    before: float
    after: float
    interval: tuple[float, float] | None
    level: float
    significant: bool | None
    """The interval lies wholly above 0; None when the baseline holds no counts."""

    @property
    def rise(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Gates:
    max_gap_rate: float | None = None
    max_weighted_gap_rate: float | None = None
    baseline: Mapping[str, BaselineSkill] | None = None
    gap_rate_regression: float | None = None
    confident: bool = False
    alpha: float = DEFAULT_ALPHA


def gated(skills: list[SkillHealth]) -> list[SkillHealth]:
    return [s for s in skills if s.confidence in GATED_TIERS]


def one_sided_level(gates: Gates, tests: int) -> float:
    """The level of each one-sided bound: 1 - alpha/K with --confident."""
    return stats.corrected_confidence(gates.alpha, max(tests, 1))


def regressions(skills: list[SkillHealth], gates: Gates) -> list[Regression]:
    """The rise of every gated skill that the baseline knows."""
    if gates.baseline is None:
        return []
    checked = gated(skills)
    level = one_sided_level(gates, len(checked)) if gates.confident else stats.DEFAULT_CONFIDENCE
    two_sided = 1.0 - 2.0 * (1.0 - level) if gates.confident else level
    found = []
    for skill in checked:
        before = gates.baseline.get(skill.skill)
        if before is None:
            continue
        interval: tuple[float, float] | None = None
        if before.segments and before.gap_segments is not None:
            interval = stats.bootstrap_difference_interval(
                (before.segments - before.gap_segments, 0, before.gap_segments),
                (skill.segments - skill.gap_segments, 0, skill.gap_segments),
                confidence=two_sided,
            )
        found.append(
            Regression(
                skill.skill,
                before.gap_rate,
                skill.gap_rate,
                interval,
                level,
                None if interval is None else stats.is_significant_rise(interval),
            )
        )
    return found


def check(skills: list[SkillHealth], gates: Gates) -> list[GateFailure]:
    """Every gate every gated skill fails, in skill order."""
    checked = gated(skills)
    tests = len(checked)
    level = one_sided_level(gates, tests)
    label = f"one-sided {stats.confidence_label(level)}, Bonferroni over {tests} skills"
    failures: list[GateFailure] = []
    for skill in checked:
        n, k = skill.segments, skill.gap_segments
        limit = gates.max_gap_rate
        if limit is not None:
            if not gates.confident and skill.gap_rate > limit:
                failures.append(GateFailure(skill.skill, "gap_rate", skill.gap_rate, limit))
            elif gates.confident and rate_exceeds(k, n, limit, 1.0 - level):
                bound = exact_lower_bound(k, n, level)
                failures.append(
                    GateFailure(skill.skill, "gap_rate", skill.gap_rate, limit, f"lower bound {bound:.3f}, {label}")
                )
        limit = gates.max_weighted_gap_rate
        if limit is not None:
            rate = skill.weighted_gap_rate
            if not gates.confident and rate > limit:
                failures.append(GateFailure(skill.skill, "weighted_gap_rate", rate, limit))
            elif gates.confident:
                zero, half, one = _weight_counts(skill)
                lower, _ = stats.bootstrap_weighted_interval(zero, half, one, confidence=1.0 - 2.0 * (1.0 - level))
                if lower > limit:
                    failures.append(
                        GateFailure(skill.skill, "weighted_gap_rate", rate, limit, f"lower bound {lower:.3f}, {label}")
                    )
    if gates.gap_rate_regression is not None:
        for moved in regressions(skills, gates):
            if gates.confident:
                if moved.interval is not None and moved.interval[0] > gates.gap_rate_regression:
                    failures.append(
                        GateFailure(
                            moved.skill,
                            "gap_rate_rise",
                            moved.rise,
                            gates.gap_rate_regression,
                            f"lower bound {moved.interval[0]:.3f}, {label}",
                        )
                    )
            elif moved.rise > gates.gap_rate_regression:
                detail = ""
                if moved.significant is not None:
                    detail = "significant" if moved.significant else "not significant at 95 %"
                failures.append(
                    GateFailure(moved.skill, "gap_rate_rise", moved.rise, gates.gap_rate_regression, detail)
                )
    return failures


def _weight_counts(skill: SkillHealth) -> tuple[int, int, int]:
    """Segments of weight 0, 0.5 and 1."""
    half = skill.half_weight_segments
    return (skill.segments - skill.gap_segments, half, skill.gap_segments - half)


def baseline_of(report: Report) -> dict[str, Any]:
    """What ``--save-baseline`` writes: per-skill rates and counts, with the watermark."""
    return {
        "schema_version": BASELINE_SCHEMA,
        "watermark": report.watermark.model_dump(),
        "skills": {
            s.skill: {
                "gap_rate": s.gap_rate,
                "weighted_gap_rate": s.weighted_gap_rate,
                "segments": s.segments,
                "gap_segments": s.gap_segments,
            }
            for s in report.skills
        },
    }


class BaselineError(ValueError):
    """The baseline file does not hold per-skill gap rates."""


def baseline_rates(document: object) -> dict[str, BaselineSkill]:
    """Per-skill gap rates (and counts when saved) from a baseline or a ``scan --json`` report."""
    if not isinstance(document, dict):
        raise BaselineError("expected a JSON object")
    skills = document.get("skills")
    if isinstance(skills, dict):
        items = list(skills.items())
    elif isinstance(skills, list):
        items = [(entry.get("skill"), entry) for entry in skills if isinstance(entry, dict)]
    else:
        raise BaselineError("no 'skills' in it")
    rates: dict[str, BaselineSkill] = {}
    for name, entry in items:
        rate = entry.get("gap_rate") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not isinstance(rate, int | float):
            raise BaselineError(f"skill entry {name!r} has no numeric gap_rate")
        segments, gaps = entry.get("segments"), entry.get("gap_segments")
        counted = isinstance(segments, int) and isinstance(gaps, int) and 0 <= gaps <= segments
        rates[name] = BaselineSkill(float(rate), segments if counted else None, gaps if counted else None)
    return rates
