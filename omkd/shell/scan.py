"""Batch reading for ``omkd scan``: find transcript files, stream them through the engine.

Files are read in fixed-size chunks, so memory stays flat however large the corpus.
"""

from __future__ import annotations

import errno
import itertools
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from omkd.engine import formats
from omkd.engine.fold import Fold
from omkd.engine.segmenting import SegmenterRules
from omkd.engine.stream import StreamProcessor, StreamRead
from omkd.engine.window import Window

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


class Skipped(NamedTuple):
    """A file below a PATH that is not read, and why (a ``pipeline.skipped_files`` reason)."""

    path: Path
    reason: str


NOT_REGULAR: Final = "not_regular"
SYMLINK_LOOP: Final = "symlink_loop"
DANGLING: Final = "dangling"
UNREADABLE: Final = "unreadable"
COMPRESSED: Final = "compressed"
COMPRESSED_SUFFIX: Final = ".jsonl.zst"
"""Codex can compress its rollouts with zstd; Python 3.11's standard library and omkd's
dependencies have no zstd decoder, so these are told, not read."""
SKIP_REASONS: Final = {
    NOT_REGULAR: "not a regular file (a FIFO, device or socket)",
    SYMLINK_LOOP: "a loop of symbolic links",
    DANGLING: "a symbolic link to nothing",
    UNREADABLE: "cannot be read",
    COMPRESSED: "compressed with zstd (.jsonl.zst): no zstd decoder here, not read",
}


def _regular(path: Path) -> str | None:
    """None for a regular file (through symlinks), else why it cannot be read as a transcript."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return DANGLING
    except OSError as error:
        return SYMLINK_LOOP if error.errno == errno.ELOOP else UNREADABLE
    return None if stat.S_ISREG(info.st_mode) else NOT_REGULAR


def discover(paths: Iterable[Path], skipped: list[Skipped] | None = None) -> list[Source]:
    """Transcript files under ``paths``: files as given, directories searched for transcripts
    (``formats.is_transcript``: ``*.jsonl``, and Gemini CLI's ``chats/*.json``).

    A PATH that is not a regular file or directory is bad input (``ScanInputError``); below a
    directory, what cannot be read as a transcript (a FIFO or device named ``*.jsonl``, a
    symlink loop, a dangling link) is skipped and told to ``skipped``: never opened, so
    nothing blocks or reads forever.
    """
    found: list[Source] = []
    for path in paths:
        if path.is_dir():
            for directory, subdirs, files in os.walk(path, onerror=_raise):
                subdirs.sort()
                for name in sorted(files):
                    if name.endswith(COMPRESSED_SUFFIX) and skipped is not None:
                        skipped.append(Skipped(Path(directory, name), COMPRESSED))
                    elif formats.is_transcript(os.path.join(directory, name)):
                        file = Path(directory, name)
                        why = _regular(file)
                        if why is None:
                            found.append(Source(file, file.relative_to(path).as_posix()))
                        elif skipped is not None:
                            skipped.append(Skipped(file, why))
            continue
        why = _regular(path)
        if why is None:
            found.append(Source(path, path.name))
        elif why == NOT_REGULAR:
            raise ScanInputError(f"{path}: not a regular file or directory")
        elif why == SYMLINK_LOOP:
            raise ScanInputError(f"{path}: a loop of symbolic links")
        elif why == UNREADABLE:
            raise ScanInputError(f"{path}: cannot be read")
        else:
            raise ScanInputError(f"{path}: no such file or directory")
    return found


def _raise(error: OSError) -> None:
    raise ScanInputError(f"{error.filename}: {error.strerror}")


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
