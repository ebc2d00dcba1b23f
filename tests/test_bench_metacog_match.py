"""``bench/metacog_quality.match``: which of omkd's episodes a labelled anchor is."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

from omkd.engine.metacog.view import Episode

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture
def quality(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module("metacog_quality")


def hedge(line: int, sentence: str) -> Episode:
    flags = (False, False, False)
    return Episode("hedging", line, line, "", (sentence,), None, "", "asked", line, "", *flags, line, "turn")


def test_a_hedge_label_at_its_line_is_that_episode(quality: ModuleType) -> None:
    found = [hedge(9, "It may be cached."), hedge(12, "It may be stale.")]
    assert quality.match({"kind": "hedge", "line": 12, "sentence": "It may be stale."}, found) == found[1]


def test_a_hedge_label_at_a_stale_line_is_the_nearest_episode_of_its_sentence(quality: ModuleType) -> None:
    found = [hedge(9, "It may be cached."), hedge(33, "It may be stale."), hedge(90, "It may be stale.")]
    label = {"kind": "hedge", "line": 40, "sentence": "It may be stale."}
    assert quality.match(label, found) == found[1]
    assert quality.match({"kind": "hedge", "line": 40, "sentence": "Something else."}, found) is None
