"""Issue 29, item 7: the HTML page's charts and tables as a reader sees them, in a real Chromium.

A skill with days of data over 14 months (a 6-day gap, months without data), a Chinese sentence
and long transcript paths. Screenshots go to the test artefacts (``report-charts-*.png``)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from omkd.cli import main
from tests import claude_lines as cl
from tests.chromium import Browser
from tests.test_cli_scan import skill_segment
from tests.test_html_report import ARTIFACTS

DAYS = ["2025-10-01", "2025-10-02", "2025-10-03", "2025-10-10", "2026-03-05", "2026-03-06", "2026-12-01", "2026-12-02"]
CJK = "我不确定这个配置文件是否适用于生产环境。"
SETUP = Path(__file__).parent / "setup-and-run.sh"


def page_of(tmp_path: Path) -> Path:
    records: list[cl.Record] = []
    for i, day in enumerate(DAYS):
        for j, outcome in enumerate(("miss", "hit", "hedge", "hit", "miss" if i % 2 else "hit")):
            records += skill_segment("superpowers:subagent-driven-development", outcome, f"{day}T1{j}:00:00.000Z")
    records.append(cl.text(CJK, "msg_cjk", "2026-12-02T18:00:00.000Z"))
    path = tmp_path / "projects" / "-home-dev-a-rather-long-project-name" / "deep" / f"{cl.SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(cl.jsonl(records))
    html = tmp_path / "report.html"
    result = CliRunner().invoke(
        main, ["report", str(tmp_path / "projects"), "--html", str(html), "--home", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    return html


MEASURE = """(() => {
  const svg = document.querySelector('svg.chart').getBoundingClientRect();
  const section = document.querySelector('section.skill').getBoundingClientRect();
  const labels = [...document.querySelectorAll('svg.chart text.axis')].map(t => {
    const r = t.getBoundingClientRect(); return {text: t.textContent, left: r.left, right: r.right}; });
  const code = document.querySelector('.inventory code');
  const lineHeight = parseFloat(getComputedStyle(code).lineHeight) || 20;
  const cjk = [...document.querySelectorAll('.inventory td')].find(td => td.textContent.includes('我不确定'));
  return {svgWidth: svg.width, svgLeft: svg.left, svgRight: svg.right, sectionWidth: section.width, labels,
          pathLines: code.getBoundingClientRect().height / lineHeight,
          cjkFonts: getComputedStyle(cjk).fontFamily};
})()"""


def test_the_charts_read_as_a_reader_expects(tmp_path: Path) -> None:
    html = page_of(tmp_path)
    text = html.read_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    async def look() -> dict[str, Any]:
        async with Browser() as browser:
            page = await browser.open(html)
            await page.screenshot(ARTIFACTS / "report-charts-skill.png", selector="section.skill")
            measured: dict[str, Any] = await page.evaluate(MEASURE)
            await page.screenshot(ARTIFACTS / "report-charts-800.png", selector="section.skill", width=800)
            narrow: dict[str, Any] = await page.evaluate(MEASURE)
            measured["pathLines"] = max(measured["pathLines"], narrow["pathLines"])
            return measured

    seen = asyncio.run(look())
    assert seen["svgWidth"] >= 0.9 * seen["sectionWidth"], seen  # the chart fills its column
    labels = [label["text"] for label in seen["labels"]]
    assert ("2025-10-01" in labels, "2026-12-02" in labels) == (True, True), labels  # the ends, with their year
    assert any(re.fullmatch(r"2026-0\d", label) for label in labels), labels  # months between them
    inside = [
        seen["svgLeft"] - 1 <= label["left"] <= label["right"] <= seen["svgRight"] + 1 for label in seen["labels"]
    ]
    assert all(inside), seen  # no label clipped
    assert text.count('class="line gap"') == 3, "a day without data breaks the line (3 runs of days here)"
    assert seen["pathLines"] <= 5, seen  # a path breaks at its slashes (12 lines before, at 800 px)
    assert "Noto Sans CJK" in seen["cjkFonts"]
    assert "fonts-noto-cjk" in SETUP.read_text()
    assert text.count("they do not measure the completeness") == 1  # the whole watermark once; a line per section
    assert "__overall__" not in re.sub(r"<[^>]+>", "", text)
