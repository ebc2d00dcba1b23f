"""``omkd wiki --lint``: what is wrong with a wiki, found from its pages alone.

Kinds of problem (``KINDS``): a link to a page that does not exist (or leaves the wiki); a skill
or topic page the index does not link (an orphan); an index line whose page is missing or says
something else (another title, another number of entries); a page without entries (or without
its generated part); an example whose transcript file no longer exists; damaged markers.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from omkd.engine.wiki.pages import (
    INDEX,
    SECTIONS,
    SKILL_TITLE,
    SKILLS_DIR,
    TOPIC_TITLE,
    TOPICS_DIR,
    generated_part,
)
from omkd.engine.wiki.slugs import code_spans, without_code

BROKEN_LINK: Final = "broken link"
ORPHAN: Final = "orphan page"
INDEX_MISMATCH: Final = "index line does not match its page"
NO_ENTRIES: Final = "page without entries"
MISSING_EXAMPLE: Final = "example file no longer exists"
KINDS: Final = (BROKEN_LINK, ORPHAN, INDEX_MISMATCH, NO_ENTRIES, MISSING_EXAMPLE)

_LINK: Final = re.compile(r"\]\(([^()\s]+)\)")
_INDEX_LINE: Final = re.compile(r"^- \[(?P<title>.*)\]\((?P<target>[^()\s]+)\) — (?P<summary>.*)$")
_NUMBER: Final = re.compile(r"(\d+)")
_EXTERNAL: Final = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


@dataclass(frozen=True, slots=True, order=True)
class Problem:
    page: str
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.page}: {self.kind}: {self.detail}"


def _links(text: str) -> list[str]:
    return [target for line in text.splitlines() for target in _LINK.findall(without_code(line))]


def _target(page: str, link: str) -> str | None:
    """The wiki path a relative link names (None: an external link, or an anchor)."""
    if _EXTERNAL.match(link) or link.startswith("#"):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(page), link.split("#", 1)[0]))


def _entry_headings(part: str) -> int:
    """Entries: a topic page's ``## `` headings, a skill page's ``### `` ones (``## `` in a page of
    an older omkd), not its sections (``pages.SECTIONS``)."""
    return sum(1 for line in part.splitlines() if line.startswith(("## ", "### ")) and not line.startswith(SECTIONS))


def _title(part: str) -> str | None:
    for line in part.splitlines():
        if line.startswith("# "):
            return line[2:].removeprefix(SKILL_TITLE).removeprefix(TOPIC_TITLE)
    return None


def _examples(part: str) -> list[str]:
    """The transcript files the examples name (``path:line`` in the first code span)."""
    found = []
    for line in part.splitlines():
        if line.startswith("  - "):
            spans = code_spans(line)
            if spans and ":" in spans[0]:
                found.append(spans[0].rsplit(":", 1)[0])
    return found


def lint(pages: Mapping[str, str], exists: Callable[[str], bool]) -> list[Problem]:
    """Problems of the wiki whose Markdown pages (path relative to the wiki → text) are given;
    ``exists`` tells whether an example's transcript file is still there."""
    problems: list[Problem] = []
    for page, text in sorted(pages.items()):
        for link in _links(text):
            target = _target(page, link)
            if target is not None and (target.startswith("../") or target == ".." or target not in pages):
                problems.append(Problem(page, BROKEN_LINK, f"{link} (no such page)"))
    kept = {p: t for p, t in pages.items() if p.startswith((SKILLS_DIR + "/", TOPICS_DIR + "/"))}
    index = pages.get(INDEX)
    listed: set[str] = set()
    if index is not None:
        for line in index.splitlines():
            found = _INDEX_LINE.match(line)
            if found is None:
                continue
            target = _target(INDEX, found["target"]) or found["target"]
            listed.add(target)
            problems += _index_line(target, found["title"], found["summary"], kept.get(target))
    for page, text in sorted(kept.items()):
        if page not in listed:
            problems.append(Problem(page, ORPHAN, "not linked from index.md"))
        part = generated_part(text)
        if part is None:
            problems.append(Problem(page, NO_ENTRIES, "no generated part (its markers are missing or damaged)"))
            continue
        if _entry_headings(part) == 0:
            problems.append(Problem(page, NO_ENTRIES, "the generated part lists no entry"))
        problems += [Problem(page, MISSING_EXAMPLE, file) for file in sorted(set(_examples(part))) if not exists(file)]
    return sorted(problems)


def _index_line(target: str, title: str, summary: str, text: str | None) -> list[Problem]:
    if text is None:
        return [Problem(INDEX, INDEX_MISMATCH, f"{target}: no such page")]
    part = generated_part(text)
    if part is None:
        return []  # told as the page's own problem
    problems = []
    if _title(part) != title:
        problems.append(Problem(INDEX, INDEX_MISMATCH, f"{target}: the index names {title}, the page {_title(part)}"))
    number = _NUMBER.search(summary)
    entries = _entry_headings(part)
    if number is None or int(number.group(1)) != entries:
        problems.append(Problem(INDEX, INDEX_MISMATCH, f"{target}: the index says {summary!r}, the page has {entries}"))
    return problems
