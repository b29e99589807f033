"""Redrive policies that loop: a queue that is its own dead-letter queue, and queues that are each
other's. SQS accepts both; no message may be swallowed by them (moved on every receive, never
delivered, while the counters say it is there)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import boto3
import fakeredis
import pytest

from sqsmock import FrozenClock, mock_sqs

pytestmark = pytest.mark.sqsmock(clock="frozen")

VISIBILITY = 5
COUNTERS = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]


def create(client: Any, name: str, fifo: bool) -> str:
    attributes = {"VisibilityTimeout": str(VISIBILITY)}
    if fifo:
        name += ".fifo"
        attributes["FifoQueue"] = "true"
    return client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]


def arn_of(client: Any, url: str) -> str:
    got = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
    return got["Attributes"]["QueueArn"]


def redrive_to(client: Any, url: str, target: str, max_receive_count: int = 1) -> None:
    policy = {"deadLetterTargetArn": arn_of(client, target), "maxReceiveCount": max_receive_count}
    client.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": json.dumps(policy)})


def send(client: Any, url: str, body: str = "payload") -> str:
    extra = {"MessageGroupId": "g", "MessageDeduplicationId": body} if url.endswith(".fifo") else {}
    return client.send_message(QueueUrl=url, MessageBody=body, **extra)["MessageId"]


def receive(client: Any, url: str) -> list[dict[str, Any]]:
    return client.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"]
    ).get("Messages", [])


def counters(client: Any, url: str) -> tuple[int, int]:
    got = client.get_queue_attributes(QueueUrl=url, AttributeNames=COUNTERS)["Attributes"]
    return int(got[COUNTERS[0]]), int(got[COUNTERS[1]])


@pytest.mark.parametrize("fifo", [False, True], ids=["standard", "fifo"])
def test_a_queue_may_be_its_own_dead_letter_queue(sqs_client, fifo):
    url = create(sqs_client, "self", fifo)
    redrive_to(sqs_client, url, url)
    got = sqs_client.get_queue_attributes(QueueUrl=url, AttributeNames=["RedrivePolicy"])
    assert json.loads(got["Attributes"]["RedrivePolicy"])["deadLetterTargetArn"] == arn_of(
        sqs_client, url
    )
    listed = sqs_client.list_dead_letter_source_queues(QueueUrl=url)["queueUrls"]
    assert listed == [url]


@pytest.mark.parametrize("fifo", [False, True], ids=["standard", "fifo"])
def test_own_dead_letter_queue_keeps_delivering_past_max_receive_count(sqs_client, sqs_mock, fifo):
    """Moving a message to the queue it is in changes nothing: it stays, is delivered on every
    receive, and its receive count goes on counting."""
    url = create(sqs_client, "self", fifo)
    redrive_to(sqs_client, url, url, max_receive_count=2)
    sent = send(sqs_client, url)
    for receive_count in range(1, 7):
        assert counters(sqs_client, url) == (1, 0)
        (got,) = receive(sqs_client, url)
        assert got["MessageId"] == sent
        assert got["Attributes"]["ApproximateReceiveCount"] == str(receive_count)
        assert "DeadLetterQueueSourceArn" not in got["Attributes"]
        assert counters(sqs_client, url) == (0, 1)
        sqs_mock.clock.advance(VISIBILITY + 1)
    assert [m.message_id for m in sqs_mock.peek(url)] == [sent]


@pytest.mark.parametrize("fifo", [False, True], ids=["standard", "fifo"])
def test_two_queue_cycle_delivers_the_message_in_each_queue(sqs_client, sqs_mock, fifo):
    """A -> B -> A: a moved message is handed out in the queue it arrived in before that
    queue's policy moves it on, so it travels back and forth and is received in both."""
    a = create(sqs_client, "a", fifo)
    b = create(sqs_client, "b", fifo)
    redrive_to(sqs_client, a, b)
    redrive_to(sqs_client, b, a)
    sent = send(sqs_client, a)
    where, other = a, b
    for receive_count in range(1, 7):
        (got,) = receive(sqs_client, where)
        assert got["MessageId"] == sent
        assert got["Attributes"]["ApproximateReceiveCount"] == str(receive_count)
        sqs_mock.clock.advance(VISIBILITY + 1)
        assert counters(sqs_client, where) == (1, 0)
        assert counters(sqs_client, other) == (0, 0)
        assert receive(sqs_client, where) == []  # the receive that moves it
        assert counters(sqs_client, where) == (0, 0)
        assert counters(sqs_client, other) == (1, 0)
        assert [m.message_id for m in sqs_mock.peek(other)] == [sent]
        where, other = other, where


def test_three_queue_cycle_never_swallows_a_message(sqs_client, sqs_mock):
    urls = [create(sqs_client, name, False) for name in ("a", "b", "c")]
    for source, target in zip(urls, urls[1:] + urls[:1], strict=True):
        redrive_to(sqs_client, source, target)
    send(sqs_client, urls[0])
    delivered = 0
    for _ in range(12):
        for url in urls:
            delivered += len(receive(sqs_client, url))
        sqs_mock.clock.advance(VISIBILITY + 1)
        assert sum(sum(counters(sqs_client, url)) for url in urls) == 1
    assert delivered >= 6


def test_a_chain_without_a_loop_still_moves_on_at_once(sqs_client, sqs_mock):
    """A -> B -> C: a message whose receive count, carried on from A, exceeds B's too, leaves B
    on its first receive there (only a loop delivers it first)."""
    a, b, c = (create(sqs_client, name, False) for name in ("a", "b", "c"))
    redrive_to(sqs_client, a, b, max_receive_count=2)
    redrive_to(sqs_client, b, c, max_receive_count=1)
    sent = send(sqs_client, a)
    for _ in range(3):
        receive(sqs_client, a)
        sqs_mock.clock.advance(VISIBILITY + 1)
    assert counters(sqs_client, b) == (1, 0)
    assert receive(sqs_client, b) == []
    (got,) = receive(sqs_client, c)
    assert got["MessageId"] == sent
    assert got["Attributes"]["ApproximateReceiveCount"] == "3"


@pytest.mark.parametrize("fifo", [False, True], ids=["standard", "fifo"])
def test_two_queue_cycle_with_persistence_survives_a_restart(fifo):
    """The move writes through to the store, and a restored message that arrived by a move is
    still delivered before it moves on."""
    server = fakeredis.FakeServer()
    namespace = f"sqsmock-test-{uuid.uuid4().hex}:"
    clock = FrozenClock(start=1_700_000_000.0)

    def start() -> Any:
        return mock_sqs(
            persistence=fakeredis.FakeRedis(server=server), namespace=namespace, clock=clock
        )

    with start():
        client = boto3.client("sqs", region_name="us-east-1")
        a = create(client, "a", fifo)
        b = create(client, "b", fifo)
        redrive_to(client, a, b)
        redrive_to(client, b, a)
        sent = send(client, a)
        assert len(receive(client, a)) == 1
        clock.advance(VISIBILITY + 1)
        assert receive(client, a) == []  # moved to b
    with start():
        client = boto3.client("sqs", region_name="us-east-1")
        assert counters(client, a) == (0, 0)
        assert counters(client, b) == (1, 0)
        (got,) = receive(client, b)
        assert got["MessageId"] == sent
        assert got["Attributes"]["ApproximateReceiveCount"] == "2"
        clock.advance(VISIBILITY + 1)
        assert receive(client, b) == []  # moved back to a
    with start():
        client = boto3.client("sqs", region_name="us-east-1")
        assert counters(client, b) == (0, 0)
        (got,) = receive(client, a)
        assert got["MessageId"] == sent
        assert got["Attributes"]["ApproximateReceiveCount"] == "3"
