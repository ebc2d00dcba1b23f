"""One walk below a directory for ``omkd scan`` and the daemon (``shell/discovery.py``): its
order, its one vocabulary of skips, and what each caller makes of a skip."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from omkd.daemon.faults import cause_of, skips_told
from omkd.shell import discovery
from omkd.shell.scan import ScanInputError, discover


def os_walk_order(root: Path) -> list[str]:
    """The order ``omkd scan`` has always read files in: ``os.walk``, directories and files sorted."""
    found = []
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        found += [os.path.join(directory, name) for name in sorted(files) if name.endswith(".jsonl")]
    return found


def test_the_walk_is_sorted_as_os_walk_sorted(tmp_path: Path) -> None:
    for name in ["b/z.jsonl", "b/a.jsonl", "a.jsonl", "B/x.jsonl", "b/c/d.jsonl", "b/c.jsonl", "_/e.jsonl"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    assert [path for path, _ in discovery.walk(str(tmp_path))] == os_walk_order(tmp_path)


@pytest.fixture
def unlistable(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Directories whose ``os.scandir`` fails with EACCES (root ignores file modes, so chmod cannot)."""
    paths: set[str] = set()
    real_scandir = os.scandir

    def refusing(path: Any) -> Any:
        if os.fspath(path) in paths:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    return paths


def hostile_tree(root: Path) -> None:
    (root / "closed").mkdir(parents=True)
    (root / "p").mkdir()
    (root / "p" / "s.jsonl").write_bytes(b"")
    (root / "p" / "r.jsonl.zst").write_bytes(b"")
    os.symlink(root / "p" / "nowhere.jsonl", root / "p" / "dangling.jsonl")
    os.mkfifo(root / "p" / "fifo.jsonl")


def test_scan_skips_and_tells_what_cannot_be_read_below_a_path(tmp_path: Path, unlistable: set[str]) -> None:
    hostile_tree(tmp_path)
    unlistable.add(str(tmp_path / "closed"))
    skipped: list[discovery.Skip] = []
    found = discover([tmp_path], skipped)
    assert [source.name for source in found] == ["p/s.jsonl"]
    assert [(Path(skip.path).name, skip.reason) for skip in skipped] == [
        ("closed", discovery.UNREADABLE),
        ("dangling.jsonl", discovery.DANGLING),
        ("fifo.jsonl", discovery.NOT_REGULAR),
        ("r.jsonl.zst", discovery.COMPRESSED),
    ]


def test_scan_of_a_path_that_cannot_be_listed_is_bad_input(tmp_path: Path, unlistable: set[str]) -> None:
    unlistable.add(str(tmp_path))
    with pytest.raises(ScanInputError, match=f"^{tmp_path}: Permission denied$"):
        discover([tmp_path])


def test_the_daemon_counts_the_same_skips_by_errno_or_reason(tmp_path: Path, unlistable: set[str]) -> None:
    """Nothing stops the walk; a compressed rollout is no error the daemon survived."""
    hostile_tree(tmp_path)
    unlistable.add(str(tmp_path / "closed"))
    told: list[tuple[str, str]] = []

    def on_error(area: str, error: OSError | str, path: str) -> None:
        told.append((cause_of(area, error), Path(path).name))

    missing: list[Path] = []
    walked = discovery.walk_roots([tmp_path, tmp_path / "gone"], missing, skips_told(on_error))
    assert [Path(path).name for path, _ in walked] == ["s.jsonl"]
    assert missing == [tmp_path / "gone"]
    assert told == [
        ("discovery.EACCES", "closed"),
        ("discovery.dangling", "dangling.jsonl"),
        ("discovery.not_regular", "fifo.jsonl"),
    ]
