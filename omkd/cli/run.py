"""``omkd run`` and ``omkd check-config``."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from omkd import logs
from omkd.daemon.config import Config, ConfigError, load_config
from omkd.daemon.state import StateLockedError

EXIT_CONFIG = 2
EXIT_RUNTIME = 1


def config_or_exit(path: Path | None, prefix: str) -> Config:
    """The config at ``path``; otherwise every problem on stderr, each naming its key, and exit 2."""
    try:
        return load_config(path)
    except ConfigError as error:
        for problem in error.problems:
            click.echo(f"{prefix}{error.source}: {problem}", err=True)
        sys.exit(EXIT_CONFIG)


@click.command("run")
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="TOML config (default: the embedded defaults; see config/omkd.toml).",
)
@click.option(
    "--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", show_default=True
)
@click.option("--log-json/--log-console", default=None, help="Log format (default: JSON unless stderr is a terminal).")
def run_command(config_path: Path | None, log_level: str, log_json: bool | None) -> None:
    """Run the daemon: tail transcripts, keep state, serve /metrics and the status API."""
    from omkd.daemon.daemon import Daemon

    logs.configure(log_level, log_json)
    daemon = Daemon(config_or_exit(config_path, "omkd run: "), config_path)
    try:
        asyncio.run(daemon.serve())
    except StateLockedError as error:
        click.echo(f"omkd run: {error}", err=True)
        sys.exit(EXIT_RUNTIME)
    except OSError as error:
        click.echo(f"omkd run: {error}", err=True)
        sys.exit(EXIT_RUNTIME)


@click.command("check-config")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False))
def check_config_command(path: Path) -> None:
    """Validate a config file; report every bad key by name (exit 2 when invalid)."""
    config = config_or_exit(path, "")
    click.echo(f"{path}: ok (roots: {', '.join(str(r) for r in config.roots())}; listen: {config.http.listen})")
