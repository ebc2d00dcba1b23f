"""Launches a live stream leaves unanswered: the tentative segment settled once its stream is quiet.

A segment opened by a ``Skill`` call (or a command frame) stays tentative until the launch is
answered (``segment_lifecycle.py``); a batch read settles it at the end of the file, so a session
that stops inside the call (interrupted, crashed) counts that segment and every signal after the
call. Live, the reader offers each stream's tentative segment here after every read; once it has
been quiet for ``segments.idle_close`` (its last record that long before now, or, for a stream
without timestamps, that long since it was first offered) it is folded as the batch's end folds
it. If the stream grows again the launch is decided: confirmed, the stream hands the segment on
like any other; undone (the call failed), the segment folded while quiet is taken back.
"""

from __future__ import annotations

from collections.abc import Collection

from omkd.engine.summary import SegmentSummary


class QuietLaunches:
    """The tentative segments of the streams followed, by stream: held, or settled while quiet."""

    def __init__(self) -> None:
        self.held: dict[str, SegmentSummary] = {}
        """Tentative segments not folded (their stream is not quiet yet)."""
        self.settled: dict[str, str] = {}
        """Streams whose tentative segment was folded while quiet: its key."""
        self._since: dict[str, float] = {}
        """For a tentative segment without any timestamp: when it was first offered."""
        self.again: set[str] = set()
        """Streams reading a new version of a file read before: what they settle replaces what the
        fold holds (``LiveFold.apply``), as everything else they hand on does."""

    def offer(
        self, stream: str, tentative: SegmentSummary | None, handed: Collection[str], again: bool = False
    ) -> tuple[list[SegmentSummary], list[str]]:
        """``stream`` was read: its tentative segment now (None: none) and the keys it handed on
        meanwhile (``again``: a new version of a file read before). Returns the summaries to fold
        now (a settled segment grown while still undecided) and the keys to take back (a segment
        settled while quiet whose launch failed)."""
        if again:
            self.again.add(stream)
        else:
            self.again.discard(stream)
        settled = self.settled.pop(stream, None)
        if settled is not None and tentative is not None and tentative.key == settled:
            self.settled[stream] = settled
            return [tentative], []
        back = [settled] if settled is not None and settled not in handed else []
        held = self.held.get(stream)
        if tentative is None:
            self.held.pop(stream, None)
            self._since.pop(stream, None)
        else:
            if held is None or held.key != tentative.key:
                self._since.pop(stream, None)
            self.held[stream] = tentative
        return [], back

    def due(self, now: float, quiet: float) -> list[tuple[SegmentSummary, bool]]:
        """The held segments whose stream has been quiet for ``quiet`` seconds at ``now``: settled,
        each with whether its stream reads a new version of its file (``again``)."""
        ready = []
        for stream, summary in list(self.held.items()):
            last = summary.last_ts if summary.last_ts is not None else summary.first_ts
            if last is None:
                last = self._since.setdefault(stream, now)
            if last <= now - quiet:
                del self.held[stream]
                self._since.pop(stream, None)
                self.settled[stream] = summary.key
                ready.append((summary, stream in self.again))
        return ready

    def ended(self, stream: str) -> None:
        """The stream ended: its close settled (or undid) the launch."""
        self.held.pop(stream, None)
        self.settled.pop(stream, None)
        self._since.pop(stream, None)
        self.again.discard(stream)
