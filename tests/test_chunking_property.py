"""Chunking never changes the result: a real transcript fed in any pieces folds like one pass."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omkd.engine.fold import Fold
from omkd.engine.records import to_data
from omkd.engine.report.build import build_report
from omkd.engine.stream import StreamProcessor

pytestmark = pytest.mark.engine

# Small and medium real files across versions, with failed searches, a Skill call, sub-agent
# streams, command frames and multi-byte text.
FILES = [
    "iansherr__claude-code-log/-Users-dain-workspace-danieldemmel-me-next/5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl",
    "chiphuyen__sniffly/-Users-chip-dev-ai-music/fed8ce56-bc79-401f-a83e-af084253362f.jsonl",
    "d-kimuson__claude-code-viewer/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "marot__spotter/short.jsonl",
    "marot__spotter/tool_heavy.jsonl",
    "chiphuyen__sniffly/-Users-chip-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
    "jnarowski__agentcmd/claude/full/full-session-two.jsonl",
    "iansherr__claude-code-log/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a52886dc180afb356.jsonl",
]


def report_of(name: str, chunks: list[bytes]) -> dict[str, Any]:
    stream = StreamProcessor(name)
    for chunk in chunks:
        stream.feed(chunk)
    fold = Fold()
    fold.add_stream(stream)
    fold.finish()
    document: dict[str, Any] = to_data(build_report(fold, [name], gap_limit=None))
    return document


@pytest.mark.parametrize("relative", FILES, ids=lambda r: Path(r).name)
@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=1 << 20), max_size=40))
def test_any_chunking_folds_like_one_pass(real_fixtures: Path, relative: str, cuts: list[int]) -> None:
    """Feeding a real transcript in arbitrary chunks (even inside a character) gives the one-pass report."""
    path = real_fixtures / relative
    data = path.read_bytes()
    points = [0, *sorted(c % (len(data) + 1) for c in cuts), len(data)]
    chunks = [data[a:b] for a, b in itertools.pairwise(points)]
    assert report_of(path.name, chunks) == report_of(path.name, [data])


def test_byte_by_byte_folds_like_one_pass(real_fixtures: Path) -> None:
    """The extreme chunking, one byte at a time, gives the one-pass report too."""
    path = real_fixtures / FILES[0]
    data = path.read_bytes()
    single_bytes = [data[i : i + 1] for i in range(len(data))]
    assert report_of(path.name, single_bytes) == report_of(path.name, [data])
