"""boto3 over HTTP, and raw requests in both wire protocols, against a running server."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import types
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import boto3
import pytest
from botocore.config import Config
from clients_support import (
    ACCESS_KEY,
    ACCOUNT,
    REGION,
    SECRET_KEY,
    client_env,
    queue_url,
    stop_process,
)

import sqsmock
from sqsmock._engine import Queue

NS = {"sqs": "http://queue.amazonaws.com/doc/2012-11-05/"}


def client(server: Any, region: str = REGION, access_key: str = ACCESS_KEY) -> Any:
    return boto3.client(
        "sqs",
        endpoint_url=server.endpoint_url,
        region_name=region,
        aws_access_key_id=access_key,
        aws_secret_access_key=SECRET_KEY,
        config=Config(retries={"max_attempts": 1}, read_timeout=30),
    )


def record_http(sqs: Any) -> list[str]:
    """The URLs that ``sqs`` really sends HTTP requests to, from now on (an in-process answer
    would send none)."""
    sent: list[str] = []
    session = sqs._endpoint.http_session
    send = session.send

    def recording_send(request: Any) -> Any:
        sent.append(request.url)
        return send(request)

    session.send = recording_send
    return sent


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


# -- boto3 -----------------------------------------------------------------------------------


def test_round_trip(sqs_server: Any) -> None:
    sqs = client(sqs_server)
    requests = record_http(sqs)
    url = sqs.create_queue(QueueName="trip", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    assert url == queue_url(sqs_server.endpoint_url, "trip")
    assert requests == [sqs_server.endpoint_url + "/"]
    body = "ünïcode ✓ <xml> & \r\n"
    sent = sqs.send_message(
        QueueUrl=url,
        MessageBody=body,
        MessageAttributes={
            "b": {"DataType": "Binary", "BinaryValue": b"\x00\xff"},
            "s": {"DataType": "String", "StringValue": "v"},
        },
    )
    assert sent["MD5OfMessageBody"] == md5(body)
    [message] = sqs.receive_message(
        QueueUrl=url, MessageAttributeNames=["All"], MessageSystemAttributeNames=["All"]
    )["Messages"]
    assert message["Body"] == body
    assert message["MessageId"] == sent["MessageId"]
    assert message["MessageAttributes"]["b"] == {"DataType": "Binary", "BinaryValue": b"\x00\xff"}
    assert message["Attributes"]["ApproximateReceiveCount"] == "1"

    [view] = sqs_server.peek("trip")
    assert (view.body, view.state, view.receive_count) == (body, "inflight", 1)
    sqs_server.clock.advance(31)  # the visibility timeout lapses
    [again] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert again["MessageId"] == sent["MessageId"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=again["ReceiptHandle"])
    assert sqs_server.peek("trip") == []
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    assert len(requests) == 6  # every call went over HTTP


def test_errors(sqs_server: Any) -> None:
    sqs = client(sqs_server)
    with pytest.raises(sqs.exceptions.QueueDoesNotExist) as missing:
        sqs.get_queue_url(QueueName="missing")
    error = missing.value.response["Error"]
    assert error["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert error["QueryErrorCode"] == "QueueDoesNotExist"
    assert error["Type"] == "Sender"
    assert error["Message"] == "The specified queue does not exist."
    assert missing.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400

    url = sqs.create_queue(QueueName="e")["QueueUrl"]
    with pytest.raises(sqs.exceptions.ReceiptHandleIsInvalid):
        sqs.delete_message(QueueUrl=url, ReceiptHandle="nonsense")
    with pytest.raises(sqs.exceptions.ClientError) as bad:
        sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=11)
    assert bad.value.response["Error"]["Code"] == "InvalidParameterValue"


def test_long_poll_is_woken_by_a_send_from_another_thread(
    wall_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = threading.Event()  # set when the server starts holding a long poll
    add_waiter = Queue.add_waiter

    def signalling(queue: Queue, wake: Any) -> None:
        add_waiter(queue, wake)
        held.set()

    monkeypatch.setattr(Queue, "add_waiter", signalling)
    sqs = client(wall_server)
    url = sqs.create_queue(QueueName="wake")["QueueUrl"]
    polling = threading.Event()
    answers: list[Any] = []

    def poll() -> None:
        own = client(wall_server)
        polling.set()
        answers.append(own.receive_message(QueueUrl=url, WaitTimeSeconds=20))

    poller = threading.Thread(target=poll)
    started = time.monotonic()
    poller.start()
    try:
        polling.wait(10)
        assert held.wait(10), "the server never held the long poll"
        sqs.send_message(QueueUrl=url, MessageBody="wake up")
    finally:
        poller.join(25)
    elapsed = time.monotonic() - started
    assert not poller.is_alive()
    assert [m["Body"] for m in answers[0]["Messages"]] == ["wake up"]
    assert elapsed < 10  # woken, not timed out after 20 s


def test_two_regions_two_urls_and_the_account_from_the_access_key(sqs_server: Any) -> None:
    east = client(sqs_server, "us-east-1")
    west = client(sqs_server, "eu-west-1")
    url_east = east.create_queue(QueueName="same")["QueueUrl"]
    url_west = west.create_queue(QueueName="same")["QueueUrl"]
    assert url_east == queue_url(sqs_server.endpoint_url, "same", region="us-east-1")
    assert url_west == queue_url(sqs_server.endpoint_url, "same", region="eu-west-1")
    east.send_message(QueueUrl=url_east, MessageBody="east")
    assert east.get_queue_attributes(QueueUrl=url_east, AttributeNames=["QueueArn"])[
        "Attributes"
    ] == {"QueueArn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:same"}
    assert west.get_queue_attributes(
        QueueUrl=url_west, AttributeNames=["ApproximateNumberOfMessages", "QueueArn"]
    )["Attributes"] == {
        "ApproximateNumberOfMessages": "0",
        "QueueArn": f"arn:aws:sqs:eu-west-1:{ACCOUNT}:same",
    }
    assert west.list_queues()["QueueUrls"] == [url_west]

    other = client(sqs_server, access_key="210987654321")
    mine = other.create_queue(QueueName="same")["QueueUrl"]
    assert mine == queue_url(sqs_server.endpoint_url, "same", account="210987654321")
    assert other.list_queues()["QueueUrls"] == [mine]
    assert (
        other.get_queue_attributes(QueueUrl=mine, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        == "arn:aws:sqs:us-east-1:210987654321:same"
    )


def test_largest_message_fits_whatever_its_encoding_costs(sqs_server: Any) -> None:
    """A 1 MiB body (the default MaximumMessageSize) of characters that JSON escapes and forms
    percent-encode: the request is two to three times larger than the message."""
    sqs = client(sqs_server)
    url = sqs.create_queue(QueueName="big")["QueueUrl"]
    body = '"\\' * (1024 * 1024 // 2)
    assert len(body.encode()) == 1024 * 1024
    assert sqs.send_message(QueueUrl=url, MessageBody=body)["MD5OfMessageBody"] == md5(body)
    status, root = query(sqs_server, urlsplit(url).path, Action="SendMessage", MessageBody=body)
    assert status == 200, ET.tostring(root)
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] == body for m in received] == [True, True]
    with pytest.raises(sqs.exceptions.ClientError) as too_long:
        sqs.send_message(QueueUrl=url, MessageBody=body + "x")
    assert too_long.value.response["Error"]["Code"] == "InvalidParameterValue"


def test_many_clients_at_once(wall_server: Any) -> None:
    url = client(wall_server).create_queue(QueueName="busy")["QueueUrl"]
    errors: list[BaseException] = []

    def produce(worker: int) -> None:
        try:
            sqs = client(wall_server)
            for start in range(0, 50, 10):
                entries = [
                    {"Id": str(i), "MessageBody": f"{worker}:{i}"} for i in range(start, start + 10)
                ]
                assert (
                    len(sqs.send_message_batch(QueueUrl=url, Entries=entries)["Successful"]) == 10
                )
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=produce, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    sqs = client(wall_server)
    bodies: set[str] = set()
    for _ in range(100):
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            break
        bodies.update(m["Body"] for m in messages)
        sqs.delete_message_batch(
            QueueUrl=url,
            Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)
            ],
        )
    assert bodies == {f"{w}:{i}" for w in range(8) for i in range(50)}


# -- raw requests ----------------------------------------------------------------------------


def post(
    server: Any, path: str, body: bytes, headers: dict[str, str], method: str = "POST"
) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(server.endpoint_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return (
            response.status,
            {k.lower(): v for k, v in response.getheaders()},
            response.read(),
        )
    finally:
        connection.close()


def query(server: Any, path: str = "/", **params: str) -> tuple[int, ET.Element]:
    status, headers, body = post(
        server,
        path,
        urlencode(params).encode(),
        {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
    )
    assert headers["content-type"].startswith("text/xml")
    return status, ET.fromstring(body)


def text(root: ET.Element, path: str) -> str | None:
    return root.findtext(path, namespaces=NS)


def test_query_protocol_by_hand(sqs_server: Any) -> None:
    status, root = query(sqs_server, Action="CreateQueue", QueueName="q", Version="2012-11-05")
    assert status == 200
    assert root.tag == f"{{{NS['sqs']}}}CreateQueueResponse"
    url = text(root, "sqs:CreateQueueResult/sqs:QueueUrl")
    assert url == queue_url(sqs_server.endpoint_url, "q")
    assert text(root, "sqs:ResponseMetadata/sqs:RequestId")

    # Sent to the queue's own path, without a QueueUrl parameter.
    path = urlsplit(url).path
    body = 'tags <a href="x">&amp;</a> ✓\r\nnext'
    status, root = query(
        sqs_server,
        path,
        Action="SendMessage",
        MessageBody=body,
        **{
            "MessageAttribute.1.Name": "colour",
            "MessageAttribute.1.Value.DataType": "String",
            "MessageAttribute.1.Value.StringValue": "blue",
        },
    )
    assert status == 200
    assert text(root, "sqs:SendMessageResult/sqs:MD5OfMessageBody") == md5(body)
    message_id = text(root, "sqs:SendMessageResult/sqs:MessageId")

    # The legacy path /<account>/<name> names the same queue.
    status, root = query(
        sqs_server,
        f"/{ACCOUNT}/q",
        Action="ReceiveMessage",
        **{"AttributeName.1": "All", "MessageAttributeName.1": "All"},
    )
    assert status == 200
    [message] = root.findall("sqs:ReceiveMessageResult/sqs:Message", NS)
    assert text(message, "sqs:MessageId") == message_id
    assert text(message, "sqs:Body") == body  # \r survives the XML (sent as &#xD;)
    assert text(message, "sqs:MD5OfBody") == md5(body)
    attributes = {
        text(a, "sqs:Name"): text(a, "sqs:Value") for a in message.findall("sqs:Attribute", NS)
    }
    assert attributes["ApproximateReceiveCount"] == "1"
    [attribute] = message.findall("sqs:MessageAttribute", NS)
    assert text(attribute, "sqs:Name") == "colour"
    assert text(attribute, "sqs:Value/sqs:StringValue") == "blue"
    assert text(attribute, "sqs:Value/sqs:DataType") == "String"

    status, root = query(sqs_server, Action="ListQueues")
    assert [e.text for e in root.findall("sqs:ListQueuesResult/sqs:QueueUrl", NS)] == [url]

    # The query protocol also takes its parameters from the URL of a GET.
    status, _, raw = post(sqs_server, "/?" + urlencode({"Action": "ListQueues"}), b"", {}, "GET")
    assert status == 200
    assert url in raw.decode()


def test_query_protocol_errors(sqs_server: Any) -> None:
    status, root = query(sqs_server, Action="GetQueueUrl", QueueName="missing")
    assert status == 400
    assert root.tag == f"{{{NS['sqs']}}}ErrorResponse"
    assert text(root, "sqs:Error/sqs:Type") == "Sender"
    assert text(root, "sqs:Error/sqs:Code") == "AWS.SimpleQueueService.NonExistentQueue"
    # The query protocol words it as SQS's older API did (AWS-recorded).
    assert text(root, "sqs:Error/sqs:Message") == (
        "The specified queue does not exist for this wsdl version."
    )
    assert text(root, "sqs:RequestId")

    status, root = query(sqs_server, Action="NoSuchThing")
    assert status == 400
    assert text(root, "sqs:Error/sqs:Code") == "InvalidAction"


def test_json_protocol_by_hand(sqs_server: Any) -> None:
    def call(operation: str, params: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        status, headers, body = post(
            sqs_server,
            "/",
            json.dumps(params).encode(),
            {
                "Content-Type": "application/x-amz-json-1.0",
                "X-Amz-Target": f"AmazonSQS.{operation}",
            },
        )
        return status, headers, json.loads(body)

    status, headers, answer = call("CreateQueue", {"QueueName": "j"})
    assert status == 200
    assert answer == {"QueueUrl": queue_url(sqs_server.endpoint_url, "j")}
    assert headers["x-amzn-requestid"]

    status, _, answer = call("SendMessage", {"QueueUrl": answer["QueueUrl"], "MessageBody": "{}"})
    assert status == 200
    assert answer["MD5OfMessageBody"] == md5("{}")

    status, headers, answer = call("GetQueueUrl", {"QueueName": "missing"})
    assert status == 400
    assert answer["__type"] == "com.amazonaws.sqs#QueueDoesNotExist"
    assert answer["message"] == "The specified queue does not exist."
    assert headers["x-amzn-query-error"] == "AWS.SimpleQueueService.NonExistentQueue;Sender"


# -- the command line ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve_command(command: list[str]) -> Iterator[tuple[subprocess.Popen, str, list[str]]]:
    """Run ``command`` (an ``sqsmock serve``) until it prints its endpoint URL; always stop it."""
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [*command, "serve", "--host", "127.0.0.1", "--port", str(port), "--clock", "frozen"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=client_env(),
    )
    lines: list[str] = []
    listening = threading.Event()

    def read() -> None:  # keep draining the output so that logging never blocks the server
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if endpoint in line:
                listening.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert listening.wait(30), f"no line naming {endpoint}:\n{''.join(lines)}"
        yield process, endpoint, lines
    finally:
        stop_process(process)
        reader.join(10)


@pytest.mark.parametrize(
    ("command", "stop"),
    [
        ([str(Path(sys.executable).with_name("sqsmock"))], signal.SIGTERM),
        ([sys.executable, "-m", "sqsmock"], signal.SIGINT),
    ],
    ids=["sqsmock-SIGTERM", "python-m-sqsmock-SIGINT"],
)
def test_sqsmock_serve_command(command: list[str], stop: signal.Signals) -> None:
    with serve_command(command) as (process, endpoint, lines):
        server = types.SimpleNamespace(endpoint_url=endpoint)
        sqs = client(server, region="eu-central-1")
        url = sqs.create_queue(QueueName="cli")["QueueUrl"]
        assert url == queue_url(endpoint, "cli", region="eu-central-1")
        sqs.send_message(QueueUrl=url, MessageBody="over the wire")
        [message] = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"]
        assert message["Body"] == "over the wire"
        with urllib.request.urlopen(endpoint + "/_sqsmock/health", timeout=10) as answer:
            assert answer.status == 200
            assert json.loads(answer.read())["version"] == sqsmock.__version__
        process.send_signal(stop)
        assert process.wait(15) == 0, "".join(lines)
