"""The state store: offsets and the folded state they produced, saved in one transaction.

SQLite in WAL mode, ``synchronous=FULL``: a checkpoint is one transaction holding every
changed file offset (with the stream's parser state at that offset), every changed
segment summary, the per-skill counters, the daily roll-ups and the pipeline counters.
Offsets can therefore never run ahead of the state or behind it: kill -9 at any moment,
restart, and the figures equal those of one clean pass.

A lock file keeps two daemons off the same state. A store that cannot be read (corrupt,
or written by an incompatible version) is moved aside with a log line and omkd starts
afresh, reading every file again from the start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson
import structlog

from omkd.daemon.state import StateLockedError
from omkd.daemon.state.queries import SummaryQueries, summary_of
from omkd.daemon.state.upgrades import count_settled, counters_of, index_segments
from omkd.engine.counters import GapCounts, PastRetention, PipelineCounters
from omkd.engine.figures import AllTimeCounts
from omkd.engine.links import Link
from omkd.engine.plain import from_plain, to_plain
from omkd.engine.segment_book import last_seen
from omkd.engine.settle import Counted
from omkd.engine.summary import SegmentSummary

SCHEMA_VERSION: Final = 1
DB_NAME: Final = "state.db"
LOCK_NAME: Final = "lock"

log = structlog.get_logger("omkd.state")

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    stream_id TEXT PRIMARY KEY, path TEXT NOT NULL, dev INTEGER NOT NULL, ino INTEGER NOT NULL,
    head_len INTEGER NOT NULL, head_hash BLOB NOT NULL, offset INTEGER NOT NULL,
    marker_hash BLOB NOT NULL, state BLOB
);
CREATE TABLE IF NOT EXISTS segments (
    key TEXT PRIMARY KEY, summary BLOB NOT NULL, first_ts REAL, last_seen REAL
);
CREATE TABLE IF NOT EXISTS counters (skill TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS links (key TEXT PRIMARY KEY, link TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rollups (
    day INTEGER NOT NULL, skill TEXT NOT NULL, segments INTEGER NOT NULL,
    gap_segments INTEGER NOT NULL, weight_sum REAL NOT NULL, PRIMARY KEY (day, skill)
);
"""


@dataclass(slots=True)
class FileCheckpoint:
    """Where one file was read to, how to recognise it, and the parser state there."""

    stream_id: str
    path: str
    dev: int
    ino: int
    head_len: int
    head_hash: bytes
    offset: int
    marker_hash: bytes
    state: bytes | None = None
    """The stream processor's state at ``offset`` (plain data: ``engine/stream_state.py``); ``None``
    keeps the saved one."""


@dataclass(slots=True)
class StoreMeta:
    """The store's own facts, saved beside the checkpoints."""

    schema_version: int = SCHEMA_VERSION
    created_at: float = 0.0
    skill_labels: list[str] = field(default_factory=list)
    """Skills holding a metric label, in the order they got it (kept across restarts)."""
    retention: float | None = None
    """The retention the kept segments were pruned by (None: a state written before it was saved)."""
    stream_fingerprint: str | None = None
    """What the saved parser states were made by (``streams.stream_fingerprint``; None: an older omkd)."""
    again: list[str] = field(default_factory=list)
    """Saved streams reading a new version of a file read before (``StreamStates.again``)."""
    counted_to: dict[str, int] = field(default_factory=dict)
    """Saved streams read again from 0 mid-way: the offset the pipeline had counted them to."""


@dataclass(slots=True)
class Restored:
    files: list[FileCheckpoint] = field(default_factory=list)
    segments: Iterable[SegmentSummary] = field(default_factory=list)
    """Read from the store as they are taken (once): a long history is never all in memory."""
    counters: dict[str, AllTimeCounts] = field(default_factory=dict)
    rollups: dict[tuple[int, str], GapCounts] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    pipeline: PipelineCounters = field(default_factory=PipelineCounters)
    past_retention: PastRetention = field(default_factory=PastRetention)
    meta: StoreMeta = field(default_factory=StoreMeta)
    fresh: bool = True
    moved_aside: Path | None = None
    legacy_segments: list[str] = field(default_factory=list)
    """Keys of summaries saved as pickles by an older omkd: saved again as plain data."""
    unreadable_segments: int = 0
    """Saved summaries that could not be read at all (their history is lost; logged); counted
    as ``segments`` is taken."""


@dataclass(slots=True)
class Checkpoint:
    """Everything that changed since the last checkpoint."""

    files: Iterable[FileCheckpoint] = field(default_factory=list)
    """Consumed once, inside the transaction: a generator keeps the encoded states out of memory."""
    dropped_files: list[str] = field(default_factory=list)
    segments: Iterable[SegmentSummary] = field(default_factory=list)
    forgotten_segments: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    forgotten_links: list[str] = field(default_factory=list)
    counters: dict[str, AllTimeCounts] = field(default_factory=dict)
    counted: dict[str, Counted | None] = field(default_factory=dict)
    """What was counted of each settled segment (None: forgotten), saved with the counters."""
    rollups: dict[tuple[int, str], GapCounts | None] = field(default_factory=dict)
    pipeline: PipelineCounters | None = None
    past_retention: PastRetention | None = None
    skill_labels: list[str] | None = None
    retention: float | None = None
    stream_fingerprint: str | None = None
    again: list[str] | None = None
    counted_to: dict[str, int] | None = None


def _counters_json(counters: AllTimeCounts) -> bytes:
    return orjson.dumps(to_plain(counters))


def _rollup_of(segments: int, gap_segments: int, weight_sum: float) -> GapCounts:
    """A roll-up row: the weight sum is gap segments - half of the half-weight ones, exactly."""
    return GapCounts(segments, gap_segments, round(2 * (gap_segments - weight_sum)))


class StateStore(SummaryQueries):
    """One state directory: its lock and its SQLite database."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / DB_NAME
        self._lock_fd: int | None = None
        self._db: sqlite3.Connection | None = None

    # --- lifecycle -----------------------------------------------------------------------

    def open(self) -> Restored:
        """Lock the directory and load what it holds (moving a bad store aside)."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._lock()
        try:
            return self._load()
        except (sqlite3.DatabaseError, KeyError, ValueError, TypeError, EOFError,
                pickle.UnpicklingError, AttributeError, ImportError) as error:  # fmt: skip
            aside = self._move_aside(str(error))
            restored = self._load()
            restored.moved_aside = aside
            return restored

    def _lock(self) -> None:
        fd = os.open(self.directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StateLockedError(f"another omkd is running with the state directory {self.directory}") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        return db

    def _load(self) -> Restored:
        existed = self.path.exists()
        db = self._connect()
        self._db = db
        if existed:
            check = db.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"quick_check: {check}")
        db.executescript(_SCHEMA)
        index_segments(db)
        count_settled(db)
        meta = {key: orjson.loads(value) for key, value in db.execute("SELECT key, value FROM meta")}
        if not meta:
            created = time.time()
            db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            db.execute("INSERT INTO meta VALUES ('created_at', ?)", (orjson.dumps(created).decode(),))
            return Restored(meta=StoreMeta(created_at=created))
        if meta.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"state schema {meta.get('schema_version')} is not {SCHEMA_VERSION}")
        labels = meta.get("skill_labels")
        retention = meta.get("retention")
        restored = Restored(
            fresh=False,
            meta=StoreMeta(
                created_at=float(meta.get("created_at") or 0.0),
                skill_labels=[str(x) for x in labels] if isinstance(labels, list) else [],
                retention=float(retention) if isinstance(retention, int | float) else None,
                stream_fingerprint=str(meta["stream_fingerprint"]) if "stream_fingerprint" in meta else None,
                again=[str(x) for x in meta.get("again") or []],
                counted_to={str(k): int(v) for k, v in (meta.get("counted_to") or {}).items()},
            ),
        )
        for row in db.execute(
            "SELECT stream_id, path, dev, ino, head_len, head_hash, offset, marker_hash, state FROM files"
        ):
            restored.files.append(FileCheckpoint(*row))
        restored.legacy_segments = [
            key for (key,) in db.execute("SELECT key FROM segments WHERE substr(summary, 1, 1) != x'7b'")
        ]
        restored.segments = self._restoring(restored)
        restored.counters = {skill: counters_of(data) for skill, data in db.execute("SELECT skill, data FROM counters")}
        restored.rollups = {
            (day, skill): _rollup_of(segments, gaps, weight)
            for day, skill, segments, gaps, weight in db.execute("SELECT * FROM rollups")
        }
        restored.links = [
            Link(key, doc.get("skill"), tuple(doc.get("via", ())), doc.get("timestamp"))
            for key, doc in ((k, orjson.loads(v)) for k, v in db.execute("SELECT key, link FROM links"))
        ]
        pipeline = meta.get("pipeline")
        if isinstance(pipeline, dict):
            restored.pipeline = from_plain(PipelineCounters, pipeline)
        past = meta.get("past_retention")
        if isinstance(past, dict):
            restored.past_retention = from_plain(PastRetention, past)
        return restored

    def _restoring(self, restored: Restored) -> Iterator[SegmentSummary]:
        for (blob,) in self._rows("SELECT summary FROM segments"):
            summary = summary_of(blob)
            if summary is None:
                restored.unreadable_segments += 1
            else:
                yield summary

    def _move_aside(self, reason: str) -> Path:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        aside = self.directory / f"{DB_NAME}.corrupt-{int(time.time())}"
        for suffix in ("", "-wal", "-shm"):
            source = Path(f"{self.path}{suffix}")
            if source.exists():
                source.rename(Path(f"{aside}{suffix}"))
        log.error("state_moved_aside", reason=reason, moved_to=str(aside), action="reading every file from the start")
        return aside

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # --- checkpoints ---------------------------------------------------------------------

    def save(self, checkpoint: Checkpoint) -> None:
        """Write one checkpoint atomically (all of it, or none of it)."""
        db = self._db
        if db is None:
            raise RuntimeError("state store is not open")
        db.execute("BEGIN IMMEDIATE")
        try:
            for f in checkpoint.files:
                db.execute(
                    "INSERT INTO files VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(stream_id) DO UPDATE SET "
                    "path=excluded.path, dev=excluded.dev, ino=excluded.ino, head_len=excluded.head_len, "
                    "head_hash=excluded.head_hash, offset=excluded.offset, marker_hash=excluded.marker_hash, "
                    "state=COALESCE(excluded.state, files.state)",
                    (f.stream_id, f.path, f.dev, f.ino, f.head_len, f.head_hash, f.offset, f.marker_hash, f.state),
                )
            db.executemany("DELETE FROM files WHERE stream_id = ?", [(s,) for s in checkpoint.dropped_files])
            db.executemany(
                "INSERT OR REPLACE INTO segments VALUES (?, ?, ?, ?)",
                ((s.key, orjson.dumps(s.to_plain()), s.first_ts, last_seen(s)) for s in checkpoint.segments),
            )
            db.executemany("DELETE FROM segments WHERE key = ?", [(k,) for k in checkpoint.forgotten_segments])
            db.executemany(
                "INSERT OR REPLACE INTO links VALUES (?, ?)",
                [
                    (link.key, orjson.dumps({"skill": link.skill, "via": list(link.via), "timestamp": link.timestamp}))
                    for link in checkpoint.links
                ],
            )
            db.executemany("DELETE FROM links WHERE key = ?", [(k,) for k in checkpoint.forgotten_links])
            db.executemany(
                "INSERT OR REPLACE INTO counters VALUES (?, ?)",
                [(skill, _counters_json(c)) for skill, c in checkpoint.counters.items()],
            )
            counted = checkpoint.counted.items()
            db.executemany("DELETE FROM counted WHERE key = ?", [(k,) for k, c in counted if c is None])
            db.executemany(
                "INSERT OR REPLACE INTO counted VALUES (?, ?, ?)",
                [(k, c[0], orjson.dumps(dict(c[1]))) for k, c in counted if c is not None],
            )
            for (day, skill), rollup in checkpoint.rollups.items():
                if rollup is None or rollup.segments <= 0:
                    db.execute("DELETE FROM rollups WHERE day = ? AND skill = ?", (day, skill))
                else:
                    db.execute(
                        "INSERT OR REPLACE INTO rollups VALUES (?,?,?,?,?)",
                        (day, skill, rollup.segments, rollup.gap_segments, rollup.weight_sum),
                    )
            meta: dict[str, Any] = {}
            if checkpoint.pipeline is not None:
                meta["pipeline"] = to_plain(checkpoint.pipeline)
            if checkpoint.past_retention is not None:
                meta["past_retention"] = to_plain(checkpoint.past_retention)
            if checkpoint.skill_labels is not None:
                meta["skill_labels"] = checkpoint.skill_labels
            if checkpoint.retention is not None:
                meta["retention"] = checkpoint.retention
            if checkpoint.stream_fingerprint is not None:
                meta["stream_fingerprint"] = checkpoint.stream_fingerprint
            for key in ("again", "counted_to"):
                if (value := getattr(checkpoint, key)) is not None:
                    meta[key] = value
            db.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, orjson.dumps(v).decode()) for k, v in meta.items()]
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
