"""An event-time window: the span of segment starts the figures count."""

from __future__ import annotations

from dataclasses import dataclass

from omkd.engine.plain import fields_state, set_fields_state


@dataclass(frozen=True, slots=True)
class Window:
    """An event-time window ``[since, until)``; open ends are ``None``."""

    since: float | None = None
    until: float | None = None

    def contains(self, timestamp: float | None) -> bool:
        if self.since is None and self.until is None:
            return True
        if timestamp is None:
            return False
        if self.since is not None and timestamp < self.since:
            return False
        return self.until is None or timestamp < self.until

    def __getstate__(self) -> list[object]:
        return fields_state(self)

    def __setstate__(self, state: list[object]) -> None:
        set_fields_state(self, state)
