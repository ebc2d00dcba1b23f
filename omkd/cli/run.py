"""``omkd run`` and ``omkd check-config``."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from omkd import logs
from omkd.config import Config, ConfigError, Http, load_config
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


def _listen(_: click.Context, __: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return Http(listen=value).listen
    except ValueError:
        raise click.BadParameter(f"{value!r} is not host:port (port 0 picks a free one)") from None


@click.command("run")
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="OMKD_CONFIG",
    help="TOML config (default: the embedded defaults; see config/omkd.toml). Env: OMKD_CONFIG.",
)
@click.option(
    "--listen",
    envvar="OMKD_LISTEN",
    callback=_listen,
    help="host:port of /metrics and the API, over the config's http.listen. Env: OMKD_LISTEN.",
)
@click.option(
    "--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", show_default=True
)
@click.option("--log-json/--log-console", default=None, help="Log format (default: JSON unless stderr is a terminal).")
def run_command(config_path: Path | None, listen: str | None, log_level: str, log_json: bool | None) -> None:
    """Run the daemon: tail transcripts, keep state, serve /metrics and the status API."""
    from omkd.daemon.daemon import Daemon

    logs.configure(log_level, log_json)
    daemon = Daemon(config_or_exit(config_path, "omkd run: "), config_path, listen=listen)
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


def _config_url(config_path: Path) -> str:
    """Where the daemon of the config the unit runs with is reached (the default while it does not exist);
    a config that does not load is named, and the unit is not written."""
    path = config_path.expanduser()
    try:
        return load_config(path if path.exists() else None).http.url
    except ConfigError as error:
        click.echo(f"omkd install-unit: {error}", err=True)
        sys.exit(EXIT_CONFIG)


@click.command("install-unit")
@click.option("--user/--system", "user", default=True, show_default=True,
              help="A user unit (your own transcripts) or a system unit (run as you, at boot).")  # fmt: skip
@click.option("--print", "print_only", is_flag=True, help="Print the unit instead of writing it.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The config the unit runs with (default: ~/.config/omkd/omkd.toml, or /etc/omkd/omkd.toml).",
)
def install_unit_command(user: bool, print_only: bool, config_path: Path | None) -> None:
    """Write omkd's systemd unit with this installation's real paths (then: daemon-reload, enable --now)."""
    import getpass
    import os

    from omkd.shell import unit

    executable = Path(sys.executable).parent / "omkd"
    command = str(executable) if executable.exists() else f"{sys.executable} -m omkd"
    home = Path.home()
    if config_path is None:
        config_path = home / ".config/omkd/omkd.toml" if user else Path("/etc/omkd/omkd.toml")
    plan = unit.UnitPlan(
        command,
        str(config_path.expanduser()),
        user,
        unit.systemd_version(),
        getpass.getuser(),
        _config_url(config_path),
    )
    text = unit.render(plan)
    if print_only:
        click.echo(text, nl=False)
        return
    target = home / ".config/systemd/user/omkd.service" if user else Path("/etc/systemd/system/omkd.service")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        config = config_path.expanduser()
        if not config.exists():
            config.parent.mkdir(parents=True, exist_ok=True)
            config.write_text("# omkd: every key and its default is described in config/omkd.toml of omkd.\n")
            click.echo(f"wrote {config} (the defaults)")
    except OSError as error:
        click.echo(f"omkd install-unit: {error.filename}: {error.strerror}", err=True)
        sys.exit(EXIT_CONFIG)
    scope = "--user " if user else ""
    click.echo(f"wrote {target}")
    click.echo(f"next: systemctl {scope}daemon-reload && systemctl {scope}enable --now omkd")
    if user:
        click.echo(
            f"to keep it running when you are logged out: loginctl enable-linger {os.environ.get('USER', '')}".rstrip()
        )
