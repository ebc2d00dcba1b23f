"""Split a byte stream into complete lines, whatever the chunking.

The idea of h11's ``ReceiveBuffer``: feed bytes, get back the complete lines, keep the
unfinished tail. A line without its ``\\n`` is a record still being written and is never
returned. A line longer than ``max_line_bytes`` is dropped with bounded memory (only its
length is tracked while its end is awaited) and counted in ``oversize``.
"""

from __future__ import annotations

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024


class LineSplitter:
    """Incremental line splitter with a line-length cap."""

    __slots__ = ("_discarding", "_max", "_pending", "_pending_len", "consumed", "oversize")

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be positive")
        self._max = max_line_bytes
        self._pending: list[bytes] = []
        self._pending_len = 0
        self._discarding = False
        #: bytes of input that are behind the last complete line (the safe checkpoint).
        self.consumed = 0
        #: lines dropped because they exceeded the cap.
        self.oversize = 0

    @property
    def pending_bytes(self) -> int:
        """Bytes received after the last complete line (a partial record)."""
        return self._pending_len

    def feed(self, data: bytes) -> list[bytes]:
        """Add ``data``; return the lines it completed, without their ``\\n``."""
        if not data:
            return []
        if b"\n" not in data:
            self._hold(data)
            return []
        found = data.split(b"\n")  # one copy of the chunk, not a slice and a split of the slice
        tail = found.pop()
        if self._discarding:  # the first line's start was too long already: it is skipped
            self._discarding = False
            self.oversize += 1
            del found[0]
        elif self._pending:
            self._pending.append(found[0])
            found[0] = b"".join(self._pending)
            self._pending.clear()
        self.consumed += self._pending_len
        self._pending_len = 0
        cap = self._max
        lines = [line for line in found if len(line) <= cap]
        self.oversize += len(found) - len(lines)
        self.consumed += len(data) - len(tail)
        if tail:
            self._hold(tail)
        return lines

    def _hold(self, data: bytes) -> None:
        if self._discarding:
            self.consumed += len(data)
            return
        self._pending_len += len(data)
        if self._pending_len > self._max:
            # Too long already: stop buffering and skip to the next newline.
            self.consumed += self._pending_len
            self._pending.clear()
            self._pending_len = 0
            self._discarding = True
        else:
            self._pending.append(data)

    def __getstate__(self) -> dict[str, object]:
        """The splitter as checkpointed: a partial line is not kept, it is read again.

        The checkpoint offset is ``consumed``, the end of the last complete line, so the
        bytes of a partial line are re-read after a restart. A line being skipped for its
        length stays skipped.
        """
        return {
            "_max": self._max,
            "_discarding": self._discarding,
            "consumed": self.consumed,
            "oversize": self.oversize,
        }

    def __setstate__(self, state: dict[str, object]) -> None:
        self._max = state["_max"]  # type: ignore[assignment]
        self._discarding = state["_discarding"]  # type: ignore[assignment]
        self.consumed = state["consumed"]  # type: ignore[assignment]
        self.oversize = state["oversize"]  # type: ignore[assignment]
        self._pending = []
        self._pending_len = 0
