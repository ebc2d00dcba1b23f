"""Spec §6: a shell failed search's pattern is "the target of the search stage that missed". When the
output tells which stages missed — a not-found line naming a stage's path, or a ``|| echo TEXT``
fallback printed as a whole line — the pattern names only those; when it does not (an empty output,
"No matches found", a message omkd does not know) every stage's target stays in it. The same commands
on Claude Code's Bash, Codex's ``exec_command`` and Gemini's ``run_shell_command``; hand-made
transcripts, patterns written by hand from the spec's words."""

from __future__ import annotations

import pytest

from omkd.engine.report.schema import Report
from tests.test_failed_search_spec31 import Agent, claude, codex_exec, gemini, misses, patterns
from tests.transcript_builder import Transcript, bash_detail, report_of

pytestmark = pytest.mark.engine

AGENTS = pytest.mark.parametrize("agent", [claude, codex_exec, gemini], ids=["claude", "codex exec", "gemini"])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("test -d docs && cat docs/setup.md", "cat: docs/setup.md: No such file or directory", "docs/setup.md"),
        ("grep -q retry README.md; cat docs/setup.md", "cat: docs/setup.md: No such file or directory",
         "docs/setup.md"),
        ("[ -f README.md ] && ls docs/retry", "ls: cannot access 'docs/retry': No such file or directory",
         "docs/retry"),
        ("test -d src && find src/retry -name '*.py'", "find: 'src/retry': No such file or directory", "*.py"),
        ("test -d src && grep -rn retry_budget src/budget.py", "grep: src/budget.py: No such file or directory",
         "retry_budget"),
        ("test -d src && rg retry_budget src/budget.py", "src/budget.py: No such file or directory (os error 2)",
         "retry_budget"),
        ("test -e README.md && cat ./docs/a.md ./docs/b.md",
         "cat: ./docs/a.md: No such file or directory\ncat: ./docs/b.md: No such file or directory",
         "docs/a.md | docs/b.md"),  # each path its messages named, as a loop's items
        ("test -e README.md && cat ./docs/a.md ./docs/b.md", "cat: ./docs/b.md: No such file or directory",
         "docs/b.md"),  # a.md printed nothing: b.md is what missed, not the stage's first path
        ("ls docs/a.md docs/b.md", "ls: cannot access 'docs/b.md': No such file or directory", "docs/b.md"),
        ("which node retryctl", "which: no retryctl in (/usr/local/bin:/usr/bin)", "retryctl"),
        ("test -d docs && which retryctl", "which: no retryctl in (/usr/local/bin:/usr/bin)", "retryctl"),
        ("test -d docs && which retryctl", "/usr/bin/which: no retryctl in (/usr/local/bin:/usr/bin)", "retryctl"),
        ("which fd fdfind", "", "fd | fdfind"),  # Debian's which says nothing of a missing name: neither found
        ("command -v fd fdfind", "", "fd | fdfind"),
    ],
    ids=["cat", "grep -q then cat", "ls", "find", "grep", "rg", "cat of two", "cat of two, the second missing",
         "ls of two, the second missing", "which of two, the second missing", "which", "which by its path",
         "which of two, silent", "command -v of two, silent"],
)  # fmt: skip
def test_a_not_found_line_names_the_stage_that_missed(agent: Agent, command: str, output: str, pattern: str) -> None:
    """Spec §6: "the target of the search stage that missed": the stage whose path the not-found line
    names; the test or search that found its thing is not part of the pattern."""
    report = agent(command, output, 1)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("test -f a.md && echo found-a; grep -rn RetryBudget src", "found-a", "RetryBudget"),
        ("test -f a.md && echo found-a; test -f b.md && echo found-b", "found-a", "b.md"),
    ],
    ids=["then a grep", "then a test"],
)  # fmt: skip
def test_a_lookup_whose_success_echo_printed_is_no_target(
    agent: Agent, command: str, output: str, pattern: str
) -> None:
    """Spec §6: the pattern is what missed; ``test -f a.md && echo found-a`` printing ``found-a`` says a.md
    was there, so only the lookup after it is named."""
    report = agent(command, output, 1)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("ls -la build/ && echo listed",
         "total 0\ndrwxr-xr-x  2 dev staff 64 Dec  3 09:54 .\ndrwxr-xr-x 16 dev staff 512 Dec  3 09:54 ..\nlisted",
         "build/"),  # its echo printed, yet the listing empty: named, never the command line
        ("Get-Command node,npm -ErrorAction SilentlyContinue",
         "Get-Command: The term 'npm' is not recognized as a name of a cmdlet, function, script file, or "
         "executable program.", "npm"),  # PowerShell binds node,npm as two names
    ],
    ids=["an echoed empty listing", "Get-Command of a list"],
)  # fmt: skip
def test_what_missed_when_echoes_or_lists_stand_beside(agent: Agent, command: str, output: str, pattern: str) -> None:
    report = agent(command, output, 1 if "Get-Command" in command else 0)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
def test_several_stages_that_missed_give_several_patterns(agent: Agent) -> None:
    """Spec §6: "Several stages that missed give several patterns" (joined, as the evidence holds one)."""
    command = "test -d docs && cat docs/setup.md; grep -q retry README.md; ls docs/retry"
    output = "cat: docs/setup.md: No such file or directory\nls: cannot access 'docs/retry': No such file or directory"
    report = agent(command, output, 2)
    assert (misses(report), patterns(report)) == (1, ["docs/setup.md | docs/retry"])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("cat README.md; ls docs/retry.md 2>/dev/null || echo 'no retry doc'", "# Shop\nno retry doc",
         "docs/retry.md"),
        ('test -f a.yaml && echo "has a" || echo "no a"; test -f b.yaml && echo "has b" || echo "no b"',
         "has a\nno b", "b.yaml"),
        ("test -f a.yaml || echo 'no a'; which retryctl || printf 'no retryctl'", "no a\n/usr/bin/retryctl",
         "a.yaml"),
        ("cat README.md; command -v retryctl || echo none", "# Shop\nnone", "retryctl"),
    ],
    ids=["ls || echo", "test && echo || echo", "test || echo; which || printf", "command -v || echo"],
)  # fmt: skip
def test_a_fallback_printed_names_the_stages_it_guards(agent: Agent, command: str, output: str, pattern: str) -> None:
    """Spec §6: a ``|| echo TEXT`` printed as a whole line says the search on its left missed; the
    searches of the command's other lists are not part of the pattern (the fallback never is)."""
    report = agent(command, output, 0)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "pattern"),
    [
        ("test -d docs && cat docs/setup.md", "", 1, "docs/setup.md | docs"),
        ("find . -name setup.md; grep -rn retry_budget docs", "", 1, "setup.md | retry_budget"),
        ("where retryctl; ls C:/tools/retryctl.exe",
         "INFO: Could not find files for the given pattern(s).\n"
         "ls: cannot access 'C:/tools/retryctl.exe': No such file or directory", 2, "retryctl | C:/tools/retryctl.exe"),
        ("test -d docs && source docs/env.sh; ls docs/setup.md",
         "bash: docs/env.sh: No such file or directory\nls: cannot access 'docs/setup.md': No such file or directory",
         2, "docs/setup.md | docs"),
    ],
    ids=["empty, exit 1", "empty", "a message naming no stage (where)", "a message naming no lookup (source)"],
)  # fmt: skip
def test_an_output_that_does_not_tell_keeps_every_target(
    agent: Agent, command: str, output: str, code: int, pattern: str
) -> None:
    """Spec §6: when the output does not tell which stage missed (nothing printed, or a not-found line
    that names no lookup of the command), every search's target stays."""
    report = agent(command, output, code)
    assert (misses(report), patterns(report)) == (1, [pattern])


def test_no_matches_found_does_not_tell_which_stage_missed() -> None:
    """Claude Code's "No matches found" is the command's exit status: every target stays."""
    t = Transcript()
    t.prompt("make the client retry on 503")
    command = "test -d src && grep -rn retry_budget src"
    t.call("Bash", {"command": command}, "", detail=bash_detail(interpretation="No matches found"))
    assert patterns(report_of(t)) == ["retry_budget | src"]


def test_powershell_cannot_find_path_names_the_stage_that_missed() -> None:
    """PowerShell's "Cannot find path 'P' because it does not exist" names the full path: the stage
    reading it (written relative to the cwd) missed, not the listing of ``docs`` that printed nothing."""
    t = Transcript(cwd="C:\\Users\\dev\\shop")
    t.prompt("make the client retry on 503")
    command = "Get-ChildItem docs | Out-Null; Get-Content docs\\setup.md"
    output = (
        "Get-Content : Cannot find path 'C:\\Users\\dev\\shop\\docs\\setup.md' because it does not exist.\n"
        "At line:1 char:32\n+ Get-ChildItem docs | Out-Null; Get-Content docs\\setup.md\n"
        "+                                ~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "    + CategoryInfo          : ObjectNotFound: (C:\\Users\\dev\\shop\\docs\\setup.md:String) [Get-Content]"
    )
    t.call("PowerShell", {"command": command}, output, detail=bash_detail(stdout=output))
    report: Report = report_of(t)
    assert (misses(report), patterns(report)) == (1, ["docs/setup.md"])  # a Windows path, written with /


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("(cd docs && cat setup.md)", "cat: setup.md: No such file or directory", "setup.md"),
        ("(ls docs/retry) 2>&1", "ls: cannot access 'docs/retry': No such file or directory", "docs/retry"),
        ("(Get-Command retryctl).Source",
         "Get-Command: The term 'retryctl' is not recognized as a name of a cmdlet, function, script file, or "
         "executable program.", "retryctl"),
        ("(Get-Content docs/setup.md).Length", "Get-Content: Cannot find path '/home/dev/shop/docs/setup.md' because "
         "it does not exist.", "docs/setup.md"),
        ("(grep -E 'retry)' docs/setup.md)", "", "retry)"),  # a quoted ")" is the pattern's
    ],
    ids=["subshell", "subshell redirected", "PowerShell member of a command", "PowerShell length", "quoted paren"],
)  # fmt: skip
def test_a_group_s_closing_parenthesis_is_not_part_of_the_last_word(
    agent: Agent, command: str, output: str, pattern: str
) -> None:
    """Spec §6: the target as the program receives it. Bash's subshell ``( … )`` and PowerShell's
    ``( … ).Member`` close a group around the stage: the ``)`` and what follows it are not its operand
    (``retryctl).Source`` had been the pattern)."""
    report = agent(command, output, 1)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("ls -la config/ | grep redis", "redis"),
        ("cat package.json | grep '\"jest\"'", '"jest"'),
        ("ls config/ 2>/dev/null | grep redis", "config/ | redis"),  # ls's error sent away: either missed
        ("find . -name '*.ts' | grep retry_budget", "*.ts | retry_budget"),  # find says nothing when it finds none
    ],
    ids=["ls | grep", "cat | grep", "ls 2>/dev/null | grep", "find | grep"],
)  # fmt: skip
def test_a_reader_piped_into_a_search_that_found_nothing_did_not_miss(agent: Agent, command: str, pattern: str) -> None:
    """Spec §6: "the target of the search stage that missed". A reader of a path (``ls``, ``cat``) says so
    when its path is not there; piped into a grep that printed nothing, it found its path and the grep
    missed. When the reader's errors are sent away, or it is a ``find`` (silent when it finds none), which
    stage missed is not told and both stay."""
    report = agent(command, "", 1)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
def test_an_exclusion_stage_is_no_part_of_the_pattern(agent: Agent) -> None:
    """Spec §6 and §8.2: a ``grep -v`` stage excludes and gives no target; what missed is the search before it."""
    report = agent("grep -v '^#' config/settings.ini | grep -i retry_budget", "", 1)
    assert (misses(report), patterns(report)) == (1, ["retry_budget"])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("grep -v '^#' .env | grep API_KEY", "grep: .env: No such file or directory", ".env"),
        ("cat .env | grep -v '^#' | grep API_KEY", "cat: .env: No such file or directory", ".env"),
        ("for t in fd fdfind; do which $t; done", "", "which $t"),  # a variable is not told
    ],
    ids=["the exclusion's missing file", "the reader's missing file", "which of a loop's variable"],
)
def test_what_missed_is_named_not_an_exclusion_or_a_variable(
    agent: Agent, command: str, output: str, pattern: str
) -> None:
    """Spec §6: an exclusion gives no target, but the file it could not read is what missed; a loop's
    variable alone is no target ("the first search program and its first operand")."""
    report = agent(command, output, 2 if output.startswith("grep") else 1)
    assert (misses(report), patterns(report)) == (1, [pattern])
