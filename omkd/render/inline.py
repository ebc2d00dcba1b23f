"""Plain text with Markdown code spans (`like this`) as HTML: escaped, the spans as ``<code>``.

The sentences every view shares (``notes.py``) and the README name config keys and commands in
backticks; a terminal prints them as they are, an HTML page shows them as code.
"""

from __future__ import annotations

import re
from html import escape
from typing import Final

CODE_SPAN: Final = re.compile(r"`([^`\n]+)`")
STRONG: Final = re.compile(r"\*\*([^*\n]+)\*\*")
EMPHASIS: Final = re.compile(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])")


def code_spans(text: str) -> str:
    """``text`` escaped for HTML, each backticked span a ``<code>`` element."""
    return CODE_SPAN.sub(lambda m: f"<code>{m.group(1)}</code>", escape(text))


def markdown_inline(text: str) -> str:
    """``code_spans`` plus ``**strong**`` and ``*emphasis*`` outside the code spans."""
    parts = CODE_SPAN.split(escape(text))
    # split() with one group alternates text, code, text, …
    return "".join(
        f"<code>{part}</code>" if i % 2 else EMPHASIS.sub(r"<em>\1</em>", STRONG.sub(r"<strong>\1</strong>", part))
        for i, part in enumerate(parts)
    )
