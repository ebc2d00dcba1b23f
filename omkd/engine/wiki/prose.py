"""An entry's prose, written by the optional LLM (seed 002): what is missing, merged over time.

The deterministic entry (pattern, counts, examples) is the wiki; the prose is an addition a
model writes from it, and merges with its own earlier prose when the entry grows. It is asked
again only when the entry's occurrences changed (``basis``), and whatever the model answers is
plain text, checked here (``accept``) before a page shows it. When the model fails, nothing of
the entry changes: the page is the deterministic one, with the prose it had, if any, marked
with the count it was written at. Pure: the asking is ``shell/wiki_prose.py``'s.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Mapping
from typing import Final

from omkd.engine.wiki.entries import Entry, Prose, SkillState, WikiState

PROSE_VERSION: Final = 1
"""Bumped when the prompt changes: every prose is then written again."""
MAX_CHARS: Final = 600
EXAMPLES_SHOWN: Final = 3
SYSTEM: Final = (
    "You keep a gap wiki: the knowledge AI coding agents looked for in a project and did not find. "
    "Given one entry (what was looked for, how often, example contexts) and the entry's earlier "
    "summary if there is one, write a merged summary of at most three sentences: what knowledge "
    "seems to be missing and where a maintainer would add it. Plain text only: no Markdown, no "
    "lists, no links, no HTML. Never invent facts that the examples do not show."
)
Key = tuple[str, str]
"""An entry as (row, pattern)."""


def basis(entry: Entry, model: str) -> str:
    """What a prose was written from: the model, the prompt version and the entry's occurrences."""
    digest = hashlib.sha256(f"{PROSE_VERSION}\0{model}\0{chr(0).join(entry.identities)}".encode())
    return digest.hexdigest()[:16]


def wanted(state: WikiState, model: str, limit: int) -> list[Key]:
    """The entries whose prose is missing or older than their occurrences, most seen first, at
    most ``limit`` (an update's cost stays bounded; the rest wait for the next one)."""
    stale = [
        (row, pattern, entry.count)
        for row, skill in state.skills.items()
        for pattern, entry in skill.entries.items()
        if not entry.said and (entry.prose is None or entry.prose.basis != basis(entry, model))
    ]
    stale.sort(key=lambda item: (-item[2], item[0], item[1]))
    return [(row, pattern) for row, pattern, _ in stale[:limit]]


def request(label: str, entry: Entry) -> str:
    """The user message for one entry."""
    lines = [
        f"Skill: {label}",
        f"Missing: {entry.pattern}",
        f"Looked for with: {', '.join(entry.tools)}; {entry.count} times in {len(entry.sessions)} sessions, "
        f"first {entry.first_seen or 'unknown'}, last {entry.last_seen or 'unknown'}",
        "Examples:",
        *(f"- {example.context}" for example in entry.examples[:EXAMPLES_SHOWN]),
    ]
    if entry.prose is not None:
        lines.append(f"Earlier summary (written at {entry.prose.seen} times seen): {entry.prose.text}")
    return "\n".join(lines)


_SPACE = re.compile(r"\s+")


def accept(text: str) -> str | None:
    """The model's answer as one paragraph of plain text, or None when it is not one."""
    flat = _SPACE.sub(" ", text).strip()
    if not flat or len(flat) > MAX_CHARS or "<!--" in flat or "-->" in flat:
        return None
    return flat


def with_prose(state: WikiState, written: Mapping[Key, str], model: str) -> WikiState:
    """``state`` with the prose the model wrote for these entries."""
    rows = dict(state.skills)
    for (row, pattern), text in written.items():
        skill = rows[row]
        entry = skill.entries[pattern]
        prose = Prose(text=text, model=model, basis=basis(entry, model), seen=entry.count)
        rows[row] = SkillState(row, {**skill.entries, pattern: dataclasses.replace(entry, prose=prose)})
    return WikiState(rows)
