"""Batch reading for ``omkd scan``: find transcript files, stream them through the engine.

Files are read in fixed-size chunks, so memory stays flat however large the corpus.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from omkd.engine.pipeline import Fold, StreamProcessor, Window
from omkd.engine.segment import SegmenterRules

if TYPE_CHECKING:
    from omkd.shell.llm_judge import LlmRefiner

CHUNK_BYTES: Final = 1 << 20
TRANSCRIPT_SUFFIX: Final = ".jsonl"

Progress = Callable[[int], None]
"""Called with the number of bytes just read."""


class ScanInputError(Exception):
    """A path given to scan is missing or unreadable; the message names it."""


class Source(NamedTuple):
    """A transcript file and its name in reports: its path relative to the root it was found under."""

    path: Path
    name: str


def discover(paths: Iterable[Path]) -> list[Source]:
    """Transcript files under ``paths``: files as given, directories searched for ``*.jsonl``."""
    found: list[Source] = []
    for path in paths:
        if path.is_file():
            found.append(Source(path, path.name))
        elif path.is_dir():
            for directory, subdirs, files in os.walk(path, onerror=_raise):
                subdirs.sort()
                for name in sorted(files):
                    if name.endswith(TRANSCRIPT_SUFFIX):
                        file = Path(directory, name)
                        found.append(Source(file, file.relative_to(path).as_posix()))
        elif path.exists():
            raise ScanInputError(f"{path}: not a regular file or directory")
        else:
            raise ScanInputError(f"{path}: no such file or directory")
    return found


def _raise(error: OSError) -> None:
    raise ScanInputError(f"{error.filename}: {error.strerror}")


def scan_file(path: Path, stream: StreamProcessor, progress: Progress | None = None) -> None:
    try:
        with path.open("rb") as handle:
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
) -> Fold:
    """Fold every file, one stream per file (a bare path is named by its file name).

    With an LLM judge, the files are read twice when the first reading queued candidates it had
    no cached verdict for: they are asked in between, and the second reading finds them cached.
    """
    sources = [item if isinstance(item, Source) else Source(item, item.name) for item in files]
    fold = _fold(sources, window, rules, progress, refiner)
    if refiner is not None and refiner.pending:
        asyncio.run(refiner.drain())
        with refiner.quietly():
            fold = _fold(sources, window, rules, None, refiner)
    return fold


def _fold(
    sources: list[Source],
    window: Window | None,
    rules: SegmenterRules | None,
    progress: Progress | None,
    refiner: LlmRefiner | None,
) -> Fold:
    fold = Fold(window=window or Window())
    for source in sources:
        stream = StreamProcessor(source.name, rules, refiner=refiner)
        scan_file(source.path, stream, progress)
        fold.add_stream(stream)
    fold.finish()
    return fold
