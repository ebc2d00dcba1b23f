"""The daemon's lifecycle: startup -> main loop -> shutdown, with signals and systemd.

One asyncio loop runs everything. Filesystem events arrive from watchdog's thread as hints
(paths to look at); a periodic full rescan is the source of truth. Reading and folding
happen in bounded steps between which the loop serves HTTP and pings the systemd
watchdog. SIGTERM drains and checkpoints; SIGHUP reloads a validated config and keeps the
old one when the new one is invalid.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import structlog
from aiohttp import web

from omkd.daemon import metrics
from omkd.daemon.config import Config, ConfigError, load_config
from omkd.daemon.http import build_app
from omkd.daemon.ingest import Ingest
from omkd.daemon.notify import Notifier
from omkd.daemon.state import StateStore
from omkd.daemon.tailer import TrackedFile
from omkd.engine import report as reports
from omkd.engine.pipeline import PipelineCounters, Window
from omkd.engine.report import GapEntry, Report
from omkd.shell.knowledge import FileKnowledgeIndex
from omkd.shell.knowledge_watch import KnowledgeWatcher

log = structlog.get_logger("omkd.daemon")

READ_BUDGET: Final = 4 << 20
"""Bytes read from one file before the loop looks at anything else."""
REPLAY_LAG_BYTES: Final = 8 << 20
EVICT_EVERY: Final = 60.0
WINDOW_EVERY: Final = 10.0
PRUNE_EVERY: Final = 600.0
REPLAY_SNAPSHOT_INTERVAL: Final = 1.0
HINT_RESCAN_DELAY: Final = 0.2


@dataclass(slots=True)
class _Timers:
    """When each periodic chore is next due (monotonic seconds)."""

    checkpoint: float
    evict: float
    window: float
    prune: float

    @classmethod
    def starting(cls, now: float, checkpoint_interval: float) -> _Timers:
        return cls(now + checkpoint_interval, now + EVICT_EVERY, now + WINDOW_EVERY, now)


class Daemon:
    """``omkd run``: see the module docstring."""

    def __init__(
        self,
        config: Config,
        config_path: Path | None = None,
        clock: Callable[[], float] = time.time,
        notifier: Notifier | None = None,
    ) -> None:
        self.config = config
        self.config_path = config_path
        self.clock = clock
        self.notifier = notifier or Notifier()
        self.should_exit = False
        self.force_exit = False
        self._ready = False
        self._store: StateStore | None = None
        self._ingest: Ingest | None = None
        self._runner: web.AppRunner | None = None
        self._wake = asyncio.Event()
        self._hints: set[str] = set()
        self._rescan_due = 0.0
        self._ready_files: dict[str, TrackedFile] = {}
        self._polling = config.tail.mode == "polling"
        self._observer: Any = None
        self._metrics = b""
        self._metrics_dirty = True
        self._metrics_built = 0.0
        self._metrics_version = -1
        self._labels = metrics.SkillLabels(config.metrics.max_skills)
        self._knowledge = self._knowledge_index()
        self._knowledge_watch = KnowledgeWatcher()
        self._knowledge_at = time.monotonic()
        self.bound_port: int | None = None
        self._caught_up = False

    # --- what HTTP reads -----------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self._ready

    @property
    def ingest(self) -> Ingest:
        if self._ingest is None:
            raise RuntimeError("daemon not started")
        return self._ingest

    def metrics_snapshot(self) -> bytes:
        return self._metrics

    def status(self, skills: list[str]) -> Report:
        ingest = self.ingest
        now = self.clock()
        built = reports.build_report(
            ingest.live.fold,
            [str(root) for root in self.config.roots()],
            self._knowledge,
            open_after=now - self.config.segments.idle_close,
        )
        built = built.model_copy(update={"pipeline": _pipeline_report(ingest.pipeline, built)})
        return reports.restrict(built, set(skills)) if skills else built

    def gaps(self, skill: str | None, kind: str | None, since: float | None, limit: int) -> list[GapEntry]:
        segments = [
            s for s in self.ingest.live.fold.segments.values() if (skill is None or s.skill == skill) and s.signals
        ]
        entries = reports.gap_entries(segments)
        if kind is not None:
            entries = [e for e in entries if e.type == kind]
        if since is not None:
            cutoff = reports.iso(since) or ""
            entries = [e for e in entries if e.timestamp is not None and e.timestamp >= cutoff]
        return entries[:limit]

    # --- lifecycle ---------------------------------------------------------------------------------

    async def serve(self) -> None:
        """Run until SIGTERM/SIGINT (or ``should_exit``)."""
        with self._signal_handlers():
            await self.startup()
            try:
                await self.main_loop()
            finally:
                await self.shutdown()

    async def startup(self) -> None:
        config = self.config
        store = StateStore(config.state_dir())
        restored = store.open()
        self._store = store
        if restored.moved_aside is not None:
            log.error("state_was_unreadable", moved_to=str(restored.moved_aside))
        self._ingest = Ingest(config, store, restored, self.clock)
        labels = restored.meta.get("skill_labels")
        self._labels = metrics.SkillLabels(
            config.metrics.max_skills, labels if isinstance(labels, list) else sorted(restored.counters)
        )
        await self._start_http()
        self._start_watching()
        log.info(
            "started",
            roots=[str(r) for r in config.roots()],
            state=str(store.path),
            listen=f"{config.http.host}:{self.bound_port}",
            mode="polling" if self._polling else "events",
            restored_files=self._ingest.stats.restored_files,
        )
        self._rescan()
        self._refresh_knowledge()
        self._ready = True
        self._rebuild_metrics(force=True)
        self.notifier.send("READY=1", f"STATUS=following {len(self.ingest.tailer.files)} transcript files")

    async def main_loop(self) -> None:
        watchdog = asyncio.create_task(self._watchdog_pings())
        timers = _Timers.starting(time.monotonic(), self.config.state.checkpoint_interval)
        try:
            while not self.should_exit:
                now = time.monotonic()
                if self._hints:
                    self._take_hints()
                if now >= self._rescan_due:
                    self._rescan()
                worked = await self._read_ready()
                if not worked and not self._ready_files and self.ingest.dirty:
                    # A burst has been read: save it now, so /metrics (which shows only saved
                    # counters) is current within milliseconds of the write.
                    self._checkpoint(timers)
                self._housekeeping(now, timers)
                if self.ingest.version != self._metrics_version:
                    self._metrics_dirty = True
                self._rebuild_metrics()
                if worked or self._ready_files:
                    await asyncio.sleep(0)
                    continue
                deadline = min(self._rescan_due, timers.checkpoint, timers.window)
                if self._metrics_dirty:
                    deadline = min(deadline, self._metrics_built + self._snapshot_interval())
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), max(0.0, deadline - time.monotonic()))
        finally:
            watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watchdog

    def _checkpoint(self, timers: _Timers) -> None:
        if self.ingest.dirty:
            self.ingest.checkpoint()
            self.ingest.evict_excess()
        timers.checkpoint = time.monotonic() + self.config.state.checkpoint_interval

    def _housekeeping(self, now: float, timers: _Timers) -> None:
        """The periodic chores: window, retention, checkpoints, eviction, knowledge."""
        ingest = self.ingest
        if now >= timers.window:
            if ingest.live.advance(self.clock()):
                self._metrics_dirty = True
            timers.window = now + WINDOW_EVERY
        if now >= timers.prune:
            ingest.live.prune(self.clock())
            timers.prune = now + PRUNE_EVERY
        if now >= timers.checkpoint or ingest.wants_checkpoint():
            self._checkpoint(timers)
        if now >= timers.evict:
            ingest.evict_idle()
            timers.evict = now + EVICT_EVERY
        if now - self._knowledge_at >= self.config.sources.knowledge_refresh:
            self._refresh_knowledge()
            self._knowledge_at = now

    async def shutdown(self) -> None:
        self.notifier.send("STOPPING=1")
        self._stop_watching()
        if self._ingest is not None:
            self._ingest.meta["skill_labels"] = list(self._labels.labelled)
            self._ingest.shutdown()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._store is not None:
            self._store.close()
            self._store = None
        self.notifier.close()
        log.info("stopped")

    def request_exit(self) -> None:
        if self.should_exit:
            self.force_exit = True
        self.should_exit = True
        self._wake.set()

    # --- signals ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _signal_handlers(self) -> Iterator[None]:
        loop = asyncio.get_running_loop()
        handled = {signal.SIGTERM: self.request_exit, signal.SIGINT: self.request_exit, signal.SIGHUP: self.reload}
        previous = {sig: signal.getsignal(sig) for sig in handled}
        try:
            for sig, handler in handled.items():
                loop.add_signal_handler(sig, handler)
            yield
        finally:
            for sig, old_handler in previous.items():
                loop.remove_signal_handler(sig)
                signal.signal(sig, old_handler)

    def reload(self) -> None:
        """Re-read the config file; keep the running one if the new one is invalid."""
        if self.config_path is None:
            log.info("reload_ignored", reason="running on the embedded default config")
            return
        self.notifier.send("RELOADING=1", f"MONOTONIC_USEC={time.monotonic_ns() // 1000}")
        try:
            new = load_config(self.config_path)
        except ConfigError as error:
            log.error("reload_rejected", config=str(self.config_path), problems=error.problems)  # noqa: TRY400
            self.notifier.send("READY=1")
            return
        needs_restart = [
            name
            for name, old_value, new_value in (
                ("http.listen", self.config.http.listen, new.http.listen),
                ("state.directory", self.config.state_dir(), new.state_dir()),
                ("segments", self.config.segments, new.segments),
                ("tail.max_line_bytes", self.config.tail.max_line_bytes, new.tail.max_line_bytes),
            )
            if old_value != new_value
        ]
        self.config = new
        ingest = self.ingest
        ingest.config = new
        ingest.tailer.roots = new.roots()
        ingest.tailer.max_open_files = new.tail.max_open_files
        if new.window.length != ingest.live.window_length:
            ingest.live.window_length = new.window.length
            ingest.live.fold.rewindow(Window(since=self.clock() - new.window.length))
        ingest.live.retention = new.window.retention
        ingest.live.rollup_days = new.window.rollup_days
        self._labels.cap = new.metrics.max_skills
        self._refresh_knowledge()
        self._rescan_due = 0.0
        self._metrics_dirty = True
        self._wake.set()
        log.info("reloaded", config=str(self.config_path), needs_restart=needs_restart)
        self.notifier.send("READY=1")

    # --- watching ---------------------------------------------------------------------------------

    def _start_watching(self) -> None:
        if self.config.tail.mode == "polling":
            self._polling = True
            return
        try:
            from watchdog.events import (
                DirCreatedEvent,
                DirDeletedEvent,
                DirMovedEvent,
                FileClosedEvent,
                FileCreatedEvent,
                FileDeletedEvent,
                FileModifiedEvent,
                FileMovedEvent,
                FileSystemEvent,
                FileSystemEventHandler,
            )
            from watchdog.observers import Observer
        except ImportError:  # pragma: no cover - watchdog is a dependency
            self._polling = True
            return
        loop = asyncio.get_running_loop()
        daemon = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                paths = [event.src_path, getattr(event, "dest_path", "")]
                loop.call_soon_threadsafe(daemon._hint, [str(p) for p in paths if p], event.is_directory)

        observer = Observer()
        watched = 0
        for root in self.config.roots():
            if not root.is_dir():
                continue
            try:
                # Not opened / closed-without-writing: omkd's own reads would wake it.
                observer.schedule(
                    Handler(),
                    str(root),
                    recursive=True,
                    event_filter=[
                        FileCreatedEvent, FileModifiedEvent, FileMovedEvent, FileDeletedEvent, FileClosedEvent,
                        DirCreatedEvent, DirMovedEvent, DirDeletedEvent,
                    ],
                )  # fmt: skip
                watched += 1
            except OSError as error:
                log.warning("watch_failed", root=str(root), error=str(error), action="polling")
                if self.config.tail.mode == "events":
                    raise
                self._polling = True
                return
        try:
            observer.start()
        except OSError as error:
            log.warning("watch_failed", error=str(error), action="polling")
            if self.config.tail.mode == "events":
                raise
            self._polling = True
            return
        self._observer = observer
        self._polling = False

    def _stop_watching(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    def _hint(self, paths: list[str], is_directory: bool) -> None:
        if is_directory:
            self._rescan_due = min(self._rescan_due, time.monotonic() + HINT_RESCAN_DELAY)
        else:
            self._hints.update(paths)
        self._wake.set()

    def _take_hints(self) -> None:
        hints, self._hints = self._hints, set()
        ingest = self.ingest
        for path in hints:
            result = ingest.tailer.poke(path)
            if result is None:
                if path.endswith(".jsonl") or path.endswith(".jsonl.1") or "." not in Path(path).name:
                    self._rescan_due = min(self._rescan_due, time.monotonic() + HINT_RESCAN_DELAY)
                continue
            for file in ingest.apply_scan(result):
                self._ready_files[file.stream_id] = file

    def _rescan(self) -> None:
        ingest = self.ingest
        before = {f.stream_id: (f.size, f.mtime_ns) for f in ingest.tailer.files.values()}
        ready = ingest.rescan()
        if not self._polling and self._ready:
            unannounced = [f for f in ready if f.stream_id not in self._ready_files]
            if unannounced and any(before.get(f.stream_id) is not None for f in unannounced):
                ingest.stats.watch_overflows += 1
        for file in ready:
            self._ready_files[file.stream_id] = file
        interval = self.config.tail.poll_interval if self._polling else self.config.tail.rescan_interval
        self._rescan_due = time.monotonic() + interval

    async def _read_ready(self) -> bool:
        """Read a budget from every file with new bytes; True when something was read."""
        if not self._ready_files:
            if not self._caught_up and self._ready:
                self._caught_up = True
                self._metrics_dirty = True
            return False
        ingest = self.ingest
        worked = False
        for stream_id, file in list(self._ready_files.items()):
            if stream_id not in ingest.tailer.files:
                del self._ready_files[stream_id]
                continue
            try:
                read = ingest.feed(file, READ_BUDGET)
            except OSError as error:
                log.warning("read_failed", path=file.path, error=str(error))
                read = 0
            if read < READ_BUDGET:
                del self._ready_files[stream_id]
            if read:
                worked = True
                self._metrics_dirty = True
            await asyncio.sleep(0)
            if self.should_exit or ingest.wants_checkpoint():
                break  # back to the main loop, which saves (and evicts) before reading on
        return worked

    async def _watchdog_pings(self) -> None:
        interval = self.notifier.watchdog_interval()
        if interval is None:
            return
        while True:
            self.notifier.send("WATCHDOG=1")
            await asyncio.sleep(interval)

    # --- HTTP and metrics -------------------------------------------------------------------------

    async def _start_http(self) -> None:
        runner = web.AppRunner(build_app(self), access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.config.http.host, self.config.http.port, reuse_address=True)
        await site.start()
        self._runner = runner
        server = site._server  # aiohttp exposes no public accessor for the bound port
        sockets = getattr(server, "sockets", None) or []
        self.bound_port = sockets[0].getsockname()[1] if sockets else self.config.http.port

    def _refresh_knowledge(self) -> None:
        """List the knowledge files again and note which bases changed."""
        self._knowledge = self._knowledge_index()
        cwds = list(self.ingest.live.fold.overall.cwds) if self._ingest is not None else []
        if self._knowledge_watch.update(self._knowledge.bases(cwds)) or not self._ready:
            log.info("knowledge_changed", bases=sorted(self._knowledge_watch.figures))
            self._metrics_dirty = True

    def _knowledge_index(self) -> FileKnowledgeIndex:
        sources = self.config.sources
        return FileKnowledgeIndex(sources.home.expanduser(), [p.expanduser() for p in sources.knowledge_roots])

    def replaying(self, lag_bytes: int | None = None) -> bool:
        if lag_bytes is None:
            lag_bytes = self.ingest.tailer.lag_bytes()
        return not self._caught_up or lag_bytes > REPLAY_LAG_BYTES

    def _snapshot_interval(self) -> float:
        """While catching up, a snapshot a second is enough: nobody waits on each replayed line."""
        interval = self.config.metrics.snapshot_interval
        return max(interval, REPLAY_SNAPSHOT_INTERVAL) if not self._caught_up else interval

    def _rebuild_metrics(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and (not self._metrics_dirty or now - self._metrics_built < self._snapshot_interval()):
            return
        ingest = self.ingest
        fold = ingest.live.fold
        open_after = self.clock() - self.config.segments.idle_close
        open_by_skill: dict[str, int] = {}
        for summary in fold.in_window():
            if summary.open and (summary.last_ts or 0.0) >= open_after:
                open_by_skill[summary.skill] = open_by_skill.get(summary.skill, 0) + 1
        pipeline = ingest.exported_pipeline
        stats = ingest.stats
        lag = ingest.tailer.lag_bytes()
        discarded = dict(stats.discarded)
        discarded["oversize"] = pipeline.bad_lines.get("oversize", 0)
        view = metrics.PipelineView(
            files_watched=len(ingest.tailer.files),
            files_open=ingest.tailer.open_files,
            files_discovered=stats.files_discovered,
            files_rotated=stats.files_rotated,
            files_renamed=stats.files_renamed,
            files_truncated=stats.files_truncated,
            files_deleted=stats.files_deleted,
            read_bytes=stats.bytes_read,
            lines=pipeline.lines,
            records=pipeline.records,
            discarded=discarded,
            parse_errors={k: v for k, v in pipeline.bad_lines.items() if k != "oversize"},
            unknown_records=dict(pipeline.unknown_types),
            invalid_skill_names=pipeline.invalid_skill_names,
            lag_bytes=lag,
            rescans=stats.rescans,
            watch_overflows=stats.watch_overflows,
            polling=self._polling,
            checkpoint_writes=stats.checkpoint_writes,
            checkpoint_errors=stats.checkpoint_errors,
            replaying=self.replaying(lag),
            last_event=ingest.live.last_event_ts,
            last_read=stats.last_read,
            last_checkpoint=stats.last_checkpoint,
            window_length=self.config.window.length,
        )
        exposition = metrics.Exposition(
            ingest.exported_counters,
            fold.skills,
            fold.overall,
            open_by_skill,
            self._knowledge,
            self._labels,
            view,
            self._knowledge_watch.figures,
        )
        self._metrics = metrics.render(exposition)
        ingest.meta["skill_labels"] = list(self._labels.labelled)
        self._metrics_dirty = False
        self._metrics_built = time.monotonic()
        self._metrics_version = ingest.version


def _pipeline_report(pipeline: PipelineCounters, built: Report) -> reports.PipelineReport:
    return built.pipeline.model_copy(
        update={
            "files": pipeline.files,
            "bytes": pipeline.bytes,
            "lines": pipeline.lines,
            "records": pipeline.records,
            "bad_lines": dict(sorted(pipeline.bad_lines.items())),
            "unknown_types": dict(sorted(pipeline.unknown_types.items())),
            "ignored": dict(sorted(pipeline.ignored.items())),
            "invalid_skill_names": pipeline.invalid_skill_names,
            "orphan_results": pipeline.orphan_results,
            "compactions": pipeline.compactions,
        }
    )
