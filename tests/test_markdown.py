"""``--markdown`` and ``--step-summary``: the report as GitHub-flavoured Markdown with the gate
results, every transcript text escaped (issue 15, item 2). Figures by hand from ``GATES_PLAN``."""

from __future__ import annotations

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
    assert (gamma.startswith("| gamma | 1 | 100.0 % ["), gamma.endswith("| underpowered | (red?) |")) == (True, True)
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
