"""``--markdown`` and ``--step-summary``: the report as GitHub-flavoured Markdown with the gate
results, every transcript text escaped (issue 15, item 2). Figures by hand from ``GATES_PLAN``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omkd.cli.markdown import text
from tests import claude_lines as cl
from tests.test_cli_scan import GATES_PLAN, run, transcript


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return transcript(tmp_path / "projects" / "-p" / f"{cl.SESSION}.jsonl", GATES_PLAN)


def test_the_summary_holds_the_table_and_the_gate_results(session: Path, tmp_path: Path) -> None:
    """alpha 2/5 = 40 % fails a 30 % gate; beta 20 % passes; gamma is underpowered (1 segment)."""
    out = tmp_path / "summary.md"
    result = run(session, "--max-gap-rate", "0.3", "--markdown", out, "--home", tmp_path / "home")
    document = out.read_text()
    assert result.exit_code == 1
    assert "**Gates failed** (1):" in document
    assert "- alpha: gap\\_rate 40.0 % exceeds 30.0 %" in document
    assert "2 skills gated, 1 underpowered (&lt; 5 segments) not gated" in document
    assert "| alpha | 5 | 40.0 % [" in document
    gamma = next(line for line in document.splitlines() if line.startswith("| gamma |"))
    assert gamma.startswith("| gamma | 1 | 100.0 % [")
    assert gamma.endswith("| underpowered | (red?) | — |")  # no knowledge file known: no coverage
    assert "| **overall** | 11 |" in document


def test_markdown_to_stdout_is_the_markdown_alone(session: Path, tmp_path: Path) -> None:
    result = run(session, "--markdown", "-", "--home", tmp_path / "home")
    assert (result.exit_code, result.stdout.startswith("## omkd: knowledge-gap report\n")) == (0, True)
    assert "Skill health" not in result.stdout  # no terminal table mixed in


def test_transcript_texts_cannot_break_the_table_or_inject_markup() -> None:
    assert text("a|b") == "a\\|b"
    assert text("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert text("**/*.md `x` [y](z)\nnext") == "\\*\\*/\\*.md \\`x\\` \\[y\\](z) next"


def test_the_step_summary_is_appended_where_github_says(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run(session, "--step-summary", "--json", "--home", tmp_path / "home")
    assert result.exit_code == 0
    assert summary.read_text().startswith("earlier step\n## omkd: knowledge-gap report\n")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    unset = run(session, "--step-summary", "--home", tmp_path / "home")
    assert (unset.exit_code, "GITHUB_STEP_SUMMARY is not set" in unset.stderr) == (0, True)


def test_a_thousand_skills_fit_a_pull_request_comment_and_render(tmp_path: Path) -> None:
    """1,000 skills of five segments each, one of them with a miss (gap rate 20 %), and a 10 % gate
    every skill fails: the summary is cut to at most 65,000 characters, says what it left out, and a
    CommonMark parser (with GitHub's tables) renders its skill table: the rows shown, overall last."""
    from markdown_it import MarkdownIt

    from omkd.cli.markdown import MAX_CHARS
    from tests.live_helpers import append, segment

    records = []
    for n in range(1000):
        for k in range(5):
            records += segment(f"skill-{n:04d}-with-a-long-name", "miss" if k == 0 else "hit", cl.TS)
    append(tmp_path / "projects" / "-p" / "s.jsonl", cl.jsonl(records))
    out = tmp_path / "summary.md"
    result = run(tmp_path / "projects", "--max-gap-rate", "0.1", "--markdown", out,
                 "--home", tmp_path / "home")  # fmt: skip
    document = out.read_text()
    assert result.exit_code == 1
    assert len(document) <= MAX_CHARS
    lines = document.splitlines()
    table = lines[lines.index("| skill | segments | gap rate | weighted | tier | band | coverage |") :]
    shown = [line for line in table[: table.index(next(t for t in table if t.startswith("| **overall**")))]
             if line.startswith("| skill-")]  # fmt: skip
    assert 100 < len(shown) < 1000
    assert f"*{1000 - len(shown)} more skills not shown (the smallest)" in document
    assert "- … and " in document  # the failures cut too
    parser = MarkdownIt("commonmark").enable("table")
    tokens = parser.parse(document)
    rows = [t for t in tokens if t.type == "tr_open"]
    patterns = 1 + 10  # the top failed searches' table: its header and ten patterns
    # header, the skills shown, overall; the same rows in what the agents did at a gap (each skill
    # shown had a miss), then the patterns
    assert len(rows) == 2 * (1 + len(shown) + 1) + patterns
    html = parser.render(document)
    assert html.count("<table>") == 3
    assert "<strong>overall</strong>" in html


def test_warnings_for_every_skill_are_cut_too(tmp_path: Path) -> None:
    """Found by a review: each of 1,000 skills warned of (weak signals carry its rate) made a
    summary of 100,125 characters with no skill row left. The warnings are cut like the failures."""
    from omkd.cli.markdown import MAX_CHARS
    from tests.live_helpers import append, segment

    records = []
    for n in range(1000):
        for k in range(5):
            records += segment(f"skill-{n:04d}-with-a-long-name", "hedge" if k == 0 else "hit", cl.TS)
    append(tmp_path / "projects" / "-p" / "s.jsonl", cl.jsonl(records))
    out = tmp_path / "summary.md"
    run(tmp_path / "projects", "--markdown", out, "--home", tmp_path / "home")
    document = out.read_text()
    assert len(document) <= MAX_CHARS
    assert "### Warnings" in document
    assert "more (`omkd scan` prints them all)" in document
    assert sum(1 for line in document.splitlines() if line.startswith("| skill-")) > 100


def test_the_watermark_carries_everything_spec_1_names(session: Path, tmp_path: Path) -> None:
    """Spec §1: every place that shows a gap rate carries the watermark: the trace roots, the window,
    the sessions and segments, the fingerprint and the sentence. The pull-request comment too."""
    result = run(session, "--json", "--home", tmp_path / "home")
    mark = json.loads(result.stdout)["watermark"]
    document = run(session, "--markdown", "-", "--home", tmp_path / "home").stdout
    last = document.rstrip().splitlines()[-1]
    assert mark["roots"] == [str(session)]
    for part in (
        f"roots: {text(str(session))}",
        f"{mark['segments']} segments, {mark['sessions']} sessions",
        f"window {mark['window_from']} → {mark['window_to']}",
        f"fingerprint `{mark['fingerprint']}`",
        mark["statement"],
    ):
        assert part in last, part


def test_coverage_stands_beside_the_gap_rate(session: Path, tmp_path: Path) -> None:
    """Spec §5: coverage and gap rate are shown together. One user-level knowledge file that no
    segment read: every row reads 0 of 1."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("Answer in English.\n")
    document = run(session, "--markdown", "-", "--home", home).stdout
    header = next(line for line in document.splitlines() if line.startswith("| skill |"))
    assert [cell.strip() for cell in header.strip("|").split("|")][2:] == [
        "gap rate", "weighted", "tier", "band", "coverage"
    ]  # fmt: skip
    overall = next(line for line in document.splitlines() if line.startswith("| **overall** |"))
    assert "| 0.0 % (0/1) |" in overall
