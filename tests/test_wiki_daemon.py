"""``[wiki]``: the real daemon keeps the gap wiki current from its live fold, and its config keys
are checked like every other section's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from omkd.config import ConfigError, parse_config
from omkd.testing import DaemonProcess
from tests.live_helpers import append, session_bytes


def test_bad_wiki_keys_are_named() -> None:
    """An unknown key and a zero interval are both reported by their dotted names."""
    with pytest.raises(ConfigError) as caught:
        parse_config('[wiki]\ndirectory = "/tmp/w"\ninterval = "0s"\nintervall = "5m"\n')
    assert [p.split(":")[0] for p in caught.value.problems] == ["wiki.interval", "wiki.intervall"]


def _seen(page: Path) -> list[str]:
    return re.findall(r"^- seen: .*$", page.read_text(), re.MULTILINE) if page.exists() else []


@pytest.mark.slow
def test_the_daemon_keeps_the_wiki_current(tmp_path: Path) -> None:
    """A session whose ``deploy`` segment misses one Glob: within the interval (1 s) the wiki has
    skills/deploy.md with that entry seen once. A second session with one more miss: the page
    then lists 2 entries, each seen once, and the person's note below the markers is kept."""
    root = tmp_path / "projects"
    directory = tmp_path / "wiki"
    append(root / "p" / "one.jsonl", session_bytes([("deploy", "miss")]))
    config = f'[wiki]\ndirectory = "{directory}"\ninterval = "1s"\n'
    with DaemonProcess(tmp_path, [root], extra_config=config) as daemon:
        daemon.start()
        page = directory / "skills" / "deploy.md"
        daemon.wait_for(lambda: len(_seen(page)) == 1, "the first wiki update")
        assert _seen(page) == ["- seen: 1 time in 1 session"]
        page.write_text(page.read_text() + "\nOur note.\n")
        append(root / "p" / "two.jsonl", session_bytes([("deploy", "miss")]))
        daemon.wait_for(lambda: len(_seen(page)) == 2, "the second wiki update")
        assert _seen(page) == ["- seen: 1 time in 1 session"] * 2
        assert page.read_text().endswith("\nOur note.\n")
        assert daemon.wait_log_event("wiki_updated")["directory"] == str(directory)
        assert daemon.stop() == 0


def test_wiki_llm_needs_the_model_of_hedging_llm() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config('[wiki]\ndirectory = "/tmp/w"\nllm = true\n')
    assert [p.split(":")[0] for p in caught.value.problems] == ["wiki.llm"]
    assert parse_config('[wiki]\nllm = true\n[hedging.llm]\nmodel = "m"\n').wiki.llm is True


@pytest.mark.slow
def test_the_daemon_has_the_model_write_the_prose(tmp_path: Path) -> None:
    """``[wiki] llm = true`` with the fake model of ``[hedging.llm]``: the page gets the summary."""
    from tests.fake_llm import FakeModel

    root = tmp_path / "projects"
    directory = tmp_path / "wiki"
    append(root / "p" / "one.jsonl", session_bytes([("deploy", "miss")]))
    model = FakeModel().start()
    config = (f'[wiki]\ndirectory = "{directory}"\ninterval = "1s"\nllm = true\n'
              f'[hedging.llm]\nbase_url = "{model.openai_url}"\nmodel = "fake-writer"\n')  # fmt: skip
    try:
        with DaemonProcess(tmp_path, [root], extra_config=config) as daemon:
            daemon.start()
            page = directory / "skills" / "deploy.md"
            daemon.wait_for(lambda: page.exists() and "- summary (by `fake-writer`" in page.read_text(), "the prose")
            assert daemon.stop() == 0
    finally:
        model.stop()
    assert len(model.requests) == 1
