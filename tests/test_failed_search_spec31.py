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

from omkd.engine import http_lookups, search_pattern
from omkd.engine.report.schema import Report
from tests import test_codex_adapter, test_gemini_adapter
from tests.agent_lines import GeminiChat, Rollout, tool_call
from tests.transcript_builder import Transcript, bash_detail, gaps_of, health_of, report_of, signal_counts

pytestmark = pytest.mark.engine

PROMPT = "make the client retry on 503"
Agent = Callable[[str, str, int], Report]


def claude(command: str, output: str, code: int, prompt: str = PROMPT) -> Report:
    t = Transcript()
    t.prompt(prompt)
    if code:
        t.bash_error(command, output, code)
    else:
        t.call("Bash", {"command": command}, output, detail=bash_detail(stdout=output))
    return report_of(t)


def codex_exec(command: str, output: str, code: int, prompt: str = PROMPT) -> Report:
    r = Rollout()
    r.prompt(prompt)
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


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "pattern"),
    [
        ("file bin/retryctl", "bin/retryctl: cannot open `bin/retryctl' (No such file or directory)", 0,
         "bin/retryctl"),
        ("where.exe retryctl", "INFO: Could not find files for the given pattern(s).", 1, "retryctl"),
        ("cmd /c where retryctl", "INFO: Could not find files for the given pattern(s).", 1, "retryctl"),
        ("cmd /c dir C:\\shop\\retry.yaml",
         " Volume in drive C has no label.\n Volume Serial Number is 6A3B-1C2D\n\n Directory of C:\\shop\n\n"
         "File Not Found", 1, "C:/shop/retry.yaml"),
        ("cmd /c dir C:\\shop\\retry", "The system cannot find the path specified.", 1, "C:/shop/retry"),
    ],
    ids=["file", "where.exe", "cmd where", "cmd dir file", "cmd dir path"],
)  # fmt: skip
def test_the_not_found_message_of_more_readers_and_probes_is_a_miss(
    agent: Agent, command: str, output: str, code: int, pattern: str
) -> None:
    """Spec §3.1: ``file``, ``where``/``where.exe`` and ``dir`` are readers and probes; an output made
    only of their not-found message is a miss."""
    report = agent(command, output, code)
    assert (misses(report), patterns(report)) == (1, [pattern])


def test_a_dir_that_lists_files_found_them() -> None:
    output = " Volume in drive C has no label.\n\n Directory of C:\\shop\n\n03/12/2026  10:00  120 retry.yaml"
    assert misses(claude("cmd /c dir C:\\shop\\retry.yaml", output, 0)) == 0


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "expected"),
    [
        ("curl -fsSL https://docs.acme.dev/retry.md", "curl: (22) The requested URL returned error: 404", 22, 1),
        ("curl -fsS https://docs.acme.dev/retry.md", "curl: (22) The requested URL returned error: 410 Gone", 22, 1),
        ("curl -fsSL https://docs.acme.dev/retry.md", "curl: (22) The requested URL returned error: 503", 22, 0),
    ],
    ids=["-f 404", "-f 410", "-f 503 is a fault"],
)  # fmt: skip
def test_curl_fail_reports_the_status_it_got(agent: Agent, command: str, output: str, code: int, expected: int) -> None:
    """Spec §3.1: a 404 or 410 of an HTTP client is a failed lookup, other failures are faults;
    ``curl -f`` says the status in its own error line."""
    report = agent(command, output, code)
    assert (misses(report), patterns(report)) == (expected, ["https://docs.acme.dev/retry.md"] * expected)


@AGENTS
def test_go_list_of_a_module_that_is_no_dependency_is_a_miss(agent: Agent) -> None:
    """Spec §3.1: ``go list X`` answered "not there" is a failed lookup."""
    output = "go: module github.com/acme/retry: not a known dependency"
    report = agent("go list -m github.com/acme/retry", output, 1)
    assert (misses(report), patterns(report)) == (1, ["github.com/acme/retry"])


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("cat deploy/retry.yaml", "cat: deploy/retry.yaml: No such file or directory"),
        ("head -40 deploy/retry.yaml", "head: cannot open 'deploy/retry.yaml' for reading: No such file or directory"),
        ("sed -n '1,80p' deploy/retry.yaml", "sed: can't read deploy/retry.yaml: No such file or directory"),
        ("wc -l deploy/retry.yaml", "wc: deploy/retry.yaml: No such file or directory"),
        ("stat deploy/retry.yaml", "stat: cannot statx 'deploy/retry.yaml': No such file or directory"),
    ],
    ids=["cat", "head", "sed -n", "wc", "stat"],
)
def test_a_bare_file_name_a_shell_reader_read_in_a_guessed_directory_is_a_gap(command: str, output: str) -> None:
    """Spec §3.1: a bare file name the person typed, read in a directory the agent guessed, is a gap
    (a shell reader is judged as Read is)."""
    t = Transcript()
    t.prompt("look at retry.yaml please")
    t.skill("http-client")
    t.call("Bash", {"command": command}, output, detail=bash_detail(stdout=output))
    report = report_of(t)
    assert signal_counts(report.overall) == {"failed_search": 1}
    assert health_of(report, "http-client").user_given_misses == 0


def test_listing_a_name_the_person_typed_stays_user_given() -> None:
    """Spec §3.1: ``ls`` of a name the person typed and asked for is ``user_given``."""
    t = Transcript()
    t.prompt("where did launch_swu.sh go?")
    t.call("Bash", {"command": "ls scripts/launch_swu.sh"},
           "ls: cannot access 'scripts/launch_swu.sh': No such file or directory", detail=bash_detail())  # fmt: skip
    assert health_of(report_of(t), "general").user_given_misses == 1


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("Test-Path C:\\Users\\dev\\shop\\config\\retry.yaml", "config/retry.yaml"),
        ('powershell.exe -NoProfile -Command "Test-Path -Path C:\\opt\\retry.yaml"', "C:/opt/retry.yaml"),
    ],
    ids=["Test-Path", "powershell -Command Test-Path -Path"],
)
def test_the_pattern_of_a_test_path_is_its_path(command: str, pattern: str) -> None:
    """Spec §6: the pattern is what was looked for, never the whole command: Test-Path's path, the cwd
    removed as for ``test -e``."""
    t = Transcript(cwd="C:\\Users\\dev\\shop")
    t.prompt(PROMPT)
    t.call("PowerShell", {"command": command}, "False", detail=bash_detail(stdout="False"))
    report = report_of(t)
    assert patterns(report) == [pattern]
    assert gaps_of(report)[0].evidence["command"] == command


@pytest.mark.parametrize(
    ("tool", "tool_input", "pattern"),
    [
        ("mcp__cocoindex__search", {"query": "retry budget", "limit": 10}, "retry budget"),
        ("mcp__catalog__product_search", {"site": "US", "searchName": "retry relay"}, "retry relay"),
        ("mcp__kb__lookup", {"limit": 5, "text": "retry budget"}, "retry budget"),
    ],
    ids=["query", "a key naming a search", "the one text"],
)
def test_the_pattern_of_an_mcp_search_tool_is_its_query(tool: str, tool_input: dict[str, object], pattern: str) -> None:
    """Spec §6: ``WebSearch``/MCP search tools: the pattern is the query, not the call's whole input."""
    t = Transcript()
    t.prompt(PROMPT)
    t.call(tool, tool_input, "")
    report = report_of(t)
    assert patterns(report) == [pattern]
    assert misses(report) == 1


@pytest.mark.parametrize(
    "command",
    [
        "sed -n '1,200p' app/\\(admin\\)/hooks/useRetry.ts",
        "cat app/\\(admin\\)/hooks/useRetry.ts",
    ],
    ids=["sed -n", "cat"],
)
def test_a_shell_path_written_with_backslash_escapes_is_the_path_the_person_typed(command: str) -> None:
    """Spec §3.1: the path a command reads is the word the shell makes of it (``\\(`` is ``(``): typed
    earlier (relative to the cwd), its miss is ``user_given``."""
    t = Transcript()
    t.prompt("open app/(admin)/hooks/useRetry.ts")
    t.call("Bash", {"command": command}, "cat: No such file or directory", detail=bash_detail())
    report = report_of(t)
    assert (misses(report), health_of(report, "general").user_given_misses) == (0, 1)


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "pattern"),
    [
        ("zsh -c 'ls ~/retry/config.yaml'",
         "ls: cannot access '/home/dev/retry/config.yaml': No such file or directory", 2, "~/retry/config.yaml"),
        ("sh -c \"grep -rn retry_budget src/\"", "", 1, "retry_budget"),
        ('powershell -Command "Get-Content C:\\shop\\retry.yaml"',
         "Get-Content : Cannot find path 'C:\\shop\\retry.yaml' because it does not exist.", 1, "C:/shop/retry.yaml"),
        ('cmd /c "findstr /s /c:RetryBudget *.cs"', "", 1, "RetryBudget"),
        ("wsl -d Ubuntu -- cat /etc/retry.conf", "cat: /etc/retry.conf: No such file or directory", 1,
         "/etc/retry.conf"),
        ("timeout 5 ssh web1 'which retryctl'", "", 1, "retryctl"),
    ],
    ids=["zsh -c", "sh -c", "powershell -Command", "cmd /c", "wsl", "timeout ssh"],
)  # fmt: skip
def test_each_wrapped_form_is_judged_by_the_command_it_carries(
    agent: Agent, command: str, output: str, code: int, pattern: str
) -> None:
    """Spec §3.1's list of wrapped commands, on each agent's shell tool; the pattern (§6) is the carried
    search's target."""
    report = agent(command, output, code)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "pattern"),
    [
        ("nl -ba src/retry.py", "nl: src/retry.py: No such file or directory", 1, "src/retry.py"),
        ("less docs/retry.md", "docs/retry.md: No such file or directory", 1, "docs/retry.md"),
        ("more docs/retry.md", "more: cannot open docs/retry.md: No such file or directory", 1, "docs/retry.md"),
        ("npm ls retry-axios", "shop@1.0.0 /home/dev/shop\n└── (empty)", 1, "retry-axios"),
        ("go list github.com/acme/retry", "no required module provides package github.com/acme/retry; to add it:",
         1, "github.com/acme/retry"),
        ("wget https://docs.acme.dev/retry.html",
         "HTTP request sent, awaiting response... 404 Not Found\n2026-04-08 13:27:20 ERROR 404: Not Found.", 8,
         "https://docs.acme.dev/retry.html"),
        ("Invoke-WebRequest -Uri https://docs.acme.dev/retry?v=2",
         "Invoke-WebRequest : The remote server returned an error: (404) Not Found.", 1, "https://docs.acme.dev/retry"),
        ("http GET https://api.acme.dev/v1/retry", "HTTP/1.1 410 Gone\nContent-Type: text/plain", 0,
         "https://api.acme.dev/v1/retry"),
        ("Invoke-WebRequest https://docs.acme.dev/retry",
         "Invoke-WebRequest : The remote server returned an error: (404) Not Found.\nAt line:1 char:1\n"
         "+ Invoke-WebRequest https://docs.acme.dev/retry\n+ " + "~" * 46 + "\n    + CategoryInfo          : "
         "InvalidOperation: (System.Net.HttpWebRequest:HttpWebRequest) [Invoke-WebRequest], WebException\n"
         "    + FullyQualifiedErrorId : WebCmdletWebResponseException,Microsoft.PowerShell.Commands."
         "InvokeWebRequestCommand", 1, "https://docs.acme.dev/retry"),
        ("Invoke-RestMethod https://api.acme.dev/v1/retry",
         "Invoke-RestMethod: Response status code does not indicate success: 404 (Not Found).", 1,
         "https://api.acme.dev/v1/retry"),
        ("npm view left-pad-ultra version", "npm error code E404\nnpm error 404 Not Found - GET "
         "https://registry.npmjs.org/left-pad-ultra - Not found", 1, "left-pad-ultra"),  # version: a field
        ("tail -f logs/worker.log", "tail: cannot open 'logs/worker.log' for reading: No such file or directory\n"
         "tail: no files remaining", 1, "logs/worker.log"),
        ("kubectl exec -it deploy/api -- cat /etc/app/retry.yaml", "cat: /etc/app/retry.yaml: No such file or "
         "directory\ncommand terminated with exit code 1", 1, "/etc/app/retry.yaml"),
    ],
    ids=["nl", "less", "more", "npm ls (empty)", "go list", "wget 404", "Invoke-WebRequest 404", "http 410",
         "PowerShell 5.1's whole error record", "PowerShell 7's wording", "npm view X field",
         "GNU tail's closing note", "kubectl's closing note"],
)  # fmt: skip
def test_more_readers_probes_and_http_clients_answered_not_there_are_misses(
    agent: Agent, command: str, output: str, code: int, pattern: str
) -> None:
    """Spec §3.1's more readers and probes, and HTTP clients' 404/410; the pattern is the path, the
    package, or the URL without its query (§6)."""
    report = agent(command, output, code)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code"),
    [
        ("curl -sI https://docs.acme.dev/retry", "HTTP/2 403\ncontent-type: text/html", 0),
        ("wget https://docs.acme.dev/retry", "HTTP request sent, awaiting response... 503 Service Unavailable", 8),
        ("curl https://docs.acme.dev/retry", "curl: (28) Operation timed out after 10001 milliseconds", 28),
        ("Get-ChildItem -Recurse | Select-String RetryBudget | Out-File hits.txt", "", 0),
        ("grep -rn RetryBudget src | tee hits.txt", "", 1),
        ("cat /tmp/claude-1000/-home-dev-shop/5f1e/scratchpad/retry-notes.md",
         "cat: /tmp/claude-1000/-home-dev-shop/5f1e/scratchpad/retry-notes.md: No such file or directory", 1),
    ],
    ids=["403 is a fault", "5xx is a fault", "timeout is a fault", "Out-File acts", "tee acts", "scratchpad"],
)  # fmt: skip
def test_faults_and_commands_that_are_no_search_are_never_misses(
    agent: Agent, command: str, output: str, code: int
) -> None:
    """Spec §3.1: an HTTP client's failure other than 404/410 is a fault; a pipeline whose last stage acts
    (``Out-File``, ``tee``) and a read of the harness's own scratchpad are not searches."""
    assert misses(agent(command, output, code)) == 0


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "missed"),
    [
        ("curl -s -X POST https://api.acme.dev/v1/databases -d '{\"name\": \"retry\"}'", '{"message":"not found"}', 0),
        ("curl -s --request=DELETE https://api.acme.dev/v1/retry/7", "HTTP/1.1 404 Not Found", 0),
        ("curl -s -F file=@retry.yaml https://api.acme.dev/v1/upload", '{"message":"not found"}', 0),
        ("wget --post-data=name=retry https://api.acme.dev/v1/retry", "ERROR 404: Not Found.", 0),
        ("http PUT https://api.acme.dev/v1/retry limit=3", "HTTP/1.1 404 Not Found", 0),
        ("curl -s -G -d q=retry https://api.acme.dev/v1/search", '{"message":"not found"}', 1),  # a query
        ("curl -s -X GET https://api.acme.dev/v1/retry", '{"message":"not found"}', 1),
    ],
    ids=["POST with a body", "DELETE", "form upload", "wget post", "httpie PUT", "curl -G query", "explicit GET"],
)  # fmt: skip
def test_an_http_request_that_creates_or_changes_acts_rather_than_looks(
    agent: Agent, command: str, output: str, missed: int
) -> None:
    """Spec §3.1: a 404 is a failed lookup of an HTTP client on a URL the agent chose; a request that
    creates, changes or deletes (a method other than GET/HEAD, a body sent) acts, and its "not found" is
    an error of the action, not a miss (commands that act rather than look)."""
    assert misses(agent(command, output, 0)) == missed


def test_a_probe_whose_target_cannot_be_told_gives_its_program_and_first_operand() -> None:
    """Spec §6: never the full command line: the probe's program and its first operand."""
    output = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'tenacity'"
    report = claude("""cd /home/dev/shop && python3 -c "__import__('tenacity')" """, output, 1)
    assert patterns(report) == ["python3 __import__('tenacity')"]


@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("""node -e "console.log(require.resolve('docx'))" """, "Error: Cannot find module 'docx'", "docx"),
        ("""node -e "require('pptxgenjs'); require(\\"sharp\\"); import('react-icons/fa')" """,
         "Error: Cannot find module 'pptxgenjs'", "pptxgenjs"),  # node stopped there: the others were not asked
        ("python3 -m pip list", "/usr/bin/python3: No module named pip", "pip"),
        ("python3 -m pip show httpx", "/usr/bin/python3: No module named pip", "httpx"),
        ("python3 -m pip show httpx", "WARNING: Package(s) not found: httpx", "httpx"),
        ("uv pip show httpx", "warning: Package(s) not found for: httpx", "httpx"),
    ],
    ids=["require.resolve", "require and import", "python -m pip list", "python -m pip show, no pip",
         "python -m pip show", "uv pip show"],
)  # fmt: skip
def test_a_module_probe_s_pattern_is_the_module(command: str, output: str, pattern: str) -> None:
    """Spec §6: what was looked for. A Node probe looked for the modules it requires or imports, not for
    its script (of several, the one its error names); ``python -m pip list`` looked for pip, not for its
    subcommand; ``pip show X`` run as a module or by uv looked for X, as ``pip show X`` does (§3.1), whether
    X or pip itself is not there."""
    assert patterns(claude(command, output, 1)) == [pattern]


@pytest.mark.parametrize(
    ("tool_input", "evidence"),
    [
        ({"pattern": "**/retry*.yaml", "path": "/home/dev/shop/deploy"},
         {"tool": "Glob", "pattern": "**/retry*.yaml", "path": "/home/dev/shop/deploy"}),
        ({"pattern": "**/retry*.yaml"}, {"tool": "Glob", "pattern": "**/retry*.yaml"}),
    ],
    ids=["with a path", "without"],
)  # fmt: skip
def test_a_glob_s_pattern_is_its_pattern_with_its_path_kept_as_evidence(
    tool_input: dict[str, object], evidence: dict[str, object]
) -> None:
    """Spec §6: ``Glob``: its ``pattern`` (with ``path`` kept as evidence)."""
    t = Transcript()
    t.prompt(PROMPT)
    t.call("Glob", tool_input, "No files found")
    assert [gap.evidence for gap in gaps_of(report_of(t), "failed_search")] == [evidence]


@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ("tail -n +20 src/retry.py", "tail: cannot open 'src/retry.py' for reading: No such file or directory",
         "src/retry.py"),
        ("stat -c %s src/retry.py", "stat: cannot statx 'src/retry.py': No such file or directory", "src/retry.py"),
        ("fd retry_budget src", "", "retry_budget"),
        ("fd -e py -d 3 retry_budget src", "", "retry_budget"),
        ("fd . src/legacy", "[fd error]: Search path 'src/legacy' is not a directory.", "src/legacy"),
        ("stat -f %z build/App.dmg", "stat: build/App.dmg: stat: No such file or directory", "build/App.dmg"),
        ('grep -rn -- "--dry-run" scripts/', "", "--dry-run"),
        ('cmd /c "dir /s /b *.csproj"', "File Not Found", "*.csproj"),
        ("where /r . retry.exe", "INFO: Could not find files for the given pattern(s).", "retry.exe"),
        ("ls /home/alice/notes.txt", "ls: cannot access '/home/alice/notes.txt': No such file or directory",
         "/home/alice/notes.txt"),  # another user's home is not this person's ~
        ("find . -name '*.proto' -not -path './node_modules/*'", "", "*.proto"),
        ("find . -path ./vendor -prune -o -name '*.pb.go' -print", "", "*.pb.go"),
    ],
    ids=["tail -n +N", "stat -c FORMAT", "fd PATTERN PATH", "fd with option values", "fd . PATH",
         "BSD stat -f FORMAT", "grep -- PATTERN", "cmd's dir switches", "cmd's where /r DIR", "another user's home",
         "find -not -path (left out)", "find -path -prune (left out)"],
)  # fmt: skip
def test_the_pattern_is_the_target_not_an_option_s_value(command: str, output: str, pattern: str) -> None:
    """Spec §6: the path of a reader (not ``+20``, not stat's format); fd's pattern is its first operand
    (the path it searches in only when the pattern matches everything)."""
    report = claude(command, output, 1)
    assert (misses(report), patterns(report)) == (1, [pattern])


def test_a_type_the_command_added_is_known_to_ripgrep() -> None:
    """``rg --type-add 'web:*.{html,css}' -t web X`` runs (the type is added), so its empty answer is a miss;
    a type nobody added is ripgrep's refusal, a fault."""
    added = claude("rg --type-add 'web2:*.{html,css}' -t web2 retry_budget", "", 1)
    assert (misses(added), patterns(added)) == (1, ["retry_budget"])
    assert misses(claude("rg -t web2 retry_budget", "", 1)) == 0


@pytest.mark.parametrize(
    ("command", "given"),
    [
        ("grep -rn retry_policy src/", True),
        ("rg -l 'retry_policy' src", True),
        ("git grep -n retry_policy", True),
        ("Select-String -Path src\\*.ps1 -Pattern retry_policy", True),
        ("rg -n retry src", False),  # a plain word of the prompt, not a name
    ],
    ids=["grep", "rg", "git grep", "Select-String", "a plain word"],
)
def test_a_shell_content_search_for_a_name_the_person_typed_is_user_given(command: str, given: bool) -> None:
    """Spec §3.1: a shell ``grep``/``rg`` of a name the person typed and asked for is ``user_given``, as a
    Grep of it is."""
    t = Transcript()
    t.prompt("find where retry_policy is defined")
    t.call("Bash", {"command": command}, "", detail=bash_detail(interpretation="No matches found"))
    report = report_of(t)
    assert (misses(report), health_of(report, "general").user_given_misses) == (int(not given), int(given))


def test_a_loop_variable_is_no_target_the_pattern_is_the_program_and_its_operand() -> None:
    """Spec §6: a target that cannot be told (a loop's ``$f``) gives the first search program and its first
    operand."""
    command = 'for f in docs/retry.md docs/backoff.md; do cat "$f" || echo "(missing)"; done'
    report = claude(command, "# Retry\n(missing)", 0)
    assert (misses(report), patterns(report)) == (1, ["cat $f"])


SITE_AUDIT = (
    'echo "=== llms.txt ==="; curl -s -o /dev/null -w "HTTP %{http_code}\\n" https://docs.acme.dev/llms.txt\n'
    'echo "=== sitemap ==="; curl -s -o /dev/null -w "HTTP %{http_code}\\n" https://docs.acme.dev/sitemap.xml\n'
    "curl -s https://docs.acme.dev/ | head -c 600"
)


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "expected"),
    [
        (SITE_AUDIT, "=== llms.txt ===\nHTTP 404\r\n=== sitemap ===\nHTTP 200\r\n<html>", ["https://docs.acme.dev/llms.txt"]),
        (SITE_AUDIT, "=== llms.txt ===\nHTTP 200\r\n=== sitemap ===\nHTTP 410\r\n<html>",
         ["https://docs.acme.dev/sitemap.xml"]),
        (SITE_AUDIT, "=== llms.txt ===\nHTTP 200\r\n=== sitemap ===\nHTTP 301\r\n<html>", []),
        ("curl -s -o /dev/null --write-out 'status=%{response_code} for %{url_effective}' https://docs.acme.dev/v2",
         "status=404 for https://docs.acme.dev/v2", ["https://docs.acme.dev/v2"]),
        ("curl -s -o /dev/null -w 'took %{time_total}s' https://docs.acme.dev/v2", "took 0.404s", []),
    ],
    ids=["the first of two", "the second of two", "neither", "--write-out with other variables", "no code written"],
)  # fmt: skip
def test_the_code_a_write_out_format_prints_is_the_status(
    agent: Agent, command: str, output: str, expected: list[str]
) -> None:
    """Spec §3.1: a 404 or 410 printed by ``-w '%{http_code}'`` is a failed lookup, in whatever text the
    format wraps it (``HTTP 404``); §6: the pattern is the URL of the request whose line says so."""
    report = agent(command, output, 0)
    assert (misses(report), patterns(report)) == (len(expected), expected)


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "missed"),
    [
        ('find "/srv/cache/claude-cli/" -type f -name "*.exe" -o -name "claude*" 2>/dev/null | head -10',
         "/srv/cache/claude-cli/", 1),
        ("find . -name 'retry*'", ".", 1),
        ("find /srv/cache/claude-cli -name 'claude*'", "/srv/cache/claude-cli\n/srv/cache/claude-cli/claude.exe", 0),
        ("find /srv -maxdepth 1 -type d", "/srv", 0),  # names nothing: a listing, no search of a name
    ],
    ids=["the root alone", "the cwd alone", "the root and a file below", "a listing of directories"],
)  # fmt: skip
def test_a_find_that_printed_only_its_own_start_found_nothing_below_it(
    agent: Agent, command: str, output: str, missed: int
) -> None:
    """Spec §3.1: ``find ROOT -name X`` looks below ROOT; when the root itself is all it printed (it matched
    its own test: ``claude*`` of ``…/claude-cli``), nothing below matched: the output was the answer, empty."""
    assert misses(agent(command, output, 0)) == missed


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "pattern"),
    [
        ('for u in docs/a.html docs/api.html; do curl -s -o /dev/null -w "%{http_code} $u\\n" https://x.dev/$u; done',
         "200 docs/a.html\n404 docs/api.html", ["https://x.dev/docs/api.html"]),
        ('for p in llms.txt docs/llms.txt; do curl -so /dev/null -w "${p}: %{http_code}\\n" "https://x.dev/$p"; done',
         "llms.txt: 410\ndocs/llms.txt: 200", ["https://x.dev/llms.txt"]),  # an item is a word, not a part of one
        ('for p in a.md b.md; do curl -s -o /dev/null -w "%{http_code}\\n" "https://x.dev/$p"; done',
         "200\n404", ["https://x.dev/$p"]),  # no line names its item: not told which
    ],
    ids=["the item after the code", "the item before it", "no item printed"],
)  # fmt: skip
def test_a_loop_s_write_out_naming_its_item_says_which_request_missed(
    agent: Agent, command: str, output: str, pattern: list[str]
) -> None:
    """Spec §3.1: a 404 or 410 printed by ``-w`` is a failed lookup, whatever the other rounds of a loop got; a
    shell variable in the format prints one word (``%{http_code} $u``), and §6 names the URL of the item
    the 404 line names."""
    report = agent(command, output, 0)
    assert (misses(report), patterns(report)) == (1, pattern)


@pytest.mark.parametrize(
    ("write_out", "line", "code"),
    [
        ("%{url_effective} %{time_total}%{size_download} %{http_code}", "https://acme.dev/v2 0.3121874 404", "404"),
        ("[%{http_code}] %{url_effective}", "[410] https://docs.acme.dev/old", "410"),
        ("%{http_code}%{url_effective}", "404https://docs.acme.dev/v2", "404"),
    ],
)  # fmt: skip
def test_a_write_out_line_reads_other_variables_as_one_word_each(write_out: str, line: str, code: str) -> None:
    """Another variable prints one word (a URL, a time, a size), and two side by side are one word: the
    expression of a format line never holds two open-ended pieces in a row, so it reads any line in one
    pass (a format of several ``.*?`` took minutes on a long line)."""
    (shape,) = http_lookups.code_lines(("-w", write_out))
    assert r"\S*\S*" not in shape.pattern
    assert ".*" not in shape.pattern
    found = shape.fullmatch(line)
    assert found is not None
    assert found.group("code") == code


@pytest.mark.parametrize(
    "write_out", ["%{http_code} $a-$b-$c end", "%{http_code} %{url_effective}/%{size_download}/$u"]
)
def test_a_write_out_line_of_many_separate_words_is_not_read(write_out: str) -> None:
    """Three open-ended words apart (``$a-$b-$c``) backtrack over a long line that nearly matches (seconds a
    line): such a line of the format is not read; two are (``%{http_code} $u``)."""
    assert http_lookups.code_lines(("-w", write_out)) == ()
    assert len(http_lookups.code_lines(("-w", "%{http_code} $u %{url_effective}"))) == 1


@pytest.mark.parametrize(
    ("path", "cwd", "pattern"),
    [
        ("C:\\Users\\dev\\shop\\docs\\retry.md", "C:\\Users\\dev\\shop", "docs/retry.md"),
        ("c:/users/dev/shop/docs/retry.md", "C:\\Users\\dev\\shop", "docs/retry.md"),
        ("C:\\Users\\dev\\.claude\\retry.md", "D:\\work", "~/.claude/retry.md"),
        ("/c/Users/dev/.claude/retry.md", None, "~/.claude/retry.md"),
        ("docs\\retry.md", "C:\\Users\\dev\\shop", "docs/retry.md"),
        ("/home/dev/shop/docs/retry.md", "/home/dev/shop", "docs/retry.md"),
        ("/home/dev/other/a\\b.md", "/home/dev/shop", "~/other/a\\b.md"),  # a POSIX name may hold a backslash
        ("/mnt/c/Users/dev/retry.md", "/home/dev", "/mnt/c/Users/dev/retry.md"),  # WSL: not this home
        ("C:\\Users\\Bob\\retry.md", "C:\\Users\\dev\\shop", "C:/Users/Bob/retry.md"),  # another user's
        ("$env:USERPROFILE\\.gitconfig", "C:\\Users\\dev\\shop", "~/.gitconfig"),  # PowerShell's home
        ("%USERPROFILE%\\.ssh\\config", "C:\\Users\\dev\\shop", "~/.ssh/config"),  # cmd's
        ("$HOME/.gitconfig", "/home/dev/shop", "~/.gitconfig"),
        ("$HOMEBREW_PREFIX/bin/retryctl", "/home/dev/shop", "$HOMEBREW_PREFIX/bin/retryctl"),  # not $HOME
        ("/c/Users/dev/shop/docs/retry.md", "C:\\Users\\dev\\shop", "docs/retry.md"),  # Git Bash's C:
        ("c:\\tmp\\retry.md", None, "C:/tmp/retry.md"),
        ("C:\\tmp\\retry.md", None, "C:/tmp/retry.md"),
        ("/x/users/dev/retry.md", None, "/x/users/dev/retry.md"),  # a Linux folder, not Git Bash's home
        ("C:\\", "C:\\", "."),
        ("C:\\\\Users\\\\dev\\\\shop\\\\docs\\\\retry.md", "C:\\Users\\dev\\shop", "docs/retry.md"),  # bash's "\\"
        ("\\\\fileserver\\share\\retry.yaml", "C:\\Users\\dev\\shop", "//fileserver/share/retry.yaml"),  # UNC
        ("docs/retry.md", "C:\\Users\\dev\\shop", "docs/retry.md"),  # relative: as written
        ("docs//retry.md", "C:\\Users\\dev\\shop", "docs/retry.md"),
        ("", "/", "."),  # nothing, under the root: the cwd itself
        ("shop/docs/retry.md", "shop", "docs/retry.md"),  # a relative cwd (no agent writes one) still removed
    ],
)  # fmt: skip
def test_a_windows_path_is_one_file_in_any_spelling(path: str, cwd: str | None, pattern: str) -> None:
    """Spec §6: the home written ``~``, the cwd removed. On Windows ``\\`` and ``/`` separate alike and the
    case of a drive or folder says nothing, so ``C:\\Users\\dev\\shop\\docs\\retry.md`` and
    ``c:/users/dev/shop/docs/retry.md`` are one entry, written with ``/``."""
    assert search_pattern.normalised(path, cwd) == pattern


def test_two_spellings_of_one_windows_file_are_one_gap_entry() -> None:
    t = Transcript(cwd="C:\\Users\\dev\\shop")
    t.prompt("make the client retry on 503")
    for path in ("C:\\Users\\dev\\shop\\docs\\retry.md", "C:/Users/dev/shop/docs/retry.md"):
        t.call("Read", {"file_path": path}, "File does not exist.", is_error=True)
    report = report_of(t)
    assert signal_counts(report.overall)["failed_search"] == 1  # the second is the first again: deduplicated
    assert patterns(report) == ["docs/retry.md"]


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("rg --files -g 'retry*.yaml'", "retry*.yaml"),
        ("rg --files -g '*.yaml' -g '!node_modules' deploy", "*.yaml"),
        ("rg --files /home/dev/shop/deploy/retry", "deploy/retry"),
        ("rg --files /home/dev/.config/retry", "~/.config/retry"),
        ("rg --files --glob=retry*.yaml deploy", "retry*.yaml"),
        ("rg --files -gretry*.yaml deploy", "retry*.yaml"),
    ],
    ids=["a glob", "globs, an exclusion left out", "a folder of the project", "a folder of the home", "--glob=",
         "-gGLOB"],
)  # fmt: skip
def test_rg_files_looked_for_names_not_for_a_pattern(command: str, pattern: str) -> None:
    """Spec §6: ``rg --files`` lists names, as find does: its pattern is its ``-g`` globs (not those
    that exclude), else the folder it listed (home and cwd normalised), never the folder as a regex."""
    assert patterns(claude(command, "", 1)) == [pattern]


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "missed"),
    [
        ("sed -n '200,400p' docs/spec-template.md", "", 0, 0),
        ("nl -ba src/retry.py | sed -n '120,240p'", "", 0, 0),
        ("sed -n -e '57p' docs/notes.md", "", 0, 0),
        ("sed -n '1,200p' docs/spec-template.md", "", 0, 1),  # from its first line: the file is empty
        ("sed -n '200,400p' docs/retry.md", "sed: can't read docs/retry.md: No such file or directory", 2, 1),
        ("grep -n retry src/app.py | sed -n '2,5p'", "", 0, 1),  # a search's hits, not a file's lines
        ("sed -n '/RetryBudget/p' src/retry.py", "", 0, 1),  # an address by pattern: a search
        ("nl -ba src/retry.py 2>/dev/null | sed -n '120,240p'", "", 0, 1),  # nl's error sent away: not told
        ("sed -n '200,400p' docs/spec-template.md; echo '---'", "---", 0, 0),  # its own echo beside
        ("tail -n +300 src/retry.py", "", 0, 0),
        ("Get-Content src/retry.py | Select-Object -Skip 300 -First 100", "", 0, 0),
        ("tail -n 20 src/retry.py", "", 0, 1),  # the last lines of an empty file: nothing to page past
    ],
    ids=["a range past line 1", "nl piped into the range", "one line", "from line 1", "the file is not there",
         "a grep's hits paged", "a pattern address", "errors sent away", "an echo after", "tail -n +N",
         "Select-Object -Skip", "tail -n N"],
)  # fmt: skip
def test_a_page_past_the_end_of_a_file_is_no_miss(
    agent: Agent, command: str, output: str, code: int, missed: int
) -> None:
    """``sed -n 'N,Mp' f`` printing nothing when N is past the first line: f is there (sed says when a file
    is not) and ends before line N, a page past its last, as a Grep past its last page (spec §3.1's empty
    output is of a search that found nothing, not of a reader that read to the end)."""
    assert misses(agent(command, output, code)) == missed


_EMPTY_DIR = "total 0\ndrwxr-xr-x  2 dev staff  64 Dec  3 09:54 .\ndrwxr-xr-x 16 dev staff 512 Dec  3 09:54 .."


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "missed"),
    [
        ("ls -la docs/adr", _EMPTY_DIR, 1),
        ("ls -a docs/adr", ".\n..", 1),
        ("ls -la docs/adr", _EMPTY_DIR.replace("x  2", "x@ 2").replace("x 16", "x@ 16"), 1),  # macOS's xattr mark
        ("ls -la docs", f"{_EMPTY_DIR}\n-rw-r--r--  1 dev staff 10 Dec  3 09:54 retry.md", 0),
        ("mkdir -p docs/adr && ls -la docs/adr", _EMPTY_DIR, 0),  # it made the directory: no search
        ("ls -la docs/adr && cat README.md", f"{_EMPTY_DIR}\n# shop", 0),
        ("ls -lah docs/adr", _EMPTY_DIR.replace("total 0", "total 8.0K"), 1),  # sizes for people
        ("ls -ld docs/adr", "drwxr-xr-x  5 dev staff 160 Dec  3 09:54 .", 0),  # the directory itself: found
        ("ls -la src | head -3", _EMPTY_DIR, 0),  # head cut a listing short
    ],
    ids=["ls -la", "ls -a", "macOS", "an entry", "made by the command", "another part printed", "ls -lah", "ls -ld",
         "cut by head"],
)  # fmt: skip
def test_a_listing_of_an_empty_directory_is_an_empty_output(
    agent: Agent, command: str, output: str, missed: int
) -> None:
    """``ls -la D`` of a directory with nothing in it prints its ``total`` line, ``.`` and ``..`` only: the
    listing is empty, as a plain ``ls D`` printing nothing is (spec §3.1's empty output)."""
    assert misses(agent(command, output, 0)) == missed


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "missed"),
    [
        ("git grep -q RetryBudget && echo 'has it'", "has it", 0, 0),  # git grep's status answers, as grep's
        ("git grep -q RetryBudget || echo 'none'", "none", 0, 1),
        ("cat ~/.ssh/id_ed25519.pub | pbcopy", "", 0, 0),  # the clipboard took it
        ("Get-Content .env | Set-Clipboard", "", 0, 0),
    ],
    ids=["git grep -q && echo", "git grep -q || echo", "into pbcopy", "into Set-Clipboard"],
)  # fmt: skip
def test_an_echo_on_git_grep_s_success_and_a_copy_to_the_clipboard(
    agent: Agent, command: str, output: str, code: int, missed: int
) -> None:
    """Spec §3.1: ``X && echo found`` printing its text found (git grep answers by its status as grep does);
    a pipeline whose last stage acts (the clipboard took the output) is no search."""
    assert misses(agent(command, output, code)) == missed


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "code", "pattern"),
    [
        ("brew list libpq", "Error: No such keg: /opt/homebrew/Cellar/libpq", 1, "libpq"),  # an output line "Error: …"
        ("ls src/client.py src/backoff.py 2>/dev/null", "src/client.py", 2, "src/backoff.py"),  # what ls did not print
        ("echo '--- client ---'; sed -n '1,4p' src/client.py; echo '--- backoff ---'; sed -n '1,40p' src/backoff.py",
         "--- client ---\nimport httpx\n--- backoff ---\nsed: can't read src/backoff.py: No such file or directory", 2,
         "src/backoff.py"),  # a list of readers, as cat's
        ('curl.exe -s -o NUL -w "%{http_code}" https://docs.acme.dev/backoff', "404", 0,
         "https://docs.acme.dev/backoff"),  # PowerShell 5.1's curl is an alias: curl.exe is curl
        ("rg -n BackoffPolicy src\\backoff",
         "rg: src\\backoff: The system cannot find the file specified. (os error 2)", 2, "BackoffPolicy"),
    ],
    ids=["an Error line of the output", "ls of two, errors sent away", "a list of sed reads", "curl.exe",
         "ripgrep on Windows"],
)  # fmt: skip
def test_what_another_machine_prints_when_a_lookup_missed(
    agent: Agent, command: str, output: str, code: int, pattern: str
) -> None:
    """Spec §3.1 and §6 as each agent's shell answers: Gemini's own ``Error:`` field is the last one, not a
    line of the output; ``ls`` prints what it found; sed fails as cat does; Windows programs and wordings."""
    report = agent(command, output, code)
    assert (misses(report), patterns(report)) == (1, [pattern])


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "missed", "pattern"),
    [
        ("Get-ChildItem -Recurse | Where-Object { $_.Name -like '*backoff*' }", "", 1, ["*backoff*"]),
        ("Get-ChildItem -Recurse -File | Where-Object Name -eq gh.exe", "", 1, ["gh.exe"]),  # the short form
        ("Get-ChildItem -Recurse | Where-Object { $_.Name -like '*backoff*' }",
         "    Directory: C:\\shop\\src\n\nMode   LastWriteTime   Length Name\n-a---  1/1/2026   120 backoff.py", 0, []),
        ("Get-ChildItem | Where-Object { $_.Name -notlike '*.tmp' }", "", 0, []),  # keeps what does not match
        ("Get-Process | Where-Object { $_.Name -like '*node*' }", "", 0, []),  # no listing of names
    ],
    ids=["-like in a block", "Name -eq", "found", "-notlike", "after Get-Process"],
)  # fmt: skip
def test_a_listing_filtered_by_name_is_powershell_s_find_name(
    agent: Agent, command: str, output: str, missed: int, pattern: list[str]
) -> None:
    """``Get-ChildItem -Recurse | Where-Object { $_.Name -like X }`` looks for a name as ``ls | grep X`` does
    (spec §3.1: a search stage of a pipeline): printing nothing it missed, and its pattern is X (§6)."""
    report = agent(command, output, 0)
    assert (misses(report), patterns(report)) == (missed, pattern)


@pytest.mark.parametrize(
    ("command", "output", "code", "missed", "pattern"),
    [
        ("dir /b | find.exe /i \"retry\"", "", 1, 0, []),  # Windows' find filters lines: not Unix find
        ("Get-ChildItem -Recurse | Where-Object {$_.Name -like '*backoff*'}", "", 0, 1, ["*backoff*"]),
        ("Get-ChildItem -Recurse | ? { $_.Name -like '*backoff*' }", "", 0, 1, ["*backoff*"]),
        ("Get-ChildItem -Recurse | Where-Object { $_.Name -like $pattern }", "", 0, 0, []),  # not told
        ("head -5 src/a.py; sed -E -n 's/(foo/\\1/p' src/a.py 2>/dev/null", "import os", 1, 0, []),  # sed's script
        ("$ErrorActionPreference='SilentlyContinue'; Get-Content src/retry.py | Select-Object -Skip 300", "", 0, 1,
         ["src/retry.py"]),  # its errors sent away: not known to be a page past the end
        ("ls -la setup.py pyproject.toml 2>/dev/null", "-rw-r--r--  1 dev staff 12 Jan  1 00:00 setup.py", 2, 1,
         ["pyproject.toml"]),
    ],
    ids=["find.exe", "a block without spaces", "the ? alias", "a variable", "sed exits 1 for its script",
         "$ErrorActionPreference", "ls -la of two"],
)  # fmt: skip
def test_the_second_review_of_the_session(
    command: str, output: str, code: int, missed: int, pattern: list[str]
) -> None:
    report = claude(command, output, code)
    assert (misses(report), patterns(report)) == (missed, pattern)


def test_a_newer_gemini_result_writes_its_error_field_only_when_set() -> None:
    from omkd.engine.formats.gemini_shell import shell_output

    text = "Output: Error: No such keg: /opt/homebrew/Cellar/libpq\nExit Code: 1\nProcess Group PGID: 4242"
    assert shell_output(text) == ("Error: No such keg: /opt/homebrew/Cellar/libpq", 1)
    older = "Output: a.py\nError: (none)\nExit Code: 0\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 7"
    assert shell_output(older) == ("a.py", 0)


@AGENTS
@pytest.mark.parametrize(
    ("command", "output", "missed", "pattern"),
    [
        ('for f in a.md b.md; do cat "$f" 2>/dev/null || echo "$f missing"; done', "# a\nb.md missing", 1, ["b.md"]),
        ('for f in a.md b.md; do test -f "$f" || echo "MISSING: ${f}"; done', "MISSING: b.md", 1, ["b.md"]),
        ('for f in a.md b.md; do [ -f "$f" ] && echo "ok $f" || echo "no $f"; done', "ok a.md\nok b.md", 0, []),
        ('grep -rq RetryBudget src || echo "exit=$?"', "exit=1", 0, []),  # $? computed: its text is not known
        ('for f in a.md b.md; do ls "$f" 2>/dev/null || echo "$f"; done', "a.md\nb.md", 0, []),  # as ls prints
        ('for f in a.md b.md; do ls -d "$f" 2>/dev/null || echo "$f:"; done', "a.md\nb.md:", 0, []),  # ls's header
        ('for f in a.yaml b.yaml; do cat "$f" 2>/dev/null || echo "no $f"; done', "port: 1\nno b.yaml", 1, ["b.yaml"]),
        ('for f in a.md b.md; do test -e "$f" && echo "✓ $f" || echo "✗ $f"; done', "✗ a.md\n✓ b.md", 1, ["a.md"]),
    ],
    ids=["$f missing", "${f} in braces", "every item there", "a computed value", "the variable alone",
         "the variable and ls's colon", "a two-letter word", "a mark"],
)  # fmt: skip
def test_a_loop_s_fallback_naming_its_item_is_one_probe_that_missed(
    agent: Agent, command: str, output: str, missed: int, pattern: list[str]
) -> None:
    """Spec §3.1: in a loop of probes "each whole output line equal to TEXT is one probe that missed": a TEXT
    holding the loop's variable is printed with each item in its place (``b.md missing``)."""
    report = agent(command, output, 0)
    assert (misses(report), patterns(report)) == (missed, pattern)


@pytest.mark.parametrize(
    ("script", "pattern"),
    [
        ("from google.cloud import storage", "google.cloud"),
        ("import google.cloud.storage as s", "google.cloud.storage"),
    ],
    ids=["from X import Y", "import X as Y"],
)
def test_a_module_probe_looks_for_the_module_it_imports_from(script: str, pattern: str) -> None:
    """Spec §6: the pattern is what was looked for: ``from X import Y`` looks for the module X (Y is a name
    in it, not a module of its own)."""
    output = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'google'"
    assert patterns(claude(f'python -c "{script}"', output, 1)) == [pattern]


@AGENTS
@pytest.mark.parametrize(
    ("command", "missing", "pattern"),
    [
        ('python3 -c "import numpy, torch"', "No module named 'torch'", ["torch"]),
        ('python3 -c "import numpy as np, torch as t; print(np.__version__)"', "No module named 'torch'", ["torch"]),
        ('python3 -c "import google.cloud.storage, yaml"', "No module named 'google.cloud'", ["google.cloud.storage"]),
        ('python3 -c "import brokenmod, yaml"', "No module named 'six'", ["brokenmod | yaml"]),  # neither: both
        ("node -e \"require('zod'); require('yaml')\"", "Error: Cannot find module 'yaml'", ["yaml"]),
    ],
    ids=["import a, b", "with aliases", "a dotted module's part", "names neither", "node's require"],
)  # fmt: skip
def test_a_module_probe_of_several_names_the_one_not_found(
    agent: Agent, command: str, missing: str, pattern: list[str]
) -> None:
    """Spec §6, what missed: ``import numpy, torch`` answered ``No module named 'torch'`` looked for torch and
    found numpy; the pattern names torch (it named numpy, the first, and ``import a, b`` read only a)."""
    output = (
        f'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nModuleNotFoundError: {missing}'
    )
    report = agent(command, output if "node" not in command else missing, 1)
    assert (misses(report), patterns(report)) == (1, pattern)


def test_a_fallback_whose_bars_the_carried_command_joins_is_read() -> None:
    """``bash -c 'cat a.md; cat b.md |''| echo missing'``: the carried command reads ``||``, so the
    fallback printed says b.md missed (§6), though the outer command holds no ``||`` as written."""
    assert patterns(claude("bash -c 'cat a.md; cat b.md |''| echo missing'", "# a\nmissing", 0)) == ["b.md"]
