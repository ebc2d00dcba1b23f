"""Pick up the files a checkpoint names: continue each one that is intact, end the others.

A saved file is found by its identity (device, inode) at its saved path or, if it was renamed
while omkd was down, beside it. It continues only if its first bytes and the bytes before the
saved offset are unchanged; otherwise its saved stream is closed as it was and the file is
read again from 0 as a new stream.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import structlog

from omkd.daemon.state import FileCheckpoint
from omkd.daemon.streams import unpickle
from omkd.daemon.tailer import Tailer, TrackedFile

if TYPE_CHECKING:
    from omkd.daemon.ingest import Ingest

log = structlog.get_logger("omkd.ingest")


def locate(tailer: Tailer, cp: FileCheckpoint) -> str | None:
    try:
        info = os.stat(cp.path)
        if (info.st_dev, info.st_ino) == (cp.dev, cp.ino):
            return cp.path
    except OSError:
        pass
    return tailer.find_in_directory(cp.path, (cp.dev, cp.ino))


def _intact(tailer: Tailer, file: TrackedFile, cp: FileCheckpoint) -> os.stat_result | None:
    try:
        info = os.stat(file.path)
        if info.st_size >= cp.offset and tailer.head_matches(file) and tailer.marker(file, cp.offset) == cp.marker_hash:
            return info
    except OSError:
        pass
    return None


def _end_saved(ingest: Ingest, cp: FileCheckpoint, why: str) -> None:
    """A checkpointed file cannot be continued: close its stream as it was saved."""
    processor = unpickle(cp.state, cp.stream_id)
    if processor is not None:
        ingest.fold_changes(processor, closing=True)
    ingest.drop_saved(cp.stream_id)
    log.info("stream_ended_while_stopped", path=cp.path, reason=why)


def restore_files(ingest: Ingest, checkpoints: list[FileCheckpoint]) -> None:
    tailer = ingest.tailer
    for cp in checkpoints:
        file = TrackedFile(cp.stream_id, cp.path, cp.dev, cp.ino, cp.offset, cp.head_len, cp.head_hash)
        path = locate(tailer, cp)
        if path is None:
            _end_saved(ingest, cp, "its file is gone")
            continue
        file.path = path
        tailer.track(file)
        info = _intact(tailer, file, cp)
        if info is None:
            tailer.untrack(file)
            _end_saved(ingest, cp, "it was truncated or replaced")
            if os.path.exists(path):
                ingest.start(tailer.new_file(path, os.stat(path)))
            continue
        file.size, file.mtime_ns = info.st_size, info.st_mtime_ns
        ingest.stats.restored_files += 1
        if path != cp.path:
            ingest.note_moved(file)
