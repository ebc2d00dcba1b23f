"""The parser states of the files being followed: in memory while active, in the store otherwise.

A stream processor holds a file's unfinished business (open segments, calls awaiting their
result, the splitter's position). At most ``max_in_memory`` are kept in memory; the least
recently read ones that are checkpointed are evicted and loaded back from the state store
when their file grows again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import orjson
import structlog

from omkd import __version__
from omkd.daemon.state.store import StateStore
from omkd.daemon.tracked import TrackedFile
from omkd.engine import stream_state
from omkd.engine.detect import registry
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.stream import StreamProcessor
from omkd.engine.text_signals import Refiner

log = structlog.get_logger("omkd.ingest")

STREAM_STATE_VERSION: Final = registry.state_version()
"""Derived from the signal registry and the shapes of the engine classes a parser state holds
(``detect/registry.py``): saved states of another version are not loaded (their files are read
again from the start)."""


def stream_fingerprint(rules_hash: str, max_line_bytes: int) -> str:
    """What a saved parser state was made by: its format, omkd's version, the rule tables and the
    configured segmenter rules and judge (``rules_hash``), the line cap."""
    return f"{STREAM_STATE_VERSION}/{__version__}/{rules_hash}/{max_line_bytes}"


def load_state(state: bytes | None, stream_id: str) -> StreamProcessor | None:
    """A saved parser state (plain data: ``engine/stream_state.py``), or None (with a log line)
    when it cannot be used: the file is then read again from its start."""
    if state is None:
        return None
    try:
        processor = stream_state.loads(state)
    except (orjson.JSONDecodeError, stream_state.StateError, AttributeError, ImportError, KeyError, TypeError,
            ValueError) as error:  # fmt: skip
        log.warning("stream_state_unreadable", stream=stream_id, error=str(error))
        return None
    return processor if isinstance(processor, StreamProcessor) else None


def state_of(processor: StreamProcessor) -> bytes:
    return stream_state.dumps(processor)


class StreamStates:
    """Stream processors by stream id, backed by the state store."""

    def __init__(
        self,
        store: StateStore,
        rules: SegmenterRules,
        max_line_bytes: int,
        roots: list[Path],
        refiner: Refiner | None = None,
    ) -> None:
        self.store = store
        self.rules = rules
        self.refiner = refiner
        self.max_line_bytes = max_line_bytes
        self.roots = roots
        self.processors: dict[str, StreamProcessor] = {}
        self.again: set[str] = set()
        """Streams reading again a file read before (a new version of it, or its parser state lost):
        their segments replace what the earlier reading gave (``LiveFold.apply``)."""
        self.unsaved: dict[str, bytes] = {}
        """Parser states made elsewhere (a catch-up worker: ``backfill.py``), not in the store yet:
        saved as they are at the next checkpoint, loaded if their file grows first."""

    def name_of(self, path: str) -> str:
        """A file's name in reports: its path relative to the root it is under."""
        for root in self.roots:
            base = str(root).rstrip("/") + "/"
            if path.startswith(base):
                return path[len(base) :]
        return os.path.basename(path)

    def __len__(self) -> int:
        return len(self.processors)

    def get(self, stream_id: str) -> StreamProcessor | None:
        return self.processors.get(stream_id)

    def of(self, file: TrackedFile) -> StreamProcessor:
        """The file's processor: in memory, loaded from the store, or new (reading from 0)."""
        processor = self.processors.get(file.stream_id)
        if processor is None:
            processor = load_state(self._saved_state(file.stream_id), file.stream_id)
            if processor is None:
                if file.read_offset:
                    # No usable state at this offset: read the file again from the start. The
                    # segments it yields carry the same keys, so nothing is counted twice; the
                    # pipeline counters take back what the new reading counts up to here.
                    log.warning("stream_reread", path=file.path)
                    file.counted_to = max(file.counted_to, file.read_offset)
                    file.read_offset = 0
                    self.again.add(file.stream_id)
                processor = StreamProcessor(self.name_of(file.path), self.rules, self.max_line_bytes)
            processor.segmenter.texts.attach(self.refiner)
            self.processors[file.stream_id] = processor
        return processor

    def take(self, stream_id: str) -> StreamProcessor | None:
        """Remove and return a stream's processor (from memory, else from the store)."""
        processor = self.processors.pop(stream_id, None)
        if processor is None:
            processor = load_state(self._saved_state(stream_id), stream_id)
        return processor

    def _saved_state(self, stream_id: str) -> bytes | None:
        state = self.unsaved.pop(stream_id, None)
        return state if state is not None else self.store.load_stream_state(stream_id)

    def forget(self, stream_id: str) -> None:
        """Drop a stream's parser state, in memory or made elsewhere (the saved one stays until the
        checkpoint drops the file)."""
        self.processors.pop(stream_id, None)
        self.unsaved.pop(stream_id, None)
        self.again.discard(stream_id)

    def evict(self, file: TrackedFile) -> None:
        """Drop a checkpointed processor from memory; its file reads on from the saved offset."""
        processor = self.processors.pop(file.stream_id)
        file.read_offset = processor.consumed
