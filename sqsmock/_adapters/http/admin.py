"""The admin API at ``/_sqsmock/``: what users of other languages have instead of the handle.

Health, reset, the clock, queues, a peek at a queue's messages, Prometheus metrics (``metrics``),
the web UI's files (``ui``), the wait for message events, the call journal and fault rules. It
answers JSON (metrics: text) and never SQS errors. No answer that can be large is built whole:
a peek is a page (``PEEK_PAGE`` messages unless ``?limit=`` says, at most 1 MiB of them, and
``X-Sqsmock-Next-Token`` for the next), and the queue list is read a slice at a time. The
journal's, fault rules' and wait's answers come from ``_features.routes``, which knows no web
framework and is the same for every front end; this module only routes, reads bodies and checks
methods.

Requests that change state take POST or DELETE with a JSON content type, which no web page can
send cross-origin without a CORS preflight, and so without the server's consent
(``browsers``). Bodies are at most 64 KiB.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from aiohttp import web
from aiohttp.web_request import BaseRequest

from ..._engine import Page
from ..._features import routes
from ..._regions import is_region, shown
from ..._service.addresses import QueueUrls
from ..._store import errors as store_errors
from ..._version import __version__
from . import metrics, ui
from .exchange import expect_continue, json_answer
from .served import Served
from .slices import in_slices, sorted_queues

__all__ = ["MAX_PEEK_PAGE", "NEXT_TOKEN", "PATH", "PEEK_PAGE", "answer"]

log = logging.getLogger("sqsmock.server")

PATH = "/_sqsmock/"
#: Messages one page of a peek holds unless ``?limit=`` says (and at most); a page also stops
#: once it holds ``PAGE_BYTES`` (1 MiB) of messages.
PEEK_PAGE = 100
MAX_PEEK_PAGE = 1000
#: The header of a peek's answer that holds ``?next_token=`` for the next page.
NEXT_TOKEN = "X-Sqsmock-Next-Token"
_BODY_LIMIT = 64 * 1024
#: The journal's and fault rules' routes, and the methods each takes.
_FAILURE_METHODS = {"calls": ("GET", "DELETE"), "faults": ("GET", "POST", "DELETE")}

#: An admin route: (server, request, route below ``/_sqsmock/``) -> the answer.
Handler = Callable[[Served, BaseRequest, str], Awaitable[web.StreamResponse]]


class AdminError(Exception):
    """An admin request refused: answered as ``{"error": text}`` with ``status``."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.text = text


async def answer(server: Served, request: BaseRequest) -> web.StreamResponse:
    """Every request below ``/_sqsmock/``."""
    runtime = server.runtime
    route = request.path[len(PATH) :].strip("/")
    method = request.method
    try:
        if runtime.backend_or_none is None:
            return json_answer({"error": "sqsmock is stopping"}, 503)
        if route.split("/")[0] in _FAILURE_METHODS:
            return await _failure(server, request, route)
        handler, wanted = _route(route)
        if handler is None:
            return json_answer({"error": f"no admin endpoint /_sqsmock/{route}"}, 404)
        if method != wanted and not (wanted == "GET" and method == "HEAD"):
            allow = "GET, HEAD" if wanted == "GET" else wanted
            return json_answer({"error": f"use {wanted} for /_sqsmock/{route}"}, 405, Allow=allow)
        if wanted != "GET":
            _require_json(request, route)
        return await handler(server, request, route)
    except AdminError as error:
        return json_answer({"error": error.text}, error.status)
    except ConnectionError:
        raise
    except store_errors.PersistenceError as error:  # the store is away: retry later
        log.warning("sqsmock answered %s %s with 503: %s", method, request.path, error)
        return json_answer({"error": f"the persistence store is unavailable: {error}"}, 503)
    except Exception:
        log.exception("sqsmock failed to answer %s %s", method, request.path)
        return json_answer({"error": "internal failure; see the server's log"}, 500)


def _route(route: str) -> tuple[Handler | None, str]:
    found = _ROUTES.get(route)
    if found is not None:
        return found
    parts = route.split("/")
    if len(parts) == 5 and parts[0] == "queues" and parts[4] == "messages":
        return _messages, "GET"
    return None, ""


async def _failure(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    """``/_sqsmock/calls`` (the call journal) and ``/_sqsmock/faults`` (fault injection):
    answered by ``_features.routes``, the same for every front end."""
    parts = route.split("/")
    if len(parts) == 1:
        methods = _FAILURE_METHODS[parts[0]]
    elif parts[0] == "faults" and len(parts) == 2 and parts[1]:
        methods = ("DELETE",)  # one rule
    else:
        raise AdminError(404, f"no admin endpoint /_sqsmock/{route}")
    if request.method not in methods:
        allow = ", ".join(methods)
        return json_answer({"error": f"use {allow} for /_sqsmock/{route}"}, 405, Allow=allow)
    if request.method != "GET":
        _require_json(request, route)
    body = b""
    if request.method == "POST":
        body = await _read_raw(
            server, request, "the body is over 64 KiB", "the body could not be read"
        )
    found = routes.answer(server.runtime, request.method, request.path, request.query, body)
    if found is None:
        raise AdminError(404, f"no admin endpoint {request.path}")
    status, payload = found
    return web.Response(status=204) if payload is None else json_answer(payload, status)


async def _health(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    """200 while calls can be answered; 503 with the reason while the store is away (the
    lease heals by itself when it is back)."""
    runtime = server.runtime
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
    return json_answer(payload, 200 if healthy else 503)


async def _reset(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    await server.runtime.run_engine(server.runtime.reset)
    return json_answer({"status": "reset"})


def _clock_state(server: Served) -> dict[str, Any]:
    clock = server.runtime.clock
    now = clock.now()
    iso = datetime.datetime.fromtimestamp(now, datetime.timezone.utc).isoformat()
    return {"now": now, "iso": iso, "frozen": clock.frozen}


async def _clock(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    return json_answer(_clock_state(server))


async def _advance(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    expected = 'send a JSON object {"seconds": N} with N a number >= 0'
    body = await _read_json(server, request, expected)
    seconds = body.get("seconds") if isinstance(body, dict) else None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise AdminError(400, expected)
    try:
        step = float(seconds)  # an int past a float's range: OverflowError
    except OverflowError:
        raise AdminError(
            400, "the clock cannot advance that far: it ends at 9999-12-31T23:59:59Z"
        ) from None
    if not math.isfinite(step) or step < 0:
        raise AdminError(400, expected)
    clock = server.runtime.clock
    try:
        await server.runtime.run_engine(lambda: clock.advance(step))
    except ValueError as error:  # past the last moment a clock can show (the clock's words)
        raise AdminError(400, str(error)) from None
    return json_answer(_clock_state(server))


async def _read_raw(server: Served, request: BaseRequest, too_large: str, unreadable: str) -> bytes:
    """An admin request's body (at most 64 KiB, within ``read_timeout``)."""
    try:
        length = request.content_length
    except ValueError:  # digits past what int() reads (aiohttp's parser let them through)
        raise AdminError(400, "Content-Length is not a number of bytes") from None
    if length is not None and length > _BODY_LIMIT:
        raise AdminError(413, too_large)
    await expect_continue(request)
    try:
        return await asyncio.wait_for(request.read(), server.read_timeout)
    except (web.HTTPRequestEntityTooLarge, asyncio.TimeoutError):
        raise AdminError(400, unreadable) from None


async def _read_json(server: Served, request: BaseRequest, expected: str) -> Any:
    not_json = f"the body is not JSON: {expected}"
    raw = await _read_raw(server, request, f"the body is over 64 KiB: {expected}", not_json)
    try:
        return json.loads(raw) if raw.strip() else None
    except ValueError:
        raise AdminError(400, not_json) from None


def _queue_state(queue: Any, urls: QueueUrls) -> dict[str, Any]:
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


async def _queues(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    """Every queue with its counts: read and written out a slice of queues at a time
    (``slices``), so that many queues never hold the loop at once."""
    urls = server.urls(request.headers.get("Host"))
    runtime = server.runtime
    queues = await runtime.run_engine(lambda: sorted_queues(runtime.backend))

    def render(part: Sequence[Any]) -> list[str]:
        return [json.dumps(_queue_state(queue, urls)) for queue in part]

    rendered = await in_slices(runtime, queues, render)
    body = ("[" + ",".join(rendered) + "]").encode("utf-8")
    return web.Response(body=body, content_type="application/json")


async def _messages(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    runtime = server.runtime
    parts = route.split("/")
    if len(parts) == 5:
        region: str | None = parts[1]
        queue = f"/queue/{parts[1]}/{parts[2]}/{parts[3]}"
    else:
        found = request.query.get("queue") or request.query.get("url")
        if not found:
            raise AdminError(400, "name the queue: ?queue=<queue URL or name>")
        queue, region = found, request.query.get("region")
    for named in (region, server.urls(None).split(queue)[0]):
        if named is not None and not is_region(named):
            raise AdminError(
                400,
                f"region {shown(named)!r} is not an AWS region: regions are named like "
                "'us-east-1' or 'eu-west-2'",
            )
    limit, after = _peek_paging(request)

    def read() -> Page:
        found = runtime.find_queue(queue, region)
        found.settle()
        return found.peek_page(limit, after)

    try:
        page = await runtime.run_engine(read)
    except LookupError:
        raise AdminError(404, f"queue {queue!r} does not exist") from None
    answered = json_answer([vars(view) for view in page.views])  # (fresh copies: no asdict)
    if page.next_after is not None:
        answered.headers[NEXT_TOKEN] = str(page.next_after)
    return answered


def _peek_paging(request: BaseRequest) -> tuple[int, int]:
    """A peek's ``limit`` (default ``PEEK_PAGE``, at most ``MAX_PEEK_PAGE``) and the message
    its ``next_token`` says to start after (0: the first)."""
    limit, token = request.query.get("limit"), request.query.get("next_token")
    count = PEEK_PAGE if limit is None else routes.whole_number(limit, 4)
    if count is None or not 1 <= count <= MAX_PEEK_PAGE:
        raise AdminError(
            400, f"limit must be a whole number from 1 to {MAX_PEEK_PAGE}, not {shown(limit)!r}"
        )
    after = 0 if not token else routes.whole_number(token, 19)
    if after is None:
        raise AdminError(
            400,
            f"next_token must be the {NEXT_TOKEN} header of an earlier page (up to 19 digits), "
            f"not {shown(token)!r}",
        )
    return count, after


async def _wait(server: Served, request: BaseRequest, route: str) -> web.StreamResponse:
    """``POST /_sqsmock/wait`` (JSON only): wait for message events on the loop, holding no
    thread (``_features.routes.wait``)."""
    if request.content_type != "application/json":
        raise AdminError(415, "send the wait as JSON (Content-Type: application/json)")
    body = await _read_raw(server, request, "the body is over 64 KiB", "the body is unreadable")
    status, payload = await routes.wait(server.runtime, body)
    return json_answer(payload, status)


def _require_json(request: BaseRequest, route: str) -> None:
    """Admin requests that change state are JSON: a web page cannot send that content type
    cross-origin without a CORS preflight, which only allowed origins pass."""
    if request.content_type != "application/json":
        sent = request.headers.get("Content-Type", "none")
        raise AdminError(
            415,
            f"send Content-Type: application/json to {request.method} /_sqsmock/{route} "
            f"(not {shown(sent)}); the body may be empty",
        )


#: route (below ``/_sqsmock/``, without slashes at either end) -> (handler, method); a queue's
#: messages at ``queues/<region>/<account>/<name>/messages`` too (``_route``).
_ROUTES: dict[str, tuple[Handler, str]] = {
    "health": (_health, "GET"),
    "reset": (_reset, "POST"),
    "clock": (_clock, "GET"),
    "clock/advance": (_advance, "POST"),
    "queues": (_queues, "GET"),
    "messages": (_messages, "GET"),
    "wait": (_wait, "POST"),
    "metrics": (metrics.page, "GET"),
    **ui.ROUTES,  # the web UI: /_sqsmock/ui/
}
