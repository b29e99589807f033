"""At-least-once delivery and best-effort ordering, on request, repeatable with a seed."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from sqsmock import Delivery, mock_sqs


def client() -> Any:
    return boto3.client(
        "sqs", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )


def drain(c: Any, url: str, rounds: int = 200) -> list[dict[str, Any]]:
    """Receive and delete until a few receives in a row come back empty."""
    got: list[dict[str, Any]] = []
    empty = 0
    for _ in range(rounds):
        messages = c.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            empty += 1
            if empty >= 5:
                break
            continue
        empty = 0
        for m in messages:
            got.append(m)
            c.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return got


class IdempotentConsumer:
    """What at-least-once delivery asks of a consumer: remember what was done, by MessageId."""

    def __init__(self) -> None:
        self.done: set[str] = set()
        self.effects: list[str] = []
        self.duplicates = 0

    def handle(self, message: dict[str, Any]) -> None:
        if message["MessageId"] in self.done:
            self.duplicates += 1
            return
        self.done.add(message["MessageId"])
        self.effects.append(message["Body"])


def test_an_idempotent_consumer_survives_duplicates_with_a_fixed_seed() -> None:
    with mock_sqs(clock="frozen", delivery={"duplicates": 0.3, "seed": 42}):
        c = client()
        url = c.create_queue(QueueName="payments")["QueueUrl"]
        for i in range(30):
            c.send_message(QueueUrl=url, MessageBody=f"pay-{i}")
        consumer = IdempotentConsumer()
        for m in drain(c, url):
            consumer.handle(m)
        assert sorted(consumer.effects) == sorted(f"pay-{i}" for i in range(30))
        assert consumer.duplicates > 0  # the seed makes this certain, and repeatable


def _run(seed: int, **chaos: float) -> list[str]:
    with mock_sqs(clock="frozen") as sqs:
        sqs.chaos(seed=seed, **chaos)
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        for i in range(20):
            c.send_message(QueueUrl=url, MessageBody=str(i))
        return [m["Body"] for m in drain(c, url)]


def test_the_same_seed_gives_the_same_run() -> None:
    chaos = {"duplicates": 0.2, "reorder": 0.5, "empty_receives": 0.3}
    assert _run(1, **chaos) == _run(1, **chaos)
    assert _run(1, **chaos) != _run(2, **chaos)


def test_a_duplicate_is_the_same_message_with_a_working_receipt_handle() -> None:
    with mock_sqs(clock="frozen") as sqs:
        sqs.chaos(duplicates=1.0, seed=3)
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        sent = c.send_message(
            QueueUrl=url,
            MessageBody="hello",
            MessageAttributes={"k": {"DataType": "String", "StringValue": "v"}},
        )
        (first,) = c.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"]
        (copy,) = c.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"]
        assert copy["MessageId"] == first["MessageId"] == sent["MessageId"]
        assert copy["Body"] == "hello" and copy["MessageAttributes"] == first["MessageAttributes"]
        assert copy["ReceiptHandle"] != first["ReceiptHandle"]
        # the journal shows what the caller got
        journaled = sqs.calls.of("ReceiveMessage")[1].response["Messages"][0]
        assert journaled["ReceiptHandle"] == copy["ReceiptHandle"]
        # the copy's handle works: it deletes the message, as any handle of it would
        c.change_message_visibility(
            QueueUrl=url, ReceiptHandle=copy["ReceiptHandle"], VisibilityTimeout=10
        )
        c.delete_message(QueueUrl=url, ReceiptHandle=copy["ReceiptHandle"])
        assert sqs.peek("q") == []
        # and the original's handle, now of a deleted message, succeeds without effect
        c.delete_message(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"])


def test_a_copy_can_come_after_the_delete_and_a_long_poll_gets_it_at_once() -> None:
    with mock_sqs(clock="frozen") as sqs:
        sqs.chaos(duplicates=1.0, seed=1)
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.send_message(QueueUrl=url, MessageBody="once")
        (m,) = c.receive_message(QueueUrl=url)["Messages"]
        c.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        start = sqs.clock.now()
        (again,) = c.receive_message(QueueUrl=url, WaitTimeSeconds=20)["Messages"]
        assert again["MessageId"] == m["MessageId"] and sqs.clock.now() == start
        c.delete_message(QueueUrl=url, ReceiptHandle=again["ReceiptHandle"])
        assert c.receive_message(QueueUrl=url).get("Messages") is None


def test_a_purge_drops_the_copies_waiting() -> None:
    with mock_sqs(clock="frozen") as sqs:
        sqs.chaos(duplicates=1.0, seed=1)
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.send_message(QueueUrl=url, MessageBody="x")
        c.receive_message(QueueUrl=url)
        assert (
            sqs.runtime.chaos.waiting(sqs.runtime.backend.get("us-east-1", "123456789012", "q"))
            == 1
        )
        c.purge_queue(QueueUrl=url)
        assert c.receive_message(QueueUrl=url).get("Messages") is None


def test_reorder_shuffles_a_receive() -> None:
    with mock_sqs(clock="frozen") as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        for i in range(10):
            c.send_message(QueueUrl=url, MessageBody=str(i))
        settings = sqs.chaos(reorder=1.0, seed=5)
        bodies = [
            m["Body"] for m in c.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
        ]
        assert sorted(bodies, key=int) == [str(i) for i in range(10)]
        assert bodies != sorted(bodies, key=int)
        assert settings == Delivery(reorder=1.0, seed=5)


def test_empty_short_polls_while_messages_wait_but_not_long_polls() -> None:
    with mock_sqs(clock="frozen") as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.send_message(QueueUrl=url, MessageBody="x")
        sqs.chaos(empty_receives=1.0, seed=0)
        for _ in range(3):
            assert c.receive_message(QueueUrl=url).get("Messages") is None
        assert len(c.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"]) == 1
        sqs.chaos()  # ends it
        sqs.clock.advance(30)
        assert len(c.receive_message(QueueUrl=url)["Messages"]) == 1


def test_fifo_queues_keep_their_guarantees() -> None:
    with mock_sqs(clock="frozen", delivery=Delivery(1.0, 1.0, 1.0, seed=9)):
        c = client()
        url = c.create_queue(
            QueueName="q.fifo",
            Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
        )["QueueUrl"]
        for i in range(10):
            c.send_message(QueueUrl=url, MessageBody=str(i), MessageGroupId="g")
        bodies = [m["Body"] for m in drain(c, url)]
        assert bodies == [str(i) for i in range(10)]


def test_per_queue_settings_apply_to_that_queue_only() -> None:
    with mock_sqs(clock="frozen") as sqs:
        c = client()
        a = c.create_queue(QueueName="a")["QueueUrl"]
        b = c.create_queue(QueueName="b")["QueueUrl"]
        sqs.chaos(duplicates=1.0, seed=1, queue="a")
        for url in (a, b):
            for i in range(5):
                c.send_message(QueueUrl=url, MessageBody=str(i))
        assert len(drain(c, a)) == 10  # each one twice
        assert len(drain(c, b)) == 5
        sqs.chaos(queue="a")  # ends it for a
        c.send_message(QueueUrl=a, MessageBody="x")
        assert len(drain(c, a)) == 1


def test_a_seed_is_chosen_and_shown_when_none_is_given() -> None:
    with mock_sqs() as sqs:
        settings = sqs.chaos(duplicates=0.1)
        assert isinstance(settings.seed, int)


@pytest.mark.parametrize("bad", [{"duplicates": 1.5}, {"reorder": -0.1}, {"empty_receives": "x"}])
def test_bad_probabilities_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="probability"):
        Delivery(**bad)
    with pytest.raises(ValueError, match="probability"):
        mock_sqs(delivery=bad)


def test_delivery_must_be_a_delivery_or_a_dict() -> None:
    with pytest.raises(TypeError):
        mock_sqs(delivery=0.5)  # type: ignore[arg-type]


def test_reset_drops_the_copies_waiting() -> None:
    with mock_sqs(clock="frozen") as sqs:
        sqs.chaos(duplicates=1.0, seed=1)
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.send_message(QueueUrl=url, MessageBody="x")
        c.receive_message(QueueUrl=url)
        sqs.reset()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        assert c.receive_message(QueueUrl=url).get("Messages") is None


@pytest.mark.sqsmock(clock="frozen", delivery={"duplicates": 1.0, "seed": 1})
def test_the_pytest_marker_takes_delivery_settings(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="x")
    assert len(drain(sqs_client, url)) == 2
    assert [c.operation for c in sqs_mock.calls][:2] == ["CreateQueue", "SendMessage"]


@pytest.mark.parametrize(
    "bad",
    [
        {"duplicates": float("nan")},
        {"reorder": float("inf")},
        {"empty_receives": True},
        {"duplicates": 0.1, "seed": 1.5},
        {"duplicates": 0.1, "seed": float("nan")},
        {"duplicates": 0.1, "seed": True},
    ],
)
def test_numbers_that_are_no_probability_or_seed_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"probability|seed"):
        Delivery(**bad)
    with pytest.raises(ValueError, match=r"probability|seed"):
        mock_sqs(delivery=bad)
