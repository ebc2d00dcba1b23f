"""A state written by an earlier omkd, brought up to date as it is opened: what each older form
was and how it is read now. Each upgrade is done once (and saved), or read on the fly.

- segments without the ``first_ts`` and ``last_seen`` columns (and their indexes): added and
  filled from each summary (``index_segments``);
- summaries pickled by an older omkd: read (``queries.summary_of``) and saved again as plain data
  at the next checkpoint (``Restored.legacy_segments``);
- per-skill counters with a float ``weighted_gap_sum``: read as exact half-weights (``counters_of``);
- no ``counted`` table (what the counters counted of each settled segment, ``engine/settle.py``):
  made, and filled from each saved summary, whose settled figures that omkd counted at once
  (``count_settled``).
"""

from __future__ import annotations

import sqlite3
from typing import Final

import orjson

from omkd.daemon.state import StateUpgradeError
from omkd.daemon.state.queries import FETCH, summary_of
from omkd.engine.figures import AllTimeCounts, SkillCounters
from omkd.engine.plain import from_plain
from omkd.engine.segment_book import last_seen
from omkd.engine.settle import figures_of

SEGMENT_INDEXES: Final = """
CREATE INDEX IF NOT EXISTS segments_by_start ON segments (first_ts);
CREATE INDEX IF NOT EXISTS segments_by_last_seen ON segments (last_seen);
"""


def index_segments(db: sqlite3.Connection) -> None:
    """Segments are looked up by start and by last activity; a state written by an earlier omkd
    has neither column: they are added and filled from each summary, once."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(segments)")}
    try:
        if "first_ts" not in columns:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("ALTER TABLE segments ADD COLUMN first_ts REAL")
                db.execute("ALTER TABLE segments ADD COLUMN last_seen REAL")
                keys = [key for (key,) in db.execute("SELECT key FROM segments")]
                for start in range(0, len(keys), FETCH):
                    chunk = keys[start : start + FETCH]
                    marks = ",".join("?" * len(chunk))
                    rows = db.execute(f"SELECT key, summary FROM segments WHERE key IN ({marks})", chunk)  # noqa: S608
                    db.executemany(
                        "UPDATE segments SET first_ts = ?, last_seen = ? WHERE key = ?",
                        [(s.first_ts, last_seen(s), key) for key, blob in rows if (s := summary_of(blob)) is not None],
                    )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        db.executescript(SEGMENT_INDEXES)
    except sqlite3.OperationalError as error:
        raise StateUpgradeError(f"cannot upgrade the state in {db_path(db)}: {error}") from error


COUNTED_TABLE: Final = "CREATE TABLE counted (key TEXT PRIMARY KEY, skill TEXT NOT NULL, figures BLOB NOT NULL)"


def count_settled(db: sqlite3.Connection) -> None:
    """What was counted of each segment is kept in ``counted``; a state written before has none: an
    older omkd counted the settled figures of every saved segment as it read it, so each counts as
    counted with its saved figures (a segment waiting for its link was not counted)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'counted'").fetchone():
        return
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(COUNTED_TABLE)
            rows = db.execute("SELECT summary FROM segments")
            while chunk := rows.fetchmany(FETCH):
                summaries = [s for (blob,) in chunk if (s := summary_of(blob)) is not None and not s.inherit]
                db.executemany(
                    "INSERT INTO counted VALUES (?, ?, ?)",
                    [(s.key, s.row, orjson.dumps(f)) for s in summaries if (f := figures_of(s))],
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError as error:
        raise StateUpgradeError(f"cannot upgrade the state in {db_path(db)}: {error}") from error


def db_path(db: sqlite3.Connection) -> str:
    row = db.execute("PRAGMA database_list").fetchone()
    return str(row[2]) if row else "?"


def counters_of(data: bytes) -> AllTimeCounts:
    doc = orjson.loads(data)
    if "weighted_gap_sum" in doc and "weight_halves" not in doc:  # written before weights were exact
        doc["weight_halves"] = round(2 * doc.pop("weighted_gap_sum"))
    return from_plain(SkillCounters, doc)
