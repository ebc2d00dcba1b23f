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


TYPE_TWO = 'cmd /c "type docs\\README.md docs\\setup.md"'


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "expected"),
    [
        (TYPE_TWO, "\ndocs\\README.md\n\n# shop\nThe system cannot find the file specified.\n"
                   "Error occurred while processing: docs\\setup.md.", 1, ["docs/setup.md"]),
        ('cmd /c "more docs\\setup.md"', f"Cannot access file {CWD}\\docs\\setup.md", 1, ["docs/setup.md"]),
        ('cmd /c "dir /b src\\lib\\*.spec.ts" 2>&1',
         'cmd : File Not Found\nAt line:1 char:1\n+ cmd /c "dir /b src\\lib\\*.spec.ts" 2>&1\n+ ~~~~~~~~~~\n'
         "    + CategoryInfo          : NotSpecified: (File Not Found:String) [], RemoteException\n"
         "    + FullyQualifiedErrorId : NativeCommandError", 1, ["src/lib/*.spec.ts"]),
        ('& "C:\\Program Files\\Git\\bin\\bash.exe" -c "ls .github/workflows"',
         "ls: cannot access '.github/workflows': No such file or directory", 2, [".github/workflows"]),
        ("npm.cmd ls pnpm -g", "C:\\Users\\dev\\AppData\\Roaming\\npm\n`-- (empty)", 1, ["pnpm"]),
    ],
    ids=["cmd type of two files", "cmd more", "cmd dir under PowerShell", "the call operator", "a .cmd shim"],
)  # fmt: skip
def test_cmd_forms_under_powershell(agent: Agent, command: str, output: str, code: int, expected: list[str]) -> None:
    """cmd.exe's own words (``type`` of several files naming the one it could not read, ``more``'s ``Cannot
    access file``, ``dir``'s ``File Not Found`` wrapped by PowerShell as ``cmd : …``), PowerShell's call
    operator ``&`` before a program's path, and Windows' ``.cmd`` shims are read as their bash twins."""
    assert patterns(agent(command, output, code)) == expected


def gitbash(command: str, output: str, code: int) -> Report:
    t = Transcript(cwd=CWD)
    t.prompt("help me with the shop")
    t.bash_error(command, output, code)
    return report_of(t)


@pytest.mark.parametrize(
    ("command", "output", "expected"),
    [
        ('cmd //c "where gradle"', "INFO: Could not find files for the given pattern(s).", ["gradle"]),
        ("cmd //c 'type docs\\deploy.md'", "The system cannot find the file specified.", ["docs/deploy.md"]),
    ],
    ids=["where", "type"],
)
def test_git_bash_s_cmd_double_slash_carries_a_command(command: str, output: str, expected: list[str]) -> None:
    """Git Bash turns ``/c`` into a path, so agents write ``cmd //c "…"``: the command it carries is judged."""
    assert patterns(gitbash(command, output, 1)) == expected


@AGENTS
def test_a_typed_absolute_windows_path_is_the_relative_one_read(agent: Agent) -> None:
    """§3.1 ``user_given``: ``docs\\runbook.md`` read in ``C:\\Users\\dev\\shop`` is the absolute path typed."""
    command = 'cmd /c "type docs\\runbook.md"'
    report = agent(command, "The system cannot find the file specified.", 1, f"update {CWD}\\docs\\runbook.md")
    assert (patterns(report), sum(skill.user_given_misses for skill in report.skills)) == ([], 1)


def test_a_harness_output_file_under_a_windows_temp_folder_is_no_search() -> None:
    """§3.1: reading the harness's own output (``…\\tasks\\*.output``) is not a search, whatever the separators."""
    t = Transcript(cwd=CWD)
    t.prompt("check the build")
    command = 'cat "C:\\Users\\dev\\AppData\\Local\\Temp\\claude\\C--Users-dev-shop\\tasks\\bq3k9x2.output"'
    t.call("Bash", {"command": command}, "", detail={"stdout": "", "stderr": "", "interrupted": False})
    assert patterns(report_of(t)) == []


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "expected"),
    [
        ("Test-Path 'docs\\Q1, Q2 report.md'", "False", 0, ["docs/Q1, Q2 report.md"]),  # one path, quoted whole
        ("Get-Content package.json; Get-ChildItem $env:LOCALAPPDATA -Recurse -Filter settings.json "
         "-ErrorAction SilentlyContinue", '{\n  "name": "shop"\n}\nC:\\Users\\dev\\AppData\\Local\\x\\settings.json',
         1, []),  # a recursive listing is a search that printed what it found, no path probe that failed
    ],
    ids=["a quoted path holding a comma", "a recursive listing that found"],
)  # fmt: skip
def test_what_powershell_reads_whole(agent: Agent, command: str, output: str, code: int, expected: list[str]) -> None:
    assert patterns(agent(command, output, code)) == expected
