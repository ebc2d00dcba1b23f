"""Spec §3.1 and §6, clause by clause, where an audit found the engine departing from the words: a
wrapper with its own options (``sudo -u``, ``env -i``, ``nice -n``, ``xargs -0``), the not-found
messages of ``file``, ``where`` and cmd's ``dir``, ``curl -f``'s 404, ``go list``'s "not a known
dependency", a bare file name a shell reader looked for in a guessed directory, and the pattern (§6)
of ``Test-Path`` and of an MCP search tool. The same command on Claude Code's Bash, Codex's
``exec_command`` and ``shell``, and Gemini's ``run_shell_command``. Hand-made transcripts, figures
by hand from the spec's words."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from omkd.engine.report.schema import Report
from tests import test_codex_adapter, test_gemini_adapter
from tests.agent_lines import GeminiChat, Rollout, tool_call
from tests.transcript_builder import Transcript, bash_detail, gaps_of, report_of

pytestmark = pytest.mark.engine

PROMPT = "make the client retry on 503"
Agent = Callable[[str, str, int], Report]


def claude(command: str, output: str, code: int) -> Report:
    t = Transcript()
    t.prompt(PROMPT)
    if code:
        t.bash_error(command, output, code)
    else:
        t.call("Bash", {"command": command}, output, detail=bash_detail(stdout=output))
    return report_of(t)


def codex_exec(command: str, output: str, code: int) -> Report:
    r = Rollout()
    r.prompt(PROMPT)
    r.exec(command, output, code)
    return test_codex_adapter.report_of(r.data())


def codex_shell(command: str, output: str, code: int) -> Report:
    r = Rollout()
    r.prompt(PROMPT)
    r.shell_040(command, output, code)
    return test_codex_adapter.report_of(r.data())


def gemini(command: str, output: str, code: int) -> Report:
    chat = GeminiChat()
    chat.prompt(PROMPT)
    text = f"Command: {command}\nDirectory: (root)\nOutput: {output or '(empty)'}\nError: (none)\nExit Code: {code}"
    chat.reply("", [tool_call("run_shell_command", {"command": command}, text)])
    return test_gemini_adapter.report_of(chat.data())


AGENTS = pytest.mark.parametrize("agent", [claude, codex_exec, codex_shell, gemini],
                                 ids=["claude", "codex exec", "codex 0.40 shell", "gemini"])  # fmt: skip


def misses(report: Report) -> int:
    return report.overall.by_type["failed_search"]


def patterns(report: Report) -> list[object]:
    return [gap.evidence["pattern"] for gap in gaps_of(report, "failed_search")]


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "pattern"),
    [
        ("sudo -u postgres ls /var/lib/pg/retry.conf",
         "ls: cannot access '/var/lib/pg/retry.conf': No such file or directory", 2, "/var/lib/pg/retry.conf"),
        ("sudo -E env PATH=/opt/bin which retryctl", "", 1, "retryctl"),
        ("env -i PATH=/usr/bin cat /etc/retry.conf", "cat: /etc/retry.conf: No such file or directory", 1,
         "/etc/retry.conf"),
        ("nice -n 10 find /srv -name retry.yaml", "", 0, "retry.yaml"),
    ],
    ids=["sudo -u", "sudo -E env", "env -i", "nice -n"],
)  # fmt: skip
def test_a_wrapper_with_options_is_judged_by_the_command_it_runs(
    agent: Agent, command: str, output: str, code: int, pattern: str
) -> None:
    """Spec §3.1: ``sudo``, ``env``, ``nice`` are wrapped commands judged by the command they carry,
    whatever options the wrapper itself takes."""
    report = agent(command, output, code)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
@pytest.mark.parametrize(
    "command",
    ["find . -name '*.pyc' -print0 | xargs -0 rm", "find . -name '*.orig' | xargs -r rm -f",
     "ps aux | grep retry-worker | awk '{print $2}' | xargs -n 1 kill"],
    ids=["xargs -0 rm", "xargs -r rm -f", "xargs -n 1 kill"],
)  # fmt: skip
def test_a_pipeline_ending_in_xargs_with_options_acts_and_is_no_search(agent: Agent, command: str) -> None:
    """Spec §3.1: not a search when the pipeline's last stage acts (``xargs kill``/``rm``), with or
    without xargs' own options."""
    assert misses(agent(command, "", 0)) == 0
