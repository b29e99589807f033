"""The virtual clock: units, time-driven SQS rules, long polls, freezegun and time-machine."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Any

import boto3
import freezegun
import pytest
import time_machine

from sqsmock import mock_sqs
from sqsmock._engine.clock import Clock, FrozenClock, WallClock, make_clock
from sqsmock._engine.queue import Queue

T0 = 1_700_000_000.0
JOIN_TIMEOUT = 10.0
FROZEN = pytest.mark.sqsmock(clock="frozen")


def visible_bodies(client: Any, url: str, **kwargs: Any) -> list[str]:
    response = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, **kwargs)
    return [m["Body"] for m in response.get("Messages", [])]


def counts(client: Any, url: str) -> tuple[str, str, str]:
    attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return (
        attributes["ApproximateNumberOfMessages"],
        attributes["ApproximateNumberOfMessagesNotVisible"],
        attributes["ApproximateNumberOfMessagesDelayed"],
    )


class SignallingWallClock(WallClock):
    """A wall clock that reports when a long poll starts waiting on one of its queues."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__()
        self.waiting = threading.Event()
        add_waiter = Queue.add_waiter

        def signalling(queue: Queue, wake: Any) -> None:
            add_waiter(queue, wake)
            self.waiting.set()

        monkeypatch.setattr(Queue, "add_waiter", signalling)


def run_in_thread(target: Any) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


# -- clock units -----------------------------------------------------------------------------


def test_frozen_clock_starts_where_told_and_stands_still(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FrozenClock(start=T0)
    assert clock.now() == T0
    monkeypatch.setattr(time, "time", lambda: T0 + 1000)
    assert clock.now() == T0


def test_frozen_clock_defaults_to_the_current_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "time", lambda: 1234.5)
    assert FrozenClock().now() == 1234.5


@pytest.mark.parametrize(
    ("step", "expected"),
    [(5, T0 + 5), (2.5, T0 + 2.5), (timedelta(minutes=2), T0 + 120), (0, T0)],
)
def test_frozen_clock_advance(step: float | timedelta, expected: float) -> None:
    clock = FrozenClock(start=T0)
    assert clock.advance(step) == expected
    assert clock.now() == expected


@pytest.mark.parametrize("clock", [FrozenClock(start=T0), WallClock()])
@pytest.mark.parametrize("step", [-1, -0.001, timedelta(seconds=-1)])
def test_negative_advance_is_refused(clock: Clock, step: float | timedelta) -> None:
    before = clock.now() if isinstance(clock, FrozenClock) else None
    offset = getattr(clock, "offset", None)
    with pytest.raises(ValueError):
        clock.advance(step)
    if before is not None:
        assert clock.now() == before
    else:
        assert getattr(clock, "offset", None) == offset


def test_wall_clock_follows_time_plus_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [T0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    clock = WallClock()
    assert clock.now() == T0
    now[0] = T0 + 7
    assert clock.now() == T0 + 7
    assert clock.advance(10) == T0 + 17
    assert clock.advance(timedelta(seconds=3)) == T0 + 20
    now[0] = T0 + 8
    assert clock.now() == T0 + 21


def test_advance_notifies_subscribers() -> None:
    for clock in (FrozenClock(start=T0), WallClock()):
        calls: list[int] = []

        def listener(calls: list[int] = calls) -> None:
            calls.append(1)

        clock.subscribe(listener)
        clock.advance(1)
        clock.unsubscribe(listener)
        clock.advance(1)
        assert calls == [1]


def test_make_clock_options() -> None:
    assert type(make_clock("wall")) is WallClock
    assert type(make_clock(None)) is WallClock
    assert type(make_clock("frozen")) is FrozenClock
    own = FrozenClock(start=T0)
    assert make_clock(own) is own
    with pytest.raises(ValueError):
        make_clock("bogus")
    with pytest.raises(ValueError):
        mock_sqs(clock="bogus")


def test_mock_uses_a_clock_instance_given_to_it() -> None:
    own = FrozenClock(start=T0)
    with mock_sqs(clock=own) as sqs:
        assert sqs.clock is own
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="x")
        assert sqs.peek("q")[0].attributes["SentTimestamp"] == str(int(T0 * 1000))


# -- the clock through the mock ----------------------------------------------------------------


@FROZEN
@pytest.mark.parametrize(("step", "visible"), [(29.999, False), (30, True)])
def test_visibility_timeout_lapses_exactly_at_receipt_plus_timeout(
    sqs_mock: Any, sqs_client: Any, step: float, visible: bool
) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    assert visible_bodies(sqs_client, url) == ["m"]
    sqs_mock.clock.advance(step)
    assert visible_bodies(sqs_client, url) == (["m"] if visible else [])


@FROZEN
def test_visibility_lapse_then_exact_boundary_on_one_message(
    sqs_mock: Any, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "10"})["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    assert visible_bodies(sqs_client, url) == ["m"]
    sqs_mock.clock.advance(9.999)
    assert counts(sqs_client, url) == ("0", "1", "0")
    assert sqs_mock.peek("q")[0].state == "inflight"
    sqs_mock.clock.advance(timedelta(milliseconds=1))
    assert sqs_mock.peek("q")[0].state == "visible"
    assert counts(sqs_client, url) == ("1", "0", "0")


@FROZEN
@pytest.mark.parametrize(("step", "visible"), [(9.999, False), (10, True)])
def test_message_delay_ends_exactly(
    sqs_mock: Any, sqs_client: Any, step: float, visible: bool
) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="m", DelaySeconds=10)
    assert counts(sqs_client, url) == ("0", "0", "1")
    sqs_mock.clock.advance(step)
    assert visible_bodies(sqs_client, url) == (["m"] if visible else [])


@FROZEN
def test_queue_delay_follows_the_clock(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", Attributes={"DelaySeconds": "45"})["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    sqs_mock.clock.advance(44)
    assert visible_bodies(sqs_client, url) == []
    assert counts(sqs_client, url) == ("0", "0", "1")
    sqs_mock.clock.advance(1)
    assert visible_bodies(sqs_client, url) == ["m"]


@FROZEN
def test_timestamps_come_from_the_virtual_clock(sqs_mock: Any, sqs_client: Any) -> None:
    start = sqs_mock.clock.now()
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_mock.clock.advance(3600)
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    sqs_mock.clock.advance(60)
    message = sqs_client.receive_message(QueueUrl=url, MessageSystemAttributeNames=["All"])[
        "Messages"
    ][0]
    assert message["Attributes"]["SentTimestamp"] == str(int((start + 3600) * 1000))
    assert message["Attributes"]["ApproximateFirstReceiveTimestamp"] == str(
        int((start + 3660) * 1000)
    )
    created = sqs_client.get_queue_attributes(QueueUrl=url, AttributeNames=["CreatedTimestamp"])
    assert created["Attributes"]["CreatedTimestamp"] == str(int(start))


@FROZEN
@pytest.mark.parametrize(("step", "allowed"), [(59.999, False), (60, True)])
def test_delete_queue_sixty_second_rule_follows_the_clock(
    sqs_mock: Any, sqs_client: Any, step: float, allowed: bool
) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.delete_queue(QueueUrl=url)
    sqs_mock.clock.advance(step)
    if allowed:
        assert sqs_client.create_queue(QueueName="q")["QueueUrl"] == url
        return
    with pytest.raises(sqs_client.exceptions.QueueDeletedRecently) as info:
        sqs_client.create_queue(QueueName="q")
    error = info.value.response["Error"]
    assert error["Code"] == "AWS.SimpleQueueService.QueueDeletedRecently"
    assert error["QueryErrorCode"] == "QueueDeletedRecently"
    assert error["Message"] == (
        "You must wait 60 seconds after deleting a queue before you can create another "
        "with the same name."
    )
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


@FROZEN
@pytest.mark.parametrize(("step", "allowed"), [(59.999, False), (60, True)])
def test_purge_queue_sixty_second_rule_follows_the_clock(
    sqs_mock: Any, sqs_client: Any, step: float, allowed: bool
) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.purge_queue(QueueUrl=url)
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    sqs_mock.clock.advance(step)
    if allowed:
        sqs_client.purge_queue(QueueUrl=url)
        assert counts(sqs_client, url) == ("0", "0", "0")
        return
    with pytest.raises(sqs_client.exceptions.PurgeQueueInProgress) as info:
        sqs_client.purge_queue(QueueUrl=url)
    error = info.value.response["Error"]
    assert error["Code"] == "AWS.SimpleQueueService.PurgeQueueInProgress"
    assert error["QueryErrorCode"] == "PurgeQueueInProgress"
    assert error["Message"] == "Only one PurgeQueue operation on q is allowed every 60 seconds."
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert counts(sqs_client, url) == ("1", "0", "0")


# -- long polls on a frozen clock ---------------------------------------------------------------


@FROZEN
def test_frozen_long_poll_jumps_to_a_delayed_message(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sent_at = sqs_mock.clock.now()
    sqs_client.send_message(QueueUrl=url, MessageBody="m", DelaySeconds=5)
    assert visible_bodies(sqs_client, url, WaitTimeSeconds=20) == ["m"]
    assert sqs_mock.clock.now() == sent_at + 5


@FROZEN
def test_frozen_long_poll_on_empty_queue_jumps_to_the_end_of_the_wait(
    sqs_mock: Any, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    start = sqs_mock.clock.now()
    assert visible_bodies(sqs_client, url, WaitTimeSeconds=20) == []
    assert sqs_mock.clock.now() == start + 20


@FROZEN
def test_frozen_long_poll_does_not_take_a_message_due_after_the_wait(
    sqs_mock: Any, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    start = sqs_mock.clock.now()
    sqs_client.send_message(QueueUrl=url, MessageBody="m", DelaySeconds=30)
    assert visible_bodies(sqs_client, url, WaitTimeSeconds=20) == []
    assert sqs_mock.clock.now() == start + 20
    assert counts(sqs_client, url) == ("0", "0", "1")
    assert visible_bodies(sqs_client, url, WaitTimeSeconds=20) == ["m"]
    assert sqs_mock.clock.now() == start + 30


@FROZEN
def test_frozen_long_poll_returns_a_message_whose_visibility_lapses(
    sqs_mock: Any, sqs_client: Any
) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    received_at = sqs_mock.clock.now()
    assert visible_bodies(sqs_client, url, VisibilityTimeout=7) == ["m"]
    again = sqs_client.receive_message(
        QueueUrl=url, WaitTimeSeconds=20, MessageSystemAttributeNames=["ApproximateReceiveCount"]
    )["Messages"]
    assert [m["Body"] for m in again] == ["m"]
    assert again[0]["Attributes"]["ApproximateReceiveCount"] == "2"
    assert sqs_mock.clock.now() == received_at + 7


@FROZEN
def test_frozen_long_poll_jumps_to_the_earliest_of_several(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    start = sqs_mock.clock.now()
    sqs_client.send_message(QueueUrl=url, MessageBody="late", DelaySeconds=15)
    sqs_client.send_message(QueueUrl=url, MessageBody="early", DelaySeconds=3)
    assert visible_bodies(sqs_client, url, WaitTimeSeconds=20) == ["early"]
    assert sqs_mock.clock.now() == start + 3


@FROZEN
def test_queue_receive_wait_time_is_the_default_long_poll(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(
        QueueName="q", Attributes={"ReceiveMessageWaitTimeSeconds": "20"}
    )["QueueUrl"]
    start = sqs_mock.clock.now()
    sqs_client.send_message(QueueUrl=url, MessageBody="m", DelaySeconds=4)
    assert visible_bodies(sqs_client, url, WaitTimeSeconds=0) == []
    assert sqs_mock.clock.now() == start
    assert visible_bodies(sqs_client, url) == ["m"]
    assert sqs_mock.clock.now() == start + 4


@FROZEN
def test_short_poll_never_moves_the_frozen_clock(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    start = sqs_mock.clock.now()
    sqs_client.send_message(QueueUrl=url, MessageBody="m", DelaySeconds=5)
    for _ in range(3):
        assert visible_bodies(sqs_client, url) == []
    assert sqs_mock.clock.now() == start


# -- long polls on a wall clock -----------------------------------------------------------------


def test_wall_long_poll_wakes_when_another_thread_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = SignallingWallClock(monkeypatch)
    with mock_sqs(clock=clock):
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="q")["QueueUrl"]
        receiver_client = boto3.session.Session().client("sqs", region_name="us-east-1")
        got: list[str] = []
        thread = run_in_thread(
            lambda: got.extend(visible_bodies(receiver_client, url, WaitTimeSeconds=20))
        )
        assert clock.waiting.wait(JOIN_TIMEOUT), "the receive never started waiting"
        client.send_message(QueueUrl=url, MessageBody="hello")
        thread.join(JOIN_TIMEOUT)
        assert not thread.is_alive(), "the long poll was not woken by the send"
        assert got == ["hello"]


def test_wall_long_poll_wakes_when_the_clock_is_advanced(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = SignallingWallClock(monkeypatch)
    with mock_sqs(clock=clock) as sqs:
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=600)
        receiver_client = boto3.session.Session().client("sqs", region_name="us-east-1")
        got: list[str] = []
        thread = run_in_thread(
            lambda: got.extend(visible_bodies(receiver_client, url, WaitTimeSeconds=20))
        )
        assert clock.waiting.wait(JOIN_TIMEOUT), "the receive never started waiting"
        sqs.clock.advance(600)
        thread.join(JOIN_TIMEOUT)
        assert not thread.is_alive(), "the long poll was not woken by advance()"
        assert got == ["later"]


# -- freezegun and time-machine -----------------------------------------------------------------


def test_freezegun_sets_the_timestamps() -> None:
    with freezegun.freeze_time("2024-01-01 00:00:00"), mock_sqs() as sqs:
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        message = client.receive_message(QueueUrl=url, MessageSystemAttributeNames=["All"])[
            "Messages"
        ][0]
        assert message["Attributes"]["SentTimestamp"] == "1704067200000"
        assert message["Attributes"]["ApproximateFirstReceiveTimestamp"] == "1704067200000"
        assert sqs.clock.now() == 1704067200.0


def test_freezegun_tick_makes_an_in_flight_message_visible() -> None:
    with freezegun.freeze_time("2024-01-01 00:00:00") as frozen, mock_sqs():
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        assert visible_bodies(client, url) == ["m"]
        frozen.tick(29)
        assert visible_bodies(client, url) == []
        frozen.tick(2)
        assert visible_bodies(client, url) == ["m"]


def test_freezegun_long_poll_on_empty_queue_returns() -> None:
    with freezegun.freeze_time("2024-01-01 00:00:00"), mock_sqs():
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="q")["QueueUrl"]
        result: list[Any] = []
        thread = run_in_thread(
            lambda: result.append(visible_bodies(client, url, WaitTimeSeconds=1))
        )
        thread.join(JOIN_TIMEOUT)
        assert not thread.is_alive(), "a long poll hung under freezegun"
        assert result == [[]]


def test_time_machine_shift_makes_an_in_flight_message_visible() -> None:
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    with time_machine.travel(start, tick=False) as traveller, mock_sqs():
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        first = client.receive_message(QueueUrl=url, MessageSystemAttributeNames=["All"])
        assert first["Messages"][0]["Attributes"]["SentTimestamp"] == "1704067200000"
        traveller.shift(29)
        assert visible_bodies(client, url) == []
        traveller.shift(2)
        assert visible_bodies(client, url) == ["m"]
