"""One anchor's episode as the summary carries it (plain data: the gaps entries and
``omkd explain`` read it; the state store saves it)."""

from __future__ import annotations

from typing import Any, Final, NamedTuple


class Episode(NamedTuple):
    anchor: str
    """``failed_search``, ``hedging`` or ``explicit_marker``."""
    line: int
    """The anchor's line: a miss's call, a hedge's text."""
    result_line: int
    """A miss's result line (its gap entry's line); a hedge's text line."""
    call_id: str
    tokens: tuple[str, ...]
    """What a miss looked for (its target tokens); a hedge's sentence."""
    eligible: bool | None
    """A miss: specific and unanswered (§8.1.2); None for a hedge anchor."""
    not_eligible_because: str
    """Why a miss is not eligible (empty when it is)."""
    outcome: str | None
    """``recovered``, ``created``, ``asked``, ``proceeded``, ``dropped``; None while the window is open."""
    outcome_line: int | None
    outcome_how: str
    """The recovering call, the write, the question."""
    acknowledged: bool
    related: bool
    rejected: bool
    window_end: int | None
    """The line the window ended at (None while open)."""
    window_ended_by: str
    """``turn``, ``segment end``, ``end of stream``, ``cap`` ("" while open)."""
    failed: bool = False
    """The deciding write failed (an error, a non-zero exit, the harness refused it: §8.3.3); last,
    so that an episode saved by position before it reads back unchanged."""


_RENAMED: Final = (("why", "not_eligible_because"), ("end_reason", "window_ended_by"))
"""Fields the first omkd with §8 saved under another name (old name, name now)."""


def episode_of(plain: list[Any] | dict[str, Any]) -> Episode:
    """An episode saved as plain data: a list by position (a shorter one, of an older omkd, has
    None for the fields it lacks) or an object by name; its tokens a list."""
    if isinstance(plain, list):
        plain = dict(zip(Episode._fields, plain, strict=False))
    for old, new in _RENAMED:
        if old in plain and new not in plain:
            plain[new] = plain[old]
    values: dict[str, Any] = {name: plain.get(name) for name in Episode._fields}
    values["tokens"] = tuple(values["tokens"] or ())
    values["failed"] = bool(values["failed"])
    return Episode(**values)
