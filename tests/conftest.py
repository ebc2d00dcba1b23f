"""Shared fixtures: where the real transcripts are."""

from __future__ import annotations

from pathlib import Path

import pytest

REAL_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "real"
REAL2_FIXTURES = REAL_FIXTURES.parent / "real-2"


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


@pytest.fixture(scope="session")
def real2_fixtures() -> Path:
    """The second set of real transcripts (27 more people); their absence is a failure, never a skip."""
    if not REAL2_FIXTURES.is_dir():
        pytest.fail(f"real transcript fixtures not found at {REAL2_FIXTURES}", pytrace=False)
    return REAL2_FIXTURES
