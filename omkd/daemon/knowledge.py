"""The knowledge files on disk as the daemon sees them, listed again every so often.

Coverage needs to know which knowledge files exist; change detection needs to notice when
they change. Both are refreshed on a timer (``sources.knowledge_refresh``) and on reload.
"""

from __future__ import annotations

from collections.abc import Iterable

import structlog

from omkd.config import Config
from omkd.daemon.clock import Clock
from omkd.shell.knowledge import FileKnowledgeIndex
from omkd.shell.knowledge_watch import BaseFigures, KnowledgeWatcher

log = structlog.get_logger("omkd.daemon")


def index_of(config: Config) -> FileKnowledgeIndex:
    sources = config.sources
    return FileKnowledgeIndex(sources.home.expanduser(), [p.expanduser() for p in sources.knowledge_roots])


class KnowledgeView:
    def __init__(self, config: Config, clock: Clock) -> None:
        self._config = config
        self._clock = clock
        self.index = index_of(config)
        self.generation = 0
        """Bumped each time ``index`` is listed again (what a cached report was judged against)."""
        self._watcher = KnowledgeWatcher()
        self._next = clock.monotonic()

    @property
    def bases(self) -> dict[str, BaseFigures]:
        return self._watcher.figures

    def reconfigure(self, config: Config) -> None:
        self._config = config
        self._next = self._clock.monotonic()

    def due(self) -> bool:
        return self._clock.monotonic() >= self._next

    def refresh(self, cwds: Iterable[str], announce: bool = False) -> bool:
        """List the knowledge files again; True when a base changed (or ``announce``)."""
        self.index = index_of(self._config)
        self.generation += 1
        self._next = self._clock.monotonic() + self._config.sources.knowledge_refresh
        changed = self._watcher.update(self.index.bases(cwds))
        if changed or announce:
            log.info("knowledge_changed", bases=sorted(self._watcher.figures))
            return True
        return False
