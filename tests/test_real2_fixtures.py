"""Every real transcript of ``../shared/fixtures/real-2`` (27 people omkd was not built on: Claude Code
2.0-2.1, Codex CLI, Gemini CLI; many languages) scans and explains without error, each person's folder
as a whole so that sub-agents find their parent."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from omkd.engine import formats, records
from omkd.engine.report.build import build_report
from omkd.engine.report.schema import Report
from omkd.shell.explain import explain
from omkd.shell.scan import Source, discover, scan

PEOPLE = sorted(
    p.name for p in (Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "real-2").iterdir() if p.is_dir()
)


def test_the_set_holds_every_person(real2_fixtures: Path) -> None:
    assert len(PEOPLE) == 27
    files = [p for p in real2_fixtures.rglob("*") if p.is_file() and formats.is_transcript(str(p))]
    assert len(files) == 411  # of the 438 files SOURCES.md lists, the rest are .meta.json and other notes


@pytest.mark.parametrize("person", PEOPLE)
def test_each_persons_transcripts_scan_and_explain_without_error(real2_fixtures: Path, person: str) -> None:
    root = real2_fixtures / person
    sources = discover([root])
    assert sources, f"{person}: no transcript found"
    fold = scan(sources)
    report = build_report(fold, [str(root)], gap_limit=None)
    assert report.pipeline.files == len(sources)
    assert records.parse(Report, records.to_data(report)) == report
    explanation, _, _ = explain([Source(s.path, s.name) for s in sources])
    counted = sum(1 for row in explanation.segments if row.counted)
    assert counted == report.overall.segments
    # every call omkd judged has a verdict from the vocabulary omkd explain documents
    assert {row.verdict for row in explanation.calls} <= {
        "failed_search", "deduplicated", "user_given", "verify_absence", "found", "not_a_search", "tool_fault",
        "cancelled", "harness_refused",
    }  # fmt: skip


def test_a_gemini_documents_calls_are_explained_at_their_message(real2_fixtures: Path) -> None:
    """In a whole-document Gemini chat a record's line is its message's 1-based index: each call is
    explained (and its gap placed) at the message that holds it, not at the document's last one."""
    documents = sorted(p for p in real2_fixtures.rglob("session-*.json") if p.is_file())
    assert documents
    checked = 0
    for path in documents[:6]:
        messages = orjson.loads(path.read_bytes())["messages"]
        explanation, _, _ = explain([Source(path, path.name)])
        for call in explanation.calls:
            holder = messages[call.line - 1]
            assert call.call_id in orjson.dumps(holder).decode(), (path.name, call.call_id, call.line)
            checked += 1
    assert checked > 20
