"""What a knowledge change is, and which skills it affects (spec §9.1, §9.2).

An *edit* is what the shell found: a commit touching knowledge files (its author time), or a
file's modification time. Edits affecting a skill within ``merge_within`` of each other (default
1 h, chained: each within that of the one before) in one project are one *change*, dated at its last edit: the
knowledge as it stood once the change was made. A file's *place* says what it can affect: a
skill's own folder that skill only, an instruction or knowledge file every skill (``general``
included); in one project (the segments whose ``cwd`` is inside it) or, for user-level files,
in every project.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

HOUR: Final = 3600.0
DAY: Final = 86400.0
DEFAULT_MERGE_WITHIN: Final = HOUR
DEFAULT_SPAN: Final = 14 * DAY


@dataclass(frozen=True, slots=True)
class Edit:
    """One commit touching knowledge files (``commit`` its short hash), or one file's mtime
    (``commit`` empty)."""

    timestamp: float
    commit: str
    subject: str
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Place:
    """Where a knowledge file sits: in a skill's own folder (``skill``, the folder's name) or not
    (None: an instruction or knowledge file); in a project (its directory) or the user's (None)."""

    skill: str | None
    project: str | None


@dataclass(frozen=True, slots=True)
class Change:
    """Edits affecting one skill, merged: from ``first`` to ``at`` (its last edit)."""

    at: float
    first: float
    commits: tuple[str, ...]
    subjects: tuple[str, ...]
    files: tuple[str, ...]
    projects: tuple[str, ...] | None
    """The projects whose segments it affects (None: every project, a user-level file)."""

    def overlaps(self, other: Change) -> bool:
        """Both can affect the same segments (a user-level change overlaps every other)."""
        if self.projects is None or other.projects is None:
            return True
        return bool(set(self.projects) & set(other.projects))


def affects(place: Place, skill: str) -> bool:
    """A skill folder affects the skill of its name (a plugin's ``plugin:name`` by ``name``); any
    other knowledge file affects every skill."""
    return place.skill is None or place.skill == skill.rsplit(":", 1)[-1]


def inside(cwd: str | None, projects: Sequence[str] | None) -> bool:
    """A segment run in ``cwd`` is in one of ``projects`` (None: every project)."""
    if projects is None:
        return True
    if not cwd:
        return False
    return any(cwd == project or cwd.startswith(project.rstrip("/") + "/") for project in projects)


def changes_of(
    skill: str, edits: Iterable[Edit], places: Mapping[str, Place], merge_within: float = DEFAULT_MERGE_WITHIN
) -> list[Change]:
    """The changes affecting ``skill``, oldest first: the edits touching a file whose place
    affects it, merged when within ``merge_within`` of the edit before in the same project (the
    user's files are a project of their own: edits of two projects at one moment are two changes)."""
    groups: dict[str | None, list[list[tuple[Edit, list[str]]]]] = {}
    for edit in sorted(edits, key=lambda e: (e.timestamp, e.commit, e.files)):
        by_project: dict[str | None, list[str]] = {}
        for path in edit.files:
            if path in places and affects(places[path], skill):
                by_project.setdefault(places[path].project, []).append(path)
        for project, touched in by_project.items():
            runs = groups.setdefault(project, [])
            if runs and edit.timestamp - runs[-1][-1][0].timestamp <= merge_within:
                runs[-1].append((edit, touched))
            else:
                runs.append([(edit, touched)])
    merged = [_merged(run, project) for project, runs in groups.items() for run in runs]
    return sorted(merged, key=lambda c: (c.at, c.projects or (), c.commits))


def _merged(run: list[tuple[Edit, list[str]]], project: str | None) -> Change:
    return Change(
        at=run[-1][0].timestamp,
        first=run[0][0].timestamp,
        commits=tuple(edit.commit for edit, _ in run if edit.commit),
        subjects=tuple(dict.fromkeys(edit.subject for edit, _ in run)),
        files=tuple(sorted({f for _, touched in run for f in touched})),
        projects=None if project is None else (project,),
    )
