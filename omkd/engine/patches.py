"""What a patch removes (spec §3.1 ``verify_absence``): the text of its ``-`` lines, with its ``+`` lines
beside it, and the files it deletes or moves away.

Two forms: Codex CLI's ``apply_patch`` envelope (``*** Begin Patch``, ``*** Update File: P``, ``*** Delete
File: P``, ``*** Move to: Q``), and a unified diff given to ``git apply`` or ``patch`` in the command itself
(a heredoc: ``--- a/P`` and ``+++ /dev/null`` delete P; ``rename from P`` moves it).
"""

from __future__ import annotations

import re
from typing import Final

Removed = tuple[list[tuple[str, str]], list[str]]
"""(old, new) text pairs, and the paths deleted or moved away."""

_APPLIERS: Final = re.compile(r"(?:^|[;&|(]|\s)(?:git\s+apply|patch)(?=\s)([^\n]*)", re.MULTILINE)
"""A command that applies a patch its heredoc holds (``git apply <<'EOF'``, ``patch -p1 <<EOF``): the rest of
its line, which must feed it the heredoc."""
_NOT_APPLYING: Final = re.compile(r"(?:^|\s)(?:--check|--stat|--numstat|--summary|--dry-run|-R|--reverse)\b")
"""Flags under which nothing is applied, or the patch is applied backwards (its ``+`` lines removed)."""


def envelope(text: str, kept: int) -> Removed:
    """Codex's ``apply_patch`` envelope; each side's text kept to ``kept`` characters."""
    removed_lines: list[str] = []
    added_lines: list[str] = []
    paths: list[str] = []
    updating = ""
    for line in text.splitlines():
        if line.startswith("*** Delete File:"):
            paths.append(line.partition(":")[2].strip())
        elif line.startswith("*** Update File:"):
            updating = line.partition(":")[2].strip()
        elif line.startswith("*** Move to:") and updating:
            paths.append(updating)
        elif line.startswith("-") and not line.startswith("---"):
            removed_lines.append(line[1:])
        elif line.startswith("+") and not line.startswith("+++"):
            added_lines.append(line[1:])
    pairs = _pairs(removed_lines, added_lines, kept)
    if "*** Begin Patch" not in text and not pairs and not paths:
        return [], []
    return pairs, paths


def unified(command: str, kept: int) -> Removed:
    """A unified diff a shell command applies (``git apply``, ``patch``): the text its hunks remove, the
    files it deletes (``+++ /dev/null``) or renames (``rename from P``). Nothing when the command applies
    no patch of its own or holds no diff."""
    if "\n+++ " not in command or "\n--- " not in command or not _applies(command):
        return [], []
    removed_lines: list[str] = []
    added_lines: list[str] = []
    paths: list[str] = []
    old = ""
    for line in command.splitlines():
        if line.startswith("--- "):
            old = _diff_path(line[4:])
        elif line.startswith("+++ "):
            if line[4:].strip() == "/dev/null" and old:
                paths.append(old)
        elif line.startswith("rename from "):
            paths.append(line.removeprefix("rename from ").strip())
        elif line.startswith("-"):
            removed_lines.append(line[1:])
        elif line.startswith("+"):
            added_lines.append(line[1:])
    return _pairs(removed_lines, added_lines, kept), paths


def _pairs(removed: list[str], added: list[str], kept: int) -> list[tuple[str, str]]:
    """The patch's removed and added lines as one (old, new) pair, like an edit's; none when it removed none."""
    return [("\n".join(removed)[:kept], "\n".join(added)[:kept])] if removed else []


def _applies(command: str) -> bool:
    """A ``git apply`` or ``patch`` of the command reads its heredoc and applies it forwards (not ``--check``,
    ``--stat``, ``--dry-run``, ``-R``; not ``cat > fix.patch <<EOF``, which only writes the file)."""
    return any("<<" in m.group(1) and not _NOT_APPLYING.search(m.group(1)) for m in _APPLIERS.finditer(command))


def _diff_path(word: str) -> str:
    """``a/src/x.ts`` (a tab and a date after it in ``diff -u``'s header) as ``src/x.ts``; ``/dev/null`` as ""."""
    path = word.split("\t", 1)[0].strip()
    if path == "/dev/null":
        return ""
    return path[2:] if path[:2] in ("a/", "b/") else path
