"""The wiki's kept knowledge: one entry per missing thing of a skill, merged, never appended.

A missing thing is what a failed search looked for (spec §3.1): its pattern or path, normalised
(``normalise``) so that ``/home/dev/shop/docs/api.md`` and ``docs/api.md`` searched from
``/home/dev/shop`` are one entry. Each occurrence has an identity (``occurrence_id``: its
segment, which is named by the stream's content, its line, tool and pattern), and an entry keeps
the identities it has counted (and those the agent found itself afterwards), so merging the same
traces twice counts nothing twice, and merges in any order give the same entry: counts are sizes
of sets, first and last seen are a minimum and a maximum, examples are the newest three of the
union. An entry is ``not seen since`` the first knowledge change after its last occurrence
(``too early to tell`` while too few segments followed it: ``quiet.py``); ``recurring after`` the
latest change it was seen both before and after (spec §9.6: the fix did not take); open otherwise.
An entry is **hard to find** when the agent found it itself at least once after a miss (spec
§8.5.1: the knowledge is there, what is missing is a pointer to it; ``found`` says with what and
where), **missing** otherwise.
What the agents *said* they did not know (hedging, uncertainty markers) names no missing thing:
each kind is one entry of its skill (``said_key``), its occurrences the sentences, so a skill
whose gaps are all hedging has its page too, listing what was said.
"""

from __future__ import annotations

import dataclasses
import hashlib
import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from omkd.engine import patterns, skills
from omkd.engine.report.schema import GapEntry
from omkd.engine.wiki.slugs import flat

RECOVERED: Final = "recovered"
EXAMPLES: Final = 3
SENTENCES: Final = 10
"""Sentences kept per said entry (newest first): the sentences are what such an entry is about."""
CONTEXT_CHARS: Final = 200
SAID: Final = (patterns.HEDGING, patterns.EXPLICIT_MARKER)
KINDS: Final = (patterns.FAILED_SEARCH, *SAID)
"""The gap types the wiki keeps (``occurrences``)."""


def said_key(kind: str) -> str:
    """The key of a skill's entry of what was said (``kind`` hedging or explicit_marker): a NUL
    first, which no normalised search pattern holds, so it never meets a missing thing's key."""
    return f"\0{kind}"


def normalise(pattern: str, cwd: str | None) -> str:
    """A pattern as an entry names it: whitespace collapsed, a path below the project directory
    made relative to it, a leading ``./`` and a trailing ``/`` dropped."""
    text = flat(pattern, 10_000)
    if cwd:
        base = cwd.rstrip("/\\")
        for sep in ("/", "\\"):
            if base and text.startswith(base + sep):
                text = text[len(base) + 1 :]
                break
        else:
            if base and text == base:
                text = "."
    text = text.removeprefix("./")
    if len(text) > 1:
        text = text.rstrip("/")
    return text or "."


def occurrence_id(segment: str, line: int, tool: str, pattern: str) -> str:
    return hashlib.sha256(f"{segment}\0{line}\0{tool}\0{pattern}".encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One failed search, tied to its skill row."""

    row: str
    pattern: str
    tool: str
    identity: str
    session: str
    file: str
    """Where to open it: the transcript's path (absolute where known)."""
    line: int
    timestamp: str | None
    context: str
    kind: str = patterns.FAILED_SEARCH
    found_by: str = ""
    """What the agent found it with afterwards (the recovering call, spec §8.5.1); "" when it did not."""
    found_line: int | None = None


def occurrences(gaps: Iterable[GapEntry], path_of: Callable[[str], str] = str) -> list[Occurrence]:
    """The failed searches among ``gaps``, and what was said (hedging, uncertainty markers: the
    sentence as context); ``path_of`` turns a gap's ``file`` into a path to open."""
    found = []
    for gap in gaps:
        if gap.type == patterns.FAILED_SEARCH:
            raw, tool = str(gap.evidence.get("pattern", "")), str(gap.evidence.get("tool", ""))
            pattern, context, by = normalise(raw, gap.cwd), gap.context, tool
        elif gap.type in SAID:
            raw, tool = str(gap.evidence.get("sentence") or gap.context), ""
            pattern, context, by = said_key(gap.type), raw, gap.type
        else:
            continue
        found.append(
            Occurrence(
                row=skills.row_key(gap.skill, gap.agent),
                pattern=pattern,
                tool=tool,
                identity=occurrence_id(gap.segment, gap.line, by, raw),
                session=gap.session_id,
                file=path_of(gap.file),
                line=gap.line,
                timestamp=gap.timestamp,
                context=flat(context, CONTEXT_CHARS),
                kind=gap.type,
                found_by=flat(gap.outcome_how, CONTEXT_CHARS) if gap.outcome == RECOVERED else "",
                found_line=gap.outcome_line if gap.outcome == RECOVERED else None,
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class Example:
    file: str
    line: int
    timestamp: str | None
    context: str

    def order(self) -> tuple[str, str, int]:
        return (self.timestamp or "", self.file, -self.line)


@dataclass(frozen=True, slots=True)
class Found:
    """Where the agent found, itself, what a miss looked for: the pointer to write."""

    how: str
    file: str
    line: int | None
    timestamp: str | None

    def order(self) -> tuple[str, str, int, str]:
        return (self.timestamp or "", self.file, -(self.line or 0), self.how)


@dataclass(frozen=True, slots=True)
class Change:
    """A knowledge change (``shell/knowledge_history.py``) as the wiki keeps it."""

    timestamp: str
    commit: str
    subject: str


@dataclass(frozen=True, slots=True)
class Prose:
    """A summary the optional LLM wrote of an entry (``prose.py``)."""

    text: str
    model: str
    basis: str
    """What it was written from (``prose.basis``): written again when the entry's occurrences change."""
    seen: int
    """The entry's count when it was written."""


@dataclass(frozen=True, slots=True)
class Entry:
    pattern: str
    tools: tuple[str, ...]
    identities: tuple[str, ...]
    sessions: tuple[str, ...]
    first_seen: str | None
    last_seen: str | None
    examples: tuple[Example, ...]
    quiet_since: Change | None = None
    prose: Prose | None = None
    recurring_after: Change | None = None
    """The latest knowledge change it was seen both before and after (None: none such)."""
    too_early: bool = False
    """Too few segments followed ``quiet_since`` to say it was not seen since (``quiet.py``)."""
    kind: str = patterns.FAILED_SEARCH
    """A missing thing (failed_search), or what was said (hedging, explicit_marker)."""
    recovered: tuple[str, ...] = ()
    """The identities of its occurrences the agent found itself afterwards (spec §8.5.1)."""
    found: tuple[Found, ...] = ()
    """The newest places it was found that way (``EXAMPLES`` of them)."""

    @property
    def count(self) -> int:
        return len(self.identities)

    @property
    def said(self) -> bool:
        return self.kind != patterns.FAILED_SEARCH

    @property
    def hard_to_find(self) -> bool:
        """Found by the agent itself at least once: the knowledge exists, a pointer is missing."""
        return bool(self.recovered)


@dataclass(frozen=True, slots=True)
class SkillState:
    row: str
    entries: dict[str, Entry]

    @property
    def label(self) -> str:
        agent, skill = skills.split_row(self.row)
        return skills.row_label(skill, agent)


@dataclass(frozen=True, slots=True)
class WikiState:
    skills: dict[str, SkillState] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Merged:
    state: WikiState
    new: int
    updated: int


def _extreme(values: Iterable[str | None], pick: Callable[[Iterable[str]], str]) -> str | None:
    present = [v for v in values if v is not None]
    return pick(present) if present else None


def _quiet(last_seen: str | None, candidates: Iterable[Change | None]) -> Change | None:
    """The first change after the last occurrence (None: open)."""
    if last_seen is None:
        return None
    later = [c for c in candidates if c is not None and c.timestamp > last_seen]
    return min(later, key=lambda c: (c.timestamp, c.commit, c.subject), default=None)


def _recurring(first: str | None, last: str | None, candidates: Iterable[Change | None]) -> Change | None:
    """The latest change with an occurrence before it and one after it."""
    if first is None or last is None:
        return None
    between = [c for c in candidates if c is not None and first < c.timestamp < last]
    return max(between, key=lambda c: (c.timestamp, c.commit, c.subject), default=None)


def _merge_entry(old: Entry | None, found: list[Occurrence], changes: list[Change]) -> Entry:
    kind = old.kind if old else found[0].kind
    tools = {o.tool for o in found} | set(old.tools if old else ())
    identities = {o.identity for o in found} | set(old.identities if old else ())
    sessions = {o.session for o in found} | set(old.sessions if old else ())
    stamps = [o.timestamp for o in found] + ([old.first_seen, old.last_seen] if old else [])
    examples = {Example(o.file, o.line, o.timestamp, o.context) for o in found} | set(old.examples if old else ())
    recovered = {o.identity for o in found if o.found_by} | set(old.recovered if old else ())
    places = {Found(o.found_by, o.file, o.found_line, o.timestamp) for o in found if o.found_by}
    places |= set(old.found if old else ())
    last, first = _extreme(stamps, max), _extreme(stamps, min)
    quiet = _quiet(last, [old.quiet_since if old else None, *changes])
    return Entry(
        pattern=old.pattern if old else found[0].pattern,
        tools=tuple(sorted(tools)),
        identities=tuple(sorted(identities)),
        sessions=tuple(sorted(sessions)),
        first_seen=first,
        last_seen=last,
        examples=tuple(sorted(examples, key=Example.order, reverse=True)[: SENTENCES if kind in SAID else EXAMPLES]),
        quiet_since=quiet,
        prose=old.prose if old else None,
        recurring_after=_recurring(first, last, [old.recurring_after if old else None, *changes]),
        too_early=old is not None and old.quiet_since == quiet and old.too_early,
        kind=kind,
        recovered=tuple(sorted(recovered)),
        found=tuple(sorted(places, key=Found.order, reverse=True)[:EXAMPLES]),
    )


def merge(state: WikiState, found: Iterable[Occurrence], changes: Mapping[str, list[Change]]) -> Merged:
    """``state`` with these occurrences merged into their entries; ``changes``: the knowledge
    changes of each row's projects (a row not named keeps what its entries knew)."""
    grouped: dict[str, dict[str, list[Occurrence]]] = {}
    for occurrence in found:
        grouped.setdefault(occurrence.row, {}).setdefault(occurrence.pattern, []).append(occurrence)
    rows = dict(state.skills)
    new = updated = 0
    for row in sorted(set(rows) | set(grouped)):
        old_entries = rows[row].entries if row in rows else {}
        by_pattern = grouped.get(row, {})
        entries = {}
        for pattern in sorted(set(old_entries) | set(by_pattern)):
            old = old_entries.get(pattern)
            entry = _merge_entry(old, by_pattern.get(pattern, []), changes.get(row, []))
            if old is None:
                new += 1
            elif entry != old:
                updated += 1
            entries[pattern] = entry
        rows[row] = SkillState(row, entries)
    return Merged(WikiState(rows), new, updated)


def compared(before: WikiState, after: WikiState) -> Merged:
    """``after`` with its entries counted against ``before``: new ones, and changed ones."""
    new = updated = 0
    for row, skill in after.skills.items():
        old_entries = before.skills[row].entries if row in before.skills else {}
        for pattern, entry in skill.entries.items():
            old = old_entries.get(pattern)
            new += old is None
            updated += old is not None and old != entry
    return Merged(after, new, updated)


# --- plain data (the state file) ------------------------------------------------------------------


def topics(state: WikiState, least: int = 2) -> dict[str, list[str]]:
    """Patterns missed by at least ``least`` skills, each with those skills' rows (what was said
    names no missing thing: never a topic)."""
    rows: dict[str, list[str]] = {}
    for row, skill in sorted(state.skills.items()):
        for pattern, entry in skill.entries.items():
            if not entry.said:
                rows.setdefault(pattern, []).append(row)
    return {pattern: found for pattern, found in sorted(rows.items()) if len(found) >= least}


def posix_relative(page: str, target: str) -> str:
    """A link from ``page`` to ``target`` (both relative to the wiki)."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")
