"""Transcript files below a directory: one walk for ``omkd scan`` and the daemon, and one
vocabulary for what it skips (``SKIP_REASONS``).

The walk lists each directory with ``os.scandir`` and stats each transcript once (through
symlinks, never following a symlinked directory); it yields in sorted order (a directory's files
by name, then its subdirectories by name, each whole), so a scan reads the same files in the same
order on every machine. What it cannot read it never opens: each is told to ``on_skip`` as a
``Skip`` with one of the reasons below, and the walk goes on. A file or directory gone between the
listing and the ``stat`` is skipped without a word (it is not there to report). What to make of a
skip (an error naming a PATH, a line on stderr, an error the daemon survived) is the caller's.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Final, NamedTuple

from omkd.engine import formats

NOT_REGULAR: Final = "not_regular"
SYMLINK_LOOP: Final = "symlink_loop"
DANGLING: Final = "dangling"
UNREADABLE: Final = "unreadable"
COMPRESSED: Final = "compressed"
SKIP_REASONS: Final = {
    NOT_REGULAR: "not a regular file (a FIFO, device or socket)",
    SYMLINK_LOOP: "a loop of symbolic links",
    DANGLING: "a symbolic link to nothing",
    UNREADABLE: "cannot be read",
    COMPRESSED: "compressed with zstd (.jsonl.zst): no zstd decoder here, not read",
}
"""Why a file or directory is not read, and how to say it (scan's ``pipeline.skipped_files``
counts these names; the daemon counts the errno where there is one, else the name)."""
COMPRESSED_SUFFIX: Final = ".jsonl.zst"
"""Codex can compress its rollouts with zstd; Python 3.11's standard library and omkd's
dependencies have no zstd decoder, so these are told, not read."""


class Skip(NamedTuple):
    """A file or directory not read: where, why (a ``SKIP_REASONS`` name) and the error, if any."""

    path: str
    reason: str
    error: OSError | None = None


OnSkip = Callable[[Skip], None]


def ignore(skip: Skip) -> None:
    return None


def stat_file(path: str) -> tuple[os.stat_result | None, Skip | None]:
    """The ``stat`` of a regular file (through symlinks), or why it is not read as one; ``(None,
    None)`` for a file gone (not a symlink: that one is dangling)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None, Skip(path, DANGLING) if os.path.islink(path) else None
    except OSError as error:
        return None, Skip(path, SYMLINK_LOOP if error.errno == errno.ELOOP else UNREADABLE, error)
    if stat.S_ISREG(info.st_mode):
        return info, None
    return None, Skip(path, NOT_REGULAR)


def walk(root: str, on_skip: OnSkip = ignore) -> Iterator[tuple[str, os.stat_result]]:
    """``(path, stat)`` of every transcript (``formats.is_transcript``) below ``root``, sorted.

    A symlink loop, a dangling link, a FIFO or device with a transcript's name, a compressed
    rollout and a directory that cannot be listed (no permission, no descriptor left) are told to
    ``on_skip``; nothing stops the walk.
    """
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as error:
            on_skip(Skip(directory, UNREADABLE, error))
            continue
        subdirectories: list[str] = []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    subdirectories.append(entry.path)
                    continue
            except OSError as error:
                on_skip(Skip(entry.path, UNREADABLE, error))
                continue
            if entry.name.endswith(COMPRESSED_SUFFIX):
                on_skip(Skip(entry.path, COMPRESSED))
            elif formats.is_transcript(entry.path):
                info, skip = stat_file(entry.path)
                if info is not None:
                    yield entry.path, info
                elif skip is not None:
                    on_skip(skip)
        stack.extend(reversed(subdirectories))


def walk_roots(
    roots: Iterable[Path], missing: list[Path] | None = None, on_skip: OnSkip = ignore
) -> Iterator[tuple[str, os.stat_result]]:
    """``walk`` below each root in turn; a root that is not a directory is added to ``missing``."""
    for root in roots:
        if root.is_dir():
            yield from walk(str(root), on_skip)
        elif missing is not None:
            missing.append(root)
