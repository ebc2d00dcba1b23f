"""The hand-labelled tool calls are sound, and the quality arithmetic is right on hand-made cases.

The figures themselves (precision, recall, agreement on the real fixtures) are measured by
``bench/detection_quality.py``, never asserted here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from omkd.shell import quality
from tests.conftest import REAL_FIXTURES
from tests.transcript_builder import Transcript

pytestmark = pytest.mark.engine

LABELS = Path(__file__).parent / "data" / "tool_calls.jsonl"


def calls_of(path: Path) -> dict[str, tuple[int, str]]:
    """call id -> (line, tool name) of every tool_use in a transcript, read with python ``json``."""
    found: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        for part in (message or {}).get("content") or [] if isinstance(message, dict) else []:
            if isinstance(part, dict) and part.get("type") == "tool_use":
                found[part["id"]] = (number, part["name"])
    return found


def test_every_label_names_a_real_call_with_a_reason(real_fixtures: Path) -> None:
    """Each row points at a tool_use of its file at its line, with a known label and a one-line reason."""
    rows = quality.read_labels(LABELS)
    by_file: dict[str, dict[str, tuple[int, str]]] = {}
    for row in rows:
        calls = by_file.setdefault(row["file"], calls_of(real_fixtures / row["file"]))
        assert calls.get(row["call_id"]) == (row["line"], row["tool"]), row
        assert (row["label"] in quality.CALL_LABELS, 0 < len(row["reason"]) <= 140) == (True, True), row
    assert len({(r["file"], r["call_id"]) for r in rows}) == len(rows)


def test_the_labelled_set_covers_every_tool_family() -> None:
    """At least 300 calls, every family the rules judge, empty and error results oversampled."""
    rows = quality.read_labels(LABELS)
    tools = Counter(quality.family(r["tool"]) for r in rows)
    assert len(rows) >= 300
    assert all(tools[name] > 0 for name in quality.FAMILIES), tools
    assert any(r["tool"] == "PowerShell" for r in rows)
    assert any(r["tool"].startswith("mcp__") for r in rows)
    assert sum(r["label"] == "failed_search" for r in rows) >= 100


def test_scores_count_agreement_by_hand() -> None:
    """(labelled, predicted): 3 true positives, 1 false positive, 2 false negatives, 4 true negatives."""
    pairs = [(True, True)] * 3 + [(False, True)] + [(True, False)] * 2 + [(False, False)] * 4
    scores = quality.score(pairs)
    assert (scores.precision, scores.recall, scores.total) == (3 / 4, 3 / 5, 10)
    assert quality.score([(False, False)]).precision is None


def test_failed_search_quality_on_a_hand_labelled_transcript(tmp_path: Path) -> None:
    """Three calls labelled by hand against omkd's verdicts: a miss both agree on, a hit both agree
    on, and a Bash health check omkd calls a miss that the label says is not one (a false positive)."""
    t = Transcript(session_id="9a9a9a9a-1111-4222-8333-444455556666")
    t.prompt("is the service up?")
    miss = t.glob_miss("**/retry*.yaml")
    hit = t.glob_hit("**/client.py")
    detail = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False}
    detail["returnCodeInterpretation"] = "No matches found"
    filtered = t.call("Bash", {"command": "curl -s localhost:8080/health | grep -c ok"}, "", detail=detail)
    (tmp_path / "s.jsonl").write_bytes(t.to_bytes())
    labels = [
        {"file": "s.jsonl", "line": 2, "call_id": miss, "tool": "Glob", "label": "failed_search", "reason": "r"},
        {"file": "s.jsonl", "line": 4, "call_id": hit, "tool": "Glob", "label": "found", "reason": "r"},
        {"file": "s.jsonl", "line": 6, "call_id": filtered, "tool": "Bash", "label": "not_a_search", "reason": "r"},
    ]
    result = quality.failed_search_quality(tmp_path, labels)
    glob, bash, overall = (result["scores"][k] for k in ("Glob", "Bash", "overall"))
    assert (glob.true_positive, glob.true_negative, bash.false_positive) == (1, 1, 1)
    assert (overall.precision, overall.recall) == (1 / 2, 1.0)
    assert [d["call_id"] for d in result["disagreements"]] == [filtered]


def test_segmentation_agreement_on_a_hand_made_attributed_transcript(tmp_path: Path) -> None:
    """Five assistant records stamped by Claude Code (2.1.150): the Skill call is left out; of the
    other four, omkd agrees on all, with the field and without it."""
    t = Transcript(session_id="8b8b8b8b-1111-4222-8333-444455556666", version="2.1.150")
    t.prompt("deploy")
    t.say("On it.")
    t.skill("deploy")
    t.say("Step one.", attribution="deploy")
    t.say("Step two.", attribution="deploy")
    t.prompt("thanks, now explain the logs")
    t.say("The logs say …")
    folder = tmp_path / "owner__repo"
    folder.mkdir()
    (folder / f"{t.session_id}.jsonl").write_bytes(t.to_bytes())
    for strip in (True, False):
        found = quality.segmentation_agreement(tmp_path, strip=strip)
        assert (found["records"], found["agree"], found["files"]) == (4, 4, 1)


@pytest.mark.parametrize("strip", [True, False], ids=["stripped", "as written"])
def test_segmentation_agreement_runs_over_the_real_fixtures(real_fixtures: Path, strip: bool) -> None:
    """The measurement reads every attributed fixture (the share itself is the benchmark's to report)."""
    found = quality.segmentation_agreement(REAL_FIXTURES, strip=strip)
    assert found["files"] > 0
    assert 0 < found["agree"] <= found["records"]


AGENT_LABELS = Path(__file__).parent / "data" / "agent_tool_calls.jsonl"


def agent_calls_of(path: Path) -> dict[str, tuple[int, str]]:
    """call id -> (line, tool) of every Codex or Gemini call, read with python ``json``: a Codex
    rollout's ``function_call``/``custom_tool_call``, an ``exec --json`` ``command_execution`` item,
    a Gemini message's ``toolCalls`` (its line: the 1-based message index in a ``.json`` document)."""
    found: dict[str, tuple[int, str]] = {}
    messages: Iterable[tuple[int, Any]]
    if path.suffix == ".json":
        messages = enumerate(json.loads(path.read_bytes())["messages"], 1)
    else:
        messages = ((n, json.loads(line)) for n, line in enumerate(path.read_bytes().splitlines(), 1) if line.strip())
    for number, record in messages:
        if not isinstance(record, dict):
            continue
        payload = record.get("payload")
        if isinstance(payload, dict) and payload.get("type") in ("function_call", "custom_tool_call"):
            found[payload["call_id"]] = (number, payload["name"])
        item = record.get("item")
        if (
            record.get("type") == "item.completed"
            and isinstance(item, dict)
            and item.get("type") == "command_execution"
        ):
            found[item["id"]] = (number, "command_execution")
        for call in record.get("toolCalls") or []:
            found[call["id"]] = (number, call["name"])
    return found


def test_every_agent_label_names_a_real_call_with_a_reason(real_fixtures: Path) -> None:
    """The Codex and Gemini labels point at real calls, each with a known label and a one-line reason;
    both agents and their misses are there."""
    rows = quality.read_labels(AGENT_LABELS)
    by_file: dict[str, dict[str, tuple[int, str]]] = {}
    for row in rows:
        calls = by_file.setdefault(row["file"], agent_calls_of(real_fixtures / row["file"]))
        assert calls.get(row["call_id"]) == (row["line"], row["tool"]), row
        assert (row["label"] in quality.CALL_LABELS, 0 < len(row["reason"]) <= 140) == (True, True), row
    assert len({(r["file"], r["call_id"]) for r in rows}) == len(rows)
    counts = Counter((r["agent"], r["label"] == "failed_search") for r in rows)
    assert (counts["codex", True] >= 30, counts["gemini", True] >= 3, len(rows) >= 400) == (True, True, True)
