"""And-or lists and the fallbacks that cover them (spec §3.1: ``… || echo TEXT`` hides a miss).

``A && B || echo X`` prints X when A or B failed; after ``;`` or a new line a new list starts, and a
group's, loop's or branch's closing word carries on the last list inside it (``{ cat a; cat b; } ||
echo X``). ``shell.parse`` records X as a fallback when the list it ends holds a search or probe and
nothing after it but printing.
"""

from __future__ import annotations

import re
from typing import Final

from omkd.engine import shell_rules

LOOKS, PRINTS, ACTS = "looks", "prints", "acts"
"""What one pipeline of a list does, for the fallback after it (``after``)."""
_LIST_ENDS: Final = frozenset({";", "\n"})
_CLOSERS: Final = frozenset({"}", "done", "fi", "esac"})
"""Words that close a group, a loop or a branch: the list part they start ends what is inside, and a
fallback after them covers the last list inside (the group's status is its last command's)."""


def after(probing: bool, done: str) -> bool:
    """Whether a fallback now hides a lookup's miss: a pipeline that looks starts it, one that only
    prints keeps it, one that acts (a build, a script at work) ends it."""
    return True if done == LOOKS else (probing if done == PRINTS else False)


def ends_list(operator: str, text: str) -> bool:
    """A list part after ``operator`` starts a new and-or list: after ``;`` or a new line, unless the
    part closes a group, loop or branch (``{ cat a; cat b; } || echo X``: X says ``cat b`` failed)."""
    if operator not in _LIST_ENDS:
        return False
    words = text.split(maxsplit=1)
    return not words or words[0] not in _CLOSERS


def on_success(operator: str, text: str) -> bool:
    """A part that runs only when the lookup before it succeeded: after ``&&``, or the ``then`` branch
    of an ``if`` whose condition looked (``if grep -q X f; then echo yes; fi``)."""
    return operator == "&&" or (operator in _LIST_ENDS and text.lstrip().startswith("then"))


_COMPUTED: Final = re.compile(r"\$(?![A-Za-z_]\w*|\{[A-Za-z_]\w*\})")
"""A ``$`` that starts no plain variable (``$?``, ``$1``, ``$(…)``, ``${f%.md}``): its text is not known."""


def echoed_text(program: str, args: list[str], text: str) -> str | None:
    """What an ``echo``/``printf`` of a literal prints, a plain variable kept as written (``"$f missing"``:
    a loop's fallback, its variable standing for each item: ``loop_items.fallback_lines``); None for a
    command substitution or an expansion that computes (``$(…)``, ``${f%.md}``, backquotes)."""
    if program not in shell_rules.SHELL_RULE.fallbacks or "`" in text:
        return None
    if "$" in text and _COMPUTED.search(text):
        return None
    words = [a for a in args if not (program == "echo" and a in ("-e", "-n")) and a.lower() != "-nonewline"]
    return " ".join(words).replace("\\n", "").strip()
