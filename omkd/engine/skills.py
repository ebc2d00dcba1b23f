"""Skill names: normalisation, validation and the built-in commands that are never skills."""

from __future__ import annotations

import re
from typing import Final

GENERAL: Final = "general"
"""The pseudo-skill of everything not attributed to a skill."""

VALID_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")

BUILTIN_COMMANDS: Final = frozenset(
    {
        "clear", "exit", "quit", "help", "fast", "effort", "model", "plugin", "plugins",
        "stats", "doctor", "compact", "cost", "agents", "init", "config", "permissions",
        "resume", "continue", "memory", "mcp", "status", "context", "usage", "login",
        "logout", "ide", "hooks", "vim", "terminal-setup", "add-dir", "export", "rewind",
        "todos", "bashes", "output-style", "statusline", "upgrade", "release-notes",
        "feedback", "chrome", "review", "pr-comments", "security-review", "bug",
        "install-github-app", "privacy-settings", "sandbox", "theme", "btw",
    }
)  # fmt: skip


def normalise(raw: str) -> str:
    """Strip a leading ``/`` and an ``owner/`` prefix before a plugin name.

    ``pbakaus/impeccable:audit`` and ``impeccable:audit`` name the same skill.
    """
    name = raw.strip().lstrip("/")
    owner, slash, rest = name.partition("/")
    if slash and owner and ":" in rest:
        name = rest
    return name


def is_valid(name: str) -> bool:
    """A name omkd accepts as a skill label."""
    return VALID_NAME.match(name) is not None
