"""Whether an entry quiet since a knowledge change may be said ``not seen since`` it (spec §9.6).

The segment-count rule has one owner, the impact report (``impact/compare.pattern_fates``): a
pattern seen before a change and not after it is ``not seen since`` only when the after side has
at least as many segments as the before side had when the pattern last occurred, ``too early to
tell`` otherwise. The wiki keeps no segment counts; each merge asks the impact report of the same
segments (``judged``) and marks an entry ``too_early`` when the report says so of its pattern
after the change its ``quiet_since`` edit belongs to (``settle``). When the report says nothing
of it (the pattern's last occurrence lies before that change's before side, or the segments
around the change are no longer held), the entry keeps what an earlier merge found.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from omkd.engine import skills
from omkd.engine.impact.schema import NOT_SEEN_SINCE, TOO_EARLY, ImpactResult
from omkd.engine.wiki.entries import Entry, SkillState, WikiState, normalise


@dataclass(frozen=True, slots=True)
class Judged:
    """One change of a row as the impact report saw it: its first and last edit (to the second,
    as the wiki writes times) and the patterns seen before it and not after, by status."""

    first: str
    at: str
    too_early: frozenset[str]
    not_seen: frozenset[str]


def _second(moment: str) -> str:
    """An ISO-8601 moment to the second (``…T14:00:00``), as both the wiki and the report write it."""
    return moment[:19]


def judged(results: Iterable[ImpactResult]) -> dict[str, list[Judged]]:
    """The impact report's results by row (patterns as the wiki's entries name them: the failed
    searches' patterns are already relative to their project, spec §6)."""
    by_row: dict[str, list[Judged]] = {}
    for result in results:
        fates = [(normalise(g.pattern, None), g.status) for g in result.gaps]
        by_row.setdefault(skills.row_key(result.skill, result.agent), []).append(
            Judged(
                first=_second(result.change.first),
                at=_second(result.change.at),
                too_early=frozenset(p for p, status in fates if status == TOO_EARLY),
                not_seen=frozenset(p for p, status in fates if status == NOT_SEEN_SINCE),
            )
        )
    return by_row


def too_early(entry: Entry, found: Iterable[Judged]) -> bool:
    """Whether the report finds it too early to say the entry was not seen since its quiet change
    (what the entry knew when the report says nothing of it)."""
    quiet = entry.quiet_since
    if quiet is None:
        return False
    moment = _second(quiet.timestamp)
    said = [
        j for j in found if j.first <= moment <= j.at and (entry.pattern in j.too_early or entry.pattern in j.not_seen)
    ]
    if not said:
        return entry.too_early
    return any(entry.pattern in j.too_early for j in said)


def settle(state: WikiState, by_row: Mapping[str, list[Judged]]) -> WikiState:
    """``state`` with each quiet entry's ``too_early`` as the impact report finds it."""
    rows = {}
    for row, skill in state.skills.items():
        found = by_row.get(row, [])
        entries = {
            pattern: dataclasses.replace(entry, too_early=too_early(entry, found))
            for pattern, entry in skill.entries.items()
        }
        rows[row] = SkillState(row, entries)
    return WikiState(rows)
