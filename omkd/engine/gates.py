"""CI gates over a report: rate ceilings and regression against a baseline.

Rate gates apply to skills with at least ``low`` confidence: an underpowered skill's rate
is too uncertain to fail a build on. With ``confident`` a gate fails only when the
evidence says so: the one-sided lower bound at level 1 - alpha/K must exceed the limit, K
being the number of skills gated (Bonferroni), so that K skills at the limit raise a false
alarm together at most alpha of the time. Both rates use the exact (Clopper-Pearson) bound
(the weighted rate with the weight sum for successes), the regression gate the lower bound of
the rise (``intervals.rise_lower_bound``), which counts both samples' uncertainty. Measured in
``bench/stats_coverage.py``. Messages give rates in percent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from omkd.engine import intervals, stats
from omkd.engine.binomial import exact_lower_bound, rate_exceeds
from omkd.engine.records import to_data
from omkd.engine.report.schema import Report, SkillHealth
from omkd.engine.skills import row_key

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
        """``alpha: gap_rate 40.0 % exceeds 30.0 % (…)``: the gate by its name, rates in percent."""
        shown = points if self.gate == "gap_rate_rise" else percent
        text = f"{self.skill}: {self.gate} {shown(self.value)} exceeds {shown(self.limit)}"
        return f"{text} ({self.detail})" if self.detail else text


def percent(value: float) -> str:
    return f"{100 * value:.1f} %"


def points(value: float) -> str:
    """A difference of two rates, in percentage points."""
    return f"{100 * value:+.1f} points"


@dataclass(frozen=True, slots=True)
class Regression:
    """How a skill's gap rate moved since the baseline, with the interval of the rise."""

    skill: str
    before: float
    after: float
    interval: tuple[float, float] | None
    level: float
    """The interval's level: two-sided, or the one-sided level of a confident gate."""
    significant: bool | None
    """The interval's lower bound is above 0; None when the baseline holds no counts."""

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
    """The rise of every gated skill that the baseline knows, with its interval: two-sided at
    95 %, or with ``confident`` the one-sided bound at 1 - alpha/K (the upper end is then 1)."""
    if gates.baseline is None:
        return []
    checked = gated(skills)
    level = one_sided_level(gates, len(checked)) if gates.confident else intervals.DEFAULT_CONFIDENCE
    found = []
    for skill in checked:
        before = gates.baseline.get(skill.row)
        if before is None:
            continue
        interval: tuple[float, float] | None = None
        if before.segments and before.gap_segments is not None and skill.segments:
            now, then = (skill.gap_segments, skill.segments), (before.gap_segments, before.segments)
            if gates.confident:
                interval = (intervals.rise_lower_bound(now, then, level), 1.0)
            else:
                interval = intervals.rise_interval(now, then, level)
        found.append(
            Regression(
                skill.label,
                before.gap_rate,
                skill.gap_rate,
                interval,
                level,
                None if interval is None else interval[0] > 0.0,
            )
        )
    return found


def check(skills: list[SkillHealth], gates: Gates) -> list[GateFailure]:
    """Every gate every gated skill fails, in skill order."""
    checked = gated(skills)
    tests = len(checked)
    level = one_sided_level(gates, tests)
    label = f"one-sided {stats.confidence_label(level)}, Bonferroni over {tests} skill{'' if tests == 1 else 's'}"
    failures: list[GateFailure] = []
    for skill in checked:
        n, k = skill.segments, skill.gap_segments
        limit = gates.max_gap_rate
        if limit is not None:
            if not gates.confident and skill.gap_rate > limit:
                failures.append(GateFailure(skill.label, "gap_rate", skill.gap_rate, limit))
            elif gates.confident and rate_exceeds(k, n, limit, 1.0 - level):
                detail = f"lower bound {percent(exact_lower_bound(k, n, level))}, {label}"
                failures.append(GateFailure(skill.label, "gap_rate", skill.gap_rate, limit, detail))
        limit = gates.max_weighted_gap_rate
        if limit is not None:
            rate = skill.weighted_gap_rate
            if not gates.confident and rate > limit:
                failures.append(GateFailure(skill.label, "weighted_gap_rate", rate, limit))
            elif gates.confident and rate_exceeds(_weight_sum(skill), n, limit, 1.0 - level):
                lower = exact_lower_bound(_weight_sum(skill), n, level)
                failures.append(
                    GateFailure(skill.label, "weighted_gap_rate", rate, limit, f"lower bound {percent(lower)}, {label}")
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
                            f"lower bound {points(moved.interval[0])}, {label}",
                        )
                    )
            elif moved.rise > gates.gap_rate_regression:
                detail = ""
                if moved.significant is not None:
                    detail = "significant at 95 %" if moved.significant else "not significant at 95 %"
                failures.append(
                    GateFailure(moved.skill, "gap_rate_rise", moved.rise, gates.gap_rate_regression, detail)
                )
    return failures


def _weight_sum(skill: SkillHealth) -> float:
    """The sum of the skill's segment weights (full-weight gap segments, and halves)."""
    return skill.gap_segments - skill.half_weight_segments / 2


def baseline_of(report: Report) -> dict[str, Any]:
    """What ``--save-baseline`` writes: per-skill rates and counts, with the watermark and the
    rules they were computed by."""
    return {
        "schema_version": BASELINE_SCHEMA,
        "watermark": to_data(report.watermark),
        "reproducibility": to_data(report.reproducibility),
        "skills": {
            s.row: {
                "gap_rate": s.gap_rate,
                "weighted_gap_rate": s.weighted_gap_rate,
                "segments": s.segments,
                "gap_segments": s.gap_segments,
            }
            for s in report.skills
        },
    }


@dataclass(frozen=True, slots=True)
class Baseline:
    """A saved baseline: per-skill rates (with counts when saved) and the rules it was computed by."""

    skills: dict[str, BaselineSkill]
    rules_hash: str | None
    """None for a baseline saved before reports carried their rules hash."""

    def comparable_with(self, report: Report) -> bool | None:
        """Whether the report was computed by the same rules; None when either does not say."""
        now = report.reproducibility.rules_hash if report.reproducibility is not None else None
        return None if now is None or self.rules_hash is None else now == self.rules_hash


def load(document: object) -> Baseline:
    """A baseline from a ``--save-baseline`` file or a ``scan --json`` report."""
    audit = document.get("reproducibility") if isinstance(document, dict) else None
    rules = audit.get("rules_hash") if isinstance(audit, dict) else None
    return Baseline(baseline_rates(document), rules if isinstance(rules, str) else None)


class BaselineError(ValueError):
    """The baseline file does not hold per-skill gap rates."""


def baseline_rates(document: object) -> dict[str, BaselineSkill]:
    """Per-skill gap rates (and counts when saved) from a baseline or a ``scan --json`` report."""
    if not isinstance(document, dict):
        raise BaselineError("expected a JSON object")
    skills = document.get("skills")
    if isinstance(skills, dict):
        items = list(skills.items())
    elif isinstance(skills, list):  # a report's rows: keyed as a saved baseline is, by skill and agent
        items = [(_row_of(entry), entry) for entry in skills if isinstance(entry, dict)]
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


def _row_of(entry: dict[str, Any]) -> object:
    """The row key of a report's skill entry (``skills.row_key``): Codex's ``general`` is not
    Claude Code's; an entry without an agent (a report of an older omkd) is Claude Code's."""
    skill, agent = entry.get("skill"), entry.get("agent")
    if isinstance(skill, str) and isinstance(agent, str):
        return row_key(skill, agent)
    return skill
