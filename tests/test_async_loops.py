"""In-process long polls on every event loop aiobotocore runs on: asyncio (aiohttp and httpx
backends) and trio (httpx backend, the one that runs there).

A poll waits with the running loop's own primitives and never blocks it; a send from another
task or another thread wakes it; on a frozen clock it jumps time. No test sleeps to let SQS time
pass; ``fail_after`` bounds a wait that should end at once, so a poll that is not woken fails the
test instead of answering empty after its 20 seconds.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
import boto3
import pytest
from aiobotocore.config import AioConfig
from aiobotocore.httpxsession import HttpxSession
from aiobotocore.session import get_session

from sqsmock import mock_sqs

REGION = "us-east-1"
ACCOUNT = "123456789012"

#: (event loop, aiobotocore HTTP backend): aiohttp runs on asyncio only.
LOOPS = [
    pytest.param(("asyncio", "aiohttp"), id="asyncio-aiohttp"),
    pytest.param(("asyncio", "httpx"), id="asyncio-httpx"),
    pytest.param(("trio", "httpx"), id="trio-httpx"),
]


@pytest.fixture(params=LOOPS)
def loop_and_http(request: pytest.FixtureRequest) -> tuple[str, str]:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def anyio_backend(loop_and_http: tuple[str, str]) -> str:
    return loop_and_http[0]


@pytest.fixture
def http(loop_and_http: tuple[str, str]) -> str:
    return loop_and_http[1]


@contextlib.asynccontextmanager
async def aio_client(http: str) -> AsyncIterator[Any]:
    config = AioConfig(http_session_cls=HttpxSession) if http == "httpx" else None
    async with get_session().create_client("sqs", region_name=REGION, config=config) as client:
        yield client


def waiting(mock: Any, name: str) -> int:
    return int(mock.backend.get(REGION, ACCOUNT, name).waiting())


async def until(condition: Any, what: str) -> None:
    """Let other tasks run until ``condition()`` holds (a bounded number of loop turns)."""
    for _ in range(10_000):
        if condition():
            return
        await anyio.lowlevel.checkpoint()
    raise AssertionError(f"never happened: {what}")


@pytest.mark.anyio
async def test_long_poll_is_woken_by_a_send_from_another_task(http: str) -> None:
    with mock_sqs() as mock:
        async with aio_client(http) as sqs:
            url = (await sqs.create_queue(QueueName="wake"))["QueueUrl"]
            got: dict[str, Any] = {}

            async def poll() -> None:
                got.update(await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))

            with anyio.fail_after(10):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(poll)
                    await until(lambda: waiting(mock, "wake") == 1, "the poll waits")
                    assert got == {}
                    await sqs.send_message(QueueUrl=url, MessageBody="ping")
            assert [m["Body"] for m in got["Messages"]] == ["ping"]
            assert waiting(mock, "wake") == 0


@pytest.mark.anyio
async def test_long_poll_is_woken_by_a_send_from_another_thread(http: str) -> None:
    with mock_sqs() as mock:
        async with aio_client(http) as sqs:
            url = (await sqs.create_queue(QueueName="threads"))["QueueUrl"]
            got: dict[str, Any] = {}

            async def poll() -> None:
                got.update(await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))

            sender = threading.Thread(
                target=lambda: boto3.client("sqs", region_name=REGION).send_message(
                    QueueUrl=url, MessageBody="from a thread"
                )
            )
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(poll)
                    await until(lambda: waiting(mock, "threads") == 1, "the poll waits")
                    sender.start()
            sender.join()
            assert [m["Body"] for m in got["Messages"]] == ["from a thread"]


@pytest.mark.anyio
async def test_the_loop_keeps_running_while_a_poll_waits(http: str) -> None:
    ticks = 0
    with mock_sqs() as mock:
        async with aio_client(http) as sqs:
            url = (await sqs.create_queue(QueueName="live"))["QueueUrl"]
            got: dict[str, Any] = {"polled": False}

            async def poll() -> None:
                got.update(await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
                got["polled"] = True

            with anyio.fail_after(10):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(poll)
                    await until(lambda: waiting(mock, "live") == 1, "the poll waits")
                    while ticks < 1000:
                        ticks += 1
                        await anyio.lowlevel.checkpoint()
                    assert not got["polled"]
                    mock.clock.advance(20)  # the poll's time is up
            assert got["polled"]
            assert got.get("Messages", []) == []


@pytest.mark.anyio
async def test_long_poll_on_a_frozen_clock_jumps_time(http: str) -> None:
    with mock_sqs(clock="frozen") as mock:
        async with aio_client(http) as sqs:
            url = (await sqs.create_queue(QueueName="frozen"))["QueueUrl"]
            start = mock.clock.now()
            real = time.monotonic()
            with anyio.fail_after(10):
                empty = await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)
                assert empty.get("Messages", []) == []
                assert mock.clock.now() == start + 20
                await sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=7)
                got = await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)
            assert [m["Body"] for m in got["Messages"]] == ["later"]
            assert mock.clock.now() == start + 27
            assert time.monotonic() - real < 10  # 47 seconds of SQS time, no real waiting


@pytest.mark.anyio
async def test_a_cancelled_long_poll_leaves_no_waiter_behind(http: str) -> None:
    with mock_sqs() as mock:
        async with aio_client(http) as sqs:
            url = (await sqs.create_queue(QueueName="cancel"))["QueueUrl"]
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(lambda: sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
                await until(lambda: waiting(mock, "cancel") == 1, "the poll waits")
                tasks.cancel_scope.cancel()
            assert waiting(mock, "cancel") == 0
            await sqs.send_message(QueueUrl=url, MessageBody="kept")
            got = await sqs.receive_message(QueueUrl=url)
            assert [m["Body"] for m in got["Messages"]] == ["kept"]


@pytest.mark.anyio
async def test_persisted_mock_waits_and_runs_the_store_off_the_loop(http: str) -> None:
    """A store makes engine calls blocking: they run in the loop's own worker threads."""
    import fakeredis

    store = fakeredis.FakeRedis()
    namespace = f"sqsmock-test-{uuid.uuid4()}:"
    with mock_sqs(persistence=store, namespace=namespace) as mock:
        assert mock.runtime.blocking
        async with aio_client(http) as sqs:
            url = (await sqs.create_queue(QueueName="kept"))["QueueUrl"]
            got: dict[str, Any] = {}

            async def poll() -> None:
                got.update(await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))

            with anyio.fail_after(10):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(poll)
                    await until(lambda: waiting(mock, "kept") == 1, "the poll waits")
                    await sqs.send_message(QueueUrl=url, MessageBody="stored")
            assert [m["Body"] for m in got["Messages"]] == ["stored"]


@pytest.mark.anyio
async def test_retried_faults_back_off_on_the_frozen_clock(http: str) -> None:
    """A faulted call is answered per attempt inside aiobotocore's retry loop, whose back-off
    moves the frozen clock and sleeps nothing, whichever loop runs it."""
    with mock_sqs(clock="frozen") as mock:
        retries = {"mode": "standard", "max_attempts": 3}
        config = (
            AioConfig(http_session_cls=HttpxSession, retries=retries)
            if http == "httpx"
            else AioConfig(retries=retries)
        )
        async with get_session().create_client("sqs", region_name=REGION, config=config) as sqs:
            url = (await sqs.create_queue(QueueName="orders"))["QueueUrl"]
            mock.faults.add("SendMessage", error="RequestThrottled", times=2)
            start = mock.clock.now()
            with anyio.fail_after(10):
                await sqs.send_message(QueueUrl=url, MessageBody="A-1")
            attempts = mock.calls.of("SendMessage")
            assert [call.error for call in attempts] == [
                "RequestThrottled",
                "RequestThrottled",
                None,
            ]
            assert mock.clock.now() > start  # the back-off moved the clock
            assert [v.body for v in mock.peek("orders")] == ["A-1"]
