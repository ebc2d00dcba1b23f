"""Agreement of a judge with hand labels: precision, recall, F1 and Krippendorff's alpha, each
with a percentile bootstrap interval (``omkd calibrate``).

Two binary labellings of the same sentences reduce to four cell counts (true and false
positives, false negatives, true negatives), so a bootstrap resample of the sentences is one
multinomial draw of four counts, seeded from the counts themselves: the same labels give the
same intervals in every run.

Krippendorff's alpha (nominal, two coders, no missing values) is ``1 - D_o / D_e``. Over N
sentences the coincidence matrix holds n = 2N values, n_1 of them positive and n_0 negative;
each of the d disagreements adds one to both off-diagonal cells, so D_o = 2d / n and
D_e = 2 n_0 n_1 / (n (n - 1)), and alpha = 1 - (n - 1) d / (n_0 n_1). It is undefined when
every value is the same (n_0 n_1 = 0).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from omkd.engine.intervals import DEFAULT_CONFIDENCE, check_confidence

RESAMPLES: Final = 2000
_SEED_DOMAIN: Final = "omkd.agreement.bootstrap.v1"


def derived_seed(*parts: object) -> int:
    """A seed that depends only on the inputs (their reprs), the same in every run and process."""
    text = ":".join([_SEED_DOMAIN, *(repr(part) for part in parts)])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


@dataclass(frozen=True, slots=True)
class Cells:
    """How a judge's labels meet the gold labels."""

    tp: int
    fp: int
    fn: int
    tn: int

    @classmethod
    def of(cls, pairs: list[tuple[bool, bool]]) -> Cells:
        """From (gold, judge) pairs."""
        tp = sum(1 for g, j in pairs if g and j)
        fp = sum(1 for g, j in pairs if not g and j)
        fn = sum(1 for g, j in pairs if g and not j)
        return cls(tp, fp, fn, len(pairs) - tp - fp - fn)

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn


def _ratio(top: npt.NDArray[np.float64], bottom: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out = np.full(top.shape, np.nan)
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def _measures(tp: npt.NDArray[np.float64], fp: npt.NDArray[np.float64], fn: npt.NDArray[np.float64],
              tn: npt.NDArray[np.float64]) -> dict[str, npt.NDArray[np.float64]]:  # fmt: skip
    n = tp + fp + fn + tn
    ones = (tp + fp) + (tp + fn)
    zeros = 2 * n - ones
    return {
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        "accuracy": _ratio(tp + tn, n),
        "alpha": 1.0 - _ratio((2 * n - 1) * (fp + fn), zeros * ones),
    }


@dataclass(frozen=True, slots=True)
class Measure:
    value: float | None
    """None when undefined (no positives said, none labelled, a single value everywhere)."""
    lower: float | None
    upper: float | None


def measures(cells: Cells, confidence: float = DEFAULT_CONFIDENCE, resamples: int = RESAMPLES) -> dict[str, Measure]:
    """Precision, recall, F1, accuracy and alpha, each with its bootstrap interval."""
    check_confidence(confidence)
    counts = np.array([cells.tp, cells.fp, cells.fn, cells.tn], dtype=np.float64)
    point = _measures(*(counts[i : i + 1] for i in range(4)))
    if cells.n == 0:
        return {name: Measure(None, None, None) for name in point}
    rng = np.random.Generator(np.random.PCG64(derived_seed("agreement", cells.tp, cells.fp, cells.fn, cells.tn,
                                                            resamples, confidence)))  # fmt: skip
    draws = rng.multinomial(cells.n, counts / cells.n, size=resamples).astype(np.float64)
    spread = _measures(draws[:, 0], draws[:, 1], draws[:, 2], draws[:, 3])
    tail = (1.0 - confidence) / 2.0
    found: dict[str, Measure] = {}
    for name, values in point.items():
        value = float(values[0])
        if np.isnan(value):
            found[name] = Measure(None, None, None)
            continue
        defined = spread[name][~np.isnan(spread[name])]
        low, high = np.quantile(defined, [tail, 1.0 - tail]) if len(defined) else (value, value)
        found[name] = Measure(value, float(low), float(high))
    return found


def krippendorff_alpha(cells: Cells) -> float | None:
    """Nominal alpha of two coders over the same units (the formula in the module docstring)."""
    counts = np.array([cells.tp, cells.fp, cells.fn, cells.tn], dtype=np.float64)
    alpha = float(_measures(*(counts[i : i + 1] for i in range(4)))["alpha"][0])
    return None if np.isnan(alpha) else alpha
