"""The README of the omkd that runs: the checkout's when omkd runs from one (an editable install,
a clone), else the one its package metadata carries (``readme`` in pyproject.toml)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import omkd


def running_readme() -> str | None:
    """The README's text, or None when neither the checkout nor the metadata has one."""
    checkout = Path(omkd.__file__).resolve().parents[1]
    if (checkout / "pyproject.toml").is_file() and (checkout / "README.md").is_file():
        return (checkout / "README.md").read_text(encoding="utf-8")
    try:
        metadata = importlib.metadata.metadata("omkd")
    except importlib.metadata.PackageNotFoundError:
        return None
    text = metadata.json.get("description")  # the body of METADATA: the README
    return text if isinstance(text, str) and text.strip() else None
