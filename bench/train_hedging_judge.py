"""Train the embedded hedging judge from the labelled sentences, bit for bit.

    .venv/bin/python bench/train_hedging_judge.py            # rewrite omkd/engine/data/hedging_judge.json
    .venv/bin/python bench/train_hedging_judge.py --check    # exit 1 if the committed file differs

A class-balanced, L2-regularised logistic regression over the features of
``omkd.engine.hedge_judge.features`` (only those seen in at least two training sentences), fitted
by accelerated gradient descent for a fixed number of steps. Only the ``train`` split is read;
the ``heldout`` split is for ``bench/hedging_quality.py``. The regularisation strength and the
decision threshold are chosen by five-fold cross-validation (folds by transcript) on the real
training sentences of text parts (what the default configuration reads), maximising F0.5: a
wrong hedge on a dashboard costs more than a missed one, and the embedded judge is the stricter
stage. Every sum runs in a fixed order (``np.bincount``) and the
weights are rounded to six decimals, so the file is the same on every machine.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from omkd.engine.gold import GoldSentence, read_gold  # noqa: E402
from omkd.engine.hedge_judge import MODEL_FILE, PRIORS, features  # noqa: E402

DATA = ROOT / "tests" / "data" / "hedging_sentences.jsonl"
MODEL = ROOT / "omkd" / "engine" / "data" / MODEL_FILE
VERSION = "v1"
FOLDS = 5
LAMBDAS = (0.1, 0.03, 0.01, 0.003)
STEPS = 1500
MIN_DF = 2
BETA = 0.5
DECIMALS = 6

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Design:
    """A binary design matrix in coordinate form: row ``rows[k]`` has feature ``cols[k]``."""

    rows: Ints
    cols: Ints
    n: int
    d: int

    def times(self, w: Floats) -> Floats:
        return np.bincount(self.rows, weights=w[self.cols], minlength=self.n).astype(np.float64)

    def transposed_times(self, r: Floats) -> Floats:
        return np.bincount(self.cols, weights=r[self.rows], minlength=self.d).astype(np.float64)


def vocabulary(feature_lists: list[list[str]]) -> list[str]:
    counts: dict[str, int] = {}
    for found in feature_lists:
        for f in set(found):
            counts[f] = counts.get(f, 0) + 1
    return sorted(f for f, c in counts.items() if c >= MIN_DF)


def prior_of(vocab: list[str]) -> Floats:
    return np.array([PRIORS.get(f, 0.0) for f in vocab])


def design(feature_lists: list[list[str]], index: dict[str, int]) -> Design:
    rows: list[int] = []
    cols: list[int] = []
    for i, found in enumerate(feature_lists):
        for j in sorted({index[f] for f in found if f in index}):
            rows.append(i)
            cols.append(j)
    return Design(np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), len(feature_lists), len(index))


def balanced_weights(y: Floats) -> Floats:
    """Each class weighs half of the total."""
    positives = float(y.sum())
    negatives = float(len(y)) - positives
    return np.where(y > 0, 0.5 / max(positives, 1.0), 0.5 / max(negatives, 1.0))


def smoothness(x: Design, s: Floats) -> float:
    """An upper bound of the loss's curvature: a quarter of the largest eigenvalue of X'SX (with
    the bias column), by a fixed number of power iterations, padded by a tenth."""
    v = np.ones(x.d + 1) / np.sqrt(x.d + 1)
    value = 1.0
    for _ in range(60):
        u = x.times(v[:-1]) + v[-1]
        u = u * s
        nxt = np.append(x.transposed_times(u), u.sum())
        value = float(np.sqrt(nxt @ nxt))
        v = nxt / value
    return 0.25 * value * 1.1


def fit(x: Design, y: Floats, s: Floats, lam: float, prior: Floats) -> tuple[float, Floats]:
    """Minimise sum_i s_i log(1 + exp(-y'_i z_i)) + lam/2 |w - prior|^2 (bias unpenalised), Nesterov."""
    step = 1.0 / (smoothness(x, s) + lam)
    w = prior.copy()
    b = 0.0
    w_prev, b_prev = w.copy(), b
    for k in range(1, STEPS + 1):
        momentum = (k - 1) / (k + 2)
        vw = w + momentum * (w - w_prev)
        vb = b + momentum * (b - b_prev)
        z = x.times(vw) + vb
        p = 0.5 * (1.0 + np.tanh(0.5 * z))  # the logistic function, without overflow
        r = s * (p - y)
        w_prev, b_prev = w, b
        w = vw - step * (x.transposed_times(r) + lam * (vw - prior))
        b = vb - step * float(r.sum())
    return b, w


def predict(x: Design, b: float, w: Floats) -> Floats:
    return 0.5 * (1.0 + np.tanh(0.5 * (x.times(w) + b)))


def fold_of(sentence: GoldSentence) -> int:
    """Sentences of one transcript share a fold: words of one session must not teach the model
    to recognise its own sentences."""
    group = sentence.file or sentence.id
    return int(hashlib.sha256(group.encode()).hexdigest(), 16) % FOLDS


def f_beta(truth: npt.NDArray[np.bool_], said: npt.NDArray[np.bool_]) -> float:
    tp = float((truth & said).sum())
    if tp == 0:
        return 0.0
    precision, recall = tp / float(said.sum()), tp / float(truth.sum())
    return (1 + BETA**2) * precision * recall / (BETA**2 * precision + recall)


def train(sentences: list[GoldSentence]) -> tuple[dict[str, Any], list[str]]:
    """The model and a log of the choices made on the way."""
    log: list[str] = []
    feats = [features(s.candidate) for s in sentences]
    y = np.array([1.0 if s.is_uncertainty else 0.0 for s in sentences])
    real = np.array([not s.written and not s.candidate.thinking for s in sentences])
    folds = np.array([fold_of(s) for s in sentences])
    thresholds = np.round(np.arange(0.30, 0.81, 0.02), 2)
    best: tuple[float, float, float] = (-1.0, 0.0, 0.0)
    for lam in LAMBDAS:
        out_of_fold = np.zeros(len(sentences))
        for k in range(FOLDS):
            inside = folds != k
            vocab = vocabulary([f for f, keep in zip(feats, inside, strict=True) if keep])
            index = {f: j for j, f in enumerate(vocab)}
            x_in = design([f for f, keep in zip(feats, inside, strict=True) if keep], index)
            b, w = fit(x_in, y[inside], balanced_weights(y[inside]), lam, prior_of(vocab))
            x_out = design([f for f, keep in zip(feats, ~inside, strict=True) if keep], index)
            out_of_fold[~inside] = predict(x_out, b, w)
        truth = y[real] > 0
        for t in thresholds:
            score = f_beta(truth, out_of_fold[real] >= t)
            log.append(f"lambda {lam:g} threshold {t:.2f}: cross-validated F0.5 {score:.3f}")
            if score > best[0] + 1e-12:
                best = (score, lam, float(t))
    score, lam, threshold = best
    log.append(f"chosen: lambda {lam:g}, threshold {threshold:.2f} (F0.5 {score:.3f} on real text sentences)")
    vocab = vocabulary(feats)
    index = {f: j for j, f in enumerate(vocab)}
    b, w = fit(design(feats, index), y, balanced_weights(y), lam, prior_of(vocab))
    weights = {f: round(float(v), DECIMALS) for f, v in zip(vocab, w, strict=True)}
    model = {
        "version": VERSION,
        "trained_from": hashlib.sha256(DATA.read_bytes()).hexdigest(),
        "sentences": len(sentences),
        "lambda": lam,
        "threshold": threshold,
        "bias": round(b, DECIMALS),
        "weights": {f: v for f, v in weights.items() if v != 0.0},
    }
    return model, log


def encoded(model: dict[str, Any]) -> bytes:
    return orjson.dumps(model, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed model instead of writing")
    parser.add_argument("--verbose", action="store_true", help="print every cross-validated choice")
    args = parser.parse_args()
    sentences = [s for s in read_gold(DATA) if s.split == "train"]
    model, log = train(sentences)
    for line in log if args.verbose else log[-1:]:
        print(line)
    body = encoded(model)
    if args.check:
        same = MODEL.exists() and MODEL.read_bytes() == body
        print(f"{MODEL.relative_to(ROOT)}: {'rebuilt bit for bit' if same else 'DIFFERS from a fresh training'}")
        return 0 if same else 1
    MODEL.write_bytes(body)
    print(f"wrote {MODEL.relative_to(ROOT)}: {len(model['weights'])} weights from {len(sentences)} sentences")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
