"""How a shell command splits into pipeline stages and a stage into words: by hand-written
examples, and as properties against plain character-by-character readings of the same rules."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omkd.engine.shell_lists import split_top_level
from omkd.engine.shell_output import is_not_found_line, missing_path
from omkd.engine.shell_words import raw_words, words

pytestmark = pytest.mark.engine


def _comment(line: str) -> bool:
    """A ``#`` starting a word outside quotes, read one character at a time."""
    quote, i = "", 0
    while i < len(line):
        c = line[i]
        if quote == '"' and c == "\\":
            i += 2  # an escaped character in double quotes
            continue
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return True
        i += 1
    return False


def walked(command: str) -> list[tuple[str, str]]:
    """The rules read one character at a time: quotes (a backslash escapes only in double
    quotes) and ``$( … )`` hide the operators ``&&`` ``||`` ``;`` ``\\n`` ``|``."""
    parts: list[tuple[str, str]] = []
    current: list[str] = []
    operator, quote, depth = "", "", 0
    i = 0
    while i < len(command):
        c = command[i]
        continued = next((n for n in ("\\\n", "\\\r\n") if command.startswith(n, i)), "")
        after_space = i == 0 or command[i - 1].isspace()
        line = command[command.rfind("\n", 0, i) + 1 : i]
        words = line.split()
        root = len(words) == 1 and words[0].lower() in ("cd", "chdir", "pushd", "sl", "set-location", "push-location")
        if continued and quote != "'" and after_space and not root and not _comment(line):  # `` \\`` at a line's end
            i += len(continued)
            continue
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i + 1 < len(command):
                current.append(c)
                i += 1
                c = command[i]
        elif c in "'\"":
            quote = c
        elif command.startswith("$(", i):
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif depth == 0 and (command.startswith(("&&", "||"), i) or c in ";\n|"):
            op = command[i : i + 2] if command.startswith(("&&", "||"), i) else c
            parts.append((operator, "".join(current)))
            current, operator = [], op
            i += len(op)
            continue
        current.append(c)
        i += 1
    parts.append((operator, "".join(current)))
    return [(op, text) for op, text in parts if text.strip()]


def test_operators_split_and_quotes_and_substitutions_do_not() -> None:
    """Each operator starts a stage; inside quotes or ``$( … )`` it is text."""
    command = "cd x && ls 'a|b' | grep \"y;z\" || echo $(date; true) ; true\nfind ."
    expected = [
        ("", "cd x "),
        ("&&", " ls 'a|b' "),
        ("|", ' grep "y;z" '),
        ("||", " echo $(date; true) "),
        (";", " true"),
        ("\n", "find ."),
    ]
    assert expected == split_top_level(command)


def test_an_escaped_quote_stays_inside_double_quotes_only() -> None:
    """``\\"`` does not close a double-quoted text; in single quotes a backslash is a character."""
    assert split_top_level('echo "a\\"|b" | wc') == [("", 'echo "a\\"|b" '), ("|", " wc")]
    assert split_top_level("echo 'a\\'|b'") == [("", "echo 'a\\'"), ("|", "b'")]


def test_a_line_ending_in_a_backslash_goes_on_on_the_next() -> None:
    """``curl -s \\`` and ``"https://…"`` on the next line are one command; in single quotes the
    backslash and the line's end are text, and a path ending in a backslash ends its line."""
    command = 'curl -s \\\n  "https://api.example.com/v1/retry" \\\r\n  -H "A: b" | grep -c id'
    assert split_top_level(command) == [
        ("", 'curl -s   "https://api.example.com/v1/retry"   -H "A: b" '),
        ("|", " grep -c id"),
    ]
    assert split_top_level("python3 -c 'x = 1 + \\\n 2'") == [("", "python3 -c 'x = 1 + \\\n 2'")]
    assert split_top_level('echo "a \\\n  b"') == [("", 'echo "a   b"')]
    assert split_top_level("cd C:\\proj\\\nGet-ChildItem") == [("", "cd C:\\proj\\"), ("\n", "Get-ChildItem")]
    assert split_top_level("cd \\\nls /opt/retry") == [("", "cd \\"), ("\n", "ls /opt/retry")]  # PowerShell's root
    assert split_top_level("cd src && \\\nls retry") == [("", "cd src "), ("&&", " ls retry")]  # after an operator
    assert split_top_level("cat \\\n/etc/retry.conf") == [("", "cat /etc/retry.conf")]
    assert split_top_level('grep -n " #TODO" a.py && \\\n  cat b.py') == [
        ("", 'grep -n " #TODO" a.py '),
        ("&&", "   cat b.py"),
    ]
    assert split_top_level("# both places \\\n  cat /etc/retry.conf") == [
        ("", "# both places \\"),
        ("\n", "  cat /etc/retry.conf"),
    ]


def test_an_unclosed_quote_runs_to_the_end() -> None:
    """Nothing after an unclosed quote splits, not even a trailing backslash."""
    assert split_top_level('ls "a | b\\') == [("", 'ls "a | b\\')]


@given(st.text(alphabet="ab $()&|;\n\r\t#-'\"\\", max_size=24))
def test_the_token_scan_splits_as_the_character_walk_does(command: str) -> None:
    """Any mix of quotes, escapes, substitutions and operators splits as the plain walk says."""
    assert walked(command) == split_top_level(command)


_ONE_CHARACTER_AT_A_TIME = re.compile(r"""(?:'[^']*'|"(?:\\.|[^"\\])*"|[^\s'"])+""")
"""A word read one unquoted character (or one quoted text) per step."""


def test_quotes_join_a_word_and_are_removed() -> None:
    """Quoted texts are part of the word around them; an unclosed quote ends a word."""
    assert words("""grep -rn 'a b'"c d"e f ab"cd""") == ["grep", "-rn", "a bc de", "f", "ab", "cd"]


def test_a_command_substitution_stays_inside_its_word() -> None:
    """``$( … )`` is part of the word around it, as it never splits a command (one level)."""
    assert words("ls /run/user/$(id -u)/claude-1000/ 2>/dev/null") == [
        "ls",
        "/run/user/$(id -u)/claude-1000/",
        "2>/dev/null",
    ]
    assert raw_words('cat "$HOME"/$(date +%F).log') == ["cat", '"$HOME"/$(date +%F).log']
    assert words("echo $ a $(x)y z") == ["echo", "$", "a", "$(x)y", "z"]


_SPACES = "\t\n\x0b\x1c\u00a0\u2003"
"""Whitespace beyond the space: what ``\\s`` and ``str.split`` both cut at (a stage without quotes is
split by the latter)."""


def _unquoted_by_walking(word: str) -> str:
    """A word's text read one character at a time: single quotes keep everything up to the next one,
    double quotes drop the backslash before ``"``, ``$`` and a backtick and keep a pair of backslashes
    whole, an unquoted backslash stays."""
    out: list[str] = []
    state, i = "", 0
    while i < len(word):
        c = word[i]
        if state == "'":
            state = "" if c == "'" else state
            out += [] if c == "'" else [c]
        elif state == '"' and c == "\\" and i + 1 < len(word) and word[i + 1] in '"$`':
            out.append(word[i + 1])
            i += 1
        elif state == '"' and c == "\\" and i + 1 < len(word) and word[i + 1] == "\\":
            out += ["\\", "\\"]  # a pair, kept as written (PowerShell's "\\server"), its second escapes nothing
            i += 1
        elif state == '"':
            state = "" if c == '"' else state
            out += [] if c == '"' else [c]
        elif c in "'\"":
            state = c
        else:
            out.append(c)
        i += 1
    return "".join(out)


@given(st.text(alphabet="ab '\"\\$`" + _SPACES, max_size=24))
def test_words_are_the_runs_the_character_reading_finds(stage: str) -> None:
    """Any mix of quotes, escapes and spaces gives the words of the one-character reading, each with its
    quotes read as the shell reads them."""
    expected = [_unquoted_by_walking(w) for w in _ONE_CHARACTER_AT_A_TIME.findall(stage)]
    assert words(stage) == expected


def test_a_backslash_before_a_space_ends_the_word() -> None:
    """PowerShell's and cmd's paths end in a backslash (``gci C:\\shop\\docs\\ -Recurse``), and omkd cannot
    tell which shell wrote a command: a backslash before a space is the end of a word, not an escape."""
    assert words("gci C:\\shop\\docs\\ -Recurse") == ["gci", "C:\\shop\\docs\\", "-Recurse"]
    assert words('ls "a\\ b" C:\\Users\\x') == ["ls", "a\\ b", "C:\\Users\\x"]


def test_quotes_inside_quotes_are_text() -> None:
    """A ``"`` inside single quotes and an escaped ``\\"`` inside double quotes are what the program gets."""
    assert words("""grep -oP '"digest":"[^"]+"' page.html""") == ["grep", "-oP", '"digest":"[^"]+"', "page.html"]
    assert words(r'rg "\.from\(\"issues\"" src') == ["rg", '\\.from\\("issues"', "src"]
    assert words(r'echo "a\\b \$HOME" C:\Users\x') == ["echo", "a\\\\b $HOME", "C:\\Users\\x"]
    unc = "\\\\fileserver\\share\\retry.yaml"  # PowerShell and cmd read a double-quoted UNC path as written
    assert words(f'Get-Content "{unc}"') == words(f"Get-Content '{unc}'") == ["Get-Content", unc]


@given(st.text(alphabet="ab '\"\\" + _SPACES, max_size=24))
def test_raw_words_keep_their_quotes(stage: str) -> None:
    """The words as written (a carrier's command, a redirection's target): the same runs, quotes kept."""
    assert raw_words(stage) == _ONE_CHARACTER_AT_A_TIME.findall(stage)


def test_a_not_found_line_is_one_path_long_at_most() -> None:
    """A program's not-found line names one path (at most PATH_MAX) and its message; a longer line is
    output, and is not matched at all (the expressions' ``.*`` runs are quadratic on such a line)."""
    deep = "/srv/" + "d/" * 2000 + "retry.yaml"
    assert is_not_found_line(f"ls: cannot access '{deep}': No such file or directory")
    assert missing_path(f"cat: {deep}: No such file or directory") is not None
    repeated = "a: cannot access " * 300 + ": No such file or directory"
    assert not is_not_found_line(repeated)
    assert missing_path(repeated) is None
