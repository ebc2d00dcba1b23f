"""Shared pieces of the tests that run the real daemon: hand-made sessions, the CLI, waits.

A session file is a list of segments, each a typed prompt, a ``Skill`` call and its result,
then what the recipe names (``OUTCOMES``). Every record of a segment carries that segment's
timestamp, so a gap's timestamp is its segment's. Tests state the figures they expect from
the recipes by hand; nothing here computes an expectation.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from prometheus_client.parser import text_string_to_metric_families

from omkd.testing import DaemonProcess
from tests import claude_lines as cl

OUTCOMES: Final = ("hit", "miss", "hedge", "marker", "misses3", "unchecked")
"""hit: one Glob that finds a file (no signal).
miss: one Glob answering "No files found" (failed_search, weight 1.0).
hedge: "I'm not sure ..." then a hit (hedging, weight 0.5).
marker: a sentence ending in "[inferred]" then a hit (explicit_marker, weight 0.5).
misses3: three Glob misses with different patterns (3 failed_search + 1 repeated_failure, weight 1.0).
unchecked: two Glob misses, then an Edit of a project file (2 failed_search, weight 1.0; spec §8: a
lookup-gap segment whose two misses are ``proceeded``, a writing segment with an unchecked write).
"""

_ids = itertools.count(1)


def _glob(outcome: str) -> list[cl.Record]:
    n = next(_ids)
    call = f"toolu_g{n}"
    if outcome == "miss":
        pattern, answer, detail = f"docs/**/missing-{n}.md", "No files found", cl.GLOB_EMPTY
    else:
        pattern, answer, detail = "src/**/*.py", "/p/src/app.py", cl.glob_hit("/p/src/app.py")
    return [
        cl.tool_use(call, "Glob", {"pattern": pattern}, f"msg_g{n}"),
        cl.tool_result(call, answer, detail),
    ]


def segment(skill: str, outcome: str, timestamp: str) -> list[cl.Record]:
    """One segment of ``skill`` following the recipe ``outcome``, every record at ``timestamp``."""
    n = next(_ids)
    records = [
        cl.user(f"task number {n}"),
        cl.tool_use(f"toolu_s{n}", "Skill", {"skill": skill}, f"msg_s{n}"),
        cl.tool_result(f"toolu_s{n}", f"Launching skill: {skill}", {"success": True, "commandName": skill}),
    ]
    if outcome == "hedge":
        records.append(cl.text("I'm not sure which config file applies here.", f"msg_t{n}"))
    elif outcome == "marker":
        records.append(cl.text("The deploy port is 8080 [inferred].", f"msg_t{n}"))
    if outcome in ("misses3", "unchecked"):
        for _ in range(3 if outcome == "misses3" else 2):
            records += _glob("miss")
        if outcome == "unchecked":
            edit = {"file_path": "/p/src/app.py", "old_string": "a = 1", "new_string": "a = 2"}
            records += [
                cl.tool_use(f"toolu_e{n}", "Edit", edit, f"msg_e{n}"),
                cl.tool_result(f"toolu_e{n}", "The file /p/src/app.py has been updated."),
            ]
    else:
        records += _glob("miss" if outcome == "miss" else "hit")
    for record in records:
        record["timestamp"] = timestamp
    return records


def minute(n: int) -> str:
    """``2026-01-01T00:MM:00.000Z`` for minute ``n`` (0-59)."""
    return f"2026-01-01T00:{n:02d}:00.000Z"


def session_bytes(plan: list[tuple[str, str]], first_minute: int = 0) -> bytes:
    """The JSONL of one session whose segments follow ``plan`` (skill, outcome), one minute apart."""
    return cl.jsonl(
        record
        for position, (skill, outcome) in enumerate(plan)
        for record in segment(skill, outcome, minute(first_minute + position))
    )


def append(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        handle.write(data)


def omkd(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m omkd ARGS`` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "omkd", *(str(a) for a in args)],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def wait_lines(daemon: DaemonProcess, expected: int, deadline: float = 30.0) -> dict[str, float]:
    """Wait until ``omkd_lines_total`` equals ``expected``; the samples seen then."""
    seen: dict[str, float] = {}

    def done() -> bool:
        nonlocal seen
        seen = daemon.metrics()
        return seen.get("omkd_lines_total") == expected

    try:
        daemon.wait_for(done, f"omkd_lines_total == {expected}", deadline)
    except AssertionError as error:
        raise AssertionError(f"omkd_lines_total is {seen.get('omkd_lines_total')}, not {expected}\n{error}") from None
    return seen


def samples_of(text: bytes) -> dict[str, float]:
    """Every sample of an exposition, keyed like ``DaemonProcess.metrics``: ``name{label="v",...}``."""
    samples: dict[str, float] = {}
    for metric in text_string_to_metric_families(text.decode()):
        for sample in metric.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


def skill_of(key: str) -> str:
    """The ``skill`` label of a sample key (``name{agent="…",skill="…"}``)."""
    found = re.search(r'skill="([^"]*)"', key)
    assert found is not None, key
    return found.group(1)


def family(samples: dict[str, float], name: str) -> dict[str, float]:
    """The samples of one metric name (``name`` or ``name{...}``)."""
    return {key: value for key, value in samples.items() if key == name or key.startswith(name + "{")}


@contextlib.contextmanager
def daemon_reading(workdir: Path, plan: list[tuple[str, str]]) -> Iterator[DaemonProcess]:
    """A real daemon that has read one session of ``plan`` under ``workdir/projects``, stopped
    cleanly (exit 0) when the block ends: the module-scoped daemon of the API and view tests."""
    root = workdir / "projects"
    data = session_bytes(plan)
    append(root / "-home-dev-shop" / "session.jsonl", data)
    with DaemonProcess(workdir, [root]) as process:
        process.start()
        wait_lines(process, data.count(b"\n"))
        yield process
        assert process.stop() == 0
