"""A call waits for Redis no longer than ``persistence_timeout`` as a whole.

Each test runs a redis-server of its own on a free port. A call that has to check Redis and
take its lease back before writing makes several round trips; each waiting for the whole
time-out made a call wait a multiple of it. The bounds asserted are on failure paths, and
generous (twice the time-out); the tests end a pause with CLIENT UNPAUSE rather than wait for it.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import redis
from persist_support import REGION, PrivateRedis, SlowProxy

from sqsmock import FrozenClock, PersistenceError, mock_sqs
from sqsmock._store import redis_store

T0 = 1_700_000_000.0
TIMEOUT = 0.5

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path) -> Iterator[PrivateRedis]:
    redis_server = PrivateRedis(tmp_path, append_only=False)
    redis_server.start()
    try:
        yield redis_server
    finally:
        redis_server.stop()


@pytest.fixture(scope="module")
def client() -> Any:
    return boto3.client("sqs", region_name=REGION)


def _healed(runtime: Any) -> None:
    """Wait (10 s at most) until the lease's renewal thread has healed the store."""
    store = runtime.backend.store
    heal = store.lease.after_renewal
    healed = threading.Event()

    def after() -> None:
        heal()
        if runtime.health() == (True, "ok"):
            healed.set()

    store.lease.after_renewal = after
    try:
        assert healed.wait(10), runtime.health()
    finally:
        store.lease.after_renewal = heal


def _fails_within(call: Callable[[], Any], limit: float) -> float:
    """``call`` fails, and is answered within ``limit`` seconds."""
    started = time.monotonic()
    try:
        call()
    except PersistenceError:
        outcome = "failed"
    else:
        outcome = "succeeded"
    took = time.monotonic() - started
    assert took < limit, f"the call {outcome} after {took:.2f} s"
    assert outcome == "failed"
    return took


def test_a_call_that_must_recover_first_waits_the_time_out_as_a_whole(
    server: PrivateRedis, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis answers every command, each slower than half the time-out. After a write timed
    out, the next call checks that Redis answers, renews the lease, settles the write and
    writes: five round trips, each within the time-out, together three times it. The call
    must fail within the time-out instead."""
    monkeypatch.setattr(redis_store, "LEASE_SECONDS", 60.0)  # no renewal while the test runs
    proxy = SlowProxy(server.port)
    try:
        mock = mock_sqs(
            persistence=proxy.url,
            namespace=f"sqsmock-deadline-{uuid.uuid4().hex}:",
            clock=FrozenClock(start=T0),
            persistence_timeout=TIMEOUT,
        ).start()
        try:
            url = client.create_queue(QueueName="q")["QueueUrl"]
            client.send_message(QueueUrl=url, MessageBody="kept")
            send = lambda: client.send_message(QueueUrl=url, MessageBody="x")  # noqa: E731
            proxy.delay = 3 * TIMEOUT
            _fails_within(send, 2 * TIMEOUT)  # the write times out
            proxy.delay = 0.6 * TIMEOUT
            _fails_within(send, 2 * TIMEOUT)
            assert mock.runtime.health()[0] is False
        finally:
            proxy.delay = 0.0
            mock.stop()
    finally:
        proxy.close()


def test_calls_during_a_client_pause_fail_within_the_time_out(
    server: PrivateRedis, client: Any
) -> None:
    """CLIENT PAUSE ALL: Redis accepts connections and reads commands, answers none. Calls
    from several threads, on one queue, each fail long before the pause ends: within its own
    time-out, after waiting for another call's write on the queue (at most one time-out more),
    with a time-out's slack for six threads on a busy machine; once the pause ends, calls are
    answered again."""
    mock = mock_sqs(
        persistence=server.url,
        namespace=f"sqsmock-deadline-{uuid.uuid4().hex}:",
        clock=FrozenClock(start=T0),
        persistence_timeout=TIMEOUT,
    ).start()
    try:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="kept")
        admin = server.client()
        pause = 4.0
        admin.client_pause(int(pause * 1000), all=True)
        paused_until = time.monotonic() + pause
        slowest: list[float] = []
        errors: list[BaseException] = []

        def calls() -> None:
            try:
                # Calls started while the pause surely lasts (each ends within 3 * TIMEOUT).
                while time.monotonic() + 3 * TIMEOUT < paused_until - 1.0:
                    slowest.append(
                        _fails_within(
                            lambda: client.send_message(QueueUrl=url, MessageBody="x"),
                            3 * TIMEOUT,
                        )
                    )
            except BaseException as error:  # reported by the main thread
                errors.append(error)

        threads = [threading.Thread(target=calls) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert not errors, errors[0]
        assert len(slowest) >= 6
        # The pause ends (CLIENT UNPAUSE would wait for it too); the store heals by itself
        # (the lease's renewal checks Redis), then calls are answered again.
        waiting = redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=30)
        try:
            waiting.ping()  # answered once the pause ends
        finally:
            waiting.close()
        _healed(mock.runtime)
        assert client.send_message(QueueUrl=url, MessageBody="after")["MessageId"]
    finally:
        mock.stop()
