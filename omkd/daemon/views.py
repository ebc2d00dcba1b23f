"""What the HTTP endpoints read from a running daemon: prepared snapshots and reports, built from
the keeper (``Kept``) and the knowledge files (``Known``), never from the daemon as a whole."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Protocol

from omkd.config import Config
from omkd.daemon.selfmetrics import IngestStats
from omkd.daemon.snapshot import read_window, take_window
from omkd.daemon.stored_segments import StoredSegments
from omkd.engine.counters import PastRetention, PipelineCounters
from omkd.engine.fold import Fold
from omkd.engine.impact.query import ImpactQuery
from omkd.engine.impact.schema import ImpactReport
from omkd.engine.plain import copy_record
from omkd.engine.report.build import KnowledgeIndex, build_report, restrict
from omkd.engine.report.gaps import count_gaps, select_gaps
from omkd.engine.report.schema import GapEntry, Report
from omkd.engine.segmenting import SegmenterRules
from omkd.shell.impact import impact_of


class Kept(Protocol):
    """What status and gaps read of the keeper (``keeper.Keeper``)."""

    @property
    def version(self) -> int:
        """Bumped on every change a report could show."""

    @property
    def fold(self) -> Fold: ...
    @property
    def pipeline(self) -> PipelineCounters: ...
    @property
    def rules(self) -> SegmenterRules: ...
    @property
    def judge(self) -> str: ...
    @property
    def stats(self) -> IngestStats: ...
    @property
    def past_retention(self) -> PastRetention: ...
    @property
    def config(self) -> Config: ...
    def open_after(self) -> float: ...


class Known(Protocol):
    """The knowledge files as the daemon last listed them (``knowledge.KnowledgeView``)."""

    @property
    def index(self) -> KnowledgeIndex: ...
    @property
    def generation(self) -> int: ...


class Views:
    """The daemon as an HTTP ``StatusSource``: reports of the keeper's fold, the /metrics snapshot
    the exporter rendered (``metrics``), and whether the first reading is done (``ready``)."""

    def __init__(self, kept: Kept, knowledge: Known, metrics: Callable[[], bytes]) -> None:
        self._kept = kept
        self._knowledge = knowledge
        self._metrics = metrics
        self.ready = False
        """Set once everything on disk has been read at start (``/readyz``)."""
        self._built: tuple[tuple[object, ...], Report] | None = None
        """The last report built, with what it was built from (the keeper's version, the window,
        the knowledge index, the second open segments are judged at): the pages of one ``omkd
        status`` reuse it (the window's summaries are read back from the state store to build one)."""
        self._building: tuple[tuple[object, ...], asyncio.Future[Report]] | None = None
        """The report being built, with what it is built from: requests that come meanwhile for
        the same moment wait for it rather than read the window again each."""

    @property
    def missing_roots(self) -> tuple[str, ...]:
        return self._kept.stats.missing_roots if self.ready else ()

    @property
    def roots(self) -> int:
        return len(self._kept.config.roots())

    def metrics_snapshot(self) -> bytes:
        return self._metrics()

    async def status(self, skills: list[str], agents: list[str] | None = None) -> Report:
        kept = self._kept
        roots = [str(root) for root in kept.config.roots()]
        open_after = kept.open_after()
        at = (kept.version, kept.fold.window.since, self._knowledge.generation, int(open_after))
        if self._built is not None and self._built[0] == at:
            built = self._built[1]
        else:
            if self._building is None or self._building[0] != at:  # else it is being built: wait for it
                self._building = (at, asyncio.ensure_future(self._build(roots, open_after)))
            building = self._building[1]
            try:
                built = await asyncio.shield(building)  # a client gone does not stop the others' report
            except BaseException:
                if building.done() and self._building is not None and self._building[1] is building:
                    self._building = None  # it failed: the next request builds again
                raise
            if self._building is not None and self._building[1] is building:  # none newer begun since
                self._building = None
                self._built = (at, built)
        if not skills and not agents:
            return built
        return restrict(built, set(skills) or None, set(agents or ()) or None)

    def _build(self, roots: list[str], open_after: float) -> Awaitable[Report]:
        """The status report of this moment: everything it reads is taken now (the window too:
        ``take_window``), and the window's saved summaries are then decoded while the loop runs."""
        kept = self._kept
        index, counters = self._knowledge.index, copy_record(kept.pipeline)
        rules, judge = kept.rules, kept.judge
        past, missing = copy_record(kept.past_retention), self.missing_roots
        window = take_window(kept.fold)

        async def build() -> Report:
            fold = await window.read()
            return build_report(
                fold, roots, index, open_after=open_after, counters=counters, rules=rules, judge=judge,
                past_retention=past, missing_roots=missing,
            )  # fmt: skip

        return build()

    def outside_window(self) -> tuple[int, float | None]:
        """Segments read outside the window (kept, or forgotten past retention), and the newest's
        last event: what an empty answer must say."""
        return self._kept.fold.outside(self._kept.past_retention)

    def impact_query(self) -> ImpactQuery:
        return self._kept.config.impact.query()

    async def impact(self, query: ImpactQuery) -> ImpactReport:
        """The effect of each knowledge change (spec §9) over the segments of the window: what
        ``omkd impact`` gives over the same files. A span reaching before the window (its start,
        retention) is counted from there, and the answer says so."""
        kept = self._kept
        fold = await read_window(kept.fold)
        query = dataclasses.replace(query, roots=tuple(str(root) for root in kept.config.roots()))
        segments = list(fold.in_window())
        return await asyncio.to_thread(impact_of, segments, self._knowledge.index, query, fold.window.since)

    async def gaps(
        self, skill: str | None, kind: str | None, since: float | None, limit: int, agent: str | None = None
    ) -> tuple[list[GapEntry], int, int]:
        """The newest gaps of the segments in the window (what the status figures count, so the
        answer does not depend on when retention last pruned), how many older ones are kept, and
        how many the window holds (``limit`` aside)."""
        fold = self._kept.fold
        book = fold.segments
        if isinstance(book, StoredSegments):  # counted in the store, not decoded
            older = book.count_outside_gaps(fold.window, skill, kind, since, agent)
        else:
            older = count_gaps(book.outside(fold.window), skill, kind, since, agent)
        inside = await read_window(fold, with_signals=True)
        total = count_gaps(inside.in_window(), skill, kind, since, agent)
        return select_gaps(inside.in_window(), skill, kind, since, limit, agent), older, total
