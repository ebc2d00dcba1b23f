"""The wiki's state file as plain data (``state.json``): what ``entries`` keeps, written and read
back. A file of another version, or one that does not hold what an entry needs, is a
``StateError`` naming what is wrong."""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from omkd.engine import patterns
from omkd.engine.wiki.entries import Change, Entry, Example, Found, Prose, SkillState, WikiState

STATE_VERSION: Final = 1


def to_plain(state: WikiState) -> dict[str, Any]:
    return {
        "version": STATE_VERSION,
        "skills": {
            row: {pattern: dataclasses.asdict(entry) for pattern, entry in skill.entries.items()}
            for row, skill in sorted(state.skills.items())
        },
    }


class StateError(ValueError):
    """The state file is not a wiki state this omkd reads."""


def from_plain(document: object) -> WikiState:
    if not isinstance(document, dict) or document.get("version") != STATE_VERSION:
        raise StateError(f"not a wiki state of version {STATE_VERSION}")
    try:
        rows = {}
        for row, entries in document["skills"].items():
            kept = {}
            for pattern, data in entries.items():
                quiet, prose, recurring = data.get("quiet_since"), data.get("prose"), data.get("recurring_after")
                kept[pattern] = Entry(
                    pattern=str(data["pattern"]),
                    tools=tuple(map(str, data["tools"])),
                    identities=tuple(map(str, data["identities"])),
                    sessions=tuple(map(str, data["sessions"])),
                    first_seen=data["first_seen"],
                    last_seen=data["last_seen"],
                    examples=tuple(Example(**example) for example in data["examples"]),
                    quiet_since=Change(**quiet) if quiet else None,
                    prose=Prose(**prose) if prose else None,
                    recurring_after=Change(**recurring) if recurring else None,
                    too_early=data.get("too_early") is True,
                    kind=str(data.get("kind", patterns.FAILED_SEARCH)),
                    recovered=tuple(map(str, data.get("recovered", ()))),
                    found=tuple(Found(**place) for place in data.get("found", ())),
                )
            rows[str(row)] = SkillState(str(row), kept)
    except (KeyError, TypeError, AttributeError) as error:
        raise StateError(f"malformed wiki state: {error}") from error
    return WikiState(rows)
