"""Waiting for consumers: ``wait_for``, ``expect_none``, their async forms, ``/_sqsmock/wait``.

Consumers here are real: a thread, an asyncio task, another process over HTTP. No test sleeps
to let SQS time pass (the clock is advanced); a test that needs a wait to be under way before
its consumer acts polls the event log's ``waiting()`` with a bounded deadline. The one negative
assertion on a wall clock costs its 0.2 s window.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import boto3
import pytest
from server_support import client as server_client
from server_support import request

import sqsmock
from sqsmock import MockSQS, QueueEvent, UnexpectedEvent, WaitTimeout, mock_sqs
from sqsmock._features import waiters

REGION = "us-east-1"
ACCOUNT = "123456789012"
FROZEN = pytest.mark.sqsmock(clock="frozen")


def when_waiting(handle: Any, action: Callable[[], None]) -> threading.Thread:
    """A thread that runs ``action`` once a wait is under way on ``handle``."""

    def run() -> None:
        assert handle.runtime.events.until_waiting(), "no wait under way"
        action()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def consume_one(client: Any, url: str, *, delete: bool = True) -> dict[str, Any]:
    """Receive one message (long polling) and delete it, as a worker does."""
    while True:
        got = client.receive_message(QueueUrl=url, WaitTimeSeconds=1, MessageAttributeNames=["All"])
        for message in got.get("Messages", []):
            if delete:
                client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            return message  # type: ignore[no-any-return]


# -- a consumer thread ---------------------------------------------------------------------


def test_a_consumer_thread_is_waited_for(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    sqs_client.send_message(
        QueueUrl=url,
        MessageBody="resize",
        MessageAttributes={"size": {"DataType": "Number", "StringValue": "3"}},
    )
    worker = when_waiting(sqs_mock, lambda: consume_one(sqs_client, url))

    found = sqs_mock.wait_for("jobs", "deleted", timeout=30)

    worker.join(10)
    assert [(e.event, e.queue, e.body) for e in found] == [("deleted", "jobs", "resize")]
    event = found[0]
    assert isinstance(event, QueueEvent)
    assert (event.region, event.account, event.receive_count) == (REGION, ACCOUNT, 1)
    assert event.message_attributes == {"size": {"DataType": "Number", "StringValue": "3"}}
    assert event.attributes["ApproximateReceiveCount"] == "1"
    assert event.time == pytest.approx(sqs_mock.clock.now(), abs=30)


def test_wait_for_returns_once_the_event_happened(sqs_mock: MockSQS, sqs_client: Any) -> None:
    """The wait returns while the worker is still busy after its delete: it waits for the
    event, not for the worker to finish."""
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="one")
    release = threading.Event()

    def work() -> None:
        consume_one(sqs_client, url)
        release.wait(30)

    worker = when_waiting(sqs_mock, work)
    try:
        found = sqs_mock.wait_for(url, "deleted", timeout=30)
        assert worker.is_alive()  # still busy after its delete
        assert found[0].body == "one"
        assert sqs_mock.peek("jobs") == []  # the delete happened before the wait returned
    finally:
        release.set()
        worker.join(10)


def test_a_wait_that_starts_late_misses_nothing(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    for body in ("a", "b"):
        sqs_client.send_message(QueueUrl=url, MessageBody=body)
    worker = threading.Thread(target=lambda: [consume_one(sqs_client, url) for _ in range(2)])
    worker.start()
    worker.join(10)  # the consumer is done before anyone waits
    found = sqs_mock.wait_for("jobs", "deleted", count=2, timeout=0)
    assert sorted(e.body for e in found) == ["a", "b"]
    assert [e.event for e in sqs_mock.wait_for("jobs", "sent", count=2, timeout=0)] == ["sent"] * 2


def test_several_threads_wait_at_once(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    results: dict[str, list[QueueEvent]] = {}

    def wait(body: str) -> None:
        results[body] = sqs_mock.wait_for("jobs", "sent", where=body, timeout=30)

    threads = [threading.Thread(target=wait, args=(body,)) for body in ("x", "y")]
    for thread in threads:
        thread.start()
    assert sqs_mock.runtime.events.until_waiting(2), "not both waits under way"
    for body in ("y", "x"):
        sqs_client.send_message(QueueUrl=url, MessageBody=body)
    for thread in threads:
        thread.join(10)
    assert {body: [e.body for e in found] for body, found in results.items()} == {
        "x": ["x"],
        "y": ["y"],
    }


class Worker(threading.Thread):
    """The README's consumer: takes orders until stopped."""

    def __init__(self, client: Any, url: str) -> None:
        super().__init__(daemon=True)
        self.client, self.url = client, url
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            got = self.client.receive_message(QueueUrl=self.url, WaitTimeSeconds=1)
            for message in got.get("Messages", []):
                self.client.delete_message(
                    QueueUrl=self.url, ReceiptHandle=message["ReceiptHandle"]
                )

    def stop(self) -> None:
        self.stopping.set()
        # A message ends the long poll under way at once (it is taken like any other), where
        # the poll would otherwise end only when its second is up.
        self.client.send_message(QueueUrl=self.url, MessageBody="stop")
        self.join(10)


def test_the_readme_example(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="orders")["QueueUrl"]
    worker = Worker(sqs_client, url)  # your consumer, on a thread of its own
    worker.start()
    sqs_client.send_message(QueueUrl=url, MessageBody="A-1")

    [done] = sqs_mock.wait_for("orders", "deleted", where="A-1")  # the moment it is deleted
    assert done.receive_count == 1
    sqs_mock.expect_none("orders", "sent", within=0.2)  # and it sends nothing back
    worker.stop()


# -- what counts ---------------------------------------------------------------------------


@FROZEN
def test_where_count_and_event_kinds(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "10"})[
        "QueueUrl"
    ]
    for body in ("a", "b", "c"):
        sqs_client.send_message(QueueUrl=url, MessageBody=body)
    got = sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    sqs_mock.clock.advance(11)  # all come back
    again = sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    sqs_client.delete_message(QueueUrl=url, ReceiptHandle=again[0]["ReceiptHandle"])
    sqs_client.delete_message(QueueUrl=url, ReceiptHandle=again[0]["ReceiptHandle"])  # no-op
    assert len(got) == 3

    received = sqs_mock.wait_for("jobs", "received", count=6, timeout=0)
    assert [e.receive_count for e in received] == [1, 1, 1, 2, 2, 2]
    twice = sqs_mock.wait_for("jobs", "received", where=lambda e: e.receive_count == 2, count=3)
    assert sorted(e.body for e in twice) == ["a", "b", "c"]
    assert [e.body for e in sqs_mock.wait_for("jobs", "sent", where="b")] == ["b"]
    # The first ``count`` matches, oldest first.
    assert [e.body for e in sqs_mock.wait_for("jobs", "sent", count=2)] == ["a", "b"]
    with pytest.raises(WaitTimeout):  # the second delete of the same handle did nothing
        sqs_mock.wait_for("jobs", "deleted", count=2, timeout=0)


@FROZEN
def test_a_fifo_duplicate_is_not_sent(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(
        QueueName="jobs.fifo",
        Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
    )["QueueUrl"]
    for _ in range(2):
        sqs_client.send_message(QueueUrl=url, MessageBody="once", MessageGroupId="g")
    sent = sqs_mock.wait_for("jobs.fifo", "sent", timeout=0)
    assert sent[0].attributes["MessageGroupId"] == "g"
    with pytest.raises(WaitTimeout, match="1 happened"):
        sqs_mock.wait_for("jobs.fifo", "sent", count=2, timeout=0)


@FROZEN
def test_a_queue_in_another_region_or_account(sqs_mock: MockSQS) -> None:
    west = boto3.client("sqs", region_name="eu-west-1")
    url = west.create_queue(QueueName="jobs")["QueueUrl"]
    west.send_message(QueueUrl=url, MessageBody="far")
    with pytest.raises(WaitTimeout, match="region eu-west-1"):
        sqs_mock.wait_for("jobs", "sent", timeout=0)  # the mock's region is us-east-1
    assert sqs_mock.wait_for("jobs", "sent", region="eu-west-1", timeout=0)[0].body == "far"
    assert sqs_mock.wait_for(url, "sent", region="eu-west-1", timeout=0)[0].region == "eu-west-1"
    server_style = f"http://localhost:9324/queue/eu-west-1/{ACCOUNT}/jobs"
    assert sqs_mock.wait_for(server_style, "sent", timeout=0)[0].body == "far"
    with pytest.raises(WaitTimeout):
        sqs_mock.wait_for("https://sqs.eu-west-1.amazonaws.com/000000000000/jobs", "sent",
                          region="eu-west-1", timeout=0)  # fmt: skip


@FROZEN
def test_dead_lettered_messages(sqs_mock: MockSQS, sqs_client: Any) -> None:
    dlq = sqs_client.create_queue(QueueName="jobs-dlq")["QueueUrl"]
    dlq_arn = sqs_client.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    policy = json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2})
    url = sqs_client.create_queue(
        QueueName="jobs", Attributes={"RedrivePolicy": policy, "VisibilityTimeout": "30"}
    )["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="poison")
    sqs_client.send_message(QueueUrl=url, MessageBody="fine")
    failing = when_waiting(sqs_mock, lambda: failing_consumer(sqs_mock, sqs_client, url))

    found = sqs_mock.wait_for("jobs", "dead-lettered", where="poison", timeout=30)

    failing.join(10)
    event = found[0]
    assert (event.queue, event.dead_letter_queue, event.receive_count) == ("jobs", "jobs-dlq", 2)
    assert event.attributes["DeadLetterQueueSourceArn"].endswith(":jobs")
    # Naming the dead-letter queue finds the same event; nothing was "sent" to it.
    assert sqs_mock.wait_for(dlq, "dead-lettered", where="poison", timeout=0) == found
    with pytest.raises(WaitTimeout):
        sqs_mock.wait_for("jobs-dlq", "sent", timeout=0)
    assert [m.body for m in sqs_mock.peek("jobs-dlq")] == ["poison"]


def failing_consumer(handle: Any, client: Any, url: str) -> None:
    """A worker that deletes every message but "poison", which fails until it is
    dead-lettered; the time a visibility timeout takes is the mock's clock's."""
    for _ in range(10):
        for message in client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get(
            "Messages", []
        ):
            if message["Body"] != "poison":
                client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        handle.clock.advance(31)


@FROZEN
def test_reset_clears_the_events(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="before")
    sqs_mock.reset()
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    with pytest.raises(WaitTimeout, match="nothing happened to queue 'jobs'"):
        sqs_mock.wait_for("jobs", "sent", timeout=0)
    sqs_client.send_message(QueueUrl=url, MessageBody="after")
    assert [e.body for e in sqs_mock.wait_for("jobs", "sent")] == ["after"]


# -- time-outs -----------------------------------------------------------------------------


@FROZEN
def test_a_time_out_says_what_did_happen(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    for body in ("a", "b"):
        sqs_client.send_message(QueueUrl=url, MessageBody=body)
    message = sqs_client.receive_message(QueueUrl=url)["Messages"][0]
    sqs_client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])

    with pytest.raises(WaitTimeout) as caught:
        sqs_mock.wait_for("jobs", "deleted", count=2, timeout=0.05)

    error = caught.value
    assert isinstance(error, AssertionError)
    text = str(error)
    assert "2 'deleted' events on queue 'jobs'" in text and "within 0.05 s: 1 happened" in text
    assert "sent 2, received 1, deleted 1, dead-lettered 0" in text
    assert "during this wait: sent 0, received 0, deleted 0, dead-lettered 0" in text
    assert "its last 4 events:" in text and "body 'b'" in text
    assert [e.body for e in error.found] == [message["Body"]]
    assert error.counts == {"sent": 2, "received": 1, "deleted": 1, "dead-lettered": 0}
    assert [e.event for e in error.last] == ["sent", "sent", "received", "deleted"]


@FROZEN
def test_a_time_out_on_a_queue_that_saw_nothing_names_those_that_did(
    sqs_mock: MockSQS, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="orders")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="x")
    with pytest.raises(WaitTimeout, match="queues with events: 'orders'"):
        sqs_mock.wait_for("order", "sent", timeout=0, where=lambda e: True)


def test_a_wait_ends_when_the_mock_stops() -> None:
    mock = mock_sqs().start()
    failures: list[BaseException] = []

    def wait() -> None:
        try:
            mock.wait_for("jobs", timeout=60)
        except WaitTimeout as error:
            failures.append(error)

    thread = threading.Thread(target=wait)
    thread.start()
    assert mock.runtime.events.until_waiting(), "no wait under way"
    mock.stop()
    thread.join(10)
    assert not thread.is_alive()
    assert isinstance(failures[0], WaitTimeout) and failures[0].stopped
    assert "before the mock stopped" in str(failures[0])


def test_the_log_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(waiters, "MAX_EVENTS", 3)
    with mock_sqs(clock="frozen") as mock:
        client = boto3.client("sqs", region_name=REGION)
        url = client.create_queue(QueueName="jobs")["QueueUrl"]
        for n in range(5):
            client.send_message(QueueUrl=url, MessageBody=str(n))
        assert [e.body for e in mock.wait_for("jobs", "sent", count=3)] == ["2", "3", "4"]
        assert mock.runtime.events.dropped == 2
        with pytest.raises(WaitTimeout, match="2 older events were dropped"):
            mock.wait_for("jobs", "sent", count=4, timeout=0)


def test_the_log_is_bounded_in_bytes() -> None:
    with mock_sqs(clock="frozen") as mock:
        mock.runtime.events.bounds = SimpleNamespace(keeping=True, byte_limit=2500, most_bytes=2500)
        client = boto3.client("sqs", region_name=REGION)
        url = client.create_queue(QueueName="jobs")["QueueUrl"]
        for n in range(5):
            client.send_message(QueueUrl=url, MessageBody=str(n) * 1000)
        assert [e.body[0] for e in mock.wait_for("jobs", "sent", count=2)] == ["3", "4"]
        assert mock.runtime.events.dropped == 3
        with pytest.raises(WaitTimeout, match="or 2500 bytes of messages"):
            mock.wait_for("jobs", "sent", count=3, timeout=0)


def test_recording_is_off_with_the_journal() -> None:
    with mock_sqs(journal_limit=0) as mock:
        client = boto3.client("sqs", region_name=REGION)
        client.create_queue(QueueName="jobs")
        assert mock.backend.observer is None
        assert mock.backend.get(REGION, ACCOUNT, "jobs").observe is None
        with pytest.raises(RuntimeError, match="journal_limit=0"):
            mock.wait_for("jobs")


def test_recording_follows_the_journal_while_the_mock_runs() -> None:
    """Whether events are kept is read from the call journal at each event."""
    with mock_sqs(clock="frozen") as mock:
        client = boto3.client("sqs", region_name=REGION)
        url = client.create_queue(QueueName="jobs")["QueueUrl"]
        mock.calls.recording = False
        client.send_message(QueueUrl=url, MessageBody="unseen")
        with pytest.raises(RuntimeError, match="not recorded"):
            mock.wait_for("jobs", "sent", timeout=0)
        mock.calls.recording = True
        client.send_message(QueueUrl=url, MessageBody="seen")
        assert [e.body for e in mock.wait_for("jobs", "sent", count=1)] == ["seen"]


@pytest.mark.parametrize(
    ("arguments", "error", "says"),
    [
        ({"event": "consumed"}, ValueError, "event must be one of"),
        ({"count": 0}, ValueError, "count must be"),
        ({"count": True}, ValueError, "count must be"),
        ({"count": 1001}, ValueError, "count must be an int from 1 to 1000"),
        ({"where": 42}, TypeError, "where must be"),
        ({"timeout": -1}, ValueError, "timeout must be"),
        ({"timeout": float("nan")}, ValueError, "timeout must be"),
    ],
)
def test_bad_arguments(
    sqs_mock: MockSQS, arguments: dict[str, Any], error: type, says: str
) -> None:
    with pytest.raises(error, match=says):
        sqs_mock.wait_for("jobs", **arguments)


def test_bad_queue_and_window(sqs_mock: MockSQS) -> None:
    with pytest.raises(TypeError, match="queue must be"):
        sqs_mock.wait_for(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="names no queue"):
        sqs_mock.wait_for("http://localhost:9324/")
    with pytest.raises(ValueError, match="within must be"):
        sqs_mock.expect_none("jobs", within=-1)


# -- expect_none ---------------------------------------------------------------------------


@FROZEN
def test_expect_none_on_a_frozen_clock_advances_it(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="earlier")  # before the call: not counted
    before = sqs_mock.clock.now()
    sqs_mock.expect_none("jobs", "sent", within=3600)
    assert sqs_mock.clock.now() == before + 3600


@FROZEN
def test_expect_none_on_a_frozen_clock_sees_what_the_time_caused(
    sqs_mock: MockSQS, sqs_client: Any
) -> None:
    """A producer driven by the clock (a scheduler) sends when time passes: the window's time
    passing is what the assertion is about, so that send fails it."""
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    due = [sqs_mock.clock.now() + 60]

    def scheduler() -> None:  # sends "tick" every 60 s of the mock's clock
        while sqs_mock.clock.now() >= due[0]:
            due[0] += 60
            sqs_client.send_message(QueueUrl=url, MessageBody="tick")

    sqs_mock.clock.subscribe(scheduler)
    sqs_mock.expect_none("jobs", "sent", within=30)  # not due yet
    with pytest.raises(UnexpectedEvent) as caught:
        sqs_mock.expect_none("jobs", "sent", within=60)  # due 30 s into the window
    sqs_mock.expect_none("jobs", "sent", within=29)  # the next is due 30 s after the window
    sqs_mock.expect_none("jobs", "sent", within=600, where="other")  # ticks do not match
    sqs_mock.clock.unsubscribe(scheduler)
    assert isinstance(caught.value, AssertionError)
    assert caught.value.event.body == "tick"
    assert "expected no 'sent' event on queue 'jobs'" in str(caught.value)
    assert "within 60 s (a frozen clock, advanced by 60 s)" in str(caught.value)


def test_expect_none_on_a_wall_clock_passes_after_its_window(
    sqs_mock: MockSQS, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="earlier")
    start = sqs_mock.clock.now()
    sqs_mock.expect_none("jobs", "sent", within=0.2)
    assert sqs_mock.clock.now() >= start + 0.2


def test_expect_none_on_a_wall_clock_fails_at_the_first_event(
    sqs_mock: MockSQS, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    producer = when_waiting(
        sqs_mock, lambda: sqs_client.send_message(QueueUrl=url, MessageBody="late")
    )
    start = time.monotonic()
    with pytest.raises(UnexpectedEvent, match="body 'late'"):
        sqs_mock.expect_none("jobs", "sent", within=60)
    assert time.monotonic() - start < 50  # it did not sit out its window
    producer.join(10)


def test_expect_none_on_a_wall_clock_ends_when_the_clock_is_advanced(sqs_mock: MockSQS) -> None:
    advancer = when_waiting(sqs_mock, lambda: sqs_mock.clock.advance(60))
    start = time.monotonic()
    sqs_mock.expect_none("jobs", "sent", within=60)
    assert time.monotonic() - start < 50  # the window passed on the mock's clock
    advancer.join(10)


# -- asyncio -------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_an_asyncio_consumer_is_awaited(sqs_mock: MockSQS, sqs_async_client: Any) -> None:
    """The consumer is a task on the same loop: the wait must not block the loop, or the
    consumer could never run."""
    url = (await sqs_async_client.create_queue(QueueName="jobs"))["QueueUrl"]
    await sqs_async_client.send_message(QueueUrl=url, MessageBody="async")

    async def consumer() -> None:
        for _ in range(10_000):
            if sqs_mock.runtime.events.waiting():
                break
            await asyncio.sleep(0)
        got = await sqs_async_client.receive_message(QueueUrl=url, WaitTimeSeconds=5)
        for message in got["Messages"]:
            await sqs_async_client.delete_message(
                QueueUrl=url, ReceiptHandle=message["ReceiptHandle"]
            )

    task = asyncio.create_task(consumer())
    found = await sqs_mock.wait_for_async("jobs", "deleted", timeout=30)
    await task
    assert [e.body for e in found] == ["async"]
    with pytest.raises(WaitTimeout, match="within 0 s"):
        await sqs_mock.wait_for_async("jobs", "deleted", count=2, timeout=0)


@pytest.mark.asyncio
async def test_an_async_wait_is_woken_from_a_thread(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="threaded")
    worker = when_waiting(sqs_mock, lambda: consume_one(sqs_client, url))
    found = await sqs_mock.wait_for_async(url, "deleted", timeout=30)
    worker.join(10)
    assert found[0].body == "threaded"
    assert sqs_mock.runtime.events.waiting() == 0


@pytest.mark.asyncio
@FROZEN
async def test_expect_none_async_on_a_frozen_clock(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    before = sqs_mock.clock.now()
    await sqs_mock.expect_none_async("jobs", "deleted", within=120)
    assert sqs_mock.clock.now() == before + 120
    sqs_client.send_message(QueueUrl=url, MessageBody="x", DelaySeconds=60)
    await sqs_mock.expect_none_async("jobs", "received", within=30)


@pytest.mark.asyncio
async def test_expect_none_async_on_a_wall_clock(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    await sqs_mock.expect_none_async("jobs", "sent", within=0.2)
    producer = when_waiting(
        sqs_mock, lambda: sqs_client.send_message(QueueUrl=url, MessageBody="z")
    )
    with pytest.raises(UnexpectedEvent, match="body 'z'"):
        await sqs_mock.expect_none_async("jobs", "sent", within=60)
    producer.join(10)


@pytest.mark.asyncio
async def test_a_blocking_wait_on_an_event_loop_is_refused(sqs_mock: MockSQS) -> None:
    with pytest.raises(RuntimeError, match="await wait_for_async"):
        sqs_mock.wait_for("jobs", timeout=1)
    with pytest.raises(RuntimeError, match="await expect_none_async"):
        sqs_mock.expect_none("jobs", within=1)
    with pytest.raises(WaitTimeout):  # a look without waiting is fine
        sqs_mock.wait_for("jobs", timeout=0)


# -- over HTTP -----------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[sqsmock.SqsServer]:
    with sqsmock.serve(port=0) as running:
        yield running


def wait_over_http(endpoint: str, fields: Any, content_type: str = "application/json") -> Any:
    body = fields if isinstance(fields, bytes) else json.dumps(fields).encode()
    return request(endpoint, "POST", "/_sqsmock/wait", body, {"Content-Type": content_type})


def test_waiting_over_http(server: sqsmock.SqsServer) -> None:
    client = server_client(server.endpoint_url)
    url = client.create_queue(QueueName="jobs")["QueueUrl"]
    worker = when_waiting(server, lambda: (client.send_message(QueueUrl=url, MessageBody="h"),
                                           consume_one(client, url)))  # fmt: skip

    answer = wait_over_http(server.endpoint_url, {"queue": url, "event": "deleted", "timeout": 30})

    worker.join(10)
    assert answer.status == 200, answer.body
    events = answer.json()["events"]
    assert [(e["event"], e["queue"], e["body"], e["receive_count"]) for e in events] == [
        ("deleted", "jobs", "h", 1)
    ]
    assert events[0]["attributes"]["SenderId"]
    where = {"queue": "jobs", "event": "sent", "where": "h", "count": 1, "timeout": 0}
    assert wait_over_http(server.endpoint_url, where).json()["events"][0]["body"] == "h"


def test_a_wait_over_http_that_times_out_answers_408(server: sqsmock.SqsServer) -> None:
    client = server_client(server.endpoint_url)
    url = client.create_queue(QueueName="jobs")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="only")
    answer = wait_over_http(
        server.endpoint_url, {"queue": "jobs", "event": "sent", "count": 2, "timeout": 0.05}
    )
    assert answer.status == 408
    seen = answer.json()
    assert "1 happened" in seen["error"]
    assert seen["counts"] == {"sent": 1, "received": 0, "deleted": 0, "dead-lettered": 0}
    assert [e["body"] for e in seen["found"]] == ["only"]
    assert [e["event"] for e in seen["last"]] == ["sent"]


@pytest.mark.parametrize(
    ("method", "content_type", "body", "status", "says"),
    [
        ("GET", "application/json", b"", 405, "use POST"),
        ("POST", "text/plain", b'{"queue": "jobs"}', 415, "application/json"),
        ("POST", "application/x-www-form-urlencoded", b"queue=jobs", 415, "application/json"),
        ("POST", "application/json", b"{nope", 400, "not JSON"),
        ("POST", "application/json", b"[]", 400, "JSON object"),
        ("POST", "application/json", b'{"queue": "jobs", "why": 1}', 400, "unknown keys"),
        ("POST", "application/json", b'{"event": "sent"}', 400, "queue must be"),
        ("POST", "application/json", b'{"queue": "jobs", "event": "gone"}', 400, "event must"),
        ("POST", "application/json", b'{"queue": "jobs", "where": {"a": 1}}', 400, "string"),
        ("POST", "application/json", b'{"queue": "jobs", "count": 0}', 400, "count must"),
        ("POST", "application/json", b'{"queue": "jobs", "count": 10000}', 400, "1 to 1000"),
        ("POST", "application/json", b'{"queue": "jobs", "timeout": "5"}', 400, "timeout must"),
        ("POST", "application/json", b'{"queue": "jobs", "timeout": 1e9}', 400, "at most"),
    ],
)
def test_bad_waits_over_http(
    server: sqsmock.SqsServer, method: str, content_type: str, body: bytes, status: int, says: str
) -> None:
    answer = request(
        server.endpoint_url, method, "/_sqsmock/wait", body, {"Content-Type": content_type}
    )
    assert answer.status == status, answer.body
    assert says in answer.json()["error"]


def test_a_wait_over_http_ends_when_the_server_stops() -> None:
    server = sqsmock.serve(port=0).start()
    answers: list[Any] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            wait_over_http(server.endpoint_url, {"queue": "jobs", "timeout": 60})
        )
    )
    thread.start()
    assert server.runtime.events.until_waiting(), "no wait under way"
    server.stop()  # does not sit out the wait
    thread.join(10)
    assert answers[0].status == 503


CONSUMER = textwrap.dedent(
    """
    import sys
    import boto3
    from botocore.config import Config

    endpoint, url = sys.argv[1], sys.argv[2]
    sqs = boto3.client(
        "sqs", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="k",
        aws_secret_access_key="s", config=Config(retries={"max_attempts": 1}),
    )
    done = 0
    while done < 2:
        for m in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5).get("Messages", []):
            if m["Body"] == "fail":
                continue  # left to come back after its visibility timeout
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
            done += 1
    """
)


@pytest.mark.slow
def test_a_consumer_in_another_process(server: sqsmock.SqsServer) -> None:
    """Another process consumes over HTTP; the test waits over HTTP and on the handle."""
    client = server_client(server.endpoint_url)
    url = client.create_queue(QueueName="jobs")["QueueUrl"]
    process = subprocess.Popen([sys.executable, "-c", CONSUMER, server.endpoint_url, url])
    try:
        producer = when_waiting(
            server,
            lambda: [client.send_message(QueueUrl=url, MessageBody=b) for b in ("a", "fail", "b")],
        )
        answer = wait_over_http(
            server.endpoint_url, {"queue": "jobs", "event": "deleted", "count": 2, "timeout": 60}
        )
        assert answer.status == 200, answer.body
        assert sorted(e["body"] for e in answer.json()["events"]) == ["a", "b"]
        assert process.wait(30) == 0
        producer.join(10)
        # The one it left alone was received, never deleted.
        assert server.wait_for("jobs", "received", where="fail")[0].receive_count == 1
        server.expect_none("jobs", "deleted", within=0.2, where="fail")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


@pytest.mark.parametrize("turn_on", ["limit", "byte_limit", "recording"])
def test_events_are_heard_once_recording_is_turned_on_while_the_mock_runs(turn_on: str) -> None:
    """A mock started with the journal off hears message events from the moment recording is
    turned on, by a limit raised from 0 or by the switch: a wait then sees them (it used to
    time out, finding none, once a limit was raised)."""
    options = {"byte_limit": {"journal_byte_limit": 0}}.get(turn_on, {"journal_limit": 0})
    with mock_sqs(clock="frozen", **options) as mock:  # type: ignore[arg-type]
        client = boto3.client("sqs", region_name=REGION)
        url = client.create_queue(QueueName="jobs")["QueueUrl"]
        with pytest.raises(RuntimeError, match="not recorded"):
            mock.wait_for("jobs", "sent", timeout=0)
        if turn_on == "recording":
            mock.calls.recording = True
            assert not mock.calls.recording  # a limit of 0 records nothing, switched on or not
            mock.calls.limit = 100
        else:
            setattr(mock.calls, turn_on, 100_000)
        assert mock.calls.recording
        client.send_message(QueueUrl=url, MessageBody="hello")
        assert [e.body for e in mock.wait_for("jobs", "sent", timeout=0)] == ["hello"]
        assert [call.operation for call in mock.calls] == ["SendMessage"]
        mock.calls.recording = False
        client.send_message(QueueUrl=url, MessageBody="unseen")
        assert mock.backend.observer is None
        assert len(mock.calls) == 1
        mock.calls.limit = 50  # a limit set while switched off leaves it off
        assert not mock.calls.recording
