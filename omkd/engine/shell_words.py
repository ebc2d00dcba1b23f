"""A shell command's words: as written (quotes kept) and as the program receives them.

One reading serves every shell reader: ``shell`` (stages, programs, operands), ``shell_forms`` (a
carried command, a redirection's target) and the metacognition's writes. A word is a run of unquoted
characters, quoted texts and ``$( … )``; a quote left open ends the word.
"""

from __future__ import annotations

import re
from typing import Final

WORD: Final = re.compile(r"""(?:\$\([^()]*\)|[^\s'"$]+|\$|'[^']*'|"(?:\\.|[^"\\])*")+""")
"""A word: unquoted characters, quoted texts and ``$( … )`` (one level: ``/run/user/$(id -u)/x``). A
backslash before a space does not join two words: PowerShell's and cmd's ``C:\\proj\\ -Recurse`` end a
path there, and omkd cannot tell which shell wrote a command (bash's ``Application\\ Support`` is then two)."""
_QUOTED: Final = re.compile(r"""'([^']*)'?|"((?:\\[\s\S]|[^"\\])*)"?""")
_DOUBLE_QUOTE_ESCAPE: Final = re.compile(r"""\\(["$`\\])""")
"""Bash's escapes in double quotes but ``\\\\``: PowerShell and cmd read ``"\\\\server\\share"`` as written."""
_CONTINUED: Final = re.compile(r"""(?<!\S)\\\r?\n|'[^']*'?|"(?:\\\r?\n|\\[\s\S]|[^"\\])*"?""")
"""A continuation, or a quoted text (the quotes as ``shell_lists.split_top_level`` reads them)."""
_PAIR: Final = re.compile(r"\\(?:\r?\n|[\s\S])")
_ROOT_MOVES: Final = frozenset({"cd", "chdir", "pushd", "sl", "set-location", "push-location"})
"""``cd \\`` in PowerShell or cmd goes to the drive's root: that backslash ends its line."""
_COMMENT: Final = re.compile(r"""'[^']*'?|"(?:\\.|[^"\\])*"?|(?:^|(?<=\s))#""")
"""A quoted text (an unclosed one runs on) or a ``#`` starting a word: a comment when the latter."""


def joined_lines(command: str) -> str:
    """The command with its continued lines joined: `` \\`` ending a line (``continues``), outside
    single quotes, is removed with the line's end (``curl -s \\`` then ``"https://…"`` is one command)."""
    if "\\\n" not in command and "\\\r\n" not in command:
        return command
    return _CONTINUED.sub(_joined, command)


def continues(command: str, at: int) -> bool:
    """The backslash at ``at``, before its line's end, continues the line: it follows a space (a path
    ending in a backslash, ``cd C:\\proj\\``, does not), its line is no comment (a ``#`` word outside
    quotes before it), and it is not ``cd \\`` (the root)."""
    if at > 0 and not command[at - 1].isspace():
        return False
    line = command[command.rfind("\n", 0, at) + 1 : at]
    if "#" in line and any(m.group().endswith("#") for m in _COMMENT.finditer(line)):
        return False
    words = line.split()
    return not (len(words) == 1 and words[0].lower() in _ROOT_MOVES)


def _joined(match: re.Match[str]) -> str:
    text, command, start = match.group(), match.string, match.start()
    if text[0] == "'":
        return text
    if text[0] == "\\":
        return "" if continues(command, start) else text

    def pair(found: re.Match[str]) -> str:
        at = start + found.start()
        continued = found.group()[1:] in ("\n", "\r\n") and continues(command, at)
        return "" if continued else found.group()

    return _PAIR.sub(pair, text)


def raw_words(text: str) -> list[str]:
    """The words as written, quotes kept (a carrier's command, a redirection's target)."""
    if "'" not in text and '"' not in text:
        return text.split()  # no quote: a word is a run of non-whitespace (``\s`` is ``str.isspace``)
    return WORD.findall(text)


def words(stage: str) -> list[str]:
    """The words as the program receives them (``dequoted``): enough to see a program and its operands."""
    if "'" not in stage and '"' not in stage and "$(" not in stage:
        return stage.split()
    return [dequoted(word) if "'" in word or '"' in word else word for word in WORD.findall(stage)]


def dequoted(word: str) -> str:
    """A word as the program receives it. A single-quoted text is taken as written (a ``"`` in it
    stays: ``'"digest":"[^"]+"'``); a double-quoted text drops the backslash before a ``"``, a ``$`` and
    a backtick (``"\\.from\\(\\"x\\""`` is ``\\.from\\("x"``); a quote left open runs to
    the end. An unquoted backslash stays: PowerShell's and cmd's paths (``C:\\Users``) are read by the
    same reader, and there it is no escape."""
    return _QUOTED.sub(_inner, word)


def _inner(match: re.Match[str]) -> str:
    single = match.group(1)
    if single is not None:
        return single
    return _DOUBLE_QUOTE_ESCAPE.sub(_escaped, match.group(2))


def _escaped(match: re.Match[str]) -> str:
    """``\\"``, ``\\$``, ``\\` `` the character; a pair of backslashes whole (it escapes nothing after it)."""
    return match.group() if match.group(1) == "\\" else match.group(1)


_QUOTED_OR_PAREN: Final = re.compile(r"""'[^']*'?|"(?:\\.|[^"\\])*"?|[()]""")


def before_group_end(text: str) -> str:
    """A stage's text up to a ``)``, outside quotes, that closes a group opened before the stage: bash's
    subshell (``(cd src && ls retry)``: ``ls retry``), PowerShell's expression (``(Get-Command X).Source``:
    ``Get-Command X``). The stage's own leading ``(`` are of that group; ``$( … )`` and ``a(1).txt`` are
    balanced within it."""
    if ")" not in text:
        return text
    depth = 0
    for found in _QUOTED_OR_PAREN.finditer(text, len(text) - len(text.lstrip("( \t\r\n"))):
        mark = found.group()
        if mark == "(":
            depth += 1
        elif mark == ")":
            if depth == 0:
                return text[: found.start()]
            depth -= 1
    return text
