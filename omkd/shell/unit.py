"""The systemd unit of the daemon, written for this machine: the one place its text lives.

``omkd install-unit`` writes it (or prints it with ``--print``); ``systemd/omkd.service`` in the
repository is the user unit rendered with ``%h`` paths (a test keeps the two equal).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import Final

from omkd.api import DEFAULT_PORT

NOTIFY_RELOAD_SINCE: Final = 253
"""systemd version from which ``Type=notify-reload`` exists (omkd already sends ``RELOADING=1``)."""


@dataclass(frozen=True, slots=True)
class UnitPlan:
    """What the unit names: how to run omkd, where its config is, user or system service."""

    executable: str
    config: str
    user: bool
    systemd_version: int | None
    run_as: str | None = None
    """The account a system unit runs as (a system unit reads that person's transcripts)."""
    url: str = f"http://127.0.0.1:{DEFAULT_PORT}"
    """Where the daemon is reached on this host (the config's ``Http.url``): it serves its runbook
    there (``Documentation=``)."""

    @property
    def documentation(self) -> str:
        """The runbook this daemon serves (``/runbook``: the README's Runbook)."""
        return f"{self.url}/runbook"

    @property
    def service_type(self) -> str:
        version = self.systemd_version
        return "notify-reload" if version is not None and version >= NOTIFY_RELOAD_SINCE else "notify"


def systemd_version() -> int | None:
    """The installed systemd's version (``systemctl --version``), None without systemd."""
    systemctl = shutil.which("systemctl") or shutil.which("systemd-analyze")
    if systemctl is None:
        return None
    try:
        done = subprocess.run([systemctl, "--version"], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"systemd (\d+)", done.stdout)
    return int(found.group(1)) if found else None


def render(plan: UnitPlan) -> str:
    """The unit file's text."""
    run = f"{plan.executable} run --config {plan.config}"
    check = f"{plan.executable} check-config {plan.config}"
    reload_lines = (
        # notify-reload: systemd sends SIGHUP and waits for READY=1; check the file first.
        [f"ExecReload={check}", "ExecReload=/bin/kill -HUP $MAINPID"]
        if plan.service_type == "notify"
        else [f"ExecReload={check}"]
    )
    unit = [
        f"# omkd as a {'user' if plan.user else 'system'} service: reads "
        + ("the user's own transcripts." if plan.user else f"the transcripts of {plan.run_as or 'its user'}."),
        '# Written by `omkd install-unit`; see "Running omkd under systemd" in README.md.',
        "[Unit]",
        "Description=omkd - knowledge-gap metrics from AI agent transcripts",
        f"Documentation={plan.documentation}",
    ]
    if not plan.user:
        unit.append("After=network-online.target")  # a user unit has no network targets to order after
    unit += [
        "",
        "[Service]",
        f"Type={plan.service_type}",
        "NotifyAccess=main",
    ]
    if not plan.user and plan.run_as:
        unit.append(f"User={plan.run_as}")
    unit += [
        f"ExecStartPre={check}",
        f"ExecStart={run}",
        "# Validate first: an invalid file is refused here, and the daemon keeps its config too.",
        *reload_lines,
        "WatchdogSec=30s",
        "Restart=on-failure",
        "RestartSec=2s",
        "TimeoutStopSec=30s",
        "# Transcript files, HTTP clients and the state store share one descriptor table: systemd's",
        "# default of 1,024 is too few for a busy host (omkd also raises its soft limit to this).",
        "LimitNOFILE=8192",
        "StateDirectory=omkd",
        "# Hardening: read-only everywhere but the state directory. ProtectHome=read-only, not a",
        "# read-only ~/.claude alone: the agents' folders (~/.codex, ~/.gemini, $CLAUDE_CONFIG_DIR) and",
        "# the knowledge files are all below the home directory, and omkd writes none of them.",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=read-only",
        "ReadWritePaths=%S/omkd",
        "PrivateTmp=yes",
        "PrivateDevices=yes",
        "ProtectKernelTunables=yes",
        "ProtectKernelModules=yes",
        "ProtectKernelLogs=yes",
        "ProtectControlGroups=yes",
        "ProtectClock=yes",
        "ProtectHostname=yes",
        "ProtectProc=invisible",
        "ProcSubset=pid",
        "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
        "RestrictNamespaces=yes",
        "RestrictRealtime=yes",
        "RestrictSUIDSGID=yes",
        "LockPersonality=yes",
        "MemoryDenyWriteExecute=yes",
        "SystemCallArchitectures=native",
        "SystemCallFilter=@system-service",
        "UMask=0077",
        "MemoryMax=512M",
        "",
        "[Install]",
        f"WantedBy={'default.target' if plan.user else 'multi-user.target'}",
        "",
    ]
    return "\n".join(unit)
