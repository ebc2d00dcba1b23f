"""Pick up the files a checkpoint names: continue each one that is intact, end the others.

A saved file is found by its identity (device, inode) at its saved path or, if it was renamed
while omkd was down, anywhere below the roots (under another name only once something was read
from it: its head tells it from a new file given its inode number). A file that cannot be read for now (a permission
changed) keeps its saved place and is read on from there once it can be. A file continues only
if its first bytes and the bytes before the saved offset are unchanged; otherwise its saved
stream is closed as it was and the file is read again from 0 as a new stream (a new version of
it at its saved path; under another name, another file, which the next rescan finds).

``plan_restore`` does the tailer's part (which files it follows, from where) and returns the rest
as a ``RestorePlan``, which the reader carries out (``Reader.restore``).
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field

from omkd.daemon.state.store import FileCheckpoint
from omkd.daemon.tailer import Tailer
from omkd.daemon.tracked import TrackedFile


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


@dataclass(slots=True)
class RestorePlan:
    """What the reader does with the files a checkpoint named (the tailer follows them already)."""

    ended: list[tuple[FileCheckpoint, str]] = field(default_factory=list)
    """Saved streams that cannot be continued, and why: closed as they were saved, then forgotten."""
    started: list[TrackedFile] = field(default_factory=list)
    """Files read again from 0 as new versions (truncated or replaced at their saved path while omkd
    was down)."""
    moved: list[tuple[TrackedFile, str]] = field(default_factory=list)
    """Continued streams whose file was found under another name, with the saved path (the new
    one is saved)."""
    unreadable: list[tuple[str, OSError]] = field(default_factory=list)
    """Files that keep their saved place until they can be read again, with the error."""
    restored: int = 0
    """Saved streams continued (the unreadable ones included)."""


def _identities(tailer: Tailer) -> dict[tuple[int, int], str]:
    """Every transcript below the roots by identity: where a file renamed while omkd was down went."""
    return {(info.st_dev, info.st_ino): path for path, info in tailer.walk()}


def plan_restore(tailer: Tailer, checkpoints: list[FileCheckpoint]) -> RestorePlan:
    """Follow each saved file that is still there (``tailer.track``); the plan says what else to do."""
    plan = RestorePlan()
    elsewhere: dict[tuple[int, int], str] | None = None
    for cp in checkpoints:
        file = TrackedFile(cp.stream_id, cp.path, cp.dev, cp.ino, cp.offset, cp.head_len, cp.head_hash)
        path = locate(cp, {})
        if path is None:
            if elsewhere is None:
                elsewhere = _identities(tailer)
            path = locate(cp, elsewhere)
        if path is not None and path != cp.path and cp.head_len == 0:
            # Nothing was read from it, so nothing proves the file under another name is it: its
            # inode number was most likely given to a new file (``Tailer._only_inode``), which the
            # next rescan finds as new; were it the same empty file renamed, reading it from 0
            # loses nothing.
            path = None
        if path is None:
            plan.ended.append((cp, "its file is gone"))
            continue
        file.path = path
        tailer.track(file)
        try:
            info = _intact(tailer, file, cp)
        except PermissionError as error:
            tailer.close_fd(file)
            plan.unreadable.append((path, error))
            with contextlib.suppress(OSError):
                file.size, file.mtime_ns = cp.offset, os.stat(path).st_mtime_ns
            plan.restored += 1
            continue
        if info is None:
            tailer.untrack(file)
            plan.ended.append((cp, "it was truncated or replaced"))
            # Under another name it is another file (its inode number reused, or renamed and
            # rewritten): the next rescan finds it as new, not as a new version of this one.
            if path == cp.path and os.path.exists(path):
                plan.started.append(tailer.new_file(path, os.stat(path)))
            continue
        file.size, file.mtime_ns = info.st_size, info.st_mtime_ns
        plan.restored += 1
        if path != cp.path:
            plan.moved.append((file, cp.path))
    return plan
