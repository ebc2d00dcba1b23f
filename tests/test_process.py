"""The daemon as a process: systemd notifications, signals, config checks, clean shutdown,
polling mode and the unit file.

Sessions follow the recipes of ``tests/live_helpers.py``; the figures each test expects
are counted by hand from its plan.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

import pytest

from omkd.config import Config, load_config
from omkd.daemon.daemon import Daemon
from omkd.daemon.notify import Notifier
from omkd.shell import unit
from omkd.testing import DEADLINE_SECONDS, DaemonProcess
from tests.live_helpers import append, family, omkd, session_bytes, skill_of, wait_lines

REPO: Final = Path(__file__).resolve().parents[1]
UNIT: Final = REPO / "systemd" / "omkd.service"
DEFAULT_CONFIG: Final = REPO / "config" / "omkd.toml"
# deploy: miss, hit, hedge -> 3 segments, 2 with a signal.
PLAN: Final = [("deploy", "miss"), ("deploy", "hit"), ("deploy", "hedge")]
# review: miss, miss -> 2 segments, both with a failed search.
OTHER_PLAN: Final = [("code-review", "miss"), ("code-review", "miss")]
SESSION: Final = Path("-home-dev-shop") / "session.jsonl"


def segments_by_skill(samples: dict[str, float]) -> dict[str, float]:
    return {skill_of(key): value for key, value in family(samples, "omkd_segments_total").items()}


# --- (a) systemd notifications ---------------------------------------------------------------


def receive_until(sock: socket.socket, wanted: str, deadline: float = DEADLINE_SECONDS) -> list[list[str]]:
    """Datagrams (as lists of ``KEY=VALUE`` lines) up to and including the first holding ``wanted``."""
    received: list[list[str]] = []
    end = time.monotonic() + deadline
    while True:
        remaining = end - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"no {wanted!r} datagram within {deadline}s; received {received}")
        sock.settimeout(remaining)
        try:
            datagram = sock.recv(4096)
        except TimeoutError:
            continue
        received.append(datagram.decode().split("\n"))
        if wanted in received[-1]:
            return received


def test_systemd_notify_ready_then_watchdog_then_stopping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With $NOTIFY_SOCKET and $WATCHDOG_USEC, omkd sends READY=1, then WATCHDOG=1 pings, and STOPPING=1 on SIGTERM."""
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    address = tmp_path / "notify.sock"
    root = tmp_path / "projects"
    append(root / SESSION, session_bytes(PLAN))
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(address))
        env = {"NOTIFY_SOCKET": str(address), "WATCHDOG_USEC": "200000"}
        with DaemonProcess(tmp_path, [root], env=env) as daemon:
            daemon.start()
            until_ready = receive_until(sock, "READY=1")
            pings = [receive_until(sock, "WATCHDOG=1") for _ in range(3)]
            assert daemon.stop() == 0
            until_stopping = receive_until(sock, "STOPPING=1")
    assert [any(s.startswith("WATCHDOG=") for s in d) for d in until_ready] == [False] * len(until_ready)
    assert len(pings) == 3
    assert "STOPPING=1" in until_stopping[-1]


# --- (b) SIGTERM and the checkpoint ----------------------------------------------------------


def test_sigterm_exits_0_and_restart_restores_without_rereading(tmp_path: Path) -> None:
    """SIGTERM exits 0 after a checkpoint; a restart shows the same figures and reads no byte of unchanged files."""
    root = tmp_path / "projects"
    data = session_bytes(PLAN)
    append(root / SESSION, data)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        before = wait_lines(daemon, data.count(b"\n"))
        status_before = daemon.get("/api/v1/status")
        assert daemon.stop() == 0
        daemon.start()
        restored = daemon.wait_log_event("started")["restored_files"]
        after: dict[str, float] = {}

        def settled() -> bool:
            nonlocal after
            after = daemon.metrics()
            return after.get("omkd_replaying") == 0 and after.get("omkd_lag_bytes") == 0

        daemon.wait_for(settled, "the restarted daemon to settle")
        status_after = daemon.get("/api/v1/status")
        assert daemon.stop() == 0
    assert (restored, after["omkd_read_bytes_total"], before["omkd_read_bytes_total"]) == (1, 0, len(data))
    kept = ("omkd_segments_total", "omkd_gap_segments_total", "omkd_signals_total", "omkd_lines_total")
    figures_before = {key: value for name in kept for key, value in family(before, name).items()}
    assert {key: after.get(key) for key in figures_before} == figures_before

    def steady(report: dict[str, Any]) -> dict[str, Any]:
        # The window starts "length" before now, so its start moves with the clock.
        return {**report, "watermark": {k: v for k, v in report["watermark"].items() if k != "window_from"}}

    assert steady(status_after) == steady(status_before)


# --- (c) SIGHUP --------------------------------------------------------------------------------


def test_sighup_applies_a_valid_new_config(tmp_path: Path) -> None:
    """SIGHUP with a valid config that adds a root: the new root's files get read."""
    first, second = tmp_path / "projects", tmp_path / "more-projects"
    data, other = session_bytes(PLAN), session_bytes(OTHER_PLAN)
    append(first / SESSION, data)
    append(second / SESSION, other)
    with DaemonProcess(tmp_path, [first]) as daemon:
        daemon.start()
        before = wait_lines(daemon, data.count(b"\n"))
        daemon.roots = [first, second]
        daemon.write_config()
        assert daemon.process is not None
        daemon.process.send_signal(signal.SIGHUP)
        daemon.wait_log_event("reloaded")
        after = wait_lines(daemon, data.count(b"\n") + other.count(b"\n"))
        assert daemon.stop() == 0
    assert (segments_by_skill(before), segments_by_skill(after)) == ({"deploy": 3}, {"deploy": 3, "code-review": 2})


def test_sighup_refuses_an_invalid_config_and_keeps_serving(tmp_path: Path) -> None:
    """SIGHUP with an invalid config logs ``reload_rejected`` naming the bad key; the old config keeps working."""
    root = tmp_path / "projects"
    data, more = session_bytes(PLAN), session_bytes(OTHER_PLAN, first_minute=10)
    append(root / SESSION, data)
    with DaemonProcess(tmp_path, [root]) as daemon:
        daemon.start()
        wait_lines(daemon, data.count(b"\n"))
        daemon.write_config(extra='[tail]\nmode = "sometimes"\n')
        assert daemon.process is not None
        daemon.process.send_signal(signal.SIGHUP)
        rejected = daemon.wait_log_event("reload_rejected")
        healthy = daemon.get("/healthz", raw=True)
        append(root / SESSION, more)
        after = wait_lines(daemon, data.count(b"\n") + more.count(b"\n"))
        assert daemon.stop() == 0
    assert [problem.split(":")[0] for problem in rejected["problems"]] == ["tail.mode"]
    assert (healthy, segments_by_skill(after)) == (b"ok\n", {"deploy": 3, "code-review": 2})


# --- (d) config validation -----------------------------------------------------------------------

BAD_CONFIG: Final = """\
[tail]
mode = "sometimes"
rescan_interval = "soon"
[metrics]
max_skills = 0
[bogus]
x = 1
"""
BAD_KEYS: Final = ["tail.mode", "tail.rescan_interval", "metrics.max_skills", "bogus"]


def test_default_config_file_passes_and_equals_embedded_default() -> None:
    """config/omkd.toml passes ``omkd check-config`` and holds exactly the embedded defaults."""
    checked = omkd("check-config", DEFAULT_CONFIG)
    assert (checked.returncode, checked.stderr) == (0, ""), checked.stderr
    assert load_config(DEFAULT_CONFIG) == Config()


def test_check_config_reports_every_bad_key_by_dotted_name(tmp_path: Path) -> None:
    """``omkd check-config`` on a bad file exits 2 with one line per bad key, each naming it by dotted name."""
    path = tmp_path / "bad.toml"
    path.write_text(BAD_CONFIG)
    checked = omkd("check-config", path)
    lines = checked.stderr.splitlines()
    named = [[key for key in BAD_KEYS if key in line] for line in lines]
    assert (checked.returncode, named) == (2, [[key] for key in BAD_KEYS]), checked.stderr


def test_check_config_reports_retention_beside_another_bad_key(tmp_path: Path) -> None:
    """A retention shorter than the window is reported even when another key is bad too."""
    path = tmp_path / "bad.toml"
    path.write_text('[tail]\nmode = "sometimes"\n[window]\nlength = "30d"\nretention = "7d"\n')
    checked = omkd("check-config", path)
    named = [[key for key in ("tail.mode", "window.retention") if key in line] for line in checked.stderr.splitlines()]
    assert (checked.returncode, named) == (2, [["tail.mode"], ["window.retention"]]), checked.stderr


def test_check_config_names_http_listen(tmp_path: Path) -> None:
    """A bad ``http.listen`` is reported under its dotted name ``http.listen``."""
    path = tmp_path / "bad.toml"
    path.write_text('[http]\nlisten = "nowhere"\n')
    checked = omkd("check-config", path)
    assert (checked.returncode, "http.listen" in checked.stderr) == (2, True), checked.stderr


def test_run_with_bad_config_exits_2_naming_the_key(tmp_path: Path) -> None:
    """``omkd run --config bad.toml`` refuses to start: exit 2, the bad key named."""
    path = tmp_path / "bad.toml"
    path.write_text('[tail]\nmode = "sometimes"\n')
    ran = omkd("run", "--config", path)
    assert (ran.returncode, "tail.mode" in ran.stderr) == (2, True), ran.stderr


# --- (e) the in-process lifecycle --------------------------------------------------------------


async def run_briefly(config: Config, lines: int) -> list[str]:
    """startup, a main loop until ``lines`` lines are folded and /metrics answered, request_exit, shutdown;
    the tasks still pending afterwards."""
    loop = asyncio.get_running_loop()
    daemon = Daemon(config, notifier=Notifier(""))
    await daemon.startup()
    main_loop = asyncio.create_task(daemon.main_loop())
    deadline = loop.time() + DEADLINE_SECONDS
    while daemon.parts.keeper.pipeline.lines < lines:
        assert loop.time() < deadline, f"{daemon.parts.keeper.pipeline.lines} of {lines} lines folded"
        await asyncio.sleep(0.01)
    reader, writer = await asyncio.open_connection("127.0.0.1", daemon.bound_port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: omkd\r\nConnection: close\r\n\r\n")
    answer = await reader.read()
    writer.close()
    await writer.wait_closed()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    daemon.request_exit()
    await asyncio.wait_for(main_loop, DEADLINE_SECONDS)
    await daemon.shutdown()
    return [repr(task) for task in asyncio.all_tasks() if task is not asyncio.current_task()]


def test_in_process_lifecycle_leaves_no_tasks_or_descriptors(tmp_path: Path) -> None:
    """After startup, a main loop, request_exit and shutdown, no asyncio task is pending and no descriptor leaked."""
    root = tmp_path / "projects"
    data = session_bytes(PLAN)
    append(root / SESSION, data)
    config = Config.model_validate(
        {
            "sources": {"roots": [str(root)], "home": str(tmp_path / "home")},
            "state": {"directory": str(tmp_path / "state")},
            "http": {"listen": "127.0.0.1:0"},
            "window": {"length": "3650d", "retention": "3650d"},
        }
    )
    descriptors_before = sorted(os.listdir("/proc/self/fd"))
    pending = asyncio.run(run_briefly(config, data.count(b"\n")))
    descriptors_after = sorted(os.listdir("/proc/self/fd"))
    assert (pending, descriptors_after) == ([], descriptors_before)


# --- (f) polling mode ------------------------------------------------------------------------------


def test_polling_mode_picks_up_appends(tmp_path: Path) -> None:
    """With ``tail.mode = "polling"`` (no filesystem events) appended lines are still read."""
    root = tmp_path / "projects"
    data, more = session_bytes(PLAN), session_bytes(OTHER_PLAN, first_minute=10)
    append(root / SESSION, data)
    with DaemonProcess(tmp_path, [root], '[tail]\nmode = "polling"\npoll_interval = "200ms"\n') as daemon:
        daemon.start()
        before = wait_lines(daemon, data.count(b"\n"))
        append(root / SESSION, more)
        after = wait_lines(daemon, data.count(b"\n") + more.count(b"\n"))
        assert daemon.stop() == 0
    assert (before["omkd_tail_polling"], segments_by_skill(after)) == (1, {"deploy": 3, "code-review": 2})


# --- (g) the systemd unit ----------------------------------------------------------------------------


def unit_entries() -> list[tuple[str, str, str]]:
    """(section, key, value) of every setting in systemd/omkd.service, in order."""
    entries: list[tuple[str, str, str]] = []
    section = ""
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        entries.append((section, key.strip(), value.strip()))
    return entries


def test_unit_declares_notify_watchdog_validating_reload_and_hardening() -> None:
    """The unit is Type=notify with a watchdog, reloads only after check-config, and carries the §4 hardening."""
    service = [(key, value) for section, key, value in unit_entries() if section == "Service"]
    settings = dict(service)
    reloads = [value for key, value in service if key == "ExecReload"]
    assert (settings.get("Type"), bool(settings.get("WatchdogSec"))) == ("notify", True)
    assert len(reloads) == 2, reloads
    assert (" check-config " in reloads[0], "-HUP" in reloads[1]) == (True, True), reloads
    hardening = {key: settings.get(key) for key in ("ProtectSystem", "NoNewPrivileges", "ProtectHome")}
    assert hardening == {"ProtectSystem": "strict", "NoNewPrivileges": "yes", "ProtectHome": "read-only"}
    assert settings.get("StateDirectory") == "omkd"


def analyzer() -> str:
    """``systemd-analyze`` (Debian's ``systemd``: tests/setup-and-run.sh installs it): missing is a failure."""
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.fail("systemd-analyze is not installed (Debian's systemd package; tests/setup-and-run.sh installs it)")
    return tool


def test_the_repository_unit_is_the_rendered_user_unit() -> None:
    """``systemd/omkd.service`` is what ``omkd install-unit`` writes, with ``%h`` paths: one text."""
    plan = unit.UnitPlan("%h/.local/share/omkd/venv/bin/omkd", "%h/.config/omkd/omkd.toml", True, None)
    assert UNIT.read_text() == unit.render(plan)


@pytest.mark.parametrize("scope", ["--user", "--system"])
def test_install_unit_print_passes_systemd_analyze_verify(tmp_path: Path, scope: str) -> None:
    """``omkd install-unit --print`` names this installation's real executable; ``systemd-analyze
    verify`` accepts it without an error or warning (a bad ``Type=`` or a missing executable fails it)."""
    printed = omkd("install-unit", scope, "--print", "--config", tmp_path / "omkd.toml")
    assert printed.returncode == 0, printed.stderr
    text = printed.stdout
    executable = text.split("ExecStart=", 1)[1].split(" run ", 1)[0]
    assert Path(executable.split()[0]).is_file(), executable
    assert ("After=network" in text, "User=" in text) == ((scope == "--system"), (scope == "--system"))
    written = tmp_path / "omkd.service"
    written.write_text(text)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    verified = subprocess.run(
        [analyzer(), "verify", str(written)], capture_output=True, text=True, check=False, env=env, timeout=60
    )
    assert (verified.returncode, verified.stdout + verified.stderr) == (0, "")


def test_install_unit_writes_the_unit_and_a_config(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "omkd", "install-unit"], capture_output=True, text=True, check=False, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    unit_file = tmp_path / ".config/systemd/user/omkd.service"
    assert (unit_file.is_file(), (tmp_path / ".config/omkd/omkd.toml").is_file()) == (True, True)
    assert "systemctl --user daemon-reload && systemctl --user enable --now omkd" in done.stdout
    assert "loginctl enable-linger" in done.stdout


def test_the_unit_documents_the_runbook_this_daemon_serves(tmp_path: Path) -> None:
    """``Documentation=`` is the daemon's own ``/runbook`` at the config's ``http.listen`` (a wildcard
    address reached on loopback), not a guessed web page; a config that does not load is named and
    no unit is printed."""
    config = tmp_path / "omkd.toml"
    config.write_text('[http]\nlisten = "0.0.0.0:9800"\n')
    printed = omkd("install-unit", "--print", "--config", config)
    assert printed.returncode == 0, printed.stderr
    assert "Documentation=http://127.0.0.1:9800/runbook\n" in printed.stdout
    absent = omkd("install-unit", "--print", "--config", tmp_path / "missing.toml")
    assert f"Documentation=http://{Config().http.listen}/runbook\n" in absent.stdout
    config.write_text('[http]\nlisten = "nowhere"\n')
    bad = omkd("install-unit", "--print", "--config", config)
    assert (bad.returncode, bad.stdout) == (2, "")
    assert (str(config) in bad.stderr, "listen" in bad.stderr) == (True, True)


def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    """``systemd-analyze --user verify`` accepts the unit without an error or warning."""
    tool = analyzer()
    home = tmp_path / "home"
    executable = home / ".local" / "share" / "omkd" / "venv" / "bin" / "omkd"
    executable.parent.mkdir(parents=True)
    executable.write_text('#!/bin/sh\nexec python3 -m omkd "$@"\n')
    executable.chmod(stat.S_IRWXU)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    unit = tmp_path / UNIT.name
    shutil.copy(UNIT, unit)
    env = {**os.environ, "HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}
    verified = subprocess.run(
        [tool, "--user", "verify", str(unit)], capture_output=True, text=True, check=False, env=env, timeout=60
    )
    assert (verified.returncode, verified.stdout + verified.stderr) == (0, "")


def test_the_end_of_the_first_read_is_said_with_what_the_window_holds(tmp_path: Path) -> None:
    """Old history only (2026-01-01) and a 7-day window: the log says when everything on disk is read,
    how many segments fell outside the window, and what to do about it."""
    append(tmp_path / "projects" / SESSION, session_bytes(PLAN))
    with DaemonProcess(tmp_path, [tmp_path / "projects"]) as daemon:
        daemon.write_config()
        config = daemon.config_path.read_text()
        daemon.config_path.write_text(config.replace('length = "3650d"', 'length = "7d"'))
        daemon.start()
        event = daemon.wait_log_event("initial_read_done")
        assert daemon.stop() == 0
    assert (event["segments_in_window"], event["segments_outside_window"]) == (0, 3)
    assert "widen window.length" in event["hint"]


def test_listen_comes_from_the_flag_or_the_environment(tmp_path: Path) -> None:
    """``OMKD_LISTEN`` (or ``--listen``) overrides ``http.listen`` without a TOML file; a bad one
    is a usage error naming it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (tmp_path / "projects").mkdir()
    with DaemonProcess(tmp_path, [tmp_path / "projects"], env={"OMKD_LISTEN": f"127.0.0.1:{port}"}) as daemon:
        daemon.start()
        assert daemon.port == port
        assert daemon.stop() == 0
    bad = omkd("run", "--listen", "nowhere")
    assert (bad.returncode, "'nowhere' is not host:port" in bad.stderr) == (2, True), bad.stderr
