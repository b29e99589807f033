"""The SQS answer the server writes itself (``exchange.SqsResponse``) is byte for byte what
aiohttp's ``web.Response`` writes for the same status, headers and body, over every kind of
connection: HTTP/1.1 and 1.0, kept alive or closing, with CORS headers added, any SQS status."""

from __future__ import annotations

import asyncio
import re

import pytest
from aiohttp import web
from aiohttp.web_request import BaseRequest

from sqsmock._adapters.http.exchange import SqsResponse, sqs_answer
from sqsmock._protocol.http import HttpAnswer

_DATE = re.compile(rb"\r\nDate: [^\r]*\r\n")
_CORS = {
    "Access-Control-Allow-Origin": "http://localhost:3000",
    "Access-Control-Expose-Headers": "x-amzn-RequestId, Date",
    "Vary": "Origin",
}


def _answer(status: int, error: bool) -> HttpAnswer:
    headers = {"x-amzn-RequestId": "0f4c", "Content-Type": "application/x-amz-json-1.0"}
    if error:
        headers["x-amzn-query-error"] = "AWS.SimpleQueueService.NonExistentQueue;Sender"
    return HttpAnswer(status, headers, b'{"a":"\xc3\xa9"}')


async def _exchanges(
    request_bytes: bytes,
    status: int,
    error: bool,
    cors: bool,
    close: bool,
    extra: dict[str, str] | None = None,
) -> list[tuple[bytes, bytes, str]]:
    """The raw answers of a server answering with ``web.Response`` and with ``SqsResponse``."""

    async def handler(request: BaseRequest) -> web.StreamResponse:
        answer = _answer(status, error)
        if request.path == "/plain":
            response: web.StreamResponse = web.Response(
                status=answer.status, body=answer.body, headers=answer.headers
            )
            if cors:
                response.headers.update(_CORS)
            if extra:
                response.headers.update(extra)
        else:
            response = sqs_answer(answer, request.method)
            assert isinstance(response, SqsResponse)
            if cors:
                response.add_headers(dict(_CORS))
            if extra:
                response.add_headers(dict(extra))
        if close:
            response.force_close()
        return response

    server = web.Server(handler, access_log=None)
    listener = await asyncio.get_running_loop().create_server(server, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    answers = []
    try:
        for path in (b"/plain", b"/sqs"):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request_bytes.replace(b" /x ", b" " + path + b" "))
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as cut:
                answers.append((cut.partial, b"", "closed unanswered"))
                writer.close()
                continue
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
            body = await reader.readexactly(length)
            # The connection's fate: closed by the server, or answering another request.
            try:
                writer.write(request_bytes.replace(b" /x ", b" " + path + b" "))
                more = await asyncio.wait_for(reader.read(5), 10)
                fate = "closed" if more == b"" else f"answers again: {more!r}"
            except ConnectionError:
                fate = "closed"
            writer.close()
            answers.append((_DATE.sub(b"\r\nDate: *\r\n", head), body, fate))
    finally:
        listener.close()
        await listener.wait_closed()
        await server.shutdown(1)
    return answers


REQUESTS = {
    "1.1": b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
    "1.1-close": b"POST /x HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}",
    "1.0": b"POST /x HTTP/1.0\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
    "1.0-keep-alive": b"POST /x HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\n"
    b"Content-Length: 2\r\n\r\n{}",
    "get": b"GET /x?Action=ListQueues HTTP/1.1\r\nHost: h\r\n\r\n",
}


@pytest.mark.parametrize("kind", sorted(REQUESTS))
@pytest.mark.parametrize(
    ("status", "error"), [(200, False), (400, True), (403, True), (500, True), (503, True)]
)
@pytest.mark.parametrize("cors", [False, True])
@pytest.mark.parametrize("close", [False, True])
def test_an_sqs_answer_is_written_as_web_response_writes_it(
    kind: str, status: int, error: bool, cors: bool, close: bool
) -> None:
    plain, ours = asyncio.run(_exchanges(REQUESTS[kind], status, error, cors, close))
    assert ours == plain
    assert ours[0].startswith(b"HTTP/1.")
    assert b"\r\nContent-Length: 10\r\n" in ours[0]


def test_an_answer_aiohttp_must_shape_itself_is_a_web_response() -> None:
    """HEAD, an empty body, a status without a body: left to aiohttp's own rules."""
    answer = _answer(200, False)
    assert isinstance(sqs_answer(answer, "POST"), SqsResponse)
    assert type(sqs_answer(answer, "HEAD")) is web.Response
    assert type(sqs_answer(HttpAnswer(200, {}, b""), "POST")) is web.Response
    assert type(sqs_answer(HttpAnswer(204, {}, b"x"), "GET")) is web.Response


@pytest.mark.parametrize("value", ["tab\there", "bell\x07", "line\nbreak", "cr\rhere", "del\x7f"])
def test_a_header_aiohttp_may_refuse_is_left_to_aiohttp(value: str) -> None:
    request = REQUESTS["1.1"]
    plain, ours = asyncio.run(_exchanges(request, 200, False, False, False, {"X-Odd": value}))
    assert ours == plain


def test_with_an_aiohttp_release_it_was_not_checked_against_every_answer_is_aiohttps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SqsResponse sets StreamResponse's own state: only for the releases it was checked with."""
    from sqsmock._adapters.http import exchange

    assert exchange.WRITTEN_BY_SQSMOCK  # the aiohttp installed here is one of them
    assert exchange._release("3.14.5") == (3, 14)
    assert exchange._release("3.15b1") == (3, 15)
    monkeypatch.setattr(exchange, "WRITTEN_BY_SQSMOCK", False)
    assert type(sqs_answer(_answer(200, False), "POST")) is web.Response
