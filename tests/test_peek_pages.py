"""A peek a page at a time: only the page's messages are viewed, a page is bounded by count and
by bytes, and paging by the last message shown stays right while the queue changes."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import boto3
import pytest

import sqsmock
from sqsmock._engine import views
from sqsmock._engine.clock import FrozenClock
from sqsmock._engine.message import VISIBLE, Message
from sqsmock._engine.queue import Queue

T0 = 1_700_000_000.0


def make_queue() -> Queue:
    return Queue("q", "us-east-1", "123456789012", FrozenClock(start=T0), {})


def send(queue: Queue, bodies: list[str], delay: int | None = None) -> list[Message]:
    messages = [
        Message(str(uuid.uuid4()), b, hashlib.md5(b.encode()).hexdigest(), size=len(b))
        for b in bodies
    ]
    queue.send(messages, [delay] * len(messages))
    return messages


def all_pages(queue: Queue, limit: int, between: Any = None) -> list[str]:
    shown: list[str] = []
    after = 0
    while True:
        page = queue.peek_page(limit, after)
        shown += [v.body for v in page.views]
        if page.next_after is None:
            return shown
        after = page.next_after
        if between is not None:
            between()


def test_a_page_views_only_its_own_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    queue = make_queue()
    send(queue, [str(i) for i in range(20_000)])
    viewed: list[Message] = []
    real = views.view

    def counted(m: Message, now: float) -> views.MessageView:
        viewed.append(m)
        return real(m, now)

    monkeypatch.setattr(views, "view", counted)
    first = queue.peek_page(50)
    assert [v.body for v in first.views] == [str(i) for i in range(50)]
    assert len(viewed) == 50
    assert first.next_after is not None
    later = queue.peek_page(50, first.next_after)
    assert [v.body for v in later.views] == [str(i) for i in range(50, 100)]
    assert len(viewed) == 100  # the second page found its start without viewing the first


def test_pages_cover_every_message_once_in_order() -> None:
    queue = make_queue()
    send(queue, [str(i) for i in range(1000)])
    assert all_pages(queue, 7) == [str(i) for i in range(1000)]
    assert queue.peek_page(1000).next_after is None
    assert queue.peek_page(999).next_after is not None


def test_pages_stay_right_while_the_queue_changes() -> None:
    queue = make_queue()
    send(queue, [str(i) for i in range(3000)])
    sent = 3000

    def churn() -> None:  # receive and delete from the front, send more at the end
        nonlocal sent
        received = queue.receive(10, 30)
        queue.delete([r.receipt for r in received])
        send(queue, [str(sent + i) for i in range(5)])
        sent += 5

    shown = all_pages(queue, 50, churn)
    numbers = [int(b) for b in shown]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)  # none twice
    # none that lived throughout was missed: the deletes took the first ones only
    assert set(range(max(numbers) - 2000, max(numbers) + 1)) <= set(numbers)
    assert max(numbers) == sent - 1


def test_a_page_is_bounded_by_bytes() -> None:
    queue = make_queue()
    send(queue, ["x" * 300_000] * 10)
    first = queue.peek_page(100)
    assert len(first.views) == 4  # stops once the page holds 1 MiB
    assert len(queue.peek_page(100, byte_limit=1).views) == 1  # always at least one
    assert len(all_pages(queue, 100)) == 10


def test_a_page_of_messages_in_some_states() -> None:
    queue = make_queue()
    send(queue, ["a", "b", "c"])
    send(queue, ["later"], delay=60)
    queue.receive(1, 30)  # "a" in flight
    visible = queue.peek_page(10, states=frozenset({VISIBLE}))
    assert [v.body for v in visible.views] == ["b", "c"]
    assert [v.state for v in queue.peek_page(10).views] == [
        "inflight",
        "visible",
        "visible",
        "delayed",
    ]


def test_the_handle_peeks_the_first_messages_only() -> None:
    with sqsmock.mock_sqs() as mock:
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        for i in range(5):
            sqs.send_message(QueueUrl=url, MessageBody=str(i))
        assert [v.body for v in mock.peek("q", limit=2)] == ["0", "1"]
        assert len(mock.peek("q")) == 5
        with pytest.raises(ValueError, match="at least 1"):
            mock.peek("q", limit=0)
