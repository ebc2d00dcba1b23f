"""LineSplitter: complete lines out of bytes, whatever the chunking (style.md §1)."""

from __future__ import annotations

import itertools
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omkd.engine.lines import LineSplitter

pytestmark = pytest.mark.engine

SMALL_REAL = Path(
    "iansherr__claude-code-log/-Users-dain-workspace-danieldemmel-me-next/5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl"
)

# Text with newlines and characters of every UTF-8 length (1 to 4 bytes), so cuts land inside characters.
byte_streams = st.text(
    alphabet=st.one_of(st.just("\n"), st.sampled_from('aé€😀{}":'), st.characters(codec="utf-8")),
    max_size=300,
).map(lambda s: s.encode("utf-8"))


def chunks_of(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` cut at the given offsets (in any order, repeats allowed: empty chunks are fed too)."""
    points = [0, *sorted(min(c, len(data)) for c in cuts), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(points)]


def complete_lines(data: bytes) -> list[bytes]:
    """The lines of ``data`` that end with a newline: an independent reference, not omkd."""
    return data.split(b"\n")[:-1]


@settings(max_examples=300, deadline=None)
@given(data=byte_streams, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_any_chunking_yields_the_lines_of_one_pass(data: bytes, cuts: list[int]) -> None:
    """Cutting the bytes anywhere, even inside a multi-byte character, gives exactly the lines of one pass."""
    one_pass = LineSplitter().feed(data)
    splitter = LineSplitter()
    lines: list[bytes] = []
    for chunk in chunks_of(data, cuts):
        lines.extend(splitter.feed(chunk))
    assert one_pass == complete_lines(data)
    assert lines == one_pass
    assert (splitter.oversize, splitter.pending_bytes) == (0, len(data) - (data.rfind(b"\n") + 1))


@settings(max_examples=300, deadline=None)
@given(data=byte_streams, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_consumed_is_the_offset_after_the_last_complete_line(data: bytes, cuts: list[int]) -> None:
    """After every feed, ``consumed`` is the offset just past the last newline received so far."""
    splitter = LineSplitter()
    fed = b""
    for chunk in chunks_of(data, cuts):
        splitter.feed(chunk)
        fed += chunk
        assert splitter.consumed == fed.rfind(b"\n") + 1


def test_real_transcript_split_at_every_byte_offset(real_fixtures: Path) -> None:
    """A real transcript cut into two chunks at every byte offset always gives the lines of one pass."""
    data = (real_fixtures / SMALL_REAL).read_bytes()
    # The file is 10,083 bytes, 12 records, each ending with "\n" (SOURCES.md; `wc -c`, `wc -l`),
    # and holds multi-byte UTF-8 (bytes > 0x7f), so some cuts fall inside a character.
    assert (len(data), data.count(b"\n")) == (10_083, 12)
    assert any(byte > 0x7F for byte in data)
    one_pass = LineSplitter().feed(data)
    assert one_pass == complete_lines(data)
    for offset in range(len(data) + 1):
        splitter = LineSplitter()
        lines = splitter.feed(data[:offset]) + splitter.feed(data[offset:])
        assert (lines, splitter.consumed, splitter.pending_bytes) == (one_pass, len(data), 0), offset


def test_partial_last_line_is_never_returned() -> None:
    """A line without its newline is a record still being written: held back until the newline arrives."""
    splitter = LineSplitter()
    first = splitter.feed(b'{"a":1}\n{"b"')
    held = (splitter.pending_bytes, splitter.consumed)
    second = splitter.feed(b":2")
    third = splitter.feed(b"}\n")
    assert (first, held, second, third, splitter.consumed) == ([b'{"a":1}'], (4, 8), [], [b'{"b":2}'], 16)


def test_line_of_exactly_the_cap_is_kept_one_byte_more_is_skipped() -> None:
    """The cap is inclusive: a line of ``max_line_bytes`` is kept, a longer one is skipped and counted."""
    splitter = LineSplitter(max_line_bytes=5)
    lines = splitter.feed(b"12345\n123456\nab\n")
    assert (lines, splitter.oversize) == ([b"12345", b"ab"], 1)


def test_cap_must_be_positive() -> None:
    """A cap below one byte is refused."""
    with pytest.raises(ValueError, match="max_line_bytes"):
        LineSplitter(max_line_bytes=0)


CAP = 16
# Lines of 0..40 bytes (some over the cap of 16), printable ASCII or multi-byte characters.
line_lists = st.lists(
    st.text(alphabet=st.sampled_from("x{}é😀"), max_size=12).map(lambda s: s.encode("utf-8")),
    min_size=1,
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(lines=line_lists, cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=15))
def test_oversize_lines_skipped_and_counted_with_bounded_memory(lines: list[bytes], cuts: list[int]) -> None:
    """Lines over the cap are skipped and counted, neighbours intact, and never more than the cap is buffered."""
    data = b"".join(one + b"\n" for one in lines)
    splitter = LineSplitter(max_line_bytes=CAP)
    kept: list[bytes] = []
    most_pending = 0
    for chunk in chunks_of(data, cuts):
        kept.extend(splitter.feed(chunk))
        most_pending = max(most_pending, splitter.pending_bytes)
    expected_kept = [one for one in lines if len(one) <= CAP]
    expected_oversize = sum(1 for one in lines if len(one) > CAP)
    assert (kept, splitter.oversize) == (expected_kept, expected_oversize)
    assert most_pending <= CAP
    assert splitter.consumed == len(data)


def test_oversize_line_fed_byte_by_byte_keeps_its_neighbours() -> None:
    """A 1,000-byte line under a 16-byte cap, fed one byte at a time: skipped, counted, neighbours kept."""
    data = b'{"a":1}\n' + b"y" * 1000 + b'\n{"b":2}\n'
    splitter = LineSplitter(max_line_bytes=CAP)
    kept: list[bytes] = []
    most_pending = 0
    for index in range(len(data)):
        kept.extend(splitter.feed(data[index : index + 1]))
        most_pending = max(most_pending, splitter.pending_bytes)
    assert (kept, splitter.oversize, most_pending) == ([b'{"a":1}', b'{"b":2}'], 1, CAP)


@settings(max_examples=300, deadline=None)
@given(
    lines=line_lists,
    tail=st.integers(min_value=0, max_value=40),
    cuts=st.lists(st.integers(min_value=0, max_value=700), max_size=15),
    stop=st.integers(min_value=0, max_value=16),
)
def test_restart_from_checkpoint_reads_each_line_once(
    lines: list[bytes], tail: int, cuts: list[int], stop: int
) -> None:
    """A splitter restored from its checkpoint and fed the file from ``consumed`` on ends as one pass would.

    The tailer contract a partial line completed after a restart is processed exactly once, and an
    over-long line stays skipped and counted once, whenever the restart happens.
    """
    data = b"".join(one + b"\n" for one in lines) + b"z" * tail
    one_pass = LineSplitter(max_line_bytes=CAP)
    expected = one_pass.feed(data)
    before = LineSplitter(max_line_bytes=CAP)
    got: list[bytes] = []
    for chunk in chunks_of(data, cuts)[:stop]:
        got.extend(before.feed(chunk))
    restored: LineSplitter = pickle.loads(pickle.dumps(before))  # noqa: S301 - our own checkpoint
    got.extend(restored.feed(data[restored.consumed :]))
    assert (got, restored.oversize, restored.consumed) == (expected, one_pass.oversize, one_pass.consumed)
