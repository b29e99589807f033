"""The SQS endpoint: every path outside ``/_sqsmock/`` and LocalStack's routes is SQS (or SNS,
for a request the protocol layer finds is SNS's: it answers on the same port).

A request is read whole, parsed by the protocol layer (``parse``: AWS JSON 1.0 or the query
protocol, chosen per request), called through ``Runtime.call_async`` -- on the event loop, where
it takes microseconds, or in a thread when the engine writes to a store -- and the ``Result`` is
rendered back in the request's protocol. A long poll awaits on the loop and holds no thread.

Bad input over the wire is answered with a 4xx in SQS's format for the request's protocol and
the server goes on serving: bodies over ``BODY_LIMIT`` are refused by their ``Content-Length``
(or as soon as a chunked body passes it) without being read whole, and a body that does not
arrive within the server's ``read_timeout`` gets 408. Only a fault of sqsmock itself answers
500 (``InternalFailure``). SQS runs only for GET and POST, and a GET runs an action that changes
state only if it is signed (``browsers.signed``): any web page can send an unsigned GET. A region
named by a request (its credential scope, a queue URL) must be of AWS's form (``_regions``)
before it reaches the runtime; in ElasticMQ mode every caller is the server's own region and
account, whatever its credentials name, as ElasticMQ has one namespace.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from typing import Any

from aiohttp import web
from aiohttp.web_request import BaseRequest

from ..._errors import SqsError
from ..._protocol import Result
from ..._protocol.http import HttpAnswer, HttpRequest, Parsed, error_answer, parse, render
from ..._protocol.query import form_pairs
from ..._regions import is_region, shown
from .browsers import READ_ONLY, signed
from .exchange import expect_continue, sqs_answer
from .served import Served

__all__ = [
    "BODY_LIMIT",
    "MESSAGE_LIMIT",
    "answer",
    "begin",
    "read_body",
    "refuse",
    "refused",
    "timed_out",
]

log = logging.getLogger("sqsmock.server")

#: SQS's largest message (and largest batch), in bytes of UTF-8 text and attribute values.
MESSAGE_LIMIT = 1024 * 1024
#: The largest request body accepted. Encoding inflates a valid request up to fourfold: JSON
#: escapes a 2-byte UTF-8 character as ``\\u00e9`` (3x), a form percent-encodes every byte of
#: UTF-8 (3x) and every ``+`` or ``/`` of a base64 binary value (4/3 x 3 = 4x). The envelope
#: (ids, attribute names, types, the queue URL) of the largest batch fits in 64 KiB.
BODY_LIMIT = 4 * MESSAGE_LIMIT + 64 * 1024

#: The methods SQS answers (the query protocol's GET included, as AWS does).
_METHODS = ("GET", "POST")


async def answer(server: Served, request: BaseRequest) -> web.StreamResponse:
    """One SQS call: read, parse, call, render."""
    headers = request.headers
    method = request.method
    if method not in _METHODS:
        server.metrics.count("", "MethodNotAllowed")
        response = web.Response(
            status=405,
            text=f"SQS takes GET and POST, not {method}.\n",
            content_type="text/plain",
            headers={"Allow": ", ".join(_METHODS)},
        )
        response.force_close()  # the body, if any, is not read
        return response
    http = HttpRequest(method, request.path, [], headers, b"")
    try:
        try:
            length = request.content_length
        except ValueError:  # digits past what int() reads (aiohttp's parser let them through)
            reason = "Content-Length is not a number of bytes"
            return refuse(server, http, SqsError("MalformedHttpRequest", reason=reason))
        if length is not None and length > server.body_limit:
            return refuse(server, http, SqsError("RequestEntityTooLarge", limit=server.body_limit))
        content = request.content
        if content.is_eof() and not content.exception():  # all there: taken at once
            body = content.read_nowait()
            if len(body) > server.body_limit:  # a chunked or compressed body
                return refuse(
                    server, http, SqsError("RequestEntityTooLarge", limit=server.body_limit)
                )
        else:
            read = await read_body(server, request, http)
            if isinstance(read, web.StreamResponse):
                return read
            body = read
        http.body = body
    except ConnectionError:  # the client went away: nobody to answer, nothing to log
        raise
    except Exception:
        return sqs_answer(_failed(server, http), method)
    answered = begin(server, http, request.rel_url.raw_query_string)
    if not isinstance(answered, HttpAnswer):
        answered = await answered
    return sqs_answer(answered, method)


def begin(
    server: Served, http: HttpRequest, raw_query: str
) -> HttpAnswer | Coroutine[Any, Any, HttpAnswer]:
    """Answer a request read whole: the answer at once when the call needs no wait (the engine
    runs on the loop and nothing long-polls), else a coroutine that awaits it. Every front end
    of the endpoint (aiohttp's handler, ``express``) answers through here."""
    try:
        if raw_query:
            try:
                http.query = form_pairs(raw_query)
            except UnicodeDecodeError as error:
                raise SqsError("MalformedQueryString", reason=error.reason) from None
        runtime = server.runtime
        if runtime.backend_or_none is None:  # stopping
            raise SqsError("ServiceUnavailable")
        parsed = parse(
            http,
            region=runtime.region,
            account=runtime.account,
            urls=server.urls(http.headers.get("Host")),
        )
        if server.elasticmq:  # ElasticMQ has no regions and one account: any name reaches it
            parsed.caller.region, parsed.caller.account = runtime.region, runtime.account
        else:
            _check_regions(parsed)
        # SNS's SubscribeURL is a GET; its token (which no web page knows) is what it takes
        confirm = parsed.protocol == "sns" and parsed.operation == "ConfirmSubscription"
        read_only = parsed.operation in READ_ONLY or confirm
        if http.method == "GET" and not read_only and not signed(http.headers):
            log.warning("refused GET %s: unsigned, and it changes state", parsed.operation)
            raise SqsError("UnsignedGet", action=parsed.operation)
        if parsed.protocol == "sns":  # delivers into queues: off the loop over a store
            sns = partial(runtime.call_sns, parsed.operation, parsed.params, parsed.caller)
            if runtime.blocking:
                return _awaited(server, http, parsed, partial(runtime.run_engine, sns))
            return _rendered(server, parsed, sns())
        if runtime.blocking:
            call = partial(
                runtime.call_async, parsed.operation, parsed.params, parsed.caller, remote=True
            )
            return _awaited(server, http, parsed, call)
        step = runtime.start(parsed.operation, parsed.params, parsed.caller)
        if not isinstance(step, Result):
            return _awaited(server, http, parsed, partial(runtime.wait_async, step))
        return _rendered(server, parsed, step)
    except SqsError as error:
        return refused(server, http, error)
    except Exception:
        return _failed(server, http)


async def _awaited(
    server: Served, http: HttpRequest, parsed: Parsed, waiting: Callable[[], Awaitable[Result]]
) -> HttpAnswer:
    """The answer to a call that waits (``waiting`` starts the wait: nothing is left to await
    if this coroutine is closed before it runs)."""
    try:
        return _rendered(server, parsed, await waiting())
    except SqsError as error:
        return refused(server, http, error)
    except ConnectionError:  # the client went away: nobody to answer, nothing to log
        raise
    except Exception:
        return _failed(server, http)


def _rendered(server: Served, parsed: Parsed, result: Result) -> HttpAnswer:
    failed = result.error
    outcome = "ok" if failed is None else failed.shape
    server.metrics.count(result.operation, outcome)
    if log.isEnabledFor(logging.DEBUG):  # `sqsmock serve --log-level debug`
        log.debug("%s (%s) %s: %s", result.operation, parsed.protocol, result.status, outcome)
    return render(parsed.protocol, result)


def refused(server: Served, http: HttpRequest, error: SqsError) -> HttpAnswer:
    """The answer refusing a request with ``error`` (counted, and logged for debugging)."""
    server.metrics.count("", error.shape)
    log.debug("refused %s %s: %s", http.method, http.path, error)
    return error_answer(http, error)


def _failed(server: Served, http: HttpRequest) -> HttpAnswer:
    """The answer to a fault of sqsmock's own (logged): 500, or 503 once the runtime is closing."""
    log.exception("sqsmock failed to answer %s %s", http.method, http.path)
    fault = SqsError(
        "ServiceUnavailable" if server.runtime.backend_or_none is None else "InternalFailure"
    )
    server.metrics.count("", fault.shape)
    return error_answer(http, fault)


def timed_out(server: Served) -> SqsError:
    """The error of a body that did not arrive within ``read_timeout``."""
    return SqsError("RequestTimeout", seconds=f"{server.read_timeout:g}")


async def read_body(
    server: Served, request: BaseRequest, http: HttpRequest
) -> bytes | web.StreamResponse:
    """The whole body, or the answer refusing it (too large, too slow, broken)."""
    try:
        if request.content.is_eof():  # all there already
            return await request.read()
        await expect_continue(request)
        return await asyncio.wait_for(request.read(), server.read_timeout)
    except web.HTTPRequestEntityTooLarge:
        return refuse(server, http, SqsError("RequestEntityTooLarge", limit=server.body_limit))
    except asyncio.TimeoutError:
        return refuse(server, http, timed_out(server))
    except (ConnectionError, asyncio.CancelledError):
        raise
    except Exception as error:  # a broken chunked encoding or compression, a body cut short
        reason = str(error).strip().replace("\n", " ") or type(error).__name__
        # Nothing more can be read: close after answering instead of lingering to read on.
        request.content.feed_eof()
        return refuse(server, http, SqsError("MalformedHttpRequest", reason=reason))


def refuse(server: Served, http: HttpRequest, error: SqsError) -> web.StreamResponse:
    """An error answer after which the connection closes: the rest of the body is unread."""
    response = sqs_answer(refused(server, http, error), http.method)
    response.force_close()
    return response


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
