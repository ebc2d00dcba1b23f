"""Notice when the knowledge base changes, so a gap-rate curve can be read against it.

For each knowledge base (the user's, each extra root, each project a transcript ran in)
it keeps the number of files, a fingerprint of their paths, sizes and modification times,
the newest modification time, and the git revision when the base lives in a git work
tree (read from ``.git`` directly, no subprocess). A changed fingerprint is a change.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from omkd.engine.labels import OTHER, CappedLabels

__all__ = ["OTHER", "BaseFigures", "KnowledgeWatcher", "git_revision", "observe"]


@dataclass(frozen=True, slots=True)
class BaseState:
    files: int
    fingerprint: bytes
    last_modified: float | None
    revision: str | None


@dataclass(slots=True)
class BaseFigures:
    """What /metrics shows for one knowledge base label."""

    files: int = 0
    changes: int = 0
    last_change: float | None = None
    revision: str | None = None
    state: BaseState | None = field(default=None, repr=False)


def _git_dir(directory: Path) -> Path | None:
    for candidate in (directory, *directory.parents):
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():  # a linked work tree: "gitdir: <path>"
            try:
                text = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if text.startswith("gitdir:"):
                target = Path(text.removeprefix("gitdir:").strip())
                return target if target.is_absolute() else (candidate / target).resolve()
            return None
    return None


def git_revision(directory: Path) -> str | None:
    """The short commit id checked out in the work tree holding ``directory``."""
    git = _git_dir(directory)
    if git is None:
        return None
    try:
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head[:12] or None
    ref = head.removeprefix("ref:").strip()
    common = git
    commondir = git / "commondir"
    if commondir.is_file():
        common = (git / commondir.read_text(encoding="utf-8").strip()).resolve()
    for base in (git, common):
        try:
            return (base / ref).read_text(encoding="utf-8").strip()[:12] or None
        except OSError:
            pass
        try:
            for line in (base / "packed-refs").read_text(encoding="utf-8").splitlines():
                sha, _, name = line.partition(" ")
                if name == ref:
                    return sha[:12]
        except OSError:
            pass
    return None


def observe(directory: Path, files: frozenset[str]) -> BaseState:
    digest = hashlib.blake2b(digest_size=16)
    newest: float | None = None
    count = 0
    for path in sorted(files):
        try:
            info = os.stat(path)
        except OSError:
            continue
        count += 1
        digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
        newest = info.st_mtime if newest is None else max(newest, info.st_mtime)
    return BaseState(count, digest.digest(), newest, git_revision(directory) if directory.exists() else None)


class KnowledgeWatcher:
    """Per-label figures; labels are capped (further bases share ``__other__``)."""

    def __init__(self, cap: int = 20) -> None:
        self.figures: dict[str, BaseFigures] = {}
        self._labels = CappedLabels(cap)

    def label(self, name: str) -> str:
        return self._labels.label(name)

    def update(self, bases: list[tuple[str, Path, frozenset[str]]]) -> bool:
        """Look at every base again; True when any changed since the last look."""
        changed = False
        merged: dict[str, list[BaseState]] = {}
        for name, directory, files in bases:
            merged.setdefault(self.label(name), []).append(observe(directory, files))
        for label, states in merged.items():
            state = states[0] if len(states) == 1 else _combine(states)
            figures = self.figures.setdefault(label, BaseFigures())
            if figures.state is not None and figures.state.fingerprint != state.fingerprint:
                figures.changes += 1
                figures.last_change = state.last_modified
                changed = True
            elif figures.state is None:
                figures.last_change = state.last_modified
            figures.files = state.files
            figures.revision = state.revision
            figures.state = state
        return changed


def _combine(states: list[BaseState]) -> BaseState:
    digest = hashlib.blake2b(digest_size=16)
    for state in states:
        digest.update(state.fingerprint)
    modified = [s.last_modified for s in states if s.last_modified is not None]
    revisions = sorted({s.revision for s in states if s.revision})
    return BaseState(
        sum(s.files for s in states),
        digest.digest(),
        max(modified) if modified else None,
        revisions[0] if len(revisions) == 1 else None,
    )
