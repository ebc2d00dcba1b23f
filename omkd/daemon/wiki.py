"""``[wiki]``: the daemon keeps the gap wiki current from its live fold, off the hot path.

Every ``wiki.interval``, once everything on disk has been read, the failed searches of the window
are taken from the fold on the loop (the fold is the loop's), then git is asked (the changes, and
what became of each pattern after them: ``[impact]``) and the pages are merged and written in a
worker thread while the loop goes on reading. An ``asyncio.Lock`` keeps
the daemon's own updates one at a time; the wiki's lock file (``shell/wiki.py``) serialises them
with any ``omkd wiki`` run or other daemon writing the same directory. A failure is logged and
tried again at the next interval; it never stops the daemon.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

import structlog

from omkd.config import Config
from omkd.daemon.clock import Clock
from omkd.daemon.snapshot import read_window
from omkd.engine.fold import Fold
from omkd.engine.report.build import KnowledgeIndex
from omkd.shell import wiki, wiki_prose
from omkd.shell.llm_judge import LlmSettings

log = structlog.get_logger("omkd.daemon")


class WikiKeeper:
    def __init__(self, config: Config, clock: Clock) -> None:
        self._clock = clock
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self.updates = 0
        self.configure(config)

    def configure(self, config: Config) -> None:
        self.directory = config.wiki.directory.expanduser() if config.wiki.directory is not None else None
        self.interval = config.wiki.interval
        self._roots = [str(root).rstrip("/") for root in config.roots()]
        self._prose = LlmSettings.of(config.hedging.llm) if config.wiki.llm else None
        self._impact = config.impact.query()
        self.next_due = self._clock.monotonic()

    @property
    def wake_at(self) -> float | None:
        """When the main loop must wake for the next update (None: off, or one is under way)."""
        busy = self._task is not None and not self._task.done()
        return None if self.directory is None or busy else self.next_due

    def due(self) -> bool:
        wake_at = self.wake_at
        return wake_at is not None and self._clock.monotonic() >= wake_at

    def start(self, fold: Fold, index: KnowledgeIndex) -> None:
        """Begin an update in the background (``due`` first)."""
        self.next_due = self._clock.monotonic() + self.interval
        self._task = asyncio.create_task(self.update(fold, index), name="wiki")

    async def update(self, fold: Fold, index: KnowledgeIndex) -> None:
        directory = self.directory
        if directory is None:
            return
        async with self._lock:
            window = await read_window(fold, with_signals=True)  # the loop runs while it is read
            found, knowledge = wiki.from_fold(window, index, self._path_of)
            segments, held_since, query = list(window.in_window()), window.window.since, self._impact
            now = self._clock.time()

            def write() -> wiki.Updated:
                prose = wiki_prose.writer(self._prose) if self._prose is not None else None
                judged = wiki.judged_of(segments, index, query, held_since)
                changes = wiki.changes_by_row(knowledge)
                return wiki.update(directory, found, changes, now, "omkd run", prose, judged)

            try:
                done = await asyncio.to_thread(write)
            except wiki.WikiError as error:
                log.error("wiki_update_failed", directory=str(directory), error=str(error))  # noqa: TRY400
                return
            self.updates += 1
            if done.written or done.skipped:
                log.info(
                    "wiki_updated", directory=str(directory), new=done.new, updated=done.updated,
                    pages=len(done.written), damaged=done.skipped,
                )  # fmt: skip

    def _path_of(self, name: str) -> str:
        """A stream's name (relative to its root) as a path to open: the first root that has it."""
        candidates = [os.path.join(root, name) for root in self._roots]
        return next((c for c in candidates if os.path.exists(c)), candidates[0] if candidates else name)

    async def close(self) -> None:
        """Let an update under way finish (its thread cannot be stopped half-way)."""
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
