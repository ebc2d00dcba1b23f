"""The one clock the daemon reads: wall time for event-time windows, monotonic time for chores.

Passed in as a ``Clock`` so tests can drive time by hand.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def time(self) -> float:
        """Seconds since the epoch (what transcript timestamps are compared with)."""

    def monotonic(self) -> float:
        """Seconds on a clock that never jumps (timers, idle detection)."""


class SystemClock:
    """The machine's clocks."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()


SYSTEM_CLOCK = SystemClock()
