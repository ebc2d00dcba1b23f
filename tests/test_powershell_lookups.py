"""Spec §3.1 and §6 for Windows agents' PowerShell: the forms a battery of 132 PowerShell commands (their
verdicts decided from the spec before any run) found read otherwise than their bash twins. A header written
by ``Write-Output`` is the command's own echo; a list of path probes (``Get-Content a; Get-Content b``)
fails as its last probe did, whatever the first printed; ``Test-Path a, b`` probes each item of its array;
Windows' package managers and PowerShell's package and module lists are probes whose answer can be "not
there". Hand-made transcripts on Claude Code's ``PowerShell`` tool and Codex's ``shell_command``, with
PowerShell 5.1's own error records."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from omkd.engine.report.schema import Report
from tests import test_codex_adapter
from tests.agent_lines import Rollout
from tests.transcript_builder import Transcript, gaps_of, report_of

pytestmark = pytest.mark.engine

CWD = "C:\\Users\\dev\\shop"


def claude(command: str, output: str, code: int, prompt: str = "help me with the shop") -> Report:
    t = Transcript(cwd=CWD)
    t.prompt(prompt)
    out = output.replace("\n", "\r\n")
    if code:
        text = f"Exit code {code}\n{out}"
        t.call("PowerShell", {"command": command}, text, is_error=True, detail=f"Error: {text}")
    else:
        detail = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
        t.call("PowerShell", {"command": command}, out, detail=detail)
    return report_of(t)


def codex(command: str, output: str, code: int, prompt: str = "help me with the shop") -> Report:
    r = Rollout(cwd=CWD)
    r.prompt(prompt)
    call_id = r.call("shell_command", {"command": command, "workdir": CWD})
    r.output(call_id, f"Exit code: {code}\nWall time: 0.4 seconds\nOutput:\n" + output.replace("\n", "\r\n"))
    return test_codex_adapter.report_of(r.data())


AGENTS = pytest.mark.parametrize("agent", [claude, codex], ids=["claude PowerShell", "codex shell_command"])
Agent = Callable[..., Report]


def record(cmdlet: str, path: str, command: str) -> str:
    """PowerShell 5.1's error record of a path that is not there."""
    return (
        f"{cmdlet} : Cannot find path '{CWD}\\{path}' because it does not exist.\n"
        f"At line:1 char:1\n+ {command}\n+ {'~' * len(command)}\n"
        f"    + CategoryInfo          : ObjectNotFound: ({CWD}\\{path}:String) [{cmdlet}], ItemNotFoundException\n"
        f"    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.{cmdlet.replace('-', '')}Command"
    )


def patterns(report: Report) -> list[object]:
    return [gap.evidence["pattern"] for gap in gaps_of(report, "failed_search")]


HEADER = 'Write-Output "== config =="; Get-ChildItem config'
READS = "Get-Content package.json; Get-Content docs\\CONTRIBUTING.md"


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "expected"),
    [
        (HEADER, "== config ==\n" + record("Get-ChildItem", "config", HEADER), 1, ["config"]),
        ('Write-Output "--- memory ---"; Get-ChildItem memory -ErrorAction SilentlyContinue', "--- memory ---", 0,
         ["memory"]),
        (READS, '{\n  "name": "shop"\n}\n' + record("Get-Content", "docs\\CONTRIBUTING.md", READS), 1,
         ["docs/CONTRIBUTING.md"]),
        ('Write-Output "== src =="; Get-ChildItem src', "== src ==\napp.ts\nlib", 0, []),  # found
        ("Test-Path .env, .env.local", "False\nFalse", 0, [".env | .env.local"]),
        ("Test-Path .env, package.json", "False\nTrue", 0, [".env"]),
        ("winget list --id Microsoft.AzureCLI", "No installed package found matching input criteria.", 1,
         ["Microsoft.AzureCLI"]),
        ("choco list python", "Chocolatey v2.2.2\n0 packages installed.", 0, ["python"]),
        ("choco list python", "Chocolatey v2.2.2\npython 3.12.1\n1 packages installed.", 0, []),
        ('Get-Package -Name "Docker Desktop"', "Get-Package : No package found for 'Docker Desktop'.", 1,
         ["Docker Desktop"]),
        ("Get-Module -ListAvailable -Name PSScriptAnalyzer", "", 0, ["PSScriptAnalyzer"]),
        ("Get-Module -Name PSScriptAnalyzer", "", 0, []),  # the modules loaded now: no lookup of what is there
    ],
    ids=[
        "header, then a listing not there",
        "header, then a silenced listing",
        "a read that printed, then one not there",
        "header, then a listing",
        "Test-Path of an array",
        "Test-Path of an array, one there",
        "winget",
        "choco, none",
        "choco, one",
        "Get-Package",
        "Get-Module -ListAvailable",
        "Get-Module",
    ],
)  # fmt: skip
def test_powershell_lookups_read_as_their_bash_twins(
    agent: Agent, command: str, output: str, code: int, expected: list[str]
) -> None:
    assert patterns(agent(command, output, code)) == expected


@AGENTS
def test_a_path_the_person_typed_with_forward_slashes_is_theirs_on_windows(agent: Agent) -> None:
    """§3.1 ``user_given``: on Windows ``docs\\deploy-notes.md`` is the ``docs/deploy-notes.md`` the person typed."""
    command = "Get-Content docs\\deploy-notes.md"
    output = record("Get-Content", "docs\\deploy-notes.md", command)
    report = agent(command, output, 1, "summarise docs/deploy-notes.md for me")
    assert (patterns(report), report.overall.by_type["failed_search"]) == ([], 0)
    assert sum(skill.user_given_misses for skill in report.skills) == 1
