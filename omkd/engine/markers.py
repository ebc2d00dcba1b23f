"""Signals in assistant text: explicit markers and hedging phrases, outside quoted text.

A marker or phrase inside a fenced code block, inline code, a ``>`` quote line or a table
row is the agent quoting it, not using it.
"""

from __future__ import annotations

import re

from omkd.engine import patterns


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Where text is quoted, not used: fenced blocks, ``>`` quotes, table rows, inline code."""
    spans: list[tuple[int, int]] = []
    lines = text.split("\n")
    has_table = "|" in text and any(patterns.TABLE_SEPARATOR.match(line) for line in lines)
    fence: str | None = None
    start = 0
    for line in lines:
        end = start + len(line) + 1
        stripped = line.lstrip()
        if fence is not None:
            spans.append((start, end))
            if stripped.startswith(fence):
                fence = None
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            spans.append((start, end))
        elif stripped.startswith((">", "|")) or (has_table and "|" in line):
            spans.append((start, end))
        else:
            spans.extend((start + m.start(), start + m.end()) for m in patterns.INLINE_CODE.finditer(line))
        start = end
    return spans


def find_markers(text: str) -> list[re.Match[str]]:
    """Explicit markers used (not quoted) in an assistant text."""
    if not any(opener in text for opener in patterns.MARKER_OPENERS):
        return []
    matches = list(patterns.MARKER_PATTERN.finditer(text))
    if not matches:
        return []
    spans = quoted_spans(text)
    return [m for m in matches if not any(a <= m.start() < b for a, b in spans)]


class HedgingMatcher:
    """The hedging phrases (built-in and configured), with the built-ins' literal prefilter."""

    __slots__ = ("_extra", "_pattern")

    def __init__(self, extra: tuple[str, ...] = ()) -> None:
        self._extra = extra
        self._pattern = patterns.compile_hedging(extra)

    def search(self, text: str) -> re.Match[str] | None:
        if not self._extra:
            lowered = text.lower()
            if not any(phrase in lowered for phrase in patterns.HEDGING_LITERALS):
                return None
        return self._pattern.search(text)
