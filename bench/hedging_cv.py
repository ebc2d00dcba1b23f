"""The real labelled hedging sentences, the embedded judge's fitting, and cross-validation by person.

Shared by ``train_hedging_judge.py`` (which fits the shipped model) and ``hedging_quality.py``
(which measures it). The data (``tests/data/README.md``):

- ``real2_hedging_sentences.jsonl``: real-2, 22 people, design weights per stratum;
- ``hedging_sentences_relabelled.jsonl``: the 561 real sentences of ``hedging_sentences.jsonl``
  (``../shared/fixtures/real``) relabelled under spec §3.3, their text taken from that file by id;
- the 701 ``written`` sentences of ``hedging_sentences.jsonl`` (training only, never scored).

A row's *person* is its repository (real-2's ``repo``; for real/, the first component of its
``file``, a ``@commit`` suffix dropped). Folds hold whole people: a model never scores a person it
was trained on. The net decides first: a sentence the net (with its guards) does not catch is a
miss whatever the judge would say; the judge is trained and scored only on caught sentences.

Every sum runs in a fixed order (``np.bincount``), so fits are the same on every machine.
"""

from __future__ import annotations

import bisect
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import orjson

from omkd.engine import cues
from omkd.engine.cues import CONTEXT_MARK, Candidate, Net
from omkd.engine.hedge_judge import PRIORS, features

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
REAL2 = DATA / "real2_hedging_sentences.jsonl"
RELABELLED = DATA / "hedging_sentences_relabelled.jsonl"
SENTENCES = DATA / "hedging_sentences.jsonl"
FOLDS = 5
STEPS = 1000
MIN_DF = 2
BETA = 0.5
TARGET_PRECISION = {"text": 0.80, "thinking": 0.85}
TARGET_RECALL = {"text": 0.50, "thinking": 0.55}
MIN_LANG_POSITIVES = 20
"""A language gets its own threshold where the training people hold this many caught positives."""
GRID = tuple(round(0.05 + 0.01 * k, 2) for k in range(91))

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Row:
    id: str
    person: str
    agent: str
    part: str
    lang: str
    """As the labeller read it."""
    sentence: str
    candidate: Candidate | None
    """None: the net does not catch the sentence."""
    is_uncertainty: bool
    weight: float | None
    """real-2's design weight (None for real/ and written rows)."""
    source: str
    """``real2``, ``real`` or ``written``."""

    @property
    def run_lang(self) -> str:
        """The language the judge sees (its threshold's)."""
        return cues.language_of(self.sentence)


def _lines(path: Path) -> list[dict[str, object]]:
    return [orjson.loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]


def _agent(file: str) -> str:
    if "/.codex/" in file or "rollout-" in file:
        return "codex"
    if "/.gemini/" in file or file.endswith(".json"):
        return "gemini"
    return "claude_code"


def _row(raw: dict[str, object], net: Net, person: str, agent: str, source: str, weight: float | None) -> Row:
    sentence = str(raw["sentence"])
    part = "thinking" if raw.get("part") == "thinking" else "text"
    cue = net.pick(sentence)
    candidate = None
    if cue is not None:
        context = f"{raw.get('before') or ''} {CONTEXT_MARK} {raw.get('after') or ''}".strip()
        candidate = Candidate(sentence, context, cue, part == "thinking", False)
    return Row(str(raw["id"]), person, agent, part, str(raw.get("lang") or ""), sentence, candidate,
               raw["is_uncertainty"] is True, weight, source)  # fmt: skip


def load(written: bool = False) -> list[Row]:
    """The real labelled sentences (and the written ones when asked), in file order."""
    net = Net()
    rows = [_row(r, net, str(r["repo"]), str(r["agent"]), "real2", float(str(r["weight"]))) for r in _lines(REAL2)]
    relabelled = {str(r["id"]): r for r in _lines(RELABELLED)}
    for r in _lines(SENTENCES):
        if r.get("written"):
            if written:
                rows.append(_row(r, net, "written", "written", "written", None))
            continue
        label = relabelled[str(r["id"])]
        merged = {**r, **{k: label[k] for k in ("kind", "is_uncertainty", "lang")}}
        file = str(r["file"])
        rows.append(_row(merged, net, file.split("/", 1)[0].split("@", 1)[0], _agent(file), "real", None))
    return rows


def people_folds(rows: Sequence[Row], k: int = FOLDS) -> dict[str, int]:
    """Each person's fold: the largest first, each to the fold with the fewest rows so far."""
    sizes: dict[str, int] = {}
    for r in rows:
        if r.source != "written":
            sizes[r.person] = sizes.get(r.person, 0) + 1
    load_of = [0] * k
    fold: dict[str, int] = {}
    for person in sorted(sizes, key=lambda p: (-sizes[p], p)):
        f = min(range(k), key=lambda i: (load_of[i], i))
        fold[person] = f
        load_of[f] += sizes[person]
    return fold


def person_order(people: Sequence[str]) -> list[str]:
    """A fixed shuffled order of people (for the learning curve's subsets)."""
    return sorted(people, key=lambda p: hashlib.sha256(p.encode()).hexdigest())


# --- the logistic model ---------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Fitted:
    vocab: list[str]
    bias: float
    weights: Floats

    def predict(self, feature_lists: Sequence[list[str]]) -> Floats:
        index = {f: j for j, f in enumerate(self.vocab)}
        x = design(feature_lists, index)
        return 0.5 * (1.0 + np.tanh(0.5 * (x.times(self.weights) + self.bias)))


def vocabulary(feature_lists: Sequence[list[str]]) -> list[str]:
    counts: dict[str, int] = {}
    for found in feature_lists:
        for f in set(found):
            counts[f] = counts.get(f, 0) + 1
    return sorted(f for f, c in counts.items() if c >= MIN_DF)


def design(feature_lists: Sequence[list[str]], index: dict[str, int]) -> Design:
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
        u = (x.times(v[:-1]) + v[-1]) * s
        nxt = np.append(x.transposed_times(u), u.sum())
        value = float(np.sqrt(nxt @ nxt))
        v = nxt / value
    return 0.25 * value * 1.1


def fit(feature_lists: Sequence[list[str]], labels: Sequence[bool], lam: float) -> Fitted:
    """Minimise sum_i s_i log(1 + exp(-y'_i z_i)) + lam/2 |w - prior|^2 (bias unpenalised), class
    balanced, by Nesterov's accelerated gradient for a fixed number of steps."""
    vocab = vocabulary(feature_lists)
    x = design(feature_lists, {f: j for j, f in enumerate(vocab)})
    y = np.array([1.0 if label else 0.0 for label in labels])
    s = balanced_weights(y)
    prior = np.array([PRIORS.get(f, 0.0) for f in vocab])
    step = 1.0 / (smoothness(x, s) + lam)
    w, b = prior.copy(), 0.0
    w_prev, b_prev = w.copy(), b
    for k in range(1, STEPS + 1):
        momentum = (k - 1) / (k + 2)
        vw = w + momentum * (w - w_prev)
        vb = b + momentum * (b - b_prev)
        p = 0.5 * (1.0 + np.tanh(0.5 * (x.times(vw) + vb)))
        r = s * (p - y)
        w_prev, b_prev = w, b
        w = vw - step * (x.transposed_times(r) + lam * (vw - prior))
        b = vb - step * float(r.sum())
    return Fitted(vocab, b, w)


# --- thresholds and measures ----------------------------------------------------------------------


def auc(truth: Sequence[bool], scores: Sequence[float]) -> float | None:
    """The area under the ROC curve (ties count a half)."""
    pos = [s for t, s in zip(truth, scores, strict=True) if t]
    neg = sorted(s for t, s in zip(truth, scores, strict=True) if not t)
    if not pos or not neg:
        return None
    total = 0.0
    for p in pos:
        below, upto = bisect.bisect_left(neg, p), bisect.bisect_right(neg, p)
        total += below + 0.5 * (upto - below)
    return total / (len(pos) * len(neg))


def _choose(truth: list[bool], scores: list[float], missed: int, target: float) -> float:
    """The threshold of the highest recall (net misses counted) whose precision reaches ``target``;
    else the one of the best F0.5."""
    best_ok: tuple[float, float] | None = None
    best_f: tuple[float, float] = (-1.0, 0.5)
    positives = sum(truth) + missed
    for t in GRID:
        tp = sum(1 for y, s in zip(truth, scores, strict=True) if y and s >= t)
        said = sum(1 for s in scores if s >= t)
        if tp == 0:
            continue
        p, r = tp / said, tp / max(positives, 1)
        if p >= target and (best_ok is None or r > best_ok[0] + 1e-12):
            best_ok = (r, t)
        f = (1 + BETA**2) * p * r / (BETA**2 * p + r)
        if f > best_f[0] + 1e-12:
            best_f = (f, t)
    return best_ok[1] if best_ok is not None else best_f[1]


def choose_thresholds(rows: Sequence[Row], scores: dict[str, float]) -> dict[str, dict[str, float]]:
    """Per part, and per language within a part where it has ``MIN_LANG_POSITIVES`` caught
    positives, the threshold ``_choose`` picks on these out-of-fold scores."""
    table: dict[str, dict[str, float]] = {}
    for part in ("text", "thinking"):
        these = [r for r in rows if r.part == part and r.source != "written"]
        caught = [r for r in these if r.id in scores]
        missed = sum(1 for r in these if r.is_uncertainty and r.id not in scores)
        table[part] = {
            "*": _choose([r.is_uncertainty for r in caught], [scores[r.id] for r in caught], missed,
                         TARGET_PRECISION[part])
        }  # fmt: skip
        for lang in sorted({r.run_lang for r in caught}):
            mine = [r for r in caught if r.run_lang == lang]
            if sum(r.is_uncertainty for r in mine) >= MIN_LANG_POSITIVES:
                lost = sum(1 for r in these if r.is_uncertainty and r.id not in scores and r.run_lang == lang)
                table[part][lang] = _choose([r.is_uncertainty for r in mine], [scores[r.id] for r in mine], lost,
                                            TARGET_PRECISION[part])  # fmt: skip
    return table


def threshold_for(table: dict[str, dict[str, float]], row: Row) -> float:
    mine = table[row.part]
    return mine.get(row.run_lang, mine["*"])


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float | None, float | None, float | None]:
    """A proportion and its Wilson score interval (95 %)."""
    if n == 0:
        return (None, None, None)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (p, max(0.0, centre - half), min(1.0, centre + half))


# --- cross-validation by person -------------------------------------------------------------------


def feature_table(rows: Sequence[Row]) -> dict[str, list[str]]:
    return {r.id: features(r.candidate) for r in rows if r.candidate is not None}


def out_of_fold(rows: Sequence[Row], feats: dict[str, list[str]], folds: dict[str, int], lam: float,
                extra: Sequence[Row] = ()) -> dict[str, float]:  # fmt: skip
    """Each caught real row's score by a model fitted without its fold's people (``extra`` rows,
    e.g. written sentences, join every training set)."""
    scores: dict[str, float] = {}
    ks = sorted(set(folds.values()))
    for k in ks:
        train = [r for r in rows if r.candidate is not None and folds[r.person] != k]
        train += [r for r in extra if r.candidate is not None]
        test = [r for r in rows if r.candidate is not None and folds[r.person] == k]
        if not test or not train:
            continue
        model = fit([feats[r.id] for r in train], [r.is_uncertainty for r in train], lam)
        for r, p in zip(test, model.predict([feats[r.id] for r in test]), strict=True):
            scores[r.id] = float(p)
    return scores


def select(rows: Sequence[Row], feats: dict[str, list[str]], folds: dict[str, int], lambdas: Sequence[float],
           extra: Sequence[Row] = ()) -> tuple[float, dict[str, dict[str, float]], dict[float, float]]:  # fmt: skip
    """Cross-validated by ``folds``: the regularisation of the best pooled AUC, the thresholds
    chosen on its out-of-fold scores, and every lambda's AUC."""
    aucs: dict[float, float] = {}
    best: tuple[float, float, dict[str, float]] = (-1.0, lambdas[0], {})
    for lam in lambdas:
        scores = out_of_fold(rows, feats, folds, lam, extra)
        caught = [r for r in rows if r.id in scores]
        value = auc([r.is_uncertainty for r in caught], [scores[r.id] for r in caught]) or 0.0
        aucs[lam] = value
        if value > best[0] + 1e-12:
            best = (value, lam, scores)
    _, lam, scores = best
    return lam, choose_thresholds(rows, scores), aucs


def selected_and_judged(train_rows: Sequence[Row], folds: dict[str, int], test: Sequence[Row],
                        feats: dict[str, list[str]], lambdas: Sequence[float],
                        extra: Sequence[Row] = ()) -> tuple[dict[str, float], dict[str, bool]]:  # fmt: skip
    """Lambda and thresholds chosen by cross-validation (``folds``) on ``train_rows``, a model fitted on
    them (and ``extra``), then the scores and verdicts of the caught rows of ``test``."""
    lam, table, _ = select(train_rows, feats, folds, lambdas, extra)
    train = [r for r in (*train_rows, *extra) if r.candidate is not None]
    model = fit([feats[r.id] for r in train], [r.is_uncertainty for r in train], lam)
    caught = [r for r in test if r.candidate is not None]
    scores = {r.id: float(p) for r, p in zip(caught, model.predict([feats[r.id] for r in caught]), strict=True)}
    return scores, {r.id: scores[r.id] >= threshold_for(table, r) for r in caught}


def nested(rows: Sequence[Row], feats: dict[str, list[str]], lambdas: Sequence[float],
           extra: Sequence[Row] = ()) -> tuple[dict[str, float], dict[str, bool]]:  # fmt: skip
    """Repository-held-out verdicts: for each outer fold of people, lambda and thresholds are
    chosen by cross-validation on the other folds' people, a model fitted on them scores the fold.
    The scores and verdicts of every caught real row."""
    folds = people_folds(rows)
    scores: dict[str, float] = {}
    said: dict[str, bool] = {}
    for k in sorted(set(folds.values())):
        inner_rows = [r for r in rows if folds.get(r.person, -1) != k]
        inner_folds = {p: f for p, f in folds.items() if f != k}
        test = [r for r in rows if folds[r.person] == k]
        fold_scores, fold_said = selected_and_judged(inner_rows, inner_folds, test, feats, lambdas, extra)
        scores.update(fold_scores)
        said.update(fold_said)
    return scores, said


def language_held_out(rows: Sequence[Row], feats: dict[str, list[str]], lambdas: Sequence[float],
                      lang: str) -> tuple[dict[str, float], dict[str, bool]]:  # fmt: skip
    """How the judge does on a language it has no labelled sentence of (the next team's Korean or
    German, say): a model fitted on every other language's rows, its lambda and thresholds chosen
    by cross-validation by person on them, scores the rows of ``lang`` (the language the judge
    sees). Having seen none, its threshold table has no row for ``lang``: the part's own applies,
    as it does in omkd for such a language. The scores and verdicts of the caught rows of ``lang``."""
    train_rows = [r for r in rows if r.run_lang != lang]
    test = [r for r in rows if r.run_lang == lang]
    return selected_and_judged(train_rows, people_folds(train_rows), test, feats, lambdas)
