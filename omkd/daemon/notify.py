"""systemd notifications (``sd_notify``): READY=1, WATCHDOG=1, RELOADING=1, STOPPING=1.

A datagram to the socket named by ``$NOTIFY_SOCKET``; nothing happens without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from typing import Final

ABSTRACT_PREFIX: Final = "@"


class Notifier:
    def __init__(self, address: str | None = None) -> None:
        self._address = address if address is not None else os.environ.get("NOTIFY_SOCKET")
        self._socket: socket.socket | None = None
        if self._address:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)

    @property
    def enabled(self) -> bool:
        return self._socket is not None

    def watchdog_interval(self) -> float | None:
        """Half the watchdog timeout systemd set for this process, in seconds."""
        usec = os.environ.get("WATCHDOG_USEC")
        pid = os.environ.get("WATCHDOG_PID")
        if not usec or not usec.isdigit() or (pid and pid != str(os.getpid())):
            return None
        return int(usec) / 2e6

    def send(self, *states: str) -> None:
        if self._socket is None or not self._address:
            return
        address = self._address
        if address.startswith(ABSTRACT_PREFIX):
            address = "\0" + address[1:]
        with contextlib.suppress(OSError):  # systemd gone: nothing to tell
            self._socket.sendto("\n".join(states).encode(), address)

    async def ping_watchdog(self) -> None:
        """Send WATCHDOG=1 at half the watchdog timeout, forever (nothing without a watchdog)."""
        interval = self.watchdog_interval()
        if interval is None:
            return
        while True:
            self.send("WATCHDOG=1")
            await asyncio.sleep(interval)

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
