"""The first reading of transcript files, in worker processes, while the daemon replays.

At start (or when a backlog of new bytes builds up) most of what the daemon reads is whole files
it has never read. Those are read the way ``omkd scan --jobs`` reads: each by a worker process,
into a stream processor of its own. The worker hands back what the event loop would hold after
reading the same bytes itself — the segments that changed and the links learnt (taken out of the
processor), the processor's state (``engine/stream_state.py``), the offset that state covers (the
end of the last complete line) and the head and tail bytes the tailer checks a file by. The loop
adopts that only if nothing touched the file meanwhile (still followed, nothing read from it, no
processor of its own), else drops it and reads the file itself; a file replaced since is found
by the head check of the next rescan, as any file. Once caught up the workers stop: appends are
read on the loop (``scheduler.py``).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Final

import structlog

from omkd.daemon.first_read import FirstRead, ReadTask, serve
from omkd.daemon.reader import Reader
from omkd.daemon.tracked import TrackedFile
from omkd.engine.segmenting import SegmenterRules

log = structlog.get_logger("omkd.daemon")

FROM_BYTES: Final = 16 << 10
"""Smaller files are read on the loop: a worker's round trip costs about what reading them does
(files under 16 KiB: 280 of bench/corpus's 1,854, 0.2 % of its bytes)."""
ADOPTED: Final = "adopted"
READ_HERE: Final = "read_here"
IN_FLIGHT_PER_WORKER: Final = 2
"""Files sent to a worker at once: the next one waits in its pipe while the loop takes the last
reading, and a file waits little between being sent and being read (what is read is what is
there then)."""
STOP_SECONDS: Final = 0.2
"""How long the idle workers, told to exit all at once, are given before they are killed (one
still starting up would take its imports' time: the loop waits this long at most)."""
MAX_DEFAULT_WORKERS: Final = 4
"""The default ``tail.catch_up_workers`` is the usable cores, at most this many (each worker holds
40 MB or so while it runs)."""


Adopt = Callable[[TrackedFile, FirstRead], bool]


@dataclass(slots=True)
class Worker:
    """A catch-up worker process and the loop's end of its pipe."""

    process: BaseProcess
    connection: Connection
    files: deque[TrackedFile] = field(default_factory=deque)
    """Sent and not answered yet, in the order sent (a worker answers in that order)."""


def spawn_workers(count: int, rules: SegmenterRules, max_line_bytes: int) -> list[Worker]:
    """Start ``count`` workers. Spawned, not forked: the daemon has threads (the watch) and an open
    SQLite connection."""
    import multiprocessing  # deferred: a daemon that never catches up starts no worker

    context = multiprocessing.get_context("spawn")
    workers = []
    for number in range(count):
        ours, theirs = context.Pipe()
        process = context.Process(
            target=serve, args=(theirs, rules, max_line_bytes), name=f"omkd-catch-up-{number}", daemon=True
        )
        process.start()
        theirs.close()  # the worker's end: its death then closes the pipe
        workers.append(Worker(process, ours))
    return workers


def stop_workers(workers: list[Worker]) -> None:
    """Tell idle workers to exit and kill busy ones, waiting ``STOP_SECONDS`` for all together."""
    for worker in workers:
        if worker.files:
            worker.process.kill()
        else:
            try:
                worker.connection.send(None)
            except OSError:
                worker.process.kill()
        worker.connection.close()
    deadline = time.monotonic() + STOP_SECONDS
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))
    for worker in workers:
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()  # a killed process ends at once
        worker.process.close()


class WorkerDiedError(RuntimeError):
    """A catch-up worker's pipe closed: it was killed (the OOM killer, an operator) or crashed."""


class Backfill:
    """Hands never-read files to worker processes and gives their readings to ``adopt``.

    No thread: each worker has a pipe the event loop watches (``add_reader``); a reading is taken
    off the pipe as it arrives and adopted at the next ``collect``. Files wait in a queue for a
    worker. The workers start with the first file handed out and end with ``stop``; when one dies
    the others are stopped and none is started again: what they held, and what waited, is read
    on the loop."""

    def __init__(
        self,
        workers: int,
        rules: SegmenterRules,
        max_line_bytes: int,
        name_of: Callable[[str], str],
        adopt: Adopt,
        wake: Callable[[], None],
        on_error: Callable[[BaseException, str], None],
        outcomes: Counter[str] | None = None,
        hold_open: Callable[[TrackedFile], None] = lambda file: None,
    ) -> None:
        """``hold_open`` opens a file's descriptor on the loop before a worker is sent it (an
        ``OSError`` leaves the file to the loop): deleted or replaced while the worker reads it by
        its path, the file is then drained through that descriptor as any, nothing lost."""
        self.workers = workers
        self._hold_open = hold_open
        self._rules = rules
        self._max_line_bytes = max_line_bytes
        self._name_of = name_of
        self._adopt = adopt
        self._wake = wake
        self._on_error = on_error
        self._pool: list[Worker] = []
        self._queue: dict[str, TrackedFile] = {}
        self._answered: list[tuple[TrackedFile, tuple[str, Any]]] = []
        self._given_back: list[TrackedFile] = []
        self._tried: set[str] = set()
        """Streams handed out since the workers started: one that came back unread is read on the loop."""
        self.broken = False
        self.outcomes: Counter[str] = outcomes if outcomes is not None else Counter()
        """Files handed out, by outcome: ``adopted``, or ``read_here`` (by the loop after all)."""

    @property
    def busy(self) -> bool:
        """Files wait for a worker, are read by one, or wait to be adopted."""
        return bool(self._queue or self._answered or self._given_back or any(w.files for w in self._pool))

    def holds(self, stream_id: str) -> bool:
        """The file waits for a worker, is read by one or waits to be adopted: the loop must not read it."""
        return (
            stream_id in self._queue
            or any(f.stream_id == stream_id for w in self._pool for f in w.files)
            or any(f.stream_id == stream_id for f, _ in self._answered)
        )

    def wants(self, file: TrackedFile) -> bool:
        """Worth a worker: a file never read, and big enough."""
        return (
            not self.broken
            and self.workers > 0
            and file.read_offset == 0
            and file.size >= FROM_BYTES
            and file.stream_id not in self._tried
        )

    def hand_out(self, file: TrackedFile) -> None:
        """Queue ``file`` for a worker (``wants`` said it is worth one)."""
        self._tried.add(file.stream_id)
        self._queue[file.stream_id] = file
        self._send()

    def start(self) -> None:
        """Start the workers now, not with the first file handed out: their start-up then overlaps
        the loop's first reads."""
        if not self._pool and not self.broken and self.workers > 0:
            self._start()

    def _send(self) -> None:
        if not self._queue or self.broken:
            return
        if not self._pool:
            self._start()
        for worker in self._pool:
            while self._queue and len(worker.files) < IN_FLIGHT_PER_WORKER:
                stream_id = next(iter(self._queue))
                file = self._queue.pop(stream_id)
                try:
                    self._hold_open(file)
                except OSError:
                    self._given_back.append(file)  # the loop meets the error the usual way
                    continue
                task: ReadTask = (file.path, file.identity, self._name_of(file.path))
                worker.files.append(file)
                try:
                    worker.connection.send(task)
                except OSError as error:  # the worker is gone
                    self._broke(WorkerDiedError(str(error)), file)
                    return

    def _start(self) -> None:
        self._pool = spawn_workers(self.workers, self._rules, self._max_line_bytes)
        loop = asyncio.get_running_loop()
        for worker in self._pool:
            loop.add_reader(worker.connection.fileno(), self._readable, worker)
        log.info("catch_up_workers", workers=len(self._pool))

    def _readable(self, worker: Worker) -> None:
        """A worker's pipe has something: a reading, or the end (the worker died)."""
        try:
            reply = worker.connection.recv()
        except (EOFError, OSError) as error:
            file = worker.files[0] if worker.files else None
            self._broke(WorkerDiedError(f"catch-up worker {worker.process.pid} died ({error or 'pipe closed'})"), file)
            return
        self._answered.append((worker.files.popleft(), reply))
        self._wake()

    def collect(self) -> list[TrackedFile]:
        """Adopt the readings that came back; the files they were of, and those given back (to read
        on from where they are)."""
        files, self._given_back = self._given_back, []
        self.outcomes[READ_HERE] += len(files)
        answered, self._answered = self._answered, []
        for file, (kind, value) in answered:
            files.append(file)
            if kind == "failed":
                self._on_error(RuntimeError(value), file.path)
            adopted = kind == "read" and value is not None and self._adopt(file, value)
            self.outcomes[ADOPTED if adopted else READ_HERE] += 1
        self._send()
        return files

    def _broke(self, error: BaseException, file: TrackedFile | None) -> None:
        if self.broken:
            return
        self.broken = True
        self._on_error(error, file.path if file is not None else "")
        log.warning("catch_up_workers_broken", error=str(error), action="reading every file on the event loop")
        self.stop()

    def stop(self) -> None:
        """Stop the workers: idle ones are told to, busy ones killed (what they read is read on the
        loop); the files waiting are given back. Readings already taken off a pipe are still adopted."""
        self._given_back.extend(self._queue.values())
        self._queue.clear()
        self._tried.clear()
        pool, self._pool = self._pool, []
        if not pool:
            return
        loop = asyncio.get_running_loop()
        for worker in pool:
            loop.remove_reader(worker.connection.fileno())
            self._given_back.extend(worker.files)
        stop_workers(pool)


def catch_up_workers(reader: Reader, workers: int, wake: Callable[[], None]) -> Backfill:
    """``workers`` catch-up workers that read for ``reader`` (its rules, names and line cap; their
    readings adopted by ``Reader.adopt``); ``wake`` is called on the loop when a reading came back."""
    streams = reader.streams
    return Backfill(
        workers,
        streams.rules,
        streams.max_line_bytes,
        streams.name_of,
        reader.adopt,
        wake,
        lambda error, path: reader.faults.record("catch_up", error, path=path),
        reader.stats.catch_up_files,
        reader.tailer.hold_open,
    )
