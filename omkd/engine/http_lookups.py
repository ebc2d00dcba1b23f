"""HTTP clients on a URL the agent chose (spec §3.1): which requests look rather than act, and when the
answer says 404 or 410 — a status line, a ``Not Found`` body, or the code printed by the client's own
write-out format (``curl -w "HTTP %{http_code}\\n"`` prints ``HTTP 404``). The tables are
``HTTP_*`` below; ``shell.py`` takes the stages, the judge and ``missed_stages`` the verdict.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any, Final

from omkd.engine import probe_rules

HTTP_CLIENTS: Final = frozenset(
    {"curl", "wget", "Invoke-WebRequest", "iwr", "Invoke-RestMethod", "irm", "http", "https", "xh"}
)
"""HTTP clients on a URL the agent chose: a 404 or 410 is a failed lookup, other failures are faults."""
HTTP_READ_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
HTTP_METHOD_FLAGS: Final = frozenset({"-X", "--request", "--method", "-Method", "-method"})
"""The option naming a request's method (curl, wget, PowerShell's web cmdlets)."""
HTTP_BODY_FLAGS: Final = frozenset(
    {"-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "-F", "--form", "--json"}
    | {"-T", "--upload-file", "--post-data", "--post-file", "--body-data", "--body-file", "-Body", "-InFile"}
)
"""Options that send a body: the request posts (curl's ``-G`` turns ``-d`` into a query of a GET)."""
HTTP_GET_FLAGS: Final = frozenset({"-G", "--get"})
HTTP_MISSING: Final = re.compile(
    r"^HTTP/\S+\s+(?:404|410)\b|^\s*(?:404|410)\s*$|\b(?:404|410):? Not Found\b|ERROR 404\b"
    r"|\((?:404|410)\) (?:Not Found|Gone)\b|\b(?:404|410) \((?:Not Found|Gone)\)"  # PowerShell 5.1's, 7's
    r"|The requested URL returned error: (?:404|410)\b",
    re.MULTILINE,
)
"""A 404 or 410 in an HTTP client's output: a status line, ``-w '%{http_code}'`` printing it, a server's
or wget's wording, ``curl -f``'s error line, PowerShell's ``(404) Not Found`` and ``404 (Not Found)``."""
NOT_FOUND_BODY: Final = re.compile(r"\bnot[ _]found\b", re.IGNORECASE)
NOT_FOUND_BODY_CHARS: Final = 400
"""A short body saying "not found" (``{"message":"not found: owner …"}``) is a 404's body too."""
WRITE_OUT_FLAGS: Final = frozenset({"-w", "--write-out"})
"""curl's option printing a format after the transfer (``%{http_code}`` is the status it got)."""
CODE_VARIABLES: Final = re.compile(r"%\{(?:http_code|response_code)\}")
"""The write-out variables that print the response's status code."""
OTHER_VARIABLE: Final = re.compile(r"%\{[^}]*\}|\$\{?\w+\}?")
"""Another write-out variable, or a shell variable in the format (``-w "%{http_code} $u\\n"`` in a loop)."""
FORMAT_BREAK: Final = re.compile(r"\\[nr]")
"""A new line written in a format (``\\n``, ``\\r``): each line of the format is matched alone."""
MISSING_CODES: Final = frozenset({"404", "410"})
MAX_WORDS: Final = 2
"""Other variables a format line may hold and still be read (each an open-ended word)."""
ANY_WORD: Final = r"\S*"
"""What another write-out variable prints (a URL, a time, a size): one word, never a space, so that the
expression cannot backtrack over a long line."""
WRITTEN_LINE_CHARS: Final = 400
"""Longer output lines are no line a write-out format printed (and are not matched at all)."""


def is_http_client(program: str) -> bool:
    return program in HTTP_CLIENTS


def sends(program: str, args: list[str]) -> bool:
    """An HTTP request that creates or changes rather than looks up: a method other than GET or HEAD
    (``curl -X POST``, ``--request=DELETE``, ``-Method Post``, httpie's ``http PUT url``) or a body sent
    (``-d``, ``-F``, ``--json``, ``--post-data``, ``-Body``) without curl's ``-G``. Its "not found" says
    what it acted on is not there, not that a lookup missed (spec §3.1: commands that act)."""
    reading = HTTP_READ_METHODS
    if program in ("http", "https", "xh") and args and args[0].isupper():
        return args[0] not in reading  # httpie: ``http POST url``
    query = any(a in HTTP_GET_FLAGS for a in args)
    for index, arg in enumerate(args):
        name, _, attached = arg.partition("=")
        if name in HTTP_BODY_FLAGS and not query:
            return True
        method = _method(arg, name, attached, args[index + 1 : index + 2])
        if method and method.upper().strip("'\"") not in reading:
            return True
    return False


def _method(arg: str, name: str, attached: str, following: list[str]) -> str:
    """The method an HTTP client's argument names: ``-X POST``, ``--request=PUT``, ``-XDELETE``; "" for none."""
    if arg in HTTP_METHOD_FLAGS:
        return following[0] if following else ""
    if name in HTTP_METHOD_FLAGS:
        return attached
    return arg[2:] if arg.startswith("-X") and len(arg) > 2 else ""


def http_missed(output: str, stages: Sequence[Any] = ()) -> bool:
    """An HTTP client's output says 404 or 410 (status line, ``-w`` code, a short "not found" body);
    ``stages``: the clients (``shell.Stage``), whose write-out formats say how a printed code reads."""
    # every form of the status names 404 or 410: an output naming neither is not read through
    if "404" not in output and "410" not in output:
        return _not_found_body(output)
    if HTTP_MISSING.search(output) or written_missing(output, stages):
        return True
    return _not_found_body(output)


def _not_found_body(output: str) -> bool:
    # a short body saying "not found"; the shell's own "jq: command not found" is not a body
    body = "\n".join(line for line in output.splitlines() if not probe_rules.COMMAND_MISSING.search(line)).strip()
    return len(body) <= NOT_FOUND_BODY_CHARS and bool(NOT_FOUND_BODY.search(body))


def written_missing(output: str, stages: Sequence[Any]) -> list[Any]:
    """The clients whose write-out format printed 404 or 410 (``HTTP 404``, ``404 https://…/llms.txt``).
    Lines are given to the formatted clients in the command's order, one each; the last takes the rest
    (a client in a loop prints a line per round)."""
    formats = [(stage, shapes) for stage in stages if (shapes := code_lines(tuple(stage.args)))]
    missed: list[Any] = []
    at = 0
    for raw in output.splitlines():
        line = raw.strip()
        if not line or not formats or len(line) > WRITTEN_LINE_CHARS:
            continue
        stage, shapes = formats[at]
        found = next((m for shape in shapes if (m := shape.fullmatch(line))), None)
        if found is None:
            continue
        if found.group("code") in MISSING_CODES and stage not in missed:
            missed.append(stage)
        at = min(at + 1, len(formats) - 1)
    return missed


@functools.lru_cache(maxsize=256)
def code_lines(args: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """The lines of a client's write-out format that print the status code, each as an expression of
    the line it prints (the code captured, other variables any text); none without such a format."""
    written = _write_out(list(args))
    if written is None or not CODE_VARIABLES.search(written):
        return ()
    shapes: list[re.Pattern[str]] = []
    for line in FORMAT_BREAK.split(written):
        if not CODE_VARIABLES.search(line) or not line.strip():
            continue
        pieces: list[str] = []
        position = 0
        for variable in OTHER_VARIABLE.finditer(line):
            if variable.start() > position:
                pieces.append(re.escape(line[position : variable.start()]))
            code = CODE_VARIABLES.fullmatch(variable.group())
            if code or pieces[-1:] != [ANY_WORD]:  # two variables side by side are one word
                pieces.append(r"(?P<code>\d{3})" if code else ANY_WORD)
            position = variable.end()
        pieces.append(re.escape(line[position:]))
        body = "".join(piece for piece in pieces if piece).strip()
        # a line of many words apart (``$a-$b-$c-$d``) backtracks over a long line: not read
        if body.count("(?P<code>") == 1 and pieces.count(ANY_WORD) <= MAX_WORDS:
            shapes.append(re.compile(body.replace(r"\ ", r"\s+")))
    return tuple(shapes)


def _write_out(args: list[str]) -> str | None:
    for index, arg in enumerate(args):
        if arg in WRITE_OUT_FLAGS and index + 1 < len(args):
            return args[index + 1]
        name, equals, value = arg.partition("=")
        if equals and name == "--write-out":
            return value
        if arg.startswith("-w") and len(arg) > 2 and not arg.startswith("--"):
            return arg[2:]
    return None
