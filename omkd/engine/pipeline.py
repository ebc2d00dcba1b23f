"""Bytes of transcript files in, folded health out: the whole pure pipeline.

``StreamProcessor`` turns one file's bytes (in any chunking) into segments;
``Fold`` adds finished segments of many streams into per-skill totals, the gap
inventory and the watermark's ingredients, keeping only segments inside the window.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from omkd.engine import patterns
from omkd.engine.formats.claude_code import ClaudeCodeAdapter
from omkd.engine.health import SkillTotals
from omkd.engine.lines import DEFAULT_MAX_LINE_BYTES, LineSplitter
from omkd.engine.segment import Segment, SegmenterRules, StreamSegmenter

SUBAGENT: Final = "subagent"
MAIN: Final = "main"
_FINGERPRINT_MOD: Final = 1 << 64


def stream_role(file_name: str) -> str:
    """Sub-agent transcripts (``agent-*.jsonl``, flat or under ``subagents/``) are their own role."""
    return SUBAGENT if file_name.startswith("agent-") else MAIN


@dataclass(frozen=True, slots=True)
class Window:
    """An event-time window ``[since, until)``; open ends are ``None``."""

    since: float | None = None
    until: float | None = None

    def contains(self, timestamp: float | None) -> bool:
        if self.since is None and self.until is None:
            return True
        if timestamp is None:
            return False
        if self.since is not None and timestamp < self.since:
            return False
        return self.until is None or timestamp < self.until


class StreamProcessor:
    """One transcript file: splitter, adapter and segmenter, fed bytes in any chunking."""

    def __init__(
        self,
        name: str,
        rules: SegmenterRules | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self.name = name
        self.role = stream_role(name)
        self.splitter = LineSplitter(max_line_bytes)
        self.adapter = ClaudeCodeAdapter()
        self.segmenter = StreamSegmenter(name, self.role, self.adapter, rules or SegmenterRules())
        self.bytes_read = 0
        self.lines = 0

    def feed(self, data: bytes) -> None:
        self.bytes_read += len(data)
        decode = self.adapter.decode
        handle = self.segmenter.handle
        lines = self.splitter.feed(data)
        self.lines += len(lines)
        for line in lines:
            for event in decode(line):
                handle(event)

    def finish(self) -> list[Segment]:
        """End of input: every segment of the stream, in order."""
        return self.segmenter.finish()


@dataclass(frozen=True, slots=True)
class GapRecord:
    """One signal of the inventory (spec §6), tied to its skill, session and segment."""

    skill: str
    session_id: str
    stream: str
    segment: str
    turn: int
    type: str
    weight: float
    timestamp: float | None
    context: str
    evidence: dict[str, object]


@dataclass(slots=True)
class PatternStats:
    count: int = 0
    last_seen: float | None = None


@dataclass(slots=True)
class PipelineCounters:
    """What was read and what was skipped, by reason."""

    files: int = 0
    bytes: int = 0
    lines: int = 0
    records: int = 0
    bad_lines: Counter[str] = field(default_factory=Counter)
    unknown_types: Counter[str] = field(default_factory=Counter)
    ignored: Counter[str] = field(default_factory=Counter)
    partial_at_end: int = 0
    invalid_skill_names: int = 0
    orphan_results: int = 0
    compactions: int = 0
    segments_outside_window: int = 0

    def add_stream(self, stream: StreamProcessor) -> None:
        adapter, segmenter, splitter = stream.adapter, stream.segmenter, stream.splitter
        self.files += 1
        self.bytes += stream.bytes_read
        self.lines += stream.lines
        self.records += adapter.records
        self.bad_lines.update(adapter.bad_lines)
        if splitter.oversize:
            self.bad_lines["oversize"] += splitter.oversize
        self.unknown_types.update(adapter.unknown_types)
        self.ignored.update(adapter.ignored)
        if splitter.pending_bytes:
            self.partial_at_end += 1
        self.invalid_skill_names += segmenter.invalid_skill_names
        self.orphan_results += segmenter.orphan_results
        self.compactions += segmenter.compactions


def segment_fingerprint(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")


@dataclass(slots=True)
class Fold:
    """Per-skill and overall totals over the segments inside ``window``."""

    window: Window = field(default_factory=Window)
    skills: dict[str, SkillTotals] = field(default_factory=dict)
    overall: SkillTotals = field(default_factory=SkillTotals)
    inventory: list[GapRecord] = field(default_factory=list)
    failed_patterns: dict[tuple[str, str, str], PatternStats] = field(default_factory=dict)
    counters: PipelineCounters = field(default_factory=PipelineCounters)
    first_ts: float | None = None
    last_ts: float | None = None
    fingerprint: int = 0

    def add_stream(self, stream: StreamProcessor) -> None:
        """Fold a finished stream: its segments and its counters."""
        for segment in stream.finish():
            self.add_segment(segment)
        self.counters.add_stream(stream)

    def add_segment(self, segment: Segment) -> None:
        if not self.window.contains(segment.first_ts):
            self.counters.segments_outside_window += 1
            return
        totals = self.skills.get(segment.skill)
        if totals is None:
            totals = self.skills[segment.skill] = SkillTotals()
        totals.add(segment)
        self.overall.add(segment)
        self.fingerprint = (self.fingerprint + segment_fingerprint(segment.key)) % _FINGERPRINT_MOD
        for timestamp in (segment.first_ts, segment.last_ts):
            if timestamp is not None:
                self.first_ts = timestamp if self.first_ts is None else min(self.first_ts, timestamp)
                self.last_ts = timestamp if self.last_ts is None else max(self.last_ts, timestamp)
        for signal in segment.signals:
            self.inventory.append(
                GapRecord(
                    segment.skill,
                    segment.session_id or "-",
                    segment.stream,
                    segment.key,
                    signal.turn,
                    signal.type,
                    signal.weight,
                    signal.timestamp,
                    signal.context,
                    signal.evidence,
                )
            )
            if signal.type == patterns.FAILED_SEARCH:
                pattern_key = (segment.skill, str(signal.evidence["tool"]), str(signal.evidence["pattern"]))
                stats = self.failed_patterns.get(pattern_key)
                if stats is None:
                    stats = self.failed_patterns[pattern_key] = PatternStats()
                stats.count += 1
                if signal.timestamp is not None and (stats.last_seen is None or signal.timestamp > stats.last_seen):
                    stats.last_seen = signal.timestamp
