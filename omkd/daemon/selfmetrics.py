"""The reading side's own counters for this process (they restart from 0 with it).

Like the pipeline counters, each field names the metric it is exported as, so a new one is a
field here and an increment where it happens.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from omkd.engine.counters import metric


@dataclass(slots=True)
class IngestStats:
    """Self-metrics of the reading side (reset when the process restarts)."""

    files_discovered: int = field(
        default=0, metadata=metric("omkd_files_discovered", "Transcript files found (read from offset 0).")
    )
    files_rotated: int = field(
        default=0, metadata=metric("omkd_files_rotated", "Files renamed out of the roots and drained.")
    )
    files_renamed: int = field(
        default=0, metadata=metric("omkd_files_renamed", "Files renamed within the roots (followed by identity).")
    )
    files_truncated: int = field(
        default=0, metadata=metric("omkd_files_truncated", "Files truncated or replaced, read again from the start.")
    )
    files_deleted: int = field(
        default=0, metadata=metric("omkd_files_deleted", "Files deleted (drained first when still open).")
    )
    bytes_read: int = field(
        default=0, metadata=metric("omkd_read_bytes", "Bytes read from transcript files by this process.")
    )
    rescans: int = field(default=0, metadata=metric("omkd_rescans", "Full rescans of the trace roots."))
    watch_missed: int = field(
        default=0,
        metadata=metric(
            "omkd_watch_missed_changes",
            "Rescans that found changes no filesystem event announced (events dropped by a full queue, or "
            "never sent, as on network filesystems).",
        ),
    )
    checkpoint_writes: int = field(default=0, metadata=metric("omkd_checkpoint_writes", "State checkpoints written."))
    stream_states_outdated: int = field(
        default=0,
        metadata=metric(
            "omkd_stream_states_outdated",
            "Saved parser states made by other rules or an older omkd: their files were read again from the start.",
        ),
    )
    checkpoint_errors: int = field(
        default=0, metadata=metric("omkd_checkpoint_errors", "State checkpoints that failed.")
    )
    errors: Counter[str] = field(
        default_factory=Counter,
        metadata=metric(
            "omkd_errors",
            "Errors survived, by cause (area.ERRNO or area.Exception): counted, logged once a minute.",
            "cause",
        ),
    )
    catch_up_files: Counter[str] = field(
        default_factory=Counter,
        metadata=metric(
            "omkd_catch_up_files",
            "Files handed to a catch-up worker, by outcome: adopted (its reading taken as the loop's), "
            "read_here (read on the event loop after all: changed meanwhile, unreadable, the workers stopped).",
            "outcome",
        ),
    )
    discarded: Counter[str] = field(default_factory=Counter)
    """Lines discarded by the tailer, by reason (``partial_at_delete``)."""
    last_read: float | None = None
    last_checkpoint: float | None = None
    restored_files: int = 0
    missing_roots: tuple[str, ...] = ()
    unrecoverable_segments: int = 0
    """Pruned segments a longer retention could not bring back (their transcripts are gone)."""
