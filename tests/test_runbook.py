"""The README's Runbook as omkd serves it (``/runbook``): a section per alert, at its anchor."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

from omkd.render import runbook
from omkd.render.inline import code_spans, markdown_inline

pytestmark = pytest.mark.engine

README: Final = Path(__file__).resolve().parents[1] / "README.md"


def test_every_runbook_heading_is_a_section_at_its_forge_anchor() -> None:
    text = README.read_text()
    body = text.split("\n## Runbook\n", 1)[1].split("\n## ", 1)[0]
    headings = re.findall(r"^### (.+)$", body, re.MULTILINE)
    page = runbook.page(text)
    assert headings, "the README's Runbook has no section"
    assert re.findall(r'<section id="([^"]+)">', page) == [h.lower() for h in headings]


def test_markdown_of_a_section_is_html() -> None:
    readme = (
        "# x\n\n## Runbook\n\nIntro with `a < b`.\n\n### Alert One\n\n**What it means.** Use `k.v` *now*.\n\n## Next\n"
    )
    page = runbook.page(readme)
    assert '<section id="alert-one"><h2>Alert One</h2>' in page
    assert "<p><strong>What it means.</strong> Use <code>k.v</code> <em>now</em>.</p>" in page
    assert "<p>Intro with <code>a &lt; b</code>.</p>" in page
    assert "Next" not in page


def test_a_readme_without_a_runbook_is_an_error_naming_the_section() -> None:
    with pytest.raises(ValueError, match="## Runbook"):
        runbook.page("# omkd\n\n## Install\n")


def test_code_spans_escape_then_mark_code() -> None:
    assert code_spans("set `window.length` & <b>") == "set <code>window.length</code> &amp; &lt;b&gt;"
    assert markdown_inline("`**not bold**` **bold**") == "<code>**not bold**</code> <strong>bold</strong>"
