"""Explicit markers in assistant text, outside quoted text (spec §3.2).

A marker inside a fenced code block, inline code, a ``>`` quote line or a table
row is the agent quoting it, not using it. Fences and inline code are read as CommonMark does: a
fence closes only on a fence of its character at least as long, and inline code opened by a run of
backticks closes on a run as long.
"""

from __future__ import annotations

import re

from omkd.engine import patterns


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Where text is quoted, not used: fenced blocks, ``>`` quotes, table rows, inline code."""
    spans: list[tuple[int, int]] = []
    lines = text.split("\n")
    table = _table_rows(lines) if "|" in text else set()
    fence: str | None = None
    start = 0
    for at, line in enumerate(lines):
        end = start + len(line) + 1
        stripped = line.lstrip()
        if fence is not None:
            spans.append((start, end))
            closing = stripped.rstrip()
            if closing.startswith(fence) and not closing.strip(fence[0]):  # as long or longer, nothing after
                fence = None
        elif opening := patterns.FENCE.match(stripped):
            fence = opening.group(0)
            spans.append((start, end))
        elif stripped.startswith((">", "|")) or at in table:
            spans.append((start, end))
        elif "`" in line:
            spans.extend((start + m.start(), start + m.end()) for m in patterns.INLINE_CODE.finditer(line))
        start = end
    return spans


def _table_rows(lines: list[str]) -> set[int]:
    """Where the markdown tables are: each separator row, the header above it and the rows below
    it up to the first line that is blank or holds no pipe (a GFM row needs no outer pipes)."""
    rows: set[int] = set()
    for at, line in enumerate(lines):
        if "|" in line and patterns.TABLE_SEPARATOR.match(line):
            rows.update((at - 1, at) if at and "|" in lines[at - 1] else (at,))
            below = at + 1
            while below < len(lines) and "|" in lines[below] and lines[below].strip():
                rows.add(below)
                below += 1
    return rows


def find_markers(text: str) -> list[re.Match[str]]:
    """Explicit markers used (not quoted) in an assistant text."""
    if not any(opener in text for opener in patterns.MARKER_OPENERS):
        return []
    matches = list(patterns.MARKER_PATTERN.finditer(text))
    if not matches:
        return []
    spans = quoted_spans(text)
    return [m for m in matches if not any(a <= m.start() < b for a, b in spans)]
