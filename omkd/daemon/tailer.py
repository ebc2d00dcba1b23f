"""Find transcript files and read what was appended to them, keyed by identity, not path.

A file is known by (device, inode) plus a hash of its first bytes (up to 1 KiB); on
restore the hash of the 64 bytes before the saved offset is checked too (the offset
marker: ``identity.py``). A rescan of the roots (``shell/discovery.py``) is the source of
truth; filesystem events only make it come sooner for the files they name.

What the tailer reports, the reader (``reader.py``) acts on:
- a new file is read from offset 0;
- a renamed file keeps its identity and stream; one renamed out of the roots, or deleted,
  is drained through its open descriptor, then its stream ends;
- a file shorter than the saved offset, or whose head or marker changed (replaced,
  truncated, inode reused), ends its old stream and is read again from 0 as a new one: a new
  version of the file when it is at the path known, else another file (of two copies of a
  stream, the one read further wins).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from omkd.daemon.faults import OnError, ignore, skips_told
from omkd.daemon.identity import HEAD_BYTES, MARKER_BYTES, digest, head_length, pread_exact
from omkd.daemon.tracked import Ended, EndReason, ScanResult, TrackedFile, new_stream_id
from omkd.engine import formats
from omkd.shell import discovery

READ_AT_LEAST: Final = 65536


class Tailer:
    """Tracks the transcript files below the roots and reads their new bytes."""

    def __init__(self, roots: list[Path], max_open_files: int) -> None:
        self.roots = roots
        self.max_open_files = max_open_files
        self.files: dict[str, TrackedFile] = {}
        self._by_identity: dict[tuple[int, int], str] = {}
        self._by_path: dict[str, str] = {}
        self._open: OrderedDict[str, None] = OrderedDict()
        self.on_error: OnError = ignore

    # --- bookkeeping -------------------------------------------------------------------------

    def track(self, file: TrackedFile) -> None:
        self.files[file.stream_id] = file
        self._by_identity[file.identity] = file.stream_id
        self._by_path[file.path] = file.stream_id

    def untrack(self, file: TrackedFile) -> None:
        self.close_fd(file)
        self.files.pop(file.stream_id, None)
        if self._by_identity.get(file.identity) == file.stream_id:
            del self._by_identity[file.identity]
        if self._by_path.get(file.path) == file.stream_id:
            del self._by_path[file.path]

    def _move(self, file: TrackedFile, path: str) -> None:
        if self._by_path.get(file.path) == file.stream_id:
            del self._by_path[file.path]
        file.path = path
        self._by_path[path] = file.stream_id

    def identities(self) -> set[tuple[int, int]]:
        return set(self._by_identity)

    @property
    def open_files(self) -> int:
        return len(self._open)

    def lag_bytes(self) -> int:
        return sum(max(0, f.size - f.read_offset) for f in self.files.values())

    # --- descriptors ---------------------------------------------------------------------------

    def _fd(self, file: TrackedFile) -> int:
        if file.fd is None:
            self._make_room()
            # O_NONBLOCK: a FIFO put in the file's place must not block open(); the identity
            # check below then refuses it.
            file.fd = os.open(file.path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
            info = os.fstat(file.fd)
            if (info.st_dev, info.st_ino) != file.identity:
                os.close(file.fd)
                file.fd = None
                raise FileNotFoundError(errno.ENOENT, "replaced since it was seen", file.path)
        self._open[file.stream_id] = None
        self._open.move_to_end(file.stream_id)
        return file.fd

    def hold_open(self, file: TrackedFile) -> None:
        """Open ``file``'s descriptor now (or ``OSError``): deleted or replaced later, it stays readable."""
        self._fd(file)

    def _make_room(self) -> None:
        """Close the least recently read descriptors over the cap, but never one whose path no
        longer names its file (deleted, rotated out, replaced, not noticed yet): it is the only way
        to the rest of that file. With nothing else to close, the cap is passed until it drains."""
        for stream_id in list(self._open):
            if len(self._open) < self.max_open_files:
                return
            victim = self.files.get(stream_id)
            if victim is not None and victim.fd is not None:
                if not self.still_at_path(victim):
                    continue
                os.close(victim.fd)
                victim.fd = None
            del self._open[stream_id]

    @staticmethod
    def still_at_path(file: TrackedFile) -> bool:
        """The file's path still names it (not deleted, rotated out or replaced since it was seen)."""
        try:
            info = os.stat(file.path)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == file.identity

    def close_fd(self, file: TrackedFile) -> None:
        if file.fd is not None:
            with contextlib.suppress(OSError):
                os.close(file.fd)
            file.fd = None
        self._open.pop(file.stream_id, None)

    def close_all(self) -> None:
        for file in self.files.values():
            self.close_fd(file)

    # --- identity --------------------------------------------------------------------------------

    def head_matches(self, file: TrackedFile) -> bool:
        """The first bytes are those seen before (the file was not replaced)."""
        if file.head_len == 0:
            return True
        fd = self._fd(file)
        return digest(pread_exact(fd, file.head_len, 0)) == file.head_hash

    def marker(self, file: TrackedFile, offset: int) -> bytes:
        """Hash of the bytes just before ``offset`` (the offset marker)."""
        if offset == 0:
            return digest(b"")
        start = max(0, offset - MARKER_BYTES)
        if offset == file.tail_end and len(file.tail) >= offset - start:
            return digest(file.tail[len(file.tail) - (offset - start) :])
        return digest(pread_exact(self._fd(file), offset - start, start))

    def _note_head(self, file: TrackedFile, fd: int) -> None:
        if file.head_len < HEAD_BYTES and file.read_offset > file.head_len:
            file.head_len = head_length(file.read_offset)
            file.head_hash = digest(pread_exact(fd, file.head_len, 0))

    # --- reading ----------------------------------------------------------------------------------

    def read(self, file: TrackedFile, chunk: int, budget: int) -> Iterator[bytes]:
        """New bytes of ``file`` from ``read_offset``, up to ``budget`` bytes."""
        fd = self._fd(file)
        remaining = budget
        while remaining > 0:
            # Ask for what the file is known to hold (at least a page, in case it grew):
            # pread allocates the whole request up front.
            want = min(chunk, remaining, max(file.size - file.read_offset, READ_AT_LEAST))
            data = os.pread(fd, want, file.read_offset)
            if not data:
                break
            file.read_offset += len(data)
            remaining -= len(data)
            self._note_head(file, fd)
            contiguous = file.tail if file.tail_end == file.read_offset - len(data) else b""
            file.tail = (contiguous + data)[-MARKER_BYTES:] if len(data) < MARKER_BYTES else data[-MARKER_BYTES:]
            file.tail_end = file.read_offset
            yield data
        file.size = max(file.size, file.read_offset)

    def adopt(self, file: TrackedFile, offset: int, head_len: int, head_hash: bytes, tail: bytes) -> None:
        """``file`` was read to ``offset`` elsewhere (a catch-up worker), its first ``head_len``
        bytes hashing to ``head_hash`` and ``tail`` the bytes before ``offset``."""
        file.read_offset = offset
        file.head_len, file.head_hash = head_len, head_hash
        file.tail, file.tail_end = tail, offset
        file.size = max(file.size, offset)

    # --- discovery ---------------------------------------------------------------------------

    def new_file(self, path: str, info: os.stat_result) -> TrackedFile:
        file = TrackedFile(
            new_stream_id(), path, info.st_dev, info.st_ino, size=info.st_size, mtime_ns=info.st_mtime_ns
        )
        self.track(file)
        return file

    def _examine(self, file: TrackedFile, path: str, info: os.stat_result, result: ScanResult) -> None:
        was = file.path
        if path != was:
            self._move(file, path)
            result.renamed += 1
        changed = info.st_size != file.size or info.st_mtime_ns != file.mtime_ns
        file.size, file.mtime_ns = info.st_size, info.st_mtime_ns
        if not changed and info.st_size <= file.read_offset:
            result.moved += [(file, was)] if path != was else []
            return
        try:
            # A whole-document chat is rewritten, never appended to: any change is a new version.
            replaced = (
                info.st_size < file.read_offset
                or (changed and file.read_offset > 0 and formats.is_document(path))
                or not self.head_matches(file)
            )
        except FileNotFoundError:
            replaced = True  # another file at the path by the time it was opened
        except OSError as error:
            # Unreadable for now (a permission changed, no descriptor left): not a new file.
            # Keep what was read and look again at the next rescan.
            self.on_error("read", error, file.path)
            return
        if replaced and path != was:
            # Another file under its identity, at another path (its inode number reused, or renamed
            # and rewritten): a new file, not a new version of this one; the old stream ends as it
            # was, and of two copies of a stream the one read further wins (``kept_copy``).
            result.ended.append(Ended(file, EndReason.VANISHED))
            result.started.append(self.new_file(path, info))
        elif replaced:
            result.ended.append(Ended(file, EndReason.TRUNCATED))
        if replaced:
            return
        result.moved += [(file, was)] if path != was else []  # the same file (its head read) renamed
        if info.st_size > file.read_offset:
            result.grown.append(file)

    def walk(self, missing: list[Path] | None = None) -> Iterator[tuple[str, os.stat_result]]:
        """``(path, stat)`` of every transcript below the roots; what is skipped goes to ``on_error``."""
        return discovery.walk_roots(self.roots, missing, skips_told(self.on_error))

    def rescan(self) -> ScanResult:
        """Walk the roots: new, grown, renamed, replaced and vanished files."""
        result = ScanResult()
        seen: set[str] = set()
        for path, info in self.walk(result.missing_roots):
            stream_id = self._by_identity.get((info.st_dev, info.st_ino))
            if stream_id is None or self._only_inode(self.files[stream_id], path):
                result.started.append(self.new_file(path, info))
                seen.add(result.started[-1].stream_id)
                continue
            seen.add(stream_id)
            self._examine(self.files[stream_id], path, info, result)
            seen.update(file.stream_id for file in result.started)
        for file in list(self.files.values()):
            if file.stream_id not in seen:
                result.ended.append(Ended(file, self._why_gone(file)))
        return result

    def poke(self, path: str) -> ScanResult | None:
        """A filesystem event named ``path``: look at that file now.

        Returns ``None`` when a full rescan is needed (a file omkd does not know, or one
        that is gone).
        """
        try:
            info = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        result = ScanResult()
        stream_id = self._by_identity.get((info.st_dev, info.st_ino))
        if stream_id is not None:
            if self._only_inode(self.files[stream_id], path):
                return None  # an inode number reused, most likely: let a rescan sort it out
            self._examine(self.files[stream_id], path, info, result)
            return result
        if path in self._by_path or not formats.is_transcript(path):
            return None  # a known path with a new identity (replaced): let a rescan sort it out
        if not any(path.startswith(os.path.join(str(root), "")) for root in self.roots):
            return None
        result.started.append(self.new_file(path, info))
        return result

    @staticmethod
    def _only_inode(file: TrackedFile, path: str) -> bool:
        """``path`` has the identity of ``file`` but nothing proves it is that file: nothing was
        read from it (no head to compare), no descriptor holds its inode, and it is not where it
        was. The kernel gives a freed inode number to the next new file, so such a match is taken
        for a new file; were it the same empty file renamed, reading it from 0 loses nothing."""
        return file.head_len == 0 and file.fd is None and path != file.path

    def _why_gone(self, file: TrackedFile) -> EndReason:
        if file.fd is None:
            return EndReason.VANISHED
        try:
            info = os.fstat(file.fd)
        except OSError:
            return EndReason.VANISHED
        file.size = max(file.size, info.st_size)
        return EndReason.DELETED if info.st_nlink == 0 else EndReason.ROTATED
