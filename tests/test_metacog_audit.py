"""Spec §8 clauses a second audit found departed from the spec's words: each on a hand-made transcript.

Expected outcomes are worked out by hand from the spec's words and the records each test writes,
never by running omkd.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from omkd.engine.metacog.view import episode_of
from omkd.engine.metacog.writes import shell_write
from tests import claude_lines as cl
from tests.agent_lines import GeminiChat, Rollout, tool_call
from tests.live_helpers import omkd
from tests.metacog_helpers import episodes, only, read_miss, tallies

pytestmark = pytest.mark.engine
ROOT = cl.CWD
CODEX = "rollout-2026-04-08T13-27-20-019d6d46.jsonl"
GEMINI = "chats/session-2026-04-08T13-27-55b29702.jsonl"


# --- §8.3.3: a failed write counts, and its result is kept as `failed` -------------------------------


def _claude(call: dict[str, Any], answer: str, is_error: bool) -> bytes:
    return cl.jsonl(
        [
            cl.user("please fix the build"),
            *read_miss("r1", f"{ROOT}/config/settings.yaml", "m1"),
            cl.tool_use("w1", call["tool"], call["input"], "m2"),
            cl.tool_result("w1", answer, is_error=is_error),
        ]
    )


EDIT = {"tool": "Edit", "input": {"file_path": f"{ROOT}/src/app.py", "old_string": "a = 1", "new_string": "a = 2"}}
COPY = {"tool": "Bash", "input": {"command": "cp config/base.yaml config/app.yaml"}}  # not the missed settings.yaml


@pytest.mark.parametrize(
    ("call", "answer"),
    [
        (EDIT, "<tool_use_error>String to replace not found in file.\nString: a = 1</tool_use_error>"),
        (COPY, "Exit code 1\ncp: cannot stat 'config/base.yaml': No such file or directory"),
    ],
    ids=["edit-not-found", "shell-exit-1"],
)
def test_a_failed_claude_write_still_proceeds_and_is_kept_as_failed(call: dict[str, Any], answer: str) -> None:
    data = _claude(call, answer, is_error=True)
    episode = only(episodes(data))
    assert (episode.outcome, episode.failed, episode.rejected) == ("proceeded", True, False)
    assert tallies(data)["writing_segments"] == 1


def test_a_failed_copy_to_the_missed_file_still_creates_it_and_is_kept_as_failed() -> None:
    """§8.3.3: a write counts whatever came of it; ``cp`` to the missed ``settings.yaml`` is what the miss
    looked for (§8.5.2: the created path's last component is the missed file's name)."""
    copy = {"tool": "Bash", "input": {"command": "cp config/base.yaml config/settings.yaml"}}
    episode = only(episodes(_claude(copy, "Exit code 1\ncp: cannot stat 'config/base.yaml': No such file", True)))
    assert (episode.outcome, episode.failed, episode.rejected) == ("created", True, False)


def test_a_write_that_succeeded_is_not_failed() -> None:
    data = _claude(EDIT, f"The file {ROOT}/src/app.py has been updated.", is_error=False)
    assert (only(episodes(data)).outcome, only(episodes(data)).failed) == ("proceeded", False)


def test_a_rejected_write_is_rejected_not_failed() -> None:
    answer = "The user doesn't want to proceed with this tool use. The tool use was rejected."
    episode = only(episodes(_claude(EDIT, answer, is_error=True)))
    assert (episode.outcome, episode.rejected, episode.failed) == ("proceeded", True, False)


def test_a_codex_commit_and_patch_that_failed_are_kept_as_failed() -> None:
    rollout = Rollout()
    rollout.prompt("ship it")
    rollout.exec("cat config/deploy.yaml", "cat: config/deploy.yaml: No such file or directory", code=1)
    rollout.exec("git commit -am 'wip'", "error: pathspec 'wip' did not match", code=1)
    episode = only(episodes(rollout.data(), CODEX))
    assert (episode.outcome, episode.failed) == ("proceeded", True)
    patched = Rollout()
    patched.prompt("ship it")
    patched.exec("cat config/deploy.yaml", "cat: config/deploy.yaml: No such file or directory", code=1)
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a = 1\n+a = 2\n*** End Patch"
    call_id = patched.call("apply_patch", {"input": patch})
    patched.output(call_id, '{"output":"Failed to find expected lines in src/app.py","metadata":{"exit_code":1}}')
    episode = only(episodes(patched.data(), CODEX))
    assert (episode.outcome, episode.failed) == ("proceeded", True)


def test_a_gemini_replace_that_failed_is_kept_as_failed() -> None:
    chat = GeminiChat()
    chat.prompt("fix it")
    path = "/home/dev/shop/config/settings.yaml"
    chat.reply(calls=[tool_call("read_file", {"file_path": path}, error=f"File not found: {path}")])
    replace = {"file_path": "/home/dev/shop/src/app.py", "old_string": "a = 1", "new_string": "a = 2"}
    chat.reply(calls=[tool_call("replace", replace, error="Failed to edit, 0 occurrences found for old_string")])
    episode = only(episodes(chat.data(), GEMINI))
    assert (episode.outcome, episode.failed) == ("proceeded", True)


def test_explain_keeps_failed_on_the_episode_and_the_write(tmp_path: Path) -> None:
    from omkd.shell.explain import explain
    from omkd.shell.scan import Source

    path = tmp_path / "session.jsonl"
    path.write_bytes(_claude(COPY, "Exit code 1\ncp: cannot stat 'config/base.yaml'", is_error=True))
    found, _, _ = explain([Source(path, "session.jsonl")])
    [write] = found.writes
    [episode] = [e for e in found.episodes if e.anchor == "failed_search"]
    assert (write.failed, write.rejected, episode.failed) == (True, False, True)
    assert found.model_dump()["writes"][0]["failed"] is True
    shown = " ".join(omkd("explain", path).stdout.split())
    assert "[failed]" in shown
    assert "[rejected]" not in shown


def test_an_episode_saved_before_failed_was_kept_reads_back_as_not_failed() -> None:
    """A summary's episode saved by position by an omkd without ``failed`` (one field shorter)."""
    saved: list[Any] = ["failed_search", 4, 5, "t1", ["settings.yaml"], True, "", "proceeded", 9, "Edit x"]
    saved += [False, False, True, 12, "turn"]
    episode = episode_of(saved)
    assert (episode.rejected, episode.failed, episode.window_ended_by) == (True, False, "turn")


# --- §8.3.4: created paths of New-Item/Set-Content/Out-File are operands, not parameters' values -----


@pytest.mark.parametrize(
    ("command", "created"),
    [
        ("New-Item -ItemType File -Path x.txt", ("x.txt",)),
        ("New-Item -Path x.txt -ItemType File -Force", ("x.txt",)),
        ("new-item -itemtype directory -path src/new", ("src/new",)),
        ("New-Item -Type File x.txt", ("x.txt",)),
        ("New-Item -Path src -Name x.txt -ItemType File -Value 'hello'", ("src/x.txt",)),
        ("Set-Content -Path a.txt -Value hi", ("a.txt",)),
        ("Set-Content -Value hi -Path a.txt -Encoding utf8", ("a.txt",)),
        ("Set-Content a.txt hi", ("a.txt",)),
        ("Set-Content -LiteralPath a.txt -Value hi -NoNewline", ("a.txt",)),
        ("Set-Content -Path:a.txt -Value:hi -Force:$true", ("a.txt",)),
        ("Get-Date | Out-File -FilePath log.txt -Encoding utf8 -Append", ("log.txt",)),
        ("Get-Date | Out-File log.txt utf8", ("log.txt",)),
        ("Get-Date | Out-File -Width 200 -Path log.txt", ("log.txt",)),
        ("Set-Content -Path a.txt -Value hi -ErrorAction Stop", ("a.txt",)),
    ],
)
def test_powershell_parameter_values_are_not_created_paths(command: str, created: tuple[str, ...]) -> None:
    found = shell_write(command)
    assert found is not None
    assert (found.kind, found.created, found.paths) == ("shell_write", created, created)


@pytest.mark.parametrize(
    ("command", "paths", "created"),
    [
        ("Copy-Item -Destination dist/app.js -Path src/app.js -Force", ("dist/app.js",), ("dist/app.js",)),
        ("Copy-Item src/app.js dist/app.js -Recurse", ("dist/app.js",), ("dist/app.js",)),
        ("Remove-Item -Path build -Recurse -Force -ErrorAction SilentlyContinue", ("build",), ()),
        ("Remove-Item -Path build -Include *.log", ("build",), ()),
    ],
)
def test_other_powershell_writers_bind_their_parameters(
    command: str, paths: tuple[str, ...], created: tuple[str, ...]
) -> None:
    found = shell_write(command)
    assert found is not None
    assert (found.paths, found.created) == (paths, created)


# --- §8.3 `dependency`: `pip install` run as a module is the same program ----------------------------


@pytest.mark.parametrize(
    "command",
    [
        "pip install requests",
        "python -m pip install requests",
        "python3 -m pip install requests",
        "py -m pip install requests",
        "py -3.12 -m pip install requests",
        ".venv/bin/python -m pip install -U requests",
        "python3.11 -m pip install --user requests",
        "uv pip install requests",
    ],
)
def test_pip_install_as_a_module_is_a_dependency_write(command: str) -> None:
    found = shell_write(command)
    assert found is not None
    assert (found.kind, found.packages) == ("dependency", ("requests",))


@pytest.mark.parametrize("command", ["python -m pip show requests", "python3 -m pip list", "python -m pytest -x"])
def test_python_m_pip_reading_is_no_write(command: str) -> None:
    assert shell_write(command) is None


# --- §8.2.1: an escaped punctuation character is that character (`spotter\.css`) --------------------


@pytest.mark.parametrize(
    ("pattern", "token"),
    [
        (r"spotter\.css", "spotter.css"),
        (r"btn\-expand", "btn-expand"),
        (r"\bgenerate_session\.html\b", "generate_session.html"),
        (r"assets\/spotter\.css", "spotter.css"),
    ],
)
def test_an_escaped_punctuation_character_keeps_a_dotted_name_whole(pattern: str, token: str) -> None:
    from omkd.engine.events import ToolCall
    from omkd.engine.metacog.targets import shell_target, target_of

    grep = target_of(ToolCall(None, "m1", "g1", "Grep", {"pattern": pattern}, None, None))
    shell = shell_target(f"rg '{pattern}' priv")
    for found in (grep, shell):
        assert token in found.tokens
        assert token in found.strong


@pytest.mark.parametrize(("pattern", "tokens"), [(r"\bfoo_bar\s*=", ("foo_bar",)), (r"\w+Settings\d", ("Settings",))])
def test_letter_escapes_are_still_removed(pattern: str, tokens: tuple[str, ...]) -> None:
    from omkd.engine.metacog.targets import shell_target

    assert shell_target(f"rg '{pattern}' src").tokens == tokens


def test_a_grep_of_an_escaped_dotted_name_is_recovered_by_a_read_of_it() -> None:
    data = cl.jsonl(
        [
            cl.user("fix the styles"),
            cl.tool_use("g1", "Grep", {"pattern": r"spotter\.css", "path": f"{ROOT}/lib"}, "m1"),
            cl.tool_result("g1", "No files found"),
            cl.tool_use("r1", "Read", {"file_path": f"{ROOT}/priv/static/assets/spotter.css"}, "m2"),
            cl.tool_result("r1", "     1\tbody { margin: 0 }"),
        ]
    )
    assert only(episodes(data)).outcome == "recovered"


# --- §8.2.1: file targets of `head`/`tail` and of a `.\` path ------------------------------------------


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("tail -n +5 logs/app.log", ("logs/app.log",)),
        ("head -c 100 logs/app.log", ("logs/app.log",)),
        ("head -c 1K logs/app.log", ("logs/app.log",)),
        ("tail --lines +20 logs/app.log", ("logs/app.log",)),
        ("Test-Path .\\notes.md", ("notes.md",)),
        ("Get-Content .\\docs\\notes.md", ("docs\\notes.md",)),
        ("cat ./notes.md", ("notes.md",)),
    ],
)
def test_a_file_probe_s_targets_are_its_operands_normalised(command: str, paths: tuple[str, ...]) -> None:
    from omkd.engine.metacog.targets import shell_target

    assert shell_target(command).paths == paths


def test_a_dot_backslash_path_is_the_same_target_as_its_plain_form() -> None:
    from omkd.engine.metacog.targets import same_target, shell_target

    assert same_target(shell_target("Test-Path .\\abc"), shell_target("cat abc"))  # a last component < 4
