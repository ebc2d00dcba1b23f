"""How sure a gap rate is: multiple-comparison correction, saturation, trends, the nudge, and
bands that respect an interval.

A gap rate over a handful of segments is a guess; this module says how far it can be read:
the Bonferroni correction for gating many skills at once, the saturation test ("have we seen
enough segments?"), the coefficient of variation of a rate across days, the sample-evolution
nudge and bands that respect an interval. The intervals themselves are in ``intervals.py``
(one method for every rate, and one for a rise) and ``binomial.py`` (the exact bounds gates
use). Everything is pure: no I/O, no clock, no global random state.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from statistics import fmean
from typing import Final

from omkd.engine.health import RED_AT, YELLOW_AT, health_band
from omkd.engine.intervals import DEFAULT_CONFIDENCE, check_confidence, rate_interval, rate_intervals

__all__ = ["DEFAULT_CONFIDENCE", "rate_interval"]

SATURATION_THRESHOLD: Final = 0.05
SATURATION_STEPS: Final = 3
UNSTABLE_CV_ABOVE: Final = 0.15
NUDGE_CEILING: Final = 0.10
NUDGE_WINDOWS: Final = 3
"""Windows with data the nudge looks at: a window is a UTC day with segments (``daily_series``),
as the README says; the message keeps the spec's word for it."""
NUDGE_MESSAGE: Final = (
    "gap rate has stayed under 10 % for 3 windows: widen the tasks this skill is exercised on, "
    "or the low rate may only mean the tasks avoid its edges."
)

# --- many skills at once -----------------------------------------------------------------------


def bonferroni(alpha: float, tests: int) -> float:
    """The per-test level that keeps the family-wise false-alarm rate at or under ``alpha``."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    if tests < 1:
        raise ValueError(f"tests must be at least 1, got {tests}")
    return alpha / tests


def corrected_confidence(alpha: float, tests: int) -> float:
    """The confidence level each of ``tests`` intervals is computed at: 1 - alpha / tests."""
    return 1.0 - bonferroni(alpha, tests)


def confidence_label(confidence: float) -> str:
    """``0.975`` -> ``"97.5 %"``: a widened interval must never be labelled "95 %"."""
    check_confidence(confidence)
    return f"{confidence * 100:.6g} %"


# --- have we seen enough? ----------------------------------------------------------------------


def interval_widths(history: Sequence[tuple[int, int]], confidence: float = DEFAULT_CONFIDENCE) -> list[float]:
    """The gap rate's interval width (upper - lower) at each step of a cumulative (k, n) history.

    A step should be a window (a day's roll-up), not a segment: adding one segment at n
    shrinks the width by about 1/(2n), under 5 % from n = 10 whatever the data say.
    """
    return [upper - lower for lower, upper in rate_intervals(history, confidence)]


def is_saturated(
    widths: Sequence[float], threshold: float = SATURATION_THRESHOLD, steps: int = SATURATION_STEPS
) -> bool:
    """Saturated when each of the last ``steps`` steps changed the width by under ``threshold``.

    The change is relative to the previous width and counted in either direction: a width that
    grows by 5 % or more means the estimate is still moving, which is not saturation.
    """
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    if len(widths) < steps + 1:
        return False
    recent = widths[-(steps + 1) :]
    for previous, current in itertools.pairwise(recent):
        if previous <= 0.0:
            if current != previous:
                return False
            continue
        if abs(previous - current) / previous >= threshold:
            return False
    return True


# --- stability over time, and the nudge --------------------------------------------------------


def coefficient_of_variation(values: Sequence[float]) -> float | None:
    """Sample standard deviation (n - 1) over the mean; None with under 2 values or mean 0.

    The values are a few windows out of an ongoing series, so they are a sample: the
    population formula would understate the spread by sqrt((n - 1)/n) (0.71 at two windows,
    0.91 at five) and so under-report exactly the instability this figure is there to catch.
    """
    if len(values) < 2:
        return None
    mean = fmean(values)
    if mean == 0.0:
        return None
    # Two passes in floats: statistics.stdev's exact fractions cost 30x more for no visible digit.
    squares = math.fsum((value - mean) ** 2 for value in values)
    return math.sqrt(squares / (len(values) - 1)) / abs(mean)


def trend_unstable(cv: float | None, threshold: float = UNSTABLE_CV_ABOVE) -> bool:
    """The rate moves by more than ``threshold`` of its mean from window to window.

    An unmeasured CV (None) is not called unstable: there is nothing to say yet.
    """
    return cv is not None and cv > threshold


def nudge(
    daily_gap_rates: Sequence[float | None], ceiling: float = NUDGE_CEILING, windows: int = NUDGE_WINDOWS
) -> bool:
    """The last ``windows`` windows with data all had a gap rate at or under ``ceiling``.

    None marks a window without segments; it is skipped, neither breaking nor extending a run.
    Show ``NUDGE_MESSAGE`` when this is true; it is a hint, never a failure.
    """
    if windows < 1:
        raise ValueError(f"windows must be at least 1, got {windows}")
    observed = [rate for rate in daily_gap_rates if rate is not None]
    return len(observed) >= windows and all(rate <= ceiling for rate in observed[-windows:])


# --- bands that respect the interval -----------------------------------------------------------


def confident_band(lower: float, upper: float, weighted: float) -> tuple[str, bool]:
    """The health band of ``weighted`` and whether the interval (lower, upper) backs it.

    red is confident when the lower bound is at or above 0.30, yellow when it is at or above
    0.10 (surely not green; it may still be red), green when the upper bound is under 0.10.
    Anything else is indicative.
    """
    if lower > upper:
        raise ValueError(f"lower bound {lower} is above upper bound {upper}")
    band = health_band(weighted)
    if band == "red":
        return (band, lower >= RED_AT)
    if band == "yellow":
        return (band, lower >= YELLOW_AT)
    return (band, upper < YELLOW_AT)
