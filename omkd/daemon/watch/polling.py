"""Polling: no filesystem events, rescans at the poll interval find every change."""

from __future__ import annotations


class PollingWatch:
    @property
    def polling(self) -> bool:
        return True

    def stop(self) -> None:
        pass
