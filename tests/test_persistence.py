"""Persistence to Redis: write-through, restart without loss, no resurrection, faults, corruption.

Every test that takes the ``store`` fixture runs twice: against fakeredis and against the real
Redis server on 127.0.0.1:6379 (each test in a namespace of its own, removed afterwards).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import boto3
import fakeredis
import pytest
from botocore.exceptions import BotoCoreError, ClientError
from persist_support import (
    ACCOUNT,
    REAL_HOST,
    REAL_PORT,
    REGION,
    FaultyRedis,
    PrivateRedis,
    Store,
    free_port,
    qid,
    real_redis_problem,
    redis_client,
    text,
)
from sqs_asserts import assert_error

import sqsmock
from sqsmock import Clock, FrozenClock, MockSQS, PersistenceError, mock_sqs
from sqsmock._adapters._stack import active as active_mock
from sqsmock._errors import SqsError

T0 = 1_700_000_000.0
ARN_PREFIX = f"arn:aws:sqs:{REGION}:{ACCOUNT}:"
VISIBLE, INFLIGHT, DELAYED = 0, 1, 2
EXPIRED_HANDLE = (
    "Value {} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."
)
DELETED_RECENTLY = (
    "You must wait 60 seconds after deleting a queue before you can create another with the "
    "same name."
)


# -- fixtures -------------------------------------------------------------------------------


def _real_client() -> Any:
    client = redis_client(REAL_HOST, REAL_PORT)
    problem = real_redis_problem(client)
    if problem is not None:
        pytest.fail(
            f"the Redis server at {REAL_HOST}:{REAL_PORT} is not reachable ({problem}); the "
            "persistence tests run against it as well as fakeredis, start one "
            "(redis-server --port 6379)",
            pytrace=False,
        )
    return client


def _namespace() -> str:
    return f"sqsmock-test-{uuid.uuid4().hex}:"


@pytest.fixture(params=["fakeredis", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    """A Redis database (fakeredis, or the real server) and a fresh namespace in it."""
    namespace = _namespace()
    if request.param == "fakeredis":
        server = fakeredis.FakeServer()
        yield Store(
            "fakeredis",
            fakeredis.FakeRedis(server=server),
            namespace,
            lambda: fakeredis.FakeRedis(server=server),
        )
        return
    client = _real_client()
    found = Store("redis", client, namespace, lambda: redis_client(REAL_HOST, REAL_PORT))
    try:
        yield found
    finally:
        found.drop()


@pytest.fixture(scope="module")
def client() -> Any:
    return boto3.client("sqs", region_name=REGION)


class Persistent:
    """A persistent mock that can be stopped and started again on the same store and clock."""

    def __init__(self, store: Store, persistence: Any = None, namespace: str | None = None):
        self.store = store
        self.persistence = store.client if persistence is None else persistence
        self.namespace = store.namespace if namespace is None else namespace
        self.now = T0
        self.mock: MockSQS | None = None

    def start(self, clock: Clock | None = None) -> MockSQS:
        self.mock = mock_sqs(
            persistence=self.persistence,
            namespace=self.namespace,
            clock=FrozenClock(start=self.now) if clock is None else clock,
        ).start()
        return self.mock

    def stop(self) -> None:
        if self.mock is not None and self.mock.active:
            self.now = self.mock.clock.now()
            self.mock.stop()
        self.mock = None

    def restart(self) -> MockSQS:
        self.stop()
        return self.start()

    @property
    def handle(self) -> MockSQS:
        assert self.mock is not None
        return self.mock

    def advance(self, seconds: float) -> None:
        self.handle.clock.advance(seconds)

    def peek(self, name: str) -> list[sqsmock.MessageView]:
        return self.handle.peek(name)


@pytest.fixture
def sqs(store: Store) -> Iterator[Persistent]:
    persistent = Persistent(store)
    persistent.start()
    try:
        yield persistent
    finally:
        persistent.stop()


@pytest.fixture
def faulty(store: Store) -> FaultyRedis:
    return FaultyRedis(store.client)


@pytest.fixture
def fsqs(store: Store, faulty: FaultyRedis) -> Iterator[Persistent]:
    """A persistent mock whose Redis client can be made to fail (``faulty``)."""
    persistent = Persistent(store, persistence=faulty)
    persistent.start()
    try:
        yield persistent
    finally:
        faulty.fail = False
        faulty.fail_at = None
        persistent.stop()


# -- helpers --------------------------------------------------------------------------------


def receive(client: Any, url: str, n: int = 10, **kwargs: Any) -> list[dict[str, Any]]:
    return client.receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=n,
        MessageSystemAttributeNames=["All"],
        MessageAttributeNames=["All"],
        **kwargs,
    ).get("Messages", [])


def bodies(messages: list[dict[str, Any]]) -> list[str]:
    return [m["Body"] for m in messages]


def counts(client: Any, url: str) -> tuple[int, int, int]:
    attrs = client.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=[
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        ],
    )["Attributes"]
    return (
        int(attrs["ApproximateNumberOfMessages"]),
        int(attrs["ApproximateNumberOfMessagesNotVisible"]),
        int(attrs["ApproximateNumberOfMessagesDelayed"]),
    )


def all_attributes(client: Any, url: str) -> dict[str, str]:
    return dict(client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"])


def tags_of(client: Any, url: str) -> dict[str, str]:
    return dict(client.list_queue_tags(QueueUrl=url).get("Tags", {}))


def create_fifo(client: Any, name: str, **attributes: str) -> str:
    attrs = {"FifoQueue": "true", **attributes}
    return str(client.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"])


def send_fifo(client: Any, url: str, body: str, group: str = "g", dedup: str | None = None) -> Any:
    return client.send_message(
        QueueUrl=url,
        MessageBody=body,
        MessageGroupId=group,
        MessageDeduplicationId=dedup if dedup is not None else body,
    )


def stored_bodies(store: Store, name: str) -> list[str]:
    return sorted(json.loads(v)["body"] for v in store.messages(name).values())


def assert_persistence_error(exc: pytest.ExceptionInfo[PersistenceError]) -> None:
    error = exc.value
    assert isinstance(error, BotoCoreError)
    message = str(error)
    assert message.startswith("sqsmock persistence failed: ")
    assert "Redis failed while" in message
    assert "Connection lost (injected by the test)" in message


def list_tasks(client: Any, source_arn: str) -> list[dict[str, Any]]:
    return list(client.list_message_move_tasks(SourceArn=source_arn, MaxResults=10)["Results"])


# -- restart without loss: queues -----------------------------------------------------------


def test_queues_attributes_and_tags_survive_restart(sqs: Persistent, client: Any) -> None:
    std = client.create_queue(
        QueueName="orders",
        Attributes={
            "VisibilityTimeout": "45",
            "DelaySeconds": "3",
            "MessageRetentionPeriod": "3600",
            "MaximumMessageSize": "2048",
            "ReceiveMessageWaitTimeSeconds": "2",
        },
        tags={"team": "billing", "empty": ""},
    )["QueueUrl"]
    fifo = client.create_queue(
        QueueName="jobs.fifo",
        Attributes={
            "FifoQueue": "true",
            "ContentBasedDeduplication": "true",
            "DeduplicationScope": "messageGroup",
            "FifoThroughputLimit": "perMessageGroupId",
        },
        tags={"kind": "fifo"},
    )["QueueUrl"]
    before = {url: (all_attributes(client, url), tags_of(client, url)) for url in (std, fifo)}
    sqs.advance(10)
    sqs.restart()
    assert sorted(client.list_queues()["QueueUrls"]) == sorted([std, fifo])
    assert client.get_queue_url(QueueName="jobs.fifo")["QueueUrl"] == fifo
    after = {url: (all_attributes(client, url), tags_of(client, url)) for url in (std, fifo)}
    assert after == before
    assert after[std][0]["VisibilityTimeout"] == "45"
    assert after[std][0]["CreatedTimestamp"] == str(int(T0))
    assert after[fifo][0]["DeduplicationScope"] == "messageGroup"


def test_changed_attributes_and_tags_survive_restart(sqs: Persistent, client: Any) -> None:
    url = client.create_queue(QueueName="q", tags={"a": "1", "b": "2"})["QueueUrl"]
    sqs.advance(7)
    client.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "99"})
    client.tag_queue(QueueUrl=url, Tags={"c": "3", "a": "one"})
    client.untag_queue(QueueUrl=url, TagKeys=["b"])
    sqs.restart()
    attrs = all_attributes(client, url)
    assert attrs["VisibilityTimeout"] == "99"
    assert attrs["LastModifiedTimestamp"] == str(int(T0 + 7))
    assert attrs["CreatedTimestamp"] == str(int(T0))
    assert tags_of(client, url) == {"a": "one", "c": "3"}


def test_policy_and_redrive_policies_survive_restart(sqs: Persistent, client: Any) -> None:
    dlq = client.create_queue(QueueName="dead")["QueueUrl"]
    src = client.create_queue(
        QueueName="work",
        Attributes={
            "RedrivePolicy": json.dumps(
                {"deadLetterTargetArn": ARN_PREFIX + "dead", "maxReceiveCount": "2"}
            )
        },
    )["QueueUrl"]
    client.add_permission(
        QueueUrl=src, Label="reader", AWSAccountIds=["111122223333"], Actions=["ReceiveMessage"]
    )
    client.set_queue_attributes(
        QueueUrl=dlq,
        Attributes={
            "RedriveAllowPolicy": json.dumps(
                {"redrivePermission": "byQueue", "sourceQueueArns": [ARN_PREFIX + "work"]}
            )
        },
    )
    before = (all_attributes(client, src), all_attributes(client, dlq))
    assert "Policy" in before[0] and "RedrivePolicy" in before[0]
    sqs.restart()
    assert (all_attributes(client, src), all_attributes(client, dlq)) == before
    assert client.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [src]
    # The redrive policy still acts after the restart.
    sent = client.send_message(QueueUrl=src, MessageBody="poison")["MessageId"]
    assert bodies(receive(client, src, VisibilityTimeout=0)) == ["poison"]
    assert bodies(receive(client, src, VisibilityTimeout=0)) == ["poison"]
    assert receive(client, src) == []
    moved = receive(client, dlq)
    assert [m["MessageId"] for m in moved] == [sent]
    assert moved[0]["Attributes"]["DeadLetterQueueSourceArn"] == ARN_PREFIX + "work"
    # The permission label is still known.
    client.remove_permission(QueueUrl=src, Label="reader")
    assert "Policy" not in all_attributes(client, src)


def test_queues_of_other_regions_survive_restart(
    sqs: Persistent, client: Any, store: Store
) -> None:
    west = boto3.client("sqs", region_name="eu-west-1")
    east_url = client.create_queue(QueueName="q", Attributes={"DelaySeconds": "1"})["QueueUrl"]
    west_url = west.create_queue(QueueName="q", Attributes={"DelaySeconds": "2"})["QueueUrl"]
    west.send_message(QueueUrl=west_url, MessageBody="west")
    assert qid("q", region="eu-west-1") in store.hash("queues")
    sqs.restart()
    assert client.list_queues()["QueueUrls"] == [east_url]
    assert west.list_queues()["QueueUrls"] == [west_url]
    assert all_attributes(client, east_url)["DelaySeconds"] == "1"
    assert all_attributes(west, west_url)["DelaySeconds"] == "2"
    sqs.advance(2)
    assert bodies(receive(west, west_url)) == ["west"]
    assert receive(client, east_url) == []


def test_queue_deleted_recently_survives_restart(sqs: Persistent, client: Any) -> None:
    url = client.create_queue(QueueName="gone")["QueueUrl"]
    client.delete_queue(QueueUrl=url)
    sqs.advance(30)
    sqs.restart()
    with pytest.raises(client.exceptions.QueueDeletedRecently) as exc:
        client.create_queue(QueueName="gone")
    assert_error(
        exc,
        "AWS.SimpleQueueService.QueueDeletedRecently",
        "QueueDeletedRecently",
        DELETED_RECENTLY,
    )
    sqs.advance(30)
    assert client.create_queue(QueueName="gone")["QueueUrl"] == url


def test_purge_cooldown_survives_restart(sqs: Persistent, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.purge_queue(QueueUrl=url)
    sqs.advance(30)
    sqs.restart()
    with pytest.raises(client.exceptions.PurgeQueueInProgress) as exc:
        client.purge_queue(QueueUrl=url)
    assert_error(
        exc,
        "AWS.SimpleQueueService.PurgeQueueInProgress",
        "PurgeQueueInProgress",
        "Only one PurgeQueue operation on q is allowed every 60 seconds.",
        status=403,
    )
    sqs.advance(30)
    client.purge_queue(QueueUrl=url)


def test_state_survives_restart_on_a_wall_clock(store: Store, client: Any) -> None:
    persistent = Persistent(store)
    persistent.start(clock=sqsmock.WallClock())
    try:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="hello")
        persistent.stop()
        persistent.start(clock=sqsmock.WallClock())
        assert bodies(receive(client, url)) == ["hello"]
    finally:
        persistent.stop()


# -- restart without loss: messages ---------------------------------------------------------


def test_message_states_and_counts_survive_restart(
    sqs: Persistent, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="lapsed")
    client.send_message(QueueUrl=url, MessageBody="inflight")
    assert bodies(receive(client, url, n=1, VisibilityTimeout=10)) == ["lapsed"]
    assert bodies(receive(client, url, n=1, VisibilityTimeout=600)) == ["inflight"]
    sqs.advance(11)
    client.send_message(QueueUrl=url, MessageBody="visible")
    client.send_message(QueueUrl=url, MessageBody="delayed", DelaySeconds=120)
    before = sqs.peek("q")
    assert {v.body: (v.state, v.receive_count) for v in before} == {
        "lapsed": ("visible", 1),
        "inflight": ("inflight", 1),
        "visible": ("visible", 0),
        "delayed": ("delayed", 0),
    }
    assert counts(client, url) == (2, 1, 1)
    sqs.restart()
    assert sqs.peek("q") == before
    assert counts(client, url) == (2, 1, 1)
    got = receive(client, url)
    assert sorted((m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in got) == [
        ("lapsed", "2"),
        ("visible", "1"),
    ]
    first = next(m for m in got if m["Body"] == "lapsed")
    assert first["Attributes"]["ApproximateFirstReceiveTimestamp"] == str(int(T0 * 1000))


def test_message_content_survives_restart(sqs: Persistent, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    body = "line one\r\nline two \u00fc\u00f1\u20ac \U0001f600 &quot;<x/>"
    attributes = {
        "s": {"DataType": "String", "StringValue": "text"},
        "n": {"DataType": "Number", "StringValue": "1493147359900"},
        "b": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xfe\xff"},
        "c": {"DataType": "String.custom", "StringValue": "x"},
    }
    trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
    sent = client.send_message(
        QueueUrl=url,
        MessageBody=body,
        MessageAttributes=attributes,
        MessageSystemAttributes={"AWSTraceHeader": {"DataType": "String", "StringValue": trace}},
    )
    sqs.advance(5)
    sqs.restart()
    (got,) = receive(client, url)
    assert got["MessageId"] == sent["MessageId"]
    assert got["Body"] == body
    assert got["MD5OfBody"] == sent["MD5OfMessageBody"]
    assert got["MD5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    assert got["MessageAttributes"] == attributes
    assert got["Attributes"]["AWSTraceHeader"] == trace
    assert got["Attributes"]["SentTimestamp"] == str(int(T0 * 1000))
    assert got["Attributes"]["ApproximateFirstReceiveTimestamp"] == str(int((T0 + 5) * 1000))
    assert got["Attributes"]["SenderId"] == ACCOUNT


def test_inflight_message_stays_invisible_until_its_deadline(sqs: Persistent, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    sent = client.send_message(QueueUrl=url, MessageBody="m")["MessageId"]
    assert bodies(receive(client, url, VisibilityTimeout=60)) == ["m"]
    sqs.advance(20)
    sqs.restart()
    assert receive(client, url) == []
    assert counts(client, url) == (0, 1, 0)
    sqs.advance(39)
    assert receive(client, url) == []
    sqs.advance(1)
    (again,) = receive(client, url)
    assert again["MessageId"] == sent
    assert again["Attributes"]["ApproximateReceiveCount"] == "2"


def test_delayed_message_stays_delayed_until_its_deadline(sqs: Persistent, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=100)
    sqs.advance(40)
    sqs.restart()
    assert receive(client, url) == []
    assert counts(client, url) == (0, 0, 1)
    sqs.advance(59)
    assert receive(client, url) == []
    sqs.advance(1)
    assert bodies(receive(client, url)) == ["later"]


@pytest.mark.parametrize("how", ["lapsed", "superseded"])
def test_old_standard_receipt_handle_deletes_after_restart(
    sqs: Persistent, client: Any, store: Store, how: str
) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="m")
    (first,) = receive(client, url, VisibilityTimeout=10)
    sqs.advance(11)
    if how == "superseded":
        assert bodies(receive(client, url, VisibilityTimeout=300)) == ["m"]
    sqs.restart()
    client.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])
    assert sqs.peek("q") == []
    assert counts(client, url) == (0, 0, 0)
    assert store.messages("q") == {}
    assert store.states("q") == {}


def test_current_receipt_handle_works_after_restart(sqs: Persistent, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="m")
    (got,) = receive(client, url, VisibilityTimeout=10)
    sqs.restart()
    client.change_message_visibility(
        QueueUrl=url, ReceiptHandle=got["ReceiptHandle"], VisibilityTimeout=100
    )
    sqs.advance(99)
    assert receive(client, url) == []
    client.delete_message(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"])
    sqs.advance(10)
    assert receive(client, url) == []
    assert sqs.peek("q") == []


def test_fifo_receipt_handle_after_restart(sqs: Persistent, client: Any) -> None:
    url = create_fifo(client, "q.fifo")
    send_fifo(client, url, "current", group="a")
    send_fifo(client, url, "lapsing", group="b")
    got = {m["Body"]: m["ReceiptHandle"] for m in receive(client, url)}
    client.change_message_visibility(
        QueueUrl=url, ReceiptHandle=got["current"], VisibilityTimeout=600
    )
    sqs.advance(31)
    sqs.restart()
    client.delete_message(QueueUrl=url, ReceiptHandle=got["current"])
    with pytest.raises(ClientError) as exc:
        client.delete_message(QueueUrl=url, ReceiptHandle=got["lapsing"])
    assert_error(
        exc,
        "InvalidParameterValue",
        "InvalidParameterValueException",
        EXPIRED_HANDLE.format(got["lapsing"]),
    )
    assert [v.body for v in sqs.peek("q.fifo")] == ["lapsing"]


def test_dead_lettered_message_survives_restart_and_can_be_moved_back(
    sqs: Persistent, client: Any
) -> None:
    dlq = client.create_queue(QueueName="dead")["QueueUrl"]
    src = client.create_queue(
        QueueName="work",
        Attributes={
            "RedrivePolicy": json.dumps(
                {"deadLetterTargetArn": ARN_PREFIX + "dead", "maxReceiveCount": 1}
            )
        },
    )["QueueUrl"]
    sent = client.send_message(QueueUrl=src, MessageBody="poison")["MessageId"]
    assert bodies(receive(client, src, VisibilityTimeout=0)) == ["poison"]
    assert receive(client, src) == []
    sqs.restart()
    assert counts(client, src) == (0, 0, 0)
    assert counts(client, dlq) == (1, 0, 0)
    assert [v.message_id for v in sqs.peek("dead")] == [sent]
    assert sqs.peek("dead")[0].attributes["DeadLetterQueueSourceArn"] == ARN_PREFIX + "work"
    task = client.start_message_move_task(SourceArn=ARN_PREFIX + "dead")
    assert task["TaskHandle"]
    assert bodies(receive(client, src)) == ["poison"]
    assert receive(client, dlq) == []


def test_time_passes_while_no_mock_is_running(sqs: Persistent, client: Any, store: Store) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    fifo = create_fifo(client, "q.fifo")
    client.send_message(QueueUrl=url, MessageBody="inflight")
    receive(client, url, VisibilityTimeout=60)
    client.send_message(QueueUrl=url, MessageBody="delayed", DelaySeconds=90)
    send_fifo(client, fifo, "a1", group="A", dedup="D1")
    send_fifo(client, fifo, "a2", group="A", dedup="D2")
    (head,) = receive(client, fifo, n=1, VisibilityTimeout=60)
    sqs.stop()
    sqs.now += 400  # visibility, delay and the deduplication window all end while stopped
    sqs.start()
    assert store.dedup("q.fifo") == {}
    assert counts(client, url) == (2, 0, 0)
    got = receive(client, fifo)
    assert bodies(got) == ["a1", "a2"]
    assert got[0]["MessageId"] == head["MessageId"]
    assert got[0]["Attributes"]["ApproximateReceiveCount"] == "2"
    fresh = send_fifo(client, fifo, "again", group="A", dedup="D1")
    assert fresh["MessageId"] != head["MessageId"]


def test_dedup_scope_of_creation_time_survives_restart(sqs: Persistent, client: Any) -> None:
    """The deduplication scope that applies is the one the queue was created with."""
    url = create_fifo(client, "q.fifo")
    client.set_queue_attributes(QueueUrl=url, Attributes={"DeduplicationScope": "messageGroup"})
    first = send_fifo(client, url, "a", group="g1", dedup="X")
    assert send_fifo(client, url, "b", group="g2", dedup="X")["MessageId"] == first["MessageId"]
    sqs.restart()
    assert send_fifo(client, url, "c", group="g2", dedup="X")["MessageId"] == first["MessageId"]
    assert bodies(receive(client, url)) == ["a"]


# -- restart without loss: FIFO -------------------------------------------------------------


def test_fifo_group_order_survives_restart(sqs: Persistent, client: Any) -> None:
    url = create_fifo(client, "q.fifo")
    for body, group in [("a1", "A"), ("b1", "B"), ("a2", "A"), ("b2", "B"), ("a3", "A")]:
        send_fifo(client, url, body, group=group)
    sqs.restart()
    got = receive(client, url)
    order = bodies(got)
    assert sorted(order) == ["a1", "a2", "a3", "b1", "b2"]
    assert [b for b in order if b.startswith("a")] == ["a1", "a2", "a3"]
    assert [b for b in order if b.startswith("b")] == ["b1", "b2"]
    groups = [m["Attributes"]["MessageGroupId"] for m in got]
    assert groups in (["A"] * 3 + ["B"] * 2, ["B"] * 2 + ["A"] * 3)


def test_fifo_blocked_group_stays_blocked_after_restart(sqs: Persistent, client: Any) -> None:
    url = create_fifo(client, "q.fifo")
    for body, group in [("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B")]:
        send_fifo(client, url, body, group=group)
    (head,) = receive(client, url, n=1)
    assert head["Body"] == "a1"
    sqs.restart()
    others = receive(client, url)
    assert bodies(others) == ["b1", "b2"]
    send_fifo(client, url, "a3", group="A")
    for m in others:
        client.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    assert receive(client, url) == []
    assert counts(client, url) == (2, 1, 0)
    client.delete_message(QueueUrl=url, ReceiptHandle=head["ReceiptHandle"])
    assert bodies(receive(client, url)) == ["a2", "a3"]


def test_fifo_group_unblocks_when_head_lapses_after_restart(sqs: Persistent, client: Any) -> None:
    url = create_fifo(client, "q.fifo")
    send_fifo(client, url, "a1", group="A")
    send_fifo(client, url, "a2", group="A")
    (head,) = receive(client, url, n=1, VisibilityTimeout=30)
    sqs.restart()
    assert receive(client, url) == []
    sqs.advance(30)
    got = receive(client, url)
    assert bodies(got) == ["a1", "a2"]
    assert got[0]["Attributes"]["ApproximateReceiveCount"] == "2"
    assert got[0]["MessageId"] == head["MessageId"]


def test_fifo_queue_delay_survives_restart(sqs: Persistent, client: Any) -> None:
    url = create_fifo(client, "q.fifo", DelaySeconds="60")
    send_fifo(client, url, "a1", group="A")
    send_fifo(client, url, "b1", group="B")
    sqs.advance(30)
    sqs.restart()
    assert counts(client, url) == (0, 0, 2)
    assert receive(client, url) == []
    sqs.advance(30)
    assert sorted(bodies(receive(client, url))) == ["a1", "b1"]


def test_fifo_dedup_window_survives_restart(sqs: Persistent, client: Any) -> None:
    url = create_fifo(client, "q.fifo")
    first = send_fifo(client, url, "one", dedup="X")
    sqs.advance(100)
    sqs.restart()
    dup = send_fifo(client, url, "two", dedup="X")
    assert dup["MessageId"] == first["MessageId"]
    assert dup["SequenceNumber"] == first["SequenceNumber"]
    got = receive(client, url)
    assert bodies(got) == ["one"]
    client.delete_message(QueueUrl=url, ReceiptHandle=got[0]["ReceiptHandle"])
    sqs.advance(199)
    sqs.restart()
    assert send_fifo(client, url, "three", dedup="X")["MessageId"] == first["MessageId"]
    assert receive(client, url) == []
    sqs.advance(2)
    sqs.restart()
    fresh = send_fifo(client, url, "four", dedup="X")
    assert fresh["MessageId"] != first["MessageId"]
    assert int(fresh["SequenceNumber"]) > int(first["SequenceNumber"])
    assert bodies(receive(client, url)) == ["four"]


def test_content_based_dedup_survives_restart(sqs: Persistent, client: Any) -> None:
    url = create_fifo(client, "q.fifo", ContentBasedDeduplication="true")
    first = client.send_message(QueueUrl=url, MessageBody="same", MessageGroupId="g")
    sqs.restart()
    again = client.send_message(QueueUrl=url, MessageBody="same", MessageGroupId="g")
    assert again["MessageId"] == first["MessageId"]
    sqs.advance(301)
    later = client.send_message(QueueUrl=url, MessageBody="same", MessageGroupId="g")
    assert later["MessageId"] != first["MessageId"]
    assert [v.message_id for v in sqs.peek("q.fifo")] == [first["MessageId"], later["MessageId"]]


def test_message_group_dedup_scope_survives_restart(sqs: Persistent, client: Any) -> None:
    url = create_fifo(
        client,
        "q.fifo",
        DeduplicationScope="messageGroup",
        FifoThroughputLimit="perMessageGroupId",
    )
    first = send_fifo(client, url, "a", group="g1", dedup="X")
    sqs.restart()
    assert send_fifo(client, url, "b", group="g1", dedup="X")["MessageId"] == first["MessageId"]
    other = send_fifo(client, url, "c", group="g2", dedup="X")
    assert other["MessageId"] != first["MessageId"]
    assert sorted(bodies(receive(client, url))) == ["a", "c"]


def test_sequence_numbers_keep_increasing_across_restarts(sqs: Persistent, client: Any) -> None:
    url = create_fifo(client, "q.fifo")
    numbers = [int(send_fifo(client, url, f"m{i}")["SequenceNumber"]) for i in range(3)]
    for m in receive(client, url):
        client.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    assert sqs.peek("q.fifo") == []
    sqs.restart()
    numbers.append(int(send_fifo(client, url, "after-restart")["SequenceNumber"]))
    for m in receive(client, url):
        client.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    sqs.restart()
    sqs.restart()
    numbers.append(int(send_fifo(client, url, "after-two-restarts")["SequenceNumber"]))
    client.purge_queue(QueueUrl=url)
    sqs.restart()
    numbers.append(int(send_fifo(client, url, "after-purge")["SequenceNumber"]))
    assert numbers == sorted(numbers)
    assert len(set(numbers)) == len(numbers)


# -- restart without loss: message move tasks -----------------------------------------------


def _dlq_with_messages(client: Any, n: int) -> tuple[str, str]:
    """A dead-letter queue holding ``n`` messages (m0..), and an empty destination queue."""
    dlq = client.create_queue(QueueName="dead")["QueueUrl"]
    client.create_queue(
        QueueName="work",
        Attributes={
            "RedrivePolicy": json.dumps(
                {"deadLetterTargetArn": ARN_PREFIX + "dead", "maxReceiveCount": 1}
            )
        },
    )
    target = client.create_queue(QueueName="target")["QueueUrl"]
    for i in range(n):
        client.send_message(QueueUrl=dlq, MessageBody=f"m{i}")
    return dlq, target


def test_message_move_task_continues_after_restart(
    sqs: Persistent, client: Any, store: Store
) -> None:
    dlq, target = _dlq_with_messages(client, 4)
    handle = client.start_message_move_task(
        SourceArn=ARN_PREFIX + "dead",
        DestinationArn=ARN_PREFIX + "target",
        MaxNumberOfMessagesPerSecond=1,
    )["TaskHandle"]
    sqs.advance(2)
    (task,) = list_tasks(client, ARN_PREFIX + "dead")
    assert (task["Status"], task["ApproximateNumberOfMessagesMoved"]) == ("RUNNING", 2)
    sqs.restart()
    (task,) = list_tasks(client, ARN_PREFIX + "dead")
    assert task["Status"] == "RUNNING"
    assert task["TaskHandle"] == handle
    assert task["ApproximateNumberOfMessagesMoved"] == 2
    assert task["ApproximateNumberOfMessagesToMove"] == 4
    assert counts(client, dlq) == (2, 0, 0)
    sqs.advance(2)
    (task,) = list_tasks(client, ARN_PREFIX + "dead")
    assert (task["Status"], task["ApproximateNumberOfMessagesMoved"]) == ("COMPLETED", 4)
    assert "TaskHandle" not in task
    assert counts(client, dlq) == (0, 0, 0)
    assert sorted(bodies(receive(client, target))) == ["m0", "m1", "m2", "m3"]
    (stored,) = store.hash("tasks").values()
    assert json.loads(stored)["status"] == "COMPLETED"


def test_cancelled_move_task_survives_restart(sqs: Persistent, client: Any) -> None:
    _dlq_with_messages(client, 3)
    handle = client.start_message_move_task(
        SourceArn=ARN_PREFIX + "dead",
        DestinationArn=ARN_PREFIX + "target",
        MaxNumberOfMessagesPerSecond=1,
    )["TaskHandle"]
    sqs.advance(1)
    client.cancel_message_move_task(TaskHandle=handle)
    sqs.restart()
    (task,) = list_tasks(client, ARN_PREFIX + "dead")
    assert task["Status"] == "CANCELLED"
    assert task["ApproximateNumberOfMessagesMoved"] == 1
    assert "TaskHandle" not in task
    sqs.advance(10)
    (task,) = list_tasks(client, ARN_PREFIX + "dead")
    assert task["ApproximateNumberOfMessagesMoved"] == 1
    client.start_message_move_task(
        SourceArn=ARN_PREFIX + "dead", DestinationArn=ARN_PREFIX + "target"
    )
    assert len(list_tasks(client, ARN_PREFIX + "dead")) == 2


# -- no resurrection ------------------------------------------------------------------------


def _queue(client: Any, kind: str) -> tuple[str, str, Callable[[str], str]]:
    """(name, url, send(body) -> MessageId) for a standard or FIFO queue."""
    if kind == "fifo":
        url = create_fifo(client, "q.fifo")
        return "q.fifo", url, lambda body: send_fifo(client, url, body)["MessageId"]
    url = client.create_queue(QueueName="q")["QueueUrl"]
    return "q", url, lambda body: client.send_message(QueueUrl=url, MessageBody=body)["MessageId"]


@pytest.mark.parametrize("kind", ["standard", "fifo"])
def test_deleted_message_does_not_come_back(
    sqs: Persistent, client: Any, store: Store, kind: str
) -> None:
    name, url, send = _queue(client, kind)
    ids = {body: send(body) for body in ("a", "b", "c")}
    got = {m["Body"]: m["ReceiptHandle"] for m in receive(client, url)}
    client.delete_message(QueueUrl=url, ReceiptHandle=got["b"])
    assert ids["b"] not in store.messages(name)
    assert ids["b"] not in store.states(name)
    assert set(store.messages(name)) == {ids["a"], ids["c"]}
    sqs.advance(3600)
    sqs.restart()
    assert {v.message_id for v in sqs.peek(name)} == {ids["a"], ids["c"]}
    assert sorted(bodies(receive(client, url))) == ["a", "c"]
    assert ids["b"] not in store.messages(name)


@pytest.mark.parametrize("kind", ["standard", "fifo"])
def test_batch_deleted_messages_do_not_come_back(
    sqs: Persistent, client: Any, store: Store, kind: str
) -> None:
    name, url, send = _queue(client, kind)
    ids = {body: send(body) for body in ("a", "b", "c")}
    got = {m["Body"]: m["ReceiptHandle"] for m in receive(client, url)}
    result = client.delete_message_batch(
        QueueUrl=url,
        Entries=[{"Id": body, "ReceiptHandle": got[body]} for body in ("a", "c")],
    )
    assert sorted(e["Id"] for e in result["Successful"]) == ["a", "c"]
    assert "Failed" not in result
    assert set(store.messages(name)) == {ids["b"]}
    assert set(store.states(name)) == {ids["b"]}
    sqs.advance(3600)
    sqs.restart()
    assert [v.message_id for v in sqs.peek(name)] == [ids["b"]]


@pytest.mark.parametrize("kind", ["standard", "fifo"])
def test_purged_messages_do_not_come_back(
    sqs: Persistent, client: Any, store: Store, kind: str
) -> None:
    name, url, send = _queue(client, kind)
    send("inflight")
    send("visible")
    receive(client, url, n=1)
    if kind == "standard":
        client.send_message(QueueUrl=url, MessageBody="delayed", DelaySeconds=60)
    client.purge_queue(QueueUrl=url)
    assert store.messages(name) == {}
    assert store.states(name) == {}
    assert store.dedup(name) == {}
    sqs.restart()
    assert sqs.peek(name) == []
    assert counts(client, url) == (0, 0, 0)
    sqs.advance(120)
    assert receive(client, url) == []
    if kind == "fifo":  # the purge also cleared the deduplication cache
        assert send_fifo(client, url, "visible")["MessageId"] != ""
        assert bodies(receive(client, url)) == ["visible"]


def test_retention_expired_messages_do_not_come_back(
    sqs: Persistent, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q", Attributes={"MessageRetentionPeriod": "60"})[
        "QueueUrl"
    ]
    old = client.send_message(QueueUrl=url, MessageBody="old")["MessageId"]
    receive(client, url, VisibilityTimeout=600)
    sqs.advance(30)
    new = client.send_message(QueueUrl=url, MessageBody="new")["MessageId"]
    sqs.advance(31)
    sqs.restart()
    assert [v.message_id for v in sqs.peek("q")] == [new]
    assert old not in store.messages("q")
    assert old not in store.states("q")
    assert counts(client, url) == (1, 0, 0)
    sqs.advance(600)
    sqs.restart()
    assert sqs.peek("q") == []
    assert store.messages("q") == {}


@pytest.mark.parametrize("kind", ["standard", "fifo"])
def test_deleted_queue_does_not_come_back(
    sqs: Persistent, client: Any, store: Store, kind: str
) -> None:
    name, url, send = _queue(client, kind)
    send("m")
    client.delete_queue(QueueUrl=url)
    key = qid(name)
    assert key not in store.hash("queues")
    assert store.queue_hash(name) == {}  # messages, deduplication entries, sequence counter
    assert f"{store.namespace}q:{key}" not in store.key_names()
    assert float(store.hash("deleted")[key]) == T0
    sqs.restart()
    with pytest.raises(client.exceptions.QueueDoesNotExist):
        client.get_queue_url(QueueName=name)
    assert "QueueUrls" not in client.list_queues()
    sqs.advance(60)
    sqs.restart()
    attrs = {"FifoQueue": "true"} if kind == "fifo" else {}
    assert client.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"] == url
    assert receive(client, url) == []
    sent = send("m")  # a recreated FIFO queue does not inherit the deduplication cache
    assert [v.message_id for v in sqs.peek(name)] == [sent]


# -- namespaces -----------------------------------------------------------------------------


def test_two_namespaces_do_not_see_each_other(store: Store, client: Any) -> None:
    first = Persistent(store, namespace=store.namespace + "a:")
    second = Persistent(store, namespace=store.namespace + "b:")
    first.start()
    url = client.create_queue(QueueName="shared")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="from-a")
    client.create_queue(QueueName="only-a")
    first.stop()
    second.start()
    assert "QueueUrls" not in client.list_queues()
    client.create_queue(QueueName="shared", Attributes={"VisibilityTimeout": "5"})
    client.send_message(QueueUrl=url, MessageBody="from-b")
    second.stop()
    first.start()
    assert [u.rsplit("/", 1)[1] for u in client.list_queues()["QueueUrls"]] == [
        "only-a",
        "shared",
    ]
    assert all_attributes(client, url)["VisibilityTimeout"] == "30"
    assert bodies(receive(client, url)) == ["from-a"]
    first.stop()
    second.start()
    assert bodies(receive(client, url)) == ["from-b"]
    second.stop()


def test_reset_removes_only_its_namespace(store: Store, client: Any) -> None:
    mine = Persistent(store, namespace=store.namespace + "mine:")
    other = Persistent(store, namespace=store.namespace + "other:")
    foreign = f"sqsmock-foreign-{uuid.uuid4().hex}"
    store.client.set(foreign, "keep me")
    try:
        other.start()
        client.create_queue(QueueName="theirs")
        other.stop()
        mine.start()
        url = client.create_queue(QueueName="ours")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        client.delete_queue(QueueUrl=client.create_queue(QueueName="deleted")["QueueUrl"])
        other_keys = store.key_names(other.namespace)
        mine.handle.reset()
        kept = {mine.namespace + k for k in ("schema", "owner", "commits")}
        assert store.key_names(mine.namespace) <= kept
        assert store.key_names(other.namespace) == other_keys
        assert text(store.client.get(foreign)) == "keep me"
        assert "QueueUrls" not in client.list_queues()
        client.create_queue(QueueName="deleted")  # the deleted-queue memory went too
        mine.stop()
        mine.start()
        assert [u.rsplit("/", 1)[1] for u in client.list_queues()["QueueUrls"]] == ["deleted"]
        mine.stop()
        other.start()
        assert [u.rsplit("/", 1)[1] for u in client.list_queues()["QueueUrls"]] == ["theirs"]
        other.stop()
    finally:
        mine.stop()
        other.stop()
        store.client.delete(foreign)


def test_namespace_that_prefixes_another_is_isolated(store: Store, client: Any) -> None:
    """A namespace that happens to be a prefix of another ("app:" and "app:inner:")."""
    inner = Persistent(store, namespace=store.namespace + "inner:")
    outer = Persistent(store, namespace=store.namespace)
    try:
        inner.start()
        client.create_queue(QueueName="inner-queue")
        inner.stop()
        outer.start()
        assert "QueueUrls" not in client.list_queues()
        client.create_queue(QueueName="outer-queue")
        outer.handle.reset()
        outer.stop()
        inner.start()
        assert [u.rsplit("/", 1)[1] for u in client.list_queues()["QueueUrls"]] == ["inner-queue"]
    finally:
        inner.stop()
        outer.stop()


def test_default_namespace_is_sqsmock(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # not one of pytest-xdist's workers
    redis = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    with mock_sqs(persistence=redis, clock="frozen"):
        client.create_queue(QueueName="q")
    assert {text(k) for k in redis.scan_iter()} == {
        "sqsmock:schema",
        "sqsmock:queues",
        "sqsmock:commits",
    }
    with mock_sqs(persistence=redis):
        assert client.get_queue_url(QueueName="q")["QueueUrl"].endswith("/q")


# -- write-through --------------------------------------------------------------------------


def test_create_queue_is_written_through(sqs: Persistent, client: Any, store: Store) -> None:
    client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "45"}, tags={"team": "x"})
    assert text(store.client.get(store.namespace + "schema")) == "3"
    meta = store.meta("q")
    assert meta is not None
    assert (meta["name"], meta["region"], meta["account"], meta["fifo"]) == (
        "q",
        REGION,
        ACCOUNT,
        False,
    )
    assert meta["attributes"]["VisibilityTimeout"] == "45"
    assert meta["tags"] == {"team": "x"}
    assert meta["created"] == T0
    create_fifo(client, "f.fifo")
    fifo_meta = store.meta("f.fifo")
    assert fifo_meta is not None and fifo_meta["fifo"] is True


def test_message_lifecycle_is_written_through(sqs: Persistent, client: Any, store: Store) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    mid = client.send_message(QueueUrl=url, MessageBody="hello")["MessageId"]
    content = json.loads(store.messages("q")[mid])
    assert (content["id"], content["body"]) == (mid, "hello")
    assert store.states("q")[mid][0] == VISIBLE
    assert store.states("q")[mid][2] == 0
    later = client.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=50)["MessageId"]
    assert store.states("q")[later][:2] == [DELAYED, T0 + 50]
    (got,) = receive(client, url, n=1, VisibilityTimeout=40)
    assert store.states("q")[mid] == [INFLIGHT, T0 + 40, 1, T0, T0, got["ReceiptHandle"]]
    sqs.advance(5)
    client.change_message_visibility(
        QueueUrl=url, ReceiptHandle=got["ReceiptHandle"], VisibilityTimeout=100
    )
    assert store.states("q")[mid][:2] == [INFLIGHT, T0 + 105]
    client.change_message_visibility(
        QueueUrl=url, ReceiptHandle=got["ReceiptHandle"], VisibilityTimeout=0
    )
    assert store.states("q")[mid][0] == VISIBLE
    (again,) = receive(client, url, n=1)
    assert store.states("q")[mid][2] == 2
    client.delete_message(QueueUrl=url, ReceiptHandle=again["ReceiptHandle"])
    assert mid not in store.messages("q")
    assert mid not in store.states("q")
    assert set(store.messages("q")) == {later}


def test_batches_are_written_through(sqs: Persistent, client: Any, store: Store) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    sent = client.send_message_batch(
        QueueUrl=url, Entries=[{"Id": f"e{i}", "MessageBody": f"m{i}"} for i in range(3)]
    )["Successful"]
    assert set(store.messages("q")) == {e["MessageId"] for e in sent}
    got = receive(client, url)
    client.change_message_visibility_batch(
        QueueUrl=url,
        Entries=[
            {"Id": f"e{i}", "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 77}
            for i, m in enumerate(got)
        ],
    )
    assert {s[1] for s in store.states("q").values()} == {T0 + 77}
    client.delete_message_batch(
        QueueUrl=url,
        Entries=[{"Id": f"e{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)],
    )
    assert store.messages("q") == {}
    assert store.states("q") == {}


def test_fifo_send_writes_sequence_and_dedup(sqs: Persistent, client: Any, store: Store) -> None:
    url = create_fifo(client, "q.fifo")
    sent = send_fifo(client, url, "m", group="g", dedup="d1")
    assert (store.sequence("q.fifo") or 0) >= 1
    assert store.dedup("q.fifo") == {"d1": [sent["MessageId"], sent["SequenceNumber"], T0 + 300]}
    content = json.loads(store.messages("q.fifo")[sent["MessageId"]])
    assert (content["sn"], content["group"], content["dedup"]) == (
        sent["SequenceNumber"],
        "g",
        "d1",
    )


def test_queue_changes_are_written_through(sqs: Persistent, client: Any, store: Store) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    sqs.advance(3)
    client.set_queue_attributes(QueueUrl=url, Attributes={"DelaySeconds": "9"})
    meta = store.meta("q")
    assert meta is not None
    assert meta["attributes"]["DelaySeconds"] == "9"
    assert meta["modified"] == T0 + 3
    client.tag_queue(QueueUrl=url, Tags={"k": "v"})
    assert store.meta("q")["tags"] == {"k": "v"}  # type: ignore[index]
    client.untag_queue(QueueUrl=url, TagKeys=["k"])
    assert store.meta("q")["tags"] == {}  # type: ignore[index]
    client.add_permission(
        QueueUrl=url, Label="l", AWSAccountIds=["111122223333"], Actions=["SendMessage"]
    )
    policy = json.loads(store.meta("q")["attributes"]["Policy"])  # type: ignore[index]
    assert policy["Statement"][0]["Sid"] == "l"
    client.purge_queue(QueueUrl=url)
    assert store.meta("q")["purged"] == T0 + 3  # type: ignore[index]
    sqs.advance(2)
    client.delete_queue(QueueUrl=url)
    assert float(store.hash("deleted")[qid("q")]) == T0 + 5
    assert store.meta("q") is None


def test_move_task_is_written_through(sqs: Persistent, client: Any, store: Store) -> None:
    _dlq_with_messages(client, 2)
    client.start_message_move_task(
        SourceArn=ARN_PREFIX + "dead",
        DestinationArn=ARN_PREFIX + "target",
        MaxNumberOfMessagesPerSecond=1,
    )
    (record,) = (json.loads(v) for v in store.hash("tasks").values())
    assert (record["status"], record["moved"], record["to_move"]) == ("RUNNING", 0, 2)
    assert record["source_arn"] == ARN_PREFIX + "dead"
    sqs.advance(1)
    client.list_message_move_tasks(SourceArn=ARN_PREFIX + "dead")
    (record,) = (json.loads(v) for v in store.hash("tasks").values())
    assert record["moved"] == 1
    assert len(store.messages("dead")) == 1
    assert len(store.messages("target")) == 1


# -- one round trip per call ----------------------------------------------------------------


class _Ctx:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.url = client.create_queue(QueueName="q")["QueueUrl"]
        self.empty = client.create_queue(QueueName="empty")["QueueUrl"]
        self.fifo = create_fifo(client, "f.fifo")
        for i in range(4):
            client.send_message(QueueUrl=self.url, MessageBody=f"m{i}")
            send_fifo(client, self.fifo, f"f{i}", group=f"g{i % 2}")
        self.handles = [m["ReceiptHandle"] for m in receive(client, self.url, n=2)]


CALLS: dict[str, tuple[int, Callable[[_Ctx], Any]]] = {
    "SendMessage": (1, lambda c: c.client.send_message(QueueUrl=c.url, MessageBody="x")),
    "SendMessageBatch": (
        1,
        lambda c: c.client.send_message_batch(
            QueueUrl=c.url, Entries=[{"Id": f"e{i}", "MessageBody": "x"} for i in range(3)]
        ),
    ),
    "ReceiveMessage": (1, lambda c: receive(c.client, c.url)),
    "DeleteMessage": (
        1,
        lambda c: c.client.delete_message(QueueUrl=c.url, ReceiptHandle=c.handles[0]),
    ),
    "DeleteMessageBatch": (
        1,
        lambda c: c.client.delete_message_batch(
            QueueUrl=c.url,
            Entries=[{"Id": f"e{i}", "ReceiptHandle": h} for i, h in enumerate(c.handles)],
        ),
    ),
    "ChangeMessageVisibility": (
        1,
        lambda c: c.client.change_message_visibility(
            QueueUrl=c.url, ReceiptHandle=c.handles[0], VisibilityTimeout=99
        ),
    ),
    "ChangeMessageVisibilityBatch": (
        1,
        lambda c: c.client.change_message_visibility_batch(
            QueueUrl=c.url,
            Entries=[
                {"Id": f"e{i}", "ReceiptHandle": h, "VisibilityTimeout": 99}
                for i, h in enumerate(c.handles)
            ],
        ),
    ),
    "FifoSendMessage": (1, lambda c: send_fifo(c.client, c.fifo, "new", group="g9")),
    "FifoSendMessageBatch": (
        1,
        lambda c: c.client.send_message_batch(
            QueueUrl=c.fifo,
            Entries=[
                {
                    "Id": f"e{i}",
                    "MessageBody": f"b{i}",
                    "MessageGroupId": "g",
                    "MessageDeduplicationId": f"b{i}",
                }
                for i in range(3)
            ],
        ),
    ),
    "FifoReceiveMessage": (1, lambda c: receive(c.client, c.fifo)),
    "CreateQueue": (1, lambda c: c.client.create_queue(QueueName="new")),
    "DeleteQueue": (1, lambda c: c.client.delete_queue(QueueUrl=c.url)),
    "PurgeQueue": (1, lambda c: c.client.purge_queue(QueueUrl=c.url)),
    "SetQueueAttributes": (
        1,
        lambda c: c.client.set_queue_attributes(
            QueueUrl=c.url, Attributes={"VisibilityTimeout": "5"}
        ),
    ),
    "TagQueue": (1, lambda c: c.client.tag_queue(QueueUrl=c.url, Tags={"k": "v"})),
    "GetQueueUrl": (0, lambda c: c.client.get_queue_url(QueueName="q")),
    "EmptyReceiveMessage": (0, lambda c: receive(c.client, c.empty)),
    "GetQueueAttributes": (0, lambda c: all_attributes(c.client, c.url)),
    "ListQueues": (0, lambda c: c.client.list_queues()),
    "ListQueueTags": (0, lambda c: c.client.list_queue_tags(QueueUrl=c.url)),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_one_round_trip_per_call(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, call: str
) -> None:
    ctx = _Ctx(client)
    expected, run = CALLS[call]
    faulty.executes = 0
    faulty.atomic.clear()
    run(ctx)
    assert faulty.executes == expected
    assert faulty.atomic == [True] * expected


def _redrive_pair(client: Any, kind: str) -> tuple[str, str, str, Callable[[str, str], str]]:
    """(suffix, dlq url, source url, send(body, group) -> MessageId); maxReceiveCount 1."""
    fifo = kind == "fifo"
    suffix = ".fifo" if fifo else ""
    attrs = {"FifoQueue": "true"} if fifo else {}
    dlq = client.create_queue(QueueName="dead" + suffix, Attributes=attrs)["QueueUrl"]
    redrive = {"deadLetterTargetArn": ARN_PREFIX + "dead" + suffix, "maxReceiveCount": 1}
    src = client.create_queue(
        QueueName="work" + suffix, Attributes={**attrs, "RedrivePolicy": json.dumps(redrive)}
    )["QueueUrl"]

    def send(body: str, group: str) -> str:
        if fifo:
            return str(send_fifo(client, src, body, group=group)["MessageId"])
        return str(client.send_message(QueueUrl=src, MessageBody=body)["MessageId"])

    return suffix, dlq, src, send


@pytest.mark.parametrize("kind", ["standard", "fifo"])
def test_receive_that_dead_letters_is_two_transactions(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, kind: str
) -> None:
    """The receive's own writes, then the move: departure and arrival in one transaction."""
    suffix, _, src, send = _redrive_pair(client, kind)
    send("poison", "a")
    assert bodies(receive(client, src, VisibilityTimeout=0)) == ["poison"]
    send("fresh", "b")
    faulty.executes = 0
    assert bodies(receive(client, src)) == ["fresh"]
    assert faulty.executes == 2
    assert [v.body for v in fsqs.peek("dead" + suffix)] == ["poison"]


# -- faults: Redis fails during a call ------------------------------------------------------


def test_persistence_error_is_a_botocore_error(
    fsqs: Persistent, faulty: FaultyRedis, client: Any
) -> None:
    assert issubclass(PersistenceError, BotoCoreError)
    url = client.create_queue(QueueName="q")["QueueUrl"]
    faulty.fail = True
    with pytest.raises(PersistenceError) as exc:
        client.send_message(QueueUrl=url, MessageBody="lost")
    assert_persistence_error(exc)
    assert "writing" in str(exc.value)
    assert fsqs.namespace in str(exc.value)


@pytest.mark.parametrize("kind", ["standard", "fifo"])
def test_failed_send_leaves_nothing(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store, kind: str
) -> None:
    name, url, send = _queue(client, kind)
    kept = send("kept")
    faulty.fail = True
    with pytest.raises(PersistenceError) as exc:
        send("lost")
    assert_persistence_error(exc)
    faulty.fail = False
    assert counts(client, url) == (1, 0, 0)
    assert [v.message_id for v in fsqs.peek(name)] == [kept]
    assert stored_bodies(store, name) == ["kept"]
    again = send("lost")  # same deduplication id on FIFO: not a duplicate of the failed send
    assert sorted(bodies(receive(client, url))) == ["kept", "lost"]
    assert set(store.messages(name)) == {kept, again}


def test_failed_fifo_send_does_not_block_its_dedup_id_after_restart(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    url = create_fifo(client, "q.fifo")
    faulty.fail = True
    with pytest.raises(PersistenceError):
        send_fifo(client, url, "m", dedup="D")
    faulty.fail = False
    assert store.dedup("q.fifo") == {}
    fsqs.restart()
    sent = send_fifo(client, url, "m", dedup="D")
    assert [m["MessageId"] for m in receive(client, url)] == [sent["MessageId"]]


def test_failed_batch_send_leaves_nothing(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.send_message_batch(
            QueueUrl=url, Entries=[{"Id": f"e{i}", "MessageBody": f"m{i}"} for i in range(3)]
        )
    faulty.fail = False
    assert counts(client, url) == (0, 0, 0)
    assert fsqs.peek("q") == []
    assert store.messages("q") == {}
    assert receive(client, url) == []


@pytest.mark.parametrize("kind", ["standard", "fifo"])
def test_failed_delete_leaves_message_deletable(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store, kind: str
) -> None:
    name, url, send = _queue(client, kind)
    mid = send("m")
    (got,) = receive(client, url)
    faulty.fail = True
    with pytest.raises(PersistenceError) as exc:
        client.delete_message(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"])
    assert_persistence_error(exc)
    faulty.fail = False
    assert counts(client, url) == (0, 1, 0)
    assert [v.message_id for v in fsqs.peek(name)] == [mid]
    assert mid in store.messages(name)
    client.delete_message(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"])
    assert fsqs.peek(name) == []
    assert store.messages(name) == {}


def test_failed_batch_delete_leaves_messages(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    for body in ("a", "b"):
        client.send_message(QueueUrl=url, MessageBody=body)
    got = receive(client, url)
    entries = [{"Id": m["Body"], "ReceiptHandle": m["ReceiptHandle"]} for m in got]
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.delete_message_batch(QueueUrl=url, Entries=entries)
    faulty.fail = False
    assert counts(client, url) == (0, 2, 0)
    assert stored_bodies(store, "q") == ["a", "b"]
    result = client.delete_message_batch(QueueUrl=url, Entries=entries)
    assert len(result["Successful"]) == 2
    assert store.messages("q") == {}


@pytest.mark.parametrize("kind", ["standard", "fifo"])
def test_failed_receive_does_not_leave_message_in_flight(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store, kind: str
) -> None:
    name, url, send = _queue(client, kind)
    mid = send("m")
    faulty.fail = True
    with pytest.raises(PersistenceError) as exc:
        receive(client, url)
    assert_persistence_error(exc)
    faulty.fail = False
    assert counts(client, url) == (1, 0, 0)
    (view,) = fsqs.peek(name)
    assert (view.state, view.receive_count) == ("visible", 0)
    assert store.states(name)[mid][0] == VISIBLE
    (got,) = receive(client, url)
    assert got["MessageId"] == mid
    assert got["Attributes"]["ApproximateReceiveCount"] == "1"


def test_failed_change_visibility_leaves_visibility(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    mid = client.send_message(QueueUrl=url, MessageBody="m")["MessageId"]
    (got,) = receive(client, url, VisibilityTimeout=30)
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.change_message_visibility(
            QueueUrl=url, ReceiptHandle=got["ReceiptHandle"], VisibilityTimeout=600
        )
    faulty.fail = False
    assert counts(client, url) == (0, 1, 0)
    assert store.states("q")[mid][1] == T0 + 30
    fsqs.advance(30)
    assert bodies(receive(client, url)) == ["m"]


def test_failed_create_queue_leaves_no_queue(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    faulty.fail = True
    with pytest.raises(PersistenceError) as exc:
        client.create_queue(QueueName="new")
    assert_persistence_error(exc)
    faulty.fail = False
    with pytest.raises(client.exceptions.QueueDoesNotExist):
        client.get_queue_url(QueueName="new")
    assert store.meta("new") is None
    url = client.create_queue(QueueName="new", Attributes={"DelaySeconds": "4"})["QueueUrl"]
    assert all_attributes(client, url)["DelaySeconds"] == "4"


def test_failed_delete_queue_leaves_queue(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="m")
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.delete_queue(QueueUrl=url)
    faulty.fail = False
    assert client.get_queue_url(QueueName="q")["QueueUrl"] == url
    assert store.meta("q") is not None
    assert qid("q") not in store.hash("deleted")
    assert bodies(receive(client, url)) == ["m"]
    client.delete_queue(QueueUrl=url)
    assert store.meta("q") is None


def test_failed_purge_leaves_messages_and_no_cooldown(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="m")
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.purge_queue(QueueUrl=url)
    faulty.fail = False
    assert counts(client, url) == (1, 0, 0)
    assert stored_bodies(store, "q") == ["m"]
    client.purge_queue(QueueUrl=url)  # not PurgeQueueInProgress: the failed purge did not count
    assert counts(client, url) == (0, 0, 0)


def test_failed_set_queue_attributes_leaves_attributes(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "99"})
    faulty.fail = False
    assert all_attributes(client, url)["VisibilityTimeout"] == "30"
    assert store.meta("q")["attributes"]["VisibilityTimeout"] == "30"  # type: ignore[index]
    client.send_message(QueueUrl=url, MessageBody="m")
    receive(client, url)
    fsqs.advance(30)
    assert bodies(receive(client, url)) == ["m"]


def test_failed_redrive_policy_change_leaves_no_dead_letter_source(
    fsqs: Persistent, faulty: FaultyRedis, client: Any
) -> None:
    dlq = client.create_queue(QueueName="dead")["QueueUrl"]
    src = client.create_queue(QueueName="work")["QueueUrl"]
    redrive = {"deadLetterTargetArn": ARN_PREFIX + "dead", "maxReceiveCount": 1}
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.set_queue_attributes(QueueUrl=src, Attributes={"RedrivePolicy": json.dumps(redrive)})
    faulty.fail = False
    assert "queueUrls" not in client.list_dead_letter_source_queues(QueueUrl=dlq)
    assert "RedrivePolicy" not in all_attributes(client, src)


def test_failed_tag_queue_leaves_tags(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q", tags={"a": "1"})["QueueUrl"]
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.tag_queue(QueueUrl=url, Tags={"b": "2"})
    faulty.fail = False
    assert tags_of(client, url) == {"a": "1"}
    assert store.meta("q")["tags"] == {"a": "1"}  # type: ignore[index]


def test_failed_reset_leaves_everything(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="m")
    faulty.fail = True
    with pytest.raises(PersistenceError) as exc:
        fsqs.handle.reset()
    assert_persistence_error(exc)
    faulty.fail = False
    assert client.list_queues()["QueueUrls"] == [url]
    assert bodies(receive(client, url)) == ["m"]
    assert stored_bodies(store, "q") == ["m"]
    fsqs.handle.reset()
    assert "QueueUrls" not in client.list_queues()
    assert store.meta("q") is None


def test_failed_call_on_one_queue_does_not_disturb_another(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    one = client.create_queue(QueueName="one")["QueueUrl"]
    two = client.create_queue(QueueName="two")["QueueUrl"]
    client.send_message(QueueUrl=two, MessageBody="two")
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.send_message(QueueUrl=one, MessageBody="lost")
    faulty.fail = False
    assert bodies(receive(client, two)) == ["two"]
    assert receive(client, one) == []
    assert stored_bodies(store, "two") == ["two"]


def test_failed_start_move_task_leaves_no_task(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    dlq, target = _dlq_with_messages(client, 2)
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.start_message_move_task(
            SourceArn=ARN_PREFIX + "dead", DestinationArn=ARN_PREFIX + "target"
        )
    faulty.fail = False
    assert list_tasks(client, ARN_PREFIX + "dead") == []
    assert store.hash("tasks") == {}
    assert counts(client, dlq) == (2, 0, 0)
    client.start_message_move_task(
        SourceArn=ARN_PREFIX + "dead", DestinationArn=ARN_PREFIX + "target"
    )
    assert sorted(bodies(receive(client, target))) == ["m0", "m1"]


def test_failed_cancel_move_task_leaves_task_running(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    _dlq_with_messages(client, 3)
    handle = client.start_message_move_task(
        SourceArn=ARN_PREFIX + "dead",
        DestinationArn=ARN_PREFIX + "target",
        MaxNumberOfMessagesPerSecond=1,
    )["TaskHandle"]
    faulty.fail = True
    with pytest.raises(PersistenceError):
        client.cancel_message_move_task(TaskHandle=handle)
    faulty.fail = False
    (task,) = list_tasks(client, ARN_PREFIX + "dead")
    assert task["Status"] == "RUNNING"
    (record,) = (json.loads(v) for v in store.hash("tasks").values())
    assert record["status"] == "RUNNING"
    client.cancel_message_move_task(TaskHandle=handle)
    (task,) = list_tasks(client, ARN_PREFIX + "dead")
    assert task["Status"] == "CANCELLED"


class SteppingClock(Clock):
    """A frozen clock that can also move without telling anyone (as wall time does)."""

    frozen = True

    def __init__(self, start: float) -> None:
        super().__init__()
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float | timedelta) -> float:
        step = seconds.total_seconds() if isinstance(seconds, timedelta) else float(seconds)
        self._now += step
        self._notify()
        return self._now

    def step(self, seconds: float) -> None:
        self._now += seconds

    def wait(self, condition: threading.Condition, until: float, real_timeout: float) -> None:
        self._now = max(self._now, until)


def test_failed_move_task_step_loses_and_doubles_nothing(
    store: Store, faulty: FaultyRedis, client: Any
) -> None:
    persistent = Persistent(store, persistence=faulty)
    clock = SteppingClock(T0)
    persistent.start(clock=clock)
    try:
        dlq, target = _dlq_with_messages(client, 3)
        client.start_message_move_task(
            SourceArn=ARN_PREFIX + "dead",
            DestinationArn=ARN_PREFIX + "target",
            MaxNumberOfMessagesPerSecond=1,
        )
        clock.step(2)
        faulty.fail = True
        with pytest.raises(PersistenceError):
            client.list_queues()
        faulty.fail = False
        (task,) = list_tasks(client, ARN_PREFIX + "dead")
        moved = task["ApproximateNumberOfMessagesMoved"]
        assert counts(client, dlq)[0] == 3 - moved
        assert counts(client, target)[0] == moved
        assert len(store.messages("dead")) + len(store.messages("target")) == 3
        clock.step(5)
        (task,) = list_tasks(client, ARN_PREFIX + "dead")
        assert (task["Status"], task["ApproximateNumberOfMessagesMoved"]) == ("COMPLETED", 3)
        assert sorted(bodies(receive(client, target))) == ["m0", "m1", "m2"]
        assert store.messages("dead") == {}
        assert len(store.messages("target")) == 3
    finally:
        faulty.fail = False
        persistent.stop()


@pytest.mark.parametrize("kind", ["standard", "fifo"])
@pytest.mark.parametrize("nth", [1, 2])
def test_failed_dead_letter_move_loses_nothing(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store, kind: str, nth: int
) -> None:
    """Redis fails on the n-th transaction of a receive that moves a message to the DLQ."""
    suffix, dlq, src, send = _redrive_pair(client, kind)
    mid = send("poison", "g")
    receive(client, src, VisibilityTimeout=0)
    faulty.arm(nth)
    with contextlib.suppress(PersistenceError):
        receive(client, src)
    faulty.fail_at = None
    total = counts(client, src)[0] + counts(client, dlq)[0]
    assert total == 1
    stored = [m for name in ("work" + suffix, "dead" + suffix) for m in store.messages(name)]
    assert stored == [mid]
    assert receive(client, src) == []
    assert [m["MessageId"] for m in receive(client, dlq)] == [mid]


# -- a Redis server that goes away and comes back -------------------------------------------


@pytest.mark.slow
def test_redis_server_restart(tmp_path: Path, client: Any) -> None:
    server = PrivateRedis(tmp_path)
    server.start()
    persistent: Persistent | None = None
    try:
        redis = server.client()
        persistent = Persistent(
            Store("private", redis, "sqsmock:", server.client), persistence=redis
        )
        persistent.start()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        before = client.send_message(QueueUrl=url, MessageBody="before")["MessageId"]
        server.stop()
        with pytest.raises(PersistenceError) as exc:
            client.send_message(QueueUrl=url, MessageBody="during")
        assert "Redis failed while" in str(exc.value)
        with pytest.raises(PersistenceError):
            receive(client, url)
        with pytest.raises(PersistenceError):
            client.create_queue(QueueName="other")
        server.start()
        after = client.send_message(QueueUrl=url, MessageBody="after")["MessageId"]
        views = persistent.peek("q")
        assert [(v.message_id, v.state, v.receive_count) for v in views] == [
            (before, "visible", 0),
            (after, "visible", 0),
        ]
        assert set(persistent.store.messages("q")) == {before, after}
        with pytest.raises(client.exceptions.QueueDoesNotExist):
            client.get_queue_url(QueueName="other")
        assert sorted(bodies(receive(client, url))) == ["after", "before"]
        persistent.stop()
        persistent.start()
        assert counts(client, url) == (0, 2, 0)
    finally:
        if persistent is not None:
            persistent.stop()
        server.kill()


# -- kill -9 --------------------------------------------------------------------------------

CHILD = """
import json, sys
import boto3
from sqsmock import mock_sqs

mock = mock_sqs(persistence="redis://127.0.0.1:6379/0", namespace=sys.argv[1], clock="frozen")
mock.start()
client = boto3.client("sqs", region_name="us-east-1")
url = client.create_queue(QueueName="killed")["QueueUrl"]
ids = [client.send_message(QueueUrl=url, MessageBody=f"m{i}")["MessageId"] for i in range(6)]
got = {}
while len(got) < 6:
    for m in client.receive_message(QueueUrl=url, MaxNumberOfMessages=10,
                                    VisibilityTimeout=600).get("Messages", []):
        got[m["Body"]] = m["ReceiptHandle"]
client.delete_message(QueueUrl=url, ReceiptHandle=got["m0"])
client.delete_message_batch(QueueUrl=url, Entries=[
    {"Id": "a", "ReceiptHandle": got["m2"]}, {"Id": "b", "ReceiptHandle": got["m4"]}])
print(json.dumps({"kept": [ids[1], ids[3], ids[5]], "now": mock.clock.now()}), flush=True)
sys.stdin.read()
"""


@pytest.mark.slow
def test_kill_9_keeps_exactly_what_the_calls_returned(client: Any) -> None:
    redis = _real_client()
    namespace = _namespace()
    store = Store("redis", redis, namespace, lambda: redis)
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, namespace],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        line = proc.stdout.readline() if ready else b""
        if not line:
            proc.kill()
            _, err = proc.communicate(timeout=10)
            pytest.fail(f"the child process did not report: {err.decode(errors='replace')}")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
        report = json.loads(line)
        kept = report["kept"]
        with mock_sqs(
            persistence=redis, namespace=namespace, clock=FrozenClock(start=report["now"])
        ) as mock:
            views = mock.peek("killed")
            assert [(v.message_id, v.state, v.receive_count) for v in views] == [
                (mid, "inflight", 1) for mid in kept
            ]
            assert set(store.messages("killed")) == set(kept)
            mock.clock.advance(600)
            assert sorted(bodies(receive(client, "killed"))) == ["m1", "m3", "m5"]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        store.drop()


# -- corrupted stores -----------------------------------------------------------------------


def _seeded(store: Store, client: Any) -> dict[str, str]:
    """A store with a standard and a FIFO queue holding one message each; returns their ids."""
    persistent = Persistent(store)
    persistent.start()
    try:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        fifo = create_fifo(client, "f.fifo")
        ids = {
            "q": client.send_message(QueueUrl=url, MessageBody="m")["MessageId"],
            "f.fifo": send_fifo(client, fifo, "f", dedup="D")["MessageId"],
        }
    finally:
        persistent.stop()
    return ids


def _corrupt(store: Store, kind: str, ids: dict[str, str]) -> str:
    """Damage the store; returns a fragment the error message must contain."""
    ns, c = store.namespace, store.client
    q, mid = qid("q"), ids["q"]
    queue_hash, field = f"{ns}q:{q}", f"m:{ids['q']}"

    def edit_record(change: Callable[[dict[str, Any]], None]) -> None:
        record = json.loads(text(c.hget(queue_hash, field)))
        change(record)
        c.hset(queue_hash, field, json.dumps(record))

    if kind == "foreign key":
        c.set(f"{ns}stray", "x")
        return f"{ns}stray"
    if kind == "foreign queue hash":
        c.hset(f"{ns}q:{qid('ghost')}", "m:id", "{}")
        return f"{ns}q:{qid('ghost')}"
    if kind == "unknown field in a queue hash":
        c.hset(queue_hash, "surprise", "x")
        return "surprise"
    if kind == "message not JSON":
        c.hset(queue_hash, field, "this is not json{")
        return mid
    if kind == "message not UTF-8":
        c.hset(queue_hash, field, b"\xff\xfe\x00garbage")
        return queue_hash
    if kind == "message missing body":
        edit_record(lambda record: record.pop("body"))
        return mid
    if kind == "message for another id":
        c.hset(queue_hash, "m:orphan-message-id", text(c.hget(queue_hash, field)))
        return "orphan-message-id"
    if kind == "message without state":
        edit_record(lambda record: record.pop("state"))
        return mid
    if kind == "state not a list":
        edit_record(lambda record: record.update(state={"state": 0}))
        return mid
    if kind == "queue metadata not JSON":
        c.hset(f"{ns}queues", q, "{not json")
        return q
    if kind == "queue metadata names another queue":
        meta = json.loads(text(c.hget(f"{ns}queues", q)))
        meta["name"] = "other"
        c.hset(f"{ns}queues", q, json.dumps(meta))
        return q
    if kind == "queue attribute not a number":
        meta = json.loads(text(c.hget(f"{ns}queues", q)))
        meta["attributes"]["VisibilityTimeout"] = "soon"
        c.hset(f"{ns}queues", q, json.dumps(meta))
        return q
    if kind == "dedup entry not JSON":
        c.hset(f"{ns}q:{qid('f.fifo')}", "d:D", "nope")
        return "D"
    if kind == "move task not JSON":
        c.hset(f"{ns}tasks", "task-1", "nope")
        return "task-1"
    if kind == "deleted time not a number":
        c.hset(f"{ns}deleted", qid("gone"), "yesterday")
        return qid("gone")
    if kind == "message attributes of the wrong shape":
        edit_record(lambda record: record.update(attrs={"a": "just a string"}))
        return mid
    if kind == "message sent at NaN":
        c.hset(
            queue_hash, field, text(c.hget(queue_hash, field)).replace('"sent":', '"sent":NaN,"x":')
        )
        return mid
    if kind == "message visible at infinity":
        edit_record(lambda record: record["state"].__setitem__(1, float("inf")))
        return mid
    if kind == "negative receive count":
        edit_record(lambda record: record["state"].__setitem__(2, -1))
        return mid
    if kind == "running move task with wrong field types":
        task = {
            "task_id": "task-2",
            "handle": "h",
            "source_arn": "arn:aws:sqs:us-east-1:123456789012:q",
            "destination_arn": None,
            "rate": "fast",
            "to_move": "ten",
            "started_at": T0,
            "status": "RUNNING",
            "moved": 0,
            "failure": None,
        }
        c.hset(f"{ns}tasks", "task-2", json.dumps(task))
        return "task-2"
    if kind == "deleted time NaN":
        c.hset(f"{ns}deleted", qid("gone"), "nan")
        return qid("gone")
    if kind == "dedup entry with a NaN expiry":
        c.hset(f"{ns}q:{qid('f.fifo')}", "d:D", '["id", null, NaN]')
        return "D"
    if kind == "sequence not an integer":
        c.hset(f"{ns}q:{qid('f.fifo')}", "seq", "many")
        return f"{ns}q:{qid('f.fifo')}"
    if kind == "unknown schema":
        c.set(f"{ns}schema", "99")
        return f"{ns}schema"
    if kind == "schema missing":
        c.delete(f"{ns}schema")
        return f"{ns}schema"
    if kind == "queues key of the wrong type":
        c.delete(f"{ns}queues")
        c.set(f"{ns}queues", "x")
        return f"{ns}queues"
    raise AssertionError(kind)


CORRUPTIONS = [
    "foreign key",
    "foreign queue hash",
    "unknown field in a queue hash",
    "message not JSON",
    "message not UTF-8",
    "message missing body",
    "message for another id",
    "message without state",
    "state not a list",
    "queue metadata not JSON",
    "queue metadata names another queue",
    "queue attribute not a number",
    "dedup entry not JSON",
    "move task not JSON",
    "deleted time not a number",
    "sequence not an integer",
    "message attributes of the wrong shape",
    "message sent at NaN",
    "message visible at infinity",
    "negative receive count",
    "running move task with wrong field types",
    "deleted time NaN",
    "dedup entry with a NaN expiry",
    "unknown schema",
    "schema missing",
    "queues key of the wrong type",
]


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_corrupted_store_fails_at_start(store: Store, client: Any, kind: str) -> None:
    fragment = _corrupt(store, kind, _seeded(store, client))
    mock = mock_sqs(persistence=store.client, namespace=store.namespace, clock="frozen")
    with pytest.raises(PersistenceError) as exc:
        mock.start()
    message = str(exc.value)
    assert message.startswith("sqsmock persistence failed: ")
    assert fragment in message
    assert not mock.active
    assert active_mock() is None
    with mock_sqs() as plain:
        assert "QueueUrls" not in client.list_queues()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="plain")
        assert [v.body for v in plain.peek("q")] == ["plain"]
    assert active_mock() is None


# -- how persistence is given ---------------------------------------------------------------


def test_redis_url(client: Any) -> None:
    redis = _real_client()
    namespace = _namespace()
    store = Store("redis", redis, namespace, lambda: redis)
    url_option = f"redis://{REAL_HOST}:{REAL_PORT}/0"
    try:
        with mock_sqs(persistence=url_option, namespace=namespace, clock="frozen"):
            url = client.create_queue(QueueName="q")["QueueUrl"]
            mid = client.send_message(QueueUrl=url, MessageBody="m")["MessageId"]
        assert set(store.messages("q")) == {mid}
        with mock_sqs(persistence=url_option, namespace=namespace, clock="frozen"):
            assert [m["MessageId"] for m in receive(client, url)] == [mid]
    finally:
        store.drop()


def test_unreachable_redis_url_fails_at_start() -> None:
    mock = mock_sqs(persistence=f"redis://127.0.0.1:{free_port()}/0", namespace=_namespace())
    with pytest.raises(PersistenceError) as exc:
        mock.start()
    assert "Redis failed while" in str(exc.value)
    assert not mock.active
    assert active_mock() is None


def test_persistence_must_be_a_client_or_url() -> None:
    with pytest.raises(TypeError, match="persistence must be"):
        mock_sqs(persistence=42).start()
    assert active_mock() is None


def test_namespace_must_not_be_empty(store: Store) -> None:
    with pytest.raises(ValueError, match="namespace"):
        mock_sqs(persistence=store.client, namespace="")


# -- calls racing DeleteQueue and reset, moves that fail half-way ---------------------------


def test_a_call_that_found_the_queue_before_it_was_deleted_writes_nothing(
    sqs: Persistent, client: Any, store: Store
) -> None:
    from sqsmock._engine.message import Message

    url = client.create_queue(QueueName="q")["QueueUrl"]
    queue = sqs.handle.backend.get(REGION, ACCOUNT, "q")  # looked up, then the queue goes
    client.delete_queue(QueueUrl=url)
    late = Message("late-message-id", "late", "d41d8cd98f00b204e9800998ecf8427e", size=4)
    with pytest.raises(SqsError) as exc:
        queue.send([late], [None])
    assert exc.value.error == "QueueDoesNotExist"
    assert store.meta("q") is None
    assert store.messages("q") == {}
    sqs.restart()
    assert "QueueUrls" not in client.list_queues()


def test_a_queue_that_is_its_own_dead_letter_queue_keeps_its_message(
    sqs: Persistent, client: Any, store: Store
) -> None:
    url = client.create_queue(QueueName="loop")["QueueUrl"]
    policy = {"deadLetterTargetArn": ARN_PREFIX + "loop", "maxReceiveCount": 1}
    client.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": json.dumps(policy)})
    client.send_message(QueueUrl=url, MessageBody="x")
    assert bodies(receive(client, url, VisibilityTimeout=0)) == ["x"]
    # a move to the queue it is in would change nothing: it stays and is delivered again
    assert bodies(receive(client, url)) == ["x"]
    assert stored_bodies(store, "loop") == ["x"]
    sqs.restart()
    assert [v.body for v in sqs.handle.peek("loop")] == ["x"]


def test_a_failed_write_of_move_task_progress_changes_nothing(
    fsqs: Persistent, faulty: FaultyRedis, client: Any, store: Store
) -> None:
    dlq = client.create_queue(QueueName="dlq")["QueueUrl"]
    policy = {"deadLetterTargetArn": ARN_PREFIX + "dlq", "maxReceiveCount": 1}
    client.create_queue(QueueName="src", Attributes={"RedrivePolicy": json.dumps(policy)})
    other = client.create_queue(QueueName="other")["QueueUrl"]
    client.send_message(QueueUrl=dlq, MessageBody="m")
    client.start_message_move_task(
        SourceArn=ARN_PREFIX + "dlq",
        DestinationArn=ARN_PREFIX + "other",
        MaxNumberOfMessagesPerSecond=1,
    )
    faulty.fail = True
    fsqs.advance(5)  # the move is due, its write fails; advance() itself does not raise
    with pytest.raises(PersistenceError):
        client.list_message_move_tasks(SourceArn=ARN_PREFIX + "dlq")
    faulty.fail = False
    task = client.list_message_move_tasks(SourceArn=ARN_PREFIX + "dlq")["Results"][0]
    assert (task["Status"], task["ApproximateNumberOfMessagesMoved"]) == ("COMPLETED", 1)
    assert stored_bodies(store, "other") == ["m"] and stored_bodies(store, "dlq") == []
    fsqs.restart()
    task = client.list_message_move_tasks(SourceArn=ARN_PREFIX + "dlq")["Results"][0]
    assert (task["Status"], task["ApproximateNumberOfMessagesMoved"]) == ("COMPLETED", 1)
    assert bodies(receive(client, other)) == ["m"]
    assert receive(client, dlq) == []
