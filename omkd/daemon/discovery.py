"""Transcript files below the roots: one walk (``os.scandir``, one ``stat`` per file), what it
skips told by name (``discovery.ELOOP``, ``discovery.not_regular``…) and never stopping it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from omkd.engine import formats

OnError = Callable[[str, "OSError | str", str], None]
"""Told of what discovery skips: (area, the error or a named condition, path)."""


def ignore(area: str, error: OSError | str, path: str) -> None:
    return None


def walk_transcripts(
    roots: Iterable[Path], missing: list[Path] | None = None, on_error: OnError = ignore
) -> Iterator[tuple[str, os.stat_result]]:
    """``(path, stat)`` of every ``*.jsonl`` regular file below the roots (no symlinked dirs).

    Nothing met below a root stops the walk: a symlink loop, a dangling link, a FIFO or device
    named ``*.jsonl``, an unreadable directory, no descriptor left for ``scandir`` are told to
    ``on_error`` and skipped; a file or directory gone meanwhile is skipped silently.
    """
    stack: list[str] = []
    for root in roots:
        if root.is_dir():
            stack.append(str(root))
        elif missing is not None:
            missing.append(root)
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        elif formats.is_transcript(entry.path):
                            info = entry.stat()
                            if stat.S_ISREG(info.st_mode):
                                yield entry.path, info
                            else:
                                on_error("discovery", "not_regular", entry.path)
                    except FileNotFoundError:
                        if entry.is_symlink():
                            on_error("discovery", "dangling_symlink", entry.path)
                    except OSError as error:
                        on_error("discovery", error, entry.path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as error:
            on_error("discovery", error, directory)
