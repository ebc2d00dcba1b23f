"""Run the real ``prometheus`` (server or agent mode) for integration tests, and query it.

Each instance gets a port picked by binding port 0, its own storage directory and log
file. Synchronisation is by observation only: ``/-/ready`` after start, then query results
polled with deadlines.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self, TypeVar

import orjson
import pytest

DEADLINE_SECONDS = 30.0
T = TypeVar("T")


def tool(name: str) -> str:
    """The path of ``prometheus`` or ``promtool``; a missing one fails the test, never skips it."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(
            f"{name} not found on PATH: install Debian's `prometheus` package (tests/setup-and-run.sh does)",
            pytrace=False,
        )
    return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until(probe: Callable[[], T | None], what: str, deadline: float = DEADLINE_SECONDS) -> T:
    """Poll ``probe`` until it returns something other than None (or False); that value."""
    end = time.monotonic() + deadline
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() >= end:
            raise AssertionError(f"timed out after {deadline}s waiting for {what}")
        time.sleep(0.1)


class ManagedProcess:
    """A test's server subprocess (``process``), stopped by SIGTERM (then killed) on leaving its
    ``with`` block: Prometheus and Alertmanager alike."""

    process: subprocess.Popen[bytes] | None = None

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(DEADLINE_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(DEADLINE_SECONDS)
        self.process = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class PrometheusProcess(ManagedProcess):
    """One ``prometheus`` process with its config written into ``workdir``."""

    def __init__(self, workdir: Path, config: str, *, agent: bool = False, remote_write_receiver: bool = False):
        self.workdir = workdir
        self.config_path = workdir / ("prometheus-agent.yml" if agent else "prometheus.yml")
        self.log_path = workdir / "prometheus.log"
        self.agent = agent
        self.remote_write_receiver = remote_write_receiver
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        workdir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(config)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> PrometheusProcess:
        self.port = free_port()
        storage = "--storage.agent.path" if self.agent else "--storage.tsdb.path"
        command = [
            tool("prometheus"),
            f"--config.file={self.config_path}",
            f"{storage}={self.workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            "--log.level=warn",
        ]
        if self.agent:
            command.append("--enable-feature=agent")
        if self.remote_write_receiver:
            command.append("--web.enable-remote-write-receiver")
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=log, cwd=self.workdir)
        wait_until(self._ready, f"{self.url}/-/ready")
        return self

    def _ready(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"prometheus exited ({self.process.returncode}):\n{self.log_text()}")
        try:
            with urllib.request.urlopen(f"{self.url}/-/ready", timeout=5) as response:  # noqa: S310 (loopback)
                return bool(response.status == 200)
        except (urllib.error.URLError, ConnectionError):
            return False

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def api(self, path: str, **params: str) -> Any:
        """The ``data`` of a successful API answer; an error answer fails with Prometheus's message."""
        url = f"{self.url}/api/v1/{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (loopback)
                body = orjson.loads(response.read())
        except urllib.error.HTTPError as error:
            body = orjson.loads(error.read())
        if body.get("status") != "success":
            raise AssertionError(f"{path} {params}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        """The samples of an instant vector query (a scalar answer counts as one sample)."""
        data = self.api("query", query=expr)
        if data["resultType"] in ("scalar", "string"):
            return [{"metric": {}, "value": data["result"]}]
        result: list[dict[str, Any]] = data["result"]
        return result

    def values(self, expr: str, label: str) -> dict[str, float]:
        """``{value of label: sample value}`` of an instant query."""
        return {sample["metric"].get(label, ""): float(sample["value"][1]) for sample in self.query(expr)}

    def wait_query(self, expr: str, what: str, deadline: float = DEADLINE_SECONDS) -> list[dict[str, Any]]:
        """Poll until ``expr`` returns at least one sample; the samples."""
        return wait_until(lambda: self.query(expr) or None, f"{what} ({expr})", deadline)
