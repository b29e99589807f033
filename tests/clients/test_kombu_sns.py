"""kombu's SQS transport with ``supports_fanout``: a fanout exchange is an SNS topic, each bound
queue an SQS subscription with raw delivery, and a message published to the exchange reaches every
bound queue -- against ``sqsmock serve`` and ``sqsmock serve --localstack``, through kombu's own
boto3 SNS and SQS clients (kombu creates the topic, subscribes the queues when their consumers
start, and sets each queue's policy to let the topic send)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import boto3
import kombu.pools
import pytest
from clients_support import ACCESS_KEY, REGION, SECRET_KEY
from kombu import Connection, Consumer, Exchange, Queue


@pytest.fixture
def connection(sns_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Connection]:
    for name, value in (
        ("AWS_ACCESS_KEY_ID", ACCESS_KEY),
        ("AWS_SECRET_ACCESS_KEY", SECRET_KEY),
        ("AWS_DEFAULT_REGION", REGION),
    ):
        monkeypatch.setenv(name, value)
    netloc = urlsplit(sns_server.endpoint_url).netloc
    url = f"sqs://{quote(ACCESS_KEY, safe='')}:{quote(SECRET_KEY, safe='')}@{netloc}"
    options = {
        "region": REGION,
        "is_secure": False,
        "supports_fanout": True,
        "wait_time_seconds": 0,
        "polling_interval": 0.01,
    }
    with Connection(url, transport_options=options) as conn:
        yield conn
    kombu.pools.reset()


def drain(conn: Connection, got: list[tuple[str, Any]], wanted: int) -> None:
    for _ in range(50):  # each drain_events returns after one message or its timeout
        if len(got) >= wanted:
            return
        with contextlib.suppress(TimeoutError):
            conn.drain_events(timeout=0.2)


def test_a_fanout_exchange_delivers_to_every_bound_queue(
    connection: Connection, sns_server: Any
) -> None:
    exchange = Exchange("kombu-events", type="fanout")
    queues = [Queue(name, exchange) for name in ("kombu-billing", "kombu-audit")]
    got: list[tuple[str, Any]] = []

    def on_message(queue_name: str) -> Any:
        def handle(body: Any, message: Any) -> None:
            got.append((queue_name, body))
            message.ack()

        return handle

    channel = connection.channel()
    consumers = []
    for queue in queues:
        consumer = Consumer(channel, [queue], callbacks=[on_message(queue.name)], accept=["json"])
        consumer.consume()
        consumers.append(consumer)
    producer = connection.Producer(serializer="json")
    producer.publish({"order": 7, "note": "fan ✓"}, exchange=exchange, declare=[exchange])
    producer.publish({"order": 8}, exchange=exchange)
    drain(connection, got, 4)
    for consumer in consumers:
        consumer.cancel()
    channel.close()

    assert sorted(got, key=json.dumps) == sorted(
        [
            ("kombu-audit", {"order": 7, "note": "fan ✓"}),
            ("kombu-audit", {"order": 8}),
            ("kombu-billing", {"order": 7, "note": "fan ✓"}),
            ("kombu-billing", {"order": 8}),
        ],
        key=json.dumps,
    )

    # What kombu made of it, as SNS and SQS show it.
    options = {
        "endpoint_url": sns_server.endpoint_url,
        "region_name": REGION,
        "aws_access_key_id": ACCESS_KEY,
        "aws_secret_access_key": SECRET_KEY,
    }
    sns, sqs = boto3.client("sns", **options), boto3.client("sqs", **options)
    [topic] = [t["TopicArn"] for t in sns.list_topics()["Topics"]]
    assert topic.endswith(":kombu-events")
    subscriptions = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert sorted(s["Endpoint"].rsplit(":", 1)[1] for s in subscriptions) == [
        "kombu-audit",
        "kombu-billing",
    ]
    for subscription in subscriptions:
        attributes = sns.get_subscription_attributes(
            SubscriptionArn=subscription["SubscriptionArn"]
        )["Attributes"]
        assert attributes["RawMessageDelivery"] == "true"
    url = sqs.get_queue_url(QueueName="kombu-billing")["QueueUrl"]
    policy = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]
    [statement] = json.loads(policy["Policy"])["Statement"]
    assert statement["Condition"]["ArnLike"]["aws:SourceArn"] == topic


def test_a_fifo_fanout_exchange_keeps_order_in_each_fifo_queue(
    connection: Connection, sns_server: Any
) -> None:
    """An exchange named ``*.fifo`` is a FIFO topic (kombu sends a group id and a deduplication
    id with each publish); its queues are FIFO queues, each receiving the messages in order."""
    exchange = Exchange("kombu-orders.fifo", type="fanout")
    names = ("kombu-packing.fifo", "kombu-invoicing.fifo")
    got: list[tuple[str, Any]] = []
    channel = connection.channel()
    consumers = []
    for name in names:

        def handle(body: Any, message: Any, name: str = name) -> None:
            got.append((name, body["n"]))
            message.ack()

        consumer = Consumer(channel, [Queue(name, exchange)], callbacks=[handle], accept=["json"])
        consumer.consume()
        consumers.append(consumer)
    producer = connection.Producer(serializer="json")
    for n in range(5):
        producer.publish({"n": n}, exchange=exchange, declare=[exchange])
    drain(connection, got, 10)
    for consumer in consumers:
        consumer.cancel()
    channel.close()

    for name in names:
        assert [n for queue, n in got if queue == name] == [0, 1, 2, 3, 4]
    options = {
        "endpoint_url": sns_server.endpoint_url,
        "region_name": REGION,
        "aws_access_key_id": ACCESS_KEY,
        "aws_secret_access_key": SECRET_KEY,
    }
    sns = boto3.client("sns", **options)
    [topic] = [t["TopicArn"] for t in sns.list_topics()["Topics"]]
    assert topic.endswith(":kombu-orders.fifo")
    assert sns.get_topic_attributes(TopicArn=topic)["Attributes"]["FifoTopic"] == "true"
    assert {t["Key"] for t in sns.list_tags_for_resource(ResourceArn=topic)["Tags"]} == {
        "ManagedBy",
        "Description",
    }
