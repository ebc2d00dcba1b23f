"""The catch-up worker's side of ``backfill.py``: ``serve`` answers each file the daemon sends
through its pipe with ``read_first``'s reading of it. A worker is a spawned interpreter that
imports this module first, so it imports only what reading needs (no logging, asyncio or HTTP).
"""

from __future__ import annotations

import os
import signal
import stat
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Final

from omkd.daemon.identity import HEAD_BYTES, MARKER_BYTES, digest, head_length
from omkd.engine import stream_state
from omkd.engine.counters import StreamCounters
from omkd.engine.links import Link
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.stream import StreamProcessor
from omkd.engine.summary import SegmentSummary

CHUNK_BYTES: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class FirstRead:
    """A file read from 0 by a worker (``read_first``)."""

    consumed: int
    """The offset the state covers: the end of the last complete line read."""
    head_len: int
    head_hash: bytes
    tail: bytes
    """The bytes just before ``consumed`` (up to the tailer's MARKER_BYTES)."""
    state: bytes
    """The processor's state once its summaries and links were taken (to save at a checkpoint,
    and to load when the file grows)."""
    counters: StreamCounters
    summaries: list[SegmentSummary]
    links: list[Link]
    tentative: SegmentSummary | None = None
    """The segment whose launch the file leaves unanswered (``StreamProcessor.tentative``)."""


def read_first(
    path: str, identity: tuple[int, int], name: str, rules: SegmenterRules, max_line_bytes: int
) -> FirstRead | None:
    """Read the file at ``path`` from 0 to its end, if it is still the one of ``identity``
    (in a worker process); None when it is not, or cannot be read (the loop reads it then)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    processor = StreamProcessor(name, rules, max_line_bytes)
    head = b""
    recent, recent_at = b"", 0  # the last bytes read, from offset recent_at: the tail without a second read
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != identity:
            return None
        offset = 0
        while chunk := os.pread(fd, CHUNK_BYTES, offset):
            processor.feed(chunk)
            if len(head) < HEAD_BYTES:
                head += chunk[: HEAD_BYTES - len(head)]
            keep = recent[-MARKER_BYTES:]
            recent, recent_at = keep + chunk, offset - len(keep)
            offset += len(chunk)
        consumed = processor.consumed
        start = max(0, consumed - MARKER_BYTES)
        if start >= recent_at:
            tail = recent[start - recent_at : consumed - recent_at]
        else:  # a partial last line longer than a read: its start is further back
            tail = os.pread(fd, consumed - start, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    summaries, links = processor.take_changed(), processor.take_links()
    head_len = head_length(consumed)
    state = stream_state.dumps(processor)
    return FirstRead(
        consumed, head_len, digest(head[:head_len]), tail, state, processor.counters, summaries, links,
        processor.tentative(),
    )  # fmt: skip


ReadTask = tuple[str, tuple[int, int], str]
"""A file to read, as sent to a worker: ``read_first``'s path, identity and name (the rules and
the line cap come once, when the worker starts)."""


def serve(connection: Connection, rules: SegmenterRules, max_line_bytes: int) -> None:
    """A catch-up worker: read each file sent until told to stop (None) or the daemon is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the daemon decides
    while True:
        try:
            task: ReadTask | None = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        reply: tuple[str, Any]
        try:
            reply = ("read", read_first(*task, rules, max_line_bytes))
        except Exception as error:  # told to the daemon, which reads the file itself
            reply = ("failed", f"{type(error).__name__}: {error}")
        connection.send(reply)
