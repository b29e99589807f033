"""Many threads on one queue: exactly-once delivery, draining to zero, redelivery only on lapse."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import boto3
import pytest

from sqsmock._engine.tombstone import COMPACT_MIN_DEAD

JOIN_TIMEOUT = 30.0
#: A frozen clock; no call journal: consumers poll until producers finish, an unbounded number
#: of calls that would pass the journal's limit and warn.
FROZEN = pytest.mark.sqsmock(clock="frozen", journal_limit=0)


_SESSION = boto3.session.Session()


def new_client(sqs_mock: Any) -> Any:
    """One client per thread, created in the main thread from one shared session."""
    return _SESSION.client("sqs", region_name=sqs_mock.region)


def counts(client: Any, url: str) -> tuple[str, str, str]:
    attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return (
        attributes["ApproximateNumberOfMessages"],
        attributes["ApproximateNumberOfMessagesNotVisible"],
        attributes["ApproximateNumberOfMessagesDelayed"],
    )


def send_batches(client: Any, url: str, bodies: list[str]) -> list[str]:
    """Send ``bodies`` ten at a time; returns the MessageIds."""
    ids: list[str] = []
    for start in range(0, len(bodies), 10):
        chunk = bodies[start : start + 10]
        response = client.send_message_batch(
            QueueUrl=url,
            Entries=[{"Id": str(i), "MessageBody": body} for i, body in enumerate(chunk)],
        )
        assert "Failed" not in response
        assert len(response["Successful"]) == len(chunk)
        ids.extend(entry["MessageId"] for entry in response["Successful"])
    return ids


def delete_batch(client: Any, url: str, messages: list[dict[str, Any]]) -> None:
    response = client.delete_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)
        ],
    )
    assert "Failed" not in response
    assert len(response["Successful"]) == len(messages)


def run_threads(targets: list[Any]) -> None:
    """Run every target in its own thread; re-raise the first failure of any of them."""
    errors: list[BaseException] = []

    def guarded(target: Any) -> Any:
        def run() -> None:
            try:
                target()
            except BaseException as exc:  # handed to the main thread
                errors.append(exc)

        return run

    threads = [threading.Thread(target=guarded(t), daemon=True) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_TIMEOUT)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    if errors:
        raise errors[0]


@pytest.mark.slow
@FROZEN
def test_concurrent_producers_and_consumers_deliver_each_message_exactly_once(
    sqs_mock: Any, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="work")["QueueUrl"]
    producers, per_producer, consumers = 4, 500, 4
    producer_clients = [new_client(sqs_mock) for _ in range(producers)]
    consumer_clients = [new_client(sqs_mock) for _ in range(consumers)]
    sent_ids: list[list[str]] = [[] for _ in range(producers)]
    received: list[list[dict[str, Any]]] = [[] for _ in range(consumers)]
    producers_done = threading.Event()

    def producer(n: int) -> Any:
        def run() -> None:
            bodies = [f"p{n}-{i}" for i in range(per_producer)]
            sent_ids[n] = send_batches(producer_clients[n], url, bodies)

        return run

    def consumer(n: int) -> Any:
        def run() -> None:
            client = consumer_clients[n]
            while True:
                done = producers_done.is_set()
                messages = client.receive_message(
                    QueueUrl=url,
                    MaxNumberOfMessages=10,
                    VisibilityTimeout=3600,
                    MessageSystemAttributeNames=["ApproximateReceiveCount"],
                ).get("Messages", [])
                if not messages:
                    if done:
                        return
                    continue
                received[n].extend(messages)
                delete_batch(client, url, messages)

        return run

    consumer_threads = [threading.Thread(target=consumer(n), daemon=True) for n in range(consumers)]
    for thread in consumer_threads:
        thread.start()
    run_threads([producer(n) for n in range(producers)])
    producers_done.set()
    for thread in consumer_threads:
        thread.join(JOIN_TIMEOUT)
    assert not any(thread.is_alive() for thread in consumer_threads), "a consumer hung"

    all_sent = [mid for ids in sent_ids for mid in ids]
    all_received = [m for batch in received for m in batch]
    assert len(all_sent) == len(set(all_sent)) == producers * per_producer
    received_ids = Counter(m["MessageId"] for m in all_received)
    assert [mid for mid, n in received_ids.items() if n > 1] == []
    assert set(received_ids) == set(all_sent)
    bodies = Counter(m["Body"] for m in all_received)
    expected = {f"p{p}-{i}" for p in range(producers) for i in range(per_producer)}
    assert set(bodies) == expected
    assert max(bodies.values()) == 1
    assert {m["Attributes"]["ApproximateReceiveCount"] for m in all_received} == {"1"}
    assert counts(sqs_client, url) == ("0", "0", "0")
    assert sqs_mock.peek("work") == []


@pytest.mark.slow
@FROZEN
def test_three_cycles_of_two_thousand_messages_drain_to_zero(
    sqs_mock: Any, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="stress")["QueueUrl"]
    queue = sqs_mock.backend.get(sqs_mock.region, sqs_mock.account_id, "stress")
    for cycle in range(3):
        bodies = [f"c{cycle}-{i}" for i in range(2000)]
        send_batches(sqs_client, url, bodies)
        assert counts(sqs_client, url) == ("2000", "0", "0")
        seen: Counter[str] = Counter()
        calls = 0
        while True:
            messages = sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get(
                "Messages", []
            )
            if not messages:
                break
            calls += 1
            assert calls <= 200, "more receives than messages / 10"
            seen.update(m["Body"] for m in messages)
            delete_batch(sqs_client, url, messages)
        assert set(seen) == set(bodies)
        assert max(seen.values()) == 1
        assert calls == 200
        assert counts(sqs_client, url) == ("0", "0", "0")
        assert sqs_mock.peek("stress") == []
        assert queue.log.live_count() == 0
        assert queue.log.dead_count() <= COMPACT_MIN_DEAD
        assert len(queue.log) <= 2000 + COMPACT_MIN_DEAD
    assert queue.log.compactions >= 3


@FROZEN
def test_redelivery_under_concurrency_only_after_the_visibility_timeout_lapsed(
    sqs_mock: Any, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    sent_id = sqs_client.send_message(QueueUrl=url, MessageBody="once")["MessageId"]
    clients = [new_client(sqs_mock) for _ in range(6)]

    def race() -> list[dict[str, Any]]:
        barrier = threading.Barrier(len(clients))
        got: list[dict[str, Any]] = []
        lock = threading.Lock()

        def receiver(client: Any) -> Any:
            def run() -> None:
                barrier.wait(JOIN_TIMEOUT)
                messages = client.receive_message(
                    QueueUrl=url,
                    MaxNumberOfMessages=10,
                    MessageSystemAttributeNames=["ApproximateReceiveCount"],
                ).get("Messages", [])
                with lock:
                    got.extend(messages)

            return run

        run_threads([receiver(c) for c in clients])
        return got

    first = race()
    assert [(m["MessageId"], m["Attributes"]["ApproximateReceiveCount"]) for m in first] == [
        (sent_id, "1")
    ]
    sqs_mock.clock.advance(29.5)
    assert race() == []
    assert counts(sqs_client, url) == ("0", "1", "0")
    sqs_mock.clock.advance(0.5)
    second = race()
    assert [(m["MessageId"], m["Attributes"]["ApproximateReceiveCount"]) for m in second] == [
        (sent_id, "2")
    ]
    assert second[0]["ReceiptHandle"] != first[0]["ReceiptHandle"]
    assert race() == []


@FROZEN
def test_concurrent_deletes_of_the_same_receipt_all_succeed(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    handle = sqs_client.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
    clients = [new_client(sqs_mock) for _ in range(4)]
    run_threads([lambda c=c: c.delete_message(QueueUrl=url, ReceiptHandle=handle) for c in clients])
    assert counts(sqs_client, url) == ("0", "0", "0")
    assert sqs_mock.peek("q") == []
