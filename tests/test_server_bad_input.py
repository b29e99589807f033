"""Bad input over the wire: every case gets a 4xx in SQS's format for the request's protocol (or
a closed connection, where nothing could be answered), and the server goes on serving: after
every test it must still answer a health check and an SQS call."""

from __future__ import annotations

import base64
import json
import logging
import random
import socket
import time
import urllib.parse
from collections.abc import Iterator

import pytest
from server_support import (
    admin,
    body_of,
    call_json,
    call_query,
    client,
    raw_exchange,
    read_all,
    status_of,
)

import sqsmock
from sqsmock import SqsServer
from sqsmock._adapters.http import BODY_LIMIT

READ_TIMEOUT = 0.5


@pytest.fixture(scope="module")
def module_server() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0, read_timeout=READ_TIMEOUT, idle_timeout=READ_TIMEOUT) as server:
        yield server


@pytest.fixture
def server(module_server: SqsServer, caplog: pytest.LogCaptureFixture) -> Iterator[SqsServer]:
    module_server.reset()
    yield module_server
    # Bad input is the client's fault: nothing is logged as an error (no traceback).
    logged = caplog.get_records("call")
    assert not [r.getMessage() for r in logged if r.levelno >= logging.ERROR]
    # Whatever the test sent, the server still serves.
    assert admin(module_server.endpoint_url, "GET", "health").status == 200
    sqs = client(module_server.endpoint_url)
    url = sqs.create_queue(QueueName="still-serving")["QueueUrl"]
    assert sqs.get_queue_url(QueueName="still-serving")["QueueUrl"] == url


def exchange(server: SqsServer, data: bytes, **options: float | bool) -> bytes:
    return raw_exchange("127.0.0.1", server.port, data, **options)  # type: ignore[arg-type]


def json_request(body: bytes, target: str = "AmazonSQS.CreateQueue") -> bytes:
    return (
        b"POST / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        b"X-Amz-Target: %s\r\nContent-Type: application/x-amz-json-1.0\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (target.encode(), len(body), body)
    )


def form_request(body: bytes, path: bytes = b"/") -> bytes:
    return (
        b"POST %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (path, len(body), body)
    )


def json_error(raw: bytes) -> tuple[int, str, str]:
    """(status, ``__type`` shape, legacy code) of a JSON-protocol error answer."""
    head = raw.split(b"\r\n\r\n", 1)[0].decode()
    legacy = next(
        line.split(":", 1)[1].strip()
        for line in head.split("\r\n")
        if line.lower().startswith("x-amzn-query-error:")
    )
    payload = json.loads(body_of(raw))
    return status_of(raw), payload["__type"].split("#")[1], legacy.split(";")[0]


def xml_error(raw: bytes) -> tuple[int, str]:
    """(status, legacy code) of a query-protocol ``ErrorResponse``."""
    body = body_of(raw).decode()
    assert body.startswith("<?xml") and "<ErrorResponse" in body, body
    code = body.split("<Code>", 1)[1].split("</Code>", 1)[0]
    return status_of(raw), code


# -- AWS JSON 1.0 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "target", "shape", "code"),
    [
        (
            b'{"QueueName":',
            "AmazonSQS.CreateQueue",
            "InvalidParameterValueException",
            "InvalidParameterValue",
        ),
        (b"[]", "AmazonSQS.CreateQueue", "InvalidParameterValueException", "InvalidParameterValue"),
        (
            b"[" * 100_000,
            "AmazonSQS.CreateQueue",
            "InvalidParameterValueException",
            "InvalidParameterValue",
        ),
        (
            b'{"a":' * 50_000,
            "AmazonSQS.CreateQueue",
            "InvalidParameterValueException",
            "InvalidParameterValue",
        ),
        (
            b'{"QueueName": "\xff\xfe"}',
            "AmazonSQS.CreateQueue",
            "InvalidParameterValueException",
            "InvalidParameterValue",
        ),
        (
            b'{"QueueName": 5}',
            "AmazonSQS.CreateQueue",
            "InvalidParameterValueException",
            "InvalidParameterValue",
        ),
        (
            b'{"QueueName": "q", "Attributes": ["x"]}',
            "AmazonSQS.CreateQueue",
            "InvalidParameterValueException",
            "InvalidParameterValue",
        ),
        (
            b'{"QueueUrl": "q", "MaxNumberOfMessages": "ten"}',
            "AmazonSQS.ReceiveMessage",
            "InvalidParameterValueException",
            "InvalidParameterValue",
        ),
        (
            b'{"QueueUrl": "q", "VisibilityTimeout": NaN, "ReceiptHandle": "x"}',
            "AmazonSQS.ChangeMessageVisibility",
            "InvalidParameterValueException",
            "InvalidParameterValue",
        ),
        (b"{}", "AmazonSQS.CreateQueue", "MissingRequiredParameterException", "MissingParameter"),
        (b"{}", "AmazonSQS.NoSuchOperation", "InvalidAction", "InvalidAction"),
        (b"{}", "DynamoDB_20120810.ListTables", "InvalidAction", "InvalidAction"),
        (b"{}", "", "InvalidAction", "InvalidAction"),
    ],
)
def test_bad_json_requests_get_json_errors(
    server: SqsServer, body: bytes, target: str, shape: str, code: str
) -> None:
    raw = exchange(server, json_request(body, target))
    assert json_error(raw) == (400, shape, code)


def test_every_operation_with_every_wrong_type_gets_a_4xx(server: SqsServer) -> None:
    from sqsmock._protocol.shapes import OPERATIONS, SHAPES

    values: list[object] = [None, [], {}, "x", -1, 2**31, 10**30, 1e308, True, [{}], {"a": {}}]
    sqs = client(server.endpoint_url)
    sqs.create_queue(QueueName="q")
    answered = 0
    for operation, (shape, _, _) in OPERATIONS.items():
        if shape is None:
            continue
        for member in SHAPES[shape][1]:
            for value in values:
                params: dict[str, object] = {"QueueUrl": "q", member[0]: value}
                if operation == "ReceiveMessage" and member[0] != "WaitTimeSeconds":
                    params["WaitTimeSeconds"] = 0  # no real waiting
                if operation == "ReceiveMessage" and member[0] == "WaitTimeSeconds":
                    continue
                answer = call_json(server.endpoint_url, operation, params)
                assert answer.status < 500, (operation, member[0], value, answer.body)
                answered += 1
    assert answered > 500


# -- the query protocol ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"QueueName=q", "MissingAction"),
        (b"&&&===%", "MissingAction"),
        (b"", "MissingAction"),
        (b"Action=NoSuchAction", "InvalidAction"),
        (b"Action=CreateQueue&QueueName=\xff\xfe", "MalformedQueryString"),
        (b"Action=CreateQueue&QueueName=%FF%FE", "MalformedQueryString"),
        (b"Action=ReceiveMessage&QueueUrl=q&MaxNumberOfMessages=ten", "InvalidParameterValue"),
        (
            b"Action=ReceiveMessage&QueueUrl=q&MaxNumberOfMessages=99999999999999999999999",
            "InvalidParameterValue",
        ),
        (b"Action=CreateQueue", "MissingParameter"),
        (b"Action=CreateQueue&QueueName=q&Attribute.1.Value=1", "MissingParameter"),
    ],
)
def test_bad_query_requests_get_xml_errors(server: SqsServer, body: bytes, code: str) -> None:
    raw = exchange(server, form_request(body))
    assert xml_error(raw) == (400, code)


def test_non_utf8_url_query_string(server: SqsServer) -> None:
    raw = exchange(
        server,
        b"GET /?Action=ListQueues&QueueNamePrefix=%FF HTTP/1.1\r\n"
        b"Host: localhost\r\nConnection: close\r\n\r\n",
    )
    assert xml_error(raw) == (400, "MalformedQueryString")


def test_a_browser_get_of_the_root(server: SqsServer) -> None:
    raw = exchange(
        server, b"GET /favicon.ico HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    assert xml_error(raw) == (400, "MissingAction")


# -- sizes -------------------------------------------------------------------------------------


def test_too_large_by_content_length_is_refused_unread(server: SqsServer) -> None:
    head = (
        b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: AmazonSQS.SendMessage\r\n"
        b"Content-Length: %d\r\n\r\n" % (100 * 1024 * 1024)
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head)  # the body is never sent: the answer must not wait for it
        first = sock.recv(65536)
        answered = time.monotonic()
        raw = first + read_all(sock, 10)
        closed = time.monotonic()
    assert json_error(raw)[:2] == (413, "RequestEntityTooLarge")
    assert closed - answered < 5  # the connection closes soon after


def test_too_large_chunked_body_is_refused(server: SqsServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"a" * 65536
        sent = 0
        try:
            while sent <= BODY_LIMIT + len(chunk):
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused and closed while sending: the answer is already there
        raw = read_all(sock, 10)
    assert xml_error(raw) == (413, "RequestEntityTooLarge")


@pytest.mark.slow
def test_the_largest_valid_requests_are_admitted(server: SqsServer) -> None:
    """Encoding inflates a valid request: non-ASCII text 3x as JSON escapes or percent-escapes,
    a binary value of 0xFF bytes 4x as form-encoded base64."""
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="big")["QueueUrl"]
    text = "é" * (512 * 1024)  # 1 MiB of UTF-8
    as_json = json.dumps({"QueueUrl": url, "MessageBody": text}).encode()  # ASCII escapes
    assert len(as_json) > 3 * 1024 * 1024
    assert call_json(server.endpoint_url, "SendMessage", as_json).status == 200
    as_form = urllib.parse.urlencode(
        [("Action", "SendMessage"), ("QueueUrl", url), ("MessageBody", text)]
    ).encode()
    assert call_query(server.endpoint_url, as_form).status == 200
    binary = b"\xff" * (1024 * 1024 - 64)
    with_binary = urllib.parse.urlencode(
        [
            ("Action", "SendMessage"),
            ("QueueUrl", url),
            ("MessageBody", "x"),
            ("MessageAttribute.1.Name", "blob"),
            ("MessageAttribute.1.Value.DataType", "Binary"),
            ("MessageAttribute.1.Value.BinaryValue", base64.b64encode(binary).decode()),
        ]
    ).encode()
    assert len(with_binary) > 4 * 1024 * 1024 - 1024
    answer = call_query(server.endpoint_url, with_binary)
    assert answer.status == 200, answer.body[:300]
    assert len(server.peek("big")) == 3


# -- HTTP itself -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"HELLO WORLD\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(64)) + b"\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Length: 5\r\nContent-Length: 7\r\n\r\nabcdefg",
        b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Long: " + b"a" * 70_000 + b"\r\n\r\n",
        b"POST / HTTP/9.9\r\nHost: localhost\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n",
        b"POST / HTTP/1.1\r\nBad Header Line\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Encoding: gzip\r\nContent-Length: 4\r\n\r\nzzzz",
        b"POST / HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Encoding: bogus\r\nContent-Length: 4\r\n\r\nzzzz",
    ],
)
def test_garbage_http_gets_a_400_in_sqs_format(server: SqsServer, data: bytes) -> None:
    raw = exchange(server, data)
    status, code = xml_error(raw)
    assert 400 <= status < 500
    assert code in ("MalformedHttpRequest", "MissingAction")


@pytest.mark.parametrize(
    "data",
    [
        b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nAction=Lis",
        b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Le",
        b"POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nAction=",
    ],
)
def test_requests_cut_short_by_the_client(server: SqsServer, data: bytes) -> None:
    raw = exchange(server, data, shut=True)  # half-close: nothing more will come
    assert raw == b"" or 400 <= status_of(raw) < 500


@pytest.mark.slow
def test_a_slow_body_times_out_with_408(server: SqsServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: 100\r\n\r\nAction=Lis"
        )
        started = time.monotonic()
        first = sock.recv(65536)
        answered = time.monotonic()
        raw = first + read_all(sock, 10)
    assert xml_error(raw) == (408, "RequestTimeout")
    assert READ_TIMEOUT * 0.8 < answered - started < READ_TIMEOUT * 10


def test_a_slow_head_is_cut_off(server: SqsServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Tar")
        started = time.monotonic()
        raw = read_all(sock, 10)
    assert raw == b""  # closed with nothing to answer: no request was read
    assert time.monotonic() - started < 8


def test_http_1_0_without_host(server: SqsServer) -> None:
    body = b"Action=CreateQueue&QueueName=old"
    raw = exchange(
        server,
        b"POST / HTTP/1.0\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body),
    )
    assert status_of(raw) == 200
    assert f"http://127.0.0.1:{server.port}/queue/us-east-1/123456789012/old".encode() in raw


def test_expect_100_continue_is_answered(server: SqsServer) -> None:
    body = b"Action=CreateQueue&QueueName=patient"
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nExpect: 100-continue\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)
        )
        interim = sock.recv(65536)
        assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        raw = read_all(sock, 10)
    assert status_of(raw) == 200
    assert b"/queue/us-east-1/123456789012/patient" in raw


def test_expect_100_continue_for_too_large_a_body(server: SqsServer) -> None:
    raw = exchange(
        server,
        b"POST / HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\n"
        b"Content-Length: %d\r\n\r\n" % (BODY_LIMIT + 1),
    )
    assert not raw.startswith(b"HTTP/1.1 100")
    assert xml_error(raw) == (413, "RequestEntityTooLarge")


# -- mutations of valid requests (seeded, bounded) ---------------------------------------------

JSON_BODY = (
    b'{"QueueUrl": "q", "MessageBody": "hello", "DelaySeconds": 0, "MessageAttributes": '
    b'{"a": {"DataType": "String", "StringValue": "v"}}}'
)
FORM_BODY = (
    b"Action=SendMessage&QueueUrl=q&MessageBody=hello&DelaySeconds=0&MessageAttribute.1.Name=a"
    b"&MessageAttribute.1.Value.DataType=String&MessageAttribute.1.Value.StringValue=v"
)
INSERTS = [
    b"\r\n",
    b"%",
    b"%F",
    b"\\",
    b'"',
    b"\x00",
    b"\xff",
    b"&",
    b"=",
    b".",
    b"{",
    b"[",
    b"9" * 30,
]


def mutate(rng: random.Random, data: bytes) -> bytes:
    """``data`` with one to four random edits: a byte changed, bytes cut, bytes inserted."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(out) or 1)
        edit = rng.randrange(4)
        if edit == 0 and out:
            out[at] = rng.randrange(256)
        elif edit == 1:
            del out[at : at + rng.randint(1, 8)]
        elif edit == 2:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            out[at:at] = rng.choice(INSERTS)
    return bytes(out)


def test_mutated_bodies_never_get_a_5xx(server: SqsServer) -> None:
    client(server.endpoint_url).create_queue(QueueName="q")
    rng = random.Random(8)
    statuses: set[int] = set()
    for _ in range(300):
        if rng.random() < 0.5:
            raw = exchange(server, json_request(mutate(rng, JSON_BODY), "AmazonSQS.SendMessage"))
        else:
            raw = exchange(server, form_request(mutate(rng, FORM_BODY)))
        status = status_of(raw)
        assert status < 500, raw[:400]
        statuses.add(status)
    assert statuses == {200, 400}  # some mutations stay valid; the rest are told why not


def test_mutated_requests_never_get_a_5xx(server: SqsServer) -> None:
    client(server.endpoint_url).create_queue(QueueName="q")
    rng = random.Random(9)
    requests = [json_request(JSON_BODY, "AmazonSQS.SendMessage"), form_request(FORM_BODY)]
    for _ in range(150):
        raw = exchange(server, mutate(rng, rng.choice(requests)), shut=True, timeout=3)
        if raw:  # aiohttp closes a half-closed connection; an answer may or may not come first
            assert status_of(raw) < 500, raw[:400]
    # (the fixture checks that nothing was logged as an error and that the server serves on)
