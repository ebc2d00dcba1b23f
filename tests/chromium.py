"""A real headless Chromium driven over the DevTools protocol, for the HTML report's tests.

Debian's ``chromium`` (installed by ``tests/setup-and-run.sh``) is started with a fresh profile
and every background connection off; the page is opened from ``file://`` and watched: console
messages, uncaught exceptions, log entries and every network request it makes. Screenshots and a
PDF print are taken through the same connection. Missing Chromium is a failure, never a skip.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiohttp
import pytest

START_TIMEOUT: Final = 30.0
FLAGS: Final = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--remote-debugging-port=0", "--hide-scrollbars",
)  # fmt: skip


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("chromium is not installed: tests/setup-and-run.sh installs Debian's chromium", pytrace=False)
    return found


@dataclass
class PageLog:
    console: list[tuple[str, str]] = field(default_factory=list)
    """(level, text) of every console message, exception and log entry."""
    requests: list[str] = field(default_factory=list)
    """Every URL the page asked for (its own file:// URL first)."""


class Page:
    """One tab: ``call`` sends a command and waits for its answer; events are logged as they come."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self._socket = socket
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._events: dict[str, asyncio.Event] = {}
        self.log = PageLog()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self._socket:
            data = message.json()
            if "id" in data and data["id"] in self._waiting:
                self._waiting.pop(data["id"]).set_result(data)
                continue
            method, params = data.get("method", ""), data.get("params", {})
            if method == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
                self.log.console.append((params.get("type", ""), text))
            elif method == "Runtime.exceptionThrown":
                self.log.console.append(("exception", str(params.get("exceptionDetails", {}))))
            elif method == "Log.entryAdded":
                entry = params.get("entry", {})
                self.log.console.append((entry.get("level", ""), entry.get("text", "")))
            elif method == "Network.requestWillBeSent":
                self.log.requests.append(params["request"]["url"])
            if method in self._events:
                self._events[method].set()

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = answer
        await self._socket.send_json({"id": ident, "method": method, "params": params})
        data = await asyncio.wait_for(answer, 30)
        if "error" in data:
            raise RuntimeError(f"{method}: {data['error']}")
        result: dict[str, Any] = data.get("result", {})
        return result

    def expect(self, event: str) -> asyncio.Event:
        self._events[event] = asyncio.Event()
        return self._events[event]

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def screenshot(self, path: Path, selector: str | None = None, width: int = 1200) -> None:
        """A PNG of the whole page, or of one element (scrolled to), at ``width`` CSS pixels."""
        await self.call(
            "Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False
        )
        clip = None
        if selector is not None:
            box = await self.evaluate(
                f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();"
                " return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; })()"
            )
            clip = {**box, "height": min(box["height"], 2400), "scale": 1}
        else:
            height = await self.evaluate("Math.min(document.documentElement.scrollHeight, 2400)")
            clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        shot = await self.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    async def pdf(self) -> bytes:
        printed = await self.call("Page.printToPDF", printBackground=True)
        return base64.b64decode(printed["data"])

    async def close(self) -> None:
        self._reader.cancel()
        await self._socket.close()


class Browser:
    """``async with Browser() as browser: page = await browser.open(path)``."""

    def __init__(self) -> None:
        # chromium may still be writing its profile as it exits: a leftover file is no failure
        self._profile = tempfile.TemporaryDirectory(prefix="omkd-chromium-", ignore_cleanup_errors=True)
        self._process: subprocess.Popen[bytes] | None = None
        self._session: aiohttp.ClientSession | None = None
        self._port = 0

    async def __aenter__(self) -> Browser:
        profile = Path(self._profile.name)
        self._process = subprocess.Popen(
            [chromium(), *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT
        active = profile / "DevToolsActivePort"
        while not active.exists() or not active.read_text().strip():
            if time.monotonic() > deadline or self._process.poll() is not None:
                raise RuntimeError("chromium did not start (no DevToolsActivePort)")
            await asyncio.sleep(0.05)
        self._port = int(active.read_text().split()[0])
        self._session = aiohttp.ClientSession()
        return self

    async def open(self, path: Path) -> Page:
        """A new tab watching everything, then ``path`` loaded in it (load event awaited)."""
        assert self._session is not None
        async with self._session.put(f"http://127.0.0.1:{self._port}/json/new?about:blank") as answer:
            target = await answer.json(content_type=None)
        socket = await self._session.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
        page = Page(socket)
        for domain in ("Runtime", "Log", "Network", "Page"):
            await page.call(f"{domain}.enable")
        loaded = page.expect("Page.loadEventFired")
        await page.call("Page.navigate", url=path.resolve().as_uri())
        await asyncio.wait_for(loaded.wait(), 30)
        await asyncio.sleep(0.2)  # late console messages or requests would come now
        return page

    async def __aexit__(self, *_: object) -> None:
        if self._session is not None:
            await self._session.close()
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
        self._profile.cleanup()
