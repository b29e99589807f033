"""``SqsHttpServer``: listening, stopping, and the one function every request goes to.

It is built on aiohttp's low-level server (``aiohttp.web.Server``): aiohttp is what users of
aiobotocore already have, its HTTP parser is in C, and the low-level server hands every request
to one function -- no router, no middleware -- which keeps the request path short. That function
(``handle``) passes the request through ``browsers.Guard`` (the ``Host`` allow-list, the
``Origin`` check, CORS) before anything runs, then hands it to the module that answers its path:
``admin`` (``/_sqsmock/``), ``localstack`` (``/_aws/sqs/messages``; ``/_localstack/`` in
LocalStack mode) or ``sqs`` (everything else). See docs/architecture.md.

Every connection starts in the express lane (``express``): plain SQS calls are read and answered
from the socket, through the same ``sqs.begin``; the first request that is anything else hands
the connection to aiohttp's handler, and from there to ``handle``.

A request aiohttp cannot parse as HTTP still gets an SQS query-protocol error (``_Connection``),
and a connection that idles or dawdles over a request head is closed after ``idle_timeout``.
Stopping lets the calls under way finish before the runtime closes (``close``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Iterable
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from ..._errors import SqsError
from ..._protocol import Result, developer
from ..._protocol.elasticmq_urls import ElasticMqUrls
from ..._protocol.http import ServerUrls, render
from ..._protocol.urls import LocalStackUrls
from ..._regions import shown
from ..._runtime import Runtime
from ..._service.addresses import QueueUrls
from . import admin, localstack, sqs
from .browsers import Guard
from .exchange import SqsResponse, request_of
from .express import Lane
from .localstack_mode import LocalStackMode
from .served import Metrics
from .sqs import BODY_LIMIT

__all__ = ["SqsHttpServer"]

log = logging.getLogger("sqsmock.server")

_HOST = re.compile(r"(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


class SqsHttpServer:
    """SQS and the admin API over HTTP for one ``Runtime``; ``start()`` on a running loop."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        read_timeout: float = 30.0,
        idle_timeout: float = 75.0,
        shutdown_timeout: float = 30.0,
        body_limit: int = BODY_LIMIT,
        allow_hosts: Iterable[str] = (),
        cors_origins: Iterable[str] = (),
        public_url: str | None = None,
        localstack: LocalStackMode | None = None,
        elasticmq: bool = False,
        node_address: str | None = None,
    ) -> None:
        self.runtime = runtime
        #: The scheme, host and port of every queue URL given out (``--public-url``), if fixed.
        self.public_url = public_url
        #: LocalStack's surface (``--localstack``): URL strategy, health, init scripts.
        self.localstack = localstack
        #: ElasticMQ mode: one namespace whatever region or account a caller names, ElasticMQ's
        #: queue URLs (on ``node_address``, the base its conf gives, if any).
        self.elasticmq = elasticmq
        self.node_address = node_address
        if elasticmq:
            runtime.backend.one_namespace = True
        #: Who may call: the ``Host`` allow-list and the web origins allowed (``browsers``).
        self.guard = Guard(allow_hosts, cors_origins)
        #: Seconds a request body may take to arrive.
        self.read_timeout = read_timeout
        #: Seconds a connection may sit idle, or send a request's head, before it is closed.
        self.idle_timeout = idle_timeout
        #: Seconds ``close()`` waits for calls under way.
        self.shutdown_timeout = shutdown_timeout
        self.body_limit = body_limit
        self.metrics = Metrics()
        self.host = ""
        self.port = 0
        self._urls: dict[str, QueueUrls] = {}
        self._web: _WebServer | None = None
        self._listener: asyncio.AbstractServer | None = None
        self._lane: Lane | None = None
        self._stopping = False
        self._in_flight = 0  # requests being handled
        self._idle = asyncio.Event()

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (port 0: any free port; ``self.port`` tells which)."""
        loop = asyncio.get_running_loop()
        self._web = _WebServer(
            self.handle,
            request_factory=self._make_request,
            handler_cancellation=True,  # a client that hangs up ends its long poll
            keepalive_timeout=self.idle_timeout,
            # After refusing a body unread, read and drop the rest for a moment (so that the
            # client sees the answer rather than a reset), then close.
            lingering_time=1.0,
            access_log=None,
        )
        lane = self._lane = Lane(
            self, self.guard, self._web, self.idle_timeout, self._call_started, self._call_ended
        )
        listener = await loop.create_server(lane, host, port, reuse_address=True, backlog=1024)
        ports = {int(sock.getsockname()[1]) for sock in listener.sockets}
        if len(ports) > 1:  # port 0 on a name with several addresses (localhost: v4 and v6)
            chosen = int(listener.sockets[0].getsockname()[1])
            listener.close()
            await listener.wait_closed()
            listener = await loop.create_server(
                lane, host, chosen, reuse_address=True, backlog=1024
            )
        self._listener = listener
        self.host, self.port = host, int(listener.sockets[0].getsockname()[1])

    def run_init_scripts(self) -> None:
        """LocalStack mode: run the ready-stage init scripts, now that the server answers."""
        mode = self.localstack
        if mode is not None:
            runtime = self.runtime
            mode.scripts.start(mode.script_environment(self.port, runtime.region))

    async def close(self) -> None:
        """Stop listening, end long polls (they answer empty), finish the calls under way, and
        close the runtime: after this its store holds everything the calls wrote. In LocalStack
        mode, the init scripts and whatever they left running are stopped too.

        Requests already being handled -- even those whose body is still arriving -- are
        answered normally; requests that arrive on open connections from now on get
        ``ServiceUnavailable`` and their connection closes. Only then are connections closed
        (aiohttp drops the bytes of a connection it is closing, which would strand a request
        whose body has not arrived yet)."""
        listener, web_server = self._listener, self._web
        self._listener = None
        self._stopping = True
        scripts = None  # LocalStack mode: its init scripts stop with the server, meanwhile
        if self.localstack is not None:
            scripts = asyncio.get_running_loop().run_in_executor(None, self.localstack.scripts.stop)
        lane = self._lane
        if lane is not None:
            lane.stopping = True
        if listener is not None:
            listener.close()
        backend = self.runtime.backend_or_none
        if backend is not None:
            backend.end_waits()  # long polls end now; other calls still run and write
        if self._in_flight:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._idle.wait(), self.shutdown_timeout)
        self.runtime.close()
        if lane is not None:
            lane.close()
        if web_server is not None:
            pre_shutdown = getattr(web_server, "pre_shutdown", None)  # aiohttp >= 3.10
            if pre_shutdown is not None:
                pre_shutdown()
            await web_server.shutdown(self.shutdown_timeout)
        if listener is not None:
            await listener.wait_closed()
        if scripts is not None:
            await scripts

    def _make_request(
        self, message: Any, payload: Any, protocol: Any, writer: Any, task: Any
    ) -> Any:
        return BaseRequest(
            message,
            payload,
            protocol,
            writer,
            task,
            asyncio.get_running_loop(),
            client_max_size=self.body_limit,
        )

    # -- requests ---------------------------------------------------------------------------

    async def handle(self, request: BaseRequest) -> web.StreamResponse:
        headers = request.headers
        refused = self.guard.refusal(headers)
        if refused is not None:
            return self._block(request, refused)
        origin = headers.get("Origin")  # allowed, if any: the guard passed it
        if (
            origin is not None
            and request.method == "OPTIONS"
            and "Access-Control-Request-Method" in headers
        ):
            return web.Response(status=204, headers=self.guard.preflight_headers(origin, headers))
        if self._stopping:
            response = sqs.refuse(self, request_of(request), SqsError("ServiceUnavailable"))
        else:
            self._call_started()
            try:
                path = request.path
                if path.startswith(admin.PATH):
                    response = await admin.answer(self, request)
                elif path.startswith(developer.PATH):
                    response = await localstack.messages(self, request)
                elif path.startswith(localstack.PATH) and self.localstack is not None:
                    response = await localstack.answer(self, request)
                elif self.localstack is not None and localstack.is_root_probe(request):
                    response = localstack.root()
                else:
                    response = await sqs.answer(self, request)
            finally:
                self._call_ended()
        if origin is not None:
            if isinstance(response, SqsResponse):
                response.add_headers(self.guard.cors_headers(origin))
            else:
                response.headers.update(self.guard.cors_headers(origin))
        return response

    def _call_started(self) -> None:
        self._in_flight += 1

    def _call_ended(self) -> None:
        self._in_flight -= 1
        if not self._in_flight and self._stopping:
            self._idle.set()  # what close() waits for

    def _block(self, request: BaseRequest, reason: str) -> web.StreamResponse:
        """403 for a request the guard refused: nothing ran, its body is not read."""
        log.warning("refused %s %s: %s", request.method, shown(request.path), reason.strip())
        response = web.Response(
            status=403,
            body=reason.encode("utf-8", "backslashreplace"),
            content_type="text/plain",
            charset="utf-8",
            headers={"X-Content-Type-Options": "nosniff"},
        )
        response.force_close()
        return response

    def urls(self, host: str | None) -> QueueUrls:
        """Queue URLs as the client sees the server: from the request's ``Host``, unless a
        public URL is fixed; in LocalStack's forms in LocalStack mode."""
        urls = self._urls.get(host) if host else None  # only hosts of the right form are kept
        if urls is None:
            if not host or not _HOST.fullmatch(host):
                host = f"{self.host}:{self.port}"
                urls = self._urls.get(host)
            if urls is None:
                if len(self._urls) > 256:
                    self._urls.clear()
                urls = self._urls[host] = self._make_urls(host)
        return urls

    def _make_urls(self, host: str) -> QueueUrls:
        public, mode = self.public_url, self.localstack
        if self.elasticmq:
            node = self.node_address  # "*/<context-path>": the request's host, then that path
            if node is not None and node.startswith("*"):
                node = f"http://{host}{node[1:]}"
            return ElasticMqUrls(public or node or f"http://{host}")
        if mode is None:
            return ServerUrls(public or f"http://{host}")
        if public is not None:  # every form on the public URL's host
            scheme, public_host = public.split("://", 1)
            return LocalStackUrls(mode.strategy, scheme, public_host, public_host)
        return LocalStackUrls(mode.strategy, "http", mode.url_host(self.port), host)


# -- aiohttp's connection handler, answering unparseable HTTP in SQS's format ----------------


class _Connection(RequestHandler):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        # aiohttp < 3.10 starts its idle timer only after a first request: a client that
        # opens a connection and dawdles over the first request's head is cut off here.
        timeout = self.keepalive_timeout
        if getattr(self, "_keepalive_handle", True) is None and timeout:
            asyncio.get_running_loop().call_later(timeout, self._first_head_timeout)

    def _first_head_timeout(self) -> None:
        if getattr(self, "_request_count", 1) == 0 and self.transport is not None:
            self.force_close()

    def handle_error(
        self,
        request: BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """aiohttp could not read a request (or, never expected, a handler raised): an SQS
        error in the query protocol's format, since the protocol could not be known."""
        if isinstance(exc, ConnectionError):  # the client went away mid-request
            log.debug("connection lost: %s", exc)
            error = SqsError("MalformedHttpRequest", reason="connection lost")
        elif status >= 500:
            log.error("sqsmock failed to answer a request", exc_info=exc)
            error = SqsError("InternalFailure")
        else:
            log.debug("unreadable request: %s", exc)
            reason = getattr(exc, "message", None) or message or "unreadable request"
            error = SqsError("MalformedHttpRequest", reason=str(reason).rstrip("."))
        answer = render("query", Result("", status if status >= 400 else 400, None, error))
        response = web.Response(status=answer.status, body=answer.body, headers=answer.headers)
        response.force_close()
        return response


class _WebServer(web.Server):
    def __call__(self) -> RequestHandler:
        return _Connection(self, loop=self._loop, **self._kwargs)
