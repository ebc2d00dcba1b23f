"""Coverage of the knowledge base, on a temporary project and home directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from omkd.shell.knowledge import FileKnowledgeIndex
from tests.transcript_builder import REJECTED, Transcript, health_of, report_of

pytestmark = pytest.mark.engine


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with 7 knowledge files, plus files that are not knowledge."""
    root = tmp_path / "proj"
    files = {
        "CLAUDE.md": "# Shop\nUse the retry client.\n",
        ".claude/knowledge/retry.md": "Retries: 3 on 503.\n",
        ".claude/knowledge/sub/limits.txt": "limit: 10 per second\n",
        ".claude/knowledge/schema.json": '{"order": {"id": "string"}}\n',
        ".claude/knowledge/policy.yaml": "backoff: exponential\n",
        ".claude/skills/x/SKILL.md": "---\nname: x\n---\n# X\n",
        ".claude/skills/x/deploy.sh": "#!/bin/sh\necho deploy\n",
        # not knowledge:
        ".claude/knowledge/.draft.md": "dot-file: skipped\n",
        ".claude/settings.json": "{}\n",
        "README.md": "# Shop\n",
        "src/app.py": "print('shop')\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / ".claude/knowledge/diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home directory with 2 user-level knowledge files."""
    root = tmp_path / "home"
    (root / ".claude/skills/y").mkdir(parents=True)
    (root / ".claude/CLAUDE.md").write_text("Always answer in English.\n")
    (root / ".claude/skills/y/SKILL.md").write_text("---\nname: y\n---\n")
    (root / ".claude/skills/y/logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return root


def test_knowledge_base_layout(project: Path, home: Path) -> None:
    """CLAUDE.md, .claude/knowledge/** and .claude/skills/** text files; dot-files and non-text files skipped."""
    index = FileKnowledgeIndex(home=home)
    assert index.files_for(str(project)) == {
        f"{project}/CLAUDE.md",
        f"{project}/.claude/knowledge/retry.md",
        f"{project}/.claude/knowledge/sub/limits.txt",
        f"{project}/.claude/knowledge/schema.json",
        f"{project}/.claude/knowledge/policy.yaml",
        f"{project}/.claude/skills/x/SKILL.md",
        f"{project}/.claude/skills/x/deploy.sh",
    }
    assert index.files_for(None) == {f"{home}/.claude/CLAUDE.md", f"{home}/.claude/skills/y/SKILL.md"}


def test_coverage_per_skill_and_overall(project: Path, home: Path) -> None:
    """Files read successfully (Read, cat, head -n, sed -n) are accessed; the rest are listed as never accessed."""
    t = Transcript(cwd=str(project))
    t.prompt("Check the retry rules before changing the client")
    t.say("Reading the project notes first.")
    t.read_ok(f"{project}/CLAUDE.md")  # general
    t.read_ok(f"{project}/.claude/skills/x/SKILL.md")  # starts x (fallback) and is x's
    t.bash("cat .claude/knowledge/retry.md", "Retries: 3 on 503.\n")
    t.bash("head -n 5 .claude/knowledge/sub/limits.txt", "limit: 10 per second\n")
    t.bash(f"sed -n '1,5p' {project}/.claude/knowledge/schema.json", '{"order": {"id": "string"}}\n')
    too_large = "File content (85812 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit."
    t.call("Read", {"file_path": f"{project}/.claude/knowledge/policy.yaml"}, too_large, is_error=True)
    t.read_ok(f"{project}/.claude/knowledge/.draft.md")
    t.read_ok(f"{project}/src/app.py")
    report = report_of(t, knowledge=FileKnowledgeIndex(home=home))

    x = health_of(report, "x").coverage
    assert (x.accessed, x.files, x.ratio) == (4, 9, 4 / 9)
    assert sorted(x.never_accessed) == [
        f"{home}/.claude/CLAUDE.md",
        f"{home}/.claude/skills/y/SKILL.md",
        f"{project}/.claude/knowledge/policy.yaml",
        f"{project}/.claude/skills/x/deploy.sh",
        f"{project}/CLAUDE.md",
    ]
    assert x.never_accessed_total == 5

    general = health_of(report, "general").coverage
    assert (general.accessed, general.files, general.ratio) == (1, 9, 1 / 9)
    assert general.never_accessed_total == 8

    overall = report.overall.coverage
    assert (overall.accessed, overall.files, overall.ratio) == (5, 9, 5 / 9)
    assert sorted(overall.never_accessed) == [
        f"{home}/.claude/CLAUDE.md",
        f"{home}/.claude/skills/y/SKILL.md",
        f"{project}/.claude/knowledge/policy.yaml",
        f"{project}/.claude/skills/x/deploy.sh",
    ]
    assert overall.never_accessed_total == 4


@pytest.mark.parametrize(
    ("command", "accessed"),
    [
        ("cat CLAUDE.md", 1),
        ("cat ./CLAUDE.md", 1),
        ("cat CLAUDE.md .claude/knowledge/retry.md", 2),
        ("head -n 5 .claude/knowledge/sub/limits.txt", 1),
        ("tail -n 20 .claude/skills/x/deploy.sh", 1),
        ("sed -n '1,5p' .claude/knowledge/schema.json", 1),
        ("less .claude/knowledge/policy.yaml", 1),
        ("cat .claude/knowledge/retry.md | head -n 3", 1),
        ("cat ../proj/.claude/knowledge/retry.md", 1),
        ("sed -ne '1,5p' .claude/knowledge/schema.json", 1),
        ("sed -E -n '/^#/p' CLAUDE.md", 1),
        ("sed --quiet 1p CLAUDE.md", 1),
        # spec §5 names ``sed -n``: an in-place edit, or a sed that prints the whole file rewritten, is no reader
        ("sed -i 's/3 on 503/5 on 503/' .claude/knowledge/retry.md", 0),
        ("sed -i.bak -e 's/3/5/' .claude/knowledge/retry.md", 0),
        ("sed -n -i '1,5p' .claude/knowledge/retry.md", 0),
        ("sed 's/Shop/Store/' CLAUDE.md", 0),
    ],
)
def test_shell_readers_access_files_relative_to_cwd(project: Path, home: Path, command: str, accessed: int) -> None:
    """cat, head, tail, sed -n and less read files; relative paths resolve against the transcript's cwd."""
    t = Transcript(cwd=str(project))
    t.prompt("read the notes")
    t.bash(command, "some text\n")
    coverage = report_of(t, knowledge=FileKnowledgeIndex(home=home)).overall.coverage
    assert (coverage.accessed, coverage.files) == (accessed, 9)


def test_failed_or_cancelled_reads_are_not_accesses(project: Path, home: Path) -> None:
    """Only a successful read accesses a file."""
    t = Transcript(cwd=str(project))
    t.prompt("read the notes")
    t.bash_error("cat .claude/knowledge/retry.md", "cat: .claude/knowledge/retry.md: Permission denied")
    t.call("Read", {"file_path": f"{project}/CLAUDE.md"}, REJECTED, is_error=True, detail="User rejected tool use")
    t.read_missing(f"{project}/.claude/knowledge/schema.json")
    t.call(
        "Read",
        {"file_path": f"{project}/.claude/knowledge/policy.yaml"},
        "File content (472.3KB) exceeds maximum allowed size (256KB).",
        is_error=True,
    )
    coverage = report_of(t, knowledge=FileKnowledgeIndex(home=home)).overall.coverage
    assert (coverage.accessed, coverage.files, coverage.ratio) == (0, 9, 0 / 9)


def test_relative_paths_use_the_cwd_of_the_transcript(project: Path, home: Path, tmp_path: Path) -> None:
    """The same relative read is a knowledge access in the project and not in another directory."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    inside = Transcript(cwd=str(project))
    inside.prompt("read the notes")
    inside.bash("cat .claude/knowledge/retry.md", "Retries: 3 on 503.\n")
    outside = Transcript(cwd=str(elsewhere), session_id="0b9a7c4e-1d2f-4e3a-8b5c-6d7e8f9a0b1c")
    outside.prompt("read the notes")
    outside.bash("cat CLAUDE.md", "# Elsewhere\n")
    report = report_of(inside, outside, knowledge=FileKnowledgeIndex(home=home))
    assert (report.overall.coverage.accessed, report.overall.coverage.files) == (1, 9)


def test_user_level_knowledge_is_accessed_like_project_knowledge(project: Path, home: Path) -> None:
    """~/.claude/CLAUDE.md and ~/.claude/skills/** count for every project."""
    t = Transcript(cwd=str(project))
    t.prompt("what are my global rules?")
    t.read_ok(f"{home}/.claude/CLAUDE.md")
    t.bash(f"cat {home}/.claude/skills/y/SKILL.md", "---\nname: y\n---\n")
    coverage = report_of(t, knowledge=FileKnowledgeIndex(home=home)).overall.coverage
    assert (coverage.accessed, coverage.files) == (2, 9)


def test_extra_knowledge_roots(project: Path, home: Path, tmp_path: Path) -> None:
    """Extra roots add every text file below them (dot-files and non-text files skipped)."""
    team = tmp_path / "team-kb"
    (team / "nested").mkdir(parents=True)
    (team / "guide.md").write_text("# Team guide\n")
    (team / "nested/faq.txt").write_text("Q: retries? A: 3\n")
    (team / ".hidden.md").write_text("skip\n")
    (team / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    t = Transcript(cwd=str(project))
    t.prompt("check the team guide")
    t.read_ok(f"{team}/guide.md")
    coverage = report_of(t, knowledge=FileKnowledgeIndex(home=home, extra_roots=[team])).overall.coverage
    assert (coverage.accessed, coverage.files, coverage.ratio) == (1, 11, 1 / 11)
    assert f"{team}/nested/faq.txt" in coverage.never_accessed


def test_without_knowledge_files_coverage_is_undefined() -> None:
    """With no knowledge base there is nothing to cover: no ratio."""
    t = Transcript()
    t.prompt("read the notes")
    t.read_ok("/home/dev/shop/CLAUDE.md")
    coverage = report_of(t).overall.coverage
    assert (coverage.accessed, coverage.files, coverage.ratio) == (0, 0, None)


def test_each_agents_knowledge_files(tmp_path: Path) -> None:
    """Codex: AGENTS.md at the root and below, ``.agents/skills``, the user's ``~/.codex``; Gemini:
    GEMINI.md at the root and below, ``.gemini/skills``, the user's ``~/.gemini`` (extensions too).
    Dependency trees and dot-directories are not searched for nested instruction files."""
    project, user = tmp_path / "proj", tmp_path / "home"
    files = {
        project / "AGENTS.md": "# Shop\n",
        project / "api" / "AGENTS.md": "# API\n",
        project / "node_modules" / "x" / "AGENTS.md": "# not ours\n",
        project / ".agents" / "skills" / "release" / "SKILL.md": "---\nname: release\n---\n",
        project / "GEMINI.md": "# Shop\n",
        project / "web" / "GEMINI.md": "# Web\n",
        project / ".gemini" / "skills" / "pdf" / "SKILL.md": "---\nname: pdf\n---\n",
        project / "CLAUDE.md": "# Shop\n",
        user / ".codex" / "AGENTS.md": "Be brief.\n",
        user / ".codex" / "skills" / "deploy" / "SKILL.md": "---\nname: deploy\n---\n",
        user / ".gemini" / "GEMINI.md": "Be brief.\n",
        user / ".gemini" / "extensions" / "gcloud" / "GEMINI.md": "gcloud context\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    index = FileKnowledgeIndex(home=user)
    cwd = str(project)
    assert index.files_for(cwd, ("codex",)) == {
        f"{project}/AGENTS.md",
        f"{project}/api/AGENTS.md",
        f"{project}/.agents/skills/release/SKILL.md",
    }
    assert index.files_for(cwd, ("gemini",)) == {
        f"{project}/GEMINI.md",
        f"{project}/web/GEMINI.md",
        f"{project}/.gemini/skills/pdf/SKILL.md",
    }
    assert index.files_for(cwd, ("claude_code",)) == {f"{project}/CLAUDE.md"}
    assert index.files_for(None, ("codex",)) == {f"{user}/.codex/AGENTS.md", f"{user}/.codex/skills/deploy/SKILL.md"}
    assert index.files_for(None, ("gemini",)) == {
        f"{user}/.gemini/GEMINI.md",
        f"{user}/.gemini/extensions/gcloud/GEMINI.md",
    }
    assert [name for name, _, _ in index.bases([cwd])] == ["~", "~/.codex", "~/.gemini", "proj"]


def test_a_project_tree_is_walked_once_for_every_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Codex's AGENTS.md and Gemini's GEMINI.md below a project are found in one walk of its tree
    (a transcript naming a large directory, even ``/``, costs one bounded walk, not one per agent)."""
    project = tmp_path / "proj"
    for path in (project / "api" / "AGENTS.md", project / "web" / "GEMINI.md"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# notes\n")
    walked: list[str] = []
    real_walk = os.walk

    def counting_walk(top: str | os.PathLike[str]) -> Iterator[tuple[str, list[str], list[str]]]:
        walked.append(str(top))
        return real_walk(top)

    monkeypatch.setattr(os, "walk", counting_walk)
    index = FileKnowledgeIndex()
    cwd = str(project)
    assert index.files_for(cwd) == {f"{project}/api/AGENTS.md", f"{project}/web/GEMINI.md"}
    assert index.files_for(cwd, ("gemini",)) == {f"{project}/web/GEMINI.md"}
    assert walked == [cwd]
