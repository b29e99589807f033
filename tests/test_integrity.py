"""Limits that keep state sane: the clock's range, FIFO groups that never shed their head."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import boto3
import pytest

from sqsmock import FrozenClock, WallClock, mock_sqs
from sqsmock._engine.clock import MAX_TIME, Clock

T0 = 1_700_000_000.0


# -- the clock ------------------------------------------------------------------------------


def _clocks() -> list[Clock]:
    return [FrozenClock(start=T0), WallClock()]


@pytest.mark.parametrize("clock", _clocks(), ids=["frozen", "wall"])
@pytest.mark.parametrize("step", [math.nan, math.inf, -math.inf, timedelta.max])
def test_advance_refuses_nan_infinity_and_overflow(clock: Clock, step: Any) -> None:
    before = clock.now()
    with pytest.raises(ValueError):
        clock.advance(step)
    assert clock.now() - before < 5  # unchanged (a wall clock moves on by itself)


@pytest.mark.parametrize("clock", _clocks(), ids=["frozen", "wall"])
def test_advance_refuses_to_pass_the_last_representable_moment(clock: Clock) -> None:
    before = clock.now()
    with pytest.raises(ValueError, match="9999"):
        clock.advance(MAX_TIME - before + 3600)
    assert clock.now() - before < 5
    assert clock.advance(60) >= before + 60  # still usable


def test_frozen_clock_may_reach_the_last_moment_exactly() -> None:
    clock = FrozenClock(start=MAX_TIME - 10)
    assert clock.advance(10) == MAX_TIME
    with pytest.raises(ValueError):
        clock.advance(0.001)
    assert clock.now() == MAX_TIME


@pytest.mark.parametrize("start", [math.nan, math.inf, MAX_TIME + 1])
def test_frozen_clock_refuses_a_start_it_cannot_show(start: float) -> None:
    with pytest.raises(ValueError):
        FrozenClock(start=start)


@pytest.mark.parametrize("offset", [math.nan, math.inf])
def test_wall_clock_refuses_an_offset_it_cannot_show(offset: float) -> None:
    with pytest.raises(ValueError):
        WallClock(offset=offset)


def test_a_refused_advance_leaves_the_mock_working() -> None:
    client = boto3.client("sqs", region_name="us-east-1")
    with mock_sqs(clock="frozen") as mock:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        for step in (math.nan, math.inf, 1e300):
            with pytest.raises(ValueError):
                mock.clock.advance(step)
        got = client.receive_message(QueueUrl=url, VisibilityTimeout=10)["Messages"]
        assert [m["Body"] for m in got] == ["m"]
        mock.clock.advance(10)
        assert len(client.receive_message(QueueUrl=url)["Messages"]) == 1


# -- FIFO: a head that is never deleted -----------------------------------------------------


def test_fifo_group_sheds_messages_deleted_behind_a_head_never_deleted() -> None:
    """Each round receives the head and the message behind it and deletes only the latter:
    the group must not keep the deleted ones (every receive would step over them)."""
    client = boto3.client("sqs", region_name="us-east-1")
    with mock_sqs(clock="frozen") as mock:
        url = client.create_queue(QueueName="q.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]

        def send(body: str) -> None:
            client.send_message(
                QueueUrl=url, MessageBody=body, MessageGroupId="g", MessageDeduplicationId=body
            )

        send("head")
        for i in range(300):
            send(f"m{i}")
            got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=5)[
                "Messages"
            ]
            assert [m["Body"] for m in got] == ["head", f"m{i}"]
            client.delete_message(QueueUrl=url, ReceiptHandle=got[1]["ReceiptHandle"])
            mock.clock.advance(5)
        group = mock.backend.get("us-east-1", "123456789012", "q.fifo")._groups["g"]  # type: ignore[attr-defined]
        assert len(group.messages) <= 70  # the head plus at most ~2 x the compaction threshold
        assert [m["Body"] for m in client.receive_message(QueueUrl=url)["Messages"]] == ["head"]
