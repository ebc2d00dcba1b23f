"""The saved summaries read back: the queries of the state store's segments, by start, by last
activity, by whether they may hold a signal, and the signals counted by SQLite without decoding.

``SummaryQueries`` is the read side of ``store.StateStore`` (which opens the connection and writes
the checkpoints); ``summary_of`` decodes one saved summary.
"""

from __future__ import annotations

import math
import pickle
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any, Final

import orjson

from omkd.engine.formats import CLAUDE_CODE
from omkd.engine.settle import Counted
from omkd.engine.summary import SegmentSummary

_READABLE_JSON: Final = "CASE WHEN json_valid(CAST(s.summary AS TEXT)) THEN CAST(s.summary AS TEXT) ELSE '{}' END"
"""A saved summary as JSON text for SQLite's JSON functions: one that is not JSON (a torn or edited
row) reads as an empty object, which would otherwise fail the whole query."""
_MAY_HOLD_SIGNALS: Final = "substr(summary, 1, 1) != x'7b' OR instr(summary, CAST('\"signals\":[]' AS BLOB)) = 0"
"""A saved summary that may hold a signal: a pickle of an older omkd, or plain data without an
empty ``signals`` list. The store writes plain data with ``orjson.dumps`` (compact), where an empty
list is ``"signals":[]`` and a quote inside a string is escaped: a byte search tells them apart
(a JSON function would parse every row, twice the time of reading it, in one statement). It holds
while no object inside a summary (a signal's evidence) has a key ``signals``."""
_BY_START: Final = {  # (since given, until given, inside the window): the summaries asked for
    (False, False, True): "1",
    (True, False, True): "first_ts >= :since",
    (False, True, True): "first_ts < :until",
    (True, True, True): "first_ts >= :since AND first_ts < :until",
    (False, False, False): "0",
    (True, False, False): "first_ts IS NULL OR first_ts < :since",
    (False, True, False): "first_ts IS NULL OR first_ts >= :until",
    (True, True, False): "first_ts IS NULL OR first_ts < :since OR first_ts >= :until",
}
"""The condition on a saved summary's start that selects it (``:since`` and ``:until`` bound)."""
FETCH: Final = 512
"""Saved summaries read back per fetch."""


def _selection(
    since: float | None, until: float | None, inside: bool, with_signals: bool, columns: str = "summary"
) -> str:
    """The query of the saved summaries ``StateStore.segments`` reads, selecting ``columns``."""
    where = _BY_START[(since is not None, until is not None, inside)]
    holding = f" AND ({_MAY_HOLD_SIGNALS})" if with_signals else ""
    return f"SELECT {columns} FROM segments WHERE ({where}){holding}"  # noqa: S608 (constants; values bound)


def summary_of(blob: bytes) -> SegmentSummary | None:
    """A saved segment summary: plain JSON (``SegmentSummary.to_plain``), or a pickle of an older
    omkd (read once, saved as JSON at the next checkpoint); None when neither can be read."""
    try:
        if blob.startswith(b"{"):
            return SegmentSummary.from_plain(orjson.loads(blob))
        summary = pickle.loads(blob)  # noqa: S301 (our own state file, of an older omkd)
    except (orjson.JSONDecodeError, pickle.UnpicklingError, KeyError, TypeError, ValueError, AttributeError,
            ImportError, EOFError):  # fmt: skip
        return None
    return summary if isinstance(summary, SegmentSummary) else None


def millis(timestamp: float) -> int:
    """The millisecond ``report.iso`` writes ``timestamp`` in: its whole seconds, then the fraction
    rounded to microseconds as ``datetime.fromtimestamp`` rounds it, cut to milliseconds."""
    whole = math.floor(timestamp)
    return whole * 1000 + round((timestamp - whole) * 1_000_000) // 1000


_MILLIS_SQL: Final = "(whole * 1000 + CAST(ROUND((t - whole) * 1000000) AS INTEGER) / 1000)"
"""``millis`` in SQLite, of the columns ``t`` and ``whole`` (its floor)."""


class SummaryQueries:
    """The saved summaries (and parser states) read back from an open state database."""

    _db: sqlite3.Connection | None = None

    def _rows(self, sql: str, args: tuple[object, ...] | dict[str, object] = ()) -> Iterator[tuple[Any, ...]]:
        if self._db is None:
            return
        cursor = self._db.execute(sql, args)
        while rows := cursor.fetchmany(FETCH):
            yield from rows

    def segment(self, key: str) -> SegmentSummary | None:
        """The saved summary of one segment (None: none saved, or unreadable)."""
        if self._db is None:
            return None
        row = self._db.execute("SELECT summary FROM segments WHERE key = ?", (key,)).fetchone()
        return None if row is None else summary_of(row[0])

    def counted(self, key: str) -> Counted | None:
        """What the counters counted of one settled segment (``engine/settle.py``; None: nothing)."""
        if self._db is None:
            return None
        row = self._db.execute("SELECT skill, figures FROM counted WHERE key = ?", (key,)).fetchone()
        return None if row is None else (str(row[0]), tuple(sorted(orjson.loads(row[1]).items())))

    def segments(
        self, since: float | None = None, until: float | None = None, inside: bool = True, with_signals: bool = False
    ) -> Iterator[SegmentSummary]:
        """The saved summaries whose start lies in ``[since, until)`` (open ends: None; both None:
        every one), or, ``inside`` False, every other one (those without a start included);
        ``with_signals``: only those that hold a signal (told apart by SQLite, not decoded), and any
        an older omkd pickled."""
        query = _selection(since, until, inside, with_signals)
        for (blob,) in self._rows(query, {"since": since, "until": until}):
            summary = summary_of(blob)
            if summary is not None:
                yield summary

    def segment_rows(
        self, since: float | None, until: float | None, with_signals: bool = False
    ) -> list[tuple[str, bytes]]:
        """The key and saved bytes of each summary ``segments`` gives (in the window), all read at
        once and none decoded (``summary_of``): what the store held at one moment."""
        if self._db is None:
            return []
        query = _selection(since, until, True, with_signals, "key, summary")
        return self._db.execute(query, {"since": since, "until": until}).fetchall()

    def segments_by_recency(self, since: float | None, until: float | None) -> Iterator[SegmentSummary]:
        """The saved summaries outside ``[since, until)``, the last active first (read as taken)."""
        query = _selection(since, until, False, False) + " ORDER BY last_seen DESC"
        for (blob,) in self._rows(query, {"since": since, "until": until}):
            summary = summary_of(blob)
            if summary is not None:
                yield summary

    def count_signals(
        self,
        since: float | None,
        until: float | None,
        skill: str | None,
        agent: str | None,
        kind: str | None,
        at_or_after: float | None,
        excluded: Iterable[str] = (),
    ) -> int:
        """The signals of the saved summaries outside ``[since, until)`` (plain-data ones, not waiting
        for a link, not of a key in ``excluded``) of this skill, agent and type, stamped at or after
        ``at_or_after`` to the millisecond as ``report.iso`` writes them: ``report.count_gaps``'s
        count, by SQLite's JSON functions instead of decoding each summary. A row that is not JSON
        counts nothing, as ``segments`` leaves it out (one that is JSON but not a summary's still
        counts its signals)."""
        if self._db is None:
            return 0
        where = _BY_START[(since is not None, until is not None, False)]
        signals = (
            "SELECT json_extract(g.value, '$.type') AS type, json_extract(g.value, '$.timestamp') AS t "  # noqa: S608 (WHERE: a _BY_START constant; values bound)
            f"FROM segments AS s, json_each({_READABLE_JSON}, '$.signals') AS g "
            f"WHERE ({where}) AND substr(s.summary, 1, 1) = x'7b' "
            f"AND json_array_length({_READABLE_JSON}, '$.inherit') = 0 "
            f"AND (:skill IS NULL OR json_extract({_READABLE_JSON}, '$.skill') = :skill) "
            # a summary saved before other agents' formats has no agent: it is Claude Code's (from_plain's default)
            f"AND (:agent IS NULL OR COALESCE(json_extract({_READABLE_JSON}, '$.agent'), '{CLAUDE_CODE}') = :agent) "
            "AND s.key NOT IN (SELECT value FROM json_each(:excluded))"
        )
        seconds = f"SELECT type, t, CAST(t AS INTEGER) - (t < CAST(t AS INTEGER)) AS whole FROM ({signals})"  # noqa: S608
        query = (
            f"SELECT COUNT(*) FROM ({seconds}) WHERE (:kind IS NULL OR type = :kind) "  # noqa: S608
            f"AND (:cutoff IS NULL OR (t IS NOT NULL AND {_MILLIS_SQL} >= :cutoff))"
        )
        cutoff = None if at_or_after is None else millis(at_or_after)
        values = {
            "since": since, "until": until, "skill": skill, "agent": agent, "kind": kind, "cutoff": cutoff,
            "excluded": orjson.dumps(list(excluded)).decode(),
        }  # fmt: skip
        row = self._db.execute(query, values).fetchone()
        return int(row[0]) if row else 0

    def legacy_segments(self) -> Iterator[SegmentSummary]:
        """Saved summaries still pickled by an older omkd (saved as plain data at the next checkpoint)."""
        for (blob,) in self._rows("SELECT summary FROM segments WHERE substr(summary, 1, 1) != x'7b'"):
            summary = summary_of(blob)
            if summary is not None:
                yield summary

    def segment_keys_seen_before(self, horizon: float) -> list[str]:
        """Keys of the saved summaries last active before ``horizon`` (``segment_book.last_seen``)."""
        return [key for (key,) in self._rows("SELECT key FROM segments WHERE last_seen < ?", (horizon,))]

    def load_stream_state(self, stream_id: str) -> bytes | None:
        """The saved parser state of one file (for a stream evicted from memory)."""
        if self._db is None:
            return None
        row = self._db.execute("SELECT state FROM files WHERE stream_id = ?", (stream_id,)).fetchone()
        return None if row is None else row[0]
