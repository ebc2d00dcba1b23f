"""Errors the daemon survives: counted by cause, logged once per cause per interval.

No input, file-system object or client may stop the daemon; but an error that repeats (a
symlink loop met at every rescan, a descriptor limit hit a thousand times a second) must not
flood the log either. Each cause is counted in ``omkd_errors_total{cause}`` and logged as one
structured line when first seen, then at most once per ``LOG_INTERVAL`` with the number of
occurrences since the last line.
"""

from __future__ import annotations

import errno
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import structlog

from omkd.daemon.clock import Clock
from omkd.shell import discovery

log = structlog.get_logger("omkd.daemon")

LOG_INTERVAL: Final = 60.0
MAX_CAUSES: Final = 64
"""Distinct causes counted (a label each); any further ones are counted as ``other``."""


def cause_of(area: str, error: BaseException | str) -> str:
    """``area.ERRNO`` for an OS error (``discovery.ELOOP``), ``area.ClassName`` for another
    exception, ``area.what`` for a named condition (``discovery.not_regular``)."""
    if isinstance(error, str):
        return f"{area}.{error}"
    if isinstance(error, OSError) and error.errno is not None:
        return f"{area}.{errno.errorcode.get(error.errno, str(error.errno))}"
    return f"{area}.{type(error).__name__}"


OnError = Callable[[str, "OSError | str", str], None]
"""Told of an error survived: (area, the error or a named condition, path)."""


def ignore(area: str, error: OSError | str, path: str) -> None:
    return None


def skips_told(on_error: OnError) -> discovery.OnSkip:
    """What the walk below the roots skips, as errors survived (``discovery.*``): named by the
    errno where there is one (``discovery.ELOOP``, ``discovery.EACCES``, ``discovery.EMFILE``),
    else by the reason (``discovery.not_regular``, ``discovery.dangling``). A compressed rollout
    is no error: met again at every rescan, it is passed over without a word."""

    def told(skip: discovery.Skip) -> None:
        if skip.reason != discovery.COMPRESSED:
            on_error("discovery", skip.error if skip.error is not None else skip.reason, skip.path)

    return told


@dataclass(slots=True)
class Faults:
    clock: Clock
    counts: Counter[str] = field(default_factory=Counter)
    _logged_at: dict[str, float] = field(default_factory=dict)
    _since_logged: Counter[str] = field(default_factory=Counter)

    def record(self, area: str, error: BaseException | str, **context: Any) -> None:
        cause = cause_of(area, error)
        if cause not in self.counts and len(self.counts) >= MAX_CAUSES:
            cause = "other"
        self.counts[cause] += 1
        self._since_logged[cause] += 1
        now = self.clock.monotonic()
        last = self._logged_at.get(cause)
        if last is not None and now - last < LOG_INTERVAL:
            return
        self._logged_at[cause] = now
        occurrences = self._since_logged.pop(cause)
        log.warning("error_survived", cause=cause, error=str(error)[:500], occurrences=occurrences, **context)
