"""Gemini CLI's ``run_shell_command`` answer: the command's own output and exit code among the fields it is
written with (``Command:``, ``Directory:``, ``Output:``, ``Error:``, ``Exit Code:``…; the first versions wrote
``Stdout:`` and ``Stderr:`` apart)."""

from __future__ import annotations

import re
from typing import Final

_EXIT_CODE: Final = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)
_SHELL_FIELDS: Final = re.compile(
    r"^(?:Command|Directory|Error|Exit Code|Signal|Background PIDs|Process Group PGID): ", re.MULTILINE
)


def shell_output(text: str) -> tuple[str, int | None]:
    """The command's own output and exit code of a ``run_shell_command`` result."""
    found = _EXIT_CODE.search(text)
    code = int(found.group(1)) if found else None
    start = text.find("Output: ")
    if start < 0:
        return _streams(text), code
    body = text[start + len("Output: ") :]
    lines = body.rstrip("\n").split("\n")
    end, seen = len(lines), set[str]()
    while end > 0 and (field := _SHELL_FIELDS.match(lines[end - 1])) is not None and field.group() not in seen:
        if field.group() == "Error: " and lines[end - 1] != "Error: (none)":
            break  # newer versions write Error only when set (rarely): ``Error: No such keg`` is output
        seen.add(field.group())  # the fields after the output, each once: an ``Error: …`` above them is output
        end -= 1
    body = "\n".join(lines[:end]).rstrip("\n")
    return ("" if body.strip() == "(empty)" else body), code


def _streams(text: str) -> str:
    """The first versions' ``Stdout: …`` and ``Stderr: …`` fields (before ``Error:``) as one output, as
    ``Output:`` holds both since; the text as it is without them."""
    out, err = text.find("\nStdout: "), text.find("\nStderr: ")
    if out < 0 or err < out:
        return text
    end = text.rfind("\nError: ", err)  # the field's, the last: a stderr line may start ``Error: `` too
    parts = (text[out + 9 : err], text[err + 9 : end if end >= 0 else len(text)])
    return "\n".join(part for part in parts if part.strip() and part.strip() != "(empty)")
