"""Filesystem events through watchdog (inotify on Linux), turned into hints on the event loop.

Only events that a write, rename or delete causes are asked for: the daemon's own reads
(opened / closed-without-writing) would otherwise wake it. watchdog calls from its own
thread; each event is handed to the loop with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

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

EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent, FileModifiedEvent, FileMovedEvent, FileDeletedEvent, FileClosedEvent,
    DirCreatedEvent, DirMovedEvent, DirDeletedEvent,
]  # fmt: skip


class _Forward(FileSystemEventHandler):
    def __init__(self, loop: asyncio.AbstractEventLoop, hint: Callable[[list[str], bool], None]) -> None:
        self._loop = loop
        self._hint = hint

    def on_any_event(self, event: FileSystemEvent) -> None:
        paths = [str(p) for p in (event.src_path, getattr(event, "dest_path", "")) if p]
        self._loop.call_soon_threadsafe(self._hint, paths, event.is_directory)


class EventWatch:
    def __init__(self, hint: Callable[[list[str], bool], None]) -> None:
        self._hint = hint
        self._observer: Any = None

    @property
    def polling(self) -> bool:
        return False

    def start(self, roots: list[Path]) -> None:
        """Watch every existing root recursively; ``OSError`` when a watch cannot be added."""
        handler = _Forward(asyncio.get_running_loop(), self._hint)
        observer = Observer()
        self._observer = observer
        for root in roots:
            if root.is_dir():
                observer.schedule(handler, str(root), recursive=True, event_filter=EVENTS)
        observer.start()

    def stop(self) -> None:
        observer, self._observer = self._observer, None
        if observer is not None and observer.is_alive():
            observer.stop()
            observer.join(timeout=5)
