"""Which skill a stream works for when another stream launched it: the links it gives and needs.

A launching stream gives a ``Link`` for each sub-agent it starts (by the call's prompt, by the
result's ``agentId``, by the ``progress`` mirrors); a sub-agent stream needs one, and names the keys
it can be found by (its own ``agentId``, its first prompt). A sub-agent's own records stay its
launcher's; a skill it calls is what the agents it launches next work for. Warm-up agents and
compaction workers are no one's work: their streams are ``noise``.
"""

from __future__ import annotations

from typing import Final

from omkd.engine import skills
from omkd.engine.events import AgentLink, SidechainPrompt
from omkd.engine.links import Link, link_key
from omkd.engine.native import mypyc_attr
from omkd.engine.segmenting import StreamContext
from omkd.engine.summary import Segment

WARMUP_PROMPT: Final = "Warmup"
COMPACTION_AGENT_PREFIX: Final = "acompact"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
class Lineage:
    def __init__(self, role: str, context: StreamContext, builtin_commands: frozenset[str]) -> None:
        self._subagent = role == "subagent"
        self._context = context
        self._builtins = builtin_commands
        self._links: list[Link] = []
        self._prompt_key: str | None = None
        self._called: str | None = None
        """In a sub-agent stream, the skill it called: the one the agents it launches work for."""
        self.noise = False

    def rebind(self, context: StreamContext) -> None:
        self._context = context

    def inherit_keys(self, stream_key: str) -> tuple[str, ...]:
        """The keys a sub-agent stream's skill can be learnt by. Before its records name any (no
        ``agentId``, no first prompt read yet), a key no link carries: its segments wait, as they
        would had the keys been read already, instead of counting as ``general`` at once (the
        figures must not depend on when the reading stopped)."""
        keys = []
        if self._context.agent_id:
            keys.append(link_key("agent", self._context.session_id, self._context.agent_id))
        if self._prompt_key is not None:
            keys.append(self._prompt_key)
        if not keys and self._subagent:
            keys.append(link_key("unnamed", self._context.session_id, stream_key))
        return tuple(keys)

    def take_links(self) -> list[Link]:
        links, self._links = self._links, []
        return links

    def prompt(self, event: SidechainPrompt) -> None:
        """A sub-agent's first prompt: the key its launcher's call carries (or a noise agent)."""
        if self._prompt_key is not None or not self._subagent:
            return
        agent = self._context.agent_id or ""
        if event.text.strip() == WARMUP_PROMPT or agent.startswith(COMPACTION_AGENT_PREFIX):
            self.noise = True
            return
        self._prompt_key = link_key("prompt", self._context.session_id, event.text)

    def calls_skill(self, name: str) -> None:
        if self._subagent:
            self._called = name

    def launched_with(self, prompt: str, segment: Segment, timestamp: float | None) -> None:
        self._link(link_key("prompt", self._context.session_id, prompt), segment, timestamp)

    def launched_agent(self, agent_id: str, segment: Segment, timestamp: float | None) -> None:
        self._link(link_key("agent", self._context.session_id, agent_id), segment, timestamp)

    def agent(self, event: AgentLink, segment: Segment) -> None:
        self.launched_agent(event.agent_id, segment, event.timestamp)

    def _link(self, key: str, segment: Segment, timestamp: float | None) -> None:
        stream_key = self._context.stream_key or segment.stream
        source = f"{segment.session_id or '-'}|{stream_key}|{segment.ordinal}"
        if self._called is not None:
            skill = skills.GENERAL if self._called.lower() in self._builtins else self._called
            self._links.append(Link(key, skill, (), timestamp, source))
        elif segment.inherit:
            self._links.append(Link(key, None, self.inherit_keys(stream_key), timestamp, source))
        else:
            self._links.append(Link(key, segment.skill, (), timestamp, source))
