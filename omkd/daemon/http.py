"""The HTTP endpoints: /metrics, /healthz, /readyz, /api/v1/status, /api/v1/gaps.

Handlers only read what the daemon prepared: /metrics serves the last rendered snapshot,
so a scrape never waits on folding. Bad query parameters get a 400 naming them.
"""

from __future__ import annotations

import time
from typing import Final, Protocol

import orjson
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from omkd.engine import patterns
from omkd.engine.report import GapEntry, Report
from omkd.engine.timespec import parse_moment

MAX_GAPS: Final = 10_000
SHUTDOWN_GRACE: Final = 2.0
"""Seconds a request in progress may take to finish when the daemon stops."""


class StatusSource(Protocol):
    """What the HTTP layer asks the daemon for."""

    @property
    def ready(self) -> bool: ...

    def metrics_snapshot(self) -> bytes: ...

    def status(self, skills: list[str]) -> Report: ...

    def gaps(self, skill: str | None, kind: str | None, since: float | None, limit: int) -> list[GapEntry]: ...


def _json(document: object, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(document), status=status, content_type="application/json")


def _bad_request(message: str) -> web.Response:
    return _json({"error": message}, status=400)


def build_app(source: StatusSource) -> web.Application:
    routes = web.RouteTableDef()

    @routes.get("/metrics")
    async def metrics(_: web.Request) -> web.Response:
        return web.Response(body=source.metrics_snapshot(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    @routes.get("/healthz")
    async def healthz(_: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    @routes.get("/readyz")
    async def readyz(_: web.Request) -> web.Response:
        if source.ready:
            return web.Response(text="ready\n")
        return web.Response(text="starting: initial scan not done\n", status=503)

    @routes.get("/api/v1/status")
    async def status(request: web.Request) -> web.Response:
        unknown = set(request.query) - {"skill"}
        if unknown:
            return _bad_request(f"unknown parameter(s): {', '.join(sorted(unknown))}")
        report = source.status(request.query.getall("skill", []))
        return _json(report.model_dump(mode="json"))

    @routes.get("/api/v1/gaps")
    async def gaps(request: web.Request) -> web.Response:
        query = request.query
        unknown = set(query) - {"skill", "type", "since", "limit"}
        if unknown:
            return _bad_request(f"unknown parameter(s): {', '.join(sorted(unknown))}")
        kind = query.get("type")
        if kind is not None and kind not in patterns.SIGNAL_TYPES:
            return _bad_request(f"type must be one of {', '.join(patterns.SIGNAL_TYPES)}, not {kind!r}")
        since: float | None = None
        if "since" in query:
            try:
                since = parse_moment(query["since"], time.time())
            except ValueError as error:
                return _bad_request(f"since: {error}")
        limit_text = query.get("limit", "100")
        if not limit_text.isdigit() or not 1 <= int(limit_text) <= MAX_GAPS:
            return _bad_request(f"limit must be a whole number from 1 to {MAX_GAPS}, not {limit_text!r}")
        entries = source.gaps(query.get("skill"), kind, since, int(limit_text))
        return _json({"gaps": [e.model_dump(mode="json") for e in entries], "count": len(entries)})

    app = web.Application()
    app.add_routes(routes)
    return app


class HttpServer:
    """The endpoints on ``host:port`` (port 0: any free port, read back as ``port``)."""

    def __init__(self, source: StatusSource) -> None:
        self._source = source
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    async def start(self, host: str, port: int) -> None:
        runner = web.AppRunner(
            build_app(self._source), access_log=None, handle_signals=False, shutdown_timeout=SHUTDOWN_GRACE
        )
        await runner.setup()
        site = web.TCPSite(runner, host, port, reuse_address=True)
        await site.start()
        self._runner = runner
        server = site._server  # aiohttp exposes no public accessor for the bound port
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
