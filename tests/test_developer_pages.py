"""LocalStack's developer endpoint (``/_aws/sqs/messages``), bounded: an answer lists at most
1,000 messages and 4 MiB of bodies, in ReceiveMessage's shape still, with the ``NextToken`` of
the rest in the ``X-Sqsmock-Next-Token`` header."""

from __future__ import annotations

import hashlib
import json
import urllib.parse
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import Answer, client, request

import sqsmock
from sqsmock._engine.message import Message

NEXT = "x-sqsmock-next-token"


@pytest.fixture(scope="module")
def module_server() -> Iterator[sqsmock.SqsServer]:
    with sqsmock.serve(port=0, clock="frozen") as server:
        yield server


@pytest.fixture
def server(module_server: sqsmock.SqsServer) -> sqsmock.SqsServer:
    module_server.reset()
    return module_server


def listing(server: sqsmock.SqsServer, url: str, **query: str) -> Answer:
    values = urllib.parse.urlencode({"QueueUrl": url, **query})
    return request(
        server.endpoint_url,
        "GET",
        f"/_aws/sqs/messages?{values}",
        headers={"Accept": "application/json"},
    )


def bodies(answer: Answer) -> list[str]:
    found = answer.json()["ReceiveMessageResponse"]["ReceiveMessageResult"]
    messages = (found or {}).get("Message", [])
    return [m["Body"] for m in (messages if isinstance(messages, list) else [messages])]


def every_page(server: sqsmock.SqsServer, url: str, **query: str) -> list[str]:
    found: list[str] = []
    answer = listing(server, url, **query)
    while True:
        assert answer.status == 200, answer.body[:300]
        found += bodies(answer)
        if NEXT not in answer.headers:
            return found
        answer = listing(server, url, **query, NextToken=answer.headers[NEXT])


def fill(sqs: Any, url: str, count: int, body: str = "{}") -> None:
    for start in range(0, count, 10):
        entries = [
            {"Id": str(i), "MessageBody": body.format(start + i)}
            for i in range(min(10, count - start))
        ]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)


def fill_directly(server: sqsmock.SqsServer, name: str, count: int) -> None:
    """``count`` small messages put straight into the queue (quicker than SendMessageBatch)."""
    queue = server.runtime.find_queue(name)
    messages = [
        Message(str(uuid.uuid4()), str(i), hashlib.md5(str(i).encode()).hexdigest(), size=8)
        for i in range(count)
    ]
    queue.send(messages, [None] * count)


def test_a_deep_queue_is_listed_a_thousand_at_a_time(server: sqsmock.SqsServer) -> None:
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="deep")["QueueUrl"]
    fill_directly(server, "deep", 1200)
    first = listing(server, url)
    assert bodies(first) == [str(i) for i in range(1000)]
    rest = listing(server, url, NextToken=first.headers[NEXT])
    assert bodies(rest) == [str(i) for i in range(1000, 1200)]
    assert NEXT not in rest.headers
    xml = request(server.endpoint_url, "GET", f"/_aws/sqs/messages?QueueUrl={url}&MaxResults=2")
    assert xml.status == 200 and xml.find("ReceiveMessageResult/Message/Body") == "0"
    assert NEXT in xml.headers


def test_pages_follow_localstacks_order_across_parts(server: sqsmock.SqsServer) -> None:
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    fill(sqs, url, 7)
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=60)
    sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2)  # 0 and 1 in flight
    flags = {"ShowInvisible": "true", "ShowDelayed": "true"}
    whole = bodies(listing(server, url, **flags))
    assert whole == ["0", "1", "2", "3", "4", "5", "6", "later"]
    for size in ("1", "2", "3"):
        assert every_page(server, url, MaxResults=size, **flags) == whole
    assert every_page(server, url, MaxResults="3") == ["2", "3", "4", "5", "6"]


def test_an_answer_stops_at_four_mib_of_bodies(server: sqsmock.SqsServer) -> None:
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="big")["QueueUrl"]
    for i in range(24):
        sqs.send_message(QueueUrl=url, MessageBody=f"{i:02d}" + "x" * 200_000)
    first = listing(server, url)
    assert len(first.body) < 5 * 1024 * 1024
    assert NEXT in first.headers
    assert [b[:2] for b in every_page(server, url)] == [f"{i:02d}" for i in range(24)]


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ({"MaxResults": "0"}, "InvalidParameterValue"),
        ({"MaxResults": "1001"}, "InvalidParameterValue"),
        ({"MaxResults": "\N{SUPERSCRIPT TWO}"}, "InvalidParameterValue"),
        ({"MaxResults": "1" * 5000}, "InvalidParameterValue"),
        ({"NextToken": "nonsense"}, "InvalidParameterValue"),
        ({"NextToken": "0.5"}, "InvalidParameterValue"),  # in-flight part, not asked for
    ],
)
def test_bad_paging_gets_sqs_errors(
    server: sqsmock.SqsServer, query: dict[str, str], code: str
) -> None:
    url = client(server.endpoint_url).create_queue(QueueName="q")["QueueUrl"]
    answer = listing(server, url, **query)
    assert answer.status == 400
    error = json.loads(answer.body)["ErrorResponse"]["Error"]
    assert error["Code"] == code
    assert len(error["Message"]) < 300


def test_pages_of_a_fifo_queue_keep_held_messages_with_those_in_flight(
    server: sqsmock.SqsServer,
) -> None:
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    for n, group in enumerate(["a", "b", "a", "b", "a"]):
        sqs.send_message(
            QueueUrl=url,
            MessageBody=f"{group}{n}",
            MessageGroupId=group,
            MessageDeduplicationId=str(n),
        )
    sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)  # a0 in flight: a2, a4 held
    flags = {"ShowInvisible": "true"}
    whole = bodies(listing(server, url, **flags))
    assert whole == ["a0", "a2", "a4", "b1", "b3"]
    for size in ("1", "2"):
        assert every_page(server, url, MaxResults=size, **flags) == whole
    assert every_page(server, url, MaxResults="1") == ["b1", "b3"]
