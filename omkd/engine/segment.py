"""Cut one stream into per-skill segments and collect each segment's signals.

``StreamSegmenter`` is a state machine fed one event at a time, in file order. It never looks
ahead, so the figures after N lines are the same in one pass or as a live tail in any chunking.

Where segments begin and end — cuts, and a launch that stays *tentative* until confirmed and is
undone when it fails — is ``SegmentLifecycle`` (``segment_lifecycle.py``); here, what each event
does. A plugin skill called by its bare name takes its
qualified name from the body it injects (or Claude Code's ``attributionSkill``) before it is
handed out. A sub-agent stream starts in the skill of the segment that launched it: until the
fold learns which one (``links``), its first segments carry the keys to learn it by.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

from omkd.engine import judge, shell_reads, skills
from omkd.engine.calls import CallTracker
from omkd.engine.counters import StreamCounters
from omkd.engine.events import (
    AgentLink,
    AssistantText,
    CommandFailed,
    CommandInvoked,
    Compaction,
    Event,
    ForkQuestion,
    Interrupted,
    SidechainPrompt,
    SkillBody,
    ToolCall,
    ToolResult,
    Usage,
    UserPrompt,
    tokens_of,
)
from omkd.engine.lineage import Lineage
from omkd.engine.messages import RecentMessages
from omkd.engine.metacog.episodes import MetaTracker, meta_of
from omkd.engine.native import mypyc_attr
from omkd.engine.segment_lifecycle import SegmentLifecycle
from omkd.engine.segmenting import Observer, SegmenterRules, StreamContext
from omkd.engine.skills import plugin_of
from omkd.engine.summary import Segment, SegmentSummary
from omkd.engine.text_signals import Refiner, TextSignals

__all__ = ["SegmentSummary", "StreamSegmenter"]
"""``SegmentSummary`` is named here for the summaries omkd 0.1.0 pickled as
``omkd.engine.segment.SegmentSummary`` (its home then): a state it wrote is read back through this
name (``daemon/state/queries.py``'s ``summary_of``; ``tests/test_state_upgrade.py``). Import it from
``summary``."""

SUBAGENT: Final = "subagent"
LAUNCH_TOOLS: Final = frozenset({"Task", "Agent"})
"""Tools that launch a sub-agent (``Task`` up to 2.1.4x, ``Agent`` after)."""


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # made without __init__ on restore, as in Python
class StreamSegmenter(SegmentLifecycle):
    """Segments of one stream, fed its events in file order. ``take_changed`` hands out the
    segments that changed (``SegmentLifecycle``)."""

    def __init__(
        self,
        stream: str,
        role: str,
        context: StreamContext,
        rules: SegmenterRules,
        counters: StreamCounters,
        observer: Observer | None = None,
        replaying: bool = False,
        refiner: Refiner | None = None,
    ) -> None:
        self.stream = stream
        self._replaying = replaying
        self.role = role
        self._context = context
        self._rules = rules
        self.counters = counters
        self.observer = observer
        self.texts = TextSignals(rules, observer, refiner)
        self._answering: str | None = None
        """The message answering the tool results just read ("" until its first record; None when
        the last thing read was not a tool result)."""
        self._ordinal = 0
        self.calls = CallTracker(context, rules.extra_search_tools)
        self._messages = RecentMessages()
        self._turn = 0
        self._changed = {}
        self._previous = None
        self._launch = None
        self._launched = False
        self._replaced: tuple[str, str, str] | None = None
        """(skill replaced, message id, call id) of the last ``Skill`` call: Claude Code stamps the
        old skill on records of that message, and until the result, before it knows the new one."""
        self.lineage = Lineage(role, context, rules.builtin_commands)
        self.meta: MetaTracker | None = None
        if rules.metacog and not replaying:
            self.meta = MetaTracker(rules.window_calls, rules.unchecked_write_load)
        self._dry: StreamSegmenter | None = None
        self.current = self._open(skills.GENERAL, "stream start")
        self.current.inherit = role == "subagent"

    # --- events --------------------------------------------------------------------------------

    def handle(self, event: Event) -> None:
        if self.lineage.noise:
            return
        if self._context.copying and not self._replaying:
            self._replay(event)
            return
        kind = type(event)
        launched = self._launch == "" or self._launched
        if self.current.tentative and launched and kind not in _NOT_SETTLING:
            self._settle()
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event)

    def _command_failed(self, event: CommandFailed) -> None:
        if self.current.tentative and self._launch == "":
            self._undo_launch("command failed (<local-command-stderr>)")

    def _interrupted(self, event: Interrupted) -> None:
        if self.meta is not None and self.current.meta is not None:
            self.meta.person_turn(self.current.meta, self._context.line)

    def _compaction(self, event: Compaction) -> None:
        self.counters.compactions += 1

    def _replay(self, event: Event) -> None:
        """A fork's copy of its parent's conversation: only the skill current at its end matters."""
        if self._dry is None:
            # only the skill current at the fork point matters: the replay reads no text signals
            rules = dataclasses.replace(self._rules, hedging=False, metacog=False)
            self._dry = StreamSegmenter(self.stream, "main", self._context, rules, StreamCounters(), replaying=True)
        self._dry.handle(event)

    def _fork_question(self, event: ForkQuestion) -> None:
        dry, self._dry = self._dry, None
        if dry is not None:
            dry._settle()
            self.current.skill = dry.current.skill
        self.current.inherit = False
        self.current.started_by = "inherited from the parent at the fork point"

    def _prompt(self, event: UserPrompt) -> None:
        self._answering = None
        self.calls.remember_prompt(event.text)
        if self.meta is not None and self.current.meta is not None:
            self.meta.person_turn(self.current.meta, self._context.line)
        if self.current.skill != skills.GENERAL:
            self._cut(skills.GENERAL, "typed prompt")
        self._touch(self.current, event.timestamp)

    def _command(self, event: CommandInvoked) -> None:
        name = skills.normalise(event.name)
        if self._context.subagent:
            # a sub-agent's stream by its own records (Codex, Gemini): a skill launched in it is its
            # launcher's work, as a Claude Code sub-agent's Skill call is (§2), and no person's turn
            self.counters.ignored["subagent_skill"] += 1
        elif self._builtin(name):
            if name.lower() == "clear":
                self._settle()
                self._cut(skills.GENERAL, "/clear")
        else:
            if self.meta is not None and self.current.meta is not None:
                self.meta.person_turn(self.current.meta, self._context.line)
            self._switch(name, "command frame", launch="")
        self._touch(self.current, event.timestamp)

    def _skill_body(self, event: SkillBody) -> None:
        current = self.current
        plugin = plugin_of(event.base_dir)
        bare = ":" not in current.skill and current.skill != skills.GENERAL
        if plugin is not None and bare and not current.emitted:
            current.skill = f"{plugin}:{current.skill}"
            previous = self._previous
            if current.tentative and previous is not None and previous.skill == current.skill:
                # the plugin skill that was running, called again by its bare name: one segment
                self._undo_launch("the current plugin skill called again by its bare name")

    def _sidechain_prompt(self, event: SidechainPrompt) -> None:
        self.lineage.prompt(event)

    def _agent_link(self, event: AgentLink) -> None:
        pending = self.calls.pending.get(event.call_id)
        if pending is not None:
            self.lineage.agent(event, pending.segment)

    def _attribution(self, raw: str | None, message_id: str) -> None:
        if not raw:
            return
        replaced = self._replaced
        stale = replaced is not None and (message_id == replaced[1] or replaced[2] in self.calls.pending)
        if stale and replaced is not None and skills.normalise(raw) == replaced[0]:
            return  # stamped before Claude Code knew of the new skill
        self._switch(raw, "attributionSkill")

    def _assistant(self, message_id: str, usage: Usage, timestamp: float | None, model: str = "") -> Segment:
        answering = self._answering
        if answering == "":
            self._answering = message_id
        elif answering is not None and answering != message_id:
            self._answering = None
        segment = self.current
        segment.assistant_parts += 1
        if self._messages.first(message_id):
            self._turn += 1
            segment.turns += 1
            tokens = tokens_of(usage)
            totals = segment.tokens
            totals[0] += tokens[0]
            totals[1] += tokens[1]
            totals[2] += tokens[2]
            totals[3] += tokens[3]
            if model:
                segment.models[model] += 1
        if segment.session_id is None:
            segment.session_id = self._context.session_id
        if segment.cwd is None:
            segment.cwd = self._context.cwd
        if self._context.subagent:
            # a sub-agent's stream by its own records (Codex, Gemini; read before any message): its
            # segments are a sub-agent's for §8, whichever file name it has (the lineage keeps the role
            # the name gave: such a stream is not held for a link to its launcher)
            segment.role = SUBAGENT
        self._touch(segment, timestamp)
        if self.observer is not None:
            self.observer.assistant_record(segment, self._context.line)
        return segment

    def _assistant_text(self, event: AssistantText) -> None:
        self._attribution(event.attribution_skill, event.message_id)
        segment = self._assistant(event.message_id, event.usage, event.timestamp, event.model)
        kept = self.texts.read(event, segment, self._turn, self._context.line, self._answering is not None)
        if self.meta is not None and (kept or segment.meta is not None):
            meta = meta_of(segment)
            self.meta.text(meta, event.text, event.thinking, event.message_id, self._context.line, kept)

    def _tool_call(self, event: ToolCall) -> None:
        self._attribution(event.attribution_skill, event.message_id)
        tool = judge.unwrapped(event.tool)
        if tool == "Skill" and self.role == "subagent":
            # A sub-agent's records stay its launcher's (Claude Code stamps them so); the skill it
            # calls is the one the agents it launches from now on work for.
            name = event.input.get("skill")
            if isinstance(name, str) and skills.is_valid(skills.normalise(name)):
                self.lineage.calls_skill(skills.normalise(name))
        elif tool == "Skill":
            name = event.input.get("skill")
            if isinstance(name, str):
                before = self.current.skill
                self._switch(name, "Skill call", launch=event.call_id)
                if self.current.skill != before:
                    self._replaced = (before, event.message_id, event.call_id)
        elif self.current.skill == skills.GENERAL and self.role != "subagent":
            from_file = shell_reads.skill_file_read(event)
            if from_file is not None:
                self._switch(from_file, "SKILL.md read")
        segment = self._assistant(event.message_id, event.usage, event.timestamp, event.model)
        self.calls.add(segment, event, self._turn, self._context.line)
        if self.meta is not None:
            self.meta.call(meta_of(segment), event, self._context.line)
        if tool in LAUNCH_TOOLS:
            prompt = event.input.get("prompt")
            if isinstance(prompt, str) and prompt.strip():
                self.lineage.launched_with(prompt, segment, event.timestamp)

    def _tool_result(self, event: ToolResult) -> None:
        self._answering = ""
        answered = self.calls.answer(event, self._context.line, self._context.cwd, self.observer)
        if answered is None:
            self.counters.orphan_results += 1
            return
        pending, _, verdict = answered
        self._changed[pending.segment.ordinal] = pending.segment
        if self.meta is not None and pending.segment.meta is not None:
            self.meta.result(
                pending.segment.meta, pending.call, event, verdict, pending.line, self._context.line, self._context.cwd
            )
        if event.call_id == self._launch:
            if event.is_error:
                self._undo_launch("Skill call failed")
            else:
                self._launched = True
        if judge.unwrapped(pending.call.tool) in LAUNCH_TOOLS and isinstance(event.detail, dict):
            agent = event.detail.get("agentId")
            if isinstance(agent, str) and agent:
                self.lineage.launched_agent(agent, pending.segment, event.timestamp)


_NOT_SETTLING: Final = frozenset({CommandFailed, SkillBody, Interrupted})
"""Events that do not settle a tentative launch (they say nothing of whether it ran)."""

_HANDLERS: Final[dict[type, Callable[[StreamSegmenter, Any], None]]] = {
    AssistantText: StreamSegmenter._assistant_text,
    ToolCall: StreamSegmenter._tool_call,
    ToolResult: StreamSegmenter._tool_result,
    UserPrompt: StreamSegmenter._prompt,
    CommandInvoked: StreamSegmenter._command,
    CommandFailed: StreamSegmenter._command_failed,
    Interrupted: StreamSegmenter._interrupted,
    SkillBody: StreamSegmenter._skill_body,
    SidechainPrompt: StreamSegmenter._sidechain_prompt,
    AgentLink: StreamSegmenter._agent_link,
    ForkQuestion: StreamSegmenter._fork_question,
    Compaction: StreamSegmenter._compaction,
}
"""What each kind of event does (one lookup per event, in the hot path)."""
