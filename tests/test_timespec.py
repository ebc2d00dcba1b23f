"""Durations and ages as users type them (config keys, ``--since``, ``/api/v1/gaps?since=``)."""

from __future__ import annotations

import pytest

from omkd.engine.timespec import parse_duration, parse_moment

pytestmark = pytest.mark.engine


@pytest.mark.parametrize(
    ("text", "seconds"), [("1h30m", 5400.0), ("90s", 90.0), ("2d12h", 216000.0), ("1.5h", 5400.0), ("250ms", 0.25)]
)
def test_durations_add_up_their_parts(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "1x", "²s", "h", "1h 30", "30"])
def test_what_is_not_a_duration_is_refused_by_name(text: str) -> None:
    with pytest.raises(ValueError, match="is not a duration"):
        parse_duration(text)


def test_an_age_before_1970_is_refused() -> None:
    with pytest.raises(ValueError, match="before 1970"):
        parse_moment("99999999999999999d", 1_767_225_600.0)
