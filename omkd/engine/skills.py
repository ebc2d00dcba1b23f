"""Skill names: normalisation, validation, the built-in commands that are never skills, and the
row a skill's figures are kept under (one per agent and skill)."""

from __future__ import annotations

import re
from typing import Final

from omkd.engine.formats import AGENTS, CLAUDE_CODE

GENERAL: Final = "general"
"""The pseudo-skill of everything not attributed to a skill."""

VALID_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")

ROW_SEPARATOR: Final = "/"
"""Between an agent and a skill in a row key: never in a valid skill name."""


def row_key(skill: str, agent: str = CLAUDE_CODE) -> str:
    """The key a skill's figures are kept under for one agent: the skill name itself for Claude
    Code (so state written before other agents were read keeps its keys), ``<agent>/<skill>``
    for the others. Codex's ``general`` is not Claude Code's: their knowledge is not the same."""
    return skill if agent == CLAUDE_CODE else f"{agent}{ROW_SEPARATOR}{skill}"


def row_label(skill: str, agent: str | None) -> str:
    """How a row is named to a person: the skill, with its agent when that is not Claude Code."""
    return skill if agent in (None, CLAUDE_CODE) else f"{skill} ({agent})"


def split_row(key: str) -> tuple[str, str]:
    """(agent, skill) of a row key (``__other__`` and names without an agent are Claude Code's)."""
    agent, separator, skill = key.partition(ROW_SEPARATOR)
    if separator and agent in AGENTS:
        return agent, skill
    return CLAUDE_CODE, key


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


def same_skill(a: str, b: str) -> bool:
    """A plugin skill called by its bare name is the plugin's skill: ``brainstorming`` is
    ``superpowers:brainstorming``."""
    return a == b or a.rsplit(":", 1)[-1] == b or b.rsplit(":", 1)[-1] == a


def plugin_of(base_dir: str) -> str | None:
    """The plugin a skill's base directory names: ``…/plugins/…/<plugin>/<version>/skills/<name>``."""
    parts = [p for p in base_dir.replace("\\", "/").split("/") if p]
    if len(parts) < 5 or parts[-2] != "skills" or "plugins" not in parts[:-4]:
        return None
    return parts[-4]
