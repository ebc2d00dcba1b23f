"""Spec §8 clauses found departing in the conformance audit, each on a small hand-made transcript.

Expected outcomes are worked out by hand from the spec's words and the records each test writes,
never by running omkd.
"""

from __future__ import annotations

from typing import Any

import pytest

from omkd.engine.events import ToolCall
from omkd.engine.metacog.outcomes import is_lookup
from omkd.engine.metacog.targets import normal_path, target_of
from omkd.engine.metacog.writes import shell_write
from tests import claude_lines as cl
from tests.agent_lines import GeminiChat, tool_call
from tests.metacog_helpers import bash, episodes, glob_miss, only, run, write

pytestmark = pytest.mark.engine
ROOT = cl.CWD
GEMINI = "chats/session-2026-04-08T13-27-55b29702.jsonl"


def _call(tool: str, tool_input: dict[str, Any]) -> ToolCall:
    return ToolCall(None, "m1", "c1", tool, tool_input, None, None)


def _glob_in(call_id: str, pattern: str, path: str, message: str, found: str | None = None) -> list[dict[str, Any]]:
    result = (
        cl.tool_result(call_id, found, cl.glob_hit(found))
        if found
        else cl.tool_result(call_id, "No files found", cl.GLOB_EMPTY)
    )
    return [cl.tool_use(call_id, "Glob", {"pattern": pattern, "path": path}, message), result]


# --- §8.2.1: a Glob's `path`, when it is not the cwd, is a directory target ------------------------


def test_a_glob_in_the_cwd_has_no_directory_target_so_a_write_there_proceeds() -> None:
    data = run(_glob_in("t1", "**/deploy.toml", ROOT, "m1"), write("w1", f"{ROOT}/src/app.py", "m2"))
    episode = only(episodes(data))
    assert (episode.eligible, episode.outcome) == (True, "proceeded")


@pytest.mark.parametrize("path", [".", "./"])
def test_a_glob_in_dot_is_a_glob_in_the_cwd(path: str) -> None:
    data = run(_glob_in("t1", "**/deploy.toml", path, "m1"), _glob_in("t2", "*.py", ".", "m2", found=f"{ROOT}/app.py"))
    assert only(episodes(data)).outcome == "dropped"


def test_a_glob_in_the_cwd_is_not_recovered_by_another_glob_there() -> None:
    data = run(
        _glob_in("t1", "**/deploy.toml", ROOT, "m1"),
        _glob_in("t2", "**/*.py", ROOT, "m2", found=f"{ROOT}/src/app.py"),
    )
    assert only(episodes(data)).outcome == "dropped"


def test_a_glob_in_another_directory_keeps_it_as_a_target() -> None:
    data = run(_glob_in("t1", "**/deploy.toml", f"{ROOT}/ops", "m1"), write("w1", f"{ROOT}/ops/app.toml", "m2"))
    assert only(episodes(data)).outcome == "created"


# --- §8.1.2: a dotfile's name is a literal, not an extension ----------------------------------------


@pytest.mark.parametrize("pattern", ["**/.bashrc", "**/.npmrc", "**/.env", "**/.env*", ".zshrc"])
def test_a_glob_for_a_dotfile_is_specific(pattern: str) -> None:
    assert target_of(_call("Glob", {"pattern": pattern})).specific is True


@pytest.mark.parametrize("pattern", ["**/*.json", "**/*.ts", "*", ".*", "**/*", "**/*.yaml"])
def test_an_extension_after_a_wildcard_is_still_no_literal(pattern: str) -> None:
    assert target_of(_call("Glob", {"pattern": pattern})).specific is False


def test_find_name_of_a_dotfile_is_specific() -> None:
    assert target_of(_call("Bash", {"command": "find ~ -maxdepth 2 -name .bashrc"})).specific is True


# --- §8.3.2: a copy writes only its destination -------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    ["cp src/app.py /tmp/app.py.bak", "cp -r ./src /tmp/src-copy", "install -m 644 lib/x.so /tmp/x.so"],
)
def test_a_copy_into_scratch_space_is_a_scratch_write(command: str) -> None:
    found = shell_write(command)
    assert found is not None
    assert found.scratch is True


def test_a_copy_out_of_scratch_space_is_a_project_write() -> None:
    found = shell_write("cp /tmp/app.py src/app.py")
    assert found is not None
    assert (found.scratch, found.created) == (False, ("src/app.py",))


def test_a_miss_then_a_backup_copy_to_tmp_is_dropped() -> None:
    data = run(glob_miss("t1", "**/deploy.toml", "m1"), bash("b1", "cp app.py /tmp/app.py.bak", "", "m2"))
    assert only(episodes(data)).outcome == "dropped"


def test_dd_writes_its_output_file() -> None:
    found = shell_write("dd if=/dev/zero of=/tmp/blank.img bs=1M count=1")
    assert found is not None
    assert (found.paths, found.scratch) == (("/tmp/blank.img",), True)


# --- §8.2.4: `git log|show|diff…` is a lookup with git's global options too ---------------------------


@pytest.mark.parametrize("command", ["git --no-pager log -3", "git -C ../lib show HEAD", "git --no-pager diff"])
def test_git_read_subcommands_after_global_options_are_lookups(command: str) -> None:
    assert is_lookup(_call("Bash", {"command": command})) is True


@pytest.mark.parametrize(
    "command",
    [
        "Get-Command vswhere.exe", "Select-String -Path app.log -Pattern timeout", "Get-Item .env",
        "realpath ../lib", "test -f mix.exs && echo yes", "where.exe node", "mdfind -name Ghostty.app",
    ],
)  # fmt: skip
def test_the_searches_and_readers_of_3_1_are_lookups(command: str) -> None:
    """§8.2.4: a command every program of which reads: §3.1's searches and readers do, PowerShell's too."""
    assert is_lookup(_call("PowerShell", {"command": command})) is True


@pytest.mark.parametrize("command", ["git --no-pager commit -m x", "sed -i s/old/new/ app.py", "ls > listing.txt"])
def test_a_write_is_no_lookup(command: str) -> None:
    assert is_lookup(_call("Bash", {"command": command})) is False


@pytest.mark.parametrize(
    ("command", "lookup"),
    [
        ("sqlite3 data/app.db \"SELECT id FROM sessions WHERE chat LIKE '%group-oc_%'\"", True),
        ("psql -c 'select count(*) from orders' shop", True),
        ("sqlite3 data/app.db .schema", False),  # a dot-command (``.import`` writes): not known to read
        ('psql -c "UPDATE orders SET paid = true" shop', False),  # §8.3: a data write
        ("sqlite3 data/app.db < migrate.sql", False),  # statements not in the command: not known to read
    ],
)
def test_a_sql_client_running_a_query_that_reads_is_a_lookup(command: str, lookup: bool) -> None:
    """§8.2.4: a command every program of which reads; a SQL client reads when its statement does (the
    writing statements are §8.3's data writes)."""
    assert is_lookup(_call("Bash", {"command": command})) is lookup


def test_a_query_whose_output_names_the_miss_recovers_it() -> None:
    data = run(
        bash("b1", "rg FEISHU_APP_SECRET logs", "", "m1"),
        bash("b2", "sqlite3 data/app.db 'SELECT key, value FROM settings'", "FEISHU_APP_SECRET|s3cr3t\n", "m2"),
    )
    assert only(episodes(data)).outcome == "recovered"


# --- §8.2.1: WebFetch's target is the URL's path components --------------------------------------------


def test_a_web_fetch_targets_only_its_path_components() -> None:
    url = "https://docs.example.com/guide/install?version=latest#troubleshooting"
    assert target_of(_call("WebFetch", {"url": url, "prompt": "how"})).tokens == ("guide", "install")


# --- §8.2.1: `$HOME` and `${HOME}` normalise like `~` ---------------------------------------------------


@pytest.mark.parametrize("path", ["$HOME", "${HOME}", "~", "$HOME/", "./~"])
def test_a_bare_home_normalises_to_tilde(path: str) -> None:
    assert normal_path(path) == "~"


# --- §8.5: at one position a recovery comes first (Gemini keeps a reply's calls and results in one record)


def test_gemini_a_recovery_in_the_same_reply_as_a_write_comes_first() -> None:
    chat = GeminiChat()
    chat.prompt("deploy it")
    missed = 'No files found matching pattern "**/deploy_settings.toml" within /home/dev/shop'
    chat.reply(calls=[tool_call("glob", {"pattern": "**/deploy_settings.toml"}, output=missed)])
    chat.reply(
        calls=[
            tool_call("write_file", {"file_path": "/home/dev/shop/app.py", "content": "x = 1"}, output="ok"),
            tool_call("run_shell_command", {"command": "git ls-files"}, output="ops/deploy_settings.toml\napp.py\n"),
        ]
    )
    assert only(episodes(chat.data(), GEMINI)).outcome == "recovered"


def test_gemini_a_write_in_a_later_reply_than_the_recovery_still_proceeds() -> None:
    chat = GeminiChat()
    chat.prompt("deploy it")
    missed = 'No files found matching pattern "**/deploy_settings.toml" within /home/dev/shop'
    chat.reply(calls=[tool_call("glob", {"pattern": "**/deploy_settings.toml"}, output=missed)])
    chat.reply(calls=[tool_call("write_file", {"file_path": "/home/dev/shop/app.py", "content": "x = 1"}, output="ok")])
    chat.reply(calls=[tool_call("run_shell_command", {"command": "git ls-files"}, output="ops/deploy_settings.toml\n")])
    assert only(episodes(chat.data(), GEMINI)).outcome == "proceeded"


def test_gemini_a_closing_question_does_not_undo_a_recovery_of_its_own_reply() -> None:
    chat = GeminiChat()
    chat.prompt("deploy it")
    missed = 'No files found matching pattern "**/deploy_settings.toml" within /home/dev/shop'
    chat.reply(calls=[tool_call("glob", {"pattern": "**/deploy_settings.toml"}, output=missed)])
    chat.reply(
        "I couldn't find deploy_settings.toml at first. Should I use ops/deploy_settings.toml?",
        calls=[tool_call("run_shell_command", {"command": "git ls-files"}, output="ops/deploy_settings.toml\n")],
    )
    chat.prompt("yes")
    assert only(episodes(chat.data(), GEMINI)).outcome == "recovered"
