"""Reading the history on disk again: every transcript still there, from its start, with the rules
in force.

Two things want it: ``window.retention`` grew past what the kept segments were pruned by (the
pruned ones should come back), or the saved parser states were made by other rules, caps or an
older omkd (``streams.stream_fingerprint``: they are not used). The segments read again carry the
same keys: the kept ones are replaced, the pruned ones come back, and none is counted twice
(``LiveFold.recount``). Segments whose transcripts are gone cannot come back (nor be computed
again); ``History.end`` says how many.
"""

from __future__ import annotations

import os

import structlog

from omkd.daemon.keeper import Keeper
from omkd.daemon.reader import Reader
from omkd.daemon.tracked import TrackedFile

log = structlog.get_logger("omkd.ingest")

LONGER_RETENTION = "window.retention is longer than what the kept segments were pruned by"


class History:
    """The reading again of every file on disk, from its start to its end (``reread`` … ``end``)."""

    def __init__(self, reader: Reader, keeper: Keeper) -> None:
        self._reader = reader
        self._keeper = keeper
        self._recount: tuple[float, float] | None = None
        """(retention before, horizon before) while the history on disk is read again."""
        self._rereading: list[TrackedFile] = []

    @property
    def recounting(self) -> bool:
        """The history on disk is being read again for a longer retention."""
        return self._recount is not None

    def reread(self, reason: str = LONGER_RETENTION) -> None:
        """Read every file still on disk again from its start, as a new stream."""
        reader, keeper = self._reader, self._keeper
        before = keeper.pruned_by
        horizon = keeper.clock.time() - before
        self._recount = (before, horizon)
        files = [f for f in reader.tailer.files.values() if self._on_disk(f)]
        keeper.recount(horizon, {reader.streams.name_of(f.path) for f in files})
        self._rereading = [reader.restart(file) for file in files]
        log.info(
            "history_reread",
            reason=reason,
            retention_before_seconds=before,
            retention_seconds=keeper.config.window.retention,
            files=len(files),
        )
        keeper.changed()

    @staticmethod
    def _on_disk(file: TrackedFile) -> bool:
        """The file is still at its path (a deleted one is ended by the next rescan, not read again)."""
        try:
            info = os.stat(file.path)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == file.identity

    def end(self) -> None:
        """Everything on disk has been read again: what came back, and what could not."""
        if self._recount is None:
            return
        keeper = self._keeper
        before, horizon = self._recount
        self._recount = None
        # a file read again to its end gave all its segments: those it no longer gives are gone
        read = {self._reader.streams.name_of(f.path) for f in self._rereading if f.read_offset >= f.size}
        recovered, gone, lost = keeper.recounted(read, horizon)
        self._rereading = []
        log.info(
            "history_reread_done",
            retention_before_seconds=before,
            retention_seconds=keeper.config.window.retention,
            segments_recovered=recovered,
            segments_unrecoverable=lost,
            segments_no_longer_cut=gone,
            note=("their transcripts are gone from disk: only the daily roll-ups still count them" if lost else None),
        )
        keeper.changed()
