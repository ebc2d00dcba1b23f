"""What of a Codex user-role message the person typed: not the texts Codex writes itself
(``NOT_TYPED``), and of an invoked custom prompt, only its arguments (``prompt_arguments``)."""

from __future__ import annotations

import re
from typing import Final

NOT_TYPED: Final = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions for ",
    "<permissions instructions>",
    "<skills_instructions>",
    "<collaboration_mode>",
    "<turn_aborted>",
    "<user_shell_command>",
)
"""User-role texts Codex writes itself, not typed by the person."""
PROMPT_FILE: Final = re.compile(r"\A---\r?\n(?:(?!---\r?\n)[^\n]*\n){0,20}?description:")
"""A custom prompt file's front matter (``---`` then ``description: …``): Codex writes the file's text as
the person's message when they invoke it, as Claude Code writes a command's body as a meta record."""


_ARGUMENTS_BODY: Final = re.compile(r"\A\s*## User Input[ \t]*\r?\n\s*```text[ \t]*\r?\n")
"""A prompt's body whose front matter Codex left out (later versions write the body alone): its first
words are the heading and the ``text`` block where the template put ``$ARGUMENTS`` (spec-kit's form)."""


def prompt_file_text(text: str) -> bool:
    """The message is a custom prompt's text (its front matter first, or the body of a template that
    opens on its arguments' block), not words the person typed."""
    if text.startswith("---"):
        return PROMPT_FILE.match(text) is not None
    return _ARGUMENTS_BODY.match(text) is not None


_TEXT_BLOCK: Final = re.compile(r"^```text[ \t]*\r?\n(.*?)^```", re.MULTILINE | re.DOTALL)


def prompt_arguments(text: str) -> str:
    """What the person typed into a custom prompt: the ``text`` blocks where templates put ``$ARGUMENTS``
    (spec-kit's ``## User Input``), an unfilled placeholder left out; "" when the template has none."""
    typed = [block.strip() for block in _TEXT_BLOCK.findall(text)]
    return "\n".join(t for t in typed if t and not t.startswith("$"))
