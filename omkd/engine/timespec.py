"""Event time: days since the epoch, and ``--since``/``--until`` values (ISO-8601 or ages like ``7d``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final

DAY: Final = 86400.0


def day_of(timestamp: float) -> int:
    """Days since the epoch (UTC) of a timestamp."""
    return int(timestamp // DAY)


_AGE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([smhdw])\s*$")
_UNIT_SECONDS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_moment(value: str, now: float) -> float:
    """Seconds since the epoch for ``value``; ages count back from ``now``.

    A date or time without a zone is taken as UTC.
    """
    age = _AGE.match(value)
    if age:
        back = now - float(age.group(1)) * _UNIT_SECONDS[age.group(2)]
        if back < 0.0:
            raise ValueError(f"{value!r} reaches back before 1970")
        return back
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"{value!r} is neither an ISO-8601 time nor an age like 7d, 24h, 30m") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()
