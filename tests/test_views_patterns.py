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


@pytest.mark.parametrize(("width", "seen"), [(80, "│ 2026-04-08 │"), (160, "│ 2026-04-08 14:05 │")])
def test_a_narrow_terminal_gives_what_was_looked_for_the_room_of_the_time_of_day(width: int, seen: str) -> None:
    """At 80 columns the last seen is the day: the five characters of its time go to what was looked for."""
    from rich.console import Console

    from omkd.cli.render import patterns_table

    row = SimpleNamespace(
        skill="deploy", agent="claude_code", tools=["Bash"], tool="Bash", count=3,
        pattern="~/.codex/skills/global-workflow/SKILL.md | ~/.codex/hooks.json", last_seen="2026-04-08T14:05:00.000Z",
    )  # fmt: skip
    console = Console(width=width, record=True, color_system=None)
    console.print(patterns_table(SimpleNamespace(top_failed_searches=[row]), width))  # type: ignore[arg-type]
    text = console.export_text()
    assert seen in text
    looked_for = text.split("\n")[4].split("│")[2].strip()  # the first row's second cell
    assert looked_for.startswith("~/.codex/skills/global-w")
    assert len(looked_for) >= (22 if width == 80 else 40)
