"""What every route of the HTTP adapter does with aiohttp: read the request, build the answer.

Kept in one place so that the SQS endpoint, the admin API and LocalStack's routes read bodies
and answer alike: the request as the protocol layer sees it before its body is read, the
``100 Continue`` a client may wait for, a rendered SQS answer, a JSON document.

An SQS answer (``sqs_answer``) is the one every call gets, so it skips what aiohttp's
``web.Response`` does for any answer of any handler (a header multidict filled and searched
several times, body checks, compression and cookie hooks): ``SqsResponse`` hands aiohttp's writer,
in one piece, the head ``web.Response`` would have sent -- the status line, the answer's own
headers, then ``Content-Length``, ``Date``, ``Server`` and, where the connection's state calls for
it, ``Connection``, in that order -- and the body. A header aiohttp might refuse (a control
character) goes through aiohttp's own serialiser instead. tests/test_http_exchange.py holds the
bytes to ``web.Response``'s. ``SqsResponse`` sets ``StreamResponse``'s own state, which is
aiohttp's to change: it is used only with the aiohttp releases it was checked against
(``WRITTEN_BY_SQSMOCK``); with any later one every answer is a ``web.Response``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.abc import AbstractStreamWriter
from aiohttp.helpers import rfc822_formatted_time
from aiohttp.http import SERVER_SOFTWARE, HttpVersion10, HttpVersion11
from aiohttp.web_request import BaseRequest

from ..._protocol.http import HttpAnswer, HttpRequest

__all__ = [
    "SqsResponse",
    "answer_bytes",
    "expect_continue",
    "json_answer",
    "reason_of",
    "request_of",
    "sqs_answer",
]

#: Methods whose answers have a body and keep their ``Content-Length`` for any SQS status.
_PLAIN_METHODS = frozenset({"GET", "POST"})
#: Characters aiohttp's serialisers may refuse in a header (its C one refuses CR and LF, its
#: Python one every control character but tab): an answer with any is left to aiohttp.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: The end of the head after ``Date``: ``Server``, then the ``Connection`` header aiohttp sends
#: when HTTP/1.0 is kept alive or HTTP/1.1 is not.
_TAIL = f"Server: {SERVER_SOFTWARE}\r\n\r\n"
_TAIL_KEEP_ALIVE = f"Server: {SERVER_SOFTWARE}\r\nConnection: keep-alive\r\n\r\n"
_TAIL_CLOSE = f"Server: {SERVER_SOFTWARE}\r\nConnection: close\r\n\r\n"
#: aiohttp's reason phrase of each status, as its responses give it (filled as statuses occur).
_REASONS: dict[int, str] = {}


def _release(version: str) -> tuple[int, int]:
    """(major, minor) of a release string such as ``3.14.5`` or ``3.15b1``; (0, 0) if unreadable."""
    found = re.match(r"(\d+)\.(\d+)", version)
    return (int(found[1]), int(found[2])) if found else (0, 0)


#: The aiohttp releases ``SqsResponse`` was checked against (3.9 to 3.14): with those it writes
#: SQS answers itself; with a later release, whose ``StreamResponse`` may keep other state, every
#: answer is aiohttp's own ``web.Response``.
WRITTEN_BY_SQSMOCK = (3, 9) <= _release(aiohttp.__version__) <= (3, 14)


def request_of(request: BaseRequest) -> HttpRequest:
    """The request as the protocol layer sees it, before its body is read."""
    return HttpRequest(request.method, request.path, [], request.headers, b"")


async def expect_continue(request: BaseRequest) -> None:
    """Answer ``Expect: 100-continue`` (curl sends it for bodies over 1 KiB) before reading:
    the client then sends the body at once instead of after a pause of its own."""
    if request.version >= (1, 1) and request.headers.get("Expect", "").lower() == "100-continue":
        await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        request.writer.output_size = 0  # the answer proper is still to come


def sqs_answer(answer: HttpAnswer, method: str) -> web.StreamResponse:
    """An answer the protocol layer rendered, to a request of ``method``."""
    status, body = answer.status, answer.body
    if (
        WRITTEN_BY_SQSMOCK
        and method in _PLAIN_METHODS
        and body
        and status >= 200
        and status not in (204, 304)
    ):
        return SqsResponse(status, answer.headers, body)
    return web.Response(status=status, body=body, headers=answer.headers)


def reason_of(status: int) -> str:
    """aiohttp's reason phrase of ``status``, as its responses give it."""
    reason = _REASONS.get(status)
    if reason is None:
        reason = _REASONS[status] = web.StreamResponse(status=status).reason
    return reason


def _tail(version: tuple[int, int], keep_alive: bool) -> str:
    if keep_alive:
        return _TAIL_KEEP_ALIVE if version == HttpVersion10 else _TAIL
    return _TAIL_CLOSE if version == HttpVersion11 else _TAIL


def answer_bytes(
    version: tuple[int, int], status: int, fields: dict[str, str], body: bytes, keep_alive: bool
) -> bytes | None:
    """The bytes ``web.Response(status=, body=, headers=fields)`` sends to a GET or POST of HTTP
    ``version`` (a body that is not empty, a status of 200 or more but 204 and 304), or None if
    a header holds a character aiohttp's serialisers may refuse."""
    if _CONTROL.search("".join(fields.values())) is not None:
        return None
    lines = "\r\n".join(map(": ".join, fields.items()))
    head = (
        f"HTTP/{version[0]}.{version[1]} {status} {reason_of(status)}\r\n{lines}\r\n"
        f"Content-Length: {len(body)}\r\nDate: {rfc822_formatted_time()}\r\n"
        f"{_tail(version, keep_alive)}"
    )
    return head.encode("utf-8") + body


class SqsResponse(web.StreamResponse):
    """An SQS answer of a GET or POST: status, headers (with ``Content-Type``) and a body that
    is not empty -- the bytes ``web.Response(status=, body=, headers=)`` sends for it, written
    with one call to aiohttp's writer."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        # StreamResponse's state that its __init__ sets (older aiohttp: no class defaults),
        # but its header multidict and cookie jar, which this answer never fills.
        self._state = {}
        self._body = None
        self._keep_alive = None
        self._chunked = False
        self._compression = False
        self._compression_force = None
        self._req = None
        self._payload_writer = None
        self._eof_sent = False
        self._must_be_empty_body = None
        self._body_length = 0
        self._status = status
        self._reason = reason_of(status)
        #: The answer's own headers, in order; ``add_headers`` appends (CORS).
        self.fields = headers
        self._answer_body = body

    def add_headers(self, headers: dict[str, str]) -> None:
        """Headers to send after the answer's own (those given here are not among them)."""
        self.fields.update(headers)

    async def prepare(self, request: BaseRequest) -> AbstractStreamWriter | None:
        if self._eof_sent:
            return None
        writer = self._payload_writer
        if writer is None:
            self._must_be_empty_body = False
            self._req = request
            writer = self._payload_writer = request._payload_writer
            if self._keep_alive is None:
                self._keep_alive = request.keep_alive
        return writer

    async def write_eof(self, data: bytes = b"") -> None:
        if self._eof_sent:
            return
        request, writer = self._req, self._payload_writer
        assert request is not None and writer is not None, "Response has not been started"
        body, fields = self._answer_body, self.fields
        version = request.version
        keep_alive = bool(self._keep_alive)
        written = answer_bytes(version, self._status, fields, body, keep_alive)
        if written is not None:
            await writer.write(written)
        else:  # left to aiohttp's serialiser: it sends the header or refuses it (ValueError)
            status_line = f"HTTP/{version[0]}.{version[1]} {self._status} {self._reason}"
            date = rfc822_formatted_time()
            tail = _tail(version, keep_alive)
            headers = {**fields, "Content-Length": str(len(body)), "Date": date}
            headers["Server"] = SERVER_SOFTWARE
            if tail is not _TAIL:
                headers["Connection"] = "keep-alive" if tail is _TAIL_KEEP_ALIVE else "close"
            await writer.write_headers(status_line, headers)  # type: ignore[arg-type]
            await writer.write_eof(body)
        self._eof_sent = True
        self._req = None
        self._body_length = writer.output_size
        self._payload_writer = None


def json_answer(value: Any, status: int = 200, **headers: str) -> web.Response:
    """A JSON document: what the admin API and LocalStack's routes answer.

    Never with ``NaN`` or ``Infinity``, which are not JSON (a browser's ``JSON.parse`` refuses
    the whole answer): a number that is not finite -- say in a call's parameters, as a client
    sent them -- goes out as its name, a string.
    """
    try:
        body = json.dumps(value, allow_nan=False)
    except ValueError:
        body = json.dumps(_finite(value), allow_nan=False)
    return web.Response(
        status=status,
        body=body.encode("utf-8"),
        content_type="application/json",
        headers=headers or None,
    )


def _finite(value: Any) -> Any:
    """``value`` with every float that is not finite replaced by its name (``"NaN"``,
    ``"Infinity"``, ``"-Infinity"``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
