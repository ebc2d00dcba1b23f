"""Page names from transcript text, and the Markdown quoting of transcript text.

Skill names and search patterns come from what an agent wrote, so a page name is never taken as
it is: a name that already fits ``SLUG`` is its own slug; anything else is cut down to the
characters the whitelist allows and gets a hash of the whole name, so two names never share a
page and ``../../etc/x`` becomes ``etc-x-<hash>``. Text shown on a page is put in code spans with
whitespace collapsed, so it can neither start a Markdown construct nor forge a marker line.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

SLUG: Final = re.compile(r"^[a-z0-9][a-z0-9._-]{0,80}$")
HASH_CHARS: Final = 8
_OUTSIDE: Final = re.compile(r"[^a-z0-9._-]+")
_WHITESPACE: Final = re.compile(r"\s+")
_BACKTICKS: Final = re.compile(r"`+")
SHOWN_CHARS: Final = 300
"""Longest text shown in one code span (a pattern or context is cut to this)."""


def name_hash(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_CHARS]


def slug(name: str) -> str:
    """The page name of ``name``: itself when it fits ``SLUG``, else its allowed characters (at most
    72) and a hash of the whole name."""
    if SLUG.match(name):
        return name
    kept = _OUTSIDE.sub("-", name.lower()).strip("-._")[: 80 - HASH_CHARS - 1].rstrip("-._")
    made = f"{kept}-{name_hash(name)}" if kept else name_hash(name)
    assert SLUG.match(made), made
    return made


def flat(text: str, limit: int = SHOWN_CHARS) -> str:
    """One line: whitespace (newlines included) collapsed, control characters dropped, cut."""
    line = _WHITESPACE.sub(" ", "".join(c if c.isprintable() or c.isspace() else " " for c in text)).strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


def code(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` as one CommonMark code span: a backtick fence longer than any run inside it."""
    line = flat(text, limit) or " "
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(line)), default=0) + 1)
    if line.startswith("`") or line.endswith("`") or (line.startswith(" ") and line.endswith(" ")):
        line = f" {line} "
    return f"{fence}{line}{fence}"


_SPAN: Final = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def code_spans(line: str) -> list[str]:
    """The contents of the code spans of one line (as ``code`` wrote them)."""
    found = []
    for match in _SPAN.finditer(line):
        inner = match.group(2)
        if len(inner) > 2 and inner.startswith(" ") and inner.endswith(" ") and inner.strip():
            inner = inner[1:-1]
        found.append(inner)
    return found


def without_code(line: str) -> str:
    """The line with its code spans blanked (links inside them are not links)."""
    return _SPAN.sub(lambda m: " " * len(m.group(0)), line)


_INLINE_MARKUP: Final = re.compile(r"([\\`*_{}\[\]<>()#!|~&])")
"""What could start inline Markdown or HTML in the middle of a line (emphasis, code, links, images,
tags, entities, tables, strikethrough)."""


_LINKABLE: Final = re.compile(r"((?:https?|ftp)://\S+|www\.\S+|[\w.+-]+@[\w-]+\.[\w.-]+)", re.IGNORECASE)
"""What GitHub turns into a link even when escaped (its extended autolinks): shown as code."""


def plain(text: str, limit: int = 2 * SHOWN_CHARS) -> str:
    """``text`` as one line of Markdown that is only text: each character that could start inline
    markup backslash-escaped (CommonMark allows it), and anything GitHub would make a link of in a
    code span, so no emphasis, link, HTML or marker."""
    pieces = _LINKABLE.split(flat(text, limit))
    return "".join(code(piece) if n % 2 else _INLINE_MARKUP.sub(r"\\\1", piece) for n, piece in enumerate(pieces))
