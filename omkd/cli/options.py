"""The options that ``omkd scan``, ``omkd report``, ``omkd impact`` and ``omkd wiki`` share, declared once."""

from __future__ import annotations

from pathlib import Path

import click

since_option = click.option(
    "--since", help="Only segments starting at or after this time (ISO-8601, or an age: 7d, 24h)."
)
until_option = click.option("--until", help="Only segments starting before this time (ISO-8601, or an age).")
kb_option = click.option(
    "--kb",
    "knowledge_roots",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Extra knowledge root: every text file below it counts for coverage (and its changes are "
    "knowledge changes). Repeatable.",
)
home_option = click.option(
    "--home",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path.home(),
    show_default="your home",
    help="Where the user-level knowledge (~/.claude, ~/.codex, ~/.gemini) lives.",
)
reading_config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Read [segments], [hedging] and [impact] from this daemon config file.",
)
"""What ``omkd report`` and ``omkd impact`` read transcripts by (``omkd scan`` says more of it)."""
jobs_option = click.option("--jobs", type=click.IntRange(1), default=None, help="Worker processes reading files.")
