"""Whether a path looked at is a path the agent removed (spec §3.1 ``verify_absence``: "the agent deleted or
moved a file the search targets"): the same file written another way, or a file inside a removed directory."""

from __future__ import annotations

from omkd.engine import search_pattern


def same_or_inside(looked: str, gone: str) -> bool:
    """``looked`` names the removed path ``gone``, or a path inside it: as written (home written ``~``), or,
    one absolute and one relative to the cwd, the absolute one ending in the relative one. Two relative
    paths are compared as written: ``package.json`` is not ``packages/legacy/package.json``."""
    a, b = _path_form(looked), _path_form(gone)
    if not a or not b:
        return False
    if a == b or a.startswith(b + "/"):
        return True
    if _rooted(a) == _rooted(b):
        return False
    if _rooted(a):  # ``/home/dev/proj/src/legacy/x.ts`` after ``rm -r src/legacy``
        return a.endswith("/" + b) or f"/{b}/" in a
    parts = a.split("/")  # ``src/legacy/x.ts`` after ``rm -r /home/dev/proj/src/legacy``
    return any(b.endswith("/" + "/".join(parts[:end])) for end in range(1, len(parts) + 1))


def _rooted(path: str) -> bool:
    return path.startswith(("/", "~/")) or path == "~" or path[1:3] == ":/"


def _path_form(path: str) -> str:
    """A path as ``search_pattern.normalised`` writes it without a cwd (``~`` for the home directory), with
    ``/`` between its parts, no leading ``./`` nor closing ``/``."""
    return search_pattern.normalised(path, None).replace("\\", "/").removeprefix("./").rstrip("/")
