"""Connects the tailer, the per-file stream processors, the live fold and the state store.

Everything here runs on the event loop thread, in bounded steps (a read budget per file),
so the loop stays responsive. A checkpoint gathers every change since the previous one —
file offsets with the parser state at those offsets, segment summaries, counters,
roll-ups — and saves it in one transaction.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Final

import structlog

from omkd.config import Config
from omkd.daemon.backfill import Backfill
from omkd.daemon.clock import SYSTEM_CLOCK, Clock
from omkd.daemon.faults import Faults
from omkd.daemon.first_read import FirstRead
from omkd.daemon.restore import restore_files
from omkd.daemon.selfmetrics import IngestStats
from omkd.daemon.state.store import Checkpoint, FileCheckpoint, Restored, StateStore
from omkd.daemon.stored_segments import StoredSegments
from omkd.daemon.streams import StreamStates, state_of, stream_fingerprint
from omkd.daemon.tailer import Ended, EndReason, ScanResult, Tailer, TrackedFile, new_stream_id
from omkd.engine.counters import PipelineCounters
from omkd.engine.figures import AllTimeCounts
from omkd.engine.hedge_judge import HedgeVerdict, judge_identity
from omkd.engine.live import LiveFold
from omkd.engine.pipeline import StreamProcessor
from omkd.engine.plain import copy_record
from omkd.engine.reproducibility import rules_hash
from omkd.engine.window import Window
from omkd.shell.llm_judge import open_refiner

log = structlog.get_logger("omkd.ingest")

READ_STEP: Final = 256 << 10
"""Bytes read from one file, at most, before the scheduler turns to the next one."""
FEED_STEP: Final = 64 << 10
"""Bytes parsed at once. Parsing runs at 3-40 MB/s depending on the records and on how busy the
host is, so 256 KiB held the event loop for 30-170 ms; 64 KiB is a few milliseconds, and the
scheduler looks at the clock between two (bench/soak.py measures /healthz while a 200 MB file
drains)."""
DRAIN_STEP: Final = FEED_STEP
"""Bytes of a deleted or rotated file drained at once; the scheduler reads the rest a step at a
time, so a large file rotated before it was read does not hold the event loop."""
CHECKPOINT_SEGMENTS: Final = 512
"""Changed segments that make a checkpoint due (besides ``state.checkpoint_bytes`` and the
interval): saving one costs tens of microseconds, and a drain of small segments changed 1,500
a second, so a checkpoint held the event loop for up to 140 ms."""
ENDED_COUNTER: Final = {
    EndReason.DELETED: "files_deleted",
    EndReason.VANISHED: "files_deleted",
    EndReason.ROTATED: "files_rotated",
    EndReason.TRUNCATED: "files_truncated",
}


class Ingest:
    """The daemon's reading and folding side."""

    def __init__(self, config: Config, store: StateStore, restored: Restored, clock: Clock = SYSTEM_CLOCK) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self.tailer = Tailer(config.roots(), config.tail.max_open_files)
        self.refiner = open_refiner(config.hedging.llm, config.state_dir())
        if self.refiner is not None:
            self.refiner.deliver = self.refined
        self.streams = StreamStates(
            store, config.segmenter_rules(), config.tail.max_line_bytes, config.roots(), self.refiner
        )
        self.judge = judge_identity(self.refiner.identity if self.refiner is not None else None)
        """The hedging judge in force (the reproducibility block's and ``omkd_rules_info``'s)."""
        self.rules_hash = rules_hash(self.streams.rules, self.judge)
        window = config.window
        self.live = LiveFold(window.length, window.retention, window.rollup_days, clock.time(), StoredSegments(store))
        self.pipeline: PipelineCounters = restored.pipeline
        self.stats = IngestStats()
        self.faults = Faults(clock, self.stats.errors)
        self.tailer.on_error = lambda area, error, path: self.faults.record(area, error, path=path)
        self.skill_labels: list[str] = list(restored.meta.skill_labels)
        self._dirty_files: set[str] = set()
        self.draining: dict[str, EndReason] = {}
        """Deleted or rotated files still being read through their descriptor, then ended."""
        #: Bumped on every change a metric could show: the daemon rebuilds /metrics only then.
        self.version = 0
        self._dropped_files: list[str] = []
        self._unsaved_bytes = 0
        self.live.restore(restored.segments, restored.counters, restored.rollups, restored.links)
        # summaries an older omkd pickled are saved again as plain data at the first checkpoint
        self.live.changed_segments.update(restored.legacy_segments)
        if restored.legacy_segments or restored.unreadable_segments:
            log.info(
                "state_migrated",
                segments_migrated=len(restored.legacy_segments),
                segments_unreadable=restored.unreadable_segments,
            )
        #: The retention the kept segments were last pruned by: a longer one needs the history on
        #: disk read again (``reread_history``). Not saved yet (a new state, or one written before
        #: it was kept): the retention in force.
        self.pruned_by = restored.meta.retention or window.retention
        self._saved_retention = restored.meta.retention
        self._recount: tuple[float, float] | None = None
        """(retention before, horizon before) while the history on disk is read again."""
        self._rereading: list[TrackedFile] = []
        #: The persistent counters as of the last checkpoint: what /metrics exports, so an
        #: exported counter never runs ahead of the saved state and a kill -9 can never make
        #: one go backwards (Prometheus would take that for a reset and count twice).
        self.exported_counters: dict[str, AllTimeCounts] = {k: copy_record(v) for k, v in restored.counters.items()}
        self.exported_pipeline: PipelineCounters = copy_record(restored.pipeline)
        #: What the parser states were made by (``stream_fingerprint``); saved with the state.
        self.stream_fingerprint = stream_fingerprint(self.rules_hash, config.tail.max_line_bytes)
        outdated = not restored.fresh and restored.meta.stream_fingerprint != self.stream_fingerprint
        #: The fingerprint checkpoints save: the old one until the reading again ends (a kill -9 before
        #: then must find the state still marked as another's, and read it again).
        self._fingerprint_to_save = restored.meta.stream_fingerprint if outdated else self.stream_fingerprint
        if outdated:
            # made by other rules or another omkd: never unpickled, never folded
            saved = [cp for cp in restored.files if cp.state is not None]
            self.stats.stream_states_outdated += len(saved)
            for cp in saved:
                cp.state = None
        restore_files(self, restored.files)
        if restored.fresh:
            # a new state says at once what it is made by (a kill before the first checkpoint
            # must not make it look like an older omkd's)
            self.store.save(Checkpoint(retention=self.pruned_by, stream_fingerprint=self.stream_fingerprint))
            self._saved_retention = self.pruned_by
        elif outdated:
            self.reread_history(
                "the saved parser states were made by other rules, caps or an older omkd: "
                "every transcript is read again with the rules in force"
            )
        elif window.retention > self.pruned_by:
            self.reread_history()

    # --- configuration --------------------------------------------------------------------------

    def reconfigure(self, new: Config) -> list[str]:
        """Take a new config; returns the keys whose change needs a restart to apply."""
        old = self.config
        needs_restart = [
            name
            for name, before, after in (
                ("http.listen", old.http.listen, new.http.listen),
                ("state.directory", old.state_dir(), new.state_dir()),
                ("segments", old.segments, new.segments),
                ("hedging", old.hedging, new.hedging),
                ("tail.max_line_bytes", old.tail.max_line_bytes, new.tail.max_line_bytes),
                ("tail.catch_up_workers", old.tail.catch_up_workers, new.tail.catch_up_workers),
            )
            if before != after
        ]
        if new.window.retention > self.pruned_by:
            # What went from disk ends now, under the retention it was pruned by: a transcript
            # deleted before the change does not come back (and whether it did would depend on
            # when the next rescan noticed it).
            self.apply_scan(self.tailer.rescan())
        self.config = new
        self.tailer.roots = self.streams.roots = new.roots()
        self.tailer.max_open_files = new.tail.max_open_files
        live = self.live
        if new.window.length != live.window_length:
            live.window_length = new.window.length
            live.fold.rewindow(Window(since=self.clock.time() - new.window.length))
        live.retention = new.window.retention
        live.rollup_days = new.window.rollup_days
        if new.window.retention > self.pruned_by:
            self.reread_history()
        self.version += 1
        return needs_restart

    # --- history pruned and wanted again ----------------------------------------------------------

    @property
    def recounting(self) -> bool:
        """The history on disk is being read again for a longer retention."""
        return self._recount is not None

    def pruned(self) -> None:
        """Retention pruning ran with the retention now in force."""
        self.live.prune(self.clock.time())
        self.pruned_by = min(self.pruned_by, self.config.window.retention)

    def reread_history(
        self, reason: str = "window.retention is longer than what the kept segments were pruned by"
    ) -> None:
        """Read every file still on disk again from its start, with the rules in force: the
        retention grew past what the kept segments were pruned by, or the saved parser states were
        made by other rules or an older omkd (``stream_fingerprint``). The segments carry the same
        keys: the kept ones are replaced, the pruned ones come back, and none is counted twice
        (``LiveFold.recount``). Segments whose transcripts are gone cannot come back (nor be computed
        again); ``end_rereading`` says how many."""
        now = self.clock.time()
        horizon = now - self.pruned_by
        self._recount = (self.pruned_by, horizon)
        files = [f for f in self.tailer.files.values() if self._on_disk(f)]
        self.live.recount(horizon, {self.streams.name_of(f.path) for f in files})
        self._rereading = [self._restart(file) for file in files]
        log.info(
            "history_reread",
            reason=reason,
            retention_before_seconds=self.pruned_by,
            retention_seconds=self.config.window.retention,
            files=len(files),
        )
        self.version += 1

    @staticmethod
    def _on_disk(file: TrackedFile) -> bool:
        """The file is still at its path (a deleted one is ended by the next rescan, not read again)."""
        try:
            info = os.stat(file.path)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == file.identity

    def _restart(self, file: TrackedFile) -> TrackedFile:
        """Read a followed file again from 0 as a new stream (its old parser state is dropped, not
        folded: what it would hand out, the new reading gives again under the same keys)."""
        fd, file.fd = file.fd, None
        self.streams.forget(file.stream_id)
        self.tailer.untrack(file)
        self._dirty_files.discard(file.stream_id)
        self._dropped_files.append(file.stream_id)
        return self._new_stream(file, fd)

    def end_rereading(self) -> None:
        """Everything on disk has been read again: what came back, and what could not."""
        if self._recount is None:
            return
        before, horizon = self._recount
        self._recount = None
        # a file read again to its end gave all its segments: those it no longer gives are gone
        read = {self.streams.name_of(f.path) for f in self._rereading if f.read_offset >= f.size}
        recovered, gone = self.live.end_recount(read)
        self._rereading = []
        self._fingerprint_to_save = self.stream_fingerprint
        now = self.clock.time()
        lost = self.live.unrecoverable(now - self.config.window.retention, horizon)
        self.stats.unrecoverable_segments = lost
        self.pruned_by = self.config.window.retention
        log.info(
            "history_reread_done",
            retention_before_seconds=before,
            retention_seconds=self.config.window.retention,
            segments_recovered=recovered,
            segments_unrecoverable=lost,
            segments_no_longer_cut=gone,
            note=("their transcripts are gone from disk: only the daily roll-ups still count them" if lost else None),
        )
        self.version += 1

    def open_after(self) -> float:
        """Segments whose last record is older than this are idle: closed, whatever their stream."""
        return self.clock.time() - self.config.segments.idle_close

    # --- streams --------------------------------------------------------------------------------

    def start(self, file: TrackedFile) -> None:
        self.version += 1
        self.stats.files_discovered += 1
        self.pipeline.files += 1
        self._dirty_files.add(file.stream_id)

    def feed(self, file: TrackedFile, budget: int) -> int:
        """Read and fold up to ``budget`` new bytes of ``file``; returns the bytes read."""
        processor = self.streams.of(file)
        pipeline = self.pipeline
        total = 0
        pipeline.add_stream(processor.counters, -1)
        try:
            for chunk in self.tailer.read(file, self.config.tail.read_chunk, budget):
                processor.feed(chunk)
                total += len(chunk)
        finally:
            pipeline.add_stream(processor.counters, 1)
        if total:
            self._took(file, total)
            self.fold_changes(processor)
        return total

    def backfill(self, workers: int, wake: Callable[[], None]) -> Backfill:
        """Catch-up workers that read for this ingest (``backfill.py``); ``wake`` is called on the
        loop when a reading came back."""
        return Backfill(
            workers,
            self.streams.rules,
            self.streams.max_line_bytes,
            self.streams.name_of,
            self.adopt,
            wake,
            lambda error, path: self.faults.record("catch_up", error, path=path),
            self.stats.catch_up_files,
            self.tailer.hold_open,
        )

    def adopt(self, file: TrackedFile, read: FirstRead) -> bool:
        """Take a catch-up worker's reading of ``file`` from 0 (``backfill.py``) as if the loop had
        read it; False (nothing changed) when the file was read, ended or replaced meanwhile."""
        if (
            read.consumed == 0  # not one whole line: nothing to take
            or self.tailer.files.get(file.stream_id) is not file
            or file.read_offset != 0
            or self.streams.get(file.stream_id) is not None
            or file.stream_id in self.draining
        ):
            return False
        # the state is loaded only if the file grows before the next checkpoint saves it as it is
        self.streams.unsaved[file.stream_id] = read.state
        self.tailer.adopt(file, read.consumed, read.head_len, read.head_hash, read.tail)
        self.pipeline.add_stream(read.counters, 1)
        self._took(file, read.consumed)
        for summary in read.summaries:
            self.live.apply(summary)
        for link in read.links:
            self.live.learn(link)
        return True

    def _took(self, file: TrackedFile, total: int) -> None:
        """``total`` new bytes of ``file`` were read."""
        self.version += 1
        file.last_read = self.clock.monotonic()
        self.stats.bytes_read += total
        self.stats.last_read = self.clock.time()
        self._unsaved_bytes += total
        self._dirty_files.add(file.stream_id)

    def fold_changes(self, processor: StreamProcessor, closing: bool = False) -> None:
        """Hand a stream's changed segments and its links to the live fold.

        A stream that ends hands out its last segment again (closed): when retention pruned it
        meanwhile (Claude Code deletes a transcript about when it leaves a 30-day retention), it is
        not taken back, nor counted a second time."""
        if closing:
            horizon = self.clock.time() - self.config.window.retention
            for summary in processor.close():
                last = summary.last_ts if summary.last_ts is not None else summary.first_ts
                if self.live.stored(summary.key) is None and last is not None and last < horizon:
                    continue
                self.live.apply(summary)
        else:
            for summary in processor.take_changed():
                self.live.apply(summary)
        for link in processor.take_links():
            self.live.learn(link)

    def refined(self, key: str, verdict: HedgeVerdict | None) -> None:
        """The LLM judge answered: streams that wait for ``key`` fold their changed segments."""
        for stream_id, processor in self.streams.processors.items():
            if not processor.segmenter.texts.awaiting:
                continue
            processor.segmenter.refine(key, verdict)
            changed = processor.take_changed()
            if changed:
                self.version += 1
                self._dirty_files.add(stream_id)
                for summary in changed:
                    self.live.apply(summary)

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
            if file.stream_id not in self.draining and not self._continues(file):
                # Truncated or rewritten before it went away: what it holds now is not the rest
                # of the stream. End the old stream, then read the inode again from 0.
                self.end(Ended(self._successor(file), reason))
                return None
            try:
                read = self.feed(file, DRAIN_STEP)
            except OSError as error:
                self.faults.record("drain", error, path=file.path)
                read = 0
            if read >= DRAIN_STEP:
                self.draining[file.stream_id] = reason
                return file  # more to drain: read on like any file, then ``drained`` ends it
        self.draining.pop(file.stream_id, None)
        self._finish(file, reason)
        return self._reread_truncated(file) if reason is EndReason.TRUNCATED else None

    def drained(self, file: TrackedFile) -> None:
        """A deleted or rotated file was read to its end: its stream ends now."""
        reason = self.draining.pop(file.stream_id, None)
        if reason is not None:
            self._finish(file, reason)

    def _finish(self, file: TrackedFile, reason: EndReason) -> None:
        self.close_stream(file)
        counter = ENDED_COUNTER[reason]
        setattr(self.stats, counter, getattr(self.stats, counter) + 1)
        log.info("stream_ended", path=file.path, reason=reason.value)

    def _reread_truncated(self, file: TrackedFile) -> TrackedFile | None:
        try:
            info = os.stat(file.path)
        except OSError:
            return None
        if (info.st_dev, info.st_ino) == file.identity and file.identity not in self.tailer.identities():
            fresh = self.tailer.new_file(file.path, info)
            self.start(fresh)
            return fresh
        return None

    def drain_everything(self, deadline: float) -> None:
        """At shutdown: read what is on disk for every followed file, and for those just deleted
        or rotated, before the final checkpoint — until ``deadline`` (monotonic)."""
        for file in self.rescan():
            while self.clock.monotonic() < deadline:
                try:
                    read = self.feed(file, DRAIN_STEP)
                except OSError as error:
                    self.faults.record("drain", error, path=file.path)
                    break
                if read < DRAIN_STEP:
                    self.drained(file)
                    break

    def close_stream(self, file: TrackedFile) -> None:
        """Close the stream; a partial last line it still held will never be completed."""
        self.version += 1
        processor = self.streams.take(file.stream_id)
        if processor is not None:
            if processor.splitter.pending_bytes:
                self.stats.discarded["partial_at_delete"] += 1
            self.fold_changes(processor, closing=True)
        self.tailer.untrack(file)
        self._dirty_files.discard(file.stream_id)
        self._dropped_files.append(file.stream_id)

    def drop_saved(self, stream_id: str) -> None:
        """Forget a saved stream that could not be continued (at restore)."""
        self._dropped_files.append(stream_id)

    def note_moved(self, file: TrackedFile) -> None:
        """A restored file was found under another name: save its new path."""
        self.stats.files_rotated += 1
        self._dirty_files.add(file.stream_id)

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
        self.close_stream(file)
        self.stats.files_truncated += 1
        return self._new_stream(file, fd)

    def _new_stream(self, file: TrackedFile, fd: int | None) -> TrackedFile:
        """A new stream of ``file``'s path and identity, on its open descriptor, read from 0."""
        fresh = TrackedFile(
            new_stream_id(), file.path, file.dev, file.ino, fd=fd, size=file.size, mtime_ns=file.mtime_ns
        )
        if fd is not None:
            with contextlib.suppress(OSError):
                info = os.fstat(fd)
                # the version read now: a rescan that finds the same size and time reads it no more
                fresh.size, fresh.mtime_ns = info.st_size, info.st_mtime_ns
        self.tailer.track(fresh)
        self.start(fresh)
        return fresh

    def apply_scan(self, result: ScanResult, everything: bool = False) -> list[TrackedFile]:
        """Act on a rescan or poke; returns the files with bytes to read.

        After a poke only the files it named are looked at; after a full rescan, all.
        """
        for file in result.started:
            self.start(file)
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
        self.version += 1  # omkd_rescans_total moves: /metrics is rebuilt even when idle
        return self.apply_scan(self.tailer.rescan(), everything=True)

    # --- checkpoints ------------------------------------------------------------------------------

    def wants_checkpoint(self) -> bool:
        """Enough unsaved bytes, segments, or parser states held in memory, to save now."""
        return (
            self._unsaved_bytes >= self.config.state.checkpoint_bytes
            or len(self.live.changed_segments) >= CHECKPOINT_SEGMENTS
            or len(self._dirty_files) >= self.config.tail.max_open_files
        )

    @property
    def dirty(self) -> bool:
        live = self.live
        return bool(
            self._dirty_files
            or self._dropped_files
            or live.changed_segments
            or live.changed_rollups
            or self._saved_retention != self.pruned_by
        )

    def _file_checkpoints(self) -> list[FileCheckpoint]:
        files: list[FileCheckpoint] = []
        for stream_id in self._dirty_files:
            file = self.tailer.files.get(stream_id)
            if file is None:
                continue
            processor = self.streams.get(stream_id)
            offset = processor.consumed if processor is not None else file.read_offset
            try:
                marker = self.tailer.marker(file, offset)
            except OSError:
                continue  # gone since it was read: the next rescan ends it
            state = state_of(processor) if processor is not None else self.streams.unsaved.get(stream_id)
            files.append(
                FileCheckpoint(
                    stream_id, file.path, file.dev, file.ino, file.head_len, file.head_hash, offset, marker, state
                )
            )
        return files

    def checkpoint(self) -> bool:
        """Save every change since the last checkpoint in one transaction."""
        if not self.dirty:
            return True
        live = self.live
        try:
            checkpoint = Checkpoint(
                files=self._file_checkpoints(),
                dropped_files=list(self._dropped_files),
                segments=[s for s in map(live.stored, live.changed_segments) if s is not None],
                forgotten_segments=[k for k in live.changed_segments if live.stored(k) is None],
                links=[live.fold.links.known[k] for k in live.changed_links if k in live.fold.links.known],
                forgotten_links=[k for k in live.changed_links if k not in live.fold.links.known],
                counters={skill: live.counters[skill] for skill in live.changed_skills if skill in live.counters},
                rollups={key: live.rollups.get(key) for key in live.changed_rollups},
                pipeline=self.pipeline,
                skill_labels=self.skill_labels,
                retention=self.pruned_by,
                stream_fingerprint=self._fingerprint_to_save,
            )
            self.store.save(checkpoint)
        except (Exception, RecursionError) as error:  # a full disk or a broken store must not stop reading
            self.stats.checkpoint_errors += 1
            self.version += 1
            self.faults.record("checkpoint", error)
            return False
        self.version += 1
        self.stats.checkpoint_writes += 1
        self.stats.last_checkpoint = self.clock.time()
        for skill in live.changed_skills:
            if skill in live.counters:
                self.exported_counters[skill] = copy_record(live.counters[skill])
        self.exported_pipeline = copy_record(self.pipeline)
        for file in checkpoint.files:
            self.streams.unsaved.pop(file.stream_id, None)
        self._dirty_files.clear()
        self._dropped_files.clear()
        self._saved_retention = self.pruned_by
        live.clear_changes()
        self._unsaved_bytes = 0
        return True

    # --- memory -----------------------------------------------------------------------------------

    def evict_excess(self) -> int:
        """Keep at most ``tail.max_open_files`` parser states in memory: drop the least
        recently read ones that are checkpointed (their state is in the store)."""
        excess = len(self.streams) - self.config.tail.max_open_files
        if excess <= 0:
            return 0
        candidates = sorted(
            (f for f in (self.tailer.files.get(s) for s in self.streams.processors) if f is not None),
            key=lambda f: f.last_read,
        )
        evicted = 0
        for file in candidates:
            if evicted >= excess:
                break
            if file.stream_id not in self._dirty_files:
                self._evict(file)
                evicted += 1
        return evicted

    def _evict(self, file: TrackedFile) -> None:
        self.streams.evict(file)
        if self.tailer.still_at_path(file):
            self.tailer.close_fd(file)  # a deleted file's descriptor is the only way to its rest

    def evict_idle(self) -> int:
        """Close descriptors and drop parser state of files idle for ``tail.idle_after``.

        Only checkpointed streams are evicted (their state is in the store).
        """
        limit = self.clock.monotonic() - self.config.tail.idle_after
        evicted = 0
        for stream_id in list(self.streams.processors):
            file = self.tailer.files.get(stream_id)
            if file is None or stream_id in self._dirty_files or file.last_read > limit:
                continue
            self._evict(file)
            evicted += 1
        return evicted

    def shutdown(self) -> None:
        self.checkpoint()
        self.tailer.close_all()
