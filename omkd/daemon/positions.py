"""Where each followed file was read to since the last checkpoint, and which parser states memory
may let go.

The reader notes every file it reads, begins or ends here; a checkpoint (``keeper.py``) asks for
the changed files' positions — offset, offset marker, the parser state at that offset — and the
streams to forget, and says when they are saved. Only a saved stream's parser state may leave
memory (it is loaded back from the store when its file grows).
"""

from __future__ import annotations

from omkd.daemon.state.store import FileCheckpoint
from omkd.daemon.streams import StreamStates, state_of
from omkd.daemon.tailer import Tailer
from omkd.daemon.tracked import TrackedFile


class Positions:
    """The files changed since the last checkpoint (``keeper.FilePositions``), and eviction."""

    def __init__(self, tailer: Tailer, streams: StreamStates) -> None:
        self._tailer = tailer
        self._streams = streams
        self._dirty: set[str] = set()
        self._dropped: list[str] = []
        self.unsaved_bytes = 0

    def took(self, file: TrackedFile, total: int) -> None:
        """``total`` new bytes of ``file`` were read."""
        self.unsaved_bytes += total
        self._dirty.add(file.stream_id)

    def touched(self, stream_id: str) -> None:
        """The stream's position or parser state changed (begun, moved, refined)."""
        self._dirty.add(stream_id)

    def dropped(self, stream_id: str) -> None:
        """The stream ended: the next checkpoint forgets it."""
        self._dirty.discard(stream_id)
        self._dropped.append(stream_id)

    def again(self) -> list[str]:
        """The followed streams reading a new version of a file read before: saved with a checkpoint,
        so that what they read after a restart still replaces (``LiveFold.apply``)."""
        return sorted(self._streams.again & self._tailer.files.keys())

    def counted_to(self) -> dict[str, int]:
        """The followed streams read again from 0 whose old reading the pipeline counted further than
        the new one has come (``TrackedFile.counted_to``): saved with a checkpoint, so that after a
        kill the rest of the reading again still takes back what was counted twice."""
        return {sid: f.counted_to for sid, f in self._tailer.files.items() if f.counted_to}

    def holds_unsaved(self, stream_id: str) -> bool:
        return stream_id in self._dirty

    @property
    def dirty(self) -> bool:
        return bool(self._dirty or self._dropped)

    @property
    def pending(self) -> int:
        return len(self._dirty)

    def changes(self) -> tuple[list[FileCheckpoint], list[str]]:
        files: list[FileCheckpoint] = []
        for stream_id in self._dirty:
            file = self._tailer.files.get(stream_id)
            if file is None:
                continue
            processor = self._streams.get(stream_id)
            offset = processor.consumed if processor is not None else file.read_offset
            try:
                marker = self._tailer.marker(file, offset)
            except OSError:
                continue  # gone since it was read: the next rescan ends it
            state = state_of(processor) if processor is not None else self._streams.unsaved.get(stream_id)
            files.append(
                FileCheckpoint(
                    stream_id, file.path, file.dev, file.ino, file.head_len, file.head_hash, offset, marker, state
                )
            )
        return files, list(self._dropped)

    def saved(self, files: list[FileCheckpoint]) -> None:
        for file in files:
            self._streams.unsaved.pop(file.stream_id, None)
        self._dirty.clear()
        self._dropped.clear()
        self.unsaved_bytes = 0

    # --- memory -----------------------------------------------------------------------------------

    def evict_excess(self, most: int) -> int:
        """Keep at most ``most`` parser states in memory (``tail.max_open_files``): drop the least
        recently read ones that are checkpointed (their state is in the store)."""
        excess = len(self._streams) - most
        if excess <= 0:
            return 0
        candidates = sorted(
            (f for f in (self._tailer.files.get(s) for s in self._streams.processors) if f is not None),
            key=lambda f: f.last_read,
        )
        evicted = 0
        for file in candidates:
            if evicted >= excess:
                break
            if file.stream_id not in self._dirty:
                self._evict(file)
                evicted += 1
        return evicted

    def _evict(self, file: TrackedFile) -> None:
        self._streams.evict(file)
        if self._tailer.still_at_path(file):
            self._tailer.close_fd(file)  # a deleted file's descriptor is the only way to its rest

    def evict_idle(self, limit: float) -> int:
        """Close descriptors and drop parser state of files not read since ``limit`` (monotonic).

        Only checkpointed streams are evicted (their state is in the store).
        """
        evicted = 0
        for stream_id in list(self._streams.processors):
            file = self._tailer.files.get(stream_id)
            if file is None or stream_id in self._dirty or file.last_read > limit:
                continue
            self._evict(file)
            evicted += 1
        return evicted
