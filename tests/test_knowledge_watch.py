"""Knowledge-base change detection and git revisions (ops pack: "knowledge changed here")."""

from __future__ import annotations

import os
from pathlib import Path

from omkd.shell.knowledge import FileKnowledgeIndex
from omkd.shell.knowledge_watch import OTHER, KnowledgeWatcher, git_revision

SHA = "0123456789abcdef0123456789abcdef01234567"


def _project(root: Path, name: str) -> Path:
    project = root / name
    (project / ".claude" / "knowledge").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# rules\n")
    (project / ".claude" / "knowledge" / "deploy.md").write_text("deploy with make\n")
    return project


def _bases(home: Path, *projects: Path) -> list[tuple[str, Path, frozenset[str]]]:
    return FileKnowledgeIndex(home).bases([str(p) for p in projects])


def test_first_look_is_not_a_change_and_counts_files(tmp_path: Path) -> None:
    """The first observation records the files and their newest mtime, without counting a change."""
    project = _project(tmp_path, "shop")
    os.utime(project / "CLAUDE.md", (1_700_000_000, 1_700_000_000))
    os.utime(project / ".claude" / "knowledge" / "deploy.md", (1_700_000_100, 1_700_000_100))
    watcher = KnowledgeWatcher()
    assert watcher.update(_bases(tmp_path / "home", project)) is False
    figures = watcher.figures["shop"]
    assert (figures.files, figures.changes, figures.last_change) == (2, 0, 1_700_000_100)


def test_added_edited_and_removed_files_are_changes(tmp_path: Path) -> None:
    """Adding, editing (new mtime) and removing a knowledge file each count one change."""
    project = _project(tmp_path, "shop")
    watcher = KnowledgeWatcher()
    watcher.update(_bases(tmp_path / "home", project))
    new = project / ".claude" / "knowledge" / "rollback.md"
    new.write_text("roll back with make undo\n")
    assert watcher.update(_bases(tmp_path / "home", project)) is True
    os.utime(new, (1_800_000_000, 1_800_000_000))
    assert watcher.update(_bases(tmp_path / "home", project)) is True
    assert watcher.figures["shop"].last_change == 1_800_000_000
    new.unlink()
    assert watcher.update(_bases(tmp_path / "home", project)) is True
    assert watcher.update(_bases(tmp_path / "home", project)) is False
    assert (watcher.figures["shop"].changes, watcher.figures["shop"].files) == (3, 2)


def test_labels_are_capped(tmp_path: Path) -> None:
    """Past the cap, further knowledge bases share the __other__ label, their files summed."""
    projects = [_project(tmp_path, name) for name in ("a", "b", "c")]
    watcher = KnowledgeWatcher(cap=2)
    watcher.update(_bases(tmp_path / "home", *projects))
    assert sorted(watcher.figures) == sorted(["~", "a", OTHER])
    assert watcher.figures[OTHER].files == 4


def test_git_revision_from_a_branch_ref(tmp_path: Path) -> None:
    """HEAD pointing at a branch gives that branch's commit, shortened to 12 characters."""
    git = tmp_path / "repo" / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs" / "heads" / "main").write_text(SHA + "\n")
    (tmp_path / "repo" / "sub").mkdir()
    assert git_revision(tmp_path / "repo" / "sub") == SHA[:12]


def test_git_revision_from_packed_refs_and_detached_head(tmp_path: Path) -> None:
    """A ref only in packed-refs is found; a detached HEAD is the commit itself."""
    git = tmp_path / "repo" / ".git"
    git.mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{SHA} refs/heads/main\n")
    assert git_revision(tmp_path / "repo") == SHA[:12]
    (git / "HEAD").write_text("fedcba9876543210fedcba9876543210fedcba98\n")
    assert git_revision(tmp_path / "repo") == "fedcba987654"


def test_git_revision_of_a_linked_worktree(tmp_path: Path) -> None:
    """A linked work tree's .git file leads to its own HEAD and the shared refs."""
    common = tmp_path / "main" / ".git"
    (common / "refs" / "heads").mkdir(parents=True)
    (common / "refs" / "heads" / "feature").write_text(SHA + "\n")
    private = common / "worktrees" / "feature"
    private.mkdir(parents=True)
    (private / "HEAD").write_text("ref: refs/heads/feature\n")
    (private / "commondir").write_text("../..\n")
    tree = tmp_path / "feature-tree"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {private}\n")
    assert git_revision(tree) == SHA[:12]


def test_no_git_no_revision(tmp_path: Path) -> None:
    """Outside any git work tree there is no revision."""
    assert git_revision(tmp_path) is None
