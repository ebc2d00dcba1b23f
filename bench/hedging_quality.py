"""Hedging (spec §3.3): how good the net and the embedded judge are on people they were not
trained on, what a candidate costs, and what hedging costs the daemon's catch-up.

Run from the repository root::

    .venv/bin/python bench/hedging_quality.py [--quick] [--runs N] [--size-mb 100] [--corpus DIR]

1. **Quality, repository-held-out.** The real labelled sentences (real-2 and the relabelled real/
   ones, ``hedging_cv.load``) in five folds of whole people; each fold's sentences are judged by a
   model fitted on the other folds, its regularisation and thresholds chosen by cross-validation
   on those folds alone (nested). A positive the net does not catch (no cue, or a guard) is a
   miss. Precision and recall with 95 % Wilson intervals, for text and thinking parts, per
   language (as the labeller read it), agent and person; beside them the design-weighted
   estimates (real-2's sampling weights: cue-less sentences were drawn lightly and weigh much).
   Targets: text P >= 0.80 at R >= 0.50; thinking P >= 0.85 at R >= 0.55; P >= 0.70 in every
   language with >= 20 positives. Also: the same with the written sentences added to every
   training set (they are used only if they help), a learning curve (1/4, 1/2, 3/4 and all of
   the training people of each fold), and, per language with enough positives, the judge fitted
   without any sentence of that language (``hedging_cv.language_held_out``): what a team writing
   in a language omkd has no labels for gets.
2. **Cost per candidate.** Every assistant text part of the Claude Code fixtures: the net's
   time per part, and the judge's time per candidate it catches (features and score), best of 5.
3. **Catch-up.** The daemon's catch-up of the ``scan_throughput.py`` corpus with ``[hedging]
   enabled = false`` and with the default, runs interleaved, best of each: the overhead must stay
   under 10 %.

Writes ``bench/out/hedging_quality.json``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import catch_up
import harness
import hedging_cv as cv
import orjson
from common import MB, REPO_ROOT, status, this_run
from corpus import DEFAULT_CORPUS, build_corpus, list_files, warm_cache

sys.path.insert(0, str(REPO_ROOT))

from omkd.engine import cues
from omkd.engine.hedge_judge import embedded_judge

TARGET_LANGUAGE_PRECISION: Final = 0.70
TARGET_OVERHEAD: Final = 0.10
LAMBDAS: Final = (0.03, 0.01, 0.003, 0.001)
CURVE: Final = (0.25, 0.5, 0.75, 1.0)
DEFAULT_SIZE_MB: Final = 100.0
RUNS: Final = 3
QUICK_RUNS: Final = 1
REPEATS: Final = 5
HEDGING_OFF: Final = "[hedging]\nenabled = false\n"

Triple = tuple[float | None, float | None, float | None]


@dataclass
class Row:
    group: str
    """``part``, ``language``, ``agent``, ``person``."""
    part: str
    name: str
    n: int
    positives: int
    cells: list[int]
    """tp, fp, fn (fn counts the positives the net missed), tn."""
    net_missed: int
    precision: Triple
    recall: Triple
    weighted_precision: float | None
    weighted_recall: float | None


@dataclass
class Curve:
    fraction: float
    people: float
    """Training people per fold, on average."""
    auc: float | None
    text: list[float | None]
    thinking: list[float | None]
    """Precision and recall at the full model's thresholds."""


@dataclass
class Result:
    rows: list[Row] = field(default_factory=list)
    auc: float | None = None
    with_written: list[Row] = field(default_factory=list)
    with_written_auc: float | None = None
    unseen: list[Row] = field(default_factory=list)
    """Per language with enough positives: the judge trained without that language's rows."""
    unseen_auc: dict[str, float | None] = field(default_factory=dict)
    curve: list[Curve] = field(default_factory=list)
    thresholds: dict[str, dict[str, float]] = field(default_factory=dict)
    targets: dict[str, str] = field(default_factory=dict)
    text_parts: int = 0
    candidates: int = 0
    net_us_per_part: float = 0.0
    judge_us_per_candidate: float = 0.0
    corpus_bytes: int = 0
    runs: int = 0
    off_seconds: list[float] = field(default_factory=list)
    on_seconds: list[float] = field(default_factory=list)
    overhead: float = 0.0
    quality_status: str = ""
    overhead_status: str = ""


def _weighted(rows: Sequence[cv.Row], said: dict[str, bool]) -> tuple[float | None, float | None]:
    """Design-weighted precision and recall over the real-2 rows (the only ones with a design)."""
    mine = [r for r in rows if r.weight is not None]
    tp = sum(r.weight or 0 for r in mine if r.is_uncertainty and said.get(r.id, False))
    called = sum(r.weight or 0 for r in mine if said.get(r.id, False))
    pos = sum(r.weight or 0 for r in mine if r.is_uncertainty)
    return (tp / called if called else None, tp / pos if pos else None)


def measured(group: str, part: str, name: str, rows: Sequence[cv.Row], said: dict[str, bool]) -> Row:
    tp = sum(1 for r in rows if r.is_uncertainty and said.get(r.id, False))
    fp = sum(1 for r in rows if not r.is_uncertainty and said.get(r.id, False))
    fn = sum(1 for r in rows if r.is_uncertainty and not said.get(r.id, False))
    tn = len(rows) - tp - fp - fn
    missed = sum(1 for r in rows if r.is_uncertainty and r.candidate is None)
    wp, wr = _weighted(rows, said)
    return Row(group, part, name, len(rows), tp + fn, [tp, fp, fn, tn], missed, cv.wilson(tp, tp + fp),
               cv.wilson(tp, tp + fn), wp, wr)  # fmt: skip


def breakdown(rows: Sequence[cv.Row], said: dict[str, bool]) -> list[Row]:
    found = []
    for part in ("text", "thinking"):
        these = [r for r in rows if r.part == part]
        found.append(measured("part", part, "all", these, said))
        for group, key in (("language", "lang"), ("agent", "agent"), ("person", "person")):
            names = sorted({getattr(r, key) for r in these})
            found.extend(measured(group, part, n, [r for r in these if getattr(r, key) == n], said) for n in names)
    return found


def learning_curve(rows: Sequence[cv.Row], feats: dict[str, list[str]], lam: float,
                   thresholds: dict[str, dict[str, float]]) -> list[Curve]:  # fmt: skip
    """Each fold scored by models fitted on a fraction of the other folds' people (a fixed order)."""
    folds = cv.people_folds(rows)
    curve = []
    for fraction in CURVE:
        scores: dict[str, float] = {}
        people_used = []
        for k in sorted(set(folds.values())):
            others = cv.person_order([p for p, f in folds.items() if f != k])
            chosen = set(others[: max(1, round(fraction * len(others)))])
            people_used.append(len(chosen))
            train = [r for r in rows if r.candidate is not None and r.person in chosen]
            test = [r for r in rows if r.candidate is not None and folds[r.person] == k]
            model = cv.fit([feats[r.id] for r in train], [r.is_uncertainty for r in train], lam)
            for r, p in zip(test, model.predict([feats[r.id] for r in test]), strict=True):
                scores[r.id] = float(p)
        said = {r.id: scores[r.id] >= cv.threshold_for(thresholds, r) for r in rows if r.id in scores}
        caught = [r for r in rows if r.id in scores]
        pr: dict[str, list[float | None]] = {}
        for part in ("text", "thinking"):
            row = measured("part", part, "all", [r for r in rows if r.part == part], said)
            pr[part] = [row.precision[0], row.recall[0]]
        value = cv.auc([r.is_uncertainty for r in caught], [scores[r.id] for r in caught])
        curve.append(Curve(fraction, sum(people_used) / len(people_used), value, pr["text"], pr["thinking"]))
    return curve


def _met(row: Row, precision: float, recall: float | None = None) -> bool:
    return (row.precision[0] or 0) >= precision and (recall is None or (row.recall[0] or 0) >= recall)


def quality(result: Result, progress: Callable[[str], None] = print) -> None:
    rows = cv.load(written=True)
    real = [r for r in rows if r.source != "written"]
    written = [r for r in rows if r.source == "written"]
    feats = cv.feature_table(rows)
    progress("  nested cross-validation by person, real sentences only")
    scores, said = cv.nested(real, feats, LAMBDAS)
    result.rows = breakdown(real, said)
    caught = [r for r in real if r.id in scores]
    result.auc = cv.auc([r.is_uncertainty for r in caught], [scores[r.id] for r in caught])
    progress("  the same with the written sentences in every training set")
    w_scores, w_said = cv.nested(real, feats, LAMBDAS, written)
    result.with_written = [r for r in breakdown(real, w_said) if r.group == "part"]
    result.with_written_auc = cv.auc([r.is_uncertainty for r in caught], [w_scores[r.id] for r in caught])
    for lang in sorted({r.run_lang for r in real}):
        these = [r for r in real if r.run_lang == lang]
        if sum(r.is_uncertainty for r in these) < cv.MIN_LANG_POSITIVES:
            continue
        progress(f"  {lang} as a language the judge has never seen (trained on the others)")
        l_scores, l_said = cv.language_held_out(real, feats, LAMBDAS, lang)
        caught_l = [r for r in these if r.id in l_scores]
        result.unseen_auc[lang] = cv.auc([r.is_uncertainty for r in caught_l], [l_scores[r.id] for r in caught_l])
        for part in ("text", "thinking"):
            result.unseen.append(measured("unseen language", part, lang, [r for r in these if r.part == part], l_said))
    judge = embedded_judge()
    result.thresholds = judge.thresholds
    progress("  learning curve")
    result.curve = learning_curve(real, feats, 0.003, judge.thresholds)
    parts = {r.part: r for r in result.rows if r.group == "part"}
    for part in ("text", "thinking"):
        ok = _met(parts[part], cv.TARGET_PRECISION[part], cv.TARGET_RECALL[part])
        result.targets[f"{part}: P >= {cv.TARGET_PRECISION[part]} at R >= {cv.TARGET_RECALL[part]}"] = status(ok)
    for row in result.rows:
        if row.group == "language" and row.positives >= cv.MIN_LANG_POSITIVES:
            ok = _met(row, TARGET_LANGUAGE_PRECISION)
            result.targets[f"{row.part} {row.name} ({row.positives} positives): P >= 0.70"] = status(ok)
    result.quality_status = status(all(v == status(True) for v in result.targets.values()))


def assistant_texts(fixtures: Path) -> list[str]:
    texts: list[str] = []
    for path in sorted(fixtures.rglob("*.jsonl")):
        for raw in path.read_bytes().splitlines():
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            message = record.get("message") if isinstance(record, dict) else None
            if record.get("type") != "assistant" or not isinstance(message, dict):
                continue
            content = message.get("content")
            parts = content if isinstance(content, list) else []
            texts.extend(
                p["text"]
                for p in parts
                if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
            )
    return texts


def cost(result: Result, fixtures: Path) -> None:
    texts = assistant_texts(fixtures)
    net = cues.Net()
    judge = embedded_judge()
    found = [c for text in texts for c in cues.candidates(text, net, False, False)]
    net_best = judge_best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        for text in texts:
            cues.candidates(text, net, False, False)
        net_best = min(net_best, time.perf_counter() - started)
        started = time.perf_counter()
        for candidate in found:
            judge.judge(candidate)
        judge_best = min(judge_best, time.perf_counter() - started)
    result.text_parts, result.candidates = len(texts), len(found)
    result.net_us_per_part = 1e6 * net_best / max(1, len(texts))
    result.judge_us_per_candidate = 1e6 * judge_best / max(1, len(found))


def catch_up_cost(result: Result, fixtures: Path, corpus_dir: Path, work: Path, runs: int, size_mb: float) -> None:
    corpus = build_corpus(fixtures, corpus_dir, size_mb)
    files = list_files([corpus.root])
    result.corpus_bytes = sum(f.stat().st_size for f in files)
    warm_cache(files)
    result.runs = runs
    for run in range(runs):
        off = catch_up.daemon_catch_up(corpus.root, work / f"off-{run}", HEDGING_OFF)[0]
        on = catch_up.daemon_catch_up(corpus.root, work / f"on-{run}")[0]
        result.off_seconds.append(off)
        result.on_seconds.append(on)
        print(f"  run {run + 1}: hedging off {off:.2f} s, on {on:.2f} s", flush=True)
    result.overhead = min(result.on_seconds) / min(result.off_seconds) - 1.0
    result.overhead_status = status(result.overhead < TARGET_OVERHEAD)


def _fmt(triple: Triple) -> str:
    value, low, high = triple
    return "—" if value is None or low is None or high is None else f"{value:.2f} ({low:.2f}–{high:.2f})"


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _table(rows: Sequence[Row]) -> list[str]:
    lines = [
        "| part | group | name | n | positives (net missed) | tp/fp/fn/tn | precision (95 % Wilson) | recall "
        "| weighted P | weighted R |",
        "|---|---|---|---:|---:|---|---|---|---|---|",
    ]
    lines.extend(
        f"| {r.part} | {r.group} | {r.name} | {r.n} | {r.positives} ({r.net_missed}) | {'/'.join(map(str, r.cells))} "
        f"| {_fmt(r.precision)} | {_fmt(r.recall)} | {_num(r.weighted_precision)} | {_num(r.weighted_recall)} |"
        for r in rows
    )
    return lines


def rows(result: Result) -> list[str]:
    lines = [f"Repository-held-out (nested), real sentences: AUC {_num(result.auc)}", ""]
    lines += _table([r for r in result.rows if r.group != "person"])
    lines += ["", "Per person:", "", *_table([r for r in result.rows if r.group == "person"])]
    lines += ["", f"With the written sentences in every training set: AUC {_num(result.with_written_auc)}", ""]
    lines += _table(result.with_written)
    aucs = ", ".join(f"{lang} {_num(value)}" for lang, value in result.unseen_auc.items())
    lines += ["", f"A language the judge has never seen (trained on every other language's rows): AUC {aucs}", ""]
    lines += _table(result.unseen)
    lines += ["", "Learning curve (fraction of each fold's training people; P/R at the shipped thresholds):", ""]
    lines += [
        "| fraction | people per fold | AUC | text P | text R | thinking P | thinking R |",
        "|---|---:|---|---|---|---|---|",
    ]
    lines += [
        f"| {c.fraction:.2f} | {c.people:.1f} | {_num(c.auc)} | {_num(c.text[0])} | {_num(c.text[1])} "
        f"| {_num(c.thinking[0])} | {_num(c.thinking[1])} |"
        for c in result.curve
    ]
    lines += ["", f"Shipped thresholds: {result.thresholds}", ""]
    lines += ["| target | status |", "|---|---|"] + [f"| {k} | {v} |" for k, v in result.targets.items()]
    lines += [
        "",
        "| measure | value | target | status |",
        "|---|---|---|---|",
        f"| net, per assistant text part ({result.text_parts} parts) | {result.net_us_per_part:.1f} µs | | |",
        f"| judge, per candidate ({result.candidates} candidates) | {result.judge_us_per_candidate:.1f} µs | | |",
    ]
    if result.runs:
        lines.append(
            f"| catch-up {result.corpus_bytes / MB:.0f} MB, hedging on / off, best of {result.runs} "
            f"| {min(result.on_seconds):.2f} s / {min(result.off_seconds):.2f} s = +{100 * result.overhead:.1f} % "
            f"| < {100 * TARGET_OVERHEAD:.0f} % | {result.overhead_status} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = harness.parser(__doc__, "hedging_quality.json")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} catch-up run of each (else {RUNS})")
    parser.add_argument("--runs", type=int, default=None, help="catch-up runs of each, best kept (0: skip)")
    parser.add_argument("--size-mb", type=float, default=DEFAULT_SIZE_MB, help="minimum corpus size in MB")
    parser.add_argument("--skip-quality", action="store_true", help="only the costs (the CV takes minutes)")
    parser.add_argument("--corpus", type=harness.resolved_path, default=DEFAULT_CORPUS, help="the corpus folder")
    args = parser.parse_args(argv)
    runs = args.runs if args.runs is not None else (QUICK_RUNS if args.quick else RUNS)
    this = this_run(__file__, argv)
    result = Result()
    print("[1] repository-held-out quality", flush=True)
    if not args.skip_quality:
        quality(result)
    print("[2] cost per candidate", flush=True)
    cost(result, args.fixtures)
    if runs:
        print("[3] catch-up with hedging on and off", flush=True)
        with harness.work_folder(args.work, args.keep) as work:
            catch_up_cost(result, args.fixtures, args.corpus, work, runs, args.size_mb)
    harness.report(args.out, "hedging_quality", "Hedging: held-out quality and cost", this, result, rows(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
