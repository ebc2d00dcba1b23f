"""The values omkd's configuration is written in, and its defaults read from the environment.

Durations are ``"30s"``, ``"5m"``, ``"24h"``, ``"7d"`` (or a number of seconds): ``Seconds``;
sizes ``"16MiB"``, ``"512KiB"`` (or a number of bytes): ``Bytes``; every table is a ``Section``.
The agents' folders (``default_roots``) and the state directory (``default_state_dir``) are
where they are on this machine. ``config.py`` declares the tables and reads the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Final

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from omkd.engine.timespec import parse_duration

_SIZE = re.compile(r"^\s*(\d+)\s*(B|KiB|MiB|GiB|KB|MB|GB)?\s*$")
_SIZE_UNITS: Final = {
    None: 1, "B": 1, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30, "KB": 1000, "MB": 10**6, "GB": 10**9,
}  # fmt: skip


def default_roots(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Where the agents write their sessions, those that exist (or ``~/.claude/projects`` when
    none does, so that the warning names the usual place):

    - Claude Code: ``$CLAUDE_CONFIG_DIR/projects`` when it is set, ``~/.claude/projects``,
      ``~/.config/claude/projects``;
    - Codex CLI: ``$CODEX_HOME/sessions`` when it is set, else ``~/.codex/sessions``;
    - Gemini CLI: ``~/.gemini/tmp`` (its chats are ``<project>/chats/session-*``).

    Each file's format is told by its first record, not by the root it is under."""
    env = os.environ if environ is None else environ
    candidates = [Path("~/.claude/projects"), Path("~/.config/claude/projects")]
    if env.get("CLAUDE_CONFIG_DIR"):
        candidates.insert(0, Path(env["CLAUDE_CONFIG_DIR"]) / "projects")
    codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else Path("~/.codex")
    candidates += [codex_home / "sessions", Path("~/.gemini/tmp")]
    found = [root for root in dict.fromkeys(candidates) if root.expanduser().is_dir()]
    return found or [Path("~/.claude/projects")]


def _duration(value: Any) -> Any:
    """A duration string (``parse_duration``; a bare number is seconds), or a number as it is."""
    return parse_duration(value, bare_unit="s") if isinstance(value, str) else value


def _size(value: Any) -> Any:
    if isinstance(value, str):
        found = _SIZE.match(value)
        if not found:
            raise ValueError(f"{value!r} is not a size like 512KiB or 16MiB")
        return int(found.group(1)) * _SIZE_UNITS[found.group(2)]
    return value


Seconds = Annotated[float, BeforeValidator(_duration), Field(gt=0)]
Bytes = Annotated[int, BeforeValidator(_size), Field(gt=0)]


def default_state_dir() -> Path:
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "omkd"


class Section(BaseModel):
    """A table of the config file: unknown keys refused, frozen once loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True)
