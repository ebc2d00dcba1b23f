"""Hedging (spec §3.3): how good the embedded judge is on held-out sentences, what a candidate
costs, and what hedging costs the daemon's catch-up.

Run from the repository root::

    .venv/bin/python bench/hedging_quality.py [--quick] [--runs N] [--size-mb 100] [--corpus DIR]

1. **Quality.** ``tests/data/hedging_sentences.jsonl``, split ``heldout`` (whole transcripts the
   judge never saw in training), by part (text, thinking) and language: precision, recall, F1
   and Krippendorff's alpha of the embedded judge against the hand labels, 95 % bootstrap
   intervals (``omkd.engine.agreement``). For scale: the net alone (every candidate a hedge),
   and a second annotator who labelled the held-out text sentences on their own
   (``tests/data/hedging_heldout_second.jsonl``). Targets on text parts: precision >= 0.80 and
   recall >= 0.70 overall, precision >= 0.70 in each language.
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import catch_up
import harness
import orjson
from common import MB, REPO_ROOT, status, this_run
from corpus import DEFAULT_CORPUS, build_corpus, list_files, warm_cache

sys.path.insert(0, str(REPO_ROOT))

from omkd.engine import agreement, cues
from omkd.engine.agreement import Cells
from omkd.engine.gold import read_gold, read_labels
from omkd.engine.hedge_judge import embedded_judge

SENTENCES: Final = REPO_ROOT / "tests" / "data" / "hedging_sentences.jsonl"
SECOND: Final = REPO_ROOT / "tests" / "data" / "hedging_heldout_second.jsonl"
TARGET_PRECISION: Final = 0.80
TARGET_RECALL: Final = 0.70
TARGET_LANGUAGE_PRECISION: Final = 0.70
TARGET_OVERHEAD: Final = 0.10
DEFAULT_SIZE_MB: Final = 100.0
RUNS: Final = 3
QUICK_RUNS: Final = 1
REPEATS: Final = 5
HEDGING_OFF: Final = "[hedging]\nenabled = false\n"


@dataclass
class Row:
    judge: str
    part: str
    lang: str
    n: int
    cells: list[int]
    """tp, fp, fn, tn."""
    precision: list[float | None]
    """Value, lower, upper."""
    recall: list[float | None]
    f1: list[float | None]
    alpha: list[float | None]


@dataclass
class Result:
    rows: list[Row] = field(default_factory=list)
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


def _row(judge: str, part: str, lang: str, pairs: list[tuple[bool, bool]]) -> Row:
    cells = Cells.of(pairs)
    found = agreement.measures(cells)

    def triple(name: str) -> list[float | None]:
        m = found[name]
        return [m.value, m.lower, m.upper]

    return Row(judge, part, lang, cells.n, [cells.tp, cells.fp, cells.fn, cells.tn],
               triple("precision"), triple("recall"), triple("f1"), triple("alpha"))  # fmt: skip


def quality(result: Result) -> None:
    judge = embedded_judge()
    held = [s for s in read_gold(SENTENCES) if s.split == "heldout"]
    second = read_labels(SECOND) if SECOND.exists() else {}
    for part in ("text", "thinking"):
        chosen = [s for s in held if s.candidate.thinking == (part == "thinking")]
        for lang in ("all", "en", "zh"):
            these = [s for s in chosen if lang in ("all", s.lang)]
            if not these:
                continue
            said = [(s.is_uncertainty, judge.judge(s.candidate).is_uncertainty) for s in these]
            result.rows.append(_row(judge.name, part, lang, said))
            result.rows.append(_row("net alone", part, lang, [(s.is_uncertainty, True) for s in these]))
            if part == "text" and all(s.id in second for s in these):
                result.rows.append(
                    _row("second annotator", part, lang, [(s.is_uncertainty, second[s.id]) for s in these])
                )
    text = {r.lang: r for r in result.rows if r.judge == judge.name and r.part == "text"}
    ok = (text["all"].precision[0] or 0) >= TARGET_PRECISION and (text["all"].recall[0] or 0) >= TARGET_RECALL
    ok = ok and all((text[lang].precision[0] or 0) >= TARGET_LANGUAGE_PRECISION for lang in ("en", "zh"))
    result.quality_status = status(ok)


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


def _fmt(triple: list[float | None]) -> str:
    value, low, high = triple
    return "—" if value is None else f"{value:.2f} ({low:.2f}–{high:.2f})"


def rows(result: Result) -> list[str]:
    lines = [
        "| judge | part | lang | n | tp/fp/fn/tn | precision | recall | F1 | α |",
        "|---|---|---|---:|---|---|---|---|---|",
    ]
    lines.extend(
        f"| {r.judge} | {r.part} | {r.lang} | {r.n} | {'/'.join(map(str, r.cells))} | {_fmt(r.precision)} "
        f"| {_fmt(r.recall)} | {_fmt(r.f1)} | {_fmt(r.alpha)} |"
        for r in result.rows
    )
    lines += [
        "",
        f"Quality targets (text: P >= {TARGET_PRECISION}, R >= {TARGET_RECALL}; P >= {TARGET_LANGUAGE_PRECISION} "
        f"per language): {result.quality_status}",
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
    parser.add_argument("--corpus", type=harness.resolved_path, default=DEFAULT_CORPUS, help="the corpus folder")
    args = parser.parse_args(argv)
    runs = args.runs if args.runs is not None else (QUICK_RUNS if args.quick else RUNS)
    this = this_run(__file__, argv)
    result = Result()
    print("[1] held-out quality", flush=True)
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
