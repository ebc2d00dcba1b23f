"""Connects the tailer, the per-file stream processors, the live fold and the state store.

Everything here runs on the event loop thread, in bounded steps (a read budget per file),
so the loop stays responsive. A checkpoint gathers every change since the previous one —
file offsets with the parser state at those offsets, segment summaries, counters,
roll-ups — and saves it in one transaction.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import structlog

from omkd.daemon.config import Config
from omkd.daemon.state import Checkpoint, FileCheckpoint, Restored, StateStore
from omkd.daemon.tailer import Ended, EndReason, ScanResult, Tailer, TrackedFile, new_stream_id
from omkd.engine.live import LiveFold, SkillCounters
from omkd.engine.pipeline import PipelineCounters, StreamProcessor
from omkd.engine.segment import SegmenterRules

log = structlog.get_logger("omkd.ingest")

Clock = Callable[[], float]


@dataclass(slots=True)
class IngestStats:
    """Self-metrics of the reading side (reset when the process restarts)."""

    files_discovered: int = 0
    files_rotated: int = 0
    files_renamed: int = 0
    files_truncated: int = 0
    files_deleted: int = 0
    bytes_read: int = 0
    rescans: int = 0
    watch_overflows: int = 0
    checkpoint_writes: int = 0
    checkpoint_errors: int = 0
    discarded: Counter[str] = field(default_factory=Counter)
    last_read: float | None = None
    last_checkpoint: float | None = None
    restored_files: int = 0
    missing_roots: tuple[str, ...] = ()


def rules_of(config: Config) -> SegmenterRules:
    seg = config.segments
    return SegmenterRules(
        builtin_commands=frozenset(name.lower() for name in seg.builtin_commands),
        include_thinking=seg.include_thinking,
        extra_hedging=tuple(seg.extra_hedging),
        extra_search_tools=frozenset(seg.extra_search_tools),
    )


def _copy_counters(counters: SkillCounters) -> SkillCounters:
    return replace(counters, signals=Counter(counters.signals))


def _copy_pipeline(pipeline: PipelineCounters) -> PipelineCounters:
    return replace(
        pipeline,
        bad_lines=Counter(pipeline.bad_lines),
        unknown_types=Counter(pipeline.unknown_types),
        ignored=Counter(pipeline.ignored),
    )


class Ingest:
    """The daemon's reading and folding side."""

    def __init__(self, config: Config, store: StateStore, restored: Restored, clock: Clock = time.time) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self.rules = rules_of(config)
        self.tailer = Tailer(config.roots(), config.tail.max_open_files)
        window = config.window
        self.live = LiveFold(window.length, window.retention, window.rollup_days, clock())
        self.pipeline: PipelineCounters = restored.pipeline
        self.stats = IngestStats()
        self.processors: dict[str, StreamProcessor] = {}
        self.meta: dict[str, object] = dict(restored.meta)
        self._dirty_files: set[str] = set()
        #: Bumped on every change a metric could show: the daemon rebuilds /metrics only then.
        self.version = 0
        self._dropped_files: list[str] = []
        self._unsaved_bytes = 0
        for summary in restored.segments:
            self.live.fold.upsert(summary)
        self.live.counters.update(restored.counters)
        self.live.rollups.update(restored.rollups)
        self.live.last_event_ts = max((s.last_ts for s in restored.segments if s.last_ts is not None), default=None)
        self.live.changed_segments.clear()
        self.live.changed_rollups.clear()
        self.live.changed_skills.clear()
        #: The persistent counters as of the last checkpoint: what /metrics exports, so an
        #: exported counter never runs ahead of the saved state and a kill -9 can never make
        #: one go backwards (Prometheus would take that for a reset and count twice).
        self.exported_counters: dict[str, SkillCounters] = {k: _copy_counters(v) for k, v in restored.counters.items()}
        self.exported_pipeline: PipelineCounters = _copy_pipeline(restored.pipeline)
        self._restore_files(restored.files)

    # --- restore -------------------------------------------------------------------------------

    def _restore_files(self, checkpoints: list[FileCheckpoint]) -> None:
        for cp in checkpoints:
            file = TrackedFile(cp.stream_id, cp.path, cp.dev, cp.ino, cp.offset, cp.head_len, cp.head_hash)
            path = self._locate(cp)
            if path is None:
                self._end_saved(cp, file, "its file is gone")
                continue
            file.path = path
            self.tailer.track(file)
            try:
                info = os.stat(path)
                intact = (
                    info.st_size >= cp.offset
                    and self.tailer.head_matches(file)
                    and self.tailer.marker(file, cp.offset) == cp.marker_hash
                )
            except OSError:
                intact = False
            if not intact:
                self.tailer.untrack(file)
                self._end_saved(cp, file, "it was truncated or replaced")
                if os.path.exists(path):
                    self._start(self.tailer.new_file(path, os.stat(path)))
                continue
            file.size, file.mtime_ns = info.st_size, info.st_mtime_ns
            self.stats.restored_files += 1
            if path != cp.path:
                self.stats.files_rotated += 1
                self._dirty_files.add(file.stream_id)

    def _locate(self, cp: FileCheckpoint) -> str | None:
        try:
            info = os.stat(cp.path)
            if (info.st_dev, info.st_ino) == (cp.dev, cp.ino):
                return cp.path
        except OSError:
            pass
        return self.tailer.find_in_directory(cp.path, (cp.dev, cp.ino))

    def _end_saved(self, cp: FileCheckpoint, file: TrackedFile, why: str) -> None:
        """A checkpointed file cannot be continued: close its stream as it was saved."""
        processor = self._unpickle(cp.state, cp.stream_id)
        if processor is not None:
            for summary in processor.close():
                self.live.apply(summary)
        self._dropped_files.append(cp.stream_id)
        log.info("stream_ended_while_stopped", path=cp.path, reason=why)

    def _unpickle(self, state: bytes | None, stream_id: str) -> StreamProcessor | None:
        if state is None:
            return None
        try:
            processor = pickle.loads(state)  # noqa: S301 (our own state file)
        except (pickle.UnpicklingError, AttributeError, EOFError, ImportError, TypeError, ValueError) as error:
            log.warning("stream_state_unreadable", stream=stream_id, error=str(error))
            return None
        return processor if isinstance(processor, StreamProcessor) else None

    # --- streams ------------------------------------------------------------------------------------

    def _processor(self, file: TrackedFile) -> StreamProcessor:
        processor = self.processors.get(file.stream_id)
        if processor is None:
            processor = self._unpickle(self.store.load_stream_state(file.stream_id), file.stream_id)
            if processor is None:
                if file.read_offset:
                    # No usable state at this offset: read the file again from the start. The
                    # segments it yields carry the same keys, so nothing is counted twice.
                    log.warning("stream_reread", path=file.path)
                    file.read_offset = 0
                processor = StreamProcessor(os.path.basename(file.path), self.rules, self.config.tail.max_line_bytes)
            self.processors[file.stream_id] = processor
        return processor

    def _start(self, file: TrackedFile) -> None:
        self.version += 1
        self.stats.files_discovered += 1
        self.pipeline.files += 1
        self._dirty_files.add(file.stream_id)

    def feed(self, file: TrackedFile, budget: int) -> int:
        """Read and fold up to ``budget`` new bytes of ``file``; returns the bytes read."""
        processor = self._processor(file)
        pipeline = self.pipeline
        total = 0
        pipeline.add_stream(processor, -1, count_file=False)
        try:
            for chunk in self.tailer.read(file, self.config.tail.read_chunk, budget):
                processor.feed(chunk)
                total += len(chunk)
        finally:
            pipeline.add_stream(processor, 1, count_file=False)
        if total:
            self.version += 1
            now = self.clock()
            file.last_read = time.monotonic()
            self.stats.bytes_read += total
            self.stats.last_read = now
            self._unsaved_bytes += total
            self._dirty_files.add(file.stream_id)
            for summary in processor.take_changed():
                self.live.apply(summary)
        return total

    def end(self, ended: Ended) -> TrackedFile | None:
        """A file's stream ends: drain what can still be read, close, forget the file.

        A truncated file starts a new stream on the same descriptor, returned for reading.
        """
        file, reason = ended.file, ended.reason
        if reason is EndReason.TRUNCATED and file.fd is not None:
            # Keep the descriptor: the new content stays readable even if the file is
            # deleted before the first read.
            successor = self._successor(file)
            log.info("stream_ended", path=file.path, reason=reason.value)
            return successor
        if reason in (EndReason.DELETED, EndReason.ROTATED):
            if not self._continues(file):
                # Truncated or rewritten before it went away: what it holds now is not the rest
                # of the stream. End the old stream, then read the inode again from 0.
                self.end(Ended(self._successor(file), reason))
                return None
            try:
                while self.feed(file, 1 << 30):
                    pass
            except OSError as error:
                log.warning("drain_failed", path=file.path, error=str(error))
        self._close_stream(file)
        counter = {
            EndReason.DELETED: "files_deleted",
            EndReason.VANISHED: "files_deleted",
            EndReason.ROTATED: "files_rotated",
            EndReason.TRUNCATED: "files_truncated",
        }[reason]
        setattr(self.stats, counter, getattr(self.stats, counter) + 1)
        log.info("stream_ended", path=file.path, reason=reason.value)
        if reason is EndReason.TRUNCATED:
            try:
                info = os.stat(file.path)
            except OSError:
                return None
            if (info.st_dev, info.st_ino) == file.identity and file.identity not in self.tailer.identities():
                fresh = self.tailer.new_file(file.path, info)
                self._start(fresh)
                return fresh
        return None

    def _close_stream(self, file: TrackedFile) -> None:
        """Close the stream; a partial last line it still held will never be completed."""
        self.version += 1
        processor = self.processors.pop(file.stream_id, None)
        if processor is None:
            processor = self._unpickle(self.store.load_stream_state(file.stream_id), file.stream_id)
        if processor is not None:
            if processor.splitter.pending_bytes:
                self.stats.discarded["partial_at_delete"] += 1
            for summary in processor.close():
                self.live.apply(summary)
        self.tailer.untrack(file)
        self._dirty_files.discard(file.stream_id)
        self._dropped_files.append(file.stream_id)

    def _continues(self, file: TrackedFile) -> bool:
        """The open descriptor still holds the stream read so far (not truncated, not rewritten)."""
        if file.fd is None:
            return True
        try:
            return os.fstat(file.fd).st_size >= file.read_offset and self.tailer.head_matches(file)
        except OSError:
            return True

    def _successor(self, file: TrackedFile) -> TrackedFile:
        """End ``file``'s stream; a new stream on the same open descriptor, from offset 0."""
        fd, file.fd = file.fd, None
        self._close_stream(file)
        self.stats.files_truncated += 1
        fresh = TrackedFile(new_stream_id(), file.path, file.dev, file.ino, fd=fd, size=file.size)
        if fd is not None:
            with contextlib.suppress(OSError):
                fresh.size = os.fstat(fd).st_size
        self.tailer.track(fresh)
        self._start(fresh)
        return fresh

    def apply_scan(self, result: ScanResult, everything: bool = False) -> list[TrackedFile]:
        """Act on a rescan or poke; returns the files with bytes to read.

        After a poke only the files it named are looked at; after a full rescan, all.
        """
        for file in result.started:
            self._start(file)
        self.stats.files_renamed += result.renamed
        if result.renamed:
            self.version += 1
        successors = [f for f in (self.end(ended) for ended in result.ended) if f is not None]
        missing = tuple(str(p) for p in result.missing_roots)
        if missing != self.stats.missing_roots:
            for root in missing:
                log.warning("root_missing", root=root, action="watching for it on every rescan")
            self.stats.missing_roots = missing
        candidates = self.tailer.files.values() if everything else [*result.started, *result.grown, *successors]
        ready = [f for f in candidates if f.stream_id in self.tailer.files and f.size > f.read_offset]
        return sorted(ready, key=lambda f: f.read_offset)

    def rescan(self) -> list[TrackedFile]:
        self.stats.rescans += 1
        return self.apply_scan(self.tailer.rescan(), everything=True)

    # --- checkpoints ------------------------------------------------------------------------------

    def wants_checkpoint(self) -> bool:
        """Enough unsaved bytes, or enough unsaved parser states held in memory, to save now."""
        return (
            self._unsaved_bytes >= self.config.state.checkpoint_bytes
            or len(self._dirty_files) >= self.config.tail.max_open_files
        )

    @property
    def dirty(self) -> bool:
        live = self.live
        return bool(self._dirty_files or self._dropped_files or live.changed_segments or live.changed_rollups)

    def checkpoint(self) -> bool:
        """Save every change since the last checkpoint in one transaction."""
        if not self.dirty:
            return True
        live = self.live
        files: list[FileCheckpoint] = []
        for stream_id in self._dirty_files:
            file = self.tailer.files.get(stream_id)
            if file is None:
                continue
            processor = self.processors.get(stream_id)
            offset = processor.splitter.consumed if processor is not None else file.read_offset
            try:
                marker = self.tailer.marker(file, offset)
            except OSError:
                continue  # gone since it was read: the next rescan ends it
            state = pickle.dumps(processor, protocol=pickle.HIGHEST_PROTOCOL) if processor is not None else None
            files.append(
                FileCheckpoint(
                    stream_id, file.path, file.dev, file.ino, file.head_len, file.head_hash, offset, marker, state
                )
            )
        segments = [live.fold.segments[k] for k in live.changed_segments if k in live.fold.segments]
        forgotten = [k for k in live.changed_segments if k not in live.fold.segments]
        checkpoint = Checkpoint(
            files=files,
            dropped_files=list(self._dropped_files),
            segments=segments,
            forgotten_segments=forgotten,
            counters={skill: live.counters[skill] for skill in live.changed_skills if skill in live.counters},
            rollups={key: live.rollups.get(key) for key in live.changed_rollups},
            pipeline=self.pipeline,
            meta={k: v for k, v in self.meta.items() if k not in ("schema_version", "created_at", "pipeline")},
        )
        try:
            self.store.save(checkpoint)
        except Exception as error:  # a full disk or a broken store must not stop reading
            self.stats.checkpoint_errors += 1
            self.version += 1
            log.exception("checkpoint_failed", error=str(error))
            return False
        self.version += 1
        self.stats.checkpoint_writes += 1
        self.stats.last_checkpoint = self.clock()
        for skill in live.changed_skills:
            if skill in live.counters:
                self.exported_counters[skill] = _copy_counters(live.counters[skill])
        self.exported_pipeline = _copy_pipeline(self.pipeline)
        self._dirty_files.clear()
        self._dropped_files.clear()
        live.changed_segments.clear()
        live.changed_rollups.clear()
        live.changed_skills.clear()
        self._unsaved_bytes = 0
        return True

    def evict_excess(self) -> int:
        """Keep at most ``tail.max_open_files`` parser states in memory: drop the least
        recently read ones that are checkpointed (their state is in the store)."""
        excess = len(self.processors) - self.config.tail.max_open_files
        if excess <= 0:
            return 0
        evicted = 0
        candidates = sorted(
            (f for f in (self.tailer.files.get(s) for s in self.processors) if f is not None),
            key=lambda f: f.last_read,
        )
        for file in candidates:
            if evicted >= excess:
                break
            if file.stream_id in self._dirty_files:
                continue
            self._evict(file)
            evicted += 1
        return evicted

    def _evict(self, file: TrackedFile) -> None:
        processor = self.processors.pop(file.stream_id)
        file.read_offset = processor.splitter.consumed
        self.tailer.close_fd(file)

    def evict_idle(self) -> int:
        """Close descriptors and drop parser state of files idle for ``tail.idle_after``.

        Only checkpointed streams are evicted (their state is in the store).
        """
        limit = time.monotonic() - self.config.tail.idle_after
        evicted = 0
        for stream_id in list(self.processors):
            file = self.tailer.files.get(stream_id)
            if file is None or stream_id in self._dirty_files or file.last_read > limit:
                continue
            self._evict(file)
            evicted += 1
        return evicted

    def shutdown(self) -> None:
        self.checkpoint()
        self.tailer.close_all()
