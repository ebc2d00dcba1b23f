"""The HTTP endpoints: /metrics, /healthz, /readyz, /api/v1/status, /api/v1/gaps, /api/v1/impact,
and /runbook (the README's Runbook, where the alerts' ``runbook_url`` points).

Handlers only read what the daemon prepared: /metrics serves the last rendered snapshot,
so a scrape never waits on folding. Bad query parameters get a 400 naming them.

No client can exhaust the daemon's descriptors: a connection must deliver a whole request
within ``REQUEST_TIMEOUT`` of opening (or of its previous response plus the keep-alive time),
or it is closed; at most ``MAX_CONNECTIONS`` are open, and a new one beyond that closes the one
nearest its deadline that is not being answered (a half-sent request, an idle keep-alive).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol

import orjson
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from omkd.api import MAX_GAPS, SKILLS_PAGE, SKILLS_TOTAL_HEADER
from omkd.engine import formats, patterns
from omkd.engine.impact.query import ImpactQuery
from omkd.engine.impact.schema import ImpactReport
from omkd.engine.records import fields_data, to_data
from omkd.engine.report.schema import GapEntry, Report, iso
from omkd.engine.timespec import parse_duration, parse_moment
from omkd.render import runbook as runbook_page
from omkd.shell.readme import running_readme

WHOLE_NUMBER: Final = re.compile(r"[0-9]{1,9}")
"""ASCII digits only: ``str.isdigit`` also accepts "²", which ``int()`` refuses."""
REQUEST_TIMEOUT: Final = 10.0
"""Seconds a client has to deliver a whole request (headers included)."""
KEEPALIVE_TIMEOUT: Final = 15.0
MAX_CONNECTIONS: Final = 256
REAP_EVERY: Final = 1.0
SHUTDOWN_GRACE: Final = 2.0
"""Seconds a request in progress may take to finish when the daemon stops."""


class StatusSource(Protocol):
    """What the HTTP layer asks the daemon for."""

    @property
    def ready(self) -> bool: ...
    @property
    def missing_roots(self) -> tuple[str, ...]:
        """Configured roots that do not exist (watched for on every rescan)."""

    @property
    def roots(self) -> int: ...

    def metrics_snapshot(self) -> bytes: ...

    async def status(self, skills: list[str], agents: list[str] | None = None) -> Report: ...

    async def gaps(
        self, skill: str | None, kind: str | None, since: float | None, limit: int, agent: str | None = None
    ) -> tuple[list[GapEntry], int, int]:
        """The newest gaps in the window, how many older ones (outside it) are kept, and how many
        the window holds."""

    def outside_window(self) -> tuple[int, float | None]:
        """Segments read outside the window, and the newest one's last event."""

    async def impact(self, query: ImpactQuery) -> ImpactReport:
        """The effect of each knowledge change over the window's segments (``omkd impact``)."""

    def impact_query(self) -> ImpactQuery:
        """The query as the config sets it (``[impact]``), before a request's parameters."""


def _json(document: object, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(document), status=status, content_type="application/json")


def _bad_request(message: str) -> web.Response:
    return _json({"error": message}, status=400)


def _impact_query(request: web.Request, configured: ImpactQuery) -> ImpactQuery | str:
    """The query of ``/api/v1/impact`` (``omkd impact``'s options over the ``configured`` one), or
    what is wrong with it."""
    query = request.query
    unknown = set(query) - {"skill", "agent", "span", "since"}
    if unknown:
        return f"unknown parameter(s): {', '.join(sorted(unknown))}"
    agents = query.getall("agent", [])
    if any(a not in formats.AGENTS for a in agents):
        return f"agent must be one of {', '.join(formats.AGENTS)}"
    try:
        span = parse_duration(query["span"], bare_unit="d") if "span" in query else configured.span
        since = parse_moment(query["since"], time.time()) if "since" in query else None
    except (ValueError, OverflowError) as error:
        return f"span or since: {error}"
    if not 0 < span < math.inf:
        return "span must be longer than 0"
    skills = query.getall("skill", [])
    return dataclasses.replace(
        configured, span=span, since=since, skills=set(skills) or None, agents=set(agents) or None
    )


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
        missing = source.missing_roots
        if source.ready and len(missing) == source.roots:
            # nothing to read: not ready, and the answer says where it looked
            return web.Response(text="".join(f"not ready: no such root: {root}\n" for root in missing), status=503)
        if source.ready:
            return web.Response(text="ready\n" + "".join(f"missing root: {root}\n" for root in missing))
        return web.Response(text="starting: initial scan not done\n", status=503)

    @routes.get("/runbook")
    async def runbook(_: web.Request) -> web.Response:
        readme = running_readme()
        if readme is None:
            return web.Response(text="no README found: this omkd was installed without one\n", status=404)
        return web.Response(text=runbook_page.page(readme), content_type="text/html")

    @routes.get("/api/v1/status")
    async def status(request: web.Request) -> web.Response:
        query = request.query
        unknown = set(query) - {"skill", "agent", "limit", "offset"}
        if unknown:
            return _bad_request(f"unknown parameter(s): {', '.join(sorted(unknown))}")
        paging: list[int] = []
        for name, default, least in (("offset", "0", 0), ("limit", str(SKILLS_PAGE), 1)):
            text = query.get(name, default)
            if not WHOLE_NUMBER.fullmatch(text) or int(text) < least:
                return _bad_request(f"{name} must be a whole number of at least {least}, not {text!r}")
            paging.append(int(text))
        offset, limit = paging
        agents = query.getall("agent", [])
        if any(a not in formats.AGENTS for a in agents):
            return _bad_request(f"agent must be one of {', '.join(formats.AGENTS)}")
        report = await source.status(query.getall("skill", []), agents)
        document = fields_data(report, frozenset({"skills"}))
        # Skills are paged (most segments first): 5,000 skills would be megabytes in one answer.
        document["skills"] = to_data(report.skills[offset : offset + limit])
        response = _json(document)
        response.headers[SKILLS_TOTAL_HEADER] = str(len(report.skills))  # the body stays a Report
        return response

    @routes.get("/api/v1/gaps")
    async def gaps(request: web.Request) -> web.Response:
        query = request.query
        unknown = set(query) - {"skill", "agent", "type", "since", "limit"}
        if unknown:
            return _bad_request(f"unknown parameter(s): {', '.join(sorted(unknown))}")
        kind = query.get("type")
        if kind is not None and kind not in patterns.SIGNAL_TYPES:
            return _bad_request(f"type must be one of {', '.join(patterns.SIGNAL_TYPES)}, not {kind!r}")
        since: float | None = None
        if "since" in query:
            try:
                since = parse_moment(query["since"], time.time())
            except (ValueError, OverflowError) as error:
                return _bad_request(f"since: {error}")
        limit_text = query.get("limit", "100")
        if not WHOLE_NUMBER.fullmatch(limit_text) or not 1 <= int(limit_text) <= MAX_GAPS:
            return _bad_request(f"limit must be a whole number from 1 to {MAX_GAPS}, not {limit_text!r}")
        agent = query.get("agent")
        if agent is not None and agent not in formats.AGENTS:
            return _bad_request(f"agent must be one of {', '.join(formats.AGENTS)}, not {agent!r}")
        entries, older, total = await source.gaps(query.get("skill"), kind, since, int(limit_text), agent)
        outside, newest = source.outside_window()
        return _json({
            "gaps": to_data(entries), "count": len(entries), "total": total, "older": older,
            "outside_window": outside, "newest_outside_window": iso(newest),
        })  # fmt: skip

    @routes.get("/api/v1/impact")
    async def impact(request: web.Request) -> web.Response:
        asked = _impact_query(request, source.impact_query())
        if isinstance(asked, str):
            return _bad_request(asked)
        return _json(to_data(await source.impact(asked)))

    app = web.Application()
    app.add_routes(routes)
    return app


class ConnectionGuard:
    """Deadlines and a cap for the open connections (see the module docstring)."""

    def __init__(self, cap: int = MAX_CONNECTIONS, request_timeout: float = REQUEST_TIMEOUT) -> None:
        self.cap = cap
        self.request_timeout = request_timeout
        self.deadlines: dict[asyncio.BaseTransport, float] = {}
        """Monotonic deadline per open connection; infinity while a request is being answered."""
        self.closed_by_guard = 0

    def opened(self, transport: asyncio.BaseTransport) -> None:
        if len(self.deadlines) >= self.cap:
            waiting = [(deadline, id(t), t) for t, deadline in self.deadlines.items() if deadline < math.inf]
            if not waiting:
                self._close(transport)
                return
            self._close(min(waiting, key=lambda item: item[:2])[2])
        self.deadlines[transport] = time.monotonic() + self.request_timeout

    def closed(self, transport: asyncio.BaseTransport) -> None:
        self.deadlines.pop(transport, None)

    def answering(self, transport: asyncio.BaseTransport | None) -> None:
        if transport in self.deadlines:
            self.deadlines[transport] = math.inf

    def answered(self, transport: asyncio.BaseTransport | None) -> None:
        if transport in self.deadlines:
            self.deadlines[transport] = time.monotonic() + KEEPALIVE_TIMEOUT + self.request_timeout

    def reap(self) -> None:
        now = time.monotonic()
        for transport, deadline in list(self.deadlines.items()):
            if deadline <= now:
                self._close(transport)

    def _close(self, transport: asyncio.BaseTransport) -> None:
        self.deadlines.pop(transport, None)
        self.closed_by_guard += 1
        abort = getattr(transport, "abort", None)
        if abort is not None:
            abort()  # frees the descriptor now, unlike close() with data still buffered
        else:
            transport.close()

    def middleware(self) -> Callable[..., Awaitable[web.StreamResponse]]:
        @web.middleware
        async def track(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
            self.answering(request.transport)
            try:
                return await handler(request)
            finally:
                self.answered(request.transport)

        return track


class _Guarded(asyncio.Protocol):
    """aiohttp's protocol for one connection, told to the guard when it opens and closes."""

    def __init__(self, inner: asyncio.Protocol, guard: ConnectionGuard) -> None:
        self._inner = inner
        self._guard = guard
        self._transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        self._guard.opened(transport)
        self._inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._transport is not None:
            self._guard.closed(self._transport)
        self._inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()


class HttpServer:
    """The endpoints on ``host:port`` (port 0: any free port, read back as ``port``)."""

    def __init__(self, source: StatusSource) -> None:
        self._source = source
        self._runner: web.AppRunner | None = None
        self._server: asyncio.Server | None = None
        self._reaper: asyncio.Task[None] | None = None
        self.guard = ConnectionGuard()
        self.port: int | None = None

    async def start(self, host: str, port: int) -> None:
        app = build_app(self._source)
        app.middlewares.append(self.guard.middleware())
        runner = web.AppRunner(
            app,
            access_log=None,
            handle_signals=False,
            shutdown_timeout=SHUTDOWN_GRACE,
            keepalive_timeout=KEEPALIVE_TIMEOUT,
        )
        await runner.setup()
        handlers = runner.server
        assert handlers is not None
        guard = self.guard
        self._server = await asyncio.get_running_loop().create_server(
            lambda: _Guarded(handlers(), guard), host, port, reuse_address=True, backlog=128
        )
        self._runner = runner
        sockets = self._server.sockets
        self.port = sockets[0].getsockname()[1] if sockets else port
        self._reaper = asyncio.create_task(self._reap(), name="http-reaper")

    async def _reap(self) -> None:
        while True:
            await asyncio.sleep(REAP_EVERY)
            self.guard.reap()

    async def stop(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None
        server, self._server = self._server, None
        if server is not None:
            server.close()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.shutdown()
            await runner.cleanup()
