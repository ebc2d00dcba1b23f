"""Shared fixtures: where the real transcripts are."""

from __future__ import annotations

from pathlib import Path

import pytest

REAL_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "real"


@pytest.fixture(scope="session")
def real_fixtures() -> Path:
    """The real transcripts (read-only, used in place); their absence is a failure, never a skip."""
    if not REAL_FIXTURES.is_dir():
        pytest.fail(
            f"real transcript fixtures not found at {REAL_FIXTURES}: "
            "the omkd checkout needs ../shared/fixtures/real beside it",
            pytrace=False,
        )
    return REAL_FIXTURES
