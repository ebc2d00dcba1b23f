"""Why a transcript's figures are what they are: every segment with the rule that started it and
the reason it ended, every tool call with its verdict and the rule row that decided it, every text
candidate with its verdict. What ``omkd explain`` prints, and how the rules are checked against
hand-labelled transcripts.

``StreamExplainer`` is the segmenter's observer for one stream; ``explanation`` puts the streams
together once the fold knows every segment's final skill (a sub-agent's is its launcher's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from pydantic import BaseModel, ConfigDict

from omkd.engine.cues import Candidate
from omkd.engine.events import ToolCall
from omkd.engine.fold import Fold
from omkd.engine.hedge_judge import HedgeVerdict
from omkd.engine.patterns import FAILED_SEARCH
from omkd.engine.summary import Segment

SCHEMA_VERSION: Final = 2
"""2: candidates carry confidence, reason and after_tool_result (``episodes`` and ``writes`` are
added keys: no bump)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class SegmentRow(_Model):
    key: str
    skill: str
    file: str
    start_line: int
    end_line: int
    started_by: str
    """``Skill call``, ``command frame``, ``attributionSkill``, ``SKILL.md read``, ``typed prompt``,
    ``stream start``, ``inherited from <segment key>``…"""
    ended_by: str | None
    """``typed prompt``, ``/clear``, ``Skill call`` (another skill began), ``end of stream``…; None while open."""
    counted: bool
    """Holds an assistant record or a tool call (empty segments are dropped from the figures)."""


class CallRow(_Model):
    call_id: str
    tool: str
    verdict: str
    """``failed_search``, ``deduplicated``, ``user_given``, ``found``, ``not_a_search``, ``tool_fault``,
    ``cancelled``, ``harness_refused``."""
    rule: str
    """The rule row that decided (``Grep.empty_text``, ``shell.fallback``, ``Read.fault``…)."""
    file: str
    line: int
    """The line of the call (the ``tool_use`` record)."""
    result_line: int
    segment: str
    looked_for: str = ""
    """What a failed search looked for (its pattern, spec §6); empty for other verdicts."""
    typed: str = ""
    """What of a ``user_given`` miss the person named in a typed prompt (a path, a URL, a name, a phrase they
    quoted), as the call wrote it; empty for other verdicts."""


class CandidateRow(_Model):
    """A sentence the hedging net caught, with the verdict it got."""

    sentence: str
    context: str
    """Its neighbours, ``⟨…⟩`` where it stands."""
    cue: str
    is_uncertainty: bool
    confidence: float
    reason: str
    judge: str
    """``embedded-v1``, ``llm:<model>:<prompt version>`` (a cached LLM verdict)."""
    file: str
    line: int
    thinking: bool = False
    after_tool_result: bool = False


class UncoveredRow(_Model):
    """An assistant text part in a language the hedging net has no cues for: its hedges are not
    looked for, and it is never counted as certain (spec §3.3)."""

    file: str
    line: int
    language: str
    thinking: bool = False


class EpisodeRow(_Model):
    """What the agent did after one anchor (spec §8.1 to §8.5): a kept miss, a kept hedge or a marker."""

    anchor: str
    """``failed_search``, ``hedging``, ``explicit_marker``."""
    file: str
    line: int
    """The miss's call, the hedge's text."""
    result_line: int
    call_id: str
    """The miss's call id ("" for a hedge)."""
    segment: str
    tokens: list[str]
    """What the miss looked for (its target tokens); a hedge's sentence."""
    eligible: bool | None
    """A miss: specific and unanswered (§8.1.2); None for a hedge."""
    not_eligible_because: str
    outcome: str | None
    outcome_line: int | None
    outcome_how: str
    """The deciding call or text (the recovering call, the write, the question)."""
    acknowledged: bool
    related: bool
    rejected: bool
    window_end: int | None
    window_ended_by: str
    """``turn`` (the person's), ``segment end``, ``end of stream``, ``cap`` (the call cap)."""
    failed: bool
    """The deciding write failed (an error, a non-zero exit, a harness refusal: §8.3.3)."""


class WriteExplained(_Model):
    """A project write (spec §8.3) and its load (§8.6 M4)."""

    kind: str
    """``file_edit``, ``shell_write``, ``vcs``, ``dependency``, ``data``."""
    file: str
    line: int
    call_id: str
    segment: str
    paths: list[str]
    load: float
    anchors: list[int]
    """The lines of the anchors that made its load."""
    rejected: bool
    failed: bool
    """It failed (an error, a non-zero exit, a harness refusal): it still counts (§8.3.3)."""


class Explanation(_Model):
    schema_version: int
    segments: list[SegmentRow]
    calls: list[CallRow]
    candidates: list[CandidateRow]
    uncovered: list[UncoveredRow] = []
    episodes: list[EpisodeRow] = []
    writes: list[WriteExplained] = []


@dataclass(slots=True)
class _Seen:
    segment: Segment
    started_by: str
    line: int
    ended_by: str | None = None
    undone: bool = False


@dataclass(slots=True)
class StreamExplainer:
    """What one stream's segmenter decided, as it decided it."""

    file: str
    segments: list[_Seen] = field(default_factory=list)
    calls: list[tuple[ToolCall, int, str, str, int, Segment, str]] = field(default_factory=list)
    candidates: list[CandidateRow] = field(default_factory=list)
    uncovered: list[UncoveredRow] = field(default_factory=list)
    records: dict[int, Segment] = field(default_factory=dict)
    """The segment each assistant record (by line) was counted in."""

    def assistant_record(self, segment: Segment, line: int) -> None:
        self.records.setdefault(line, segment)

    def segment_started(self, segment: Segment, rule: str, line: int) -> None:
        self.segments.append(_Seen(segment, rule, line))

    def segment_ended(self, segment: Segment, reason: str, line: int) -> None:
        for seen in self.segments:
            if seen.segment is segment:
                seen.ended_by = reason

    def segment_undone(self, segment: Segment, into: Segment, reason: str, line: int) -> None:
        for seen in self.segments:
            if seen.segment is segment:
                seen.undone, seen.ended_by = True, reason
            elif seen.segment is into:
                seen.ended_by = None
        for at, holder in self.records.items():
            if holder is segment:
                self.records[at] = into

    def call_judged(
        self, call: ToolCall, call_line: int, verdict: str, rule: str, line: int, segment: Segment, typed: str
    ) -> None:
        self.calls.append((call, call_line, verdict, rule, line, segment, typed))

    def uncovered_text(self, language: str, line: int, thinking: bool) -> None:
        self.uncovered.append(UncoveredRow(file=self.file, line=line, language=language, thinking=thinking))

    def text_candidate(self, candidate: Candidate, verdict: HedgeVerdict, line: int) -> None:
        self.candidates.append(
            CandidateRow(
                sentence=candidate.sentence,
                context=candidate.context,
                cue=candidate.cue,
                is_uncertainty=verdict.is_uncertainty,
                confidence=verdict.confidence,
                reason=verdict.reason,
                judge=verdict.judge,
                file=self.file,
                line=line,
                thinking=candidate.thinking,
                after_tool_result=candidate.after_tool_result,
            )
        )


def explanation(streams: list[tuple[StreamExplainer, str]], fold: Fold) -> Explanation:
    """Put the streams together; ``streams`` pairs each explainer with its stream's content key."""
    segments: list[SegmentRow] = []
    calls: list[CallRow] = []
    candidates: list[CandidateRow] = []
    uncovered: list[UncoveredRow] = []
    episodes: list[EpisodeRow] = []
    writes: list[WriteExplained] = []
    for explainer, stream_key in streams:
        keys: dict[int, str] = {}
        for seen in explainer.segments:
            if seen.undone or seen.started_by == "end of stream":
                continue
            segment = seen.segment
            key = f"{segment.session_id or '-'}|{stream_key}|{segment.ordinal}"
            keys[id(segment)] = key
            folded = fold.segments.get(key)
            started_by = seen.started_by
            if segment.inherit and folded is not None:
                source = fold.links.resolved_by.get(key)
                started_by = f"inherited from {source}" if source else "sub-agent without a link: general"
            _metacog_rows(segment, explainer.file, key, episodes, writes)
            segments.append(
                SegmentRow(
                    key=key,
                    skill=folded.skill if folded is not None else segment.skill,
                    file=explainer.file,
                    start_line=segment.start_line or seen.line,
                    end_line=segment.end_line or seen.line,
                    started_by=started_by,
                    ended_by=seen.ended_by,
                    counted=segment.counts,
                )
            )
        for call, call_line, verdict, rule, line, owner, typed in explainer.calls:
            looked_for = next(
                (
                    str(g.evidence.get("pattern", ""))
                    for g in owner.signals
                    if g.line == line and g.type == FAILED_SEARCH
                ),
                "",
            )
            calls.append(
                CallRow(
                    looked_for=looked_for,
                    typed=typed,
                    call_id=call.call_id,
                    tool=call.tool,
                    verdict=verdict,
                    rule=rule,
                    file=explainer.file,
                    line=call_line,
                    result_line=line,
                    segment=keys.get(id(owner), ""),
                )
            )
        candidates.extend(explainer.candidates)
        uncovered.extend(explainer.uncovered)
    return Explanation(
        schema_version=SCHEMA_VERSION,
        segments=segments,
        calls=calls,
        candidates=candidates,
        uncovered=uncovered,
        episodes=episodes,
        writes=writes,
    )


def _metacog_rows(
    segment: Segment, file: str, key: str, episodes: list[EpisodeRow], writes: list[WriteExplained]
) -> None:
    meta = segment.meta
    if meta is None:
        return
    episodes.extend(
        EpisodeRow(**{**e._asdict(), "tokens": list(e.tokens)}, file=file, segment=key)
        for e in meta.views(segment.end_line)
    )
    writes.extend(
        WriteExplained(
            kind=w.kind, file=file, line=w.line, call_id=w.call_id, segment=key, paths=list(w.paths),
            load=w.load, anchors=list(w.anchors), rejected=w.rejected, failed=w.failed,
        )
        for w in meta.writes
    )  # fmt: skip


def record_skills(streams: list[tuple[StreamExplainer, str]], fold: Fold) -> dict[tuple[str, int], str]:
    """The skill each assistant record was counted for, by (file, line), once the fold is finished."""
    found: dict[tuple[str, int], str] = {}
    for explainer, stream_key in streams:
        for line, segment in explainer.records.items():
            key = f"{segment.session_id or '-'}|{stream_key}|{segment.ordinal}"
            folded = fold.segments.get(key)
            found[(explainer.file, line)] = folded.skill if folded is not None else segment.skill
    return found
