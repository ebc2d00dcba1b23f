"""Bytes of transcript files in, folded health out: the whole pure pipeline.

``StreamProcessor`` turns one file's bytes (in any chunking) into segment summaries;
``Fold`` keeps the latest summary of every segment and the per-skill totals of those
inside its event-time window. A segment's figures only grow, and the fold replaces its
old summary by the new one, so folding after every chunk or once at the end gives the
same totals.
"""

from __future__ import annotations

import dataclasses
import hashlib
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from omkd.engine import formats
from omkd.engine.counters import PipelineCounters, StreamCounters
from omkd.engine.figures import SkillTotals
from omkd.engine.formats.claude_code import ClaudeCodeAdapter
from omkd.engine.formats.codex import CodexAdapter
from omkd.engine.formats.common import BAD_SHAPE, INVALID_JSON
from omkd.engine.formats.gemini import GeminiAdapter
from omkd.engine.lines import DEFAULT_MAX_LINE_BYTES, LineSplitter
from omkd.engine.links import Link, LinkBook
from omkd.engine.plain import copy_record
from omkd.engine.segment import SegmenterRules, StreamSegmenter
from omkd.engine.segment_book import HeldBook, SegmentBook
from omkd.engine.segmenting import Observer
from omkd.engine.summary import SegmentSummary
from omkd.engine.text_signals import Refiner
from omkd.engine.window import Window

SUBAGENT: Final = "subagent"
MAIN: Final = "main"
_FINGERPRINT_MOD: Final = 1 << 64
MAX_DOCUMENT_BYTES: Final = 256 * 1024 * 1024
"""A whole-document chat larger than this is not read (counted as ``oversize``)."""
ADAPTERS: Final = {
    formats.CLAUDE_CODE_JSONL: ClaudeCodeAdapter,
    formats.CODEX_ROLLOUT: CodexAdapter,
    formats.CODEX_EXEC: CodexAdapter,
    formats.GEMINI_JSONL: GeminiAdapter,
}


def stream_role(name: str) -> str:
    """Sub-agent transcripts (``agent-*.jsonl``, flat or under ``subagents/``) are their own role."""
    return SUBAGENT if posixpath.basename(name.replace("\\", "/")).startswith("agent-") else MAIN


class StreamProcessor:
    """One transcript file: splitter, adapter and segmenter, fed bytes in any chunking.

    The three count into one ``StreamCounters`` record, ``counters``. The adapter is Claude
    Code's until the first complete line says the stream is another agent's (``formats.detect``);
    a whole-document chat (``.json``) is held until ``close`` and read in one piece.
    """

    def __init__(
        self,
        name: str,
        rules: SegmenterRules | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        observer: Observer | None = None,
        refiner: Refiner | None = None,
    ) -> None:
        """``name``: the file's path relative to its root (gap entries point there); ``refiner``:
        the LLM judge of hedging candidates, when one is configured."""
        self.name = name
        self.role = stream_role(name)
        self.counters = StreamCounters()
        self.splitter = LineSplitter(max_line_bytes)
        self.adapter: ClaudeCodeAdapter | CodexAdapter | GeminiAdapter = ClaudeCodeAdapter(self.counters)
        rules = rules or SegmenterRules()
        self._rules = rules
        self.segmenter = StreamSegmenter(name, self.role, self.adapter, rules, self.counters, observer, refiner=refiner)
        self.bytes_read = 0
        #: the stream's format (``formats.*``); None until its first complete line is read.
        self.format: str | None = None
        #: a whole-document chat's bytes (None for line streams), and whether they last read whole.
        self._document: bytearray | None = None
        self._whole = False
        if formats.is_document(name):
            self.format = formats.GEMINI_JSON
            self._use(GeminiAdapter(self.counters))
            self._document = bytearray()

    def __setstate__(self, state: dict[str, object]) -> None:
        # a processor saved before other agents' formats existed read Claude Code, line by line
        state.setdefault("format", formats.CLAUDE_CODE_JSONL)
        state.setdefault("_document", None)
        state.setdefault("_whole", False)
        if "_rules" not in state:
            segmenter = state["segmenter"]
            state["_rules"] = segmenter._rules  # type: ignore[attr-defined]
        self.__dict__.update(state)

    @property
    def agent(self) -> str:
        """The agent that wrote the stream (``formats.AGENTS``)."""
        return formats.AGENT_OF.get(self.format or formats.CLAUDE_CODE_JSONL, formats.CLAUDE_CODE)

    def _use(self, adapter: ClaudeCodeAdapter | CodexAdapter | GeminiAdapter) -> None:
        self.adapter = adapter
        self.segmenter.rebind(adapter)

    def _detect(self, lines: list[bytes]) -> None:
        first = next((line for line in lines if line.strip()), None)
        if first is None:
            return
        self.format = formats.detect(first)
        adapter = ADAPTERS[self.format]
        if not isinstance(self.adapter, adapter):
            self._use(adapter(self.counters))

    @property
    def lines(self) -> int:
        return self.counters.lines

    @property
    def consumed(self) -> int:
        """The offset its state covers (the checkpoint offset): the end of the last complete line;
        for a whole-document chat every byte read (its state holds them until they form it)."""
        return self.bytes_read if self._document is not None else self.splitter.consumed

    def feed(self, data: bytes) -> None:
        self.bytes_read += len(data)
        if self._document is not None:
            self._hold(data)
            return
        decode = self.adapter.decode
        handle = self.segmenter.handle
        splitter = self.splitter
        lines = splitter.feed(data)
        counters = self.counters
        # Lines skipped for their length are not handed out; the line numbers after one in the
        # same chunk are then early by one (such lines are over 16 MiB: rare).
        self.adapter.line = counters.lines + splitter.oversize
        counters.lines += len(lines)
        counters.bytes = splitter.consumed
        if splitter.oversize:
            counters.bad_lines["oversize"] = splitter.oversize
        if self.format is None:
            self._detect(lines)
            decode = self.adapter.decode
        for line in lines:
            try:
                for event in decode(line):
                    handle(event)
            except (TypeError, AttributeError, KeyError, ValueError, IndexError):
                # a record whose fields have shapes no adapter rule expects: counted, skipped (one
                # valid JSON line must never stop a scan or the daemon)
                counters.bad_lines[BAD_SHAPE] += 1

    def take_changed(self) -> list[SegmentSummary]:
        return self.segmenter.take_changed()

    def take_links(self) -> list[Link]:
        return self.segmenter.take_links()

    def _hold(self, data: bytes) -> None:
        """A whole-document chat: keep its bytes until they form the document, then read it (and
        let the bytes go: a new version of the file is a new stream, read again from 0)."""
        document = self._document
        assert document is not None
        if self._whole:
            if data.strip():
                self.counters.bad_lines[INVALID_JSON] = 1  # bytes after the document's end
            return
        if len(document) + len(data) > MAX_DOCUMENT_BYTES:
            self.counters.bad_lines["oversize"] = 1
            return
        document.extend(data)
        self.counters.bytes = self.bytes_read
        if document.rstrip().endswith(b"}"):  # cheap: only a closing brace can end the document
            self._read_document(final=False)

    def _read_document(self, final: bool) -> None:
        """Read the whole document again with a new segmenter: its segments carry the same keys,
        so the fold replaces what the previous reading gave; the counters are the new reading's.
        A document that does not parse is still being written: it counts as a bad line only if it
        never parsed by the end of the stream."""
        document = self._document
        assert document is not None
        adapter = GeminiAdapter(StreamCounters())
        decoded = adapter.decode_document(bytes(document))
        if decoded is None and (self._whole or not final):
            return  # the last whole reading stands (or none yet)
        events = decoded or []
        self._whole = decoded is not None
        old = self.segmenter
        counters = adapter.counters
        counters.bytes = self.bytes_read
        counters.lines = document.count(b"\n")
        if self._whole:
            document.clear()
        counters.bad_lines.update({k: v for k, v in self.counters.bad_lines.items() if k == "oversize"})
        for name in dataclasses.fields(StreamCounters):
            setattr(self.counters, name.name, getattr(counters, name.name))
        adapter.counters = self.counters
        self.adapter = adapter
        self.segmenter = StreamSegmenter(
            self.name, self.role, adapter, self._rules, self.counters, old.observer, refiner=old.texts.refiner
        )
        handle = self.segmenter.handle
        for event in events:
            try:
                handle(event)
            except (TypeError, AttributeError, KeyError, ValueError, IndexError):
                self.counters.bad_lines[BAD_SHAPE] += 1

    def close(self) -> list[SegmentSummary]:
        """The stream ended: its open segment closes (no figure changes)."""
        if self._document is not None and not self._whole:
            self._read_document(final=True)  # never whole: counted as what it is
        return self.segmenter.close()


@dataclass(frozen=True, slots=True)
class StreamRead:
    """What a stream read to its end gives the fold: plain values, so that a worker process can
    read a file and hand it back (``omkd scan --jobs``)."""

    summaries: list[SegmentSummary]
    links: list[Link]
    counters: StreamCounters
    partial_at_end: bool

    @classmethod
    def of(cls, stream: StreamProcessor) -> StreamRead:
        """Close ``stream`` and take what it gives."""
        summaries = stream.close()
        return cls(summaries, stream.take_links(), stream.counters, bool(stream.splitter.pending_bytes))


def kept_copy(held: SegmentSummary, other: SegmentSummary) -> bool:
    """Of two files' summaries of one segment (two copies of a stream: a session copied, or kept
    at two moments), ``held`` is the one to keep: read further, or as far and later in the order a
    scan discovers files (a folder's files, sorted, before its sub-folders); of two as far under one
    name (the same file read again, or two roots' files of one relative path) the later."""
    if held.end_line != other.end_line:
        return held.end_line > other.end_line
    return discovery_order(held.stream) > discovery_order(other.stream)


def discovery_order(name: str) -> tuple[tuple[int, str], ...]:
    """A sort key of a file's name (its path below its root) in ``omkd scan``'s walk order."""
    *folders, file = name.split("/")
    return (*((1, folder) for folder in folders), (0, file))


def segment_fingerprint(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")


class Fold:
    """The latest summary of every segment, and totals of those inside the window."""

    def __init__(self, window: Window | None = None, book: SegmentBook | None = None) -> None:
        self.window = window or Window()
        self.segments = book if book is not None else SegmentBook()
        """Every segment's latest summary (in memory, or mostly in the daemon's state store)."""
        self.skills: dict[str, SkillTotals] = {}
        """Totals by row (``skills.row_key``: the skill, for its agent)."""
        self.overall = SkillTotals()
        self.fingerprint = 0
        self.counters = PipelineCounters()
        self.links = LinkBook()

    @property
    def outside_window(self) -> int:
        """Segments kept but outside the window (older than it, or newer)."""
        return len(self.segments) - self.overall.segments

    def snapshot(self) -> Fold:
        """The fold's figures as they are now, for a report built while this fold goes on: the
        totals copied, and a ``HeldBook`` answering as this book does now, which holds the window's
        summaries the caller reads now and gives it (``daemon/snapshot.py``)."""
        newest = self.segments.newest_outside(self.window) if self.outside_window else None
        copy = Fold(self.window, HeldBook(len(self.segments), newest))
        copy.skills = {row: copy_record(totals) for row, totals in self.skills.items()}
        copy.overall = copy_record(self.overall)
        copy.fingerprint = self.fingerprint
        copy.counters = copy_record(self.counters)
        return copy

    def add_stream(self, stream: StreamProcessor) -> None:
        """Fold a stream read to its end (``StreamRead.of``)."""
        self.add_read(StreamRead.of(stream))

    def add_read(self, read: StreamRead) -> None:
        """Fold what a stream read to its end gave: its segments, its links and its counters.

        A sub-agent segment whose launching stream is not folded yet waits in ``links``;
        ``finish`` folds what still waits once every stream is in. Two copies of one stream (a
        session kept at two moments) give the same segment keys: the copy read further wins, in
        whatever order they come.
        """
        for summary in read.summaries:
            folded = self.segments.get(summary.key) or self.links.pending.get(summary.key)
            if folded is not None and kept_copy(folded, summary):
                continue  # another copy of the same stream, read further: its figures include these
            self.offer(summary)
        for link in read.links:
            self.learn(link)
        self.counters.add_stream(read.counters)
        self.counters.files += 1
        if read.partial_at_end:
            self.counters.partial_at_end += 1

    def offer(self, summary: SegmentSummary) -> None:
        """Fold a summary, or hold it while its skill is a link not learnt yet."""
        ready = self.settle(summary)
        if ready is not None:
            self.upsert(ready)

    def settle(self, summary: SegmentSummary) -> SegmentSummary | None:
        """The summary with its skill known, or None while it waits. A segment folded before keeps
        the skill it was folded with (resolved, or given up on): later growth does not wait again."""
        if summary.inherit:
            folded = self.segments.get(summary.key)
            if folded is not None:
                return dataclasses.replace(summary, skill=folded.skill, inherit=())
        return self.links.offer(summary)

    def learn(self, link: Link) -> None:
        for ready in self.links.learn(link):
            self.upsert(ready)

    def finish(self) -> None:
        """Every stream is in: sub-agent segments still without their link count as ``general``."""
        for ready in self.links.flush():
            self.upsert(ready)

    def upsert(self, summary: SegmentSummary) -> None:
        """Add a new segment or replace an older summary of it."""
        old = self.segments.get(summary.key)
        self.segments.put(summary, old)
        if old is not None and self.window.contains(old.first_ts):
            self._count(old, -1)
        if self.window.contains(summary.first_ts):
            self._count(summary, 1)

    def adopt(self, summary: SegmentSummary) -> None:
        """Take back a saved summary (a restart): counted in the window, nothing to replace."""
        self.segments.adopt(summary)
        if self.window.contains(summary.first_ts):
            self._count(summary, 1)

    def forget(self, key: str) -> None:
        """Drop a segment entirely (retention)."""
        old = self.segments.pop(key)
        if old is not None and self.window.contains(old.first_ts):
            self._count(old, -1)

    def advance(self, since: float) -> int:
        """Move the window's start forward to ``since``; the number of segments that fell out."""
        current = self.window.since
        if current is not None and since <= current:
            return 0
        leaving = self.window
        self.window = Window(since, leaving.until)
        dropped = 0
        for summary in self.segments.leaving(current, since):
            if leaving.contains(summary.first_ts):
                self._count(summary, -1)
                dropped += 1
        return dropped

    def rewindow(self, window: Window) -> None:
        """Use another window, recounting every segment (for a changed window length)."""
        self.window = window
        self.skills.clear()
        self.overall = SkillTotals()
        self.fingerprint = 0
        self.segments.reindex()
        for summary in self.segments.inside(window):
            self._count(summary, 1)

    def _count(self, summary: SegmentSummary, sign: int) -> None:
        row = summary.row
        totals = self.skills.get(row)
        if totals is None:
            totals = self.skills[row] = SkillTotals()
        totals.add(summary, sign)
        self.overall.add(summary, sign)
        if totals.segments == 0:
            del self.skills[row]
        self.fingerprint = (self.fingerprint + sign * segment_fingerprint(summary.key)) % _FINGERPRINT_MOD

    def in_window(self) -> Iterator[SegmentSummary]:
        return self.segments.inside(self.window)

    def gapped_in_window(self) -> Iterator[SegmentSummary]:
        """The segments in the window that hold a signal."""
        return self.segments.gapped_inside(self.window)

    def open_in_window(self) -> Iterator[SegmentSummary]:
        """The open segments in the window: those of a stream still being written."""
        return self.segments.open_inside(self.window)
