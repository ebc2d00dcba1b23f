"""Two files that give one segment: the live fold keeps the copy a scan keeps (``fold.kept_copy``),
also under one name; a new version of one file replaces (``again``)."""

from __future__ import annotations

import pytest

from omkd.engine.fold import Fold
from omkd.engine.live import LiveFold
from omkd.engine.stream import StreamProcessor, StreamRead
from omkd.engine.summary import SegmentSummary
from tests.live_helpers import session_bytes

pytestmark = pytest.mark.engine

NAME = "-home-dev-shop/s.jsonl"
WALL = 1_767_225_600.0 + 3600


def summaries(data: bytes) -> list[SegmentSummary]:
    stream = StreamProcessor(NAME)
    stream.feed(data)
    return StreamRead.of(stream).summaries


def live_of(*reads: tuple[list[SegmentSummary], bool]) -> dict[str, int]:
    live = LiveFold(3650 * 86400.0, 3650 * 86400.0, 7, WALL)
    for read, again in reads:
        for summary in read:
            live.apply(summary, again)
    return {s.key: s.end_line for s in live.fold.segments.values()}


def test_of_two_copies_under_one_name_the_one_read_further_is_kept_in_any_order() -> None:
    full = session_bytes([("deploy", "miss"), ("db-migrate", "misses3")])
    lines = full.splitlines(keepends=True)
    longer, shorter = summaries(full), summaries(b"".join(lines[: len(lines) - 3]))
    batch = Fold()
    for read in (longer, shorter):
        batch.add_read(StreamRead(read, [], StreamRead.of(StreamProcessor(NAME)).counters, False))
    expected = {s.key: s.end_line for s in batch.segments.values()}
    assert live_of((longer, False), (shorter, False)) == live_of((shorter, False), (longer, False)) == expected
    assert expected == {s.key: s.end_line for s in longer}


def test_a_new_version_of_a_file_replaces_what_it_said_before() -> None:
    full = session_bytes([("deploy", "miss"), ("db-migrate", "misses3")])
    lines = full.splitlines(keepends=True)
    longer, shorter = summaries(full), summaries(b"".join(lines[: len(lines) - 3]))
    kept = live_of((longer, False), (shorter, True))
    assert kept == {**{s.key: s.end_line for s in longer}, **{s.key: s.end_line for s in shorter}}
    assert kept != {s.key: s.end_line for s in longer}
