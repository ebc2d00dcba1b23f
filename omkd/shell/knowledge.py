"""The knowledge base on disk: which files an agent could have read (coverage).

Each agent has its own (``LAYOUTS``):

- Claude Code: ``<cwd>/CLAUDE.md``, ``<cwd>/.claude/knowledge/**``, ``<cwd>/.claude/skills/**``;
  the user's ``~/.claude/CLAUDE.md`` and ``~/.claude/skills/**``;
- Codex CLI: ``AGENTS.md`` (at the project root and in its subdirectories), ``<cwd>/.agents/skills/**``;
  the user's ``~/.codex/AGENTS.md``, ``~/.codex/skills/**``, ``~/.agents/skills/**``;
- Gemini CLI: ``GEMINI.md`` (root and subdirectories), ``<cwd>/.gemini/skills/**``; the user's
  ``~/.gemini/GEMINI.md``, ``~/.gemini/skills/**`` and ``~/.gemini/extensions/**``.

Extra roots (``--kb``) add every text file below them, for every agent. Listings are cached per
directory for the life of the index, and so is whether a project's instructions ask for the
uncertainty markers (``engine/conventions.py``). Nested instruction files are looked for in at
most ``MAX_NESTED_DIRECTORIES`` directories per project, dot-directories and dependency trees
skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final, NamedTuple

from omkd.engine import conventions, formats

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


class Layout(NamedTuple):
    """Where one agent's knowledge lives: its instruction file, the trees below a project, and the
    user's directory (holding the user's instruction file) and trees, relative to the home."""

    instructions: str
    nested: bool
    """Instruction files in a project's subdirectories count too (AGENTS.md, GEMINI.md)."""
    project_trees: tuple[str, ...]
    user_dir: str
    user_trees: tuple[str, ...]


LAYOUTS: Final[dict[str, Layout]] = {
    formats.CLAUDE_CODE: Layout(
        "CLAUDE.md", False, (".claude/knowledge", ".claude/skills"), ".claude", (".claude/skills",)
    ),
    formats.CODEX: Layout("AGENTS.md", True, (".agents/skills",), ".codex", (".codex/skills", ".agents/skills")),
    formats.GEMINI: Layout("GEMINI.md", True, (".gemini/skills",), ".gemini", (".gemini/skills", ".gemini/extensions")),
}
Agents = tuple[str, ...]
"""The agents whose knowledge is meant (all of them when a caller does not say)."""
MAX_NESTED_DIRECTORIES: Final = 5000
SKIPPED_DIRECTORIES: Final = frozenset({"node_modules", "vendor", "target", "build", "dist", "__pycache__", "venv"})


NESTED_NAMES: Final = tuple(layout.instructions for layout in LAYOUTS.values() if layout.nested)


def _nested(root: Path) -> dict[str, list[str]]:
    """Each of ``NESTED_NAMES``' files in the subdirectories of ``root`` (bounded: see the module
    docstring), by name: one walk of the tree serves every agent that reads nested files."""
    found: dict[str, list[str]] = {name: [] for name in NESTED_NAMES}
    if not root.is_dir():
        return found
    top = str(root)
    for seen, (directory, subdirs, files) in enumerate(os.walk(root), 1):
        if seen > MAX_NESTED_DIRECTORIES:
            break
        subdirs[:] = [d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRECTORIES]
        if directory != top:
            for name in NESTED_NAMES:
                if name in files:
                    found[name].append(os.path.normpath(os.path.join(directory, name)))
    return found


def _layout(base: Path, instructions: str, trees: Iterable[str], nested: Iterable[str] = ()) -> frozenset[str]:
    files: set[str] = set()
    top = base / instructions
    if top.is_file():
        files.add(os.path.normpath(top))
    files.update(nested)
    for tree in trees:
        files.update(_text_files(base / tree))
    return frozenset(files)


USER_BASE: Final = "~"
"""The name of Claude Code's user base (``~/.claude``); the others are named by their directory."""


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
        self._projects: dict[tuple[str, str], frozenset[str]] = {}
        self._nested: dict[str, dict[str, list[str]]] = {}
        self._users: dict[str, frozenset[str]] = {}
        self._extra_files: frozenset[str] | None = None
        self._asks: dict[str | None, bool] = {}

    def files_for(self, cwd: str | None, agents: Agents = ()) -> frozenset[str]:
        """The knowledge files of ``cwd`` (None: the user's and the extra roots') for ``agents``."""
        chosen = [a for a in agents if a in LAYOUTS] or list(LAYOUTS)
        if cwd is None:
            files = set(self._extra_roots())
            for agent in chosen:
                files.update(self._user(agent))
            return frozenset(files)
        found: set[str] = set()
        for agent in chosen:
            found.update(self._project(cwd, agent))
        return frozenset(found)

    def _extra_roots(self) -> frozenset[str]:
        if self._extra_files is None:
            self._extra_files = frozenset(f for root in self._extra for f in _text_files(root))
        return self._extra_files

    def _user(self, agent: str) -> frozenset[str]:
        cached = self._users.get(agent)
        if cached is None:
            layout = LAYOUTS[agent]
            cached = frozenset()
            if self._home is not None:
                home = self._home
                cached = _layout(home / layout.user_dir, layout.instructions, ()) | frozenset(
                    f for tree in layout.user_trees for f in _text_files(home / tree)
                )
            self._users[agent] = cached
        return cached

    def _project(self, cwd: str, agent: str) -> frozenset[str]:
        cached = self._projects.get((cwd, agent))
        if cached is None:
            layout = LAYOUTS[agent]
            path = Path(cwd)
            cached = frozenset()
            if path.is_absolute():
                nested = self._nested_of(cwd)[layout.instructions] if layout.nested else ()
                cached = _layout(path, layout.instructions, layout.project_trees, nested)
            self._projects[(cwd, agent)] = cached
        return cached

    def _nested_of(self, cwd: str) -> dict[str, list[str]]:
        found = self._nested.get(cwd)
        if found is None:
            found = self._nested[cwd] = _nested(Path(cwd))
        return found

    def asks_markers(self, cwd: str | None) -> bool | None:
        """Whether the instructions an agent reads in ``cwd`` (the user's ``~/.claude/CLAUDE.md``
        included) ask for the markers of the convention; ``cwd`` None: the user's alone."""
        if cwd in self._asks:
            return self._asks[cwd]
        if cwd is None:
            asked = self._home is not None and any(
                _instructions_ask(self._home / layout.user_dir) for layout in LAYOUTS.values()
            )
        else:
            path = Path(cwd)
            asked = bool(self.asks_markers(None)) or (path.is_absolute() and _instructions_ask(path))
        self._asks[cwd] = asked
        return asked

    def bases(self, cwds: Iterable[str]) -> list[tuple[str, Path, frozenset[str]]]:
        """Each knowledge base as (name, directory, files): the user's (``~`` for Claude Code's
        ``~/.claude``; ``~/.codex``, ``~/.gemini`` where they exist), each extra root and each
        project directory (named by its last component)."""
        found: list[tuple[str, Path, frozenset[str]]] = []
        if self._home is not None:
            found.append((USER_BASE, self._home / ".claude", self._user(formats.CLAUDE_CODE)))
            for agent in (formats.CODEX, formats.GEMINI):
                directory = self._home / LAYOUTS[agent].user_dir
                if directory.is_dir():
                    found.append((f"~/{LAYOUTS[agent].user_dir}", directory, self._user(agent)))
        found.extend((root.name or str(root), root, frozenset(_text_files(root))) for root in self._extra)
        for cwd in sorted(set(cwds)):
            path = Path(cwd)
            if path.is_absolute():
                found.append((path.name or cwd, path, self.files_for(cwd)))
        return found


SKILL_FILE: Final = "SKILL.md"


def installed_skills(home: Path | None, projects: Iterable[str]) -> list[tuple[str, str, str]]:
    """Each skill installed where an agent looks for skills — a directory holding ``SKILL.md``
    below the user's and the projects' skill trees (``LAYOUTS``) — as (name, agent, its SKILL.md)."""
    places: list[tuple[str, Path]] = []
    for agent, layout in LAYOUTS.items():
        if home is not None:
            places += [(agent, home / tree) for tree in layout.user_trees if tree.endswith("skills")]
        for cwd in projects:
            if Path(cwd).is_absolute():
                places += [(agent, Path(cwd) / tree) for tree in layout.project_trees if tree.endswith("skills")]
    found: set[tuple[str, str, str]] = set()
    for agent, tree in places:
        try:
            entries = sorted(os.scandir(tree), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            marker = os.path.join(entry.path, SKILL_FILE)
            if not entry.name.startswith(".") and entry.is_dir() and os.path.isfile(marker):
                found.add((entry.name, agent, os.path.normpath(marker)))
    return sorted(found)


SKILL_TREES: Final = frozenset(
    tree
    for layout in LAYOUTS.values()
    for tree in (*layout.project_trees, *layout.user_trees)
    if tree.endswith("skills")
)
"""The agents' skill folders (``.claude/skills``, ``.agents/skills``, ...): a directory below one is a skill."""


def skill_folder(path: str) -> str | None:
    """The skill whose own folder holds this file (the directory below an agent's skill folder),
    or None for a file outside every skill folder (instructions, knowledge trees, extra roots)."""
    parts = Path(path).parts
    folders = [i for i in range(1, len(parts) - 2) if f"{parts[i - 1]}/{parts[i]}" in SKILL_TREES]
    return parts[folders[-1] + 1] if folders else None


def skill_files(files: Iterable[str], skill: str) -> list[str]:
    """The knowledge files that are this skill's: its own skill directory (a plugin's skill
    ``plugin:name`` by ``name``) and every file outside the agents' skill folders (instructions,
    knowledge trees, extra roots), not other skills' directories."""
    name = skill.rsplit(":", 1)[-1]
    return sorted(path for path in files if skill_folder(path) in (None, name))
