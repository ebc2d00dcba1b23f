"""Issue 29, item 5 (the views' side): the top failed searches group by the pattern — what was
looked for — not by the tool that looked; each lists the tools."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from omkd.engine.report.build import top_failed_searches
from omkd.render.html import _top_patterns

pytestmark = pytest.mark.engine


def signal(tool: str, pattern: str, timestamp: float) -> Any:
    return SimpleNamespace(type="failed_search", evidence={"tool": tool, "pattern": pattern}, timestamp=timestamp)


def test_one_pattern_looked_for_by_two_tools_is_one_row() -> None:
    segment = SimpleNamespace(
        skill="deploy", agent="claude_code",
        signals=[signal("Grep", "DEPLOY_TOKEN", 10.0), signal("Bash", "DEPLOY_TOKEN", 20.0), signal("Glob", "x", 5.0)],
    )  # fmt: skip
    rows = top_failed_searches([segment], 10)
    assert [(r.pattern, r.count, r.tools) for r in rows] == [("DEPLOY_TOKEN", 2, ["Bash", "Grep"]), ("x", 1, ["Glob"])]


def test_the_page_groups_alike() -> None:
    gaps: list[Any] = [
        SimpleNamespace(type="failed_search", evidence={"tool": t, "pattern": "DEPLOY_TOKEN"}, timestamp=w)
        for t, w in (("Grep", "2026-01-01T00:00:00.000Z"), ("Bash", "2026-01-02T00:00:00.000Z"))
    ]
    assert _top_patterns(gaps) == [("Bash, Grep", "DEPLOY_TOKEN", 2, "2026-01-02T00:00:00.000Z")]
