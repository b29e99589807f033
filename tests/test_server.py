"""sqsmock's HTTP server: boto3 over HTTP, raw query-protocol requests, regions and accounts,
the admin API, long polls, and the ``serve()`` handle."""

from __future__ import annotations

import hashlib
import logging
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from server_support import (
    ACCOUNT,
    REGION,
    AnswerReader,
    admin,
    call_json,
    call_query,
    client,
    request,
    status_of,
    wait_until,
    waiting_polls,
)

import sqsmock
from sqsmock import SqsServer


@pytest.fixture(autouse=True)
def _nothing_logged_as_an_error(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    yield
    logged = caplog.get_records("call")
    assert not [r.getMessage() for r in logged if r.levelno >= logging.ERROR]


@pytest.fixture(scope="module")
def module_server() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0) as server:
        yield server


@pytest.fixture
def server(module_server: SqsServer) -> SqsServer:
    module_server.reset()
    return module_server


@pytest.fixture
def frozen() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0, clock="frozen") as server:
        yield server


@pytest.fixture
def sqs(server: SqsServer) -> Any:
    return client(server.endpoint_url)


def queue_path(name: str, region: str = REGION, account: str = ACCOUNT) -> str:
    return f"/queue/{region}/{account}/{name}"


# -- boto3 over HTTP (AWS JSON 1.0) ------------------------------------------------------------


def test_boto3_round_trip_over_http(server: SqsServer, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
    assert url == f"{server.endpoint_url}{queue_path('jobs')}"
    sent = sqs.send_message(
        QueueUrl=url,
        MessageBody="héllo",
        MessageAttributes={
            "kind": {"DataType": "String", "StringValue": "greeting"},
            "raw": {"DataType": "Binary", "BinaryValue": b"\x00\xff"},
        },
    )
    assert sent["MD5OfMessageBody"] == hashlib.md5("héllo".encode()).hexdigest()
    got = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"], WaitTimeSeconds=1)
    (message,) = got["Messages"]
    assert message["Body"] == "héllo"
    assert message["MessageAttributes"]["raw"]["BinaryValue"] == b"\x00\xff"
    assert message["MD5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    assert [view.state for view in server.peek("jobs")] == ["inflight"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    assert server.peek(url) == []
    assert sqs.list_queues()["QueueUrls"] == [url]


def test_boto3_gets_modeled_errors(sqs: Any) -> None:
    with pytest.raises(sqs.exceptions.QueueDoesNotExist) as raised:
        sqs.get_queue_url(QueueName="missing")
    error = raised.value.response["Error"]
    assert error["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_batch_and_attributes_over_http(sqs: Any) -> None:
    url = sqs.create_queue(QueueName="q.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    entries = [
        {
            "Id": str(i),
            "MessageBody": f"m{i}",
            "MessageGroupId": "g",
            "MessageDeduplicationId": f"d{i}",
        }
        for i in range(10)
    ]
    assert len(sqs.send_message_batch(QueueUrl=url, Entries=entries)["Successful"]) == 10
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessages"] == "10"
    assert attributes["QueueArn"] == f"arn:aws:sqs:{REGION}:{ACCOUNT}:q.fifo"


def test_queue_urls_follow_the_host_the_client_used(server: SqsServer) -> None:
    answer = call_json(
        server.endpoint_url, "CreateQueue", {"QueueName": "q"}, {"Host": "sqs.localhost:4566"}
    )
    assert answer.json()["QueueUrl"] == f"http://sqs.localhost:4566{queue_path('q')}"


def test_queue_urls_of_a_host_that_is_no_url_host_are_the_servers() -> None:
    with sqsmock.serve(port=0, allow_hosts=["*"]) as server:
        endpoint = server.endpoint_url
        call_json(endpoint, "CreateQueue", {"QueueName": "q"}, {"Host": "sqs.local:4566"})
        garbage = call_json(endpoint, "GetQueueUrl", {"QueueName": "q"}, {"Host": "bad host/<x>"})
        assert garbage.json()["QueueUrl"] == f"{endpoint}{queue_path('q')}"


# -- the query protocol ------------------------------------------------------------------------


def test_query_protocol_form_in_xml_out(server: SqsServer) -> None:
    created = call_query(
        server.endpoint_url,
        [
            ("Action", "CreateQueue"),
            ("QueueName", "q"),
            ("Attribute.1.Name", "DelaySeconds"),
            ("Attribute.1.Value", "0"),
            ("Version", "2012-11-05"),
        ],
    )
    assert created.status == 200
    assert created.headers["content-type"] == "text/xml"
    url = created.find("CreateQueueResult/QueueUrl")
    assert url == f"{server.endpoint_url}{queue_path('q')}"
    sent = call_query(
        server.endpoint_url,
        [("Action", "SendMessage"), ("QueueUrl", url or ""), ("MessageBody", "a b&c")],
    )
    assert sent.find("SendMessageResult/MD5OfMessageBody") == hashlib.md5(b"a b&c").hexdigest()
    assert [view.body for view in server.peek("q")] == ["a b&c"]


def test_query_requests_posted_to_the_queue_url_path(server: SqsServer) -> None:
    call_query(server.endpoint_url, [("Action", "CreateQueue"), ("QueueName", "q")])
    path = queue_path("q")
    sent = call_query(server.endpoint_url, [("Action", "SendMessage"), ("MessageBody", "x")], path)
    assert sent.status == 200
    received = call_query(server.endpoint_url, [("Action", "ReceiveMessage")], path)
    assert received.find("ReceiveMessageResult/Message/Body") == "x"
    # The ElasticMQ / moto path form (account and name) works too.
    sent = call_query(
        server.endpoint_url, [("Action", "SendMessage"), ("MessageBody", "y")], f"/{ACCOUNT}/q"
    )
    assert sent.status == 200
    assert [view.body for view in server.peek("q")] == ["x", "y"]


def test_query_protocol_errors_are_error_responses(server: SqsServer) -> None:
    answer = call_query(server.endpoint_url, [("Action", "GetQueueUrl"), ("QueueName", "missing")])
    assert answer.status == 400
    assert answer.find("Error/Code") == "AWS.SimpleQueueService.NonExistentQueue"
    assert answer.find("Error/Type") == "Sender"
    assert answer.xml().tag == "{http://queue.amazonaws.com/doc/2012-11-05/}ErrorResponse"


def test_query_protocol_by_get(server: SqsServer) -> None:
    call_query(server.endpoint_url, [("Action", "CreateQueue"), ("QueueName", "q")])
    answer = request(server.endpoint_url, "GET", "/?Action=ListQueues&Version=2012-11-05")
    assert answer.status == 200
    assert answer.find("ListQueuesResult/QueueUrl") == f"{server.endpoint_url}{queue_path('q')}"


# -- regions, accounts, URL forms --------------------------------------------------------------


def test_one_name_in_two_regions_gives_two_queues(server: SqsServer) -> None:
    east = client(server.endpoint_url, "us-east-1")
    west = client(server.endpoint_url, "eu-west-1")
    east_url = east.create_queue(QueueName="same")["QueueUrl"]
    west_url = west.create_queue(QueueName="same")["QueueUrl"]
    assert east_url.endswith("/queue/us-east-1/123456789012/same")
    assert west_url.endswith("/queue/eu-west-1/123456789012/same")
    east.send_message(QueueUrl=east_url, MessageBody="east")
    # The region is in the URL: a client of either region reaches either queue by its URL.
    assert west.receive_message(QueueUrl=west_url).get("Messages") is None
    assert east.receive_message(QueueUrl=east_url)["Messages"][0]["Body"] == "east"
    assert west.list_queues()["QueueUrls"] == [west_url]


def test_twelve_digit_access_key_selects_the_account(server: SqsServer) -> None:
    other = client(server.endpoint_url, key="111122223333")
    default = client(server.endpoint_url, key="AKIAEXAMPLE")
    url = other.create_queue(QueueName="mine")["QueueUrl"]
    assert url.endswith("/queue/us-east-1/111122223333/mine")
    assert "QueueUrls" not in default.list_queues()
    arn = other.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
    assert arn["Attributes"]["QueueArn"] == "arn:aws:sqs:us-east-1:111122223333:mine"


@pytest.mark.parametrize(
    "form",
    [
        "{endpoint}/queue/us-east-1/123456789012/q",
        "{endpoint}/123456789012/q",
        "https://sqs.us-east-1.amazonaws.com/123456789012/q",
        "https://queue.amazonaws.com/123456789012/q",
        "http://localhost:4566/123456789012/q",
        "q",
    ],
)
def test_every_queue_url_form_is_accepted(server: SqsServer, sqs: Any, form: str) -> None:
    sqs.create_queue(QueueName="q")
    sqs.send_message(QueueUrl=form.format(endpoint=server.endpoint_url), MessageBody="x")
    assert [view.body for view in server.peek("q")] == ["x"]


# -- the admin API -----------------------------------------------------------------------------


def test_admin_health(server: SqsServer, sqs: Any) -> None:
    sqs.create_queue(QueueName="a")
    answer = admin(server.endpoint_url, "GET", "health")
    assert answer.status == 200
    assert answer.json() == {
        "status": "ok",
        "version": sqsmock.__version__,
        "queues": 1,
        "region": REGION,
        "account": ACCOUNT,
    }


def test_admin_reset(server: SqsServer, sqs: Any) -> None:
    sqs.create_queue(QueueName="a")
    assert admin(server.endpoint_url, "POST", "reset").status == 200
    assert "QueueUrls" not in sqs.list_queues()
    assert admin(server.endpoint_url, "GET", "reset").status == 405


def test_admin_clock_and_advance(frozen: SqsServer) -> None:
    endpoint = frozen.endpoint_url
    before = admin(endpoint, "GET", "clock").json()
    assert before["frozen"] is True
    assert before["now"] == frozen.clock.now()
    after = admin(endpoint, "POST", "clock/advance", {"seconds": 90.5}).json()
    assert after["now"] == before["now"] + 90.5
    assert frozen.clock.now() == after["now"]
    assert after["iso"].endswith("+00:00")


def test_advancing_the_clock_over_http_ends_visibility_timeouts(frozen: SqsServer) -> None:
    sqs = client(frozen.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    assert len(sqs.receive_message(QueueUrl=url, VisibilityTimeout=60)["Messages"]) == 1
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    admin(frozen.endpoint_url, "POST", "clock/advance", {"seconds": 60})
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "x"


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json",
        b"[1]",
        b"{}",
        b'{"seconds": "5"}',
        b'{"seconds": true}',
        b'{"seconds": -1}',
        b'{"seconds": NaN}',
        b'{"seconds": Infinity}',
        b'{"seconds": null}',
        b"\xff\xfe",
    ],
)
def test_admin_advance_refuses_bad_input(server: SqsServer, body: bytes) -> None:
    now = server.clock.now()
    answer = admin(server.endpoint_url, "POST", "clock/advance", body)
    assert answer.status == 400
    assert "seconds" in answer.json()["error"]
    assert server.clock.now() - now < 5  # not moved (a wall clock runs on by itself)


def test_admin_queues_lists_counts_and_urls(server: SqsServer, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="b")["QueueUrl"]
    sqs.create_queue(QueueName="a.fifo", Attributes={"FifoQueue": "true"})
    client(server.endpoint_url, "eu-west-1").create_queue(QueueName="c")
    sqs.send_message(QueueUrl=url, MessageBody="1")
    sqs.send_message(QueueUrl=url, MessageBody="2", DelaySeconds=30)
    sqs.send_message(QueueUrl=url, MessageBody="3")
    sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)
    queues = admin(server.endpoint_url, "GET", "queues").json()
    assert [(q["region"], q["name"]) for q in queues] == [
        ("eu-west-1", "c"),
        ("us-east-1", "a.fifo"),
        ("us-east-1", "b"),
    ]
    b = queues[2]
    assert b["url"] == url
    assert b["account"] == ACCOUNT
    assert b["fifo"] is False
    assert b["messages"] == {"visible": 1, "inflight": 1, "delayed": 1}
    assert b["long_polls_waiting"] == 0
    assert queues[1]["fifo"] is True


def test_admin_peek_of_one_queue(server: SqsServer, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(
        QueueUrl=url,
        MessageBody="hello",
        MessageAttributes={"k": {"DataType": "String", "StringValue": "v"}},
    )
    by_path = admin(server.endpoint_url, "GET", f"queues/{REGION}/{ACCOUNT}/q/messages")
    assert by_path.status == 200
    (message,) = by_path.json()
    assert message["body"] == "hello"
    assert message["state"] == "visible"
    assert message["message_attributes"]["k"]["StringValue"] == "v"
    assert message["attributes"]["SenderId"] == ACCOUNT
    by_url = admin(server.endpoint_url, "GET", f"messages?queue={url}")
    assert by_url.json() == by_path.json()
    by_name = admin(server.endpoint_url, "GET", "messages?queue=q")
    assert by_name.json() == by_path.json()
    assert server.peek("q")[0].message_id == message["message_id"]  # peeking changed nothing


def test_admin_peek_of_a_missing_queue(server: SqsServer) -> None:
    missing = admin(server.endpoint_url, "GET", f"queues/{REGION}/{ACCOUNT}/nope/messages")
    assert missing.status == 404
    assert "nope" in missing.json()["error"]
    assert admin(server.endpoint_url, "GET", "messages").status == 400


def test_admin_unknown_endpoint_and_method(server: SqsServer) -> None:
    unknown = admin(server.endpoint_url, "GET", "nothing/here")
    assert unknown.status == 404
    assert unknown.headers["content-type"].startswith("application/json")
    assert admin(server.endpoint_url, "POST", "health").status == 405
    assert admin(server.endpoint_url, "DELETE", "queues").status == 405


def test_admin_metrics_in_prometheus_text(server: SqsServer, sqs: Any) -> None:
    before = admin(server.endpoint_url, "GET", "metrics").body.decode()
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="1")
    sqs.send_message(QueueUrl=url, MessageBody="2")
    sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.get_queue_url(QueueName="missing")
    answer = admin(server.endpoint_url, "GET", "metrics")
    assert answer.status == 200
    assert answer.headers["content-type"].startswith("text/plain")
    text = answer.body.decode()

    def value(line_start: str, source: str = text) -> int:
        for line in source.splitlines():
            if line.startswith(line_start + " "):
                return int(line.rsplit(" ", 1)[1])
        return 0

    calls = 'sqsmock_calls_total{operation="SendMessage",outcome="ok"}'
    assert value(calls) - value(calls, before) == 2
    missing = 'sqsmock_calls_total{operation="GetQueueUrl",outcome="QueueDoesNotExist"}'
    assert value(missing) - value(missing, before) == 1
    labels = f'region="{REGION}",account="{ACCOUNT}",queue="q"'
    assert value(f'sqsmock_messages{{{labels},state="visible"}}') == 1
    assert value(f'sqsmock_messages{{{labels},state="inflight"}}') == 1
    assert value(f"sqsmock_long_polls_waiting{{{labels}}}") == 0
    assert value("sqsmock_queues") == 1
    assert "# TYPE sqsmock_calls_total counter" in text


# -- long polls --------------------------------------------------------------------------------


def test_a_send_wakes_a_long_poll_at_once(server: SqsServer, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    with ThreadPoolExecutor(1) as pool:
        started = time.monotonic()
        polling = pool.submit(sqs.receive_message, QueueUrl=url, WaitTimeSeconds=20)
        wait_until(lambda: waiting_polls(server.endpoint_url) == 1)
        client(server.endpoint_url).send_message(QueueUrl=url, MessageBody="wake")
        got = polling.result(timeout=10)
    assert got["Messages"][0]["Body"] == "wake"
    assert time.monotonic() - started < 10  # woken, not timed out after 20 s


def test_frozen_clock_long_poll_jumps_time(frozen: SqsServer) -> None:
    sqs = client(frozen.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    start = frozen.clock.now()
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=7)
    got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)
    assert got["Messages"][0]["Body"] == "later"
    assert frozen.clock.now() == pytest.approx(start + 7)
    assert "Messages" not in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)
    assert frozen.clock.now() == pytest.approx(start + 27)


def test_two_hundred_long_polls_hold_no_thread(server: SqsServer, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    body = f'{{"QueueUrl": "{url}", "WaitTimeSeconds": 20}}'.encode()
    head = (
        "POST / HTTP/1.1\r\nHost: {host}\r\nX-Amz-Target: AmazonSQS.ReceiveMessage\r\n"
        "Content-Type: application/x-amz-json-1.0\r\nContent-Length: {length}\r\n\r\n"
    ).format(host=f"127.0.0.1:{server.port}", length=len(body))
    threads_before = threading.active_count()
    sockets = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(200)]
    try:
        for sock in sockets:
            sock.sendall(head.encode() + body)
        wait_until(lambda: waiting_polls(server.endpoint_url) == 200)
        assert threading.active_count() <= threads_before  # the server thread alone serves them
        metrics = admin(server.endpoint_url, "GET", "metrics").body.decode()
        assert "sqsmock_long_polls_waiting{" in metrics
        assert 'queue="q"} 200' in metrics
        sqs.send_message(QueueUrl=url, MessageBody="one")
        wait_until(lambda: waiting_polls(server.endpoint_url) == 199)
        server.clock.advance(20)  # the others' wait ends
        answers = [AnswerReader(sock).answer() for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
    assert all(status_of(answer) == 200 for answer in answers)
    assert sum(b'"Body":"one"' in answer for answer in answers) == 1
    assert waiting_polls(server.endpoint_url) == 0


def test_a_client_that_hangs_up_ends_its_long_poll(server: SqsServer, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    body = f'{{"QueueUrl": "{url}", "WaitTimeSeconds": 20}}'.encode()
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: AmazonSQS.ReceiveMessage\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        wait_until(lambda: waiting_polls(server.endpoint_url) == 1)
    wait_until(lambda: waiting_polls(server.endpoint_url) == 0)
    # A message sent now is not taken by the poll nobody listens to any more.
    sqs.send_message(QueueUrl=url, MessageBody="kept")
    assert [view.state for view in server.peek("q")] == ["visible"]


# -- the serve() handle ------------------------------------------------------------------------


def test_serve_handle_lifecycle() -> None:
    server = sqsmock.serve(port=0, region="eu-west-1", account_id="210987654321")
    assert not server.active
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.endpoint_url
    assert server.start() is server
    try:
        assert server.start() is server  # already serving: the same server
        assert server.active
        assert server.host == "127.0.0.1"
        assert server.port > 0
        assert server.endpoint_url == f"http://127.0.0.1:{server.port}"
        assert repr(server) == f"<SqsServer eu-west-1/210987654321 {server.endpoint_url}>"
        url = client(server.endpoint_url, "eu-west-1").create_queue(QueueName="q")["QueueUrl"]
        assert url == f"{server.endpoint_url}/queue/eu-west-1/210987654321/q"
        assert server.backend.queues()[0].name == "q"
        port = server.port
    finally:
        server.stop()
    server.stop()  # a second stop does nothing
    assert not server.active
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    with pytest.raises(RuntimeError, match="not running"):
        server.reset()


def test_serve_as_an_async_context_manager() -> None:
    import asyncio

    async def scenario() -> str:
        async with sqsmock.serve(port=0) as server:
            assert server.active
            return await asyncio.to_thread(
                lambda: client(server.endpoint_url).create_queue(QueueName="q")["QueueUrl"]
            )

    assert asyncio.run(scenario()).endswith("/queue/us-east-1/123456789012/q")


def test_serve_restarts_empty() -> None:
    server = sqsmock.serve(port=0)
    with server:
        client(server.endpoint_url).create_queue(QueueName="q")
    with server:
        assert "QueueUrls" not in client(server.endpoint_url).list_queues()


def test_serve_handle_clock_reset_peek(frozen: SqsServer) -> None:
    sqs = client(frozen.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    sqs.receive_message(QueueUrl=url, VisibilityTimeout=30)
    assert frozen.peek(url)[0].state == "inflight"
    frozen.clock.advance(30)
    assert frozen.peek("q")[0].state == "visible"
    frozen.reset()
    assert "QueueUrls" not in sqs.list_queues()


def test_serve_rejects_bad_options() -> None:
    with pytest.raises(ValueError, match="account_id"):
        sqsmock.serve(account_id="12")
    with pytest.raises(ValueError, match="port"):
        sqsmock.serve(port=70000)
    with pytest.raises(ValueError, match="clock"):
        sqsmock.serve(clock="sundial")


def test_serve_on_a_port_in_use_raises(server: SqsServer) -> None:
    with pytest.raises(OSError):
        sqsmock.serve(port=server.port).start()


def test_serve_on_every_interface_gives_a_local_endpoint() -> None:
    with sqsmock.serve(host="0.0.0.0", port=0) as server:
        assert server.endpoint_url == f"http://127.0.0.1:{server.port}"
        assert admin(server.endpoint_url, "GET", "health").status == 200


def test_stop_ends_waiting_long_polls() -> None:
    server = sqsmock.serve(port=0)
    server.start()
    try:
        sqs = client(server.endpoint_url)
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        with ThreadPoolExecutor(1) as pool:
            polling = pool.submit(sqs.receive_message, QueueUrl=url, WaitTimeSeconds=20)
            wait_until(lambda: waiting_polls(server.endpoint_url) == 1)
            started = time.monotonic()
            server.stop()
            assert polling.result(timeout=10).get("Messages") is None
            assert time.monotonic() - started < 10
    finally:
        server.stop()


def test_keep_alive_connection_serves_many_calls(server: SqsServer) -> None:
    body = b'{"QueueName": "q"}'
    one = (
        b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: AmazonSQS.CreateQueue\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(one * 3)  # pipelined
        reader = AnswerReader(sock)
        answers = [reader.answer() for _ in range(3)]
    assert [status_of(answer) for answer in answers] == [200, 200, 200]


# -- the pytest fixture ------------------------------------------------------------------------


@pytest.mark.slow
def test_sqs_server_fixture_is_one_server_emptied_per_test(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("")
    pytester.makepyfile(
        """
        import boto3

        PORTS = []

        def make(server):
            return boto3.client(
                "sqs", endpoint_url=server.endpoint_url, region_name="us-east-1",
                aws_access_key_id="k", aws_secret_access_key="s",
            )

        def test_first(sqs_server):
            PORTS.append(sqs_server.port)
            make(sqs_server).create_queue(QueueName="left-over")
            assert sqs_server.peek("left-over") == []

        def test_second(sqs_server):
            PORTS.append(sqs_server.port)
            assert "QueueUrls" not in make(sqs_server).list_queues()
            assert PORTS[0] == PORTS[1]
            sqs_server.clock.advance(1)
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2)


@pytest.mark.slow
def test_the_in_process_mock_does_not_import_aiohttp() -> None:
    code = (
        "import sys, boto3, sqsmock\n"
        "with sqsmock.mock_sqs():\n"
        "    boto3.client('sqs', region_name='us-east-1').create_queue(QueueName='q')\n"
        "import sqsmock.plugin\n"
        "assert 'aiohttp' not in sys.modules, 'aiohttp imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
