"""Open waits cost other queues' traffic nothing, and what a wait keeps and answers is bounded.

An event wakes only the waits for its kind and queue: a wait on a quiet queue is not woken (and
reads nothing) by traffic elsewhere, however many such waits are open. A wait asks for at most
``MAX_COUNT`` events, keeps those past the log's byte bound cut short, and an answer of
``POST /_sqsmock/wait`` holds at most ``ANSWER_BYTES`` of messages whole. Counted, never timed.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from types import SimpleNamespace
from typing import Any

import boto3
import pytest

from sqsmock import MockSQS, WaitTimeout, mock_sqs
from sqsmock._features import events as events_module
from sqsmock._features import routes, waiters, waiting
from sqsmock._features.waiters import EventLog

REGION = "us-east-1"
FROZEN = pytest.mark.sqsmock(clock="frozen")


def busy_traffic(client: Any, url: str, n: int) -> None:
    """``n`` messages sent, received and deleted: every kind of event but dead-lettered."""
    for i in range(n):
        client.send_message(QueueUrl=url, MessageBody=f"m{i}")
        for m in client.receive_message(QueueUrl=url).get("Messages", []):
            client.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])


# -- idle waits are not woken by other queues ------------------------------------------------


@pytest.mark.asyncio
async def test_idle_async_waits_are_not_woken_by_other_queues(
    sqs_mock: MockSQS, sqs_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """50 coroutines wait on a queue with no traffic; 30 send/receive/delete cycles on another
    queue wake none of them (each used to be woken, and to read the log, at every event)."""
    quiet = sqs_client.create_queue(QueueName="quiet")["QueueUrl"]
    busy = sqs_client.create_queue(QueueName="busy")["QueueUrl"]
    woken: list[object] = []
    wake = waiting._Awake.wake

    def counting(self: Any) -> None:
        woken.append(self)
        wake(self)

    monkeypatch.setattr(waiting._Awake, "wake", counting)
    log = sqs_mock.runtime.events
    kinds = ["sent", "received", "deleted", "dead-lettered"]
    tasks = [
        asyncio.create_task(sqs_mock.wait_for_async("quiet", kinds[i % 4], timeout=30))
        for i in range(50)
    ]
    for _ in range(10_000):
        if log.waiting() == 50:
            break
        await asyncio.sleep(0)
    assert log.waiting() == 50

    busy_traffic(sqs_client, busy, 30)

    assert woken == []
    sqs_client.send_message(QueueUrl=quiet, MessageBody="now")  # wakes the "sent" waits only
    assert len(woken) == len(set(woken)) == 13
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert log.waiting() == 0


def test_idle_thread_waits_do_not_read_for_other_queues(
    sqs_mock: MockSQS, sqs_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads in ``wait_for`` on a quiet queue read the log once when they start and once
    when their event comes, whatever happens on other queues meanwhile."""
    quiet = sqs_client.create_queue(QueueName="quiet")["QueueUrl"]
    busy = sqs_client.create_queue(QueueName="busy")["QueueUrl"]
    reads: dict[int, int] = {}
    read = EventLog._read

    def counting(self: EventLog, watch: Any, query: Any) -> bool:
        me = threading.get_ident()
        reads[me] = reads.get(me, 0) + 1
        return read(self, watch, query)

    monkeypatch.setattr(EventLog, "_read", counting)
    threads = [
        threading.Thread(target=sqs_mock.wait_for, args=("quiet", "sent"), kwargs={"timeout": 30})
        for _ in range(10)
    ]
    for thread in threads:
        thread.start()
    assert sqs_mock.runtime.events.until_waiting(10)
    busy_traffic(sqs_client, busy, 100)
    sqs_client.send_message(QueueUrl=quiet, MessageBody="now")
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads)
    # Started, then woken by their event (one read more if that came between the two).
    assert len(reads) == 10 and max(reads.values()) <= 3, reads


def test_a_dead_lettered_message_wakes_waits_on_either_queue(
    sqs_mock: MockSQS, sqs_client: Any
) -> None:
    dlq = sqs_client.create_queue(QueueName="jobs-dlq")["QueueUrl"]
    arn = sqs_client.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    url = sqs_client.create_queue(
        QueueName="jobs",
        Attributes={
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": 1}),
            "VisibilityTimeout": "30",
        },
    )["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="poison")
    sqs_client.receive_message(QueueUrl=url)
    found: dict[str, list[Any]] = {}

    def wait(queue: str) -> None:
        found[queue] = sqs_mock.wait_for(queue, "dead-lettered", timeout=30)

    threads = [threading.Thread(target=wait, args=(q,)) for q in ("jobs", "jobs-dlq")]
    for thread in threads:
        thread.start()
    assert sqs_mock.runtime.events.until_waiting(2)
    sqs_mock.clock.advance(31)
    sqs_client.receive_message(QueueUrl=url)  # moves it to the dead-letter queue
    for thread in threads:
        thread.join(10)
    assert {q: [e.body for e in events] for q, events in found.items()} == {
        "jobs": ["poison"],
        "jobs-dlq": ["poison"],
    }


# -- count -----------------------------------------------------------------------------------


@FROZEN
def test_count_is_bounded(sqs_mock: MockSQS) -> None:
    with pytest.raises(ValueError, match="count must be an int from 1 to 1000, not 1001"):
        sqs_mock.wait_for("jobs", count=1001, timeout=0)
    with pytest.raises(ValueError, match="from 1 to 1000"):
        asyncio.run(sqs_mock.wait_for_async("jobs", count=10**9, timeout=0))
    with pytest.raises(WaitTimeout):
        sqs_mock.wait_for("jobs", count=1000, timeout=0)


def test_count_is_bounded_over_http() -> None:
    with mock_sqs() as mock:
        status, answer = asyncio.run(
            routes.wait(mock.runtime, b'{"queue": "jobs", "count": 5000, "timeout": 0}')
        )
    assert status == 400
    assert answer == {"error": "count must be an int from 1 to 1000, not 5000"}


# -- what a wait keeps -----------------------------------------------------------------------


def test_a_wait_keeps_no_more_than_the_log_bound_whole() -> None:
    """A wait for many large messages keeps them whole up to the log's byte bound and cut short
    past it: it pins no more bodies than the log would, though the log has dropped them."""
    with mock_sqs(clock="frozen") as mock:
        log = mock.runtime.events
        log.bounds = SimpleNamespace(keeping=True, byte_limit=20_000, most_bytes=20_000)
        client = boto3.client("sqs", region_name=REGION)
        url = client.create_queue(QueueName="jobs")["QueueUrl"]
        query = log.query("jobs", "sent", count=20)
        watch = log._watch(since_now=False)
        for n in range(20):  # the wait reads each as it comes, as a woken wait does
            client.send_message(QueueUrl=url, MessageBody=chr(65 + n) * 5000)
            log._read(watch, query)
        found = watch.found
        assert len(found) == 20 and log.dropped == 16  # the log keeps the last 4
        assert [e.truncated for e in found] == [False] * 4 + [True] * 16
        assert [len(e.body) for e in found] == [5000] * 4 + [1024] * 16
        assert found[5].body == "F" * 1024 and found[5].message_id
        assert sum(len(e.body) for e in found) <= 20_000 + 16 * 1024


def test_a_record_cut_short_keeps_its_message_attributes_as_a_map() -> None:
    """Cutting a record short cuts its attribute values, and they stay name -> attribute."""
    with mock_sqs(clock="frozen") as mock:
        log = mock.runtime.events
        log.bounds = SimpleNamespace(keeping=True, byte_limit=2_000, most_bytes=2_000)
        client = boto3.client("sqs", region_name=REGION)
        url = client.create_queue(QueueName="jobs")["QueueUrl"]
        query = log.query("jobs", "sent", count=3)
        watch = log._watch(since_now=False)
        long = {"note": {"DataType": "String", "StringValue": "n" * 3000}}
        for n in range(3):
            client.send_message(QueueUrl=url, MessageBody=str(n), MessageAttributes=long)
            log._read(watch, query)
        cut = watch.found[-1]
        assert cut.truncated
        assert cut.message_attributes["note"]["StringValue"] == "n" * 1024
        assert cut.to_json()["message_attributes"]["note"]["DataType"] == "String"


def test_a_wait_keeps_no_more_than_its_count() -> None:
    with mock_sqs(clock="frozen") as mock:
        log = mock.runtime.events
        client = boto3.client("sqs", region_name=REGION)
        url = client.create_queue(QueueName="jobs")["QueueUrl"]
        for n in range(50):
            client.send_message(QueueUrl=url, MessageBody=str(n))
        query = log.query("jobs", "sent", count=3)
        watch = log._watch(since_now=False)
        log._read(watch, query)
        assert [e.body for e in watch.found] == ["0", "1", "2"]


# -- what an answer holds --------------------------------------------------------------------


def test_answers_over_http_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 200 and the 408 of ``POST /_sqsmock/wait`` hold ``ANSWER_BYTES`` of messages whole,
    the rest cut short and marked ``truncated``."""
    monkeypatch.setattr(events_module, "ANSWER_BYTES", 10_000)
    with mock_sqs(clock="frozen") as mock:
        client = boto3.client("sqs", region_name=REGION)
        url = client.create_queue(QueueName="jobs")["QueueUrl"]
        for n in range(10):
            client.send_message(QueueUrl=url, MessageBody=chr(65 + n) * 3000)

        def ask(count: int) -> tuple[int, Any]:
            fields = {"queue": "jobs", "event": "sent", "count": count, "timeout": 0}
            status, answer = asyncio.run(routes.wait(mock.runtime, json.dumps(fields).encode()))
            return status, json.loads(json.dumps(answer))

        status, answer = ask(10)
        assert status == 200
        events = answer["events"]
        assert [len(e["body"]) for e in events] == [3000] * 3 + [1024] * 7
        assert [e["truncated"] for e in events] == [False] * 3 + [True] * 7
        assert len(json.dumps(answer)) < 10_000 + 10 * 2000

        status, answer = ask(11)
        assert status == 408
        shown = answer["found"] + answer["last"]
        assert len(answer["found"]) == 10 and len(answer["last"]) == 5
        assert sum(len(e["body"]) for e in shown) == 3 * 3000 + 12 * 1024
        assert "and 0 more" not in answer["error"]


@FROZEN
def test_a_time_out_lists_ten_of_the_events_it_found(sqs_mock: MockSQS, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    for n in range(25):
        sqs_client.send_message(QueueUrl=url, MessageBody=f"m{n}")
    with pytest.raises(WaitTimeout, match="25 happened") as caught:
        sqs_mock.wait_for("jobs", "sent", count=26, timeout=0)
    text = str(caught.value)
    assert "'m9'" in text and "'m10'" not in text.splitlines()[0]
    assert "and 15 more" in text
    assert len(caught.value.found) == 25



def test_a_wait_scans_only_back_to_its_queues_latest_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A wait reads nothing of a full log when nothing of its kind happened to its queue since
    its place, and skips the newer events of other queues without looking at them: a wait that
    starts, or wakes, costs no scan of the whole log under its lock."""
    with mock_sqs(clock="frozen") as mock:
        log = mock.runtime.events
        client = boto3.client("sqs", region_name=REGION)
        jobs = client.create_queue(QueueName="jobs")["QueueUrl"]
        busy = client.create_queue(QueueName="busy")["QueueUrl"]
        client.create_queue(QueueName="quiet")
        client.send_message(QueueUrl=jobs, MessageBody="old")
        for _ in range(300):
            client.send_message_batch(
                QueueUrl=busy,
                Entries=[{"Id": str(i), "MessageBody": "b"} for i in range(10)],
            )
        looked: list[int] = []
        islice = itertools.islice

        def counting(*args: Any) -> Any:
            for item in islice(*args):
                looked.append(1)
                yield item

        monkeypatch.setattr(waiters, "islice", counting)
        quiet = log._watch(since_now=False)
        log._read(quiet, log.query("quiet", "sent"))
        assert looked == []
        found = log._watch(since_now=False)
        log._read(found, log.query("jobs", "sent"))
        assert [e.body for e in found.found] == ["old"] and len(looked) == 1
