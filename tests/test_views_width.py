"""Issue 29, item 6: the terminal at 80 columns (a laptop) and at 200, through a real
pseudo-terminal running the real CLI: names and patterns cut with an ellipsis on one line, the
columns left out named, short timestamps, no line wider than the terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests import claude_lines as cl

LONG_SKILL = "superpowers:subagent-driven-development"
LONG_COMMAND = (
    'cd /home/dev/projects/shop/services/payments && echo "=== searching ===" ; '
    'grep -rln "PAYMENT_GATEWAY_TIMEOUT\\|PAYMENT_GATEWAY_RETRIES\\|PAYMENT_GATEWAY_ENDPOINT" src/ config/ deploy/'
)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def transcript(path: Path) -> Path:
    records: list[cl.Record] = []
    for n in range(6):
        skill = LONG_SKILL if n % 2 else "deploy"
        records += [
            cl.user(f"task {n}"),
            cl.tool_use(f"toolu_s{n}", "Skill", {"skill": skill}, f"msg_s{n}"),
            cl.tool_result(f"toolu_s{n}", f"Launching skill: {skill}", {"success": True, "commandName": skill}),
            cl.tool_use(f"toolu_b{n}", "Bash", {"command": LONG_COMMAND}, f"msg_b{n}"),
            cl.tool_result(f"toolu_b{n}", "=== searching ===", {"stdout": "=== searching ===", "stderr": "",
                                                                 "interrupted": False, "isImage": False}),
        ]  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cl.jsonl(records))
    return path


def on_terminal(columns: int, *args: str | Path) -> list[str]:
    """The lines the CLI writes on a pseudo-terminal ``columns`` wide (escape codes removed)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    process = subprocess.Popen(
        [sys.executable, "-m", "omkd", *map(str, args)], stdin=follower, stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    process.wait(60)
    return ANSI.sub("", b"".join(chunks).decode()).replace("\r", "").splitlines()


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return transcript(tmp_path / "projects" / "-home-dev-shop" / f"{cl.SESSION}.jsonl")


def test_80_columns_read_on_one_line_each(session: Path, tmp_path: Path) -> None:
    lines = on_terminal(80, "scan", session, "--home", tmp_path)
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= 80, text
    table_rows = [line for line in lines if line.startswith("│")]
    rows = [line for line in table_rows if "superpowers" in line]
    # one row in the skill table, one in what the agents did at a gap, one in the patterns table:
    # no name broken in two
    assert len(rows) == 3, text
    assert all("…" in row for row in rows), text
    assert not any("ent-driven" in row for row in table_rows)  # the rest of a name broken mid-word
    header = next(line for line in lines if "segments" in line and "skill" in line)
    assert "…" not in header, text  # the figures' columns keep their width
    assert "underpowered" in text
    assert "│ PAYMENT_GATEWAY_TIM" in text  # what was looked for, not the cd and echo around it
    assert "cd /home" not in text
    note = next(line for line in lines if "left out at this width" in line)
    assert ("coverage" in note, "stability" in note, "intervals" in note) == (True, True, True), note
    cells = "\n".join(table_rows)
    assert not re.search(r"\d\d:\d\d:\d\d\.\d{3}Z", cells), text  # short timestamps in tables
    assert "│ 2026-01-01 │" in cells  # at 80 columns the day: its time's room goes to what was looked for


def test_200_columns_show_every_column(session: Path, tmp_path: Path) -> None:
    lines = on_terminal(200, "scan", session, "--home", tmp_path)
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= 200
    assert LONG_SKILL in text
    header = next(line for line in lines if "segments" in line and "skill" in line)
    assert ("coverage" in header, "stability" in header, "[" in text) == (True, True, True)
    assert "left out at this width" not in text


def test_omkd_impact_at_80_columns_is_rendered_not_raw_markdown(tmp_path: Path) -> None:
    """``omkd impact`` on a terminal: the Markdown rendered at its width (no ``|---|`` or ``**``),
    files named inside their project, every line within 80 columns; a pipe gets the Markdown."""
    from tests.test_impact import CHANGE, git, project, sessions

    repo = project(tmp_path, "shop")
    traces = tmp_path / "projects"
    sessions(repo, traces, {18: "m" * 16 + "cccc", 21: "m" + "c" * 19})
    (repo / ".claude" / "skills" / "deploy" / "SKILL.md").write_text("v2\n")
    subject = "deploy: document the port 8443, the staging and production hosts and the rollback steps"
    git(repo, "commit", "-q", "-am", subject, when=CHANGE)
    lines = on_terminal(80, "impact", traces, "--home", tmp_path / "home", "--jobs", "1")
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= 80, text
    assert ("|---|" in text, "**" in text, "<sub>" in text) == (False, False, False), text
    assert "Files: .claude/skills/deploy/SKILL.md (affects" in text
    row = next(line for line in lines if line.lstrip().startswith("gap rate"))
    assert ("80.0 % (16/20)" in row, "5.0 % (1/20)" in row, "improved" in row) == (True, True, True), text
    assert "a difference can come from the work done" in " ".join(" ".join(lines).split())


def test_omkd_explain_at_80_columns_wraps_each_row_under_its_line(tmp_path: Path) -> None:
    """``omkd explain`` on a terminal: the file said once, each row starting with its ``:line`` and
    wrapping under itself, no line wider than 80 columns (rows were 200-400 characters wide, the file
    name and the call's id repeated on each); piped, one row a line that starts with ``file:line``."""
    long_name = "payments/" + "gateway/" * 6 + "PAYMENT_GATEWAY_TIMEOUT_SETTINGS.md"
    records = [
        cl.user("where is the timeout documented?"),
        cl.tool_use("toolu_0123456789abcdefghijklmn", "Bash", {"command": f"cat {long_name}"}, "msg_1"),
        cl.tool_result("toolu_0123456789abcdefghijklmn", f"cat: {long_name}: No such file or directory",
                       {"stdout": "", "stderr": f"cat: {long_name}: No such file or directory"}),
        cl.tool_use("toolu_1123456789abcdefghijklmn", "Bash", {"command": "git ls-files | grep -i timeout"}, "msg_2"),
        cl.tool_result("toolu_1123456789abcdefghijklmn", "docs/payments/PAYMENT_GATEWAY_TIMEOUT_SETTINGS.md",
                       {"stdout": "docs/payments/PAYMENT_GATEWAY_TIMEOUT_SETTINGS.md", "stderr": ""}),
    ]  # fmt: skip
    path = tmp_path / "projects" / "-home-dev-shop" / f"{cl.SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(cl.jsonl(records))
    lines = on_terminal(80, "explain", path)
    text = "\n".join(lines)
    assert max(len(line) for line in lines) <= 80, text
    assert lines[0].strip() == path.name, text
    miss = next(i for i, line in enumerate(lines) if "→ failed_search" in line)
    assert re.match(r"    :2 +Bash → failed_search:", lines[miss]), text
    column = lines[miss].index("Bash")
    assert lines[miss + 1][:column].strip() == "", text  # the pattern goes on under the row, not under :2
    assert "PAYMENT_GATEWAY_TIMEOUT_SETTINGS.md" in "".join(line[column:].strip() for line in lines[miss : miss + 3])
    assert "recovered at :5" in " ".join(" ".join(lines).split()), text
    assert "toolu_" not in text  # the call's id is in --json
    piped = subprocess.run(
        [sys.executable, "-m", "omkd", "explain", str(path)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    row = f"    {path.name}:2  Bash toolu_0123456789abcdefghijklmn  → failed_search"
    assert any(line.startswith(row) for line in piped), piped
    coloured = subprocess.run(  # colour forced in a pipe (a CI log) keeps the piped form
        [sys.executable, "-m", "omkd", "explain", str(path)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "FORCE_COLOR": "1"},
    ).stdout
    assert row in ANSI.sub("", coloured), coloured
