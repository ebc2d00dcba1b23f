"""The reader picks up the files a checkpoint named: ``resume`` carries out ``restore.py``'s plan.

Streams that ended while omkd was stopped close with their saved parser state; the files found
again read on from their saved offsets; those found under another name are counted as rotated.
"""

from __future__ import annotations

from typing import Final

import structlog

from omkd.daemon.reader import Reader
from omkd.daemon.restore import plan_restore
from omkd.daemon.state.store import FileCheckpoint
from omkd.daemon.streams import load_state
from omkd.engine import formats

log = structlog.get_logger("omkd.ingest")
TENTATIVE: Final = b'"tentative":true'
"""In a saved parser state (``engine/stream_state.py``), only where a segment's launch is unanswered."""


def resume(
    reader: Reader, checkpoints: list[FileCheckpoint], outdated: bool = False, counted_to: dict[str, int] | None = None
) -> None:
    """Pick up the files a checkpoint named (``restore.py``); ``outdated``: their parser states
    were made by other rules or another omkd, and are never unpickled, never folded; ``counted_to``:
    the files that were being read again from 0, and how far the pipeline had counted them."""
    stats = reader.stats
    if outdated:
        saved = [cp for cp in checkpoints if cp.state is not None]
        stats.stream_states_outdated += len(saved)
        for cp in saved:
            cp.state = None
    plan = plan_restore(reader.tailer, checkpoints)
    for path, error in plan.unreadable:
        reader.faults.record("restore", error, path=path)
    for cp, why in plan.ended:
        processor = load_state(cp.state, cp.stream_id)
        if processor is not None:
            reader.hand(processor, closing=True, stream=cp.stream_id)  # a new version closes as one
        reader.positions.dropped(cp.stream_id)
        log.info("stream_ended_while_stopped", path=cp.path, reason=why)
    started = {file.stream_id for file in plan.started}
    for file in plan.started:
        reader.streams.again.add(file.stream_id)  # truncated or replaced while omkd was stopped
        reader.start(file)
    for stream_id, offset in (counted_to or {}).items():  # a reading again from 0, killed mid-way
        reading = reader.tailer.files.get(stream_id)
        if reading is not None and stream_id not in started and offset > reading.read_offset:
            reading.counted_to = offset
    stats.restored_files += plan.restored
    for file, path in plan.moved:
        stats.files_rotated += 1
        reader.positions.touched(file.stream_id)
        if formats.is_transcript(file.path):  # renamed below the roots (a rotated file keeps its name)
            reader.renamed(file, path)
    for cp in checkpoints:
        # a launch left unanswered is held again, to settle when its stream is quiet (``quiet.py``)
        if cp.state is not None and TENTATIVE in cp.state and cp.stream_id in reader.tailer.files:
            processor = load_state(cp.state, cp.stream_id)
            if processor is not None:
                reader.sink.tentative(cp.stream_id, processor.tentative(), ())
