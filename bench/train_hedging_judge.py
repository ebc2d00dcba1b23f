"""Train the embedded hedging judge from the real labelled sentences, bit for bit.

    .venv/bin/python bench/train_hedging_judge.py            # rewrite omkd/engine/data/hedging_judge.json
    .venv/bin/python bench/train_hedging_judge.py --check    # exit 1 if the committed file differs

A class-balanced, L2-regularised logistic regression over the features of
``omkd.engine.hedge_judge.features`` (only those seen in at least two training sentences), fitted
by accelerated gradient descent for a fixed number of steps (``hedging_cv.fit``), on every real
labelled sentence the net catches: real-2 and the relabelled real/ sentences
(``hedging_cv.load``). The written sentences are left out: on the repository-held-out folds
they lowered the AUC and the text precision (``bench/README.md``, ``INCLUDE_WRITTEN``).

The regularisation strength is the one of the best pooled AUC under five-fold cross-validation
*by person* (whole repositories per fold); on its out-of-fold scores a threshold is chosen per
part (``text``, ``thinking``) and, where a language holds at least 20 caught positives, per
language: the highest recall whose precision reaches the part's target (0.80 text, 0.85
thinking), else the best F0.5 (``hedging_cv.choose_thresholds``). The file records the key of
every sentence trained on (``trained_on``), for ``omkd calibrate``. Weights are rounded to six
decimals and every sum runs in a fixed order, so the file is the same on every machine.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hedging_cv as cv  # noqa: E402

from omkd.engine.hedge_judge import MODEL_FILE, sentence_key  # noqa: E402

MODEL = ROOT / "omkd" / "engine" / "data" / MODEL_FILE
VERSION = "v2"
LAMBDAS = (0.03, 0.01, 0.003, 0.001)
INCLUDE_WRITTEN = False
DECIMALS = 6


def train(rows: list[cv.Row]) -> tuple[dict[str, Any], list[str]]:
    """The model and a log of the choices made on the way."""
    real = [r for r in rows if r.source != "written"]
    extra = [r for r in rows if r.source == "written"]
    feats = cv.feature_table(rows)
    folds = cv.people_folds(real)
    lam, thresholds, aucs = cv.select(real, feats, folds, LAMBDAS, extra)
    log = [f"lambda {k:g}: AUC {v:.3f} (out of fold, by person)" for k, v in aucs.items()]
    log.append(f"chosen: lambda {lam:g}, thresholds {thresholds}")
    train_rows = [r for r in rows if r.candidate is not None]
    fitted = cv.fit([feats[r.id] for r in train_rows], [r.is_uncertainty for r in train_rows], lam)
    weights = {f: round(float(v), DECIMALS) for f, v in zip(fitted.vocab, fitted.weights, strict=True)}
    sources = [cv.REAL2, cv.RELABELLED, cv.SENTENCES]
    model = {
        "version": VERSION,
        "trained_from": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sources},
        "sentences": len(train_rows),
        "people": len({r.person for r in real}),
        "lambda": lam,
        "thresholds": thresholds,
        "bias": round(fitted.bias, DECIMALS),
        "weights": {f: v for f, v in weights.items() if v != 0.0},
        "trained_on": sorted({sentence_key(r.sentence) for r in train_rows}),
    }
    return model, log


def encoded(model: dict[str, Any]) -> bytes:
    return orjson.dumps(model, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed model instead of writing")
    parser.add_argument("--verbose", action="store_true", help="print every cross-validated choice")
    args = parser.parse_args()
    rows = cv.load(written=INCLUDE_WRITTEN)
    model, log = train(rows)
    for line in log if args.verbose else log[-1:]:
        print(line)
    body = encoded(model)
    if args.check:
        same = MODEL.exists() and MODEL.read_bytes() == body
        print(f"{MODEL.relative_to(ROOT)}: {'rebuilt bit for bit' if same else 'DIFFERS from a fresh training'}")
        return 0 if same else 1
    MODEL.write_bytes(body)
    print(f"wrote {MODEL.relative_to(ROOT)}: {len(model['weights'])} weights from {model['sentences']} sentences")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
