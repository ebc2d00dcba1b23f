"""Codex's shell calls and tool outputs as omkd reads them: the command line of a call, and the
exit code and the command's own output of an answer.

Codex writes no error flag: the exit code is read from the output (0.40's JSON
``metadata.exit_code``, later ``Process exited with code N`` or ``Exit code: N`` headers; 0.40's
sandbox report of a non-zero exit), and the output given to the rules is the command's own,
without those headers. An output written while its command still runs is not its answer.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, Final

import orjson

_EXIT_HEADER: Final = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)\s*$", re.MULTILINE)
_OUTPUT_MARK: Final = "\nOutput:\n"
SANDBOXED_EXIT: Final = re.compile(
    r"^failed in sandbox \S+ with execution error: sandbox denied exec error, exit code: (-?\d+), "
    r"stdout: (.*?), stderr: (.*)$",
    re.DOTALL,
)
"""Codex 0.40's report of a command that exited non-zero inside the sandbox (it ran; the words
"sandbox denied" are Codex's guess): the exit code and the command's own stdout and stderr."""
_HEADER_LINES: Final = 6
"""The header lines Codex puts between the command and ``Output:`` (chunk, wall time, exit code,
token counts), looked at from the end: a command of several lines comes before them."""
FAILED_PREFIXES: Final = ("exec_command failed for", "failed in sandbox", "aborted by user", "patch rejected by user")
"""Outputs that say the call did not run to completion (no exit code header)."""
FILE_TOOL_ERRORS: Final = (
    "failed to read file: ", "failed to read directory: ", "failed to inspect entry: ", "unable to access `",
    "rg failed: ", "rg timed out", "failed to launch ripgrep", "failed to parse function arguments",
    "offset must be", "offset exceeds", "limit must be", "depth must be", "anchor_line ", "max_lines must be",
    "file_path must be", "dir_path must be", "pattern must not be empty",
)  # fmt: skip
"""The errors of Codex's file tools (codex-rs ``grep_files``, ``read_file``, ``list_dir``), written as the
answer with no flag: the call failed (a missing path, an argument the tool refused, ripgrep's own error)."""


def shell_command(arguments: dict[str, Any]) -> str | None:
    """The command line of a shell call: ``cmd`` (exec_command), ``command`` as a string or an
    argv (``["bash", "-lc", "…"]``: the script is the argument after ``-c``/``-lc``)."""
    for key in ("cmd", "command"):
        value = arguments.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            for flag in ("-lc", "-c", "/c", "-Command"):
                if flag in value[:-1]:
                    return str(value[value.index(flag) + 1])
            return shlex.join(value)
    return None


_SHELLS: Final = frozenset({"bash", "zsh", "sh", "dash", "pwsh", "powershell", "powershell.exe", "cmd.exe"})


def unwrap_shell(command: str) -> str:
    """The script of ``bash -lc '…'`` (how ``codex exec --json`` writes a command), else the command."""
    if not command.startswith(tuple(_SHELLS)) and not command.startswith("/"):
        return command
    try:
        argv = shlex.split(command)
    except ValueError:
        return command
    if len(argv) == 3 and argv[0].rsplit("/", 1)[-1] in _SHELLS and argv[1] in ("-lc", "-c", "-Command", "/c"):
        return argv[2]
    return command


RUNNING: Final = "Process running with session ID"
SESSION_ID: Final = re.compile(r"Process running with session ID (\d+)")
"""An ``exec_command`` output written while the command still runs: not its answer. That comes as
an ``exec_command_end`` event (0.118 and before), or as the output of the ``write_stdin`` poll of
its session that ends it (``Process exited with code N``)."""


def still_running(output: str) -> bool:
    """The output was written while its command ran (in its headers: after a command of any length)."""
    mark = output.find(_OUTPUT_MARK)
    head = output[:mark] if mark >= 0 else output[:400]
    return RUNNING in "\n".join(head.split("\n")[-_HEADER_LINES:])


def parse_output(output: object) -> tuple[bool, str, int | None]:
    """(failed, the tool's own output, exit code) of a Codex tool output (``result_of`` adds what
    the output tells apart)."""
    if isinstance(output, dict):
        text = output.get("output")
        return False, text if isinstance(text, str) else "", None
    if not isinstance(output, str):
        return False, "", None
    if output.startswith("{"):
        try:
            decoded = orjson.loads(output)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
            metadata = decoded.get("metadata")
            code = metadata.get("exit_code") if isinstance(metadata, dict) else None
            if isinstance(code, int) and not isinstance(code, bool):
                return code != 0, decoded["output"], code
            return False, decoded["output"], None
    mark = output.find(_OUTPUT_MARK)
    head = output if mark < 0 else output[:mark]
    if mark >= 0 and head.startswith(("Command:", "Chunk ID:", "Wall time:", "Exit code:")):
        # the headers after ``Command:`` (which may span lines: a here-document) end the head
        found = _EXIT_HEADER.search("\n".join(head.split("\n")[-_HEADER_LINES:]))
        body = output[mark + len(_OUTPUT_MARK) :]
        if found is not None:
            code = int(found.group(1))
            return code != 0, body, code
        return False, body, None
    if mark < 0 and head.count("\n") <= _HEADER_LINES:
        found = _EXIT_HEADER.search(head)
        if found is not None:
            code = int(found.group(1))
            return code != 0, "", code
    sandboxed = SANDBOXED_EXIT.match(output)
    if sandboxed is not None:
        # 0.40 under Seatbelt reports every non-zero exit so: the command ran and exited with N
        return True, sandboxed.group(2) + sandboxed.group(3), int(sandboxed.group(1))
    if output.startswith(FAILED_PREFIXES) or (output.startswith("Wall time:") and "aborted by user" in output):
        return True, output, None
    if output.startswith(FILE_TOOL_ERRORS):
        return True, output, None
    return False, output, None
