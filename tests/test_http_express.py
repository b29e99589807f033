"""The express lane (``_adapters/http/express.py``): plain SQS calls answered from the socket,
everything else handed to aiohttp with every byte it has not answered.

The unit tests drive one connection of a real ``SqsHttpServer`` with a transport that records
what is written; the end-to-end tests compare, over real sockets, what the lane answers with
what aiohttp's handler answers to the same request.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import re
import socket
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from server_support import read_all

import sqsmock
from sqsmock._adapters.http import express, heads
from sqsmock._adapters.http.server import SqsHttpServer
from sqsmock._runtime import Runtime
from sqsmock._server_options import ServerOptions

_AUTH = (
    "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/sqs/aws4_request, "
    "SignedHeaders=host;x-amz-target, Signature=0"
)


def _json(
    operation: str, params: dict[str, Any], *, extra: str = "", host: str = "localhost"
) -> bytes:
    body = json.dumps(params).encode()
    return (
        f"POST / HTTP/1.1\r\nHost: {host}\r\nAuthorization: {_AUTH}\r\n"
        f"X-Amz-Target: AmazonSQS.{operation}\r\nContent-Type: application/x-amz-json-1.0\r\n"
        f"{extra}Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def _query(path: str, form: str) -> bytes:
    body = f"{form}&Version=2012-11-05"
    return (
        f"POST {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: {_AUTH}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body)}\r\n\r\n{body}"
    ).encode()


class _Transport(asyncio.Transport):
    """Records writes, closes, pauses and the protocol set on it."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False
        self.reading = True
        self.protocol: Any = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.protocol = protocol

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


class _Handler(asyncio.Protocol):
    """Stands for aiohttp's handler: records what the lane hands over."""

    def __init__(self) -> None:
        self.made = False
        self.data = b""
        self.eof = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.made = True

    def data_received(self, data: bytes) -> None:
        self.data += data

    def eof_received(self) -> None:
        self.eof = True


Test = Callable[[SqsHttpServer, Callable[[], tuple[express.Express, _Transport]]], Awaitable[None]]


def _run(test: Test, clock: str = "frozen", **options: Any) -> list[_Handler]:
    """Run ``test`` with a started server (on a ``clock`` of that kind: on a frozen one a long
    poll never waits) and a maker of lane connections (their aiohttp handler replaced by a
    recorder); the recorders handed out, in order."""
    handlers: list[_Handler] = []

    def handler() -> _Handler:
        handlers.append(_Handler())
        return handlers[-1]

    async def main() -> None:
        server = SqsHttpServer(Runtime(ServerOptions(clock=clock)), **options)
        await server.start("127.0.0.1", 0)
        lane = server._lane
        assert lane is not None
        lane.handler = handler

        def connect() -> tuple[express.Express, _Transport]:
            connection, transport = lane(), _Transport()
            connection.connection_made(transport)
            return connection, transport

        try:
            await test(server, connect)
        finally:
            await server.close()

    asyncio.run(main())
    return handlers


def _create_queue(connect: Any) -> str:
    """The URL of queue ``q``, created over a connection of its own."""
    setup, setup_transport = connect()
    setup.data_received(_json("CreateQueue", {"QueueName": "q"}))
    url: str = json.loads(_answers(setup_transport)[0][2])["QueueUrl"]
    return url


def _answers(transport: _Transport) -> list[tuple[int, dict[str, str], bytes]]:
    """The answers written: status, headers, body (split by ``Content-Length``)."""
    return _answers_of(transport.written)


def _answers_of(written: list[bytes]) -> list[tuple[int, dict[str, str], bytes]]:
    data = b"".join(written)
    answers = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        length = int(headers["Content-Length"])
        answers.append((int(lines[0].split()[1]), headers, rest[:length]))
        data = rest[length:]
    return answers


# -- answered by the lane -------------------------------------------------------------------


def test_a_plain_call_is_answered_as_aiohttp_would_frame_it() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(_json("CreateQueue", {"QueueName": "q"}))
        [(status, headers, body)] = _answers(transport)
        assert status == 200
        assert list(headers) == [
            "x-amzn-RequestId",
            "Content-Type",
            "Content-Length",
            "Date",
            "Server",
        ]
        assert json.loads(body)["QueueUrl"].endswith("/123456789012/q")
        assert transport.written[0].startswith(b"HTTP/1.1 200 OK\r\n")
        assert not transport.closed
        assert server.runtime.backend.queues()[0].name == "q"

    assert _run(test) == []  # nothing handed to aiohttp


def test_pipelined_and_split_requests_are_answered_in_order() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        first = _json("CreateQueue", {"QueueName": "a"})
        second = _json("CreateQueue", {"QueueName": "b"})
        third = _json("ListQueues", {})
        connection.data_received(first + second[:10])  # the second's head split
        assert len(transport.written) == 1
        connection.data_received(second[10:] + third)
        answers = _answers(transport)
        assert [status for status, _, _ in answers] == [200, 200, 200]
        urls = json.loads(answers[2][2])["QueueUrls"]
        assert [url.rsplit("/", 1)[1] for url in urls] == ["a", "b"]

    assert _run(test) == []


def test_spaces_after_a_header_value_are_not_part_of_it() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        request = _json("CreateQueue", {"QueueName": "q"})
        request = request.replace(b"AmazonSQS.CreateQueue\r\n", b"AmazonSQS.CreateQueue \t \r\n")
        connection.data_received(request)
        [(status, _, _)] = _answers(transport)
        assert status == 200
        assert server.runtime.backend.queues()[0].name == "q"

    assert _run(test) == []


def test_connection_close_is_answered_then_closed() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        later = _json("CreateQueue", {"QueueName": "later"})
        connection.data_received(_json("ListQueues", {}, extra="Connection: close\r\n") + later)
        [(status, headers, _)] = _answers(transport)
        assert status == 200
        assert headers["Connection"] == "close"
        assert transport.closed
        assert server.runtime.backend.queues() == []  # nothing after the close was run

    _run(test)


def test_an_sqs_error_is_answered_by_the_lane() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(_json("GetQueueUrl", {"QueueName": "missing"}))
        [(status, headers, body)] = _answers(transport)
        assert status == 400
        assert headers["x-amzn-query-error"] == "AWS.SimpleQueueService.NonExistentQueue;Sender"
        assert json.loads(body)["__type"] == "com.amazonaws.sqs#QueueDoesNotExist"

    assert _run(test) == []


def test_a_long_poll_is_awaited_and_a_hang_up_ends_it() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        url = _create_queue(connect)
        sender, _ = connect()
        connection, transport = connect()
        poll = _json("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20})
        connection.data_received(poll + _json("ListQueues", {}))  # the second waits its turn
        await asyncio.sleep(0)
        assert transport.written == []
        queue = server.runtime.backend.queues()[0]
        assert queue.waiting() == 1
        sender.data_received(_json("SendMessage", {"QueueUrl": url, "MessageBody": "hi"}))
        for _ in range(5):
            await asyncio.sleep(0)
        answers = _answers(transport)
        assert [status for status, _, _ in answers] == [200, 200]
        assert json.loads(answers[0][2])["Messages"][0]["Body"] == "hi"
        assert "QueueUrls" in json.loads(answers[1][2])

        # A poll whose client hangs up is cancelled: a message sent afterwards stays visible.
        gone, _ = connect()
        gone.data_received(poll)
        await asyncio.sleep(0)
        assert queue.waiting() == 1
        task = gone._busy
        assert task is not None
        gone.connection_lost(None)
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert queue.waiting() == 0
        sender.data_received(_json("SendMessage", {"QueueUrl": url, "MessageBody": "kept"}))
        await asyncio.sleep(0)
        assert [(m.body, m.state) for m in queue.peek()] == [
            ("hi", "inflight"),
            ("kept", "visible"),
        ]

    assert _run(test, clock="wall") == []


def test_an_idle_connection_is_closed_after_the_idle_timeout() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(_json("ListQueues", {}))
        await asyncio.sleep(0.05)
        assert not transport.closed
        await asyncio.sleep(0.3)
        assert transport.closed

    _run(test, idle_timeout=0.2)


def test_reading_pauses_while_unanswered_requests_pile_up() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.pause_writing()  # the client reads none of its answers
        request = _json("ListQueues", {})
        connection.data_received(request * (express._BUFFER_LIMIT // len(request) + 2))
        assert transport.written == []
        assert not transport.reading
        connection.resume_writing()
        assert transport.reading
        assert len(_answers(transport)) == express._BUFFER_LIMIT // len(request) + 2

    assert _run(test) == []


def test_stopping_closes_idle_connections() -> None:
    transports: list[_Transport] = []

    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(_json("ListQueues", {}))
        transports.append(transport)

    _run(test)
    assert transports[0].closed


# -- handed over to aiohttp ----------------------------------------------------------------


_BODY = b'{"QueueName": "q"}'
_HEAD = (
    "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: AmazonSQS.CreateQueue\r\n"
    "Content-Type: application/x-amz-json-1.0\r\n"
)
_PLAIN = f"{_HEAD}Content-Length: {len(_BODY)}\r\n\r\n".encode() + _BODY


@pytest.mark.parametrize(
    "request_bytes",
    [
        pytest.param(_PLAIN.replace(b"POST", b"PUT"), id="another method"),
        pytest.param(_PLAIN.replace(b"HTTP/1.1", b"HTTP/1.0"), id="HTTP/1.0"),
        pytest.param(_PLAIN.replace(b"POST /", b"POST /_sqsmock/queues"), id="admin path"),
        pytest.param(_PLAIN.replace(b"POST /", b"POST /?Action=ListQueues"), id="query string"),
        pytest.param(_PLAIN.replace(b"POST /", b"POST /%61"), id="escaped path"),
        pytest.param(_PLAIN.replace(b"POST /", b"POST /a/../"), id="dot segment"),
        pytest.param(
            f"{_HEAD}Transfer-Encoding: chunked\r\n\r\n12\r\n".encode() + _BODY + b"\r\n0\r\n\r\n",
            id="chunked",
        ),
        pytest.param(_PLAIN.replace(b"Host:", b"Expect: 100-continue\r\nHost:"), id="expect"),
        pytest.param(
            _PLAIN.replace(b"Host:", b"Origin: http://localhost:3000\r\nHost:"), id="origin"
        ),
        pytest.param(_PLAIN.replace(b"Host:", b"Content-Encoding: gzip\r\nHost:"), id="encoded"),
        pytest.param(_PLAIN.replace(b"Host:", b"Upgrade: h2c\r\nHost:"), id="upgrade"),
        pytest.param(_PLAIN.replace(b"Host:", b"X-A: 1\r\nx-a: 2\r\nHost:"), id="repeated"),
        pytest.param(_PLAIN.replace(b"Host:", b"X-A: 1\r\n folded\r\nHost:"), id="folded line"),
        pytest.param(_PLAIN.replace(b"Host:", b"X-A : 1\r\nHost:"), id="space before colon"),
        pytest.param(_PLAIN.replace(b"Host:", b"X-A: 1\nHost:"), id="bare line feed"),
        pytest.param(_PLAIN.replace(b"Host:", b"X-A: \xc3\xa9\r\nHost:"), id="not ASCII"),
        pytest.param(_PLAIN.replace(b"Host: localhost", b"Host: evil.example"), id="refused host"),
        pytest.param(
            _PLAIN.replace(b"Content-Length: 18", b"Content-Length: +18"), id="odd length"
        ),
        pytest.param(_PLAIN.replace(b"Content-Length: 18\r\n", b""), id="no length"),
        pytest.param(_PLAIN.replace(b"Host:", b"Connection: upgrade\r\nHost:"), id="connection"),
        pytest.param(
            _PLAIN.replace(b"Host:", b"X-Big: " + b"a" * heads.HEAD_LIMIT + b"\r\nHost:"),
            id="head too large",
        ),
    ],
)
def test_anything_else_is_handed_to_aiohttp_with_every_byte(request_bytes: bytes) -> None:
    before = _json("ListQueues", {})

    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(before + request_bytes)
        assert len(_answers(transport)) == 1  # the plain call before it, by the lane
        assert transport.protocol is not None
        assert connection not in server._lane.connections  # type: ignore[union-attr]
        assert server.runtime.backend.queues() == []  # the lane ran nothing of it

    [handler] = _run(test)
    assert handler.made
    assert handler.data == request_bytes


def test_a_body_in_pieces_is_waited_for() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(_PLAIN[:-5])
        assert transport.written == []
        connection.data_received(_PLAIN[-5:] + _json("ListQueues", {}))
        assert [status for status, _, _ in _answers(transport)] == [200, 200]
        assert server.runtime.backend.queues()[0].name == "q"
        await asyncio.sleep(0.2)  # past read_timeout: the deadline went with the body
        assert not transport.closed

    assert _run(test, read_timeout=0.1) == []


def test_a_large_body_in_pieces_keeps_being_read() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(_json("CreateQueue", {"QueueName": "q"}))
        url = json.loads(_answers(transport)[0][2])["QueueUrl"]
        transport.written.clear()
        text = "é" * (512 * 1024)  # 1 MiB of UTF-8, 3 MiB as JSON escapes
        request = _json("SendMessage", {"QueueUrl": url, "MessageBody": text})
        assert len(request) > 3 * express._BUFFER_LIMIT
        for start in range(0, len(request), 65536):
            connection.data_received(request[start : start + 65536])
            assert transport.reading
        [(status, _, _)] = _answers(transport)
        assert status == 200
        assert [m.body for m in server.runtime.backend.queues()[0].peek()] == [text]

    assert _run(test) == []


def test_a_body_that_stops_arriving_gets_408_and_the_connection_closes() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(_PLAIN[:-5])
        await asyncio.sleep(0)
        assert transport.written == []  # nothing answered before the read time-out
        started = asyncio.get_running_loop().time()
        while not transport.written and asyncio.get_running_loop().time() - started < 5:
            await asyncio.sleep(0.02)  # the server's own (wall-clock) read time-out
        [(status, headers, body)] = _answers(transport)
        assert status == 408
        assert headers["Connection"] == "close"
        assert json.loads(body)["__type"] == "com.amazonaws.sqs#RequestTimeout"
        assert transport.closed
        assert server.runtime.backend.queues() == []

    assert _run(test, read_timeout=0.1, idle_timeout=0.05) == []


def test_stopping_answers_a_request_whose_body_is_still_arriving() -> None:
    """As for aiohttp's handler: a request under way when the server stops is answered, and
    the runtime closes only after."""

    async def main() -> list[bytes]:
        server = SqsHttpServer(Runtime(ServerOptions(clock="frozen")))
        await server.start("127.0.0.1", 0)
        assert server._lane is not None
        connection, transport = server._lane(), _Transport()
        connection.connection_made(transport)
        connection.data_received(_PLAIN[:-5])
        closing = asyncio.ensure_future(server.close())
        for _ in range(5):
            await asyncio.sleep(0)
        assert not closing.done()  # waiting for the request under way
        connection.data_received(_PLAIN[-5:])
        await asyncio.wait_for(closing, 5)
        assert transport.closed
        return transport.written

    written = asyncio.run(main())
    [(status, _, body)] = _answers_of(written)
    assert status == 200
    assert json.loads(body)["QueueUrl"].endswith("/q")


def test_a_body_cut_short_by_the_client_is_left_to_aiohttp() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(_PLAIN[:-5])
        connection.eof_received()
        assert transport.written == []

    [handler] = _run(test)
    assert handler.data == _PLAIN[:-5]
    assert handler.eof


def test_a_body_too_large_is_left_to_aiohttp_unread() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        head = f"{_HEAD}Content-Length: 1001\r\n\r\n".encode()
        connection.data_received(head + b"x" * 1001)
        assert transport.written == []

    [handler] = _run(test, body_limit=1000)
    assert handler.data.startswith(b"POST / HTTP/1.1")


def test_a_stopping_server_hands_new_requests_to_aiohttp() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        server._lane.stopping = True  # type: ignore[union-attr]
        connection.data_received(_PLAIN)
        assert transport.written == []

    [handler] = _run(test)
    assert handler.data == _PLAIN


def test_a_half_request_then_eof_is_handed_over_with_the_eof() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, _ = connect()
        connection.data_received(_PLAIN[:20])
        connection.eof_received()

    [handler] = _run(test)
    assert handler.data == _PLAIN[:20]
    assert handler.eof


# -- end to end: the lane's answers are aiohttp's -------------------------------------------


_VARYING = re.compile(rb"x-amzn-RequestId: [^\r]*|Date: [^\r]*|<RequestId>[^<]*</RequestId>")


def _exchange(sock: socket.socket, data: bytes) -> bytes:
    sock.sendall(data)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection"
        head += chunk
    top, _, body = head.partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", top)[1])  # type: ignore[index]
    while len(body) < length:
        body += sock.recv(65536)
    return _VARYING.sub(b"-", top + b"\r\n\r\n" + body)


@pytest.mark.parametrize(
    "calls",
    [
        pytest.param(
            [
                _json("CreateQueue", {"QueueName": "same"}),
                _json("GetQueueUrl", {"QueueName": "same"}),
                _json("GetQueueUrl", {"QueueName": "missing"}),
                _json(
                    "ListQueues",
                    {},
                    extra="X-Amzn-Trace-Id: Root=1-5759e988-bd862e3fe1be46a994272793\r\n",
                ),
                _json("NoSuchOperation", {}),
                _json("SendMessage", {"QueueUrl": "nope"}),
            ],
            id="json",
        ),
        pytest.param(
            [
                _query("/", "Action=CreateQueue&QueueName=same"),
                _query("/", "Action=ListQueues"),
                _query("/123456789012/nope", "Action=GetQueueAttributes&AttributeName.1=All"),
                _query("/", "Action=SendMessage&QueueUrl=%2F123456789012%2Fsame&MessageBody="),
            ],
            id="query",
        ),
    ],
)
def test_the_lane_answers_byte_for_byte_as_aiohttp_does(calls: list[bytes]) -> None:
    """Each call twice: on a connection of the lane's, then on one handed to aiohttp (its
    first request carries a header the lane leaves to aiohttp)."""
    with sqsmock.serve(port=0) as server:
        address = ("127.0.0.1", server.port)
        with (
            socket.create_connection(address, timeout=10) as lane,
            socket.create_connection(address, timeout=10) as handed,
        ):
            opening = _json("ListQueues", {}, extra="X-A: 1\r\nX-A: 2\r\n")
            _exchange(handed, opening)
            for call in calls:
                assert _exchange(lane, call) == _exchange(handed, call)


def test_a_connection_handed_over_goes_on_being_answered() -> None:
    with (
        sqsmock.serve(port=0) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock,
    ):
        assert _exchange(sock, _json("ListQueues", {})).startswith(b"HTTP/1.1 200")
        expect = _json("CreateQueue", {"QueueName": "q"}, extra="Expect: 100-continue\r\n")
        head, _, body = expect.partition(b"\r\n\r\n")
        sock.sendall(head + b"\r\n\r\n")
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        answer = _exchange(sock, b"")
        assert answer.startswith(b"HTTP/1.1 200")
        assert b"QueueUrl" in answer
        assert _exchange(sock, _json("ListQueues", {})).endswith(b'/123456789012/q"]}')


def test_every_route_of_the_server_but_sqs_is_left_to_aiohttp() -> None:
    """The lane answers only SQS paths: the server's own routes all start with ``/_``, which
    the lane's request line refuses."""
    from sqsmock._adapters.http import admin, localstack
    from sqsmock._protocol import developer

    for path in (admin.PATH, localstack.PATH, developer.PATH):
        assert path.startswith("/_")
        assert heads.REQUEST_LINE.match(f"POST {path} HTTP/1.1\r\n") is None
    assert heads.REQUEST_LINE.match("POST /123456789012/q HTTP/1.1\r\n") is not None


def test_a_closing_request_is_answered_as_aiohttp_answers_it() -> None:
    closing = _json("ListQueues", {}, extra="Connection: close\r\n")
    with sqsmock.serve(port=0) as server:
        address = ("127.0.0.1", server.port)
        with socket.create_connection(address, timeout=10) as lane:
            lane.sendall(closing)
            by_lane = read_all(lane, 10)  # until the server closes the connection
        with socket.create_connection(address, timeout=10) as handed:
            _exchange(handed, _json("ListQueues", {}, extra="X-A: 1\r\nX-A: 2\r\n"))
            handed.sendall(closing)
            by_aiohttp = read_all(handed, 10)
    assert b"\r\nConnection: close\r\n" in by_lane
    assert _VARYING.sub(b"-", by_lane) == _VARYING.sub(b"-", by_aiohttp)


# -- the corners: no spin, no leak, no exception, aiohttp's limits ---------------------------


def test_the_idle_timer_does_not_spin_while_a_call_is_awaited() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        url = _create_queue(connect)
        connection, _ = connect()
        fired: list[None] = []
        idle = connection._idle
        connection._idle = lambda: (fired.append(None), idle())  # type: ignore[method-assign]
        await asyncio.sleep(0.06)  # past the idle timeout's first deadline...
        connection.data_received(_json("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20}))
        await asyncio.sleep(0.3)  # ...then a long poll outlasts several more
        assert 1 <= len(fired) <= 10
        assert connection._busy is not None  # still polling, not closed

    _run(test, clock="wall", idle_timeout=0.1)


def test_a_call_whose_client_left_before_it_began_is_counted_out() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        url = _create_queue(connect)
        connection, _ = connect()
        connection.data_received(_json("ReceiveMessage", {"QueueUrl": url, "WaitTimeSeconds": 20}))
        connection.connection_lost(None)  # before the task awaiting the poll took a step
        for _ in range(3):
            await asyncio.sleep(0)
        assert server._in_flight == 0
        assert server.runtime.backend.queues()[0].waiting() == 0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gc.collect()  # a coroutine never awaited warns when collected
        assert [str(w.message) for w in caught] == []

    _run(test, clock="wall")


@pytest.mark.parametrize(
    "request_bytes",
    [
        pytest.param(
            _PLAIN.replace(b"Content-Length: 18", b"Content-Length: " + b"0" * 5000 + b"18"),
            id="length of 5000 digits",
        ),
        pytest.param(
            _PLAIN.replace(b"Host: localhost", b"Host: localhost:" + b"1" * 5000),
            id="port of 5000 digits",
        ),
        pytest.param(
            _PLAIN.replace(b"Host:", b"".join(b"X-H%d: v\r\n" % n for n in range(100)) + b"Host:"),
            id="100 headers",
        ),
    ],
)
def test_heads_past_the_lane_are_left_to_aiohttp(request_bytes: bytes) -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(request_bytes)
        assert transport.written == []

    [handler] = _run(test)
    assert handler.data == request_bytes


@pytest.mark.parametrize(
    "partial",
    [
        pytest.param(b"POST / HTTP/1.1\nHost: localhost\n", id="bare line feeds"),
        pytest.param(b"GET / HTTP/1.1\r\nHost: loc", id="another method"),
    ],
)
def test_an_unfinished_head_that_is_not_the_lanes_goes_to_aiohttp_at_once(partial: bytes) -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, _ = connect()
        connection.data_received(partial)

    [handler] = _run(test)
    assert handler.data == partial


def test_with_an_idle_timeout_of_zero_each_answer_closes_its_connection() -> None:
    async def test(server: SqsHttpServer, connect: Any) -> None:
        connection, transport = connect()
        connection.data_received(_json("ListQueues", {}) + _json("ListQueues", {}))
        assert len(_answers(transport)) == 1
        assert transport.closed

    _run(test, idle_timeout=0)


@pytest.mark.parametrize(
    ("head", "status"),
    [
        pytest.param(b"Content-Length: " + b"0" * 5000 + b"2\r\n", 400, id="length"),
        pytest.param(b"Content-Length: 2\r\nX-P: 1\r\n", 403, id="port"),
    ],
)
def test_numbers_too_long_for_int_get_an_answer_not_a_500(head: bytes, status: int) -> None:
    host = b"localhost:" + b"1" * 5000 if status == 403 else b"localhost"
    data = (
        b"POST / HTTP/1.1\r\nHost: " + host + b"\r\nX-Amz-Target: AmazonSQS.ListQueues\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\n" + head + b"\r\n{}"
    )
    with (
        sqsmock.serve(port=0) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock,
    ):
        sock.sendall(data)
        raw = read_all(sock, 10)
    assert raw.startswith(b"HTTP/1.1 %d " % status), raw[:200]


def test_an_admin_request_with_a_length_too_long_for_int_gets_a_400() -> None:
    """The admin API reads the declared length as the SQS endpoint does: digits past what int()
    reads are a bad request, not a fault of the server's."""
    data = (
        b"POST /_sqsmock/clock/advance HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: " + b"0" * 5000 + b"2\r\n\r\n{}"
    )
    with (
        sqsmock.serve(port=0) as server,
        socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock,
    ):
        sock.sendall(data)
        raw = read_all(sock, 10)
    assert raw.startswith(b"HTTP/1.1 400 "), raw[:200]
    assert b"Content-Length is not a number of bytes" in raw
