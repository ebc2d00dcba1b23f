"""One transcript file's bytes in, its segment summaries out: ``StreamProcessor``.

The same object reads a file in ``omkd scan``, in the daemon's catch-up workers and in the daemon's
tail, in any chunking: splitter, format adapter and segmenter, counting into one ``StreamCounters``.
``StreamRead`` is what a stream read to its end gives the fold (``fold.py``).
"""

from __future__ import annotations

import dataclasses
import posixpath
from dataclasses import dataclass
from typing import Final

from omkd.engine import formats
from omkd.engine.counters import StreamCounters
from omkd.engine.formats.claude_code import ClaudeCodeAdapter
from omkd.engine.formats.codex import CodexAdapter
from omkd.engine.formats.common import BAD_SHAPE, INVALID_JSON
from omkd.engine.formats.gemini import GeminiAdapter
from omkd.engine.lines import DEFAULT_MAX_LINE_BYTES, LineSplitter
from omkd.engine.links import Link
from omkd.engine.native import mypyc_attr
from omkd.engine.plain import fields_state, set_attributes, set_fields_state
from omkd.engine.segment import SUBAGENT, StreamSegmenter
from omkd.engine.segmenting import Observer, SegmenterRules
from omkd.engine.summary import SegmentSummary
from omkd.engine.text_signals import Refiner

MAIN: Final = "main"
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


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
class StreamProcessor:
    """One transcript file: splitter, adapter and segmenter, fed bytes in any chunking.

    The three count into one ``StreamCounters`` record, ``counters``. The adapter is Claude
    Code's until its first record says the stream is another agent's (``formats.detect_lines``);
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
        #: the stream's format (``formats.*``); None until its first record (a line that is a JSON object) is read.
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
        set_attributes(self, state)

    @property
    def agent(self) -> str:
        """The agent that wrote the stream (``formats.AGENTS``)."""
        return formats.AGENT_OF.get(self.format or formats.CLAUDE_CODE_JSONL, formats.CLAUDE_CODE)

    def _use(self, adapter: ClaudeCodeAdapter | CodexAdapter | GeminiAdapter) -> None:
        self.adapter = adapter
        self.segmenter.rebind(adapter)

    def _detect(self, lines: list[bytes]) -> None:
        found = formats.detect_lines(lines)
        if found is None:
            return  # no record yet: Claude Code's adapter counts the bad lines, the next chunk decides
        self.format = found
        adapter = ADAPTERS[found]
        if not isinstance(self.adapter, adapter):
            line = self.adapter.line
            self._use(adapter(self.counters))
            self.adapter.line = line

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

    @property
    def stream_key(self) -> str:
        """What its segment keys name the stream by: its content's identity, else its name."""
        return self.segmenter.stream_key

    def rename(self, name: str) -> None:
        """The file was renamed: what it hands on from now on is named (and keyed) by ``name``."""
        self.name = self.segmenter.stream = name

    def tentative(self) -> SegmentSummary | None:
        """The segment whose launch is not answered yet, as ``close`` would settle it (``segment_lifecycle``)."""
        return self.segmenter.tentative()

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
        lines, adapter.event_lines = adapter.event_lines, []
        for line, event in zip(lines, events, strict=True):
            adapter.line = line  # each event at its message's index, as ``omkd explain`` and the gaps say
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

    def __getstate__(self) -> list[object]:
        return fields_state(self)

    def __setstate__(self, state: list[object]) -> None:
        set_fields_state(self, state)
