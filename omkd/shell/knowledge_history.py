"""When the knowledge changed: the git commits that touched knowledge files (their author time,
spec §9.1), or their mtimes.

A gap rate is read against the edits meant to lower it, so the report marks each change of a
skill's knowledge on its chart, and the wiki says an entry is not seen since one, or recurring
after it. A file in a git work tree contributes its commits (short hash, subject) and, when it is
modified and not committed yet, its mtime; a file outside git (or when git is missing) contributes its mtime.
git is asked once per work tree, with a timeout; nothing here ever fails the caller.
"""

from __future__ import annotations

import os
import subprocess
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

GIT_TIMEOUT: Final = 10.0
UNCOMMITTED: Final = "modified, not committed"
"""The subject of a change of a tracked file known only by its mtime."""
UNTRACKED: Final = "modified (no git history)"
"""The subject of a change of a file outside git, known by its mtime."""
_RECORD: Final = "\x1e"
_FIELD: Final = "\x1f"


@dataclass(frozen=True, slots=True)
class KnowledgeChange:
    """One change of knowledge files: a commit, or a file's mtime (``commit`` empty)."""

    timestamp: float
    commit: str
    subject: str
    files: tuple[str, ...]


def _git(cwd: Path, *args: str) -> str | None:
    """git's stdout, or None when git is missing, fails or takes too long."""
    # file names are names, never globs; printed as they are, not quoted
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_LITERAL_PATHSPECS": "1"}
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), "-c", "core.quotePath=false", *args],  # noqa: S607 (git from PATH, as a user runs it)
            capture_output=True, text=True, timeout=GIT_TIMEOUT, env=env, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _work_tree(directory: Path, cache: dict[Path, Path | None]) -> Path | None:
    if directory not in cache:
        top = _git(directory, "rev-parse", "--show-toplevel")
        cache[directory] = Path(top.strip()) if top and top.strip() else None
    return cache[directory]


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def _commits(top: Path, files: list[str], since: float | None) -> tuple[list[KnowledgeChange], set[str]]:
    """The commits touching ``files`` (absolute, inside ``top``), and those of them git tracks."""
    relative = sorted({os.path.relpath(f, top) for f in files})
    window = [f"--since=@{int(since)}"] if since is not None else []
    log = _git(top, "log", f"--format={_RECORD}%h{_FIELD}%at{_FIELD}%s", "--name-only", *window, "--", *relative)
    tracked_out = _git(top, "ls-files", "-z", "--", *relative)
    tracked = {str(top / name) for name in (tracked_out or "").split("\0") if name}
    changes = []
    for record in (log or "").split(_RECORD)[1:]:
        head, _, names = record.partition("\n")
        short, stamp, subject = [*head.split(_FIELD), "", ""][:3]
        touched = tuple(sorted(str(top / n) for n in names.splitlines() if n.strip()))
        if short and stamp.isdigit():
            changes.append(KnowledgeChange(float(stamp), short, subject, touched))
    modified_out = _git(top, "status", "--porcelain", "-z", "--", *relative)
    for entry in (modified_out or "").split("\0"):
        if len(entry) > 3 and entry[:2].strip():
            path = str(top / entry[3:])
            when = _mtime(path) if path in tracked else None
            if when is not None and (since is None or when >= since):
                changes.append(KnowledgeChange(when, "", UNCOMMITTED, (path,)))
    return changes, tracked


def knowledge_changes(files: Iterable[str], since: float | None = None) -> list[KnowledgeChange]:
    """Every change of these knowledge files (absolute paths) since ``since`` (None: all), oldest
    first: the commits of their git work trees, plus the mtime of each file git does not track or
    that is modified and not committed."""
    trees: dict[Path, Path | None] = {}
    by_tree: dict[Path, list[str]] = defaultdict(list)
    loose: list[str] = []
    given: dict[str, str] = {}
    """Each file's real path (git names what is in its work tree: a symlinked ~/.claude, say) to
    the path it was asked for."""
    for path in sorted(set(files)):
        real = os.path.realpath(path)
        given.setdefault(real, path)
        top = _work_tree(Path(real).parent, trees) if Path(real).parent.is_dir() else None
        (by_tree[top] if top is not None else loose).append(real)
    changes: list[KnowledgeChange] = []
    for top, inside in by_tree.items():
        commits, tracked = _commits(top, inside, since)
        changes += commits
        loose += [f for f in inside if f not in tracked]
    for path in loose:
        when = _mtime(path)
        if when is not None and (since is None or when >= since):
            changes.append(KnowledgeChange(when, "", UNTRACKED, (path,)))
    named = [
        KnowledgeChange(c.timestamp, c.commit, c.subject, tuple(sorted(given.get(f, f) for f in c.files)))
        for c in changes
    ]
    named.sort(key=lambda c: (c.timestamp, c.commit, c.files))
    return named
