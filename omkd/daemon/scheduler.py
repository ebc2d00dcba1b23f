"""What to read next: filesystem hints, periodic rescans, and a read budget per ready file.

A rescan of the roots is the source of truth; hints from the watch strategy only make the
files they name come sooner. Files with new bytes are read a budget at a time, and for a time
slice at most, yielding to the event loop between files, so HTTP and the systemd watchdog keep
being served.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Final

import structlog

from omkd.daemon.backfill import Backfill
from omkd.daemon.clock import Clock
from omkd.daemon.parts import Parts
from omkd.daemon.reader import FEED_STEP, READ_STEP
from omkd.daemon.tracked import TrackedFile
from omkd.daemon.watch import PollingWatch, Watch, start_watch

log = structlog.get_logger("omkd.daemon")

READ_BUDGET: Final = READ_STEP
"""Bytes read from one file, at most, before the loop looks at anything else."""
READ_SLICE_SECONDS: Final = 0.01
"""How long one read step may hold the event loop, give or take the FEED_STEP under way when it
runs out: a fast host reads the whole budget, a slow or busy one less (measured by the injected
clock, so a test's manual clock leaves the budget in bytes alone)."""
YIELD_SECONDS: Final = 0.001
"""Between two read steps of a busy file: long enough for every waiting request to be served."""
HINT_RESCAN_DELAY: Final = 0.2
REPLAY_LAG_BYTES: Final = 8 << 20
"""More unread bytes than this and omkd counts as replaying (rate alerts are suppressed)."""


class ReadScheduler:
    def __init__(self, parts: Parts, clock: Clock, wake: asyncio.Event) -> None:
        self.reader = parts.reader
        self._keeper = parts.keeper
        self._clock = clock
        self._wake = wake
        self._hints: set[str] = set()
        self.rescan_due = 0.0
        self.ready: dict[str, TrackedFile] = {}
        self.watch: Watch = PollingWatch()
        self.caught_up = False
        self.announced = False
        """Set once the daemon is ready: rescans from then on can tell missed events."""
        self.backfill: Backfill | None = None
        """Catch-up workers: files never read are read by them while far behind."""

    @property
    def backfilling(self) -> bool:
        """Catch-up workers read files, or hold readings not adopted yet."""
        return self.backfill is not None and self.backfill.busy

    @property
    def polling(self) -> bool:
        return self.watch.polling

    def start_watching(self, mode: str, roots: list[Path]) -> None:
        self.watch = start_watch(mode, roots, self.hint)

    def stop_watching(self) -> None:
        self.watch.stop()

    def hint(self, paths: list[str], is_directory: bool) -> None:
        """A filesystem event (called on the loop)."""
        if is_directory:
            self.soon()
        else:
            self._hints.update(paths)
        self._wake.set()

    def soon(self) -> None:
        """Rescan shortly (a directory changed, or a hint named a file omkd does not know)."""
        self.rescan_due = min(self.rescan_due, self._clock.monotonic() + HINT_RESCAN_DELAY)

    def now_due(self) -> None:
        self.rescan_due = 0.0
        self._wake.set()

    def take_hints(self) -> None:
        hints, self._hints = self._hints, set()
        reader = self.reader
        for path in hints:
            result = reader.tailer.poke(path)
            if result is None:
                if path.endswith((".jsonl", ".jsonl.1")) or "." not in Path(path).name:
                    self.soon()
                continue
            for file in reader.apply_scan(result):
                self.ready[file.stream_id] = file

    def rescan(self, interval: Callable[[bool], float]) -> None:
        reader = self.reader
        before = {f.stream_id: (f.size, f.mtime_ns) for f in reader.tailer.files.values()}
        ready = reader.rescan()
        if not self.polling and self.announced:
            unannounced = [f for f in ready if f.stream_id not in self.ready]
            if unannounced and any(before.get(f.stream_id) is not None for f in unannounced):
                reader.stats.watch_missed += 1
        for file in ready:
            self.ready[file.stream_id] = file
        self.rescan_due = self._clock.monotonic() + interval(self.polling)

    def step(self, interval: Callable[[bool], float]) -> None:
        """Take pending hints and rescan when due."""
        if self._hints:
            self.take_hints()
        if self._clock.monotonic() >= self.rescan_due:
            self.rescan(interval)

    async def read_ready(self, stop: Callable[[], bool]) -> bool:
        """Read a budget from every file with new bytes; True when something was read."""
        backfill = self.backfill
        worked = False
        if backfill is not None:
            worked = self._collect(backfill)
        if not self.ready:
            if backfill is not None and backfill.busy:
                return worked
            if not self.caught_up and self.announced:
                self.caught_up = True
            if backfill is not None:
                backfill.stop()  # caught up: appends are read here
            return worked
        reader = self.reader
        # far behind (a sum over every file followed): asked once, and only for a file a worker wants
        behind: bool | None = None
        for stream_id, file in list(self.ready.items()):
            if stream_id not in reader.tailer.files:
                del self.ready[stream_id]
                continue
            held = backfill is not None and backfill.holds(stream_id)
            if backfill is not None and not held and self._worth_a_worker(backfill, file):
                if behind is None:
                    behind = self._far_behind()
                if behind:
                    backfill.hand_out(file)
                    held = backfill.holds(stream_id)  # not when it could not be opened
            if held:
                del self.ready[stream_id]  # a worker reads it (or will); ``_collect`` gives it back
                continue
            try:
                read, at_end = self._read_slice(file)
            except OSError as error:
                reader.faults.record("read", error, path=file.path)
                read, at_end = 0, True
            if at_end:
                del self.ready[stream_id]
                reader.drained(file)
            worked = worked or read > 0
            # A millisecond, not sleep(0): one loop iteration serves only one step of a request
            # (accept, read, handler, write), so sleep(0) let an HTTP client wait several steps.
            await asyncio.sleep(0 if at_end else YIELD_SECONDS)
            if stop() or self._keeper.wants_checkpoint():
                break  # back to the main loop, which saves (and evicts) before reading on
        return worked

    def _far_behind(self) -> bool:
        """Enough unread for catch-up workers to pay for their start (less is read here)."""
        return self.reader.tailer.lag_bytes() > REPLAY_LAG_BYTES

    def start_backfill(self) -> None:
        """Start the catch-up workers now if what is unread wants them (at start: their start-up then
        overlaps the daemon's)."""
        if self.backfill is not None and self._far_behind():
            self.backfill.start()

    def stop_backfill(self) -> None:
        """Stop the catch-up workers, adopting what they finished (at shutdown)."""
        if self.backfill is not None:
            self.backfill.stop()
            self._collect(self.backfill)

    def _worth_a_worker(self, backfill: Backfill, file: TrackedFile) -> bool:
        return backfill.wants(file) and self.reader.streams.get(file.stream_id) is None

    def _collect(self, backfill: Backfill) -> bool:
        """Adopt the workers' readings; their files are read on from where the workers stopped."""
        files = backfill.collect()
        for file in files:
            if file.stream_id in self.reader.tailer.files and file.size > file.read_offset:
                self.ready[file.stream_id] = file
        return bool(files)

    def _read_slice(self, file: TrackedFile) -> tuple[int, bool]:
        """Read ``file`` FEED_STEP by FEED_STEP, up to READ_BUDGET or READ_SLICE_SECONDS;
        (bytes read, whether its end was reached: a feed shorter than asked)."""
        until = self._clock.monotonic() + READ_SLICE_SECONDS
        total = 0
        while total < READ_BUDGET:
            read = self.reader.feed(file, FEED_STEP)
            total += read
            if read < FEED_STEP:
                return total, True
            if self._clock.monotonic() >= until:
                break
        return total, False

    def replaying(self) -> bool:
        return not self.caught_up or self.reader.tailer.lag_bytes() > REPLAY_LAG_BYTES
