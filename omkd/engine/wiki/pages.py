"""What the wiki's pages say, and how a page's generated part is spliced into what a person wrote.

Every page holds one generated part between ``BEGIN`` and ``END``, each a line of its own; text
above and below is the person's and is kept byte for byte. A page without markers (a person
removed them, or wrote the page first) keeps all its text and gets the generated part appended.
Pages say nothing about when they were written, so the same state renders the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from omkd.engine import patterns
from omkd.engine.wiki.entries import Change, Entry, SkillState, WikiState, posix_relative, topics
from omkd.engine.wiki.slugs import code, plain, slug

BEGIN: Final = "<!-- omkd wiki: generated part begins; it is replaced on each update, write outside it -->"
END: Final = "<!-- omkd wiki: generated part ends -->"
INDEX: Final = "index.md"
LOG: Final = "log.md"
SKILLS_DIR: Final = "skills"
TOPICS_DIR: Final = "topics"
SKILL_TITLE: Final = "Skill "
TOPIC_TITLE: Final = "Topic "
OPEN: Final = "open"
SAID_TITLES: Final = {
    patterns.HEDGING: "Hedging: what the agents said they were unsure of",
    patterns.EXPLICIT_MARKER: "Uncertainty markers: what the agents marked as guessed",
}
HARD_TO_FIND: Final = "## Hard to find"
MISSING: Final = "## Missing"
SECTIONS: Final = (HARD_TO_FIND, MISSING)
"""A skill page's two sections (spec §8: what the agents found themselves after a miss — the
knowledge exists, write a pointer to it; and what they never found — write the knowledge)."""


class MarkerError(ValueError):
    """The markers of a page are not one BEGIN line followed by one END line."""


@dataclass(frozen=True, slots=True)
class Page:
    path: str
    """Relative to the wiki: ``skills/<slug>.md``, ``topics/<slug>.md``."""
    title: str
    """The name it is about, as the index shows it (a code span)."""
    summary: str
    generated: str
    """The lines between the markers."""


def skill_path(row_label: str) -> str:
    return f"{SKILLS_DIR}/{slug(row_label)}.md"


def topic_path(pattern: str) -> str:
    return f"{TOPICS_DIR}/{slug(pattern)}.md"


def state_of(entry: Entry) -> str:
    """``not seen since <change>`` (none after the first change since its last occurrence),
    ``too early to tell after <change>`` (none yet, but too few segments since it: spec §9.6),
    ``recurring after <change>`` (seen before and after the latest such change), or ``open``."""
    if entry.quiet_since is not None and entry.too_early:
        return f"too early to tell after {describe(entry.quiet_since)} (too few segments since it)"
    if entry.quiet_since is not None:
        return f"not seen since {describe(entry.quiet_since)}"
    if entry.recurring_after is not None:
        return f"recurring after {describe(entry.recurring_after)}"
    return OPEN


def describe(change: Change) -> str:
    day = change.timestamp[:10]
    if change.commit:
        return f"commit {code(change.commit)} {code(change.subject, 120)} ({day})"
    return f"a change of the knowledge files on {day} ({change.subject})"


def _ordered(entries: dict[str, Entry]) -> list[Entry]:
    """Most seen first; then the most recently seen; then by pattern."""
    by_pattern = sorted(entries.values(), key=lambda e: e.pattern)
    recent = sorted(by_pattern, key=lambda e: e.last_seen or "", reverse=True)
    return sorted(recent, key=lambda e: -e.count)


def _said_lines(entry: Entry) -> list[str]:
    sessions = len(entry.sessions)
    return [
        f"## {SAID_TITLES.get(entry.kind, entry.kind)}",
        "",
        f"- state: {state_of(entry)}",
        f"- said: {entry.count} {'time' if entry.count == 1 else 'times'} in {sessions} "
        f"{'session' if sessions == 1 else 'sessions'}",
        f"- first seen: {entry.first_seen or 'unknown'}; last seen: {entry.last_seen or 'unknown'}",
        f"- the sentences, newest first ({len(entry.examples)} of {entry.count}):",
        *(f"  - {code(f'{e.file}:{e.line}')} {code(e.context)}" for e in entry.examples),
        "",
    ]


def _entry_lines(page: str, entry: Entry, topic: str | None) -> list[str]:
    if entry.said:
        return _said_lines(entry)
    sessions = len(entry.sessions)
    lines = [
        f"### {code(entry.pattern)}",
        "",
        f"- state: {state_of(entry)}",
        f"- seen: {entry.count} {'time' if entry.count == 1 else 'times'} in {sessions} "
        f"{'session' if sessions == 1 else 'sessions'}",
        f"- first seen: {entry.first_seen or 'unknown'}; last seen: {entry.last_seen or 'unknown'}",
        f"- looked for with: {', '.join(code(tool, 60) for tool in entry.tools)}",
    ]
    if entry.prose is not None:
        prose = entry.prose
        lines.append(f"- summary (by {code(prose.model, 60)}, at {prose.seen} times seen): {plain(prose.text)}")
    if entry.hard_to_find:
        lines.append(
            f"- found by the agents themselves afterwards: {len(entry.recovered)} of {entry.count} times, with:"
        )
        lines += [f"  - {code(f'{f.file}:{f.line}')} {code(f.how)}" for f in entry.found]
    if topic is not None:
        lines.append(f"- also missed by other skills: [{code(entry.pattern, 80)}]({posix_relative(page, topic)})")
    lines.append("- examples:")
    lines += [f"  - {code(f'{e.file}:{e.line}')} {code(e.context)}" for e in entry.examples]
    lines.append("")
    return lines


def skill_page(skill: SkillState, shared: set[str]) -> Page:
    path = skill_path(skill.label)
    ordered = _ordered(skill.entries)
    entries = [e for e in ordered if not e.said]
    said = [e for e in ordered if e.said]
    quiet = sum(1 for e in entries if e.quiet_since is not None)
    hard = [e for e in entries if e.hard_to_find]
    missing = [e for e in entries if not e.hard_to_find]
    things = "thing" if len(entries) == 1 else "things"
    open_ = len(entries) - quiet
    found = f"{len(entries)} {things} not found: {len(hard)} hard to find, {len(missing)} missing ({open_} open)"
    parts = [found] if entries or not said else []
    if said:
        told = sum(e.count for e in said)
        parts.append(f"{told} {'sentence' if told == 1 else 'sentences'} of doubt")
    summary = ", ".join(parts)
    if said:
        summary = f"{len(ordered)} {'entry' if len(ordered) == 1 else 'entries'}: {summary}"
    lines = [
        f"# {SKILL_TITLE}{code(skill.label)}",
        "",
        f"What the agents running {code(skill.label)} looked for and did not find"
        f"{', then what they said they did not know' if said else ''}: {summary}. Most seen first. "
        "[Back to the index](../index.md).",
        "",
    ]
    for heading, chosen, meaning in (
        (HARD_TO_FIND, hard, "The agents found these themselves after the miss: the knowledge exists; "
                             "write where it is (a pointer in the skill or `CLAUDE.md`), not the knowledge."),
        (MISSING, missing, "The agents never found these: write the knowledge."),
    ):  # fmt: skip
        if chosen:
            lines += [f"{heading} ({len(chosen)})", "", meaning, ""]
        for entry in chosen:
            lines += _entry_lines(path, entry, topic_path(entry.pattern) if entry.pattern in shared else None)
    for entry in said:
        lines += _entry_lines(path, entry, None)
    return Page(path, code(skill.label), summary, "\n".join(lines).rstrip("\n"))


def topic_page(pattern: str, rows: list[str], state: WikiState) -> Page:
    path = topic_path(pattern)
    summary = f"missed by {len(rows)} skills"
    lines = [
        f"# {TOPIC_TITLE}{code(pattern)}",
        "",
        f"A missing thing several skills looked for: {summary}. [Back to the index](../index.md).",
        "",
    ]
    for row in rows:
        skill = state.skills[row]
        entry = skill.entries[pattern]
        lines += [
            f"## [{code(skill.label)}]({posix_relative(path, skill_path(skill.label))})",
            "",
            f"- state: {state_of(entry)}",
            f"- seen: {entry.count} in {len(entry.sessions)} sessions; last seen: {entry.last_seen or 'unknown'}",
            "",
        ]
    return Page(path, code(pattern), summary, "\n".join(lines).rstrip("\n"))


def pages_of(state: WikiState) -> list[Page]:
    """Every skill page and topic page of ``state``, in path order."""
    shared = topics(state)
    made = [skill_page(skill, set(shared)) for skill in state.skills.values() if skill.entries]
    made += [topic_page(pattern, rows, state) for pattern, rows in shared.items()]
    return sorted(made, key=lambda p: p.path)


def index_part(pages: list[Page]) -> str:
    lines = ["# Gap wiki", "", "One line per page. Written by `omkd wiki`; see `log.md` for its updates.", ""]
    for heading, folder in (("Skills", SKILLS_DIR), ("Topics", TOPICS_DIR)):
        chosen = [p for p in pages if p.path.startswith(folder + "/")]
        if chosen:
            lines += [f"## {heading}", ""]
            lines += [f"- [{p.title}]({p.path}) — {p.summary}" for p in chosen]
            lines.append("")
    return "\n".join(lines).rstrip("\n")


def splice(existing: str | None, generated: str) -> str:
    """The page with its generated part replaced; what lies outside the markers is kept."""
    block = f"{BEGIN}\n{generated}\n{END}\n"
    if existing is None:
        return block
    lines = existing.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == BEGIN]
    ends = [i for i, line in enumerate(lines) if line.rstrip("\r\n") == END]
    if not begins and not ends:
        text = existing if existing.endswith("\n") or not existing else existing + "\n"
        return f"{text}\n{block}" if text else block
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise MarkerError("the page's markers are damaged: expected one BEGIN line followed by one END line")
    return "".join(lines[: begins[0]]) + block + "".join(lines[ends[0] + 1 :])


def generated_part(text: str) -> str | None:
    """The lines between the markers (None when the page has no intact pair)."""
    lines = text.splitlines()
    begins = [i for i, line in enumerate(lines) if line == BEGIN]
    ends = [i for i, line in enumerate(lines) if line == END]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        return None
    return "\n".join(lines[begins[0] + 1 : ends[0]])


def log_line(moment: str, source: str, new: int, updated: int, written: list[str]) -> str:
    shown = ", ".join(written[:10]) + (f" and {len(written) - 10} more" if len(written) > 10 else "")
    return f"- {moment} {source}: {new} new entries, {updated} updated; wrote {shown or 'no page'}"


LOG_HEAD: Final = "# Gap wiki log\n\nOne line per update that changed something, oldest first.\n\n"
