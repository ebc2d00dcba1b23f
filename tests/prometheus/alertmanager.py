"""Run Debian's ``prometheus-alertmanager`` for a test, and a webhook receiver it can post to.

The Alertmanager gets a port picked by binding port 0, its own storage directory and log file,
and no cluster (``--cluster.listen-address=``: a test's Alertmanager has no peers). The receiver
is a small HTTP server in the test process that keeps every notification posted to it.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.prometheus.server import DEADLINE_SECONDS, ManagedProcess, free_port, wait_until

BINARY = "prometheus-alertmanager"


def binary() -> str:
    """The Alertmanager's path; a missing one fails the test, never skips it."""
    for name in (BINARY, "alertmanager"):
        path = shutil.which(name)
        if path is not None:
            return path
    pytest.fail(
        f"{BINARY} not found on PATH: install Debian's `{BINARY}` package (tests/setup-and-run.sh does)",
        pytrace=False,
    )


class AlertmanagerProcess(ManagedProcess):
    """One Alertmanager with ``config`` written into ``workdir``."""

    def __init__(self, workdir: Path, config: str) -> None:
        self.workdir = workdir
        self.config_path = workdir / "alertmanager.yml"
        self.log_path = workdir / "alertmanager.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        workdir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(config)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> AlertmanagerProcess:
        self.port = free_port()
        command = [
            binary(),
            f"--config.file={self.config_path}",
            f"--storage.path={self.workdir / 'data'}",
            f"--web.listen-address={self.address}",
            "--cluster.listen-address=",
            "--log.level=warn",
        ]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=log, cwd=self.workdir)
        wait_until(self._ready, f"http://{self.address}/-/ready")
        return self

    def _ready(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"alertmanager exited ({self.process.returncode}):\n{self.log_text()}")
        try:
            with urllib.request.urlopen(f"http://{self.address}/-/ready", timeout=5) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, ConnectionError):
            return False

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]


class WebhookReceiver:
    """An HTTP server on loopback keeping the JSON body of every POST (Alertmanager's webhook)."""

    def __init__(self) -> None:
        self.notifications: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with received._lock:
                    received.notifications.append(orjson.loads(body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:  # the test's output stays quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/alerts"

    def alerts(self) -> list[dict[str, Any]]:
        """Every alert of every notification received so far, in order."""
        with self._lock:
            return [alert for notification in self.notifications for alert in notification["alerts"]]

    def __enter__(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(DEADLINE_SECONDS)
