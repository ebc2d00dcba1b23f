"""PowerShell parameter binding (one home, ``omkd/engine/powershell.py``) read by the readers of spec §3.1,
§6 and §8.2 as by the writers of §8.3.4: named parameters (``-Path x``, ``-Param:value``), positions,
switches, case-insensitive cmdlet and parameter names. Expectations written by hand from PowerShell's
documented parameters and the spec's words; transcripts on Claude Code's ``PowerShell`` tool and
Codex's ``shell_command``."""

from __future__ import annotations

import pytest

from omkd.engine import powershell
from omkd.engine.events import ToolCall
from omkd.engine.given import probed_paths
from omkd.engine.metacog.targets import shell_target
from omkd.engine.removals import removed_by
from omkd.engine.search_pattern import shell_pattern
from tests import test_codex_adapter
from tests.agent_lines import Rollout
from tests.test_shell_forms import one_call
from tests.transcript_builder import gaps_of, report_of

pytestmark = pytest.mark.engine


@pytest.mark.parametrize(
    ("program", "args", "role", "values", "switches"),
    [
        ("Get-Content", ["-Path", "a.txt", "-Encoding", "utf8"], "path", ["a.txt"], set()),
        ("get-content", ["-encoding:utf8", "-RAW", "a.txt"], "path", ["a.txt"], {"raw"}),
        ("Get-Content", ["-LiteralPath:a[1].txt", "-Tail", "5"], "path", ["a[1].txt"], set()),
        ("Get-Content", ["--%", "a.txt"], "path", ["a.txt"], set()),
        ("GET-CHILDITEM", ["src", "*.py", "-Recurse"], "filter", ["*.py"], {"recurse"}),
        ("Get-ChildItem", ["-Depth", "2", "-Path", "docs"], "path", ["docs"], set()),
        ("Test-Path", ["-PathType", "Leaf", "src/app.py"], "path", ["src/app.py"], set()),
        ("Select-String", ["-Path", "a.txt", "RetryPolicy"], "pattern", ["RetryPolicy"], set()),
        ("select-string", ["-Pattern:RetryPolicy", "-Path", "a.txt", "-NotMatch"], "pattern", ["RetryPolicy"],
         {"notmatch"}),
        ("Select-String", ["RetryPolicy", "a.txt", "-Context", "2"], "path", ["a.txt"], set()),
        ("Set-Content", ["a.txt", "hi"], "value", ["hi"], set()),
        ("Get-Command", ["node,", "npm,", "npx", "-ErrorAction", "SilentlyContinue"], "name", ["node,npm,npx"], set()),
        ("Get-ChildItem", ["src", ",docs", "*.md"], "path", ["src,docs"], set()),  # an array over two words
    ],
)  # fmt: skip
def test_a_cmdlets_words_bind_by_name_position_and_switch(
    program: str, args: list[str], role: str, values: list[str], switches: set[str]
) -> None:
    cmdlet = powershell.cmdlet(program)
    assert cmdlet is not None
    bound = powershell.bind(cmdlet, args)
    assert (bound.of(role), set(bound.switches)) == (values, switches)


def test_programs_that_are_no_cmdlet_here_bind_nothing() -> None:
    assert powershell.cmdlet("cat") is None
    assert powershell.cmdlet("ni") is None  # no alias beyond those the rules already read
    assert powershell.paths("gc", ["-Encoding", "utf8", "a.txt"]) == ["a.txt"]
    assert powershell.canonical("get-childitem") == "Get-ChildItem"
    assert powershell.canonical("ls") == "ls"


# --- §8.2: Get-Content's / Test-Path's operands are file targets, a parameter's value is none ----------


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("Get-Content -Path src/config.yaml -Encoding utf8", ("src/config.yaml",)),
        ("get-content -encoding utf8 src/config.yaml", ("src/config.yaml",)),
        ("Get-Content -Tail 20 -Path:logs/server.log", ("logs/server.log",)),
        ("Test-Path -PathType Leaf src/app.py", ("src/app.py",)),
        ("test-path src/app.py", ("src/app.py",)),
    ],
)
def test_a_parameters_value_is_no_file_target(command: str, paths: tuple[str, ...]) -> None:
    assert shell_target(command).paths == paths


# --- §6: the pattern of a failed reader or probe, whatever the case of its name -----------------------

NOT_THERE = "Get-Content: Cannot find path 'C:\\shop\\{0}' because it does not exist."


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("Get-Content -Encoding utf8 -Path src/settings.json", "src/settings.json"),
        ("get-content src/settings.json", "src/settings.json"),
        ("Select-String -Pattern:RetryPolicy -Path src/client.ps1", "RetryPolicy"),
        ("select-string -path src/client.ps1 -SimpleMatch RetryPolicy", "RetryPolicy"),
    ],
)
def test_the_pattern_is_the_bound_operand(command: str, pattern: str) -> None:
    assert shell_pattern(command, "C:\\shop") == pattern


@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("get-content -encoding utf8 src/settings.json", NOT_THERE.format("src\\settings.json"), "src/settings.json"),
        ("test-path -PathType Leaf src/settings.json", "False", "src/settings.json"),
        ("get-childitem -Path src/legacy -Depth 1", "(PowerShell completed with no output)", "src/legacy"),
        ("Get-Item -LiteralPath src/settings.json -Stream Zone.Identifier", NOT_THERE.format("src\\settings.json"),
         "src/settings.json"),
        ("gi src/settings.json | Select-Object FullName, Length", NOT_THERE.format("src\\settings.json"),
         "src/settings.json"),
        ("Resolve-Path src/settings.json", NOT_THERE.format("src\\settings.json"), "src/settings.json"),
    ],
    ids=["get-content", "test-path", "get-childitem", "Get-Item, a stat", "gi", "Resolve-Path, a realpath"],
)  # fmt: skip
def test_a_lower_case_reader_or_probe_on_the_powershell_tool_missed(command: str, output: str, pattern: str) -> None:
    report = report_of(one_call("PowerShell", {"command": command}, output))
    (gap,) = gaps_of(report)
    assert gap.evidence["pattern"] == pattern


def test_a_lower_case_reader_on_codex_shell_command_missed() -> None:
    r = Rollout()
    r.prompt("make the client retry on 503")
    call_id = r.call("shell_command", {"command": "get-content -Raw -Encoding utf8 src/settings.json",
                                       "workdir": "/home/dev/shop"})  # fmt: skip
    message = "Get-Content: Cannot find path '/home/dev/shop/src/settings.json' because it does not exist."
    r.output(call_id, f"Exit code: 1\nWall time: 0.2 seconds\nOutput:\n{message}\n")
    (gap,) = gaps_of(test_codex_adapter.report_of(r.data()))
    assert gap.evidence["pattern"] == "src/settings.json"


# --- §3.1 user_given: the paths a reader named, as written ------------------------------------------


def _powershell(command: str) -> ToolCall:
    return ToolCall(None, "m1", "c1", "PowerShell", {"command": command}, None, None)


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("Get-ChildItem -Path docs -Filter *.md -Depth 2", ["docs"]),
        ("get-childitem docs", ["docs"]),
        ("get-content -encoding utf8 docs/handbook.md", ["docs/handbook.md"]),
    ],
)
def test_the_paths_a_reader_named_leave_its_parameters_values_out(command: str, paths: list[str]) -> None:
    assert probed_paths(_powershell(command)) == paths


# --- §3.1 verify_absence: what a PowerShell writer removed or moved away ------------------------------


@pytest.mark.parametrize(
    ("command", "removed"),
    [
        ("Remove-Item -Path src/legacy_retry.py -Force -ErrorAction SilentlyContinue", ["src/legacy_retry.py"]),
        ("remove-item src/legacy_retry.py", ["src/legacy_retry.py"]),
        ("Move-Item -Destination attic/retry.py -Path src/retry.py", ["src/retry.py"]),
        ("move-item src/retry.py attic/retry.py -Force", ["src/retry.py"]),
    ],
)
def test_the_paths_a_powershell_writer_removed_are_its_bound_paths(command: str, removed: list[str]) -> None:
    assert removed_by(_powershell(command)) == ([], removed)
