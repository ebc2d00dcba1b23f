"""Assistant messages a stream has seen: one API response is written as several records."""

from __future__ import annotations

from collections import deque
from typing import Final

RECENT_MESSAGES: Final = 64
"""Assistant message ids remembered per stream to count a message's tokens and turn once."""


class RecentMessages:
    """One API response is written as several records sharing its ``message.id``: count it once."""

    def __init__(self) -> None:
        self._order: deque[str] = deque()
        self._seen: set[str] = set()

    def first(self, message_id: str) -> bool:
        """True the first time ``message_id`` is seen (among the last ``RECENT_MESSAGES``)."""
        if message_id in self._seen:
            return False
        self._seen.add(message_id)
        self._order.append(message_id)
        if len(self._order) > RECENT_MESSAGES:
            self._seen.discard(self._order.popleft())
        return True
