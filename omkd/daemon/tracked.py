"""The files the tailer follows, and what a look at the roots (``Tailer.rescan``, ``Tailer.poke``)
found about them: the reader acts on it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from omkd.daemon.identity import digest


def new_stream_id() -> str:
    return uuid.uuid4().hex


@dataclass(slots=True)
class TrackedFile:
    """One transcript file being followed."""

    stream_id: str
    path: str
    dev: int
    ino: int
    read_offset: int = 0
    """Bytes handed to the stream so far (the checkpoint may be behind: a partial line)."""
    head_len: int = 0
    head_hash: bytes = field(default=digest(b""))
    size: int = 0
    mtime_ns: int = 0
    fd: int | None = None
    last_read: float = 0.0
    """Monotonic time of the last read that returned bytes."""
    tail: bytes = b""
    """The last bytes read (up to MARKER_BYTES), ending at ``tail_end``: the offset marker
    without reading again."""
    tail_end: int = 0
    counted_to: int = 0
    """Bytes whose counts the pipeline holds from a reading whose parser state was lost (it did
    not load): read again from 0, their counts are taken back out once the reading is there."""

    @property
    def identity(self) -> tuple[int, int]:
        return (self.dev, self.ino)


class EndReason(Enum):
    DELETED = "deleted"
    ROTATED = "rotated"  # renamed out of the roots
    TRUNCATED = "truncated"  # shorter than what was read, or its head changed
    VANISHED = "vanished"  # gone while omkd was down or its descriptor was closed


@dataclass(frozen=True, slots=True)
class Ended:
    file: TrackedFile
    reason: EndReason


@dataclass(slots=True)
class ScanResult:
    started: list[TrackedFile] = field(default_factory=list)
    grown: list[TrackedFile] = field(default_factory=list)
    ended: list[Ended] = field(default_factory=list)
    renamed: int = 0
    moved: list[tuple[TrackedFile, str]] = field(default_factory=list)  # renamed below the roots: the path it had
    missing_roots: list[Path] = field(default_factory=list)
