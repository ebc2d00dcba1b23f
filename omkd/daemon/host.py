"""What the daemon asks of the host it runs on: enough file descriptors, and the signals."""

from __future__ import annotations

import asyncio
import contextlib
import resource
import signal
from collections.abc import Callable, Iterator
from typing import Final

WANTED_DESCRIPTORS: Final = 8192
"""The soft descriptor limit asked for at start (the unit's LimitNOFILE); systemd's default is 1,024."""


def raise_descriptor_limit(wanted: int = WANTED_DESCRIPTORS) -> int:
    """Raise the soft limit on open descriptors towards ``wanted`` (never above the hard limit);
    the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            return target
    return soft


@contextlib.contextmanager
def signal_handlers(handlers: dict[signal.Signals, Callable[[], None]]) -> Iterator[None]:
    """Install loop signal handlers for the duration; restore the previous ones after."""
    loop = asyncio.get_running_loop()
    previous = {sig: signal.getsignal(sig) for sig in handlers}
    try:
        for sig, handler in handlers.items():
            loop.add_signal_handler(sig, handler)
        yield
    finally:
        for sig, old_handler in previous.items():
            loop.remove_signal_handler(sig)
            signal.signal(sig, old_handler)
