"""Which skill launched a sub-agent: links from the launching streams, and the segments that wait.

A sub-agent's work is done for the skill whose segment launched it. The launching stream
says so in three ways — the call's ``input.prompt`` (the sub-agent's first prompt), the
call's result ``toolUseResult.agentId``, the ``progress`` mirrors' ``parentToolUseID`` and
``agentId`` — and each becomes a ``Link``. A sub-agent segment that does not know its skill
yet carries the keys of these links; ``LinkBook`` holds it until one of them is known (or,
live, until ``subagent_link_timeout`` of event time passes; then it counts as ``general``).
A link may itself point at the keys of its launching segment (a sub-agent launched by a
sub-agent): such chains are followed.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from omkd.engine import skills
from omkd.engine.plain import fields_state, set_fields_state
from omkd.engine.summary import SegmentSummary

MAX_CHAIN: Final = 8
"""Sub-agents launched by sub-agents, followed this deep at most."""


@dataclass(frozen=True, slots=True)
class Link:
    """What a launching stream says about a sub-agent: its skill, or the keys of the (itself
    inherited) skill of the segment that launched it."""

    key: str
    skill: str | None
    via: tuple[str, ...] = ()
    timestamp: float | None = None
    source: str = ""
    """The key of the segment holding the launching call (shown by ``omkd explain``)."""

    def __getstate__(self) -> list[object]:
        return fields_state(self)

    def __setstate__(self, state: list[object]) -> None:
        set_fields_state(self, state)


def link_key(kind: str, session: str | None, value: str) -> str:
    """``agent|<session>|<agent id>`` or ``prompt|<session>|<hash of the prompt>``."""
    if kind == "prompt":
        value = hashlib.blake2b(value.strip().encode(), digest_size=12).hexdigest()
    return f"{kind}|{session or '-'}|{value}"


def _earlier(a: Link, b: Link) -> bool:
    """Which of two links for one key stands: the earliest (the same whatever order files are read)."""
    return (a.timestamp or 0.0, a.skill or "", a.via) < (b.timestamp or 0.0, b.skill or "", b.via)


class LinkBook:
    def __init__(self, record_sources: bool = False) -> None:
        self.known: dict[str, Link] = {}
        self.pending: dict[str, SegmentSummary] = {}
        self.record_sources = record_sources
        self.resolved_by: dict[str, str] = {}
        """Segment key -> the launching segment it inherited from (kept for ``omkd explain`` only)."""

    def resolve(self, keys: tuple[str, ...], depth: int = 0) -> str | None:
        """The skill these keys lead to, or None while no link is known."""
        found = self._resolve(keys, depth)
        return found.skill if found is not None else None

    def _resolve(self, keys: tuple[str, ...], depth: int = 0) -> Link | None:
        if depth > MAX_CHAIN:
            return None
        for key in keys:
            link = self.known.get(key)
            if link is None:
                continue
            if link.skill is not None:
                return link
            found = self._resolve(link.via, depth + 1)
            if found is not None:
                return found
        return None

    def _resolved(self, summary: SegmentSummary, link: Link) -> SegmentSummary:
        if link.source and self.record_sources:
            self.resolved_by[summary.key] = link.source
        return dataclasses.replace(summary, skill=link.skill or skills.GENERAL, inherit=())

    def offer(self, summary: SegmentSummary) -> SegmentSummary | None:
        """The summary to fold (its skill resolved), or None while it waits for its link."""
        if not summary.inherit:
            return summary
        link = self._resolve(summary.inherit)
        if link is None:
            self.pending[summary.key] = summary
            return None
        self.pending.pop(summary.key, None)
        return self._resolved(summary, link)

    def learn(self, link: Link) -> list[SegmentSummary]:
        """Take a link; the waiting summaries it resolves, ready to fold."""
        old = self.known.get(link.key)
        if old is not None and not _earlier(link, old):
            return []
        self.known[link.key] = link
        ready = []
        for key, summary in list(self.pending.items()):
            found = self._resolve(summary.inherit)
            if found is not None:
                del self.pending[key]
                ready.append(self._resolved(summary, found))
        return ready

    def flush(self, before: float | None = None, held_since: Mapping[str, float] | None = None) -> list[SegmentSummary]:
        """Waiting summaries given up on (all, or those that started before ``before``): ``general``.

        A summary without any timestamp (a stream that carries none) has no start to measure: it
        counts from when it was first held waiting, ``held_since`` (without it, it waits)."""
        given_up = []
        for key, summary in list(self.pending.items()):
            start = summary.first_ts if summary.first_ts is not None else (held_since or {}).get(key)
            if before is None or (start is not None and start < before):
                del self.pending[key]
                given_up.append(dataclasses.replace(summary, skill=skills.GENERAL, inherit=()))
        return given_up

    def forget_before(self, horizon: float) -> list[str]:
        """Drop links older than the retention (their sub-agents are long settled); their keys."""
        gone = [k for k, link in self.known.items() if link.timestamp is not None and link.timestamp < horizon]
        for key in gone:
            del self.known[key]
        return gone
