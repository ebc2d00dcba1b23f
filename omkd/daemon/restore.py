"""Pick up the files a checkpoint names: continue each one that is intact, end the others.

A saved file is found by its identity (device, inode) at its saved path or, if it was renamed
while omkd was down, anywhere below the roots. A file that cannot be read for now (a permission
changed) keeps its saved place and is read on from there once it can be. A file continues only
if its first bytes and the bytes before the saved offset are unchanged; otherwise its saved
stream is closed as it was and the file is read again from 0 as a new stream.
"""

from __future__ import annotations

import contextlib
import os
import stat
from typing import TYPE_CHECKING

import structlog

from omkd.daemon.discovery import walk_transcripts
from omkd.daemon.state.store import FileCheckpoint
from omkd.daemon.streams import load_state
from omkd.daemon.tailer import Tailer, TrackedFile

if TYPE_CHECKING:
    from omkd.daemon.ingest import Ingest

log = structlog.get_logger("omkd.ingest")


def locate(cp: FileCheckpoint, elsewhere: dict[tuple[int, int], str]) -> str | None:
    """The saved file's path now: where it was, renamed beside it (``x.jsonl.1`` included), or
    among ``elsewhere`` (every transcript below the roots, by identity)."""
    try:
        info = os.stat(cp.path)
        if (info.st_dev, info.st_ino) == (cp.dev, cp.ino):
            return cp.path
    except OSError:
        pass
    return _beside(cp.path, (cp.dev, cp.ino)) or elsewhere.get((cp.dev, cp.ino))


def _beside(path: str, identity: tuple[int, int]) -> str | None:
    """A regular file with this identity in ``path``'s directory, whatever its name."""
    try:
        with os.scandir(os.path.dirname(path)) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    if (info.st_dev, info.st_ino) == identity and stat.S_ISREG(info.st_mode):
                        return entry.path
    except OSError:
        return None
    return None


def _intact(tailer: Tailer, file: TrackedFile, cp: FileCheckpoint) -> os.stat_result | None:
    """The file's stat when it still holds what was read; None when replaced or truncated.
    Raises PermissionError when it cannot be read for now."""
    try:
        info = os.stat(file.path)
        if info.st_size >= cp.offset and tailer.head_matches(file) and tailer.marker(file, cp.offset) == cp.marker_hash:
            return info
    except PermissionError:
        raise
    except OSError:
        pass
    return None


def _identities(ingest: Ingest) -> dict[tuple[int, int], str]:
    """Every transcript below the roots by identity: where a file renamed while omkd was down went."""
    tailer = ingest.tailer
    return {(info.st_dev, info.st_ino): path for path, info in walk_transcripts(tailer.roots, None, tailer.on_error)}


def _end_saved(ingest: Ingest, cp: FileCheckpoint, why: str) -> None:
    """A checkpointed file cannot be continued: close its stream as it was saved."""
    processor = load_state(cp.state, cp.stream_id)
    if processor is not None:
        ingest.fold_changes(processor, closing=True)
    ingest.drop_saved(cp.stream_id)
    log.info("stream_ended_while_stopped", path=cp.path, reason=why)


def restore_files(ingest: Ingest, checkpoints: list[FileCheckpoint]) -> None:
    tailer = ingest.tailer
    elsewhere: dict[tuple[int, int], str] | None = None
    for cp in checkpoints:
        file = TrackedFile(cp.stream_id, cp.path, cp.dev, cp.ino, cp.offset, cp.head_len, cp.head_hash)
        path = locate(cp, {})
        if path is None:
            if elsewhere is None:
                elsewhere = _identities(ingest)
            path = locate(cp, elsewhere)
        if path is None:
            _end_saved(ingest, cp, "its file is gone")
            continue
        file.path = path
        tailer.track(file)
        try:
            info = _intact(tailer, file, cp)
        except PermissionError as error:
            tailer.close_fd(file)
            ingest.faults.record("restore", error, path=path)
            with contextlib.suppress(OSError):
                file.size, file.mtime_ns = cp.offset, os.stat(path).st_mtime_ns
            ingest.stats.restored_files += 1
            continue
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
