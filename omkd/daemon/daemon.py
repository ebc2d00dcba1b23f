"""The daemon's lifecycle: startup -> main loop -> shutdown, with signals and systemd.

One asyncio loop runs everything. Each ``tick`` takes filesystem hints, rescans when due,
reads a budget from every ready file, does the periodic chores (window, retention,
checkpoints, eviction, knowledge files) and rebuilds the /metrics snapshot when something
changed, then sleeps until the next thing is due or a hint wakes it. SIGTERM (or SIGINT)
asks for a graceful exit; a second one exits at once. SIGHUP reloads a validated config and
keeps the old one when the new one is invalid.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import Final

import structlog

from omkd.config import Config, ConfigError, load_config
from omkd.daemon.backfill import MAX_DEFAULT_WORKERS, Backfill, catch_up_workers
from omkd.daemon.chores import Chores
from omkd.daemon.clock import SYSTEM_CLOCK, Clock
from omkd.daemon.exporter import Exporter, TailFigures
from omkd.daemon.host import raise_descriptor_limit, signal_handlers
from omkd.daemon.http import HttpServer
from omkd.daemon.knowledge import KnowledgeView
from omkd.daemon.notify import Notifier
from omkd.daemon.parts import Parts
from omkd.daemon.scheduler import YIELD_SECONDS, ReadScheduler
from omkd.daemon.state.store import StateStore
from omkd.daemon.views import Views
from omkd.daemon.wiki import WikiKeeper
from omkd.engine.hedge_judge import HedgeVerdict
from omkd.engine.labels import CappedLabels
from omkd.shell.llm_judge import LlmStats
from omkd.shell.scan import usable_cores

log = structlog.get_logger("omkd.daemon")

STOP_DRAIN_SECONDS: Final = 20.0
"""How long shutdown may read what is on disk (the unit's TimeoutStopSec is 30 s)."""


def restart_needed(old: Config, new: Config) -> list[str]:
    """The keys whose change a reload cannot apply: they need a restart."""
    return [
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


class Daemon:
    """``omkd run``: see the module docstring."""

    def __init__(
        self,
        config: Config,
        config_path: Path | None = None,
        clock: Clock = SYSTEM_CLOCK,
        notifier: Notifier | None = None,
        listen: str | None = None,
    ) -> None:
        self.config = config.listening(listen)
        self.config_path = config_path
        self._listen = listen
        """``--listen``: it outlasts reloads of the file."""
        self.clock = clock
        self.notifier = notifier or Notifier()
        self.should_exit = False
        self.force_exit = False
        self._store: StateStore | None = None
        self._parts: Parts | None = None
        self._scheduler: ReadScheduler | None = None
        self._views: Views | None = None
        self._http: HttpServer | None = None
        self._wake = asyncio.Event()
        self._knowledge = KnowledgeView(config, clock)
        self._exporter = Exporter(CappedLabels(config.metrics.max_skills), clock, config.metrics.snapshot_interval)
        self._chores: Chores | None = None
        self._judge_task: asyncio.Task[None] | None = None
        self._wiki = WikiKeeper(self.config, clock)

    @property
    def parts(self) -> Parts:
        if self._parts is None:
            raise RuntimeError("daemon not started")
        return self._parts

    @property
    def ready(self) -> bool:
        """Everything on disk at start has been read."""
        return self._views is not None and self._views.ready

    @property
    def scheduler(self) -> ReadScheduler:
        if self._scheduler is None:
            raise RuntimeError("daemon not started")
        return self._scheduler

    @property
    def bound_port(self) -> int | None:
        return self._http.port if self._http is not None else None

    # --- lifecycle -----------------------------------------------------------------------------

    async def serve(self) -> None:
        """Run until SIGTERM/SIGINT (or ``should_exit``)."""
        handlers = {signal.SIGTERM: self.request_exit, signal.SIGINT: self.request_exit, signal.SIGHUP: self.reload}
        with signal_handlers(handlers):
            await self.startup()
            try:
                await self.main_loop()
            finally:
                await self.shutdown()

    async def startup(self) -> None:
        config = self.config
        descriptors = raise_descriptor_limit()
        store = StateStore(config.state_dir())
        restored = store.open()
        self._store = store
        if restored.moved_aside is not None:
            log.error("state_was_unreadable", moved_to=str(restored.moved_aside))
        parts = self._parts = Parts.open(config, store, restored, self.clock)
        self._exporter.labels = CappedLabels(
            config.metrics.max_skills, restored.meta.skill_labels or sorted(restored.counters)
        )
        self._scheduler = ReadScheduler(parts, self.clock, self._wake)
        self._scheduler.backfill = self._backfill(parts)
        exporter = self._exporter
        self._views = Views(parts.keeper, self._knowledge, lambda: exporter.text)
        self._http = HttpServer(self._views)
        refiner = parts.refiner
        if refiner is not None:
            folded = refiner.deliver

            def deliver(key: str, verdict: HedgeVerdict | None) -> None:
                folded(key, verdict)
                self._wake.set()

            refiner.deliver = deliver
            self._judge_task = asyncio.create_task(refiner.run(), name="llm-judge")
            log.info("llm_judge", model=refiner.settings.model, provider=refiner.settings.provider)
        await self._http.start(config.http.host, config.http.port)
        self.scheduler.start_watching(config.tail.mode, config.roots())
        log.info(
            "started",
            roots=[str(r) for r in config.roots()],
            state=str(store.path),
            listen=f"{config.http.host}:{self.bound_port}",
            mode="polling" if self.scheduler.polling else "events",
            restored_files=parts.stats.restored_files,
            descriptor_limit=descriptors,
        )
        self._chores = Chores(parts, self._knowledge, self._exporter, self.clock)
        self.scheduler.rescan(self._rescan_interval)
        self.scheduler.start_backfill()
        self._knowledge.refresh(self._cwds(), announce=True)
        self._views.ready = self.scheduler.announced = True
        self._rebuild_metrics(force=True)
        self.notifier.send("READY=1", f"STATUS=following {len(parts.reader.tailer.files)} transcript files")

    async def main_loop(self) -> None:
        watchdog = asyncio.create_task(self.notifier.ping_watchdog())
        try:
            while not self.should_exit:
                await self.tick()
        finally:
            watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watchdog

    async def tick(self) -> None:
        """One round: hints and rescans, a read budget per ready file, chores, then sleep."""
        scheduler, parts = self.scheduler, self.parts
        scheduler.step(self._rescan_interval)
        caught_up = scheduler.caught_up
        worked = await scheduler.read_ready(lambda: self.should_exit)
        if scheduler.caught_up != caught_up:
            self._announce_first_read()
            # Everything on disk is read: a sub-agent still without its link will not get one from
            # history (the timeout counts from now on for what arrives live).
            self._exporter.dirty = True
            if self._chores is not None:
                self._chores.give_up_waiting()
        history = parts.history
        if history.recounting and scheduler.caught_up and not scheduler.ready and parts.reader.tailer.lag_bytes() == 0:
            history.end()
            self._exporter.dirty = True
        chores = self._chores
        assert chores is not None
        if not worked and not scheduler.ready and not scheduler.backfilling and parts.keeper.dirty:
            # A burst has been read: save it now (or within BURST_CHECKPOINT_GAP of the last
            # save), so /metrics, which shows only saved counters, is current within a fraction
            # of a second of the write. Not while catch-up workers read: the burst goes on (the
            # chores save by size and interval meanwhile).
            chores.burst_ended()
        busy = worked or bool(scheduler.ready)
        # While a large file drains, a checkpoint and a rebuild each hold the loop for 10-60 ms: a
        # millisecond after each (sleep(0) serves one step of a request), or a request that waited
        # on one waits on the next piece of work too.
        if chores.run(self._cwds(), replaying=not scheduler.caught_up) and busy:
            await asyncio.sleep(YIELD_SECONDS)
        if scheduler.caught_up and self._wiki.due():
            self._wiki.start(parts.keeper.fold, self._knowledge.index)
        self._exporter.note(parts.keeper)
        rebuilt = self._rebuild_metrics()
        if busy:
            await asyncio.sleep(YIELD_SECONDS if rebuilt else 0)
            return
        deadline = min(scheduler.rescan_due, chores.next_due())
        wiki_due = self._wiki.wake_at
        if wiki_due is not None and scheduler.caught_up:
            deadline = min(deadline, wiki_due)
        due = self._exporter.next_due(scheduler.caught_up)
        if due is not None:
            deadline = min(deadline, due)
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), max(0.0, deadline - self.clock.monotonic()))

    async def shutdown(self) -> None:
        self.notifier.send("STOPPING=1")
        if self._judge_task is not None:
            self._judge_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._judge_task
            self._judge_task = None
        await self._wiki.close()
        if self._scheduler is not None:
            self._scheduler.stop_watching()
            self._scheduler.stop_backfill()
        if self._parts is not None:
            if not self.force_exit:
                # What is already on disk is part of what happened: read it (deleted and rotated
                # files through their descriptors) before the final checkpoint.
                self._parts.reader.drain_everything(self.clock.monotonic() + STOP_DRAIN_SECONDS)
            self._parts.keeper.skill_labels = list(self._exporter.labels.labelled)
            self._parts.shutdown()
            if self._parts.refiner is not None:
                await self._parts.refiner.close()
        if self._http is not None:
            await self._http.stop()
        if self._store is not None:
            self._store.close()
            self._store = None
        self.notifier.close()
        log.info("stopped", forced=self.force_exit)

    def request_exit(self) -> None:
        """The first request exits gracefully; a second one (``force_exit``) skips what waits."""
        if self.should_exit:
            self.force_exit = True
        self.should_exit = True
        self._wake.set()

    # --- reload ---------------------------------------------------------------------------------

    def reload(self) -> None:
        """Re-read the config file; keep the running one if the new one is invalid."""
        if self.config_path is None:
            log.info("reload_ignored", reason="running on the embedded default config")
            return
        self.notifier.send("RELOADING=1", f"MONOTONIC_USEC={int(self.clock.monotonic() * 1e6)}")
        try:
            new = load_config(self.config_path).listening(self._listen)
        except ConfigError as error:
            log.error("reload_rejected", config=str(self.config_path), problems=error.problems)  # noqa: TRY400
            self.notifier.send("READY=1")
            return
        needs_restart = restart_needed(self.config, new)
        self.config = new
        self.parts.reconfigure(new)
        self._exporter.labels.cap = new.metrics.max_skills
        self._exporter.snapshot_interval = new.metrics.snapshot_interval
        self._knowledge.reconfigure(new)
        self._wiki.configure(new)
        self._knowledge.refresh(self._cwds())
        self.scheduler.now_due()
        self._exporter.dirty = True
        log.info("reloaded", config=str(self.config_path), needs_restart=needs_restart)
        self.notifier.send("READY=1")

    # --- helpers -------------------------------------------------------------------------------

    def _announce_first_read(self) -> None:
        """One line when everything on disk has been read: what is in the window, and what is not."""
        fold = self.parts.keeper.fold
        inside, outside = fold.overall.segments, fold.outside_window
        log.info(
            "initial_read_done",
            files=len(self.parts.reader.tailer.files),
            segments_in_window=inside,
            segments_outside_window=outside,
            window_length_seconds=self.config.window.length,
            hint=(
                "every segment read is older than the window: widen window.length or use omkd scan --since"
                if inside == 0 and outside
                else None
            ),
        )

    def _backfill(self, parts: Parts) -> Backfill | None:
        """The catch-up workers (``tail.catch_up_workers``), or None: none asked for, or the LLM
        judge's verdicts are wanted while reading."""
        workers = self.config.tail.catch_up_workers
        if workers is None:
            workers = min(usable_cores(), MAX_DEFAULT_WORKERS)
        if workers <= 0 or parts.refiner is not None:
            return None
        return catch_up_workers(parts.reader, workers, self._wake.set)

    def _rescan_interval(self, polling: bool) -> float:
        tail = self.config.tail
        return tail.poll_interval if polling else tail.rescan_interval

    def _cwds(self) -> list[str]:
        return list(self.parts.keeper.fold.overall.cwds) if self._parts is not None else []

    def _rebuild_metrics(self, force: bool = False) -> bool:
        """Rebuild the /metrics snapshot when due; True when it was."""
        scheduler, parts, knowledge = self.scheduler, self.parts, self._knowledge

        def tail() -> TailFigures:
            tailer, refiner = parts.reader.tailer, parts.refiner
            return TailFigures(
                polling=scheduler.polling,
                replaying=scheduler.replaying(),
                files_watched=len(tailer.files),
                files_open=tailer.open_files,
                lag_bytes=tailer.lag_bytes(),
                llm=refiner.stats if refiner is not None else LlmStats(),
                llm_cap=refiner.settings.daily_cost_cap if refiner is not None else None,
            )

        keeper = parts.keeper
        if not self._exporter.rebuild(keeper, knowledge.index, knowledge.bases, tail, scheduler.caught_up, force):
            return False
        keeper.skill_labels = list(self._exporter.labels.labelled)
        return True
