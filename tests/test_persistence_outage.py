"""Redis goes away and comes back: the activation fails calls fast, reports it, and heals.

Each test runs a redis-server of its own (``--save '' --appendonly no``) on a free port and
stops it by its PID; pausing it (SIGSTOP) is a real outage of a real process. Calls are made
while Redis is paused (each must fail fast); only the test of a pause shorter than the lease
keeps it paused for a set time (half the lease, which is shortened) -- that length is what it
checks. A lease that lapses during an outage is made to lapse at once (its key deleted, as its
expiry would), and the healing is awaited on the lease's renewal thread, which heals the store
after each renewal: the tests wait for that event, never for time to pass.
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
from botocore.config import Config
from botocore.exceptions import ClientError
from persist_support import REGION, FaultyRedis, PrivateRedis, qid, reply, text

import sqsmock
from sqsmock import FrozenClock, PersistenceError, mock_sqs
from sqsmock._options import MockOptions
from sqsmock._runtime import Runtime
from sqsmock._store import redis_store
from sqsmock._store.lease import Lease

T0 = 1_700_000_000.0
#: How long a test waits at most for the renewal thread to heal the store (it renews every
#: sixth of the lease): a bound on a wait for an event, not a time that must pass.
HEALS_WITHIN = 10.0

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


def _namespace() -> str:
    return f"sqsmock-outage-{uuid.uuid4().hex}:"


def _after_renewal_until(runtime: Runtime, condition: Callable[[], bool]) -> None:
    """Block until ``condition()`` holds right after the lease's renewal thread has renewed
    and healed the store (``Lease.after_renewal``) -- an event of the code under test, so no
    call made by the test takes part. Fails after ``HEALS_WITHIN`` seconds."""
    store = runtime.backend.store
    assert store is not None
    lease: Lease = store.lease  # type: ignore[attr-defined]
    heal = lease.after_renewal
    assert heal is not None
    reached = threading.Event()

    def after() -> None:
        heal()
        if condition():
            reached.set()

    lease.after_renewal = after
    try:
        assert reached.wait(HEALS_WITHIN), f"not reached; health: {runtime.health()}"
    finally:
        lease.after_renewal = heal


def _healed(runtime: Runtime) -> None:
    """Wait until the store is healthy again by itself (see ``_after_renewal_until``)."""
    _after_renewal_until(runtime, lambda: runtime.health() == (True, "ok"))


def _fails_fast(call: Callable[[], Any], limit: float) -> None:
    """``call`` raises PersistenceError within ``limit`` seconds."""
    started = time.monotonic()
    with pytest.raises(PersistenceError, match=r"unavailable|Timeout"):
        call()
    assert time.monotonic() - started < limit


def _fail_fast_for(seconds: float, call: Callable[[], Any], limit: float) -> int:
    """Make ``call`` again and again for ``seconds``: each must raise PersistenceError within
    ``limit`` seconds. Returns how many were made."""
    made = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        _fails_fast(call, limit)
        made += 1
    return made


def _bodies(client: Any, url: str) -> list[str]:
    got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0)
    return sorted(m["Body"] for m in got.get("Messages", []))


def _seed(client: Any) -> str:
    """A queue holding two messages, a third sent and then deleted (acknowledged)."""
    url = str(client.create_queue(QueueName="q")["QueueUrl"])
    for body in ("kept-1", "kept-2", "deleted"):
        client.send_message(QueueUrl=url, MessageBody=body)
    got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0)
    for m in got["Messages"]:
        if m["Body"] == "deleted":
            client.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return url


def test_a_pause_shorter_than_the_lease_fails_calls_fast_then_heals(
    server: PrivateRedis, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis paused for half the lease -- longer than a renewal every third of the lease,
    each waiting for the whole write time-out, could survive -- costs no lease."""
    lease, timeout, pause = 6.0, 2.0, 3.0
    monkeypatch.setattr(redis_store, "LEASE_SECONDS", lease)
    namespace = _namespace()
    mock = mock_sqs(
        persistence=server.url,
        namespace=namespace,
        clock=FrozenClock(start=T0),
        persistence_timeout=timeout,
    ).start()
    try:
        runtime = mock.runtime
        url = _seed(client)
        assert runtime.health() == (True, "ok")
        owner = server.client().get(namespace + "owner")
        server.pause()
        try:
            made = _fail_fast_for(
                pause, lambda: client.send_message(QueueUrl=url, MessageBody="during"), timeout + 1
            )
            healthy, reason = runtime.health()
            assert not healthy
            assert "Redis" in reason
        finally:
            server.resume()
        assert made >= 2
        # Health comes back by itself, before any call is made; then calls are answered.
        _healed(runtime)
        after = client.send_message(QueueUrl=url, MessageBody="after")
        assert after["MessageId"]
        assert runtime.health() == (True, "ok")
        # The lease never lapsed: the same value, renewed, and never taken back.
        assert server.client().get(namespace + "owner") == owner
        assert _bodies(client, url) == ["after", "kept-1", "kept-2"]
    finally:
        mock.stop()
    with mock_sqs(persistence=server.url, namespace=namespace, clock=FrozenClock(start=T0)):
        url = client.get_queue_url(QueueName="q")["QueueUrl"]
        assert _bodies(client, url) == ["after", "kept-1", "kept-2"]


def test_a_lease_that_lapsed_during_a_pause_is_taken_back_and_reloaded(
    server: PrivateRedis, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis's clock runs on while it is stopped: a pause longer than the lease lets the lease
    lapse. Here the lease's key goes first thing when Redis resumes (deleted, as its expiry
    would), so the pause need not outlast the lease."""
    lease, timeout = 1.5, 0.5
    monkeypatch.setattr(redis_store, "LEASE_SECONDS", lease)
    taken_back: list[str] = []
    reacquire = Lease.reacquire

    def counted(self: Lease, namespace: str) -> None:
        reacquire(self, namespace)
        taken_back.append(namespace)

    monkeypatch.setattr(Lease, "reacquire", counted)
    namespace = _namespace()
    mock = mock_sqs(
        persistence=server.url,
        namespace=namespace,
        clock=FrozenClock(start=T0),
        persistence_timeout=timeout,
    ).start()
    try:
        runtime = mock.runtime
        url = _seed(client)
        server.pause()
        try:
            for _ in range(3):
                _fails_fast(lambda: client.send_message(QueueUrl=url, MessageBody="x"), timeout + 1)
            assert runtime.health()[0] is False
            lapse = server.send_only("DEL", namespace + "owner")  # runs as Redis resumes
        finally:
            server.resume()
        assert reply(lapse) in (b":1\r\n", b":0\r\n")  # :0 -- it had expired by itself
        # The renewal thread finds the lease lapsed and takes it back; the next call reloads
        # what the store holds and is answered.
        _healed(runtime)
        store = mock.backend.store
        assert store is not None
        assert _bodies(client, url) == ["kept-1", "kept-2"]
        assert taken_back == [namespace]
        assert runtime.health() == (True, "ok")
        value = store.lease.value  # type: ignore[attr-defined]
        assert text(server.client().get(namespace + "owner")) == value
        client.send_message(QueueUrl=url, MessageBody="after")
        assert _bodies(client, url) == ["after", "kept-1", "kept-2"]
    finally:
        mock.stop()


@pytest.mark.parametrize("intruder_stays", [True, False])
def test_a_namespace_taken_during_the_outage_is_refused(
    server: PrivateRedis, client: Any, monkeypatch: pytest.MonkeyPatch, intruder_stays: bool
) -> None:
    """Redis is away for this activation only (its connection fails) and its lease lapses
    (the key is deleted, as its expiry would); another activation takes the namespace
    meanwhile. When Redis answers again this one refuses every call, naming the namespace --
    its memory is no longer what the store holds -- whether the other is still there or has
    gone."""
    lease = 1.0
    monkeypatch.setattr(redis_store, "LEASE_SECONDS", lease)
    namespace = _namespace()
    faulty = FaultyRedis(server.client())
    mock = mock_sqs(persistence=faulty, namespace=namespace, clock=FrozenClock(start=T0)).start()
    try:
        url = _seed(client)
        faulty.fail = True
        with pytest.raises(PersistenceError):
            client.send_message(QueueUrl=url, MessageBody="x")
        observer = server.client()
        observer.delete(namespace + "owner")  # no renewal can reach Redis to undo it
        intruder = Runtime(
            MockOptions(
                region=REGION,
                account_id="123456789012",
                clock=FrozenClock(start=T0),
                persistence=server.url,
                namespace=namespace,
            )
        )
        try:
            intruder.backend.get(REGION, "123456789012", "q").purge()
        finally:
            if not intruder_stays:
                intruder.close()
        faulty.fail = False
        # The renewal thread finds the namespace taken (a call at that moment would be told
        # only that the store is unavailable); then every call is refused.
        _after_renewal_until(mock.runtime, lambda: "lost the lease" in mock.runtime.health()[1])
        for _ in range(2):  # refused for good, not only once
            with pytest.raises(PersistenceError) as refused:
                client.list_queues()
            assert repr(namespace) in str(refused.value)
            assert "lost the lease" in str(refused.value)
        healthy, reason = mock.runtime.health()
        assert not healthy
        assert namespace in reason
        if intruder_stays:
            intruder.close()
        # Nothing of this activation reached the store after it lost the namespace.
        assert observer.hlen(f"{namespace}q:{qid('q')}") == 0
    finally:
        faulty.fail = False
        mock.stop()


def test_the_server_answers_503_while_redis_is_paused(
    server: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    lease, timeout = 6.0, 1.0
    monkeypatch.setattr(redis_store, "LEASE_SECONDS", lease)
    namespace = _namespace()
    with sqsmock.serve(
        port=0, persistence=server.url, namespace=namespace, persistence_timeout=timeout
    ) as sqs_server:
        http = boto3.client(
            "sqs",
            region_name=REGION,
            endpoint_url=sqs_server.endpoint_url,
            aws_access_key_id="x",
            aws_secret_access_key="x",
            config=Config(retries={"total_max_attempts": 1, "mode": "standard"}),
        )
        url = http.create_queue(QueueName="q")["QueueUrl"]
        http.send_message(QueueUrl=url, MessageBody="kept")
        server.pause()
        try:
            for _ in range(3):
                started = time.monotonic()
                with pytest.raises(ClientError) as error:
                    http.send_message(QueueUrl=url, MessageBody="during")
                assert time.monotonic() - started < timeout + 1
                assert error.value.response["Error"]["Code"] == "ServiceUnavailable"
                assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503
            assert sqs_server.runtime.health()[0] is False
        finally:
            server.resume()
        _healed(sqs_server.runtime)
        http.send_message(QueueUrl=url, MessageBody="after")
        assert sqs_server.runtime.health() == (True, "ok")
        got = http.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
        assert sorted(m["Body"] for m in got) == ["after", "kept"]
