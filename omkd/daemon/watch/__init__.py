"""How the daemon learns that transcript files changed: a family of watch strategies.

Filesystem events are only a hint; the periodic full rescan is the source of truth. A
strategy either delivers hints (``EventWatch``: inotify and its kin through watchdog) or none
(``PollingWatch``: rescans only, at the poll interval). ``start_watch`` picks one by the
configured mode: ``events``, ``polling`` or ``auto`` (events, or polling when a watch cannot
be added, as on NFS).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import structlog

from omkd.daemon.watch.events import EventWatch
from omkd.daemon.watch.polling import PollingWatch

log = structlog.get_logger("omkd.watch")

Hint = Callable[[list[str], bool], None]
"""Called on the event loop with the paths an event named and whether they are directories."""


class Watch(Protocol):
    @property
    def polling(self) -> bool:
        """True when no hints arrive: changes are found by rescans alone."""

    def stop(self) -> None: ...


def start_watch(mode: str, roots: list[Path], hint: Hint) -> Watch:
    """The strategy for ``mode``, started. ``events`` raises when a watch cannot be added."""
    if mode == "polling":
        return PollingWatch()
    watch = EventWatch(hint)
    try:
        watch.start(roots)
    except OSError as error:
        log.warning("watch_failed", error=str(error), action="polling")
        watch.stop()
        if mode == "events":
            raise
        return PollingWatch()
    return watch


__all__ = ["EventWatch", "Hint", "PollingWatch", "Watch", "start_watch"]
