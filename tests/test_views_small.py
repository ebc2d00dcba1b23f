"""Issue 29, item 8: the small ones, each a test (a real daemon for status and gaps)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from click.testing import CliRunner, Result

from omkd.cli import COMMANDS, main, render
from omkd.engine import records
from omkd.engine.report.schema import Report
from omkd.engine.stats import NUDGE_MESSAGE
from omkd.testing import DaemonProcess
from tests import claude_lines as cl
from tests.live_helpers import daemon_reading
from tests.test_cli_scan import GATES_PLAN, transcript

PLAN: Final = [
    *[("deploy", outcome) for outcome in ("miss", "hit", "miss", "hit", "miss", "hit")],
    ("lint", "hedge"),
]
"""4 gaps: deploy's 3 failed searches, lint's hedging."""
README: Final = Path(__file__).parent.parent / "README.md"


def cli(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    with daemon_reading(tmp_path_factory.mktemp("small"), PLAN) as process:
        yield process


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return transcript(tmp_path / "projects" / "-p" / f"{cl.SESSION}.jsonl", GATES_PLAN)


def test_a_limited_gap_list_says_of_how_many(daemon: DaemonProcess) -> None:
    out = cli("gaps", "--url", daemon.url, "--limit", "2").stdout
    assert "Gaps (2 of 4 in the window)" in out, out


@pytest.mark.parametrize("option", ["--skill", "--agent"])
def test_a_skill_or_agent_that_names_nothing_is_an_error_naming_what_exists(
    daemon: DaemonProcess, session: Path, tmp_path: Path, option: str
) -> None:
    value = "nope" if option == "--skill" else "gemini"
    scan = cli("scan", session, option, value, "--home", tmp_path)
    assert (scan.exit_code, value in scan.stderr) == (2, True), scan.output
    assert ("alpha" if option == "--skill" else "claude_code") in scan.stderr
    for command in ("status", "gaps"):
        result = cli(command, "--url", daemon.url, option, value)
        assert (result.exit_code, value in result.stderr) == (2, True), (command, result.output)
        assert ("deploy" if option == "--skill" else "claude_code") in result.stderr, (command, result.stderr)


def test_status_and_gaps_find_the_daemon_from_its_config(daemon: DaemonProcess, tmp_path: Path) -> None:
    config = tmp_path / "omkd.toml"
    config.write_text(f'[http]\nlisten = "127.0.0.1:{daemon.port}"\n')
    status = cli("status", "--config", config)
    assert (status.exit_code, "deploy" in status.stdout) == (0, True), status.output
    gaps = cli("gaps", env={"OMKD_CONFIG": str(config), "OMKD_URL": ""})
    assert (gaps.exit_code, "lint" in gaps.stdout) == (0, True), gaps.output


def test_warnings_name_the_agent_when_rows_are_per_agent(session: Path, tmp_path: Path) -> None:
    document = json.loads(cli("scan", session, "--json", "--home", tmp_path).stdout)
    report = records.parse(Report, document)
    beta = next(s for s in report.skills if s.skill == "beta")
    mixed = dataclasses.replace(report, skills=[*report.skills, dataclasses.replace(beta, agent="codex")])
    underpowered = next(line for line in render.warnings(mixed) if "underpowered" in line)
    assert "gamma (claude_code)" in underpowered, underpowered


def test_the_nudge_is_said_one_way() -> None:
    """The message keeps the spec's words (``test_stats`` pins them); the README says it alike."""
    assert "for 3 windows" in NUDGE_MESSAGE
    readme = " ".join(README.read_text().split())
    assert "in each of the last 3 windows" in readme
    assert "on each of the last 3 days means" not in readme


def test_no_reference_to_a_spec_that_is_not_in_the_repository() -> None:
    assert "spec §" not in README.read_text()
    assert all("spec §" not in command.summary for command in COMMANDS.values())
    helped = subprocess.run(
        [sys.executable, "-m", "omkd", "conventions", "--help"], capture_output=True, text=True, check=True
    )
    assert "spec §" not in helped.stdout
