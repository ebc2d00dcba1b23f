"""The knowledge base on disk: which files an agent could have read (coverage).

A project's knowledge is ``<cwd>/CLAUDE.md``, ``<cwd>/.claude/knowledge/**`` and
``<cwd>/.claude/skills/**``; the user's is ``~/.claude/CLAUDE.md`` and
``~/.claude/skills/**``; extra roots (``--kb``) add every text file below them. Listings
are cached per directory for the life of the index, and so is whether a project's instructions
ask for the uncertainty markers (``engine/conventions.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

from omkd.engine import conventions

TEXT_SUFFIXES: Final = frozenset({".md", ".txt", ".sh", ".json", ".yaml", ".yml"})


def _text_files(root: Path) -> Iterator[str]:
    """Text files below ``root``, dot-files and dot-directories skipped."""
    if not root.is_dir():
        return
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if not d.startswith(".")]
        for name in files:
            if not name.startswith(".") and os.path.splitext(name)[1].lower() in TEXT_SUFFIXES:
                yield os.path.normpath(os.path.join(directory, name))


def _layout(base: Path, trees: Iterable[str]) -> frozenset[str]:
    files: set[str] = set()
    claude_md = base / "CLAUDE.md"
    if claude_md.is_file():
        files.add(os.path.normpath(claude_md))
    for tree in trees:
        files.update(_text_files(base / tree))
    return frozenset(files)


USER_BASE: Final = "~"


def _instructions_ask(base: Path) -> bool:
    for name in conventions.INSTRUCTION_FILES:
        try:
            text = (base / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if conventions.asks_for_markers(text):
            return True
    return False


class FileKnowledgeIndex:
    """Knowledge files found on this machine for the projects transcripts name."""

    def __init__(self, home: Path | None = None, extra_roots: Iterable[Path] = ()) -> None:
        self._home = home
        self._extra = tuple(extra_roots)
        self._projects: dict[str, frozenset[str]] = {}
        self._common: frozenset[str] | None = None
        self._asks: dict[str | None, bool] = {}

    def files_for(self, cwd: str | None) -> frozenset[str]:
        if cwd is None:
            if self._common is None:
                common: set[str] = set()
                if self._home is not None:
                    common.update(_layout(self._home / ".claude", ("skills",)))
                for root in self._extra:
                    common.update(_text_files(root))
                self._common = frozenset(common)
            return self._common
        cached = self._projects.get(cwd)
        if cached is None:
            path = Path(cwd)
            found = _layout(path, (".claude/knowledge", ".claude/skills")) if path.is_absolute() else frozenset()
            cached = self._projects[cwd] = found
        return cached

    def asks_markers(self, cwd: str | None) -> bool | None:
        """Whether the instructions an agent reads in ``cwd`` (the user's ``~/.claude/CLAUDE.md``
        included) ask for the markers of the convention; ``cwd`` None: the user's alone."""
        if cwd in self._asks:
            return self._asks[cwd]
        if cwd is None:
            asked = self._home is not None and _instructions_ask(self._home / ".claude")
        else:
            path = Path(cwd)
            asked = bool(self.asks_markers(None)) or (path.is_absolute() and _instructions_ask(path))
        self._asks[cwd] = asked
        return asked

    def bases(self, cwds: Iterable[str]) -> list[tuple[str, Path, frozenset[str]]]:
        """Each knowledge base as (name, directory, files): the user's (``~``), each extra
        root and each project directory (named by its last component)."""
        found: list[tuple[str, Path, frozenset[str]]] = []
        if self._home is not None:
            user = self._home / ".claude"
            found.append((USER_BASE, user, _layout(user, ("skills",))))
        found.extend((root.name or str(root), root, frozenset(_text_files(root))) for root in self._extra)
        for cwd in sorted(set(cwds)):
            path = Path(cwd)
            if path.is_absolute():
                found.append((path.name or cwd, path, self.files_for(cwd)))
        return found
