"""The README's Runbook as a web page: one section per alert, each with the anchor a forge gives
its heading (``#omkdweightedgapratehigh``), so an alert's ``runbook_url`` opens at its section.

omkd serves it at ``/runbook`` (``daemon/http.py``) from the README of the installed package:
wherever omkd runs, the alert's link resolves, with the words of the version that runs there.
Pure: the README's text in, HTML out.
"""

from __future__ import annotations

import re
from html import escape
from typing import Final

from omkd.render.inline import markdown_inline

SECTION: Final = "## Runbook"
HEADING: Final = re.compile(r"^### (.+)$", re.MULTILINE)
_STYLE: Final = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}"
    "p{white-space:pre-line}code{font:0.9em ui-monospace,monospace;background:#f1f1f1;padding:0 .2em}"
    "section{border-top:1px solid #ccc;margin-top:1.5rem}"
)


def anchor(heading: str) -> str:
    """The anchor GitHub and GitLab give a heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def runbook_text(readme: str) -> str:
    """The README's ``## Runbook`` section, up to the next second-level heading."""
    start = readme.find(f"\n{SECTION}\n")
    if start < 0:
        raise ValueError(f"the README has no {SECTION!r} section")
    body = readme[start + len(SECTION) + 2 :]
    end = re.search(r"^## ", body, re.MULTILINE)
    return body[: end.start()] if end else body


def _paragraphs(text: str) -> str:
    blocks = [block.strip("\n") for block in re.split(r"\n\s*\n", text) if block.strip()]
    return "".join(f"<p>{markdown_inline(block)}</p>" for block in blocks)


def page(readme: str) -> str:
    """The Runbook section of ``readme`` as a page: the introduction, then a ``<section id>`` per alert."""
    text = runbook_text(readme)
    headings = list(HEADING.finditer(text))
    html = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>omkd runbook</title><style>{_STYLE}</style></head><body>",
            '<h1 id="runbook">omkd runbook</h1>',
            _paragraphs(text[: headings[0].start()] if headings else text)]  # fmt: skip
    for i, heading in enumerate(headings):
        title = heading.group(1)
        end = headings[i + 1].start() if i + 1 < len(headings) else len(text)
        html.append(
            f'<section id="{escape(anchor(title))}"><h2>{markdown_inline(title)}</h2>'
            f"{_paragraphs(text[heading.end() : end])}</section>"
        )
    html.append("</body></html>\n")
    return "".join(html)
