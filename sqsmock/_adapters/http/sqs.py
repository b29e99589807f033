"""The SQS endpoint: every path outside ``/_sqsmock/`` and LocalStack's routes is SQS.

A request is read whole, parsed by the protocol layer (``parse``: AWS JSON 1.0 or the query
protocol, chosen per request), called through ``Runtime.call_async`` -- on the event loop, where
it takes microseconds, or in a thread when the engine writes to a store -- and the ``Result`` is
rendered back in the request's protocol. A long poll awaits on the loop and holds no thread.

Bad input over the wire is answered with a 4xx in SQS's format for the request's protocol and
the server goes on serving: bodies over ``BODY_LIMIT`` are refused by their ``Content-Length``
(or as soon as a chunked body passes it) without being read whole, and a body that does not
arrive within the server's ``read_timeout`` gets 408. Only a fault of sqsmock itself answers
500 (``InternalFailure``). SQS runs only for GET and POST. A region named by a request (its
credential scope, a queue URL) must be of AWS's form (``_regions``) before it reaches the
runtime.
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web
from aiohttp.web_request import BaseRequest

from ..._errors import SqsError
from ..._protocol.http import HttpRequest, Parsed, error_answer, parse, render
from ..._protocol.query import form_pairs
from ..._regions import is_region, shown
from .exchange import expect_continue, sqs_answer
from .served import Served

__all__ = ["BODY_LIMIT", "MESSAGE_LIMIT", "answer", "read_body", "refuse"]

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
        length = request.content_length
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
        raw = request.rel_url.raw_query_string
        if raw:
            try:
                http.query = form_pairs(raw)
            except UnicodeDecodeError as error:
                raise SqsError("MalformedQueryString", reason=error.reason) from None
        runtime = server.runtime
        if runtime.backend_or_none is None:  # stopping
            raise SqsError("ServiceUnavailable")
        parsed = parse(
            http,
            region=runtime.region,
            account=runtime.account,
            urls=server.urls(headers.get("Host")),
        )
        _check_regions(parsed)
        result = await runtime.call_async(
            parsed.operation, parsed.params, parsed.caller, remote=True
        )
        failed = result.error
        outcome = "ok" if failed is None else failed.shape
        server.metrics.count(result.operation, outcome)
        if log.isEnabledFor(logging.DEBUG):  # `sqsmock serve --log-level debug`
            log.debug("%s (%s) %s: %s", result.operation, parsed.protocol, result.status, outcome)
        return sqs_answer(render(parsed.protocol, result), method)
    except SqsError as error:
        server.metrics.count("", error.shape)
        log.debug("refused %s %s: %s", request.method, request.path, error)
        return sqs_answer(error_answer(http, error), http.method)
    except ConnectionError:  # the client went away: nobody to answer, nothing to log
        raise
    except Exception:
        log.exception("sqsmock failed to answer %s %s", request.method, request.path)
        fault = SqsError(
            "ServiceUnavailable" if server.runtime.backend_or_none is None else "InternalFailure"
        )
        server.metrics.count("", fault.shape)
        return sqs_answer(error_answer(http, fault), http.method)


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
        timeout = f"{server.read_timeout:g}"
        return refuse(server, http, SqsError("RequestTimeout", seconds=timeout))
    except (ConnectionError, asyncio.CancelledError):
        raise
    except Exception as error:  # a broken chunked encoding or compression, a body cut short
        reason = str(error).strip().replace("\n", " ") or type(error).__name__
        # Nothing more can be read: close after answering instead of lingering to read on.
        request.content.feed_eof()
        return refuse(server, http, SqsError("MalformedHttpRequest", reason=reason))


def refuse(server: Served, http: HttpRequest, error: SqsError) -> web.StreamResponse:
    """An error answer after which the connection closes: the rest of the body is unread."""
    server.metrics.count("", error.shape)
    response = sqs_answer(error_answer(http, error), http.method)
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
