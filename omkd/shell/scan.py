"""Batch reading for ``omkd scan``: find transcript files, stream them through the engine.

Files are read in fixed-size chunks, so memory stays flat however large the corpus.
"""

from __future__ import annotations

import functools
import itertools
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from omkd.engine.fold import Fold
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.stream import StreamProcessor, StreamRead
from omkd.engine.window import Window
from omkd.shell import discovery
from omkd.shell.discovery import Skip

if TYPE_CHECKING:
    from omkd.shell.llm_judge import LlmRefiner

CHUNK_BYTES: Final = 1 << 20

Progress = Callable[[int], None]
"""Called with the number of bytes just read."""


class ScanInputError(Exception):
    """A path given to scan is missing or unreadable; the message names it."""


class Source(NamedTuple):
    """A transcript file and its name in reports: its path relative to the root it was found under."""

    path: Path
    name: str


def discover(paths: Iterable[Path], skipped: list[Skip] | None = None) -> list[Source]:
    """Transcript files under ``paths``: files as given, directories walked (``discovery.walk``:
    ``*.jsonl``, and Gemini CLI's ``chats/*.json``), each named relative to its PATH.

    A PATH that is not a readable regular file or directory is bad input (``ScanInputError``
    naming it); below a directory, what is not read (a FIFO or device named ``*.jsonl``, a
    symlink loop, a dangling link, a compressed rollout, a directory that cannot be listed) is
    told to ``skipped``: never opened, so nothing blocks or reads forever.
    """
    found: list[Source] = []
    for path in paths:
        if path.is_dir():
            top = os.fspath(path)
            for name, _ in discovery.walk(top, functools.partial(_below, top, skipped)):
                file = Path(name)
                found.append(Source(file, file.relative_to(path).as_posix()))
            continue
        info, skip = discovery.stat_file(os.fspath(path))
        if info is not None:
            found.append(Source(path, path.name))
        elif skip is None or skip.reason == discovery.DANGLING:
            raise ScanInputError(f"{path}: no such file or directory")
        elif skip.reason == discovery.NOT_REGULAR:
            raise ScanInputError(f"{path}: not a regular file or directory")
        else:
            raise ScanInputError(f"{path}: {discovery.SKIP_REASONS[skip.reason]}")
    return found


def _below(top: str, skipped: list[Skip] | None, skip: Skip) -> None:
    """A PATH that cannot be listed is bad input; what cannot be read below it is told."""
    if skip.path == top:
        raise ScanInputError(f"{top}: {skip.error.strerror if skip.error else skip.reason}")
    if skipped is not None:
        skipped.append(skip)


def scan_file(path: Path, stream: StreamProcessor, progress: Progress | None = None) -> None:
    try:
        # O_NONBLOCK: a FIFO put in place since discovery must not block; it is refused below.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ScanInputError(f"{path}: not a regular file")
            while chunk := handle.read(CHUNK_BYTES):
                stream.feed(chunk)
                if progress is not None:
                    progress(len(chunk))
    except OSError as error:
        raise ScanInputError(f"{path}: {error.strerror or error}") from error


def scan(
    files: Iterable[Path | Source],
    window: Window | None = None,
    rules: SegmenterRules | None = None,
    progress: Progress | None = None,
    refiner: LlmRefiner | None = None,
    jobs: int = 1,
) -> Fold:
    """Fold every file, one stream per file (a bare path is named by its file name).

    With ``jobs`` > 1 the files are read by that many worker processes and folded here in the
    order given, so the fold is the one a serial read makes (the report is byte for byte the
    same); small scans, and scans with an LLM judge, are read here. With an LLM judge, the files
    are read twice when the first reading queued candidates it had no cached verdict for: they
    are asked in between, and the second reading finds them cached.
    """
    sources = [item if isinstance(item, Source) else Source(item, item.name) for item in files]
    fold = _fold(sources, window, rules, progress, refiner, jobs if refiner is None else 1)
    if refiner is not None and refiner.pending:
        import asyncio  # deferred: only a scan with an LLM judge runs a loop

        asyncio.run(refiner.drain())
        with refiner.quietly():
            fold = _fold(sources, window, rules, None, refiner, 1)
    return fold


PARALLEL_FROM_BYTES: Final = 8 * 1000 * 1000
"""Below this much to read, worker processes cost more than they save (a process start each)."""


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), the default of ``--jobs``."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def read_stream(source: Source, rules: SegmenterRules | None) -> StreamRead:
    """Read one file to its end (in a worker process, or here)."""
    stream = StreamProcessor(source.name, rules)
    scan_file(source.path, stream)
    return StreamRead.of(stream)


def _fold(
    sources: list[Source],
    window: Window | None,
    rules: SegmenterRules | None,
    progress: Progress | None,
    refiner: LlmRefiner | None,
    jobs: int = 1,
) -> Fold:
    fold = Fold(window=window or Window())
    sizes = [_size(source.path) for source in sources] if jobs > 1 and len(sources) > 1 else []
    if sum(sizes) >= PARALLEL_FROM_BYTES:
        from concurrent.futures import ProcessPoolExecutor  # deferred: small scans start no worker

        workers = min(jobs, len(sources))
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # map yields in the order given: the fold sees the files as a serial read does
            reads = pool.map(read_stream, sources, itertools.repeat(rules), chunksize=1)
            for read, size in zip(reads, sizes, strict=True):
                fold.add_read(read)
                if progress is not None:
                    progress(size)
    else:
        for source in sources:
            stream = StreamProcessor(source.name, rules, refiner=refiner)
            scan_file(source.path, stream, progress)
            fold.add_stream(stream)
    fold.finish()
    return fold


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
