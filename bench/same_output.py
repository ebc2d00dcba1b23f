"""Does a change leave ``omkd scan --json`` byte for byte the same? This tree against a git ref.

Run from the repository root::

    .venv/bin/python bench/same_output.py [--ref REF] [PATH ...]

REF (default ``origin/main``, else ``HEAD``) is checked out into a temporary ``git worktree``; both
trees scan each PATH (default ``../shared/fixtures/real``, ``../shared/fixtures/real-2`` and
``bench/corpus`` where it exists) as ``python -m omkd scan PATH --json --gap-limit 0 --jobs 1``, each
with its own tree first on ``PYTHONPATH``, and the two outputs are compared byte for byte. The
``reproducibility`` block names the build, so it is compared apart: everything else must be equal.
Exit 0 when every PATH gives the same document, 1 otherwise (the first differing keys are printed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

import orjson
from common import NEUTRAL_CWD, REPO_ROOT

DEFAULT_PATHS: Final = (
    REPO_ROOT.parent / "shared" / "fixtures" / "real",
    REPO_ROOT.parent / "shared" / "fixtures" / "real-2",
    REPO_ROOT / "bench" / "corpus",
)
UNCOMPARED: Final = ("reproducibility",)
"""Keys that name the code under test (its rules hash and version), not the figures."""


def scan(tree: Path, path: Path) -> bytes:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "omkd",
            "scan",
            str(path),
            "--json",
            "--gap-limit",
            "0",
            "--jobs",
            "1",
            "--home",
            "/nonexistent",
        ],
        cwd=NEUTRAL_CWD,
        env=env,
        capture_output=True,
        check=False,
    )
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"omkd scan in {tree} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return done.stdout


def differences(old: Any, new: Any, where: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        found = [f"{where}.{k}: only in the ref" for k in old.keys() - new.keys()]
        # a field added with a default is allowed (the "except fields you add")
        for key in old.keys() & new.keys():
            found += differences(old[key], new[key], f"{where}.{key}")
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (a, b) in enumerate(zip(old, new, strict=True)) for d in differences(a, b, f"{where}[{i}]")]
    return [] if old == new else [f"{where}: {str(old)[:80]} != {str(new)[:80]}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default=None)
    parser.add_argument("paths", nargs="*", type=Path)
    args = parser.parse_args()
    ref = args.ref or ("origin/main" if _has_ref("origin/main") else "HEAD")
    paths = [p.resolve() for p in (args.paths or DEFAULT_PATHS) if p.exists()]
    failed = False
    with tempfile.TemporaryDirectory(prefix="omkd-ref-") as scratch:
        tree = Path(scratch) / "tree"
        subprocess.run(
            ["git", "-C", str(REPO_ROOT), "worktree", "add", "--detach", str(tree), ref],
            check=True,
            capture_output=True,
        )
        try:
            for path in paths:
                old, new = scan(tree, path), scan(REPO_ROOT, path)
                a, b = orjson.loads(old), orjson.loads(new)
                for key in UNCOMPARED:
                    a.pop(key, None)
                    b.pop(key, None)
                found = differences(a, b)
                byte_equal = old == new
                print(
                    f"{path}: {len(old):,} bytes against {len(new):,}; "
                    f"{'byte for byte the same' if byte_equal else 'bytes differ'}; "
                    f"{'same figures' if not found else f'{len(found)} differences'}"
                )
                for line in found[:20]:
                    print("   ", line)
                failed |= bool(found)
        finally:
            subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    raise SystemExit(1 if failed else 0)


def _has_ref(name: str) -> bool:
    return (
        subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "--verify", "-q", name], capture_output=True, check=False
        ).returncode
        == 0
    )


if __name__ == "__main__":
    main()
