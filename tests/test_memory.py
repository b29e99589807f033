"""Memory follows live messages: a message that leaves its queue -- deleted, expired, moved,
purged -- takes its body with it at once, not at the next compaction of the queue's heaps.

Each test sends large bodies, makes them leave, and measures with ``tracemalloc`` what the mock
still holds: it must be a small fraction of what was sent. The call journal is off here (it
keeps request parameters on purpose; its own bound is tested in test_call_journal.py).
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest

from sqsmock import mock_sqs

#: Messages sent per test, and the size of each body.
N = 200
SIZE = 256 * 1024
#: What the mock may keep of N deleted messages: small records, indexes, stale heap entries.
ALLOWED = N * SIZE // 20


def body(i: int) -> str:
    """A fresh ``SIZE``-character string (never shared with another message)."""
    return f"{i:08d}" * (SIZE // 8)


@pytest.fixture
def sqs() -> Iterator[Any]:
    with mock_sqs(clock="frozen", journal_limit=0) as mock:
        yield mock


@pytest.fixture
def client(sqs: Any) -> Any:
    return boto3.client(
        "sqs", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )


def retained(work: Callable[[], None]) -> int:
    """Bytes allocated by ``work`` and still held once it returned."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        work()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def send_all(client: Any, url: str, fifo: bool = False, groups: int = 3) -> None:
    for i in range(N):
        extra = {"MessageGroupId": f"g{i % groups}", "MessageDeduplicationId": str(i)}
        if not fifo:
            extra = {}
        client.send_message(QueueUrl=url, MessageBody=body(i), **extra)


def receive_and_delete(client: Any, url: str, *, batch: bool, reverse: bool = False) -> int:
    """Receive everything and delete it (one by one or in batches, in receive order or
    reversed); returns how many were deleted."""
    deleted = 0
    while True:
        got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return deleted
        handles = [m["ReceiptHandle"] for m in got]
        del got  # the answer holds the bodies: the test must not keep them alive itself
        if reverse:
            handles.reverse()
        if batch:
            entries = [{"Id": str(i), "ReceiptHandle": h} for i, h in enumerate(handles)]
            assert not client.delete_message_batch(QueueUrl=url, Entries=entries).get("Failed")
        else:
            for handle in handles:
                client.delete_message(QueueUrl=url, ReceiptHandle=handle)
        deleted += len(handles)


def warm_up(client: Any, url: str, fifo: bool = False) -> None:
    """One small round trip of every call the test makes, so botocore's caches are built
    before measuring."""
    for batch in (True, False):
        extra = {"MessageGroupId": "w", "MessageDeduplicationId": f"w{batch}"} if fifo else {}
        client.send_message(QueueUrl=url, MessageBody="warm", **extra)
        receive_and_delete(client, url, batch=batch)
    client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])


def counts(client: Any, url: str) -> tuple[str, str]:
    attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return (
        attributes["ApproximateNumberOfMessages"],
        attributes["ApproximateNumberOfMessagesNotVisible"],
    )


@pytest.mark.parametrize("batch", [False, True], ids=["one-by-one", "batch"])
def test_deleted_bodies_are_released_at_once_on_a_standard_queue(client: Any, batch: bool) -> None:
    url = client.create_queue(QueueName="big")["QueueUrl"]
    warm_up(client, url)

    def work() -> None:
        send_all(client, url)
        assert receive_and_delete(client, url, batch=batch) == N

    held = retained(work)
    assert counts(client, url) == ("0", "0")
    assert held < ALLOWED, f"{held} bytes held after deleting {N} x {SIZE} bytes"


@pytest.mark.parametrize("reverse", [False, True], ids=["in-order", "reversed"])
def test_deleted_bodies_are_released_at_once_on_a_fifo_queue(client: Any, reverse: bool) -> None:
    url = client.create_queue(QueueName="big.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    warm_up(client, url, fifo=True)

    def work() -> None:
        send_all(client, url, fifo=True)
        assert receive_and_delete(client, url, batch=True, reverse=reverse) == N

    held = retained(work)
    assert counts(client, url) == ("0", "0")
    assert held < ALLOWED, f"{held} bytes held after deleting {N} x {SIZE} bytes"


def test_a_fifo_receive_retried_by_attempt_id_keeps_no_deleted_body(client: Any) -> None:
    url = client.create_queue(QueueName="big.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    warm_up(client, url, fifo=True)

    def work() -> None:
        send_all(client, url, fifo=True)
        for attempt in range(N):
            request = {"QueueUrl": url, "MaxNumberOfMessages": 10}
            request["ReceiveRequestAttemptId"] = f"try-{attempt}"
            got = client.receive_message(**request).get("Messages", [])
            if not got:
                break
            again = client.receive_message(**request)["Messages"]  # a retry: the same answer
            assert [m["ReceiptHandle"] for m in again] == [m["ReceiptHandle"] for m in got]
            for m in got:
                client.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
            del got, again

    held = retained(work)
    assert counts(client, url) == ("0", "0")
    assert held < ALLOWED, f"{held} bytes held after deleting {N} x {SIZE} bytes"


def test_expired_bodies_are_released(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="short", Attributes={"MessageRetentionPeriod": "60"})[
        "QueueUrl"
    ]
    warm_up(client, url)

    def work() -> None:
        send_all(client, url)
        client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)  # some are in flight
        sqs.clock.advance(61)
        assert counts(client, url) == ("0", "0")  # retention removed every one

    held = retained(work)
    assert held < ALLOWED, f"{held} bytes held after {N} x {SIZE} bytes expired"


def test_purged_bodies_are_released(client: Any) -> None:
    url = client.create_queue(QueueName="purged")["QueueUrl"]
    warm_up(client, url)

    def work() -> None:
        send_all(client, url)
        client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        client.purge_queue(QueueUrl=url)

    held = retained(work)
    assert counts(client, url) == ("0", "0")
    assert held < ALLOWED, f"{held} bytes held after purging {N} x {SIZE} bytes"


@pytest.mark.parametrize("fifo", [False, True], ids=["standard", "fifo"])
def test_bodies_moved_to_a_dead_letter_queue_and_deleted_there_are_released(
    sqs: Any, client: Any, fifo: bool
) -> None:
    suffix = ".fifo" if fifo else ""
    fifo_attributes = {"FifoQueue": "true"} if fifo else {}
    dlq = client.create_queue(QueueName=f"dlq{suffix}", Attributes=fifo_attributes)["QueueUrl"]
    arn = client.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    policy = f'{{"deadLetterTargetArn": "{arn}", "maxReceiveCount": "1"}}'
    url = client.create_queue(
        QueueName=f"source{suffix}",
        Attributes={**fifo_attributes, "RedrivePolicy": policy, "VisibilityTimeout": "10"},
    )["QueueUrl"]
    warm_up(client, dlq, fifo=fifo)

    def work() -> None:
        send_all(client, url, fifo=fifo, groups=N)  # FIFO: no group blocks another
        received = 0
        while received < N:  # every message received once, none deleted
            got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages")
            assert got
            received += len(got)
            del got
        sqs.clock.advance(11)
        # The next receive moves every message (received once already) to the dead-letter queue.
        assert client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages") is None
        assert counts(client, dlq) == (str(N), "0")
        assert receive_and_delete(client, dlq, batch=True) == N

    held = retained(work)
    assert counts(client, url) == ("0", "0") and counts(client, dlq) == ("0", "0")
    assert held < ALLOWED, f"{held} bytes held after moving and deleting {N} x {SIZE} bytes"
