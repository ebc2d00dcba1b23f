"""What a command imports before it answers: the heavy libraries stay out of the commands that
do not use them (issue 16: an empty ``omkd scan`` answers in under 250 ms).

No timing here (machines differ); the modules a run leaves in ``sys.modules`` are the guard.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Final

import click
import orjson
import pytest

from omkd.cli import COMMANDS, main

HEAVY: Final = ("pydantic", "asyncio", "multiprocessing", "aiohttp", "numpy", "omkd.daemon")
"""Each costs tens of milliseconds to import (pydantic and its models 300 ms), and none is needed
to scan and print: pydantic validates only a report read back, asyncio runs only the LLM judge,
worker processes start only for a scan of 8 MB or more, and the daemon's modules only run it."""

RUN_AND_LIST: Final = """
import sys
from omkd.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
with open(sys.argv[1], "w") as out:
    out.write(" ".join(sorted(sys.modules)))
"""


def imported_by(tmp_path: Path, *args: str) -> list[str]:
    """The heavy modules imported by ``omkd ARGS``, run in a fresh interpreter."""
    listing = tmp_path / "modules.txt"
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST, str(listing), *args],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    modules = listing.read_text().split()
    return sorted(m for m in modules if any(m == h or m.startswith(f"{h}.") for h in HEAVY))


@pytest.mark.parametrize(
    "args",
    [("scan", "{empty}"), ("scan", "{empty}", "--json"), ("--help",), ("status", "--help")],
    ids=["scan", "scan-json", "help", "status-help"],
)
def test_an_empty_scan_and_the_help_import_nothing_heavy(tmp_path: Path, args: tuple[str, ...]) -> None:
    """An empty scan (text or JSON) and the help pages import none of the heavy modules."""
    empty = tmp_path / "empty"
    empty.mkdir()
    assert imported_by(tmp_path, *(a.format(empty=empty) for a in args)) == []


def test_a_scan_of_transcripts_imports_nothing_heavy(tmp_path: Path) -> None:
    """Reading transcripts serially (a small scan) needs none of them either: the guard is not
    only about an empty folder."""
    transcript = tmp_path / "session.jsonl"
    record = {"type": "user", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z", "message": {"content": "hi"}}
    transcript.write_bytes(orjson.dumps(record) + b"\n")
    assert imported_by(tmp_path, "scan", str(transcript), "--json") == []


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_help_lists_each_command_by_its_own_first_sentence(name: str) -> None:
    """``omkd --help`` lists a command by the summary in ``COMMANDS``, which is the command's own
    short help: the two cannot drift apart."""
    command = main.get_command(click.Context(main), name)
    assert command is not None
    assert COMMANDS[name].summary == command.get_short_help_str(limit=200)
