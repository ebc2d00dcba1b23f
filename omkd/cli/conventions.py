"""``omkd conventions``: the block that asks agents to mark their guesses and unknowns."""

from __future__ import annotations

import click

from omkd.engine import conventions


@click.command("conventions")
@click.option(
    "--lang",
    type=click.Choice(["en", "zh", "both"]),
    default="both",
    show_default=True,
    help="English, Chinese, or both (the agent follows either).",
)
def conventions_command(lang: str) -> None:
    """Print the marker convention for CLAUDE.md or AGENTS.md (README: Hedging, omkd conventions).

    Agents write the uncertainty markers only when told to: append this block to the
    instructions of each project (or to ~/.claude/CLAUDE.md for all of them). `omkd status` and
    `omkd scan` then say which projects ask for markers; elsewhere a marker count of 0 means
    "not asked".
    """
    chosen = ["en", "zh"] if lang == "both" else [lang]
    click.echo("\n".join(conventions.BLOCKS[name] for name in chosen), nl=False)
