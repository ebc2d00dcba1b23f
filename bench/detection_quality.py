"""How true omkd's figures are, measured on real transcripts.

Run from the repository root::

    .venv/bin/python bench/detection_quality.py [--fixtures ../shared/fixtures/real]
        [--labels tests/data/tool_calls.jsonl]

1. **failed_search**: omkd's verdict on every hand-labelled tool call of ``tests/data/tool_calls.jsonl``
   (each label decided by reading the call, its result and the prompts before it; see
   ``tests/data/README.md``). Precision and recall per tool family and overall; positive = the label
   ``failed_search``, predicted = omkd's verdict ``failed_search`` or ``deduplicated`` (a miss equal to
   the previous one of its segment). Every disagreement is listed in the JSON.
2. **Segmentation**: for every Claude Code transcript written by a version that stamps
   ``attributionSkill`` (2.1.123+), the share of assistant records whose segment's skill equals
   Claude Code's own attribution (a built-in name there counts as ``general``), on copies with the
   field removed (omkd must find the skill itself) and on the files as they are. Each repository
   folder is read as a whole, so sub-agent files find their parent. ``Skill`` call records are left
   out (Claude Code counts the call in the previous skill, omkd in the new one).

Targets: failed_search precision >= 0.95 and recall >= 0.93 overall, Bash and Read each >= 0.85 on
both; segmentation >= 95 % stripped and >= 99 % as they are. Output: a markdown table and
``bench/out/detection_quality.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from common import DEFAULT_OUT, REPO_ROOT, heading, save, status, this_run

from omkd.shell import quality

DEFAULT_FIXTURES: Final = REPO_ROOT.parent / "shared" / "fixtures" / "real"
DEFAULT_LABELS: Final = REPO_ROOT / "tests" / "data" / "tool_calls.jsonl"
DEFAULT_AGENT_LABELS: Final = REPO_ROOT / "tests" / "data" / "agent_tool_calls.jsonl"
"""Codex CLI and Gemini CLI calls labelled the same way (reported per agent; no target is set)."""
TARGETS: Final = {"overall": (0.95, 0.93), "Bash": (0.85, 0.85), "Read": (0.85, 0.85)}
SEGMENTATION_TARGETS: Final = {"stripped": 0.95, "as written": 0.99}


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def table(detection: dict[str, Any], segmentation: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "| tool | calls | failed searches (labelled) | TP | FP | FN | precision | recall | target | status |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    scores: dict[str, quality.Scores] = detection["scores"]
    order = [*quality.FAMILIES, "other", "overall"]
    for name in [n for n in order if n in scores]:
        s = scores[name]
        target = TARGETS.get(name)
        ok = target is None or (
            s.precision is not None and s.recall is not None and s.precision >= target[0] and s.recall >= target[1]
        )
        shown = f"P >= {target[0]}, R >= {target[1]}" if target else ""
        lines.append(
            f"| {name} | {s.total} | {s.true_positive + s.false_negative} | {s.true_positive} | {s.false_positive} "
            f"| {s.false_negative} | {_figure(s.precision)} | {_figure(s.recall)} | {shown} "
            f"| {status(ok) if target else ''} |"
        )
    lines += [
        "",
        "| segmentation vs attributionSkill | files | assistant records | agreeing | share | target | status |",
    ]
    lines.append("|---|---:|---:|---:|---:|---:|---|")
    for name, seg in segmentation.items():
        share = seg["agreement"]
        least = SEGMENTATION_TARGETS[name]
        lines.append(
            f"| {name} | {seg['files']} | {seg['records']} | {seg['agree']} | {_figure(share)} | >= {least} "
            f"| {status(share is not None and share >= least)} |"
        )
    return lines


def agent_table(by_agent: dict[str, dict[str, Any]]) -> list[str]:
    """Failed searches of the other agents' labelled calls, overall per agent (no target: reported)."""
    lines = ["", "| agent | calls | failed searches (labelled) | TP | FP | FN | precision | recall |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for agent, detection in by_agent.items():
        s = detection["scores"]["overall"]
        lines.append(
            f"| {agent} | {s.total} | {s.true_positive + s.false_negative} | {s.true_positive} | {s.false_positive} "
            f"| {s.false_negative} | {_figure(s.precision)} | {_figure(s.recall)} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    parser.add_argument("--agent-labels", type=Path, default=DEFAULT_AGENT_LABELS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    run = this_run(__file__, argv)
    labels = quality.read_labels(args.labels)
    detection = quality.failed_search_quality(args.fixtures, labels)
    segmentation = {
        "stripped": quality.segmentation_agreement(args.fixtures, strip=True),
        "as written": quality.segmentation_agreement(args.fixtures, strip=False),
    }
    agent_rows = quality.read_labels(args.agent_labels)
    by_agent = {
        agent: quality.failed_search_quality(args.fixtures, [r for r in agent_rows if r["agent"] == agent])
        for agent in sorted({r["agent"] for r in agent_rows})
    }
    lines = heading("Detection quality", run) + table(detection, segmentation) + agent_table(by_agent)
    document = {
        "run": dataclasses.asdict(run),
        "labels": str(args.labels),
        "failed_search": {name: {**dataclasses.asdict(s), "precision": s.precision, "recall": s.recall}
                          for name, s in detection["scores"].items()},
        "disagreements": detection["disagreements"],
        "segmentation": segmentation,
        "agents": {agent: {"failed_search": {name: {**dataclasses.asdict(s), "precision": s.precision,
                                                    "recall": s.recall} for name, s in q["scores"].items()},
                           "disagreements": q["disagreements"]} for agent, q in by_agent.items()},
    }  # fmt: skip
    save(args.out, "detection_quality.json", document, "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
