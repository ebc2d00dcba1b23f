"""Event time: days since the epoch, and ``--since``/``--until`` values (ISO-8601 or ages like ``7d``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final

DAY: Final = 86400.0


def day_of(timestamp: float) -> int:
    """Days since the epoch (UTC) of a timestamp."""
    return int(timestamp // DAY)


_UNIT_SECONDS: Final = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PART = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h|d|w)")
_DURATION = re.compile(r"^(?:[0-9]+(?:\.[0-9]+)?\s*(?:ms|s|m|h|d|w)\s*)+$")


def parse_duration(value: str, bare_unit: str | None = None) -> float:
    """Seconds in ``30s``, ``5m``, ``1h30m``, ``2d12h``, ``1.5h``, ``250ms`` (ASCII digits; parts in
    any order add up). A bare number takes ``bare_unit`` when one is given, else it is refused.
    Raises ValueError naming the value."""
    text = value.strip()
    if bare_unit is not None and re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", text):
        return float(text) * _UNIT_SECONDS[bare_unit]
    if not text or not _DURATION.match(text):
        raise ValueError(f"{value!r} is not a duration like 30s, 5m, 1h30m, 7d")
    return sum(float(number) * _UNIT_SECONDS[unit] for number, unit in _PART.findall(text))


def parse_moment(value: str, now: float) -> float:
    """Seconds since the epoch for ``value``; ages count back from ``now``.

    A date or time without a zone is taken as UTC.
    """
    if _DURATION.match(value.strip()):
        back = now - parse_duration(value)
        if back < 0.0:
            raise ValueError(f"{value!r} reaches back before 1970")
        return back
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"{value!r} is neither an ISO-8601 time nor an age like 7d, 24h, 1h30m") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
