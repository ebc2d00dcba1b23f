"""Spec §8.3, row by row: what a call writes, where, what it creates and what text it adds.

Each expectation is written by hand from the table of §8.3.1 and the lists of §8.3.2 to §8.3.4.
"""

from __future__ import annotations

from typing import Any

import pytest

from omkd.engine.events import ToolCall
from omkd.engine.metacog.writes import shell_write, write_of

pytestmark = pytest.mark.engine
PATCH = (
    "*** Begin Patch\n*** Add File: docs/new.md\n+hello there\n"
    "*** Update File: src/x.py\n@@\n-old\n+new line\n*** End Patch"
)


def _edit(old: str, new: str) -> dict[str, str]:
    return {"old_string": old, "new_string": new}


def _call(tool: str, tool_input: dict[str, Any]) -> ToolCall:
    return ToolCall(None, "m1", "c1", tool, tool_input, None, None)


@pytest.mark.parametrize(
    ("tool", "tool_input", "paths", "created", "added"),
    [
        ("Write", {"file_path": "/home/dev/p/a.py", "content": "x = 1"}, ("~/p/a.py",), ("~/p/a.py",), "x = 1"),
        ("Edit", {"file_path": "a.py", "old_string": "", "new_string": "fresh"}, ("a.py",), ("a.py",), "fresh"),
        ("Edit", {"file_path": "a.py", "old_string": "a", "new_string": "b"}, ("a.py",), (), "b"),
        (
            "MultiEdit",
            {"file_path": "a.py", "edits": [_edit("", "one"), _edit("x", "two")]},
            ("a.py",), ("a.py",), "one\ntwo",
        ),
        (
            "MultiEdit",
            {"file_path": "a.py", "edits": [_edit("x", "one"), _edit("", "two")]},
            ("a.py",), (), "one\ntwo",
        ),
        ("NotebookEdit", {"notebook_path": "n.ipynb", "new_source": "print(1)"}, ("n.ipynb",), (), "print(1)"),
        ("apply_patch", {"input": PATCH}, ("docs/new.md", "src/x.py"), ("docs/new.md",), "hello there\nnew line"),
        ("write_file", {"file_path": "b.py", "content": "y"}, ("b.py",), ("b.py",), "y"),
        ("replace", {"file_path": "c.py", "old_string": "", "new_string": "z"}, ("c.py",), ("c.py",), "z"),
        ("mcp__files__write_file", {"file_path": "d.py", "content": "q"}, ("d.py",), ("d.py",), "q"),
        ("mcp__acp__Edit", {"file_path": "e.py", "old_string": "a", "new_string": "b"}, ("e.py",), (), "b"),
    ],
)  # fmt: skip
def test_file_edits_of_all_three_agents(
    tool: str, tool_input: dict[str, Any], paths: tuple[str, ...], created: tuple[str, ...], added: str
) -> None:
    found = write_of(_call(tool, tool_input))
    assert found is not None
    assert (found.kind, found.paths, found.created, found.added) == ("file_edit", paths, created, added)


def test_a_shell_command_holding_a_patch_is_a_file_edit() -> None:
    found = shell_write(f"apply_patch <<'EOF'\n{PATCH}\nEOF")
    assert found is not None
    assert (found.kind, found.created) == ("file_edit", ("docs/new.md",))


@pytest.mark.parametrize(
    ("command", "paths", "created"),
    [
        ("echo done > status.txt", ("status.txt",), ("status.txt",)),
        ("echo more >> log.txt", ("log.txt",), ("log.txt",)),
        ("make &> build.log", ("build.log",), ("build.log",)),
        ("echo done 1> status.txt", ("status.txt",), ("status.txt",)),
        ("ls | tee listing.txt", ("listing.txt",), ("listing.txt",)),
        ("sed -i 's/a/b/' app.py", ("app.py",), ()),
        ("perl -pi -e 's/a/b/' app.py", ("app.py",), ()),
        ("mv old.py new.py", ("old.py", "new.py"), ("new.py",)),
        ("ln -s ../shared/env .env", (".env",), (".env",)),
        ("rm -rf build", ("build",), ()),
        ("chmod +x run.sh", ("run.sh",), ()),
        ("truncate -s 0 app.log", ("app.log",), ()),
        ("Remove-Item old.txt", ("old.txt",), ()),
        ("Move-Item a.txt b.txt", ("a.txt", "b.txt"), ("b.txt",)),
    ],
)
def test_shell_writes(command: str, paths: tuple[str, ...], created: tuple[str, ...]) -> None:
    found = shell_write(command)
    assert found is not None
    assert (found.kind, found.paths, found.created) == ("shell_write", paths, created)


@pytest.mark.parametrize(
    "command",
    ["make 2> errors.txt", "make > /dev/null", "make >&2", "dir > NUL", "Get-Process > $null", "ls 2>&1"],
)
def test_redirections_that_write_no_file(command: str) -> None:
    assert shell_write(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m wip", "git push origin main", "git apply fix.patch", "git am 0001.patch", "git reset --hard",
        "git rm old.py", "git mv a.py b.py", "git restore app.py", "git merge dev", "git rebase main",
        "git cherry-pick abc123", "git revert HEAD", "git tag v1.0", "git stash", "git stash pop",
    ],
)  # fmt: skip
def test_vcs_writes(command: str) -> None:
    found = shell_write(command)
    assert found is not None
    assert found.kind == "vcs"


@pytest.mark.parametrize("command", ["git stash list", "git stash show -p", "git status", "git log -3", "git diff"])
def test_git_reads_write_nothing(command: str) -> None:
    assert shell_write(command) is None


@pytest.mark.parametrize(
    ("command", "packages"),
    [
        ("npm install left-pad", ("left-pad",)), ("npm add zod", ("zod",)), ("pnpm add zod", ("zod",)),
        ("bun add zod", ("zod",)), ("yarn add zod", ("zod",)), ("pip install requests", ("requests",)),
        ("uv add httpx", ("httpx",)), ("uv pip install httpx", ("httpx",)), ("uv tool install ruff", ("ruff",)),
        ("cargo add serde", ("serde",)), ("cargo install ripgrep", ("ripgrep",)),
        ("go get example.com/m", ("example.com/m",)),
        ("go install example.com/t@latest", ("example.com/t@latest",)), ("brew install jq", ("jq",)),
        ("apt install jq", ("jq",)), ("apt-get install -y jq", ("jq",)), ("gem install rails", ("rails",)),
        ("poetry add httpx", ("httpx",)),
        ("curl -LsSf https://astral.sh/uv/install.sh | sh", ("https://astral.sh/uv/install.sh",)),
        ("curl -fsSL https://deb.nodesource.com/setup_20.x | sudo -E bash -",
         ("https://deb.nodesource.com/setup_20.x",)),  # the shell behind sudo (read stage by stage since 44)
    ],
)  # fmt: skip
def test_dependency_writes(command: str, packages: tuple[str, ...]) -> None:
    found = shell_write(command)
    assert found is not None
    assert (found.kind, found.packages) == ("dependency", packages)


@pytest.mark.parametrize("command", ["npm install", "pnpm install", "bun install", "npm ci", "pip list", "uv run x"])
def test_a_lock_file_restore_or_a_read_is_no_dependency_write(command: str) -> None:
    assert shell_write(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "psql -c 'DELETE FROM users WHERE id = 3'", "mysql -e 'UPDATE t SET a = 1'",
        "sqlite3 app.db 'INSERT INTO t VALUES (1)'", "duckdb x.db 'CREATE TABLE t (a INT)'",
        "clickhouse-client --query 'ALTER TABLE t DROP COLUMN a'", "bq query 'TRUNCATE TABLE ds.t'",
    ],
)  # fmt: skip
def test_sql_clients_writing_data(command: str) -> None:
    found = shell_write(command)
    assert found is not None
    assert found.kind == "data"


@pytest.mark.parametrize("command", ["psql -c 'SELECT 1'", "sqlite3 app.db 'select * from t'"])
def test_sql_clients_reading_data_write_nothing(command: str) -> None:
    assert shell_write(command) is None


@pytest.mark.parametrize(
    ("key", "sql", "kind"),
    [("query", "  insert into t values (1)", "data"), ("sql", "GRANT ALL ON t TO bob", "data"),
     ("statement", "REVOKE ALL ON t FROM bob", "data"), ("query", "SELECT 1", None)],
)  # fmt: skip
def test_an_mcp_tools_sql(key: str, sql: str, kind: str | None) -> None:
    found = write_of(_call("mcp__db__execute", {key: sql}))
    assert (found.kind if found is not None else None) == kind


@pytest.mark.parametrize(
    "tool", ["TodoWrite", "TaskCreate", "TaskUpdate", "update_plan", "save_memory", "update_topic", "ExitPlanMode"]
)
def test_not_writes(tool: str) -> None:
    assert write_of(_call(tool, {"todos": [], "plan": "p", "fact": "f"})) is None


@pytest.mark.parametrize(
    ("command", "scratch"),
    [
        ("echo x > /tmp/probe.txt", True), ("echo x > /private/tmp/probe.txt", True),
        ("echo x > /var/folders/ab/T/probe.txt", True), ("rm -f /dev/shm/lock", True),
        ("Set-Content C:\\Users\\dev\\AppData\\Local\\Temp\\probe.txt", True),
        ("cp plan.md ~/.claude/plans/plan.md", True), ("echo x > /home/dev/.claude/todos/t.json", True),
        ("echo x > /tmp/a.txt && echo y > notes.md", False), ("echo x > ~/.claude/settings.json", False),
    ],
)  # fmt: skip
def test_scratch_writes(command: str, scratch: bool) -> None:
    found = shell_write(command)
    assert found is not None
    assert found.scratch is scratch


@pytest.mark.parametrize(
    ("command", "added"),
    [
        ("cat > notes.md <<'EOF'\nfirst line\nsecond line\nEOF", "first line\nsecond line"),
        ("echo 'export PATH=$HOME/bin:$PATH' >> .bashrc", "export PATH=$HOME/bin:$PATH"),
        ("printf 'a=1' > cfg.ini", "a=1"),
    ],
)
def test_the_text_a_shell_write_adds(command: str, added: str) -> None:
    found = shell_write(command)
    assert found is not None
    assert found.added == added
