"""How a shell command splits into pipeline stages: by hand-written examples, and as a property
against a plain character-by-character walk of the same rules (the token scan must agree)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from omkd.engine.shell import split_top_level


def walked(command: str) -> list[tuple[str, str]]:
    """The rules read one character at a time: quotes (a backslash escapes only in double
    quotes) and ``$( … )`` hide the operators ``&&`` ``||`` ``;`` ``\\n`` ``|``."""
    parts: list[tuple[str, str]] = []
    current: list[str] = []
    operator, quote, depth = "", "", 0
    i = 0
    while i < len(command):
        c = command[i]
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


def test_an_unclosed_quote_runs_to_the_end() -> None:
    """Nothing after an unclosed quote splits, not even a trailing backslash."""
    assert split_top_level('ls "a | b\\') == [("", 'ls "a | b\\')]


@given(st.text(alphabet="ab $()&|;\n'\"\\", max_size=24))
def test_the_token_scan_splits_as_the_character_walk_does(command: str) -> None:
    """Any mix of quotes, escapes, substitutions and operators splits as the plain walk says."""
    assert walked(command) == split_top_level(command)
