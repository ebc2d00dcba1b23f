"""The keeper: the only owner of the live fold and of the state store.

The reader hands it what it read (``sink.Sink``: summaries, closing summaries, links, the
pipeline counters); the keeper folds them, moves the window, prunes retention and saves every
change since the previous checkpoint in one transaction — its own (segment summaries, counters,
roll-ups, links) together with where each file was read to and the parser state there
(``FilePositions``, which the reader's ``Positions`` answers). Status (``views.Kept``) and
/metrics (``exporter.Exported``) read it and nothing else of the reading side's state.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final, Protocol

import structlog

from omkd.config import Config
from omkd.daemon.clock import Clock
from omkd.daemon.faults import Faults
from omkd.daemon.selfmetrics import IngestStats
from omkd.daemon.state.store import Checkpoint, FileCheckpoint, Restored, StateStore
from omkd.daemon.stored_segments import StoredCounted, StoredSegments
from omkd.daemon.streams import stream_fingerprint
from omkd.engine.counters import PastRetention, PipelineCounters, StreamCounters
from omkd.engine.figures import AllTimeCounts
from omkd.engine.fold import Fold
from omkd.engine.links import Link
from omkd.engine.live import LiveFold
from omkd.engine.plain import copy_record
from omkd.engine.quiet import QuietLaunches
from omkd.engine.reproducibility import rules_hash
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.summary import SegmentSummary
from omkd.engine.window import Window

log = structlog.get_logger("omkd.ingest")

CHECKPOINT_SEGMENTS: Final = 512
"""Changed segments that make a checkpoint due (besides ``state.checkpoint_bytes`` and the
interval): saving one costs tens of microseconds, and a drain of small segments changed 1,500
a second, so a checkpoint held the event loop for up to 140 ms."""


class FilePositions(Protocol):
    """The reading side's part of a checkpoint: where each changed file was read to."""

    @property
    def dirty(self) -> bool:
        """Files read, begun or ended since the last checkpoint."""

    @property
    def unsaved_bytes(self) -> int: ...

    @property
    def pending(self) -> int:
        """Files whose position changed since the last checkpoint."""

    def changes(self) -> tuple[list[FileCheckpoint], list[str]]:
        """The changed files' checkpoints, and the streams to forget."""

    def saved(self, files: list[FileCheckpoint]) -> None:
        """``changes`` is in the store now."""

    def again(self) -> list[str]:
        """The followed streams reading a new version of a file read before (their segments replace)."""

    def counted_to(self) -> dict[str, int]:
        """The followed streams read again from 0 mid-way, and the offset they were counted to."""


class Keeper:
    """The live fold, the state store, and what of them status and /metrics show."""

    def __init__(
        self,
        config: Config,
        store: StateStore,
        restored: Restored,
        clock: Clock,
        stats: IngestStats,
        faults: Faults,
        files: FilePositions,
        rules: SegmenterRules,
        judge: str,
    ) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self.stats = stats
        self.faults = faults
        self.rules = rules
        self.judge = judge
        """The hedging judge in force (the reproducibility block's and ``omkd_rules_info``'s)."""
        self.rules_hash = rules_hash(rules, judge)
        self.files = files
        """Where the files were read to (the reader's ``Positions``), saved with each checkpoint."""
        window = config.window
        book, counted = StoredSegments(store), StoredCounted(store)
        self.live = LiveFold(window.length, window.retention, window.rollup_days, clock.time(), book, counted)
        self.quiet = QuietLaunches()
        """Segments whose launch a stream left unanswered, settled once it is quiet."""
        self.pipeline: PipelineCounters = restored.pipeline
        self.skill_labels: list[str] = list(restored.meta.skill_labels)
        #: Bumped on every change a metric could show: the daemon rebuilds /metrics only then.
        self.version = 0
        self.live.restore(restored.segments, restored.counters, restored.rollups, restored.links)
        self.live.past_retention = restored.past_retention
        # summaries an older omkd pickled are saved again as plain data at the first checkpoint
        self.live.changed_segments.update(restored.legacy_segments)
        if restored.legacy_segments or restored.unreadable_segments:
            log.info(
                "state_migrated",
                segments_migrated=len(restored.legacy_segments),
                segments_unreadable=restored.unreadable_segments,
            )
        #: The retention the kept segments were last pruned by: a longer one needs the history on
        #: disk read again (``history.py``). Not saved yet (a new state, or one written before
        #: it was kept): the retention in force.
        self.pruned_by = restored.meta.retention or window.retention
        self._saved_retention = restored.meta.retention
        #: The persistent counters as of the last checkpoint: what /metrics exports, so an
        #: exported counter never runs ahead of the saved state and a kill -9 can never make
        #: one go backwards (Prometheus would take that for a reset and count twice).
        self.exported_counters: dict[str, AllTimeCounts] = {k: copy_record(v) for k, v in restored.counters.items()}
        self.exported_pipeline: PipelineCounters = copy_record(restored.pipeline)
        #: What the parser states were made by (``stream_fingerprint``); saved with the state.
        self.stream_fingerprint = stream_fingerprint(self.rules_hash, config.tail.max_line_bytes)
        #: The saved parser states were made by other rules, caps or an older omkd.
        self.outdated = not restored.fresh and restored.meta.stream_fingerprint != self.stream_fingerprint
        #: The fingerprint checkpoints save: the old one until the reading again ends (a kill -9 before
        #: then must find the state still marked as another's, and read it again).
        self.fingerprint_to_save = restored.meta.stream_fingerprint if self.outdated else self.stream_fingerprint
        if restored.fresh:
            # a new state says at once what it is made by (a kill before the first checkpoint
            # must not make it look like an older omkd's)
            self.store.save(Checkpoint(retention=self.pruned_by, stream_fingerprint=self.stream_fingerprint))
            self._saved_retention = self.pruned_by

    # --- what the reader hands over (``sink.Sink``) ----------------------------------------------

    def take(self, summaries: Iterable[SegmentSummary], again: bool = False) -> None:
        for summary in summaries:
            self.live.apply(summary, again)

    def close(self, summaries: Iterable[SegmentSummary], again: bool = False) -> None:
        """A stream that ends hands out its last segment again (closed): when retention pruned it
        meanwhile (Claude Code deletes a transcript about when it leaves a 30-day retention), it is
        not taken back, nor counted a second time."""
        horizon = self.clock.time() - self.config.window.retention
        for summary in summaries:
            last = summary.last_ts if summary.last_ts is not None else summary.first_ts
            if self.live.stored(summary.key) is None and last is not None and last < horizon:
                continue
            self.live.apply(summary, again)

    def tentative(
        self, stream: str, summary: SegmentSummary | None, handed: Collection[str], again: bool = False
    ) -> None:
        """A stream's segment whose launch is unanswered (``quiet.py``): held until the stream is quiet;
        one the fold already holds as it is was settled before a restart (the quiet stream's, saved)."""
        if summary is not None and stream not in self.quiet.settled and self.live.stored(summary.key) == summary:
            self.quiet.settled[stream] = summary.key
        fold, back = self.quiet.offer(stream, summary, handed, again)
        for key in back:
            self.live.take_back(key)
        for ready in fold:
            self.live.apply(ready, again)

    def ended(self, stream: str) -> None:
        """The stream ended: its close settled (or undid) its launch."""
        self.quiet.ended(stream)

    def settle_quiet(self) -> int:
        """Streams quiet for ``segments.idle_close``: their unanswered launches count, as at the end of
        a batch read."""
        ready = self.quiet.due(self.clock.time(), self.config.segments.idle_close)
        for summary, again in ready:
            self.live.apply(summary, again)
        return len(ready)

    def rename(self, old: str, new: str, stream_key: str) -> None:
        """A file renamed below the roots: its segments are named (and, keyed by the name, keyed) anew."""
        self.live.rename(old, new, stream_key)

    def learn(self, links: Iterable[Link]) -> None:
        for link in links:
            self.live.learn(link)

    def count(self, counters: StreamCounters, sign: int) -> None:
        """A stream's counters enter (1) or leave (-1) the pipeline counters."""
        self.pipeline.add_stream(counters, sign)

    def count_file(self, sign: int = 1) -> None:
        """A file enters (1) or leaves (-1) the files read (read again from 0: it leaves first)."""
        self.pipeline.files += sign

    def changed(self) -> None:
        """Something a metric could show changed."""
        self.version += 1

    # --- what status and /metrics read ------------------------------------------------------------

    @property
    def fold(self) -> Fold:
        return self.live.fold

    @property
    def past_retention(self) -> PastRetention:
        """The segments pruned past retention (outside the window, no longer kept)."""
        return self.live.past_retention

    @property
    def last_event(self) -> float | None:
        return self.live.last_event_ts

    @property
    def window_length(self) -> float:
        return self.config.window.length

    @property
    def roots(self) -> tuple[str, ...]:
        """The trace roots (spec §1's watermark names them)."""
        return tuple(str(root) for root in self.config.roots())

    def open_after(self) -> float:
        """Segments whose last record is older than this are idle: closed, whatever their stream."""
        return self.clock.time() - self.config.segments.idle_close

    # --- time and configuration -------------------------------------------------------------------

    def advance(self) -> bool:
        """Move the window to now; True when what it holds changed."""
        return self.live.advance(self.clock.time())

    def give_up_waiting(self) -> int:
        """Sub-agent segments whose link did not come within the timeout count as ``general``."""
        return self.live.give_up_waiting(self.clock.time(), self.config.segments.subagent_link_timeout)

    def settle(self) -> None:
        """Count the open segments idle now (their §8 figures are settled: ``engine/settle.py``). Only
        with everything on disk read: a segment whose stream holds bytes not read yet is not idle."""
        self.live.settle_idle(self.open_after())

    def pruned(self) -> None:
        """Retention pruning ran with the retention now in force."""
        self.live.prune(self.clock.time())
        self.pruned_by = min(self.pruned_by, self.config.window.retention)

    def recount(self, horizon: float, streams: set[str]) -> None:
        """The history on disk is read again (``history.py``): the segments kept since ``horizon``
        and those of ``streams`` will be handed over again (``LiveFold.recount``)."""
        self.live.recount(horizon, streams)

    def recounted(self, read: set[str], horizon: float) -> tuple[int, int, int]:
        """The history on disk was read again (the streams of ``read`` to their end): the segments
        that came back, those no longer cut, those that cannot come back (their transcripts gone)."""
        recovered, gone = self.live.end_recount(read)
        self.fingerprint_to_save = self.stream_fingerprint
        retention = self.config.window.retention
        lost = self.live.unrecoverable(self.clock.time() - retention, horizon)
        self.stats.unrecoverable_segments = lost
        self.pruned_by = retention
        return recovered, gone, lost

    def reconfigure(self, new: Config) -> None:
        self.config = new
        live = self.live
        if new.window.length != live.window_length:
            live.window_length = new.window.length
            live.fold.rewindow(Window(since=self.clock.time() - new.window.length))
        live.retention = new.window.retention
        live.rollup_days = new.window.rollup_days

    # --- checkpoints ------------------------------------------------------------------------------

    def wants_checkpoint(self) -> bool:
        """Enough unsaved bytes, segments, or parser states held in memory, to save now."""
        return (
            self.files.unsaved_bytes >= self.config.state.checkpoint_bytes
            or len(self.live.changed_segments) >= CHECKPOINT_SEGMENTS
            or self.files.pending >= self.config.tail.max_open_files
        )

    @property
    def dirty(self) -> bool:
        live = self.live
        return bool(
            self.files.dirty
            or live.changed_segments
            or live.changed_rollups
            or live.settler.book.changed
            or self._saved_retention != self.pruned_by
        )

    def checkpoint(self) -> bool:
        """Save every change since the last checkpoint in one transaction."""
        if not self.dirty:
            return True
        live = self.live
        try:
            files, dropped = self.files.changes()
            checkpoint = Checkpoint(
                files=files,
                dropped_files=dropped,
                segments=[s for s in map(live.stored, live.changed_segments) if s is not None],
                forgotten_segments=[k for k in live.changed_segments if live.stored(k) is None],
                links=[live.fold.links.known[k] for k in live.changed_links if k in live.fold.links.known],
                forgotten_links=[k for k in live.changed_links if k not in live.fold.links.known],
                counters={skill: live.counters[skill] for skill in live.changed_skills if skill in live.counters},
                counted=live.settler.book.changes(),
                rollups={key: live.rollups.get(key) for key in live.changed_rollups},
                pipeline=self.pipeline,
                past_retention=live.past_retention,
                skill_labels=self.skill_labels,
                retention=self.pruned_by,
                stream_fingerprint=self.fingerprint_to_save,
                again=self.files.again(),
                counted_to=self.files.counted_to(),
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
        self.files.saved(files)
        self._saved_retention = self.pruned_by
        live.clear_changes()
        return True
