"""And-or lists and the fallbacks that cover them (spec §3.1: ``… || echo TEXT`` hides a miss).

``A && B || echo X`` prints X when A or B failed; after ``;`` or a new line a new list starts, unless
inside braces, a loop or a branch (``{ cat a; cat b; } || echo X``). ``shell.parse`` records X as a
fallback when the list it ends holds a search or probe and nothing after it but printing.
"""

from __future__ import annotations

from typing import Final

from omkd.engine import shell_rules

LOOKS, PRINTS, ACTS = "looks", "prints", "acts"
"""What one pipeline of a list does, for the fallback after it (``after``)."""
_OPENERS: Final = frozenset({"{", "(", "for", "while", "until", "if", "case", "select"})
_CLOSERS: Final = frozenset({"}", ")", "done", "fi", "esac"})


def after(probing: bool, done: str) -> bool:
    """Whether a fallback now hides a lookup's miss: a pipeline that looks starts it, one that only
    prints keeps it, one that acts (a build, a script at work) ends it."""
    return True if done == LOOKS else (probing if done == PRINTS else False)


def nesting(text: str) -> int:
    """How many braces, loops or branches a list part opens (1), closes (-1) or neither (0)."""
    words = text.split()
    if not words:
        return 0
    opened = words[0] in _OPENERS or (words[0].startswith("(") and not words[0].startswith("$("))
    closed = words[0] in _CLOSERS or (words[-1].endswith(")") and text.count(")") > text.count("("))
    return int(opened) - int(closed)


def echoed_text(program: str, args: list[str], text: str) -> str | None:
    """What an ``echo``/``printf`` of a literal prints (None for anything with a variable in it)."""
    if program not in shell_rules.SHELL_RULE.fallbacks or "$" in text or "`" in text:
        return None
    words = [a for a in args if not (program == "echo" and a in ("-e", "-n"))]
    return " ".join(words).replace("\\n", "").strip()
