"""aiobotocore clients under sqsmock: answered in-process, long polls awaited on the event loop.

Runs with whichever aiobotocore is installed: 3.x through the ``test`` extra, 2.x in the
environment tests/test_async_versions.py builds. No test sleeps to let SQS time pass: the clock
is advanced, or frozen.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiobotocore
import boto3
import pytest
from aiobotocore.config import AioConfig
from aiobotocore.session import get_session
from botocore.config import Config
from botocore.exceptions import ClientError, ParamValidationError

from sqsmock import mock_sqs

try:  # anyio's plugin runs its tests on every backend installed (trio too, when it is)
    from anyio.pytest_plugin import get_available_backends
except ImportError:  # releases that run them on asyncio alone

    def get_available_backends() -> list[str]:
        return ["asyncio"]


REGION = "us-east-1"
ACCOUNT = "123456789012"
# A control call without the mock must give up at once rather than wait for an answer.
NO_WAIT = {"read_timeout": 0.2, "connect_timeout": 2, "retries": {"total_max_attempts": 1}}
KEYS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}


@contextlib.asynccontextmanager
async def aio_client(**options: Any) -> AsyncIterator[Any]:
    options.setdefault("region_name", REGION)
    async with get_session().create_client("sqs", **options) as client:
        yield client


async def until(condition: Any, what: str) -> None:
    """Let other tasks run until ``condition()`` holds (a bounded number of loop turns)."""
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"never happened: {what}")


def waiting(mock: Any, name: str) -> int:
    return int(mock.backend.get(REGION, ACCOUNT, name).waiting())


# -- calls ----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_round_trip_with_no_credentials_and_no_endpoint() -> None:
    with mock_sqs():
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="q"))["QueueUrl"]
            assert url == f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/q"
            sent = await sqs.send_message(
                QueueUrl=url,
                MessageBody="hello",
                MessageAttributes={"k": {"DataType": "String", "StringValue": "v"}},
            )
            got = await sqs.receive_message(
                QueueUrl=url, MessageAttributeNames=["All"], AttributeNames=["All"]
            )
            (message,) = got["Messages"]
            assert message["Body"] == "hello"
            assert message["MessageId"] == sent["MessageId"]
            assert message["MD5OfBody"] == sent["MD5OfMessageBody"]
            assert message["MessageAttributes"]["k"]["StringValue"] == "v"
            assert message["Attributes"]["ApproximateReceiveCount"] == "1"
            await sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            attributes = await sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])
            assert attributes["Attributes"]["ApproximateNumberOfMessages"] == "0"
            assert attributes["ResponseMetadata"]["HTTPStatusCode"] == 200


@pytest.mark.asyncio
async def test_batch_send_receive_delete() -> None:
    with mock_sqs():
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="batch"))["QueueUrl"]
            entries = [{"Id": str(i), "MessageBody": f"m{i}"} for i in range(10)]
            sent = await sqs.send_message_batch(QueueUrl=url, Entries=entries)
            assert sorted(e["Id"] for e in sent["Successful"]) == sorted(str(i) for i in range(10))
            got = await sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
            assert sorted(m["Body"] for m in got["Messages"]) == sorted(f"m{i}" for i in range(10))
            deleted = await sqs.delete_message_batch(
                QueueUrl=url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                    for i, m in enumerate(got["Messages"])
                ],
            )
            assert len(deleted["Successful"]) == 10
            assert deleted.get("Failed", []) == []
            bad = await sqs.send_message_batch(
                QueueUrl=url,
                Entries=[{"Id": "a", "MessageBody": "x"}, {"Id": "b", "MessageBody": "\x00"}],
            )
            assert [e["Id"] for e in bad["Successful"]] == ["a"]
            assert [e["Code"] for e in bad["Failed"]] == ["InvalidMessageContents"]


@pytest.mark.asyncio
async def test_fifo_order_and_deduplication() -> None:
    async with mock_sqs(), aio_client() as sqs:
        url = (
            await sqs.create_queue(
                QueueName="jobs.fifo",
                Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
            )
        )["QueueUrl"]
        for body in ["1", "2", "3", "1"]:
            await sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId="g")
        got = await sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["SequenceNumber"]
        )
        assert [m["Body"] for m in got["Messages"]] == ["1", "2", "3"]
        sequence = [int(m["Attributes"]["SequenceNumber"]) for m in got["Messages"]]
        assert sequence == sorted(sequence)
        # The group is locked while its messages are in flight.
        again = await sqs.receive_message(QueueUrl=url)
        assert again.get("Messages", []) == []


# -- long polls -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_long_poll_is_woken_at_once_by_a_send_from_another_task() -> None:
    with mock_sqs() as mock:
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="wake"))["QueueUrl"]
            started = mock.clock.now()
            poll = asyncio.ensure_future(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
            await until(lambda: waiting(mock, "wake") == 1, "the poll waits")
            assert not poll.done()
            await sqs.send_message(QueueUrl=url, MessageBody="ping")
            got = await asyncio.wait_for(poll, 5)
            assert [m["Body"] for m in got["Messages"]] == ["ping"]
            assert mock.clock.now() - started < 5  # woken, not timed out
            assert waiting(mock, "wake") == 0


@pytest.mark.asyncio
async def test_long_poll_is_woken_by_a_send_from_another_thread() -> None:
    with mock_sqs() as mock:
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="threads"))["QueueUrl"]
            poll = asyncio.ensure_future(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
            await until(lambda: waiting(mock, "threads") == 1, "the poll waits")
            sender = threading.Thread(
                target=lambda: boto3.client("sqs", region_name=REGION).send_message(
                    QueueUrl=url, MessageBody="from a thread"
                )
            )
            sender.start()
            got = await asyncio.wait_for(poll, 5)
            sender.join()
            assert [m["Body"] for m in got["Messages"]] == ["from a thread"]


@pytest.mark.asyncio
async def test_event_loop_keeps_running_during_a_long_poll() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    with mock_sqs() as mock:
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="live"))["QueueUrl"]
            poll = asyncio.ensure_future(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
            await until(lambda: waiting(mock, "live") == 1, "the poll waits")
            ticking = asyncio.ensure_future(ticker())
            await until(lambda: ticks >= 1000, "the ticker ticks a thousand times")
            assert not poll.done()
            mock.clock.advance(20)  # the poll's time is up
            got = await asyncio.wait_for(poll, 5)
            ticking.cancel()
            assert got.get("Messages", []) == []
            assert ticks >= 1000


@pytest.mark.asyncio
async def test_fifty_concurrent_long_polls_hold_no_thread_and_all_get_a_message() -> None:
    with mock_sqs() as mock:
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="many"))["QueueUrl"]
            threads = threading.active_count()
            polls = [
                asyncio.ensure_future(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
                for _ in range(50)
            ]
            await until(lambda: waiting(mock, "many") == 50, "fifty polls wait")
            assert threading.active_count() == threads
            assert not any(p.done() for p in polls)
            await sqs.send_message_batch(
                QueueUrl=url,
                Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(10)],
            )
            for start in range(10, 50, 10):
                await sqs.send_message_batch(
                    QueueUrl=url,
                    Entries=[
                        {"Id": str(i), "MessageBody": f"m{i}"} for i in range(start, start + 10)
                    ],
                )
            answers = await asyncio.wait_for(asyncio.gather(*polls), 10)
            bodies = [m["Body"] for answer in answers for m in answer.get("Messages", [])]
            assert sorted(bodies) == sorted(f"m{i}" for i in range(50))
            assert waiting(mock, "many") == 0


@pytest.mark.asyncio
async def test_long_poll_on_a_frozen_clock_jumps_time_without_sleeping() -> None:
    with mock_sqs(clock="frozen") as mock:
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="frozen"))["QueueUrl"]
            start = mock.clock.now()
            real = time.monotonic()
            empty = await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)
            assert empty.get("Messages", []) == []
            assert mock.clock.now() == start + 20
            await sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=7)
            got = await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)
            assert [m["Body"] for m in got["Messages"]] == ["later"]
            assert mock.clock.now() == start + 27
            assert time.monotonic() - real < 5  # 47 seconds of SQS time, no real waiting


@pytest.mark.asyncio
async def test_stopping_the_mock_ends_waiting_polls() -> None:
    mock = mock_sqs().start()
    try:
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="stop"))["QueueUrl"]
            polls = [
                asyncio.ensure_future(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
                for _ in range(3)
            ]
            await until(lambda: waiting(mock, "stop") == 3, "three polls wait")
            started = time.monotonic()
            mock.stop()
            answers = await asyncio.wait_for(asyncio.gather(*polls), 5)
            assert [a.get("Messages", []) for a in answers] == [[], [], []]
            assert time.monotonic() - started < 5
    finally:
        mock.stop()


@pytest.mark.asyncio
async def test_a_cancelled_long_poll_leaves_no_waiter_behind() -> None:
    with mock_sqs() as mock:
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="cancel"))["QueueUrl"]
            poll = asyncio.ensure_future(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
            await until(lambda: waiting(mock, "cancel") == 1, "the poll waits")
            poll.cancel()
            with pytest.raises(asyncio.CancelledError):
                await poll
            assert waiting(mock, "cancel") == 0
            await sqs.send_message(QueueUrl=url, MessageBody="kept")
            got = await sqs.receive_message(QueueUrl=url)
            assert [m["Body"] for m in got["Messages"]] == ["kept"]


@pytest.mark.asyncio
async def test_persisted_mock_answers_async_clients_off_the_loop() -> None:
    import fakeredis

    store = fakeredis.FakeRedis()
    namespace = f"sqsmock-test-{uuid.uuid4()}:"
    with mock_sqs(persistence=store, namespace=namespace) as mock:
        assert mock.runtime.blocking
        async with aio_client() as sqs:
            url = (await sqs.create_queue(QueueName="kept"))["QueueUrl"]
            poll = asyncio.ensure_future(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
            await until(lambda: waiting(mock, "kept") == 1, "the poll waits")
            await sqs.send_message(QueueUrl=url, MessageBody="stored")
            got = await asyncio.wait_for(poll, 5)
            assert [m["Body"] for m in got["Messages"]] == ["stored"]
    with mock_sqs(persistence=store, namespace=namespace):
        async with aio_client() as sqs:
            url = (await sqs.get_queue_url(QueueName="kept"))["QueueUrl"]
            attributes = await sqs.get_queue_attributes(
                QueueUrl=url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"]
            )
            assert attributes["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "1"


# -- which clients ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_client_created_before_the_mock_is_answered_while_it_is_active() -> None:
    async with aio_client(endpoint_url="http://127.0.0.1:1", **KEYS) as sqs:
        with mock_sqs() as mock:
            url = (await sqs.create_queue(QueueName="early"))["QueueUrl"]
            await sqs.send_message(QueueUrl=url, MessageBody="x")
            assert [v.body for v in mock.peek("early")] == ["x"]
        with mock_sqs() as mock:  # a second mock: fresh state, same client
            listed = await sqs.list_queues()
            assert listed.get("QueueUrls", []) == []


@pytest.mark.asyncio
async def test_nested_mocks_the_innermost_answers() -> None:
    with mock_sqs() as outer:
        async with aio_client() as sqs:
            await sqs.create_queue(QueueName="outer")
            with mock_sqs() as inner:
                await sqs.create_queue(QueueName="inner")
                assert [v.body for v in inner.peek("inner")] == []
            assert (await sqs.list_queues())["QueueUrls"][0].endswith("/outer")
            with pytest.raises(LookupError):
                outer.peek("inner")


@contextlib.contextmanager
def listener() -> Iterator[tuple[str, socket.socket]]:
    """A TCP listener on 127.0.0.1; connections pile up unaccepted in its backlog."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        sock.setblocking(False)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", sock
    finally:
        sock.close()


def connections(sock: socket.socket) -> int:
    """Connections made to the listener so far (accepted and closed here)."""
    count = 0
    while True:
        try:
            conn, _ = sock.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


@pytest.mark.asyncio
async def test_no_request_of_any_client_reaches_a_socket() -> None:
    """botocore, aiobotocore clients with the listener as endpoint: nothing connects while the
    mock is active; with it stopped, the same clients do connect (the endpoint is really used)."""
    with listener() as (endpoint, sock):
        with mock_sqs():
            sync = boto3.client("sqs", endpoint_url=endpoint, config=Config(**NO_WAIT))
            async with aio_client(endpoint_url=endpoint, config=AioConfig(**NO_WAIT)) as aio:
                for client_url in [
                    sync.create_queue(QueueName="s")["QueueUrl"],
                    (await aio.create_queue(QueueName="a"))["QueueUrl"],
                ]:
                    sync.send_message(QueueUrl=client_url, MessageBody="x")
                    await aio.send_message(QueueUrl=client_url, MessageBody="y")
                    await aio.receive_message(QueueUrl=client_url, WaitTimeSeconds=0)
                    sync.receive_message(QueueUrl=client_url)
                with pytest.raises(ClientError):
                    await aio.get_queue_url(QueueName="missing")
                assert connections(sock) == 0
        # The control: with the mock stopped, the same endpoint is reached.
        with pytest.raises(Exception):  # noqa: B017 -- nobody answers; any failure will do
            sync.list_queues()
        assert connections(sock) == 1
        async with aio_client(endpoint_url=endpoint, config=AioConfig(**NO_WAIT), **KEYS) as aio:
            with pytest.raises(Exception):  # noqa: B017
                await aio.list_queues()
        assert connections(sock) == 1


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_errors_are_the_modeled_exception_classes() -> None:
    with mock_sqs():
        async with aio_client() as sqs:
            with pytest.raises(sqs.exceptions.QueueDoesNotExist) as missing:
                await sqs.get_queue_url(QueueName="nope")
            error = missing.value.response["Error"]
            assert error["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
            assert error["QueryErrorCode"] == "QueueDoesNotExist"
            assert missing.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
            assert isinstance(missing.value, ClientError)
            assert missing.value.operation_name == "GetQueueUrl"

            url = (await sqs.create_queue(QueueName="e"))["QueueUrl"]
            with pytest.raises(ClientError) as empty:
                await sqs.delete_message_batch(QueueUrl=url, Entries=[])
            assert empty.value.response["Error"]["Code"] == (
                "AWS.SimpleQueueService.EmptyBatchRequest"
            )
            assert isinstance(empty.value, sqs.exceptions.EmptyBatchRequest)
            with pytest.raises(ClientError) as receipt:
                await sqs.delete_message(QueueUrl=url, ReceiptHandle="garbage")
            assert receipt.value.response["Error"]["Code"] == "ReceiptHandleIsInvalid"
            with pytest.raises(ParamValidationError):
                await sqs.send_message(QueueUrl=url)


@pytest.mark.asyncio
async def test_unvalidated_client_gets_sqs_errors_for_bad_types() -> None:
    with mock_sqs():
        async with aio_client(config=AioConfig(parameter_validation=False)) as sqs:
            url = (await sqs.create_queue(QueueName="loose"))["QueueUrl"]
            with pytest.raises(ClientError) as missing:
                await sqs.send_message(QueueUrl=url)
            assert missing.value.response["Error"]["Code"] == "MissingParameter"


@pytest.mark.asyncio
async def test_user_handlers_see_the_answer_and_can_read_the_body() -> None:
    seen: list[Any] = []

    async def after_call(http_response: Any, parsed: Any, **_: Any) -> None:
        seen.append((http_response.status_code, await http_response.content, parsed))

    with mock_sqs():
        async with aio_client() as sqs:
            sqs.meta.events.register("after-call.sqs.CreateQueue", after_call)
            await sqs.create_queue(QueueName="seen")
    ((status, body, parsed),) = seen
    assert status == 200
    assert b"/seen" in body
    assert parsed["QueueUrl"].endswith("/seen")


# -- decorating and fixtures ------------------------------------------------------------------


@pytest.mark.asyncio
@mock_sqs
async def test_decorated_async_test() -> None:
    async with aio_client() as sqs:
        url = (await sqs.create_queue(QueueName="decorated"))["QueueUrl"]
        await sqs.send_message(QueueUrl=url, MessageBody="d")
        got = await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)
        assert [m["Body"] for m in got["Messages"]] == ["d"]


@pytest.mark.anyio
@mock_sqs(clock="frozen")
async def test_decorated_anyio_test() -> None:
    async with aio_client() as sqs:
        url = (await sqs.create_queue(QueueName="anyio"))["QueueUrl"]
        assert (await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)).get("Messages") is None


@pytest.mark.asyncio
async def test_sqs_mock_fixture_with_an_async_client(sqs_mock: Any) -> None:
    async with aio_client() as sqs:
        await sqs.create_queue(QueueName="fixture")
    assert sqs_mock.peek("fixture") == []


@pytest.mark.asyncio
async def test_sqs_async_client_fixture(sqs_async_client: Any, sqs_mock: Any) -> None:
    url = (await sqs_async_client.create_queue(QueueName="fx"))["QueueUrl"]
    await sqs_async_client.send_message(QueueUrl=url, MessageBody="b")
    assert [v.body for v in sqs_mock.peek("fx")] == ["b"]
    assert sqs_async_client.meta.region_name == sqs_mock.region


USER_TEST = """
import pytest

{mark}
@pytest.mark.sqsmock(clock="frozen")
async def test_client(sqs_async_client, sqs_mock):
    url = (await sqs_async_client.create_queue(QueueName="q"))["QueueUrl"]
    got = await sqs_async_client.receive_message(QueueUrl=url, WaitTimeSeconds=20)
    assert got.get("Messages") is None
    assert sqs_mock.clock.now() >= 20
"""


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["strict", "auto", "without pytest-asyncio"])
def test_async_fixtures_in_a_user_test_suite(pytester: pytest.Pytester, mode: str) -> None:
    """pytest-asyncio in either mode, and anyio, run the fixtures (one suite, one subprocess).
    anyio's plugin runs its tests on every backend installed: trio too, when it is."""
    files = {"test_anyio": USER_TEST.format(mark="@pytest.mark.anyio")}
    if mode == "without pytest-asyncio":
        options = ["-p", "no:asyncio"]
    else:
        mark = "" if mode == "auto" else "@pytest.mark.asyncio"
        files["test_asyncio"] = USER_TEST.format(mark=mark)
        scope = "asyncio_default_fixture_loop_scope=function"
        options = ["-o", f"asyncio_mode={mode}", "-o", scope]
    pytester.makepyfile(**files)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *options)
    result.assert_outcomes(passed=len(files) - 1 + len(get_available_backends()))


# -- imports --------------------------------------------------------------------------------------


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
def test_aiobotocore_imported_inside_an_active_mock_is_covered() -> None:
    out = run_python(
        """
        import asyncio, sys
        import sqsmock

        mock = sqsmock.mock_sqs().start()
        assert "aiobotocore" not in sys.modules  # sqsmock does not import it
        from aiobotocore.session import get_session

        async def main():
            async with get_session().create_client("sqs", endpoint_url="http://127.0.0.1:1") as c:
                url = (await c.create_queue(QueueName="late"))["QueueUrl"]
                print(url)

        asyncio.run(main())
        mock.stop()
        from aiobotocore.client import AioBaseClient
        from sqsmock._adapters import aiobotocore as adapter
        assert AioBaseClient._make_api_call is adapter._previous["_make_api_call"]
        print("restored")
        """
    )
    assert out.split() == [f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/late", "restored"]


@pytest.mark.slow
def test_clients_created_before_sqsmock_was_imported_are_covered() -> None:
    out = run_python(
        """
        import asyncio
        from aiobotocore.session import get_session

        async def main():
            async with get_session().create_client(
                "sqs", region_name="eu-west-1", endpoint_url="http://127.0.0.1:1",
                aws_access_key_id="k", aws_secret_access_key="s",
            ) as c:
                import sqsmock

                with sqsmock.mock_sqs():
                    print((await c.create_queue(QueueName="first"))["QueueUrl"])

        asyncio.run(main())
        """
    )
    assert out.split() == [f"https://sqs.eu-west-1.amazonaws.com/{ACCOUNT}/first"]


def test_installed_aiobotocore_is_a_supported_major_version() -> None:
    """The installed aiobotocore is one sqsmock supports."""
    major = int(aiobotocore.__version__.split(".")[0])
    assert major in (2, 3)
