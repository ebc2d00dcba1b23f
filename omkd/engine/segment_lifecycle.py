"""Where a stream's segments begin and end: ``SegmentLifecycle``, the base of ``StreamSegmenter``.

A segment is opened, cut when a record names another skill, and handed out when it changed
(``take_changed``). A segment opened by a ``Skill`` call or a command frame is *tentative* until
its launch is confirmed: a launch that fails (an error result, ``<local-command-stderr>``) is undone
and its records go back to the segment that was current. What each event does is ``segment.py``;
the state both work on is made by ``StreamSegmenter.__init__`` and declared here.
"""

from __future__ import annotations

from omkd.engine import skills
from omkd.engine.calls import CallTracker
from omkd.engine.counters import StreamCounters
from omkd.engine.formats import CLAUDE_CODE
from omkd.engine.hedge_judge import HedgeVerdict
from omkd.engine.lineage import Lineage
from omkd.engine.links import Link
from omkd.engine.metacog.episodes import MetaTracker
from omkd.engine.native import mypyc_attr
from omkd.engine.segmenting import Observer, SegmenterRules, StreamContext
from omkd.engine.skills import same_skill
from omkd.engine.summary import Segment, SegmentSummary
from omkd.engine.text_signals import TextSignals


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # StreamSegmenter's base
class SegmentLifecycle:
    """The segments of one stream: opened, cut, confirmed or undone, handed out."""

    stream: str
    role: str
    counters: StreamCounters
    observer: Observer | None
    current: Segment
    """The segment the records being read belong to."""
    calls: CallTracker
    texts: TextSignals
    lineage: Lineage
    meta: MetaTracker | None
    _context: StreamContext
    _rules: SegmenterRules
    _ordinal: int
    _changed: dict[int, Segment]
    _previous: Segment | None
    """The segment a tentative one was cut from (it takes it back if the launch fails)."""
    _launch: str | None
    """The call id of the tentative segment's ``Skill`` call ("" for a command frame)."""
    _launched: bool

    def rebind(self, context: StreamContext) -> None:
        """Read the stream through another adapter (its format is known now: before any event)."""
        self._context = context
        self.lineage.rebind(context)

    def _open(self, skill: str, rule: str) -> Segment:
        segment = Segment(self.stream, self.role, self._ordinal, skill)
        self._ordinal += 1
        segment.session_id = self._context.session_id
        segment.cwd = self._context.cwd
        segment.started_by = rule
        if self.observer is not None:
            self.observer.segment_started(segment, rule, self._context.line)
        return segment

    def _cut(self, skill: str, rule: str) -> Segment:
        closing = self.current
        if closing.tentative:  # cut before its launch was answered: it stands
            closing.tentative = False
            self._previous = self._launch = None
        closing.open = False
        if self.meta is not None and closing.meta is not None:
            self.meta.ended(closing.meta, rule, self._context.line, closing.end_line)
        if self.observer is not None:
            self.observer.segment_ended(closing, rule, self._context.line)
        if closing.counts:
            self._changed[closing.ordinal] = closing
        self.current = self._open(skill, rule)
        return closing

    def _switch(self, raw: str, rule: str, launch: str | None = None) -> None:
        """A record names a skill: a new segment when it is another one (tentative for a launch)."""
        name = skills.normalise(raw)
        if not skills.is_valid(name):
            self.counters.invalid_skill_names += 1
            return
        if self._builtin(name):
            name = skills.GENERAL  # a built-in run as a skill: Claude Code's own knowledge
        current = self.current
        if name == current.skill and not current.inherit:
            return
        if rule == "attributionSkill" and same_skill(name, current.skill) and not current.inherit:
            if ":" in name and ":" not in current.skill and not current.emitted:
                current.skill = name  # the qualified name of the plugin skill called by its bare name
            return
        self._settle()
        previous = self._cut(name, rule)
        if launch is not None and name != skills.GENERAL:
            self.current.tentative = True
            self._previous, self._launch, self._launched = previous, launch, False

    def _settle(self) -> None:
        """The tentative segment's launch is confirmed (anything but its failure came next)."""
        if self.current.tentative:
            self.current.tentative = False
            self._changed[self.current.ordinal] = self.current
        self._previous = self._launch = None

    def _undo_launch(self, why: str) -> None:
        """The launch failed: its records go back to the segment it was cut from."""
        failed, previous = self.current, self._previous
        self._previous = self._launch = None
        if previous is None or not failed.tentative:
            return
        previous.absorb(failed)
        previous.open = True
        self.calls.repoint(failed, previous)
        self.texts.repoint(failed, previous)
        self._changed.pop(failed.ordinal, None)
        self._changed[previous.ordinal] = previous
        self.current = previous
        if self.observer is not None:
            self.observer.segment_undone(failed, previous, why, self._context.line)

    def refine(self, key: str, verdict: HedgeVerdict | None) -> None:
        """A refined hedging verdict arrived: the segments it changes are handed out again."""
        for segment in self.texts.refine(key, verdict):
            if segment.counts:
                self._changed[segment.ordinal] = segment

    @property
    def stream_key(self) -> str:
        """What the segment keys name the stream by: its content's identity, else its name."""
        return self._context.stream_key or self.stream

    def take_changed(self) -> list[SegmentSummary]:
        """Summaries of the counted segments that changed since the last call."""
        stream_key = self.stream_key
        inherit = self.lineage.inherit_keys(stream_key)
        agent = self._context.agent
        changed = []
        for segment in self._changed.values():
            if segment.counts and not segment.tentative:
                segment.emitted = True
                segment.stream = self.stream  # the file's name now (renamed since it was opened)
                changed.append(segment.summary(stream_key, inherit, agent))
        self._changed = {k: s for k, s in self._changed.items() if s.tentative}
        return changed

    def tentative(self) -> SegmentSummary | None:
        """The segment whose launch is not answered yet (None: there is none), as the end of the
        stream would settle it (``close``), without settling it: a live stream gone quiet counts it
        so (``engine/quiet.py``), and the launch can still be undone if the stream grows."""
        current = self.current
        if not current.tentative or not current.counts:
            return None
        stream_key = self.stream_key
        current.stream = self.stream
        return current.summary(stream_key, self.lineage.inherit_keys(stream_key), self._context.agent)

    def take_links(self) -> list[Link]:
        return self.lineage.take_links()

    def close(self) -> list[SegmentSummary]:
        """The stream ended (idle, deleted, end of a batch read): close its open segment.

        Closing changes no figure; pending calls are forgotten.
        """
        self._settle()
        self._cut(skills.GENERAL, "end of stream")
        self.calls.pending.clear()
        return self.take_changed()

    def _builtin(self, name: str) -> bool:
        """One of Claude Code's built-in commands (other agents' skills of that name are skills)."""
        return self._context.agent == CLAUDE_CODE and name.lower() in self._rules.builtin_commands

    def _touch(self, segment: Segment, timestamp: float | None) -> None:
        segment.touch(timestamp, self._context.line)
        self._changed[segment.ordinal] = segment
