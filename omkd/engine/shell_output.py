"""A shell command's output as omkd reads it: its own text and exit code, its lines, and the lines that
say a path or program is not there (spec §3.1's not-found messages).
"""

from __future__ import annotations

import re
from typing import Final

from omkd.engine import shell_rules


def output_of(text: str, is_error: bool, detail: object = None) -> tuple[str, int | None]:
    """The command's own output and exit code: without the ``Exit code N`` line Claude Code puts
    first on errors (a bare ``Error`` is an error with no output). Adapters of agents that write
    the code elsewhere give the output alone as the text and the code as ``detail["exit_code"]``."""
    if isinstance(detail, dict):
        code = detail.get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool):
            return text, code
    if is_error:
        first, _, rest = text.partition("\n")
        found = shell_rules.SHELL_RULE.exit_code_line.match(first.strip())
        if found:
            return rest, int(found.group(1))
        if text.strip() == "Error":
            return "", None
    return text, None


def output_lines(output: str) -> list[str]:
    """The output's non-blank lines, PowerShell's error records under a message and notes after it left out."""
    if "char:" in output:
        output = shell_rules.POWERSHELL_ERROR_RECORD.sub("", output)
    if "Cannot find path" in output:  # PowerShell wraps its message at the console's width: one line again
        output = shell_rules.POWERSHELL_MISSING_PATH.sub(lambda m: " ".join(m.group(0).split()), output)
    lines = [stripped for line in output.splitlines() if (stripped := line.strip())]
    return [s for s in lines if not (s.startswith(shell_rules.NOTE_STARTS) and shell_rules.NOTES.fullmatch(s))]


def only_not_found(lines: list[str]) -> bool:
    """The lines are nothing but the search programs' own "no such file" lines."""
    return bool(lines) and all(is_not_found_line(line) for line in lines)


def missing_path(line: str) -> re.Match[str] | None:
    """``shell_rules.MISSING_PATH_LINE`` on a line short enough to be a not-found message (its lazy run
    before the message is quadratic on a long line that repeats the message)."""
    return shell_rules.MISSING_PATH_LINE.match(line) if len(line) <= shell_rules.NOT_FOUND_LINE_CHARS else None


def is_not_found_line(line: str) -> bool:
    """The line is a search program's own "not there" message. A line longer than one is not matched:
    ``not_found_lines`` holds several ``.*`` runs, quadratic on a long line that repeats their words."""
    return (
        len(line) <= shell_rules.NOT_FOUND_LINE_CHARS and shell_rules.SHELL_RULE.not_found_lines.match(line) is not None
    )


_NO_MATCHES: Final = re.compile(r"^(?:zsh|\(eval\)):\d+: no matches found: (.+)$")


def glob_of(line: str) -> str | None:
    """The glob of zsh's ``no matches found: GLOB`` line (None for any other line)."""
    found = _NO_MATCHES.match(line) if "no matches found" in line else None
    return found.group(1) if found else None
