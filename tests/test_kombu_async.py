"""kombu's asynchronous SQS client (a Celery worker's consuming path) answered in process.

Each test drives a kombu hub itself, as a worker does, and checks what arrives through kombu's
callbacks: answers come on a later turn of the hub, never from inside the call; a long poll
leaves the hub turning, is woken by a send, jumps a frozen clock, and ends when the mock stops.
No request reaches pycurl. tests/clients/test_celery_in_process.py runs a whole worker.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from kombu.asynchronous import set_event_loop
from kombu.asynchronous.aws.connection import AsyncAWSQueryConnection
from kombu.asynchronous.aws.sqs.connection import AsyncSQSConnection
from kombu.asynchronous.http.curl import CurlClient
from kombu.asynchronous.hub import Hub
from vine import promise

from sqsmock import mock_sqs

REGION = "us-east-1"
ACCOUNT = "123456789012"


@pytest.fixture(autouse=True)
def no_pycurl(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every request handed to pycurl, which must stay empty."""
    sent: list[str] = []

    def add_request(self: Any, request: Any) -> Any:
        sent.append(f"{request.method} {request.url}")
        return request

    monkeypatch.setattr(CurlClient, "add_request", add_request)
    yield sent
    assert sent == []


@contextlib.contextmanager
def kombu_hub(**options: Any) -> Iterator[tuple[Hub, Any]]:
    """A hub, current as a worker's is, and kombu's asynchronous SQS connection on it."""
    hub = Hub()
    set_event_loop(hub)
    try:
        connection = AsyncSQSConnection(
            sqs_connection=boto3.client("sqs", region_name=REGION, **options), region=REGION
        )
        yield hub, connection
    finally:
        hub.close()
        set_event_loop(None)


def turn_until(hub: Hub, condition: Callable[[], bool], what: str, seconds: float = 10) -> int:
    """Run the hub until ``condition()`` holds (bounded); the number of turns it took."""
    deadline = time.monotonic() + seconds
    turns = 0
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        hub.run_once()
        turns += 1
    return turns


def waiting(mock: Any, name: str) -> int:
    return int(mock.backend.get(REGION, ACCOUNT, name).waiting())


def test_answers_come_through_kombus_callbacks_on_a_later_turn_of_the_hub() -> None:
    with mock_sqs() as mock, kombu_hub() as (hub, sqs):
        url = boto3.client("sqs", region_name=REGION).create_queue(QueueName="q")["QueueUrl"]
        sent: list[Any] = []
        sqs.send_message(_Queue(url), "hello ✓", callback=promise(sent.append))
        assert sent == []  # not from inside the call
        turn_until(hub, lambda: bool(sent), "the send is answered")
        assert [v.body for v in mock.peek("q")] == ["hello ✓"]
        assert sent[0]["MessageId"] == mock.peek("q")[0].message_id
        got: list[Any] = []
        sqs.receive_message(None, url, number_messages=10, callback=promise(got.append))
        turn_until(hub, lambda: bool(got), "the receive is answered")
        (message,) = got[0]["Messages"]
        assert message["Body"] == "hello ✓"
        assert message["Attributes"]["ApproximateReceiveCount"] == "1"


def test_a_long_poll_leaves_the_hub_turning_and_a_send_wakes_it() -> None:
    with mock_sqs() as mock, kombu_hub() as (hub, sqs):
        client = boto3.client("sqs", region_name=REGION)
        url = client.create_queue(QueueName="wake")["QueueUrl"]
        started = mock.clock.now()
        ticks: list[int] = []
        hub.call_repeatedly(0.01, lambda: ticks.append(1))
        got: list[Any] = []
        sqs.receive_message(None, url, wait_time_seconds=20, callback=promise(got.append))
        turn_until(hub, lambda: waiting(mock, "wake") == 1, "the poll waits")
        turn_until(hub, lambda: len(ticks) >= 5, "the hub runs its timers meanwhile")
        assert got == []
        sender = threading.Thread(
            target=lambda: client.send_message(QueueUrl=url, MessageBody="ping")
        )
        sender.start()
        turn_until(hub, lambda: bool(got), "the poll is woken")
        sender.join()
        assert [m["Body"] for m in got[0]["Messages"]] == ["ping"]
        assert mock.clock.now() - started < 10  # woken, not timed out
        assert waiting(mock, "wake") == 0


def test_a_long_poll_on_a_frozen_clock_jumps_time() -> None:
    with mock_sqs(clock="frozen") as mock, kombu_hub() as (hub, sqs):
        url = boto3.client("sqs", region_name=REGION).create_queue(QueueName="f")["QueueUrl"]
        start = mock.clock.now()
        real = time.monotonic()
        got: list[Any] = []
        sqs.receive_message(None, url, wait_time_seconds=20, callback=promise(got.append))
        turn_until(hub, lambda: bool(got), "the poll ends")
        assert got[0].get("Messages", []) == []
        assert mock.clock.now() == start + 20
        assert time.monotonic() - real < 10  # 20 seconds of SQS time, no real waiting


def test_stopping_the_mock_ends_a_waiting_poll() -> None:
    mock = mock_sqs().start()
    try:
        with kombu_hub() as (hub, sqs):
            client = boto3.client("sqs", region_name=REGION)
            url = client.create_queue(QueueName="stop")["QueueUrl"]
            got: list[Any] = []
            sqs.receive_message(None, url, wait_time_seconds=20, callback=promise(got.append))
            turn_until(hub, lambda: waiting(mock, "stop") == 1, "the poll waits")
            mock.stop()
            turn_until(hub, lambda: bool(got), "the poll ends", seconds=5)
            assert got[0].get("Messages", []) == []
    finally:
        mock.stop()


def test_an_sqs_error_reaches_kombus_error_callback() -> None:
    with mock_sqs(), kombu_hub() as (hub, sqs):
        missing = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/missing"
        errors: list[BaseException] = []
        sqs.get_queue_attributes(_Queue(missing), callback=promise(on_error=errors.append))
        turn_until(hub, lambda: bool(errors), "the error arrives")
        assert "HTTP 400" in str(errors[0])
        assert "QueueDoesNotExist" in str(errors[0])


def test_query_protocol_requests_are_answered_in_xml() -> None:
    """kombu releases before its JSON support send the query protocol, through the same door."""
    with mock_sqs() as mock, kombu_hub() as (hub, sqs):
        url = boto3.client("sqs", region_name=REGION).create_queue(QueueName="x")["QueueUrl"]
        got: list[Any] = []
        AsyncAWSQueryConnection.make_request(
            sqs, "SendMessage", {"MessageBody": "by query"}, url, "POST", promise(got.append)
        )
        turn_until(hub, lambda: bool(got), "the send is answered")
        response = got[0]
        assert response.status == 200
        assert response.getheader("Content-Type") == "text/xml"
        body = response.read()
        assert b"<SendMessageResponse" in body
        (view,) = mock.peek("x")
        assert view.body == "by query"
        assert f"<MessageId>{view.message_id}</MessageId>".encode() in body


class _Queue:
    """What kombu passes as ``queue`` to the calls that take the queue's URL from ``.id``."""

    def __init__(self, url: str) -> None:
        self.id = self.url = url


# -- activation -----------------------------------------------------------------------------------


def run_python(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_kombu_imported_inside_an_active_mock_is_covered_and_released_after() -> None:
    out = run_python(
        """
        import sys
        import sqsmock

        mock = sqsmock.mock_sqs().start()
        assert "kombu" not in sys.modules  # sqsmock does not import it
        from kombu.asynchronous.aws.connection import AsyncConnection
        from kombu.asynchronous.aws.sqs.connection import AsyncSQSConnection

        print(AsyncSQSConnection._mexe is not AsyncConnection._mexe)
        mock.stop()
        print(AsyncSQSConnection._mexe is AsyncConnection._mexe)
        with sqsmock.mock_sqs():  # imported already: covered at once
            print(AsyncSQSConnection._mexe is not AsyncConnection._mexe)
        """
    )
    assert out.split() == ["True", "True", "True"]


def test_a_connection_made_before_the_mock_is_answered_while_it_is_active() -> None:
    keys = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
    with kombu_hub(**keys) as (hub, sqs), mock_sqs() as mock:
        url = boto3.client("sqs", region_name=REGION).create_queue(QueueName="early")["QueueUrl"]
        sent: list[Any] = []
        sqs.send_message(_Queue(url), "early", callback=promise(sent.append))
        turn_until(hub, lambda: bool(sent), "the send is answered")
        assert [v.body for v in mock.peek("early")] == ["early"]
