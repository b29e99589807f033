"""A Redis that evicts keys loses acknowledged messages: the store refuses it, and notices.

Tests that need a ``maxmemory-policy`` start a redis-server of their own on a free port (the
shared one on 6379 is never reconfigured); a key evicted while a mock runs is stood for by the
test deleting it, in a namespace of its own.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import fakeredis
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from persist_support import REAL_HOST, REAL_PORT, REGION, PrivateRedis, real_namespace, redis_client

import sqsmock
from sqsmock import FrozenClock, PersistenceError, mock_sqs
from sqsmock._store import redis_store
from sqsmock._store.eviction import read_policy

T0 = 1_700_000_000.0


@pytest.fixture(scope="module")
def client() -> Any:
    return boto3.client("sqs", region_name=REGION)


def _namespace() -> str:
    return f"sqsmock-evict-{uuid.uuid4().hex}:"


@contextlib.contextmanager
def _server(tmp_path: Path, *options: str) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path, append_only=False, options=options)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def lru(tmp_path: Path) -> Iterator[PrivateRedis]:
    with _server(tmp_path, "--maxmemory-policy", "allkeys-lru") as server:
        yield server


@pytest.mark.slow
def test_an_evicting_redis_is_refused_at_start(lru: PrivateRedis) -> None:
    namespace = _namespace()
    with pytest.raises(PersistenceError) as refused:
        mock_sqs(persistence=lru.url, namespace=namespace, clock=FrozenClock(start=T0)).start()
    message = str(refused.value)
    assert "maxmemory-policy allkeys-lru" in message
    assert "`maxmemory-policy noeviction`" in message
    assert "\n" not in message
    assert lru.client().get(namespace + "owner") is None  # no lease left behind


@pytest.mark.slow
def test_the_policy_is_read_from_info_when_config_is_disabled(tmp_path: Path) -> None:
    with (
        _server(
            tmp_path, "--maxmemory-policy", "allkeys-random", "--rename-command", "CONFIG", ""
        ) as server,
        pytest.raises(PersistenceError, match="maxmemory-policy allkeys-random"),
    ):
        mock_sqs(persistence=server.url, namespace=_namespace()).start()


@pytest.mark.slow
def test_an_unreadable_policy_is_warned_of(tmp_path: Path) -> None:
    options = ("--rename-command", "CONFIG", "", "--rename-command", "INFO", "")
    with _server(tmp_path, *options) as server:
        assert read_policy(server.client()) is None
        with pytest.warns(RuntimeWarning, match="maxmemory-policy"):
            mock = mock_sqs(persistence=server.url, namespace=_namespace()).start()
        mock.stop()


@pytest.mark.slow
def test_a_volatile_policy_is_accepted(tmp_path: Path, client: Any) -> None:
    """volatile-* evicts only keys with an expiry: of sqsmock's, only the lease, whose loss
    the next write notices."""
    with (
        _server(tmp_path, "--maxmemory-policy", "volatile-lru") as server,
        mock_sqs(persistence=server.url, namespace=_namespace()),
    ):
        url = client.create_queue(QueueName="q")["QueueUrl"]
        assert client.send_message(QueueUrl=url, MessageBody="x")["MessageId"]


@pytest.mark.slow
def test_a_policy_set_to_evict_at_run_time_is_noticed(
    tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CONFIG SET maxmemory-policy allkeys-lru while a mock runs: the lease's next renewal
    reads it, and from then on every call is refused and health says why."""
    monkeypatch.setattr(redis_store, "LEASE_SECONDS", 1.5)  # renewed every quarter second
    with _server(tmp_path) as server:
        mock = mock_sqs(persistence=server.url, namespace=_namespace()).start()
        try:
            url = client.create_queue(QueueName="q")["QueueUrl"]
            client.send_message(QueueUrl=url, MessageBody="before")
            server.client().config_set("maxmemory-policy", "allkeys-lru")
            store = mock.backend.store
            lease = store.lease  # type: ignore[union-attr]
            heal = lease.after_renewal
            noticed = threading.Event()

            def after() -> None:
                heal()
                if not mock.runtime.health()[0]:
                    noticed.set()

            lease.after_renewal = after
            assert noticed.wait(10), "the policy change was not noticed"
            lease.after_renewal = heal
            healthy, reason = mock.runtime.health()
            assert not healthy
            assert "maxmemory-policy allkeys-lru" in reason
            with pytest.raises(PersistenceError, match="noeviction"):
                client.send_message(QueueUrl=url, MessageBody="after")
        finally:
            mock.stop()


def test_fakeredis_persistence_needs_no_policy(client: Any) -> None:
    """fakeredis has neither CONFIG nor INFO, and evicts nothing: no warning, it works."""
    fake = fakeredis.FakeRedis()
    with pytest.raises(Exception, match="unknown command"):
        fake.config_get("maxmemory-policy")
    with mock_sqs(persistence=fake, namespace=_namespace()):
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="x")
    with mock_sqs(persistence=fake, namespace="sqsmock:"):
        pass


@pytest.fixture
def shared() -> Iterator[tuple[Any, str]]:
    with real_namespace(redis_client(REAL_HOST, REAL_PORT), _namespace()) as found:
        yield found


def test_a_key_evicted_while_running_fails_the_next_write(
    shared: tuple[Any, str], client: Any
) -> None:
    """The schema key -- written once, never read after, the first an LRU policy evicts --
    is gone: the next write is refused (never answered 200 with data lost), and so is every
    later call; health says why."""
    redis, namespace = shared
    mock = mock_sqs(persistence=redis, namespace=namespace, clock=FrozenClock(start=T0)).start()
    try:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="kept")
        redis.delete(namespace + "schema")  # as eviction would
        for _ in range(2):
            with pytest.raises(PersistenceError, match="noeviction"):
                client.send_message(QueueUrl=url, MessageBody="lost?")
        healthy, reason = mock.runtime.health()
        assert not healthy
        assert "schema" in reason
    finally:
        mock.stop()


def test_an_evicted_lease_is_not_taken_back_when_other_keys_went_too(
    shared: tuple[Any, str], client: Any
) -> None:
    """The lease and the schema key are gone: the lease could be taken back (nobody else
    owned the namespace), but keys are missing, so calls are refused instead of reloading
    what is left."""
    redis, namespace = shared
    mock = mock_sqs(persistence=redis, namespace=namespace, clock=FrozenClock(start=T0)).start()
    try:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="kept")
        redis.delete(namespace + "owner", namespace + "schema")
        with pytest.raises(PersistenceError):
            client.send_message(QueueUrl=url, MessageBody="x")  # finds the lease gone
        with pytest.raises(PersistenceError, match="schema"):
            client.send_message(QueueUrl=url, MessageBody="y")  # would take it back
        assert "schema" in mock.runtime.health()[1]
    finally:
        mock.stop()


@pytest.mark.slow
def test_a_server_answers_503_for_a_write_after_eviction(shared: tuple[Any, str]) -> None:
    redis, namespace = shared
    with sqsmock.serve(port=0, persistence=redis, namespace=namespace) as server:
        http = boto3.client(
            "sqs",
            region_name=REGION,
            endpoint_url=server.endpoint_url,
            aws_access_key_id="x",
            aws_secret_access_key="x",
            config=Config(retries={"total_max_attempts": 1, "mode": "standard"}),
        )
        url = http.create_queue(QueueName="q")["QueueUrl"]
        redis.delete(namespace + "schema")
        with pytest.raises(ClientError) as error:
            http.send_message(QueueUrl=url, MessageBody="x")
        assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503
