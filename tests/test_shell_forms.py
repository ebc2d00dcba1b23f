"""Spec §3.1's revised failed-search rules, each pinned by a hand-made transcript and figures by hand:
shell forms beyond the short list (carried commands, more readers, package/module/tool probes, HTTP
clients), commands that act or only filter, checks that a removal is complete, regexes the tool
cannot run, input-validation refusals in any wording, PowerShell's error records."""

from __future__ import annotations

from typing import Any, Final

import pytest

from tests.transcript_builder import Transcript, bash_detail, gaps_of, health_of, overall_signals, report_of

pytestmark = pytest.mark.engine


def one_call(tool: str, tool_input: dict[str, Any], content: Any, *, is_error: bool = False) -> Transcript:
    t = Transcript()
    t.prompt("make the client retry on 503")
    t.skill("http-client")
    t.call(tool, tool_input, content, is_error=is_error, detail=bash_detail(stdout="" if is_error else content))
    return t


def bash(command: str, output: str, *, is_error: bool = False) -> dict[str, int]:
    return overall_signals(one_call("Bash", {"command": command}, output, is_error=is_error))


MISS = {"failed_search": 1}


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ('ssh deploy@web1 "ls /etc/nginx/sites-enabled/shop.conf"',
         "ls: cannot access '/etc/nginx/sites-enabled/shop.conf': No such file or directory"),
        ("adb shell \"cat /sdcard/app/retry.json\"", "cat: /sdcard/app/retry.json: No such file or directory"),
        ("docker exec -it api cat /app/retry.yaml", "cat: /app/retry.yaml: No such file or directory"),
        ("kubectl exec api-0 -n prod -- ls /app/retry.yaml",
         "ls: cannot access '/app/retry.yaml': No such file or directory"),
        ("bash -lc 'grep -rn retry_policy src/'", ""),
        ("timeout 10 find /srv -name 'retry*.yaml'", ""),
        ("sudo head -5 /etc/retry.conf", "head: cannot open '/etc/retry.conf' for reading: No such file or directory"),
    ],
    ids=["ssh", "adb shell", "docker exec", "kubectl exec", "bash -lc", "timeout", "sudo head"],
)  # fmt: skip
def test_a_carried_command_is_judged_as_the_command_it_carries(command: str, output: str) -> None:
    assert bash(command, output) == MISS


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("realpath src/retry.py", "realpath: src/retry.py: No such file or directory"),
        ("bat --plain src/retry.py", "[bat error]: 'src/retry.py': No such file or directory (os error 2)"),
        ("batcat src/retry.py", "[bat error]: 'src/retry.py': No such file or directory (os error 2)"),
    ],
    ids=["realpath", "bat", "batcat (Debian's bat)"],
)
def test_a_path_probe_or_reader_beyond_the_short_list_missed(command: str, output: str) -> None:
    """§3.1's more readers and probes: ``realpath`` (where a path is) and ``bat`` (cat with colours)
    answering that the path is not there, as ``stat`` and ``cat`` do."""
    assert bash(command, output, is_error=True) == MISS


def test_a_carried_command_that_found_something_is_no_miss() -> None:
    assert bash('ssh web1 "ls /etc/nginx/sites-enabled"', "shop.conf\nadmin.conf") == {}


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("pip show httpx-retry", "WARNING: Package(s) not found: httpx-retry"),
        ('python3 -c "import tenacity"', "Traceback (most recent call last):\n  File \"<string>\", line 1\n"
         "ModuleNotFoundError: No module named 'tenacity'"),
        ("npm view @acme/retry version", "npm error code E404\nnpm error 404 Not Found - GET https://…"),
        ("apt-cache policy libretry-dev", ""),
        ("dpkg -s libretry-dev", "dpkg-query: package 'libretry-dev' is not installed and no information is available"),
        ("brew list retry-cli", "Error: No such keg: /opt/homebrew/Cellar/retry-cli"),
        ("rospack find retry_node", "[rospack] Error: package 'retry_node' not found"),
        ("uv --version", "bash: line 1: uv: command not found"),
        ("rg --version", "bash: line 1: rg: command not found"),
        ("brew list --versions postgresql@16", ""),
        ("python3 -m pip --version", "/srv/app/venv/bin/python3: No module named pip"),
        ("venv/bin/python -m pip list", "/srv/app/venv/bin/python: No module named pip"),
        ("node -e \"console.log(require.resolve('docx'))\"", "node:internal/modules/cjs/loader:1520\n  throw err;\n"
         "  ^\n\nError: Cannot find module 'docx'\nRequire stack:\n- /home/dev/shop/[eval]"),
    ],
    ids=["pip show", "python import", "npm view", "apt-cache policy", "dpkg -s", "brew list", "rospack", "--version",
         "a search program's --version", "brew list --versions (prints nothing)", "python -m X --version",
         "python -m pip list", "node require"],
)  # fmt: skip
def test_a_probe_answered_not_there_is_a_miss(command: str, output: str) -> None:
    assert bash(command, output) == MISS


def test_a_probe_that_found_its_package_is_no_miss() -> None:
    assert bash("pip show httpx", "Name: httpx\nVersion: 0.27.0") == {}
    assert bash("rg --version", "ripgrep 14.1.0") == {}
    assert bash("brew list --versions postgresql@16", "postgresql@16 16.2") == {}
    assert bash("python3 -m pip --version", "pip 24.0 from /srv/app/venv/lib/python3.11/site-packages/pip") == {}


def test_running_a_module_that_is_not_there_is_not_a_probe() -> None:
    """``python -m pytest`` answered "No module named pytest": a run that failed, not a lookup."""
    assert bash("python -m pytest -q", "/usr/bin/python: No module named pytest", is_error=True) == {}


def test_probes_of_alternatives_are_one_question() -> None:
    """``powershell --version; pwsh --version``: one answer answers it."""
    output = "bash: line 1: powershell: command not found\nPowerShell 7.4.6"
    assert bash("powershell --version; pwsh --version", output) == {}


NODE_MISS = (
    "node:internal/modules/cjs/loader:1520\n  throw err;\n  ^\n\nError: Cannot find module 'docx'\nRequire stack:\n"
    "- {dir}/[eval]\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1517:15)\n"
)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (NODE_MISS.format(dir="/home/dev") + NODE_MISS.format(dir="/srv/skills/docx"), MISS),
        (NODE_MISS.format(dir="/home/dev") + "/srv/skills/docx/node_modules/docx/dist/index.cjs", {}),
    ],
    ids=["neither place", "found in the second place"],
)  # fmt: skip
def test_one_probe_asked_in_two_places_is_answered_only_by_an_answer(output: str, expected: dict[str, int]) -> None:
    """The same module probed here and in the skill's directory is one question, not alternatives: a
    stack trace is no answer, so when both printed their not-found line it missed; a path printed by
    the second answers it."""
    probe = "node -e \"console.log(require.resolve('docx'))\""
    assert bash(f"ls /srv/skills/docx\n{probe} 2>&1\ncd /srv/skills/docx && {probe} 2>&1", output) == expected


@pytest.mark.parametrize(
    ("command", "output", "expected"),
    [
        ("curl -sI https://docs.acme.dev/retry", "HTTP/2 404\ncontent-type: text/html", MISS),
        ("curl -s -o /dev/null -w '%{http_code}' https://docs.acme.dev/retry", "404", MISS),
        ("curl -s https://api.acme.dev/v1/retry", '{"message":"not found: route"}', MISS),
        ("curl -s https://api.acme.dev/v1/retry", '{"retries": 3}', {}),
        ("curl -s https://api.acme.dev/v1/retry", "<html>502 Bad Gateway</html>", {}),
        ("curl -sf http://localhost:4000/health && echo up || echo down", "down", {}),
        ("curl -s http://localhost:4000/api/retry | jq .", "bash: line 1: jq: command not found", {}),
    ],
    ids=[
        "status line",
        "-w http_code",
        "not-found body",
        "found",
        "5xx is a fault",
        "health check fallback",
        "the shell's 'command not found' is no body",
    ],
)
def test_an_http_client_misses_on_404_or_410_only(command: str, output: str, expected: dict[str, int]) -> None:
    assert bash(command, output) == expected


@pytest.mark.parametrize(
    "command",
    [
        "cat access.log | grep -v ' 200 '",
        "ps aux | grep retry-worker | grep -v grep | awk '{print $2}' | xargs kill",
        "grep -rl retry_policy src/ | xargs rm",
        "grep -rn retry_policy src/ > /tmp/hits.txt",
        "(Get-Content -Raw src/retry.ps1).Replace('a', 'b') | Set-Content src/retry.ps1",
        "cat /tmp/claude/tasks/b7f3.output",
        "cat /home/dev/.claude/projects/-home-dev-shop/5f1e0c2a/tool-results/b0535c8.txt | tail -40",
        "find . -type d -name __pycache__ -prune -exec rm -rf {} +",
        "find src -name 'retry_*.tmp' -delete",
        "find src -name '*.py' -exec sed -i 's/RETRIES = 3/RETRIES = 5/' {} +",
        "find /srv/logs -name 'retry*.log' -execdir /bin/rm {} \\;",
        "grep -L 'Copyright' src/*.py",
        "grep -rL 'Copyright' src",
        "Get-ChildItem .\\logs\\*.log | ForEach-Object { Remove-Item $_ }",
    ],
    ids=["grep -v", "ps | grep | xargs kill", "| xargs rm", "> file", "Set-Content", "harness output", "kept output",
         "find -exec rm", "find -delete", "find -exec sed -i", "find -execdir /bin/rm", "grep -L", "grep -rL",
         "ForEach-Object { Remove-Item }"],
)  # fmt: skip
def test_a_command_that_acts_or_only_filters_is_not_a_search(command: str) -> None:
    """A ``find`` that deletes or edits what it finds (``-delete``, ``-exec rm``) acts, as ``find | xargs
    rm`` does: it prints nothing when it did its work."""
    assert bash(command, "") == {}


@pytest.mark.parametrize(
    "command",
    ["find src -name '*.py' -exec grep -l retry_budget {} +",
     "find src -name 'retry*' -exec sh -c 'head -3 \"$1\"' _ {} \\;"],
    ids=["-exec grep", "-exec sh -c"],
)  # fmt: skip
def test_a_find_that_runs_a_reader_on_what_it_finds_still_looks(command: str) -> None:
    assert bash(command, "") == MISS


@pytest.mark.parametrize(
    ("command", "signals"),
    [
        ("git log --oneline -- src/retry.py | head -n 20", {}),
        ("npm ls --depth 0 | tail -c 300", {}),
        ("git branch -r | sed -n '1,20p'", {}),
        ("head -n 20 src/retry.py", MISS),  # a file named: it was looked for
        ("sed -n '1,20p' src/retry.py", MISS),
    ],
    ids=["head -n of a pipe", "tail -c of a pipe", "sed -n of a pipe", "head -n of a file", "sed -n of a file"],
)
def test_a_reader_of_what_is_piped_to_it_looks_for_nothing(command: str, signals: dict[str, int]) -> None:
    """``head -n 20``, ``tail -c 300``, ``sed -n '1,20p'`` with no file read the pipe before them: the count
    and the script are not paths (§3.1's readers look up a path), so an empty answer is no miss."""
    assert bash(command, "") == signals


def test_mdfind_is_a_search_program_as_locate_is() -> None:
    """macOS's Spotlight search finds files by name or metadata; an empty answer is a miss (§3.1), and its
    query is what it looked for (§6)."""
    t = Transcript()
    t.prompt("set up my terminal")
    t.skill("http-client")
    command = "mdfind \"kMDItemCFBundleIdentifier == 'com.example.term'\" | sed -n '1,20p'"
    t.call("Bash", {"command": command}, "", detail=bash_detail())
    assert overall_signals(t) == MISS
    (pattern,) = [str(gap.evidence["pattern"]) for gap in gaps_of(report_of(t))]
    assert pattern.startswith("kMDItemCFBundleIdentifier ==")  # the query, not "sed 1,20p"
    assert "com.example.term" in pattern


def test_checking_that_a_removal_is_complete_is_not_a_gap() -> None:
    t = Transcript()
    t.prompt("drop the legacy retry helper")
    t.skill("http-client")
    t.call("Edit", {"file_path": "/home/dev/shop/src/client.py", "old_string": "def legacy_retry(n):\n    pass\n",
                    "new_string": ""}, "The file has been updated.")  # fmt: skip
    t.call("Grep", {"pattern": "legacy_retry", "path": "/home/dev/shop/src"}, "No files found")
    report = report_of(t)
    assert overall_signals(t) == {}
    assert health_of(report, "http-client").verified_absent == 1


OLD_IMPORT = "import { Retry, Backoff } from 'legacy/http';"


@pytest.mark.parametrize(
    ("new_string", "signals"),
    [
        ("import { Backoff } from 'legacy/http';\nimport { Retry } from 'core/http';", {}),
        ("import { Retry, Backoff } from 'legacy/http'; // kept", MISS),  # the pieces still stand in order
        ("import { Backoff } from 'core/http';\nconst Retry = 1; // was from 'legacy/http'", {}),  # not one line
    ],
    ids=["the import replaced", "the import kept", "the pieces on two lines"],
)
def test_a_pattern_of_pieces_joined_by_any_text_confirms_a_removal(new_string: str, signals: dict[str, int]) -> None:
    """A Grep pattern whose only syntax is ``.*`` between plain pieces (``import.*Retry.*from 'legacy/http'``)
    looks for those pieces in order on one line: an edit whose old text held them so and whose new text
    does not removed what it looks for, and its empty answer confirms the edit (§3.1 ``verify_absence``)."""
    t = Transcript()
    t.prompt("move Retry to core/http")
    t.skill("http-client")
    edit = {"file_path": "/home/dev/shop/src/client.ts", "old_string": OLD_IMPORT, "new_string": new_string}
    t.call("Edit", edit, "The file has been updated.")
    t.call("Grep", {"pattern": "import.*Retry.*from 'legacy/http'", "path": "/home/dev/shop/src"}, "No files found")
    assert overall_signals(t) == signals


@pytest.mark.parametrize(
    ("removed", "signals"), [("src/middleware.ts", {}), ("src/other.ts", MISS)], ids=["its module", "another file"]
)
def test_a_search_for_a_deleted_file_s_module_name_confirms_the_removal(removed: str, signals: dict[str, int]) -> None:
    """``grep middleware`` after ``rm src/middleware.ts`` looks for what imports the deleted file (by its
    name without the extension): finding nothing confirms the removal (§3.1: a file the search targets)."""
    t = Transcript()
    t.prompt("replace the middleware with a proxy")
    t.skill("http-client")
    t.call("Bash", {"command": f"rm {removed}"}, "", detail=bash_detail())
    t.call("Grep", {"pattern": "middleware", "path": "/home/dev/shop/src"}, "No files found")
    assert overall_signals(t) == signals


def test_a_search_for_something_never_removed_is_still_a_miss() -> None:
    t = Transcript()
    t.prompt("drop the legacy retry helper")
    t.skill("http-client")
    edit = {"file_path": "/home/dev/shop/src/client.py", "old_string": "RETRIES = 3", "new_string": "RETRIES = 5"}
    t.call("Edit", edit, "The file has been updated.")
    t.call("Grep", {"pattern": "legacy_retry", "path": "/home/dev/shop/src"}, "No files found")
    assert overall_signals(t) == MISS


@pytest.mark.parametrize(
    ("command", "signals"),
    [
        ("grep -rn parse_token_v1 src/", {}),  # what the edit removed: a confirmation
        ("grep -rn parse_token_v1 src/ ; grep -rn parse_token_v1 tests/", {}),  # the same, in two places
        ("grep -rn parse_token_v1 src/ ; grep -rn verify_token_v2 src/", MISS),  # and something never removed
        ("grep -rn 'parse_token_v1\\|verify_token_v2' src/", {}),  # one search, either spelling
        ("grep -rn parse_token_v1 src/ | grep -i session", {}),  # the second grep reads the first's lines
        ("grep -rn parse_token_v1 src/ | grep -v tests/", {}),  # a filter is no target
        ("[ -f src/auth.py ] && grep -n parse_token_v1 src/auth.py", {}),  # a guard is where it looked
        ("cat src/auth.py | grep parse_token_v1", {}),  # a reader too
        ("find src -name '*_test.py' | xargs grep -l parse_token_v1", {}),  # a scope too
        ("ls src/auth.py && grep -c parse_token_v1 src/auth.py; grep -rn verify_token_v2 src", MISS),
    ],
    ids=[
        "the removed name",
        "in two places",
        "and another search",
        "alternatives of one pattern",
        "grep of a grep",
        "filtered",
        "guarded",
        "read into the grep",
        "in files of a kind",
        "a probe, the removed name and another search",
    ],
)
def test_each_search_of_a_list_must_look_for_what_was_removed(command: str, signals: dict[str, int]) -> None:
    """Spec §3.1 ``verify_absence``: "a search for it that finds nothing confirms the edit". A list of searches
    that missed confirms it only when each of its searches looked for something removed: ``grep X; grep Y``
    after removing X also looked for Y, which is not there. A guard, a reader, a scope or a filter is where a
    search looked, not what it looked for."""
    t = Transcript()
    t.prompt("remove the v1 token parser")
    t.skill("http-client")
    edit = {"file_path": "/home/dev/shop/src/auth.py", "old_string": "def parse_token_v1(raw):\n    pass\n",
            "new_string": ""}  # fmt: skip
    t.call("Edit", edit, "The file has been updated.")
    t.call("Bash", {"command": command}, "Exit code 1", is_error=True, detail="Error: Exit code 1")
    assert overall_signals(t) == signals


def test_a_deleted_file_looked_for_again_is_not_a_gap() -> None:
    t = Transcript()
    t.prompt("remove the old config")
    t.skill("http-client")
    t.call("Bash", {"command": "git rm config/retry_old.yaml"}, "rm 'config/retry_old.yaml'")
    t.call("Bash", {"command": "ls config/retry_old.yaml"},
           "ls: cannot access 'config/retry_old.yaml': No such file or directory")  # fmt: skip
    assert overall_signals(t) == {}


@pytest.mark.parametrize(
    ("command", "output", "signals"),
    [
        ("test -e config/retry_old.yaml && echo present || echo gone", "gone", {}),
        ("[ -f config/retry_old.yaml ] || echo gone", "gone", {}),
        ("test -e config/retry_new.yaml || echo missing", "missing", MISS),  # another file
    ],
    ids=["test -e", "[ -f ]", "another file"],
)
def test_a_test_for_a_moved_file_confirms_the_move(command: str, output: str, signals: dict[str, int]) -> None:
    """Spec §3.1 ``verify_absence``: "the agent deleted or moved a file the search targets"; ``test -e``
    of the path it moved away targets that file, as ``ls`` of it does."""
    t = Transcript()
    t.prompt("archive the old config")
    t.skill("http-client")
    t.call("Bash", {"command": "git mv config/retry_old.yaml archive/retry_old.yaml"}, "", detail=bash_detail())
    t.call("Bash", {"command": command}, output, detail=bash_detail(stdout=output))
    assert overall_signals(t) == signals


@pytest.mark.parametrize(
    ("tool", "tool_input", "output"),
    [
        ("Grep", {"pattern": "retry(?!_count)"}, "No matches found"),
        ("Grep", {"pattern": r"(\w+)\s+\1"}, "No files found"),
        ("Bash", {"command": "rg 'retry(?=Policy)' src/"}, ""),
        ("Grep", {"pattern": "retry["}, "regex parse error:\n    retry[\n         ^\nerror: unclosed character class"),
    ],
    ids=["look-ahead", "back-reference", "rg look-ahead", "regex parse error"],
)
def test_a_regex_the_tool_cannot_run_is_a_fault_not_a_miss(tool: str, tool_input: dict[str, Any], output: str) -> None:
    t = one_call(tool, tool_input, output, is_error=tool != "Bash" and output.startswith("regex"))
    assert overall_signals(t) == {}


@pytest.mark.parametrize(
    ("offset", "signals"),
    [(None, "miss"), (0, "miss"), (50, "none"), ("50", "none")],
    ids=["no offset", "first page", "a later page", "a later page, as text"],
)
def test_a_grep_page_past_the_last_is_not_a_miss(offset: int | str | None, signals: str) -> None:
    """Claude Code before 2.1.210 answered a content-mode Grep paged past its last result ``offset``
    with "No matches found" (other-agents.md §4): the pattern had matched on the pages before."""
    tool_input: dict[str, Any] = {"pattern": "RetryPolicy", "output_mode": "content"}
    if offset is not None:
        tool_input["offset"] = offset
    assert overall_signals(one_call("Grep", tool_input, "No matches found")) == (MISS if signals == "miss" else {})


@pytest.mark.parametrize(
    ("tool", "tool_input", "output"),
    [
        ("Grep", {"pattern": "skills-lock", "path": "https://code.claude.com/docs/en"}, "Path does not exist: https:/"),
        ("Glob", {"pattern": "**/*.md", "path": "https://example.com/docs"}, "Directory does not exist"),
        ("Read", {"file_path": "https://example.com/docs/setup.md"}, "File does not exist."),
    ],
    ids=["Grep", "Glob", "Read"],
)
def test_a_url_given_to_a_file_tool_is_a_fault_not_a_miss(tool: str, tool_input: dict[str, Any], output: str) -> None:
    """A file tool cannot read a URL: its "does not exist" says the search could not run as asked."""
    assert overall_signals(one_call(tool, tool_input, output, is_error=True)) == {}


@pytest.mark.parametrize(
    ("command", "signals"),
    [
        ("rg -P 'retry(?=Policy)' src/", MISS),
        ("rg -nP 'retry(?=Policy)' src/", MISS),  # bunched with other flags
        ("rg -Pin 'retry(?=Policy)' src/", MISS),
        ("rg --engine pcre2 -n 'retry(?=Policy)' src/", MISS),
        ("rg -nA3 'retry(?=Policy)' src/", {}),  # A takes a value: no -P here, ripgrep cannot run it
        ("rg -n 'retry(?=Policy)' src/", {}),
    ],
    ids=["-P", "-nP", "-Pin", "--engine pcre2", "-nA3: no P", "no PCRE2"],
)
def test_rg_with_pcre2_runs_look_around_so_its_empty_answer_is_a_miss(command: str, signals: dict[str, int]) -> None:
    """Spec §3.1: ripgrep has no look-around "without PCRE2"; with it (``-P``, bunched or not) the pattern ran."""
    assert bash(command, "") == signals


@pytest.mark.parametrize(
    "text",
    ["Input validation error: path must be absolute", "INPUT VALIDATION ERROR — unknown field", "InputValidationError"],
)
def test_any_input_validation_error_is_a_harness_refusal(text: str) -> None:
    assert overall_signals(one_call("Glob", {"pattern": "**/retry.yaml"}, text, is_error=True)) == {}


def test_powershell_error_record_lines_are_part_of_the_not_found_message() -> None:
    output = (
        "Exit code 1\nGet-ChildItem : Cannot find path 'C:\\tools\\retry.exe' because it does not exist.\r\n"
        'At line:1 char:1\r\n+ Get-ChildItem "C:\\tools\\retry.exe"\r\n+ ~~~~~~~~~~~~~~\r\n'
        "    + CategoryInfo          : ObjectNotFound: (C:\\tools\\retry.exe:String) [Get-ChildItem], ItemNot \r\n"
        "   FoundException\r\n    + FullyQualifiedErrorId : PathNotFound"
    )
    t = one_call("PowerShell", {"command": 'Get-ChildItem "C:\\tools\\retry.exe"'}, output, is_error=True)
    assert overall_signals(t) == MISS


def test_a_powershell_not_found_message_wrapped_mid_sentence_is_still_one() -> None:
    """PowerShell wraps its message at the console's width, inside the sentence ("does not \\r\\nexist.")."""
    output = (
        "Exit code 1\nGet-Content : Cannot find path 'C:\\Users\\dev\\shop\\specs\\main\\spec.md' because it "
        "does not \r\n"
        "exist.\r\nAt line:1 char:1\r\n+ Get-Content -Raw -Path 'C:\\Users\\dev\\shop\\ ...\r\n+ ~~~~~~~~~~~~\r\n"
        "    + CategoryInfo          : ObjectNotFound: (C:\\Users\\dev\\...:String) [Get-Content], ItemNotFoundEx \r\n"
        "   ception\r\n    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.GetContentCommand"
    )
    command = "Get-Content -Raw -Path 'C:\\Users\\dev\\shop\\specs\\main\\spec.md'"
    assert overall_signals(one_call("PowerShell", {"command": command}, output, is_error=True)) == MISS


@pytest.mark.parametrize(
    ("command", "output", "signals"),
    [
        ("Get-Command gh -ErrorAction SilentlyContinue", "Exit code 1", MISS),
        ("gcm gh -ea 0", "Exit code 1", MISS),
        ("Get-Command gh", "CommandType Name Version Source\nApplication gh.exe 2.40.0 C:\\Program Files\\gh.exe", {}),
    ],
    ids=["silent", "alias", "found"],
)
def test_get_command_is_powershells_which(command: str, output: str, signals: dict[str, int]) -> None:
    t = one_call("PowerShell", {"command": command}, output, is_error=output.startswith("Exit code"))
    assert overall_signals(t) == signals


def test_a_webfetch_404_answered_as_plain_text_is_a_miss() -> None:
    text = "The server returned HTTP 404 Not Found.\n\nThe response body was not retrieved."
    assert overall_signals(one_call("WebFetch", {"url": "https://docs.acme.dev/retry", "prompt": "x"}, text)) == MISS


def test_each_probe_of_a_loop_whose_fallback_printed_is_a_miss() -> None:
    """``for f in …; do cat "$f" || echo "(missing)"; done``: a line equal to the fallback's text is a probe that
    missed, whatever the others found (spec §3.1, the loop question decided)."""
    command = 'for f in docs/retry.md docs/backoff.md; do cat "$f" || echo "(missing)"; done'
    assert bash(command, "# Retry\nretry three times\n(missing)") == MISS


def test_a_probe_inside_an_if_is_read_and_its_else_message_alone_is_a_miss() -> None:
    command = "if [ -f config/retry.yaml ]; then cat config/retry.yaml; else echo 'no retry config'; fi"
    assert bash(command, "no retry config") == MISS
    assert bash(command, "retries: 3") == {}


def test_test_path_answers_with_true_or_false() -> None:
    """PowerShell's ``Test-Path`` prints ``False`` for a path that is not there; inside ``if (…)`` it prints
    nothing, and the command's empty output says nothing of it."""
    assert bash("Test-Path C:\\tools\\retry.exe", "False") == MISS
    assert bash("Test-Path C:\\tools\\retry.exe", "True") == {}
    assert bash("if (Test-Path build) { Remove-Item build -Recurse -Force }", "") == {}


_PS51: Final = (
    "Get-Command : The term 'retryctl' is not recognized as the name of a cmdlet, function, script file, or operable "
    "program. \r\nCheck the spelling of the name, or if a path was included, verify that the path is correct and try "
    "again.\r\nAt line:1 char:1\r\n+ Get-Command retryctl\r\n+ ~~~~~~~~~~~~~~~~~~~~\r\n    + CategoryInfo          : "
    "ObjectNotFound: (retryctl:String) [Get-Command], CommandNotFoundException\r\n    + FullyQualifiedErrorId : "
    "CommandNotFoundException,Microsoft.PowerShell.Commands.GetCommandCommand"
)
_PS7: Final = (
    "Get-Command: The term 'retryctl' is not recognized as a name of a cmdlet, function, script file, or executable "
    "program.\nCheck the spelling of the name, or if a path was included, verify that the path is correct and try "
    "again."
)


@pytest.mark.parametrize("output", [_PS51, _PS7], ids=["PowerShell 5.1", "PowerShell 7"])
def test_get_command_answered_not_recognized_is_a_miss(output: str) -> None:
    """``Get-Command X`` is PowerShell's ``which``: its not-found message (with the line PowerShell adds and
    its error record) is the search program's own "not there", in either wording."""
    for is_error in (False, True):
        assert (
            overall_signals(one_call("PowerShell", {"command": "Get-Command retryctl"}, output, is_error=is_error))
            == MISS
        )
    found = "CommandType Name Version Source\n----------- ---- ------- ------\nApplication retryctl.exe 0.0.0.0 C:\\bin"
    assert overall_signals(one_call("PowerShell", {"command": "Get-Command retryctl"}, found)) == {}
    # the same message of a program run (not looked for) is a probe's answer only through ``--version``
    ran = _PS7.replace("Get-Command", "retryctl", 1)
    assert overall_signals(one_call("PowerShell", {"command": "retryctl --version"}, ran, is_error=True)) == MISS
    assert overall_signals(one_call("PowerShell", {"command": "retryctl sync --all"}, ran, is_error=True)) == {}


@pytest.mark.parametrize(
    ("tool", "tool_input", "output", "is_error"),
    [
        ("Grep", {"pattern": "retryPolicy", "type": "tsx"}, "No files found", False),
        ("Grep", {"pattern": "retryPolicy", "type": "ts,tsx", "output_mode": "content"}, "No matches found", False),
        ("Grep", {"pattern": "retryPolicy", "type": "tsx"}, "unrecognized file type: tsx", True),
        ("Bash", {"command": "rg -t tsx retryPolicy src/ 2>/dev/null"}, "Exit code 2", True),
        ("Bash", {"command": "rg --type=tsx retryPolicy src/"}, "Exit code 2\nunrecognized file type: tsx", True),
        ("Bash", {"command": "rg -Ttsx retryPolicy src/ | head"}, "", False),
    ],
    ids=["Grep tsx", "Grep list of types", "Grep error", "rg -t hidden", "rg --type=", "rg -T joined"],
)
def test_a_file_type_ripgrep_does_not_know_is_a_fault_not_a_miss(
    tool: str, tool_input: dict[str, Any], output: str, is_error: bool
) -> None:
    """ripgrep refuses a type name it does not know (``tsx``: ``ts`` covers ``*.tsx``), so the search never
    ran; some Claude Code versions answer such a Grep with a plain "No files found"."""
    assert overall_signals(one_call(tool, tool_input, output, is_error=is_error)) == {}


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Grep", {"pattern": "retryPolicy", "type": "ts"}),
        ("Grep", {"pattern": "retryPolicy", "type": "python"}),  # ripgrep 14's alias of py
        ("Bash", {"command": "rg -tpy retry_policy src/"}),
        ("Bash", {"command": "rg --type ts retryPolicy src/"}),
    ],
    ids=["Grep ts", "Grep python", "rg -tpy", "rg --type ts"],
)
def test_a_known_file_type_that_finds_nothing_is_a_miss(tool: str, tool_input: dict[str, Any]) -> None:
    output = "No files found" if tool == "Grep" else ""
    assert overall_signals(one_call(tool, tool_input, output)) == MISS


@pytest.mark.parametrize("is_error", [False, True])
def test_rg_whose_filter_left_no_file_to_search_missed(is_error: bool) -> None:
    """``rg -g '*.ps1' retry``: "No files were searched" is ripgrep's own answer that no file of that
    kind is there, as Glob's "No files found" is."""
    output = (
        "No files were searched, which means ripgrep probably applied a filter you didn't expect.\n"
        "Running with --debug will show why files are being skipped."
    )
    assert (
        bash("rg -n retry_policy -g '*.ps1'", ("Exit code 1\n" if is_error else "") + output, is_error=is_error) == MISS
    )


def test_a_toolsearch_for_tools_that_are_not_there_is_a_miss() -> None:
    """Claude Code's ToolSearch of its deferred tools answers a guessed tool name it does not have with
    "No matching deferred tools found"; one that finds a tool answers with its reference."""
    query = {"query": "select:mcp__seo__getDomainKeywords"}
    assert overall_signals(one_call("ToolSearch", query, "No matching deferred tools found")) == MISS
    found = [{"type": "tool_reference", "tool_name": "WebFetch"}]
    assert overall_signals(one_call("ToolSearch", {"query": "fetch a web page"}, found)) == {}


@pytest.mark.parametrize(
    "command",
    ['pkill -f litellm; sleep 1; grep -E "Uvicorn running" /tmp/litellm.log', "find / -name 'retry*.yaml'"],
    ids=["pkill -f killed its own shell", "killed at a timeout"],
)
def test_a_search_killed_by_a_signal_never_answered(command: str) -> None:
    """Exit code 144 or 143 is 128 + a signal: the shell was killed before the search answered (a
    fault), unlike grep's exit code 1, which is its answer."""
    assert bash(command, "Exit code 144", is_error=True) == {}
    assert bash(command, "Exit code 1", is_error=True) == MISS


def powershell(command: str, output: str, *, is_error: bool = False) -> dict[str, int]:
    return overall_signals(one_call("PowerShell", {"command": command}, output, is_error=is_error))


@pytest.mark.parametrize(
    ("command", "output", "is_error"),
    [
        ("Select-String -Path src\\*.ps1 -Pattern RetryPolicy", "(PowerShell completed with no output)", False),
        ("Get-ChildItem -Recurse | Select-String RetryPolicy", "(PowerShell completed with no output)", False),
        ("sls RetryPolicy *.ps1", "", False),
        ("findstr /s /i RetryPolicy *.cs", "Exit code 1", True),
        ("Get-ChildItem C:\\tools -Recurse -Filter retry.exe", "(PowerShell completed with no output)", False),
    ],
    ids=["Select-String", "piped Select-String", "sls", "findstr", "Get-ChildItem, nothing printed"],
)  # fmt: skip
def test_powershell_and_cmd_searches_that_print_nothing_missed(command: str, output: str, is_error: bool) -> None:
    """PowerShell's ``Select-String`` (``sls``) and cmd's ``findstr`` search content as grep does, and the
    PowerShell tool's "(PowerShell completed with no output)" is an empty output, as Bash's is. The
    pattern (spec §6) is what they looked for."""
    report = report_of(one_call("PowerShell", {"command": command}, output, is_error=is_error))
    (gap,) = gaps_of(report)
    assert gap.evidence["pattern"] == ("retry.exe" if "Get-ChildItem C:" in command else "RetryPolicy")


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("Select-String -Path src\\*.ps1 -Pattern RetryPolicy", "src\\client.ps1:12:$RetryPolicy = 3"),
        ("Select-String -Path access.log -Pattern ' 200 ' -NotMatch", "(PowerShell completed with no output)"),
        ('findstr /v /c:" 200 " access.log', ""),
        ("git config --local user.name dev", "(PowerShell completed with no output)"),
    ],
    ids=["found", "-NotMatch filters", "findstr /v filters", "not a search"],
)
def test_powershell_and_cmd_searches_that_found_or_only_filter_are_no_miss(command: str, output: str) -> None:
    assert powershell(command, output) == {}


@pytest.mark.parametrize(
    ("command", "output", "is_error"),
    [
        (
            'rg -n "" .gitignore',
            "Exit code 1",
            True,
        ),  # Windows PowerShell dropped the "": .gitignore became the pattern
        ("grep -n '' notes/empty.md", "", False),
    ],
    ids=["PowerShell dropped the empty pattern", "an empty file"],
)
def test_an_empty_pattern_looks_for_nothing(command: str, output: str, is_error: bool) -> None:
    """An empty pattern matches every line: an empty answer is no miss; a file that is not there still is."""
    assert powershell(command, output, is_error=is_error) == {}
    missing = "rg: .gitignore: No such file or directory (os error 2)"
    assert powershell('rg -n "" .gitignore', missing, is_error=True) == MISS


def test_a_login_profiles_complaints_are_not_the_commands_output() -> None:
    """A login shell's profile complaining on stderr (as under Codex's macOS sandbox, where brew's
    ``shellenv`` may not write) before the command's own not-found line: the command missed. A script the
    command itself runs is part of the command: its failure is another part failing."""
    noise = (
        "/opt/homebrew/Library/Homebrew/brew.sh: line 60: cannot create temp file for here document: "
        "Operation not permitted\n/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation "
        "not permitted\n"
    )
    missing = "sed: ../../packages/utils/retry.ts: No such file or directory"
    command = "sed -n '1,200p' '../../packages/utils/retry.ts'"
    assert bash(command, f"Exit code 1\n{noise}{missing}", is_error=True) == MISS
    own = "Exit code 1\n/home/dev/bin/check.sh: line 3: jq: command not found\n" + missing
    assert bash(f"/home/dev/bin/check.sh; {command}", own, is_error=True) == {}


def test_ps_grep_that_finds_only_itself_found_nothing() -> None:
    """``ps aux | grep main.py`` lists grep's own process (its command line holds the pattern) and the
    shell running the pipeline: no main.py process was found. A real one is a hit."""
    itself = (
        "dev  4242  0.0  0.0  6612  2304 ?  S  10:01  0:00 /bin/bash -c ps aux | grep main.py\n"
        "dev  4245  0.0  0.0  6480  2176 ?  S  10:01  0:00 grep main.py"
    )
    assert bash("ps aux | grep main.py", itself) == MISS
    running = itself + "\ndev  3001  1.2  0.8 98100 51200 ?  Sl 09:55  0:03 python3 main.py --port 8000"
    assert bash("ps aux | grep main.py", running) == {}
    by_pid = "dev  3001  0.0  0.0  6940 1536 ?  Ss 09:55  0:00 bash -c python3 main.py; pgrep -g 0 >/tmp/p.tmp"
    assert bash("ps aux | grep 3001", by_pid + "\n" + itself.replace("main.py", "3001")) == {}


@pytest.mark.parametrize(
    "command",
    ["rg --files", "rg --files . | head -50", "find . -type f", "find .", "fd"],
)
def test_listing_the_current_directory_names_nothing_so_is_no_search(command: str) -> None:
    """As bare ``ls``: a listing of the current directory that prints nothing (a project not yet
    started) did not look for anything (spec §3.1's searches name a path, a name or a pattern)."""
    assert bash(command, "") == {}


@pytest.mark.parametrize(
    "command",
    [
        "rg --files src",
        "rg --files -g '*.retry.yaml'",
        "find . -name 'retry*.yaml'",
        "find src -type f",
        "fd retry",
        "find . -type f -exec grep -l retry_policy {} +",
    ],
)
def test_a_listing_that_names_a_path_or_a_name_is_a_search(command: str) -> None:
    assert bash(command, "") == MISS


@pytest.mark.parametrize(
    ("removal", "glob", "root"),
    [
        ("git rm -r src/legacy", "src/legacy/**", None),
        ("rm -rf src/legacy", "**/legacy/*.py", None),
        ("mv src/legacy_client.py src/client.py", "**/legacy_client*", None),
        ("rm -rf src/legacy", "**/*.py", "/home/dev/shop/src/legacy"),
    ],
    ids=["a removed directory's files", "a removed directory deeper", "a moved file's name", "the glob's path"],
)
def test_a_glob_for_what_was_removed_confirms_the_removal(removal: str, glob: str, root: str | None) -> None:
    """A Glob targets the files its pattern matches: one for a file the agent deleted or moved, or in a
    directory it removed, that finds nothing confirms the removal (spec §3.1 ``verify_absence``)."""
    t = Transcript()
    t.prompt("remove the legacy client")
    t.skill("http-client")
    t.call("Bash", {"command": removal}, "", detail=bash_detail())
    t.call("Glob", {"pattern": glob, **({"path": root} if root else {})}, "No files found")
    report = report_of(t)
    assert (overall_signals(t), health_of(report, "http-client").verified_absent) == ({}, 1)


@pytest.mark.parametrize(("removal", "glob"), [("rm src/other.py", "**/legacy_client*"), ("rm src/a.py", "**/*.py")])
def test_a_glob_for_something_else_or_any_file_of_a_kind_is_still_a_miss(removal: str, glob: str) -> None:
    t = Transcript()
    t.prompt("remove the legacy client")
    t.skill("http-client")
    t.call("Bash", {"command": removal}, "", detail=bash_detail())
    t.call("Glob", {"pattern": glob}, "No files found")
    assert overall_signals(t) == MISS


@pytest.mark.parametrize(
    ("removal", "command"),
    [
        ("rm -rf src/legacy", "find src/legacy -name '*.py'"),
        ("git mv src/legacy_client.py src/client.py", "find . -name 'legacy_client*'"),
    ],
    ids=["find in a removed directory", "find -name of a moved file"],
)
def test_a_find_for_what_was_removed_confirms_the_removal(removal: str, command: str) -> None:
    t = Transcript()
    t.prompt("remove the legacy client")
    t.skill("http-client")
    t.call("Bash", {"command": removal}, "", detail=bash_detail())
    t.call("Bash", {"command": command}, "", detail=bash_detail())
    assert overall_signals(t) == {}
    other = Transcript()
    other.prompt("remove the legacy client")
    other.skill("http-client")
    other.call("Bash", {"command": "rm src/unrelated.py"}, "", detail=bash_detail())
    other.call("Bash", {"command": command}, "", detail=bash_detail())
    assert overall_signals(other) == MISS


@pytest.mark.parametrize(
    ("command", "signals"),
    [
        ("mkdir -p out/reports && ls out/reports", {}),
        ("mkdir -p out/reports && ls -la out/reports/", {}),
        ("touch notes.md && cat notes.md", {}),
        ("mkdir -p build; [ -d build ] && ls build", {}),
        ("mkdir -p out && ls out/reports", MISS),  # made out, looked in out/reports: not what was made
        ("ls out/reports", MISS),
    ],
    ids=["mkdir then ls", "ls with flags", "touch then cat", "mkdir then test and ls", "another path", "no mkdir"],
)
def test_looking_at_what_the_same_command_just_made_is_not_a_search(command: str, signals: dict[str, int]) -> None:
    """``mkdir -p X && ls X`` finds X empty by design: nothing was looked for that could be missing."""
    assert bash(command, "") == signals


@pytest.mark.parametrize(
    ("command", "output", "signals"),
    [
        ("sed -i '/legacy_retry/d' src/client.py && grep -n legacy_retry src/client.py", "", {}),
        ('for f in *.md; do sed -i \'s/^- ->/- /\' "$f"; done && grep -n "^- ->" *.md; echo "done"', "done", {}),
        ("sed -i 's/RETRIES = 3/RETRIES = 5/' src/client.py && grep -n legacy_retry src/client.py", "", MISS),
    ],
    ids=["sed deletion then grep", "sed substitution in a loop, anchored grep", "removed something else"],
)
def test_a_command_that_removes_and_then_looks_confirms_its_own_edit(
    command: str, output: str, signals: dict[str, int]
) -> None:
    """§3.1 ``verify_absence`` within one command: ``sed -i`` removed the text (a ``/X/d`` deletion or an
    ``s/X/Y/`` substitution whose Y lacks it), and the grep after it wants nothing (an anchor says where,
    not what it looks for)."""
    assert bash(command, output) == signals


@pytest.mark.parametrize(
    ("removal", "search"),
    [
        ("find src -name 'legacy_retry*' -delete", {"pattern": "legacy_retry", "path": "/home/dev/shop/src"}),
        ("find . -name legacy_retry.py -exec rm -f {} +", {"pattern": "legacy_retry", "path": "/home/dev/shop/src"}),
        ("sed -i '/legacy_retry/d' src/client.py && grep -n legacy_retry src/client.py",
         {"pattern": "legacy_retry", "path": "/home/dev/shop/tests"}),
    ],
    ids=["find -delete", "find -exec rm", "a command that removed and looked"],
)  # fmt: skip
def test_a_removal_by_find_or_by_a_command_that_also_looked_makes_a_later_miss_a_check(
    removal: str, search: dict[str, str]
) -> None:
    """§3.1 ``verify_absence``: a ``find`` that deleted the files of a name removed them, as ``rm`` does;
    a command that removed something and then looked for it (itself a check) still removed it, so a later
    search for it confirms the removal too."""
    t = Transcript()
    t.prompt("drop the legacy retry helper")
    t.skill("http-client")
    t.call("Bash", {"command": removal}, "", detail=bash_detail())
    t.call("Grep", search, "No files found")
    report = report_of(t)
    assert (overall_signals(t), health_of(report, "http-client").verified_absent) == ({}, 2 if "grep" in removal else 1)


def test_a_find_that_deleted_other_names_makes_no_later_miss_a_check() -> None:
    t = Transcript()
    t.prompt("drop the legacy retry helper")
    t.skill("http-client")
    t.call("Bash", {"command": "find . -name '*.pyc' -delete"}, "", detail=bash_detail())
    t.call("Grep", {"pattern": "legacy_retry", "path": "/home/dev/shop/src"}, "No files found")
    assert overall_signals(t) == MISS


@pytest.mark.parametrize(
    ("command", "output", "is_error", "signals"),
    [
        ("grep -q retry_budget src/client.py", "", False, {}),  # exit 0: it matched
        ("grep -q retry_budget src/client.py", "Exit code 1", True, MISS),
        ("rg --quiet retry_budget src", "", False, {}),
        ("ls docs/retry.md > /dev/null 2>&1", "", False, {}),
        ("grep -rn retry_budget src > /dev/null", "", False, {}),
        ("grep -rn retry_budget src 2>/dev/null", "", False, MISS),  # only its errors sent away
        ("grep -q retry_budget src/client.py; echo checked", "checked", False, {}),
        ("grep -rn retry_budget src; echo checked", "checked", False, MISS),
    ],
    ids=["grep -q, exit 0", "grep -q, exit 1", "rg --quiet", "ls > /dev/null", "grep > /dev/null", "grep 2>/dev/null",
         "grep -q; echo", "grep; echo"],
)  # fmt: skip
def test_a_search_whose_output_nobody_sees_is_answered_by_its_exit_status(
    command: str, output: str, is_error: bool, signals: dict[str, int]
) -> None:
    """A quiet search (``grep -q``) or one whose output is sent to /dev/null prints nothing whatever it
    found: its silence is no empty answer (§3.1's "the output is empty"); its exit status is the answer, as
    a ``test``'s is (Claude Code marks a non-zero exit an error)."""
    assert bash(command, output, is_error=is_error) == signals


@pytest.mark.parametrize(
    ("command", "output", "signals"),
    [
        ("grep -q retry_budget src/client.py && echo found || echo missing", "found", {}),
        ("grep -q retry_budget src/client.py && echo found || echo missing", "missing", MISS),
        ("ls dist >/dev/null 2>&1 && echo 'dist exists'", "dist exists", {}),
        ("command -v uv >/dev/null 2>&1 && echo has-uv", "has-uv", {}),
        ("if grep -q retry_budget src/client.py; then echo 'uses retry'; fi", "uses retry", {}),
        ("echo '== src =='; grep -rn retry_budget src", "== src ==", MISS),  # a header: the grep printed nothing
    ],
    ids=["&& echo, printed", "|| echo, printed", "ls > /dev/null && echo", "command -v && echo", "then echo",
         "a header"],
)  # fmt: skip
def test_an_echo_that_runs_only_when_the_lookup_found_says_it_found(
    command: str, output: str, signals: dict[str, int]
) -> None:
    """``X && echo found`` prints only when X succeeded, as does the ``then`` branch of ``if X``: its text
    printed is no sign of a miss (the output is neither empty nor a fallback's text, §3.1)."""
    assert bash(command, output) == signals


@pytest.mark.parametrize(
    ("command", "output"),
    [("ls src/*.py | grep retry )", "Exit code 1\nzsh:1: parse error near `)'"),
     ('grep -rn "retry_budget src', 'Exit code 1\n(eval):1: unmatched "'),
     ("grep -rn 'retry_budget src", "Exit code 1\nzsh:1: unmatched '")],
    ids=["zsh's parse error", "zsh's unmatched double quote", "zsh's unmatched single quote"],
)  # fmt: skip
def test_zsh_s_syntax_error_before_a_grep_is_not_a_gap(command: str, output: str) -> None:
    """zsh's words for a typo (macOS's shell; ``(eval)`` in Claude Code): an exit 1 with nothing on stdout
    would otherwise read as grep's "no line matched" (§3.1: a syntax error is not a gap)."""
    assert bash(command, output, is_error=True) == {}


@pytest.mark.parametrize(
    ("command", "output", "signals", "patterns"),
    [
        ("ls *.xcodeproj", "Exit code 1\nzsh:1: no matches found: *.xcodeproj", MISS, ["*.xcodeproj"]),
        ("wc -l Sources/App/*.swift", "Exit code 1\n(eval):1: no matches found: Sources/App/*.swift", MISS,
         ["Sources/App/*.swift"]),
        ("ls docs/*.md && grep -rn retry_budget src", "Exit code 1\nzsh:1: no matches found: docs/*.md", MISS,
         ["docs/*.md"]),
        ("grep -rn retry? src", "Exit code 1\nzsh:1: no matches found: retry?", {}, []),  # a quoting slip
        ("sed -n '1,200p' src/app/(shop)/retry/page.tsx",
         "Exit code 1\nzsh:1: no matches found: src/app/(shop)/retry/page.tsx", {}, []),  # another
    ],
    ids=["ls GLOB", "wc -l GLOB (Claude Code's eval)", "the stage it names", "a glob in a grep pattern",
         "a route group's parentheses"],
)  # fmt: skip
def test_zsh_s_glob_that_matched_nothing(
    command: str, output: str, signals: dict[str, int], patterns: list[str]
) -> None:
    """zsh answers a glob that matched no file with ``no matches found: GLOB`` (bash passes it on, and
    ``ls`` says "No such file or directory"): given to a reader or search as a path, nothing of that name
    is there, a not-found kind of output (§3.1). In a grep's pattern it is an unquoted ``?``: zsh ran
    nothing, a typo."""
    t = one_call("Bash", {"command": command}, output, is_error=True)
    assert (overall_signals(t), [g.evidence["pattern"] for g in gaps_of(report_of(t))]) == (signals, patterns)


def test_a_search_piped_into_an_in_place_edit_acts() -> None:
    """``grep -rl X | xargs sed -i …`` edits the files its search picked (§3.1: the last stage acts)."""
    assert bash("grep -rl old_name src | xargs sed -i 's/old_name/new_name/g'; echo done", "done") == {}


def test_a_sed_deletion_earlier_in_the_segment_makes_the_later_miss_a_check() -> None:
    t = Transcript()
    t.prompt("drop the legacy retry helper")
    t.skill("http-client")
    t.call("Bash", {"command": "sed -i '/legacy_retry/d' src/client.py"}, "(Bash completed with no output)")
    t.call("Grep", {"pattern": "legacy_retry", "path": "/home/dev/shop/src"}, "No files found")
    assert overall_signals(t) == {}


@pytest.mark.parametrize(
    ("command", "signals"),
    [
        ('npx tsc --noEmit 2>&1 | grep -E "agents|route.ts"', {}),
        ("mix dialyzer | grep ^lib/", {}),
        ("npm test 2>&1 | grep FAIL", {}),
        ("npm run lint | grep -i error", {}),
        ("python -m pytest -q | grep -E 'failed|error'", {}),
        ("cargo build 2>&1 | grep warning", {}),
        ("npm ls | grep react-router", MISS),  # npm ls lists what is installed: a lookup
        ("ps aux | grep litellm", MISS),
        ("npm run check:types 2>&1 | grep -E 'Seat|Segment'", {}),  # a namespaced script of a checking kind
        ("yarn test:unit | grep FAIL", {}),
        ("npm run dev:server | grep -i listening", MISS),  # a server is no build, test or check
        ('zsh -l -c "source ~/.zprofile && npm run check:types 2>&1" | grep -E "Seat|Segment" | head -30', {}),
        ("bash -lc 'cargo build 2>&1' | grep warning | grep -v unused", {}),
        ('bash -lc "cat notes/retry.md" | grep RetryBudget', MISS),  # a carried reader's text is looked in
    ],
    ids=[
        "tsc",
        "mix dialyzer",
        "npm test",
        "npm run lint",
        "pytest",
        "cargo build",
        "npm ls",
        "ps",
        "check:types",
        "test:unit",
        "dev:server",
        "a carried checker piped to grep",
        "a carried build, two greps",
        "a carried reader",
    ],
)
def test_a_grep_of_a_build_or_test_run_is_a_check_not_a_search(command: str, signals: dict[str, int]) -> None:
    """A build, test run, type-check or lint piped to grep: an empty answer says the run was clean (spec
    §8.8 names ``mix dialyzer | grep ^lib/`` as a false miss), not that something looked for is missing."""
    assert bash(command, "") == signals


@pytest.mark.parametrize(
    ("command", "signals"),
    [
        ("ps aux | grep litellm | grep -v grep", MISS),  # drops its own grep line: still looks for litellm
        ('ps aux | grep -i litellm | grep -v "grep"', MISS),
        ("curl -s localhost:8080/status | grep -v 200", {}),  # only filters out: nothing left is no miss
        ('find . -name "*.cfg" | grep -v test', {}),
        ("grep -v '^#' config/settings.ini | grep -i timeout", MISS),  # comments dropped, then a search
        ("grep -rn RetryBudget src | grep -v _test", {}),  # the last search filters: what is left, not X
        ("git grep -n RetryBudget | grep -v vendor/", {}),
        ('grep -n GET logs/app.log | grep -v " 200"', {}),  # "nothing left that is not 200"
        ("ps aux | grep -v grep | grep litellm", MISS),
        ("cat access.log | grep -v ' 200 ' | grep -v ' 304 '", {}),  # filters only
        ("rg --files src | rg -v '[.]py$'", {}),  # a listing filtered: rg --files looks for no text
        ("rg --files -g '*retry*' | rg -v test", {}),  # a name search, then a filter: what is left
    ],
    ids=[
        "grep -v grep",
        "quoted",
        "grep -v 200",
        "find | grep -v",
        "a filter, then a search",
        "a search, then a filter",
        "git grep, then a filter",
        "GET lines not 200",
        "grep -v grep first",
        "two filters",
        "rg --files, then a filter",
        "rg --files -g, then a filter",
    ],
)
def test_an_exclusion_of_the_pipelines_own_grep_does_not_end_the_search(command: str, signals: dict[str, int]) -> None:
    """Spec §3.1: not a search when "the search stage only filters out" ("nothing left that is not 200"): a
    pipeline whose last search filters out asks what is left; a search after a filter looks for its text
    (``grep -v '^#' f | grep X`` looks for X)."""
    assert bash(command, "") == signals


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("Get-ChildItem -Path C:\\shop -Recurse -Filter 'retry*.yaml'", "retry*.yaml"),
        ("Get-ChildItem C:\\shop -Recurse -Include *.retry,*.yaml", "*.retry,*.yaml"),
        ("gci C:\\shop retry.yaml -Recurse", "retry.yaml"),
        ("Get-ChildItem C:\\shop\\retry -Recurse", "C:/shop/retry"),
    ],
    ids=["-Filter", "-Include", "positional filter", "no filter: the path"],
)
def test_a_listing_with_a_name_filter_looked_for_the_name(command: str, pattern: str) -> None:
    """Spec §6: ``Get-ChildItem -Filter``/``-Include`` is find's ``-name``: its pattern is the name
    looked for; without one, the path listed."""
    report = report_of(one_call("PowerShell", {"command": command}, "(PowerShell completed with no output)"))
    (gap,) = gaps_of(report)
    assert gap.evidence["pattern"] == pattern


@pytest.mark.parametrize(
    ("command", "output", "missed"),
    [
        ('python3 -c "import yaml" 2>/dev/null || echo "no yaml"', "no yaml", True),
        ('python3 -c "import yaml; print(yaml.__version__)"', "ModuleNotFoundError: No module named 'yaml'", True),
        ("""python3 -c "import json; d = json.load(open('retry.json')); print(d['max'])" 2>/dev/null || echo none""",
         "none", False),
        ('node -e "console.log(require.resolve(\'retry-axios\'))"', "Error: Cannot find module 'retry-axios'", True),
        ('node -e "const fs = require(\'fs\'); fs.writeFileSync(\'x\', \'1\')" || echo failed', "failed", False),
        ("""python3 -c "import json; print(json.load(open('retry.json'))['max'])" 2>/dev/null || echo none""",
         "none", False),
        ("""python3 -c "import sys; sys.path.insert(0, 'src'); import retry_client" """,
         "ModuleNotFoundError: No module named 'retry_client'", True),
        ("""node -e "const { Document } = require('docx')" """, "Error: Cannot find module 'docx'", True),
        ("""python3 -c "import retry_client; print('ok;done')" 2>/dev/null || echo gone""", "gone", True),
        ("""python3 -c "import yaml; d = yaml.safe_load(open('c.yml'))" """, "No module named 'yaml'", False),
        ("""python3 -c "from app.build import run; print(run())" || echo 'build failed'""", "build failed", False),
        ("""python3 -c "import sys; from app.cli import main; sys.exit(main())" """,
         "ModuleNotFoundError: No module named 'app'", False),
    ],
    ids=["import probe, fallback", "import probe, its error", "a script at work", "require probe", "a node script",
         "print of a load", "sys.path then import", "destructuring require", "a ; in a string",
         "a script at work failing on a module: a program run", "a print of a run", "an exit of a run"],
)  # fmt: skip
def test_a_module_probe_only_imports(command: str, output: str, missed: bool) -> None:
    """``python -c "import X"`` is a module probe (spec §3.1); a script that works on something (opens a
    file, assigns, writes) is a program run whatever it imports, and its failure is no missing module."""
    assert bash(command, output) == (MISS if missed else {})


@pytest.mark.parametrize(
    ("command", "output", "missed"),
    [
        ("test -f config/retry.yaml && echo found || echo missing", "missing", True),
        ("grep -q retry_budget src/client.py && echo yes || echo no", "no", True),
        ("ls docs; python3 tools/build.py || echo 'build failed'", "index.md\nbuild failed", False),
        ("ls docs\nmake docs || echo 'build failed'", "index.md\nbuild failed", False),
        ("node --version && npm test || echo 'tests failed'", "v20.1.0\ntests failed", False),
        ("pip show httpx && python3 app.py || echo 'run failed'", "Name: httpx\nrun failed", False),
        ('{ cat a.txt; cat b.txt; } 2>/dev/null || echo "MISSING"', "aaa\nMISSING", True),
        ('for f in a.yaml b.yaml; do cat "$f"; done 2>/dev/null || echo "NOT FOUND"', "a: 1\nNOT FOUND", True),
        ("( cat a.txt; cat b.txt ) 2>/dev/null || echo gone", "aaa\ngone", True),
        ('if [ -d build ]; then cd build || echo "cd failed"; fi', "cd failed", False),
        ('{ pip show httpx >/dev/null; cd /srv/app || echo "no app dir"; }', "no app dir", False),
        ("( ls docs ); cd build || echo nobuild", "index.md\nnobuild", False),
        ("bash -lc 'node --version && npm test' || echo 'tests failed'", "v20.1.0\ntests failed", False),
        ("bash -lc 'ls deploy/policy.yaml' || echo 'none'", "none", True),
    ],
    ids=["test && echo || echo", "grep -q && echo || echo", "after ;", "after a new line", "a build after a probe",
         "a run after a probe", "a brace group", "a loop", "a subshell", "a fallback inside a branch",
         "a fallback inside a group", "after a one-part subshell", "a run carried after a probe",
         "a carried lookup"],
)  # fmt: skip
def test_a_fallback_covers_the_list_it_ends(command: str, output: str, missed: bool) -> None:
    """``A && B || echo X`` prints X when A or B failed: a search in A missed. After ``;`` or a new line a
    new list starts: ``ls docs; python3 build.py || echo X`` prints X when the build failed, not the ls."""
    assert bash(command, output) == (MISS if missed else {})


@pytest.mark.parametrize(
    ("tool", "command", "output", "is_error", "signals", "patterns"),
    [
        ("Bash", "find . -name retry_policy.py && echo done", "done", False, MISS, ["retry_policy.py"]),
        ("Bash", "grep -rn retry_policy src | head -5 && echo found", "found", False, MISS, ["retry_policy"]),
        ("Bash", "[ -d docs ] && echo '== docs' && find docs -name '*retry*'", "== docs", False, MISS,
         ["*retry*"]),  # the echo after the test printed: docs was there, find missed
        ("Bash", "if ! grep -q retry_policy src/app.py; then echo 'not found'; fi", "not found", False, MISS,
         ["retry_policy"]),
        ("Bash", "find src -iname '*retry*' -exec sed -n '1,20p' {} \\;", "", False, MISS, ["*retry*"]),
        ("Bash", "rm -f *.pyc; grep -rn retry_policy src", "Exit code 1\n(eval):1: no matches found: *.pyc", True,
         MISS, ["retry_policy"]),
        ("Bash", "ls ~/Library/LaunchAgents/*.plist",
         "Exit code 1\nzsh:1: no matches found: /home/dev/Library/LaunchAgents/*.plist", True, MISS,
         ["~/Library/LaunchAgents/*.plist"]),
        ("Bash", "grep -rn -e retry? src", "Exit code 1\nzsh:1: no matches found: retry?", True, {}, []),
        ("Bash", "find src -name *retry*.py", "Exit code 1\nzsh:1: no matches found: *retry*.py", True, {}, []),
        ("PowerShell", "Get-Content config/app.json -ErrorAction SilentlyContinue | Select-String retry", "", False,
         MISS, ["config/app.json | retry"]),
        ("PowerShell", "Select-String -Path src/app.py -Pattern retry_policy | Out-Null", "", False, {}, []),
        ("PowerShell", "Get-ChildItem .\\logs\\*.log | ForEach-Object { del $_ }", "", False, {}, []),
        ("Bash", "find . \\( -path ./node_modules -o -path ./.git \\) -prune -o -name retry_policy.py -print", "",
         False, MISS, ["retry_policy.py"]),
        ("Bash", "uv pip install showdown || echo 'install failed'", "install failed", False, {}, []),
        ("Bash", "cd /proj && grep -rn retry? src", "Exit code 1\n(eval):1: no matches found: retry?", True, {}, []),
        ("Bash", "rm -f *.pyc && grep -rn retry_policy src", "Exit code 1\nzsh:1: no matches found: *.pyc", True,
         {}, []),
        ("Bash", "grep -rln TODO lib | xargs perl -Ilib -ne 'print if /FIXME/'", "", False, MISS, ["TODO"]),
        ("Bash", "[ ! -f docs/retry.md ] && echo 'no retry doc'", "no retry doc", False, MISS, ["docs/retry.md"]),
        ("PowerShell", "Get-Content docs/x.md -ErrorAction:SilentlyContinue | Select-String retry", "", False, MISS,
         ["docs/x.md | retry"]),
    ],
    ids=["find && echo (find succeeds finding none)", "| head && echo", "an echo of an earlier test",
         "if ! grep -q; then echo", "find -iname -exec sed -n", "another program's unmatched glob",
         "zsh's expanded home", "a glob in grep -e's pattern", "a glob in find -name",
         "-ErrorAction hides a reader's error",
         "| Out-Null", "ForEach-Object { del }", "find's pruned group", "uv pip install is no pip show",
         "a slip after cd", "another program's glob before &&", "perl -Ilib is no -i", "a negated test",
         "-ErrorAction:SilentlyContinue"],
)  # fmt: skip
def test_the_review_of_the_silence_and_echo_rules(
    tool: str, command: str, output: str, is_error: bool, signals: dict[str, int], patterns: list[str]
) -> None:
    """Each case a reviewer found: an echo after ``&&`` says its lookup found only when that lookup's exit
    status says so (a grep, a test, a reader of a path; not ``find``, not a pipeline ending in ``head``) and
    it is the last lookup and not negated; zsh's unmatched glob of another program says nothing of a lookup,
    and zsh writes the home expanded; the other forms as their programs read them."""
    t = one_call(tool, {"command": command}, output, is_error=is_error)
    assert (overall_signals(t), [g.evidence["pattern"] for g in gaps_of(report_of(t))]) == (signals, patterns)


PATCH_DELETING = """git apply <<'EOF'
diff --git a/src/legacy/shim.ts b/src/legacy/shim.ts
deleted file mode 100644
--- a/src/legacy/shim.ts
+++ /dev/null
@@ -1 +0,0 @@
-export const shim = { version: 1 };
EOF"""
PATCH_EDITING = """git apply <<'EOF'
--- a/src/net/fetch.ts
+++ b/src/net/fetch.ts
@@ -7,3 +7,2 @@
   for (let i = 0; i < retryCount; i++) {
-    debugLog('attempt', i);
     try {
EOF"""


@pytest.mark.parametrize(
    ("removal", "search", "signals"),
    [
        ("rm src/legacy/auth.ts", ("Bash", {"command": "grep -n legacyInit src/legacy/auth.ts"},
                                   "grep: src/legacy/auth.ts: No such file or directory"), {}),
        ("git mv src/utils/dateFmt.ts src/lib/dateFormat.ts",
         ("Read", {"file_path": "/home/dev/shop/src/lib/dateFmt.ts"}, "File does not exist."), MISS),
        ("git mv src/utils/dateFmt.ts src/lib/dateFormat.ts",
         ("Read", {"file_path": "/home/dev/shop/src/utils/dateFmt.ts"}, "File does not exist."), {}),
        ("rm src/legacy/shim.ts", ("Bash", {"command": "ls src/legcy/shim.ts"},
                                   "ls: cannot access 'src/legcy/shim.ts': No such file or directory"), MISS),
        ("rm -r src/legacy", ("Bash", {"command": "cat /home/dev/shop/src/legacy/shim.ts"},
                              "cat: /home/dev/shop/src/legacy/shim.ts: No such file or directory"), {}),
        (PATCH_DELETING, ("Read", {"file_path": "/home/dev/shop/src/legacy/shim.ts"}, "File does not exist."), {}),
        (PATCH_EDITING, ("Bash", {"command": "grep -rn debugLog src"}, ""), {}),
        ("sed -i '/legacyInit(/d' src/boot.ts", ("Grep", {"pattern": "legacyInit\\("}, "No files found"), {}),
    ],
    ids=[
        "grep in the deleted file",
        "a Read of another path of the moved file's name",
        "a Read of the moved file",
        "ls of a mistyped path",
        "a file in a deleted directory",
        "a file a git apply deleted",
        "text a git apply removed",
        "a removed call, its parenthesis escaped",
    ],
)  # fmt: skip
def test_what_a_removal_check_looked_at_is_the_removed_file(
    removal: str, search: tuple[str, dict[str, str], str], signals: dict[str, int]
) -> None:
    """Spec §3.1 ``verify_absence``: "the agent deleted or moved a file the search targets". A path looked at
    (a Read, ``ls``, ``cat``, a grep's file) is that file, not any file of its name: a Read of
    ``src/lib/dateFmt.ts`` after moving ``src/utils/dateFmt.ts`` looked for another file. A patch applied by
    ``git apply`` removes what an edit does. An escaped punctuation mark is a literal (``legacyInit\\(``)."""
    t = Transcript()
    t.prompt("retire the legacy layer")
    t.skill("http-client")
    t.bash(removal, "")
    tool, tool_input, output = search
    if tool == "Bash":
        t.bash_error(tool_input["command"], output, 2 if output else 1)
    else:
        t.call(tool, tool_input, output, is_error=tool == "Read")
    assert overall_signals(t) == signals


@pytest.mark.parametrize(
    ("removal", "command", "output", "signals"),
    [
        ("rm packages/legacy/package.json", "grep -n lodash package.json", "", MISS),  # another package.json
        ("git rm -r legacy/tests", "grep -rn retry_on_503 tests/", "", MISS),
        ("rm app.ts", "grep -n retry_on_503 src/app.ts", "", MISS),
        ("rm src/legacy/shim.ts", "cat src/legacy/shim.ts | grep -n legacyInit",
         "cat: src/legacy/shim.ts: No such file or directory", {}),
        ("rm -r src/legacy", "ls src/legacy | grep shim", "ls: cannot access 'src/legacy': No such file or directory",
         {}),
        ("rm ~/.config/shop/cache.json", "cat /home/dev/.config/shop/cache.json",
         "cat: /home/dev/.config/shop/cache.json: No such file or directory", {}),
        ("rm $HOME/.config/shop/cache.json", "ls ~/.config/shop/cache.json",
         "ls: cannot access '/home/dev/.config/shop/cache.json': No such file or directory", {}),
        (PATCH_EDITING.replace("git apply", "git apply --check"), "grep -rn debugLog src", "", MISS),
        (PATCH_EDITING.replace("git apply", "cat > fix.patch"), "grep -rn debugLog src", "", MISS),
        (PATCH_EDITING.replace("git apply", "git apply -R"), "grep -rn debugLog src", "", MISS),
    ],
    ids=[
        "a package.json elsewhere removed",
        "a tests folder elsewhere removed",
        "a file of that name elsewhere removed",
        "the removed file read into a grep",
        "the removed folder listed into a grep",
        "home written two ways (Read side)",
        "home written two ways (ls side)",
        "a patch only checked",
        "a patch only written to a file",
        "a patch applied backwards",
    ],
)  # fmt: skip
def test_a_removal_confirms_only_what_it_removed(
    removal: str, command: str, output: str, signals: dict[str, int]
) -> None:
    """§3.1 ``verify_absence``: "the agent deleted or moved a file the search targets". Two relative paths are
    the same file only as written (``package.json`` is not ``packages/legacy/package.json``); the home
    directory is one however written; a patch removes text only when a command applies it forwards."""
    t = Transcript()
    t.prompt("retire the legacy layer")
    t.skill("http-client")
    t.bash(removal, "")
    t.bash_error(command, output, 2 if output else 1)
    assert overall_signals(t) == signals
