"""Sentences every view says alike: why a window is empty, and which roots are missing.

The terminal (``omkd scan``, ``omkd status``, ``omkd gaps``), Markdown and the HTML page say them
in the same words, from the report's own figures (``pipeline.segments_outside_window``,
``newest_outside_window``, ``missing_roots``).
"""

from __future__ import annotations

from typing import Final

FIX: Final = (
    "widen the daemon's `window.length` (and `window.retention`), or use `omkd scan --since` with an age "
    "that reaches them"
)


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def outside_window(count: int, newest: str | None, window: tuple[str | None, str | None] | None = None) -> str:
    """``count`` segments read lie outside the window; the newest one's day; the fix."""
    parts = [f"{window[0] or '—'} → {window[1] or '—'}"] if window is not None else []
    parts += [f"newest event {newest[:10]}"] if newest else []
    span = f" ({'; '.join(parts)})" if parts else ""
    return f"{plural(count, 'segment')} read, all outside the window{span}: {FIX}"


def missing_root(root: str) -> str:
    return f"root {root} does not exist: nothing is read there (`sources.roots` in the config)"
