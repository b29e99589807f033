"""The HTTP adapter: SQS on a TCP port, for the AWS CLI, every SDK and every process.

A sibling of the botocore adapter, calling down the same way: each request becomes an
``HttpRequest`` for the protocol layer (``parse``: AWS JSON 1.0 or the query protocol, chosen
per request), the call runs through ``Runtime.call_async`` -- on the event loop, where it takes
microseconds, or in a thread when the engine writes to a store -- and the ``Result`` is rendered
back in the request's protocol. A long poll awaits on the loop and holds no thread.

It is built on aiohttp's low-level server (``aiohttp.web.Server``): aiohttp is what users of
aiobotocore already have, its HTTP parser is in C, and the low-level server hands every request
to one function -- no router, no middleware -- which keeps the request path short. See
docs/architecture.md.

Bad input over the wire is answered with a 4xx in SQS's format for the request's protocol and
the server goes on serving: bodies over ``BODY_LIMIT`` are refused by their ``Content-Length``
(or as soon as a chunked body passes it) without being read whole, a body that does not arrive
within ``read_timeout`` gets 408, and even a request aiohttp cannot parse as HTTP gets an SQS
query-protocol error. Only a fault of sqsmock itself answers 500 (``InternalFailure``).

``/_sqsmock/...`` is not SQS: it is the admin API (health, reset, the clock, queues, a peek at a
queue's messages, Prometheus metrics, the call journal, fault injection), what users of other
languages have instead of the Python handle.

Web pages the user opens can reach a local server too: before anything runs, every request passes
``_browsers.Guard`` (the ``Host`` allow-list, the ``Origin`` check, CORS). SQS runs only for GET
and POST; admin requests that change state take POST or DELETE with a JSON content type, which
no page can send without the server's consent. A region named by a request (its credential
scope, a queue URL) must be of AWS's form (``_regions``) before it reaches the runtime.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import math
import re
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from ..._errors import SqsError
from ..._protocol import Result, developer
from ..._protocol.http import (
    HttpAnswer,
    HttpRequest,
    Parsed,
    ServerUrls,
    error_answer,
    parse,
    render,
)
from ..._protocol.urls import LOCALSTACK_DOMAIN, LocalStackUrls
from ..._regions import is_region, shown
from ..._runtime import Runtime
from ..._service import ACTIONS, QueueUrls
from ..._store import errors as store_errors
from ..._testing import admin
from ..._version import __version__
from . import ui
from .browsers import Guard
from .localstack_mode import LocalStackMode, health_document

__all__ = ["BODY_LIMIT", "Metrics", "SqsHttpServer"]

log = logging.getLogger("sqsmock.server")


#: SQS's largest message (and largest batch), in bytes of UTF-8 text and attribute values.
MESSAGE_LIMIT = 1024 * 1024
#: The largest request body accepted. Encoding inflates a valid request up to fourfold: JSON
#: escapes a 2-byte UTF-8 character as ``\\u00e9`` (3x), a form percent-encodes every byte of
#: UTF-8 (3x) and every ``+`` or ``/`` of a base64 binary value (4/3 x 3 = 4x). The envelope
#: (ids, attribute names, types, the queue URL) of the largest batch fits in 64 KiB.
BODY_LIMIT = 4 * MESSAGE_LIMIT + 64 * 1024

_ADMIN = "/_sqsmock/"
_LOCALSTACK = "/_localstack/"
_ADMIN_BODY_LIMIT = 64 * 1024
#: The methods SQS answers (the query protocol's GET included, as AWS does).
_SQS_METHODS = ("GET", "POST")
#: The journal's and fault rules' routes, and the methods each takes.
_FAILURE_METHODS = {"calls": ("GET", "DELETE"), "faults": ("GET", "POST", "DELETE")}
_HOST = re.compile(r"(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


class Metrics:
    """Counters for ``GET /_sqsmock/metrics``: calls by operation and outcome."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = {}

    def count(self, operation: str, outcome: str) -> None:
        key = (operation if operation in ACTIONS else "unknown", outcome)
        calls = self.calls
        calls[key] = calls.get(key, 0) + 1


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
    ) -> None:
        self.runtime = runtime
        #: The scheme, host and port of every queue URL given out (``--public-url``), if fixed.
        self.public_url = public_url
        #: LocalStack's surface (``--localstack``): URL strategy, health, init scripts.
        self.localstack = localstack
        #: Who may call: the ``Host`` allow-list and the web origins allowed (``_browsers``).
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
        listener = await loop.create_server(self._web, host, port, reuse_address=True, backlog=1024)
        ports = {int(sock.getsockname()[1]) for sock in listener.sockets}
        if len(ports) > 1:  # port 0 on a name with several addresses (localhost: v4 and v6)
            chosen = int(listener.sockets[0].getsockname()[1])
            listener.close()
            await listener.wait_closed()
            listener = await loop.create_server(
                self._web, host, chosen, reuse_address=True, backlog=1024
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
        close the runtime: after this its store holds everything the calls wrote.

        Requests already being handled -- even those whose body is still arriving -- are
        answered normally; requests that arrive on open connections from now on get
        ``ServiceUnavailable`` and their connection closes. Only then are connections closed
        (aiohttp drops the bytes of a connection it is closing, which would strand a request
        whose body has not arrived yet)."""
        listener, web_server = self._listener, self._web
        self._listener = None
        self._stopping = True
        if listener is not None:
            listener.close()
        backend = self.runtime.backend_or_none
        if backend is not None:
            backend.end_waits()  # long polls end now; other calls still run and write
        if self._in_flight:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._idle.wait(), self.shutdown_timeout)
        self.runtime.close()
        if web_server is not None:
            pre_shutdown = getattr(web_server, "pre_shutdown", None)  # aiohttp >= 3.10
            if pre_shutdown is not None:
                pre_shutdown()
            await web_server.shutdown(self.shutdown_timeout)
        if listener is not None:
            await listener.wait_closed()

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
            response = self._refuse(_request_of(request), SqsError("ServiceUnavailable"))
        else:
            self._in_flight += 1
            self._idle.clear()
            try:
                path = request.path
                if path.startswith(_ADMIN):
                    response = await self._admin(request)
                elif path.startswith(developer.PATH):
                    response = await self._developer(request)
                elif path.startswith(_LOCALSTACK) and self.localstack is not None:
                    response = await self._localstack(request)
                else:
                    response = await self._sqs(request)
            finally:
                self._in_flight -= 1
                if not self._in_flight:
                    self._idle.set()
        if origin is not None:
            response.headers.update(self.guard.cors_headers(origin))
        return response

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
        if mode is None:
            return ServerUrls(public or f"http://{host}")
        scheme, request_host = "http", host
        if public is not None:
            scheme, request_host = public.split("://", 1)
        return LocalStackUrls(
            mode.strategy, scheme, mode.host or f"{LOCALSTACK_DOMAIN}:{self.port}", request_host
        )

    # -- LocalStack's surface ---------------------------------------------------------------

    async def _developer(self, request: BaseRequest) -> web.StreamResponse:
        """``/_aws/sqs/messages``: LocalStack's SQS developer endpoint, in every mode."""
        http = _request_of(request)
        json_wanted = "application/json" in request.headers.get("Accept", "")
        try:
            if request.method not in ("GET", "POST", "DELETE"):
                return _json({"error": "use GET, POST or DELETE"}, 405, Allow="GET, POST, DELETE")
            body = await self._read(request, http)
            if isinstance(body, web.StreamResponse):
                return body
            http.body = body
            http.query = list(request.rel_url.query.items())
            runtime = self.runtime
            call = developer.parse_developer(
                http,
                region=runtime.region,
                account=runtime.account,
                urls=self.urls(request.headers.get("Host")),
            )
            if call.caller.region != runtime.region and not is_region(call.caller.region):
                raise SqsError("CredentialScopeRegion", region=shown(call.caller.region))
            backend = runtime.backend
            result = await runtime.run_engine(lambda: developer.answer(backend, call))
            protocol = call.protocol
        except SqsError as error:
            result = Result.of_error("ReceiveMessage", error)
            protocol = "json" if "x-amz-target" in request.headers else "query"
        if protocol == "json":
            return _response(render("json", result))
        answer = render("query", result)
        if json_wanted:
            return web.Response(
                status=answer.status,
                body=developer.as_json_document(answer.body),
                content_type="application/json",
            )
        return _response(answer)

    async def _localstack(self, request: BaseRequest) -> web.StreamResponse:
        """``/_localstack/health``, ``/_localstack/init`` and ``/_localstack/init/<stage>``."""
        mode = self.localstack
        assert mode is not None
        route = request.path[len(_LOCALSTACK) :].strip("/")
        if request.method not in ("GET", "HEAD"):
            return _json({"error": f"use GET for /_localstack/{route}"}, 405, Allow="GET, HEAD")
        if route == "health":
            return _json(health_document(f"{__version__} (sqsmock)"))
        if route == "init":
            return _json(mode.scripts.document())
        if route.startswith("init/"):
            found = mode.scripts.stage_document(route[len("init/") :])
            if found is not None:
                return _json(found)
        return _json({"error": f"no such endpoint /_localstack/{route}"}, 404)

    async def _sqs(self, request: BaseRequest) -> web.StreamResponse:
        headers = request.headers
        if request.method not in _SQS_METHODS:
            self.metrics.count("", "MethodNotAllowed")
            response = web.Response(
                status=405,
                text=f"SQS takes GET and POST, not {request.method}.\n",
                content_type="text/plain",
                headers={"Allow": ", ".join(_SQS_METHODS)},
            )
            response.force_close()  # the body, if any, is not read
            return response
        http = _request_of(request)
        try:
            length = request.content_length
            if length is not None and length > self.body_limit:
                return self._refuse(http, SqsError("RequestEntityTooLarge", limit=self.body_limit))
            body = await self._read(request, http)
            if isinstance(body, web.StreamResponse):
                return body
            http.body = body
            try:
                raw = request.rel_url.raw_query_string
                http.query = parse_qsl(raw, keep_blank_values=True, errors="strict") if raw else []
            except UnicodeDecodeError as error:
                raise SqsError("MalformedQueryString", reason=error.reason) from None
            runtime = self.runtime
            if runtime.backend_or_none is None:  # stopping
                raise SqsError("ServiceUnavailable")
            parsed = parse(
                http,
                region=runtime.region,
                account=runtime.account,
                urls=self.urls(headers.get("Host")),
            )
            _check_regions(parsed)
            result = await runtime.call_async(
                parsed.operation, parsed.params, parsed.caller, remote=True
            )
            failed = result.error
            outcome = "ok" if failed is None else failed.shape
            self.metrics.count(result.operation, outcome)
            if log.isEnabledFor(logging.DEBUG):  # `sqsmock serve --log-level debug`
                log.debug(
                    "%s (%s) %s: %s", result.operation, parsed.protocol, result.status, outcome
                )
            return _response(render(parsed.protocol, result))
        except SqsError as error:
            self.metrics.count("", error.shape)
            log.debug("refused %s %s: %s", request.method, request.path, error)
            return _response(error_answer(http, error))
        except ConnectionError:  # the client went away: nobody to answer, nothing to log
            raise
        except Exception:
            log.exception("sqsmock failed to answer %s %s", request.method, request.path)
            fault = SqsError(
                "ServiceUnavailable" if self.runtime.backend_or_none is None else "InternalFailure"
            )
            self.metrics.count("", fault.shape)
            return _response(error_answer(http, fault))

    async def _read(self, request: BaseRequest, http: HttpRequest) -> bytes | web.StreamResponse:
        """The whole body, or the answer refusing it (too large, too slow, broken)."""
        try:
            if request.content.is_eof():  # all there already: the common case
                return await request.read()
            await _continue(request)
            return await asyncio.wait_for(request.read(), self.read_timeout)
        except web.HTTPRequestEntityTooLarge:
            return self._refuse(http, SqsError("RequestEntityTooLarge", limit=self.body_limit))
        except asyncio.TimeoutError:
            return self._refuse(http, SqsError("RequestTimeout", seconds=f"{self.read_timeout:g}"))
        except (ConnectionError, asyncio.CancelledError):
            raise
        except Exception as error:  # a broken chunked encoding or compression, a body cut short
            reason = str(error).strip().replace("\n", " ") or type(error).__name__
            # Nothing more can be read: close after answering instead of lingering to read on.
            request.content.feed_eof()
            return self._refuse(http, SqsError("MalformedHttpRequest", reason=reason))

    def _refuse(self, http: HttpRequest, error: SqsError) -> web.StreamResponse:
        """An error answer after which the connection closes: the rest of the body is unread."""
        self.metrics.count("", error.shape)
        response = _response(error_answer(http, error))
        response.force_close()
        return response

    # -- the admin API ----------------------------------------------------------------------

    async def _admin(self, request: BaseRequest) -> web.StreamResponse:
        runtime = self.runtime
        route = request.path[len(_ADMIN) :].strip("/")
        method = request.method
        try:
            if runtime.backend_or_none is None:
                return _json({"error": "sqsmock is stopping"}, 503)
            if route.split("/")[0] in _FAILURE_METHODS:
                return await self._failure(request, route)
            handler, wanted = self._admin_route(route)
            if handler is None:
                return _json({"error": f"no admin endpoint /_sqsmock/{route}"}, 404)
            if method != wanted and not (wanted == "GET" and method == "HEAD"):
                allow = "GET, HEAD" if wanted == "GET" else wanted
                return _json({"error": f"use {wanted} for /_sqsmock/{route}"}, 405, Allow=allow)
            if wanted != "GET":
                _require_json(request, route)
            response: web.StreamResponse = await handler(request, route)
            return response
        except _AdminError as error:
            return _json({"error": error.text}, error.status)
        except ConnectionError:
            raise
        except store_errors.PersistenceError as error:  # the store is away: retry later
            log.warning("sqsmock answered %s %s with 503: %s", method, request.path, error)
            return _json({"error": f"the persistence store is unavailable: {error}"}, 503)
        except Exception:
            log.exception("sqsmock failed to answer %s %s", method, request.path)
            return _json({"error": "internal failure; see the server's log"}, 500)

    def _admin_route(self, route: str) -> tuple[Any, str]:
        fixed = {
            "health": (self._health, "GET"),
            "reset": (self._reset, "POST"),
            "clock": (self._clock, "GET"),
            "clock/advance": (self._advance, "POST"),
            "queues": (self._queues, "GET"),
            "messages": (self._messages, "GET"),
            "wait": (lambda request, route: _wait(self, request), "POST"),
            "metrics": (self._metrics, "GET"),
            **ui.ROUTES,  # the web UI: /_sqsmock/ui/
        }
        found = fixed.get(route)
        if found is not None:
            return found
        parts = route.split("/")
        if len(parts) == 5 and parts[0] == "queues" and parts[4] == "messages":
            return self._messages, "GET"
        return None, ""

    async def _failure(self, request: BaseRequest, route: str) -> web.StreamResponse:
        """``/_sqsmock/calls`` (the call journal) and ``/_sqsmock/faults`` (fault injection):
        answered by ``_testing.admin``, the same for every front end."""
        parts = route.split("/")
        if len(parts) == 1:
            methods = _FAILURE_METHODS[parts[0]]
        elif parts[0] == "faults" and len(parts) == 2 and parts[1]:
            methods = ("DELETE",)  # one rule
        else:
            raise _AdminError(404, f"no admin endpoint /_sqsmock/{route}")
        if request.method not in methods:
            allow = ", ".join(methods)
            return _json({"error": f"use {allow} for /_sqsmock/{route}"}, 405, Allow=allow)
        if request.method != "GET":
            _require_json(request, route)
        body = b""
        if request.method == "POST":
            body = await self._admin_raw(
                request, "the body is over 64 KiB", "the body could not be read"
            )
        found = admin.answer(self.runtime, request.method, request.path, request.query, body)
        if found is None:
            raise _AdminError(404, f"no admin endpoint {request.path}")
        status, payload = found
        return web.Response(status=204) if payload is None else _json(payload, status)

    async def _health(self, request: BaseRequest, route: str) -> web.StreamResponse:
        """200 while calls can be answered; 503 with the reason while the store is away (the
        lease heals by itself when it is back)."""
        runtime = self.runtime
        healthy, reason = runtime.health()
        payload: dict[str, Any] = {
            "status": "ok" if healthy else "unavailable",
            "version": __version__,
            "queues": len(runtime.backend.queues()),
            "region": runtime.region,
            "account": runtime.account,
        }
        if not healthy:
            payload["reason"] = reason
        return _json(payload, 200 if healthy else 503)

    async def _reset(self, request: BaseRequest, route: str) -> web.StreamResponse:
        await self.runtime.run_engine(self.runtime.reset)
        return _json({"status": "reset"})

    def _clock_state(self) -> dict[str, Any]:
        clock = self.runtime.clock
        now = clock.now()
        iso = datetime.datetime.fromtimestamp(now, datetime.timezone.utc).isoformat()
        return {"now": now, "iso": iso, "frozen": clock.frozen}

    async def _clock(self, request: BaseRequest, route: str) -> web.StreamResponse:
        return _json(self._clock_state())

    async def _advance(self, request: BaseRequest, route: str) -> web.StreamResponse:
        expected = 'send a JSON object {"seconds": N} with N a number >= 0'
        body = await self._admin_body(request, expected)
        seconds = body.get("seconds") if isinstance(body, dict) else None
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, (int, float))
            or not math.isfinite(seconds)
            or seconds < 0
        ):
            raise _AdminError(400, expected)
        clock = self.runtime.clock
        await self.runtime.run_engine(lambda: clock.advance(seconds))
        return _json(self._clock_state())

    async def _admin_raw(self, request: BaseRequest, too_large: str, unreadable: str) -> bytes:
        """An admin request's body (at most 64 KiB, within ``read_timeout``)."""
        length = request.content_length
        if length is not None and length > _ADMIN_BODY_LIMIT:
            raise _AdminError(413, too_large)
        await _continue(request)
        try:
            return await asyncio.wait_for(request.read(), self.read_timeout)
        except (web.HTTPRequestEntityTooLarge, asyncio.TimeoutError):
            raise _AdminError(400, unreadable) from None

    async def _admin_body(self, request: BaseRequest, expected: str) -> Any:
        not_json = f"the body is not JSON: {expected}"
        raw = await self._admin_raw(request, f"the body is over 64 KiB: {expected}", not_json)
        try:
            return json.loads(raw) if raw.strip() else None
        except ValueError:
            raise _AdminError(400, not_json) from None

    def _queue_state(self, queue: Any, urls: QueueUrls) -> dict[str, Any]:
        visible, inflight, delayed = queue.counts()
        return {
            "region": queue.region,
            "account": queue.account,
            "name": queue.name,
            "url": urls.make(queue.region, queue.account, queue.name),
            "fifo": queue.fifo,
            "messages": {"visible": visible, "inflight": inflight, "delayed": delayed},
            "long_polls_waiting": queue.waiting(),
        }

    async def _queues(self, request: BaseRequest, route: str) -> web.StreamResponse:
        urls = self.urls(request.headers.get("Host"))
        backend = self.runtime.backend

        def read() -> list[dict[str, Any]]:
            queues = sorted(backend.queues(), key=lambda q: (q.region, q.account, q.name))
            return [self._queue_state(queue, urls) for queue in queues]

        return _json(await self.runtime.run_engine(read))

    async def _messages(self, request: BaseRequest, route: str) -> web.StreamResponse:
        runtime = self.runtime
        parts = route.split("/")
        if len(parts) == 5:
            region: str | None = parts[1]
            queue = f"/queue/{parts[1]}/{parts[2]}/{parts[3]}"
        else:
            found = request.query.get("queue") or request.query.get("url")
            if not found:
                raise _AdminError(400, "name the queue: ?queue=<queue URL or name>")
            queue, region = found, request.query.get("region")
        for named in (region, self.urls(None).split(queue)[0]):
            if named is not None and not is_region(named):
                raise _AdminError(
                    400,
                    f"region {shown(named)!r} is not an AWS region: regions are named like "
                    "'us-east-1' or 'eu-west-2'",
                )
        try:
            views = await self.runtime.run_engine(lambda: runtime.peek(queue, region))
        except LookupError:
            raise _AdminError(404, f"queue {queue!r} does not exist") from None
        return _json([asdict(view) for view in views])

    async def _metrics(self, request: BaseRequest, route: str) -> web.StreamResponse:
        backend = self.runtime.backend

        def read() -> list[tuple[Any, tuple[int, int, int], int]]:
            queues = sorted(backend.queues(), key=lambda q: (q.region, q.account, q.name))
            return [(queue, queue.counts(), queue.waiting()) for queue in queues]

        states = await self.runtime.run_engine(read)
        lines = [
            "# HELP sqsmock_calls_total SQS calls answered, by operation and outcome "
            '("ok" or the error).',
            "# TYPE sqsmock_calls_total counter",
        ]
        for (operation, outcome), count in sorted(self.metrics.calls.items()):
            labels = _labels(operation=operation, outcome=outcome)
            lines.append(f"sqsmock_calls_total{{{labels}}} {count}")
        lines += [
            "# HELP sqsmock_queues Queues that exist.",
            "# TYPE sqsmock_queues gauge",
            f"sqsmock_queues {len(states)}",
            "# HELP sqsmock_messages Messages by queue and state.",
            "# TYPE sqsmock_messages gauge",
        ]
        for queue, counts, _ in states:
            for state, count in zip(("visible", "inflight", "delayed"), counts, strict=True):
                labels = _labels(
                    region=queue.region, account=queue.account, queue=queue.name, state=state
                )
                lines.append(f"sqsmock_messages{{{labels}}} {count}")
        lines += [
            "# HELP sqsmock_long_polls_waiting Long polls waiting, by queue.",
            "# TYPE sqsmock_long_polls_waiting gauge",
        ]
        for queue, _, waiting in states:
            labels = _labels(region=queue.region, account=queue.account, queue=queue.name)
            lines.append(f"sqsmock_long_polls_waiting{{{labels}}} {waiting}")
        text = "\n".join(lines) + "\n"
        return web.Response(
            text=text, content_type="text/plain", headers={"X-Content-Type-Options": "nosniff"}
        )


class _AdminError(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


def _labels(**labels: str) -> str:
    def escape(value: str) -> str:
        return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

    return ",".join(f'{name}="{escape(value)}"' for name, value in labels.items())


def _json(value: Any, status: int = 200, **headers: str) -> web.Response:
    return web.Response(
        status=status,
        body=json.dumps(value).encode("utf-8"),
        content_type="application/json",
        headers=headers or None,
    )


def _require_json(request: BaseRequest, route: str) -> None:
    """Admin requests that change state are JSON: a web page cannot send that content type
    cross-origin without a CORS preflight, which only allowed origins pass."""
    if request.content_type != "application/json":
        sent = request.headers.get("Content-Type", "none")
        raise _AdminError(
            415,
            f"send Content-Type: application/json to {request.method} /_sqsmock/{route} "
            f"(not {shown(sent)}); the body may be empty",
        )


def _check_regions(parsed: Parsed) -> None:
    """Refuse a call naming a region not of AWS's form, before it reaches the runtime: in its
    credential scope (AWS: 403 SignatureDoesNotMatch) or in its queue URL (404 InvalidAddress)."""
    region = parsed.caller.region
    if not is_region(region):
        raise SqsError("CredentialScopeRegion", region=shown(region))
    url = parsed.params.get("QueueUrl")
    if isinstance(url, str):
        named = parsed.caller.urls.split(url)[0]
        if named is not None and not is_region(named):
            raise SqsError("InvalidAddress", address=shown(url, 256))


async def _continue(request: BaseRequest) -> None:
    """Answer ``Expect: 100-continue`` (curl sends it for bodies over 1 KiB) before reading:
    the client then sends the body at once instead of after a pause of its own."""
    if request.version >= (1, 1) and request.headers.get("Expect", "").lower() == "100-continue":
        await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        request.writer.output_size = 0  # the answer proper is still to come


def _request_of(request: BaseRequest) -> HttpRequest:
    """The request as the protocol layer sees it, before its body is read."""
    return HttpRequest(request.method, request.path, [], request.headers, b"")


def _response(answer: HttpAnswer) -> web.Response:
    return web.Response(status=answer.status, body=answer.body, headers=answer.headers)


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


async def _wait(server: SqsHttpServer, request: BaseRequest) -> web.StreamResponse:
    """``POST /_sqsmock/wait`` (JSON only): wait for message events on the loop, holding no
    thread (``_testing.admin.wait``)."""
    if request.content_type != "application/json":
        raise _AdminError(415, "send the wait as JSON (Content-Type: application/json)")
    body = await server._admin_raw(request, "the body is over 64 KiB", "the body is unreadable")
    status, payload = await admin.wait(server.runtime, body)
    return _json(payload, status)
