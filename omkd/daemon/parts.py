"""The daemon's reading and keeping side, assembled from a restored state: who is made first,
who is handed to whom.

``Parts.open`` makes the tailer and the parser states, the positions they are read to, the
keeper (the live fold and the state store), the reader that hands the keeper what it reads, and
the history that reads the files on disk again; then it picks up the files the state names and,
when the saved parser states are another omkd's or the retention grew, reads the history again.
Everything here runs on the event loop thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from omkd.config import Config
from omkd.daemon.clock import SYSTEM_CLOCK, Clock
from omkd.daemon.faults import Faults
from omkd.daemon.history import History
from omkd.daemon.keeper import Keeper
from omkd.daemon.positions import Positions
from omkd.daemon.reader import Reader
from omkd.daemon.resume import resume
from omkd.daemon.selfmetrics import IngestStats
from omkd.daemon.state.store import Restored, StateStore
from omkd.daemon.streams import StreamStates
from omkd.daemon.tailer import Tailer
from omkd.engine.hedge_judge import judge_identity
from omkd.shell.llm_judge import LlmRefiner, open_refiner

OUTDATED = (
    "the saved parser states were made by other rules, caps or an older omkd: "
    "every transcript is read again with the rules in force"
)


@dataclass(slots=True)
class Parts:
    """The reader, the keeper and the history, wired together."""

    reader: Reader
    keeper: Keeper
    history: History
    stats: IngestStats
    """The reading side's self-metrics (``omkd_files_*``, ``omkd_read_bytes``…), shared by the three."""
    refiner: LlmRefiner | None
    """The LLM judge of hedging candidates, when configured."""

    @classmethod
    def open(cls, config: Config, store: StateStore, restored: Restored, clock: Clock = SYSTEM_CLOCK) -> Parts:
        stats = IngestStats()
        faults = Faults(clock, stats.errors)
        tailer = Tailer(config.roots(), config.tail.max_open_files)
        tailer.on_error = lambda area, error, path: faults.record(area, error, path=path)
        refiner = open_refiner(config.hedging.llm, config.state_dir())
        streams = StreamStates(store, config.segmenter_rules(), config.tail.max_line_bytes, config.roots(), refiner)
        positions = Positions(tailer, streams)
        judge = judge_identity(refiner.identity if refiner is not None else None)
        keeper = Keeper(config, store, restored, clock, stats, faults, positions, streams.rules, judge)
        reader = Reader(config, clock, tailer, streams, positions, keeper, stats, faults)
        if refiner is not None:
            refiner.deliver = reader.refined
        streams.again.update(restored.meta.again)  # new versions still being read
        resume(reader, restored.files, keeper.outdated, restored.meta.counted_to)
        history = History(reader, keeper)
        if keeper.outdated:
            history.reread(OUTDATED)
        elif config.window.retention > keeper.pruned_by:
            history.reread()
        return cls(reader, keeper, history, stats, refiner)

    def reconfigure(self, new: Config) -> None:
        """Take a new config (``Daemon.reload`` says which keys need a restart instead)."""
        reader, keeper = self.reader, self.keeper
        if new.window.retention > keeper.pruned_by:
            # What went from disk ends now, under the retention it was pruned by: a transcript
            # deleted before the change does not come back (and whether it did would depend on
            # when the next rescan noticed it).
            reader.apply_scan(reader.tailer.rescan())
        reader.reconfigure(new)
        keeper.reconfigure(new)
        if new.window.retention > keeper.pruned_by:
            self.history.reread()
        keeper.changed()

    def shutdown(self) -> None:
        """The final checkpoint; every descriptor closed."""
        self.keeper.checkpoint()
        self.reader.tailer.close_all()
