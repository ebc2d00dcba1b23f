"""What the agent did at a gap (spec §8): omkd's episodes against anchors decided by reading.

Run from the repository root::

    .venv/bin/python bench/metacog_quality.py [--fixtures ../shared/fixtures]

The labels are ``tests/data/metacog_anchors.jsonl`` (anchors of 31 people's transcripts of ``real/``
and ``real-2/``, each outcome decided by reading the episode; the guide is
``tests/data/labelling/round3/anchors-guide.md``). They were never used to build the rules. A second
draw (``draw: 2``, session 40) was drawn after every rule of the first: its figures, shown apart, are
the rules measured on anchors none of them came from. omkd's
episode of each labelled anchor is found by file and call id (a miss) or by file, line and sentence
(a hedge; when no hedge sits at the label's line, the same sentence elsewhere in the file, the
nearest); an anchor omkd no longer makes counts as predicted ``none``.

Reported, per split of the people (``generalisation.split_of``: the SHA-256 of the repository name;
``held-out`` is the headline), per agent and per person: for each outcome, precision and recall with
95 % Wilson intervals; eligibility agreement (misses); M3 candidate precision (omkd's eligible misses
it calls ``proceeded``, of which the reader also said ``proceeded``). The disagreements are listed in
the JSON for reading. Targets (issue 25, held-out): ``recovered`` P >= 0.90 and R >= 0.80,
``asked`` P >= 0.90. Output: markdown on stdout and ``bench/out/metacog_quality.json``.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final

import orjson
from common import DEFAULT_OUT, REPO_ROOT, heading, save, status, this_run
from generalisation import split_of, wilson

from omkd.engine.explain import StreamExplainer
from omkd.engine.metacog.rules import OUTCOMES
from omkd.engine.metacog.view import Episode
from omkd.engine.stream import StreamProcessor

DEFAULT_FIXTURES: Final = REPO_ROOT.parent / "shared" / "fixtures"
LABELS: Final = REPO_ROOT / "tests" / "data" / "metacog_anchors.jsonl"
TARGETS: Final = {"recovered": (0.90, 0.80), "asked": (0.90, None)}
NONE: Final = "none"
"""The prediction for a labelled anchor omkd makes no episode of."""


def episodes_of(path: Path, name: str) -> list[Episode]:
    """Every anchor's episode (as ``omkd explain`` has them: a summary keeps only its signals')."""
    explainer = StreamExplainer(name)
    stream = StreamProcessor(name, observer=explainer)
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            stream.feed(chunk)
    stream.close()
    found: list[Episode] = []
    for seen in explainer.segments:
        if not seen.undone and seen.segment.meta is not None:
            found.extend(seen.segment.meta.views(seen.segment.end_line))
    return found


def match(label: dict[str, Any], found: list[Episode]) -> Episode | None:
    if label["kind"] == "miss":
        return next((e for e in found if e.anchor == "failed_search" and e.call_id == label.get("call_id")), None)
    hedges = [e for e in found if e.anchor != "failed_search"]
    at_line = [e for e in hedges if e.line == label["line"]]
    same = [e for e in at_line if e.tokens[:1] == (label.get("sentence"),)]
    if same or at_line:
        return (same or at_line)[0]
    # A label whose line is an older omkd's anchor line (a Gemini CLI chat's hedges once sat at
    # the end of the stream): the same sentence elsewhere in the file, the nearest first.
    elsewhere = [e for e in hedges if e.tokens[:1] == (label.get("sentence"),)]
    return min(elsewhere, key=lambda e: abs(e.line - label["line"])) if elsewhere else None


def predictions(fixtures: Path, labels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cache: dict[str, list[Episode]] = {}
    rows = []
    for label in labels:
        key = f"{label['set']}/{label['file']}"
        if key not in cache:
            cache[key] = episodes_of(fixtures / label["set"] / label["file"], label["file"])
        episode = match(label, cache[key])
        rows.append(
            {
                "id": label["id"], "repo": label["repo"], "agent": label["agent"], "kind": label["kind"],
                "file": label["file"], "line": label["line"], "split": split_of(label["repo"]),
                "draw": f"draw {label.get('draw', 1)}, {split_of(label['repo'])}",
                "label": label["outcome"], "label_eligible": label.get("eligible"),
                "anchor_ok": label.get("anchor_ok"), "reason": label.get("reason", ""),
                "predicted": episode.outcome or NONE if episode is not None else NONE,
                "eligible": episode.eligible if episode is not None else None,
                "how": episode.outcome_how if episode is not None else "",
                "outcome_line": episode.outcome_line if episode is not None else None,
                "deciding_line": label.get("deciding_line"),
            }
        )  # fmt: skip
    return rows


def _pr(rows: list[dict[str, Any]], outcome: str) -> dict[str, Any]:
    tp = sum(1 for r in rows if r["label"] == outcome and r["predicted"] == outcome)
    predicted = sum(1 for r in rows if r["predicted"] == outcome)
    labelled = sum(1 for r in rows if r["label"] == outcome)
    return {
        "tp": tp, "predicted": predicted, "labelled": labelled,
        "precision": tp / predicted if predicted else None, "precision_ci": wilson(tp, predicted),
        "recall": tp / labelled if labelled else None, "recall_ci": wilson(tp, labelled),
    }  # fmt: skip


def _eligibility(rows: list[dict[str, Any]]) -> dict[str, Any]:
    judged = [r for r in rows if r["kind"] == "miss" and r["label_eligible"] is not None and r["eligible"] is not None]
    agree = sum(1 for r in judged if r["label_eligible"] == r["eligible"])
    confusion: dict[str, int] = defaultdict(int)
    for r in judged:
        confusion[f"label {r['label_eligible']} / omkd {r['eligible']}"] += 1
    return {"n": len(judged), "agree": agree, "ratio": agree / len(judged) if judged else None,
            "ci": wilson(agree, len(judged)), "confusion": dict(sorted(confusion.items()))}  # fmt: skip


def _m3(rows: list[dict[str, Any]]) -> dict[str, Any]:
    flagged = [r for r in rows if r["kind"] == "miss" and r["eligible"] and r["predicted"] == "proceeded"]
    right = sum(1 for r in flagged if r["label"] == "proceeded")
    return {"flagged": len(flagged), "reader_agrees": right, "precision": right / len(flagged) if flagged else None,
            "ci": wilson(right, len(flagged))}  # fmt: skip


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    agree = sum(1 for r in rows if r["label"] == r["predicted"])
    return {
        "n": len(rows), "matched": sum(1 for r in rows if r["predicted"] != NONE),
        "agreement": agree / len(rows) if rows else None, "agreement_ci": wilson(agree, len(rows)),
        "outcomes": {o: _pr(rows, o) for o in OUTCOMES},
        "eligibility": _eligibility(rows), "m3_candidates": _m3(rows),
    }  # fmt: skip


def grouped(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r[key]].append(r)
    return {name: summary(group) for name, group in sorted(groups.items())}


def _f(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _ci(value: Sequence[float] | None) -> str:
    return "" if value is None else f" [{value[0]:.2f}, {value[1]:.2f}]"


def table(name: str, result: dict[str, Any]) -> list[str]:
    lines = [
        f"**{name}**: {result['n']} anchors, {result['matched']} with an omkd episode; outcome agreement "
        f"{_f(result['agreement'])}{_ci(result['agreement_ci'])}",
        "",
        "| outcome | labelled | predicted | TP | precision [95 %] | recall [95 %] |",
        "|---|---|---|---|---|---|",
    ]
    for outcome, s in result["outcomes"].items():
        lines.append(
            f"| {outcome} | {s['labelled']} | {s['predicted']} | {s['tp']} | "
            f"{_f(s['precision'])}{_ci(s['precision_ci'])} | {_f(s['recall'])}{_ci(s['recall_ci'])} |"
        )
    e, m = result["eligibility"], result["m3_candidates"]
    lines += [
        "",
        f"Eligibility agreement (misses): {e['agree']}/{e['n']} = {_f(e['ratio'])}{_ci(e['ci'])}; {e['confusion']}",
        f"M3 candidates (eligible misses omkd calls proceeded): {m['flagged']}, reader also says proceeded "
        f"{m['reader_agrees']} = {_f(m['precision'])}{_ci(m['ci'])}",
    ]
    return lines


def targets(result: dict[str, Any]) -> list[str]:
    lines = []
    for outcome, (precision, recall) in TARGETS.items():
        s = result["outcomes"][outcome]
        ok = s["precision"] is not None and s["precision"] >= precision
        said = f"{outcome} P {_f(s['precision'])} (target {precision})"
        if recall is not None:
            ok = ok and s["recall"] is not None and s["recall"] >= recall
            said += f", R {_f(s['recall'])} (target {recall})"
        lines.append(f"- {status(ok)}: {said}")
    return lines


def disagreements(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["label"] != r["predicted"]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES, help="holding real/ and real-2/")
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    run = this_run(__file__, argv)
    labels = [orjson.loads(line) for line in args.labels.read_bytes().splitlines() if line.strip()]
    rows = predictions(args.fixtures, labels)
    splits = {name: summary([r for r in rows if r["split"] == name]) for name in ("held-out", "dev")}
    splits["all"] = summary(rows)
    result: dict[str, Any] = {
        "splits": splits, "by_agent": grouped(rows, "agent"), "by_kind": grouped(rows, "kind"),
        "by_draw": grouped(rows, "draw"), "by_person": grouped(rows, "repo"),
        "anchor_ok_only": summary([r for r in rows if r["anchor_ok"]]),
        "anchor_ok_held_out": summary([r for r in rows if r["anchor_ok"] and r["split"] == "held-out"]),
        "disagreements": disagreements(rows),
    }  # fmt: skip
    lines = heading("Metacognition: omkd's outcomes against anchors decided by reading", run)
    lines += ["Targets on held-out people:", *targets(splits["held-out"]), ""]
    for name, part in splits.items():
        lines += [*table(f"split {name}", part), ""]
    for name, part in result["by_agent"].items():
        lines += [*table(f"agent {name}", part), ""]
    for name, part in result["by_kind"].items():
        lines += [*table(f"anchor kind {name}", part), ""]
    if len(result["by_draw"]) > 2:  # a later draw measures the rules on anchors no rule was written from
        for name, part in result["by_draw"].items():
            lines += [*table(name, part), ""]
    lines += [*table("anchors the reader confirmed (anchor_ok)", result["anchor_ok_only"]), ""]
    lines += [*table("held-out anchors the reader confirmed (anchor_ok)", result["anchor_ok_held_out"]), ""]
    lines += [
        "| person | split | anchors | agreement [95 %] | recovered P/R | asked P/R |",
        "|---|---|---|---|---|---|",
    ]
    for name, part in result["by_person"].items():
        rec, ask = part["outcomes"]["recovered"], part["outcomes"]["asked"]
        lines.append(
            f"| {name} | {split_of(name)} | {part['n']} | {_f(part['agreement'])}{_ci(part['agreement_ci'])} | "
            f"{_f(rec['precision'])}/{_f(rec['recall'])} | {_f(ask['precision'])}/{_f(ask['recall'])} |"
        )
    save(args.out, "metacog_quality.json", result, "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
