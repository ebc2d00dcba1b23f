"""The reader: transcript files in, segment summaries out, handed to a ``Sink`` (the keeper).

It follows the files the tailer finds, reads each in bounded steps (a read budget per file, so the
loop stays responsive) into its stream processor, and hands the segments that changed and the links
learnt to the sink. A new file begins a stream, a deleted or rotated one is drained through its
descriptor and ends, a truncated or replaced one ends and is read again from 0 (``positions.py``).
"""

from __future__ import annotations

import contextlib
import os
from typing import Final

import structlog

from omkd.config import Config
from omkd.daemon.clock import Clock
from omkd.daemon.faults import Faults
from omkd.daemon.first_read import FirstRead
from omkd.daemon.positions import Positions
from omkd.daemon.selfmetrics import IngestStats
from omkd.daemon.sink import Sink
from omkd.daemon.streams import StreamStates
from omkd.daemon.tailer import Tailer
from omkd.daemon.tracked import Ended, EndReason, ScanResult, TrackedFile, new_stream_id
from omkd.engine import formats
from omkd.engine.hedge_judge import HedgeVerdict
from omkd.engine.stream import StreamProcessor

log = structlog.get_logger("omkd.ingest")

READ_STEP: Final = 256 << 10
"""Bytes read from one file, at most, before the scheduler turns to the next one."""
FEED_STEP: Final = 64 << 10
"""Bytes parsed at once. Parsing runs at 3-40 MB/s (records, load), so 256 KiB held the loop for
30-170 ms; 64 KiB is a few milliseconds, and the scheduler looks at the clock between two
(bench/soak.py measures /healthz while a 200 MB file drains)."""
DRAIN_STEP: Final = FEED_STEP
"""Bytes of a deleted or rotated file drained at once; the scheduler reads the rest a step at a
time, so a large file rotated before it was read does not hold the event loop."""
ENDED_COUNTER: Final = {
    EndReason.DELETED: "files_deleted",
    EndReason.VANISHED: "files_deleted",
    EndReason.ROTATED: "files_rotated",
    EndReason.TRUNCATED: "files_truncated",
}


class Reader:
    """The daemon's reading side: the tailer's files, their parser states, and the sink."""

    def __init__(
        self,
        config: Config,
        clock: Clock,
        tailer: Tailer,
        streams: StreamStates,
        positions: Positions,
        sink: Sink,
        stats: IngestStats,
        faults: Faults,
    ) -> None:
        self.config = config
        self.clock = clock
        self.tailer = tailer
        self.streams = streams
        self.positions = positions
        self.sink = sink
        self.stats = stats
        self.faults = faults
        self.draining: dict[str, EndReason] = {}
        """Deleted or rotated files still being read through their descriptor, then ended."""

    def reconfigure(self, new: Config) -> None:
        self.config = new
        self.tailer.roots = self.streams.roots = new.roots()
        self.tailer.max_open_files = new.tail.max_open_files

    # --- reading ----------------------------------------------------------------------------------

    def start(self, file: TrackedFile) -> None:
        self.sink.changed()
        self.stats.files_discovered += 1
        self.sink.count_file()
        self.positions.touched(file.stream_id)

    def feed(self, file: TrackedFile, budget: int) -> int:
        """Read and hand on up to ``budget`` new bytes of ``file``; returns the bytes read (fewer only
        at its end: a reading again stops at ``counted_to``, takes back what it counted, reads on)."""
        processor, sink, total = self.streams.of(file), self.sink, 0
        while total < budget:
            ahead = file.counted_to - file.read_offset  # bytes read again that the pipeline counted
            step = min(budget - total, ahead) if ahead > 0 else budget - total
            sink.count(processor.counters, -1)
            try:
                for chunk in self.tailer.read(file, self.config.tail.read_chunk, step):
                    processor.feed(chunk)
                    total += len(chunk)
            finally:
                sink.count(processor.counters, 1)
            if not file.counted_to or file.read_offset < file.counted_to:
                break  # read to the budget or the file's end
            sink.count(processor.counters, -1)  # counted already (``counted_to``)
            file.counted_to = 0
        if total:
            self._took(file, total)
            self.hand(processor, stream=file.stream_id)
        return total

    def adopt(self, file: TrackedFile, read: FirstRead) -> bool:
        """Take a catch-up worker's reading of ``file`` from 0 (``backfill.py``) as if the loop had
        read it; False (nothing changed) when the file was read, ended or replaced meanwhile."""
        if (
            read.consumed == 0  # not one whole line: nothing to take
            or self.tailer.files.get(file.stream_id) is not file
            or file.read_offset != 0
            or file.counted_to  # counts to take back at an offset: the loop reads it
            or self.streams.get(file.stream_id) is not None
            or file.stream_id in self.draining
        ):
            return False
        # the state is loaded only if the file grows before the next checkpoint saves it as it is
        self.streams.unsaved[file.stream_id] = read.state
        self.tailer.adopt(file, read.consumed, read.head_len, read.head_hash, read.tail)
        self.sink.count(read.counters, 1)
        self._took(file, read.consumed)
        self.sink.take(read.summaries, again := file.stream_id in self.streams.again)
        self.sink.tentative(file.stream_id, read.tentative, {s.key for s in read.summaries}, again)
        self.sink.learn(read.links)
        return True

    def _took(self, file: TrackedFile, total: int) -> None:
        """``total`` new bytes of ``file`` were read."""
        self.sink.changed()
        file.last_read = self.clock.monotonic()
        self.stats.bytes_read += total
        self.stats.last_read = self.clock.time()
        self.positions.took(file, total)

    def hand(self, processor: StreamProcessor, closing: bool = False, stream: str | None = None) -> None:
        """Hand a stream's changed segments (all of them, closed, when it ends) and its links on.

        Closing may count what the stream could not count before its end (a whole-document chat
        that never parsed: its lines and its ``invalid_json``): its counters leave and enter again."""
        again = stream in self.streams.again
        if closing:
            self.sink.count(processor.counters, -1)
            summaries = processor.close()
            self.sink.count(processor.counters, 1)
            self.sink.close(summaries, again)
        else:
            changed = processor.take_changed()
            self.sink.take(changed, again)
            if stream is not None:  # a launch left unanswered: settled if the stream goes quiet
                self.sink.tentative(stream, processor.tentative(), {s.key for s in changed}, again)
        self.sink.learn(processor.take_links())

    def refined(self, key: str, verdict: HedgeVerdict | None) -> None:
        """The LLM judge answered: streams that wait for ``key`` hand on their changed segments."""
        for stream_id, processor in self.streams.processors.items():
            if not processor.segmenter.texts.awaiting:
                continue
            processor.segmenter.refine(key, verdict)
            if changed := processor.take_changed():
                self.sink.changed()
                self.positions.touched(stream_id)
                self.sink.take(changed, stream_id in self.streams.again)
            self.sink.tentative(stream_id, processor.tentative(), {s.key for s in changed})

    # --- rescans ----------------------------------------------------------------------------------

    def apply_scan(self, result: ScanResult, everything: bool = False) -> list[TrackedFile]:
        """Act on a rescan or poke (after a poke only the files it named are looked at; after a full
        rescan, all); returns the files with bytes to read."""
        for file in result.started:
            self.start(file)
        self.stats.files_renamed += result.renamed
        for file, path in result.moved:
            self.renamed(file, path)
        successors = [f for f in (self.end(ended) for ended in result.ended) if f is not None]
        missing = tuple(str(p) for p in result.missing_roots)
        if missing != self.stats.missing_roots:
            for root in missing:
                log.warning("root_missing", root=root, action="watching for it on every rescan")
            self.stats.missing_roots = missing
        candidates = self.tailer.files.values() if everything else [*result.started, *result.grown, *successors]
        ready = [f for f in candidates if f.stream_id in self.tailer.files and f.size > f.read_offset]
        return sorted(ready, key=lambda f: f.read_offset)

    def renamed(self, file: TrackedFile, path: str) -> None:
        """``file`` was at ``path``: its stream and its segments take the name a scan gives them now."""
        self.sink.changed()
        old, new = self.streams.name_of(path), self.streams.name_of(file.path)
        if old != new:
            processor = self.streams.of(file)
            self.sink.rename(old, new, processor.stream_key)
            processor.rename(new)
            self.positions.touched(file.stream_id)

    def rescan(self) -> list[TrackedFile]:
        self.stats.rescans += 1
        self.sink.changed()  # omkd_rescans_total moves: /metrics is rebuilt even when idle
        return self.apply_scan(self.tailer.rescan(), everything=True)

    # --- streams that end -------------------------------------------------------------------------

    def end(self, ended: Ended) -> TrackedFile | None:
        """A file's stream ends: drain what can still be read, close, forget the file. A truncated
        file starts a new stream on the same descriptor, returned for reading."""
        file, reason = ended.file, ended.reason
        if reason is EndReason.TRUNCATED and file.fd is not None:
            # Keep the descriptor: the new content stays readable even if the file is
            # deleted before the first read.
            successor = self._next_version(file)
            log.info("stream_ended", path=file.path, reason=reason.value)
            return successor
        if reason in (EndReason.DELETED, EndReason.ROTATED):
            if file.stream_id not in self.draining and not self._continues(file):
                # Truncated or rewritten before it went away: what it holds now is not the rest
                # of the stream. End the old stream, then read the inode again from 0.
                self.end(Ended(self._next_version(file), reason))
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
            self.streams.again.add(fresh.stream_id)
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
        self.sink.changed()
        processor = self.streams.take(file.stream_id)
        if processor is not None:
            if processor.splitter.pending_bytes:
                self.stats.discarded["partial_at_delete"] += 1
            self.hand(processor, closing=True, stream=file.stream_id)
        self.sink.ended(file.stream_id)
        self.streams.forget(file.stream_id)
        self.tailer.untrack(file)
        self.positions.dropped(file.stream_id)

    def restart(self, file: TrackedFile) -> TrackedFile:
        """Read a followed file again from 0 as a new stream (its old parser state dropped: the new
        reading gives its segments again under the same keys, and counts again what it counted: the
        old counts leave now, or, when its state did not load, once read again: ``counted_to``)."""
        fd, file.fd = file.fd, None
        if (old := self.streams.take(file.stream_id)) is not None:
            self.sink.count(old.counters, -1)
        self.sink.count_file(-1)
        self.sink.ended(file.stream_id)
        self.streams.forget(file.stream_id)
        self.tailer.untrack(file)
        self.positions.dropped(file.stream_id)
        return self._new_stream(file, fd, max(file.counted_to, file.read_offset) if old is None else 0)

    def _continues(self, file: TrackedFile) -> bool:
        """The open descriptor still holds the stream read so far (not truncated, not rewritten)."""
        if file.fd is None:
            return True
        try:
            return os.fstat(file.fd).st_size >= file.read_offset and self.tailer.head_matches(file)
        except OSError:
            return True

    def _next_version(self, file: TrackedFile) -> TrackedFile:
        """A new stream on the same descriptor, read from 0, after a truncation or a rewrite. A line
        stream's old content stays counted; a whole-document chat's new version replaces the old one,
        whose counters leave the pipeline (``restart``), as a scan reads only the version on disk."""
        if formats.is_document(file.path):
            self.stats.files_truncated += 1
            return self.restart(file)
        return self._successor(file)

    def _successor(self, file: TrackedFile) -> TrackedFile:
        """End ``file``'s stream; a new stream on the same open descriptor, from offset 0."""
        fd, file.fd = file.fd, None
        self.close_stream(file)
        self.stats.files_truncated += 1
        return self._new_stream(file, fd)

    def _new_stream(self, file: TrackedFile, fd: int | None, counted_to: int = 0) -> TrackedFile:
        """A new stream of ``file``'s path and identity, on its open descriptor, read from 0."""
        fresh = TrackedFile(new_stream_id(), file.path, file.dev, file.ino, fd=fd, size=file.size,
                            mtime_ns=file.mtime_ns, counted_to=counted_to)  # fmt: skip
        if fd is not None:
            with contextlib.suppress(OSError):
                info = os.fstat(fd)
                # the version read now: a rescan that finds the same size and time reads it no more
                fresh.size, fresh.mtime_ns = info.st_size, info.st_mtime_ns
        self.tailer.track(fresh)
        self.streams.again.add(fresh.stream_id)  # a new version of the file read before
        self.start(fresh)
        return fresh

    # --- memory -----------------------------------------------------------------------------------

    def evict_excess(self) -> int:
        """Keep at most ``tail.max_open_files`` parser states in memory (``Positions.evict_excess``)."""
        return self.positions.evict_excess(self.config.tail.max_open_files)

    def evict_idle(self) -> int:
        """Drop the parser states of the checkpointed files idle for ``tail.idle_after``."""
        return self.positions.evict_idle(self.clock.monotonic() - self.config.tail.idle_after)
