"""Knowledge changes from a real git work tree, and mtimes where git knows nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from omkd.shell.knowledge_history import UNCOMMITTED, UNTRACKED, knowledge_changes

DAY = 86400


def git(repo: Path, *args: str, when: int | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}  # fmt: skip
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def test_commits_touching_the_files_uncommitted_edits_and_files_outside_git(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    skill = repo / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    other = repo / "src" / "app.py"
    other.parent.mkdir()
    git(repo, "init", "-q")
    skill.write_text("v1\n")
    other.write_text("x\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "deploy skill: first version", when=1_760_000_000)
    other.write_text("y\n")
    git(repo, "commit", "-q", "-am", "code only", when=1_760_000_000 + DAY)
    skill.write_text("v2\n")
    git(repo, "commit", "-q", "-am", "deploy skill: document the port", when=1_760_000_000 + 2 * DAY)
    instructions = repo / "CLAUDE.md"
    instructions.write_text("untracked yet\n")
    os.utime(instructions, (1_760_000_000 + 3 * DAY, 1_760_000_000 + 3 * DAY))
    skill.write_text("v3, not committed\n")
    os.utime(skill, (1_760_000_000 + 4 * DAY, 1_760_000_000 + 4 * DAY))
    outside = tmp_path / "home" / ".claude" / "CLAUDE.md"
    outside.parent.mkdir(parents=True)
    outside.write_text("user instructions\n")
    os.utime(outside, (1_760_000_000 + 5 * DAY, 1_760_000_000 + 5 * DAY))

    changes = knowledge_changes([str(skill), str(instructions), str(outside)])
    assert [(c.timestamp - 1_760_000_000, c.subject, c.files) for c in changes] == [
        (0, "deploy skill: first version", (str(skill),)),
        (2 * DAY, "deploy skill: document the port", (str(skill),)),
        (3 * DAY, UNTRACKED, (str(instructions),)),
        (4 * DAY, UNCOMMITTED, (str(skill),)),
        (5 * DAY, UNTRACKED, (str(outside),)),
    ]
    assert all(len(c.commit) >= 7 for c in changes[:2])
    later = knowledge_changes([str(skill)], since=1_760_000_000 + DAY)
    assert [c.subject for c in later] == ["deploy skill: document the port", UNCOMMITTED]


def test_missing_files_and_no_git_give_no_changes_and_no_error(tmp_path: Path) -> None:
    assert knowledge_changes([str(tmp_path / "gone" / "CLAUDE.md")]) == []
    assert knowledge_changes([]) == []


def test_a_symlinked_path_glob_characters_and_non_ascii_names(tmp_path: Path) -> None:
    """A knowledge base reached through a symlink (a dotfiles repo) keeps its commits, named by the
    path asked for; ``notes[1].md`` is that file, not the glob matching ``notes1.md``; a non-ASCII
    name comes back as it is, not quoted."""
    repo = tmp_path / "dotfiles"
    (repo / "claude" / "skills" / "déploy").mkdir(parents=True)
    git(repo, "init", "-q")
    bracketed, plain, accented = (
        repo / "claude" / "notes[1].md",
        repo / "claude" / "notes1.md",
        repo / "claude" / "skills" / "déploy" / "SKILL.md",
    )
    for path in (bracketed, plain, accented):
        path.write_text("v1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "all three", when=1_760_000_000)
    plain.write_text("v2\n")
    git(repo, "commit", "-q", "-am", "only notes1", when=1_760_000_000 + DAY)
    accented.write_text("v2\n")
    git(repo, "commit", "-q", "-am", "only the accented skill", when=1_760_000_000 + 2 * DAY)
    link = tmp_path / "home" / ".claude"
    link.parent.mkdir()
    link.symlink_to(repo / "claude")
    asked_bracketed, asked_accented = str(link / "notes[1].md"), str(link / "skills" / "déploy" / "SKILL.md")
    changes = knowledge_changes([asked_bracketed, asked_accented])
    assert [(c.subject, c.files) for c in changes] == [
        ("all three", (asked_bracketed, asked_accented)),
        ("only the accented skill", (asked_accented,)),
    ]
