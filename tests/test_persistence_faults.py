"""Persistence that cannot lie: time-outs, a paused or killed Redis, lost replies, one owner per
namespace, exact reset and wipe.

Runs against the real Redis on 127.0.0.1:6379 (each test in a namespace of its own) and against
redis-servers the tests start on free ports and pause (SIGSTOP) or kill (SIGKILL).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import fakeredis
import pytest
import redis
from persist_support import (
    REAL_HOST,
    REAL_PORT,
    FaultyRedis,
    PrivateRedis,
    qid,
    real_namespace,
    redis_client,
    text,
)

import sqsmock
from sqsmock import FrozenClock, PersistenceError, mock_sqs
from sqsmock._store.lease import LEASE_SECONDS
from sqsmock._store.redis_store import connect, open_store
from sqsmock.cli import main as cli_main

T0 = 1_700_000_000.0
#: A short time-out for the servers the tests pause: a paused call fails in a fraction of a second.
SHORT = 0.2


# -- fixtures -------------------------------------------------------------------------------


def _namespace() -> str:
    return f"sqsmock-test-{uuid.uuid4().hex}:"


@pytest.fixture
def real() -> Iterator[tuple[redis.Redis, str]]:
    """The real Redis server and a fresh namespace in it (wiped afterwards)."""
    with real_namespace(redis_client(REAL_HOST, REAL_PORT), _namespace()) as found:
        yield found


@pytest.fixture(params=["fakeredis", "redis"])
def backing(request: pytest.FixtureRequest) -> Iterator[tuple[Any, str]]:
    """fakeredis, or the real server; and a fresh namespace."""
    if request.param == "fakeredis":
        yield fakeredis.FakeRedis(server=fakeredis.FakeServer()), _namespace()
        return
    yield request.getfixturevalue("real")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A redis-server of our own, on a free port; stopped (even when paused) afterwards."""
    private = PrivateRedis(tmp_path)
    private.start()
    try:
        yield private
    finally:
        private.kill()


@pytest.fixture(scope="module")
def client() -> Any:
    return boto3.client("sqs", region_name="us-east-1")


def _stored_ids(redis_client_: Any, namespace: str, name: str) -> set[str]:
    fields = redis_client_.hkeys(f"{namespace}q:{qid(name)}")
    return {text(f)[2:] for f in fields if text(f).startswith("m:")}


def _mock(persistence: Any, namespace: str, **options: Any) -> sqsmock.MockSQS:
    return mock_sqs(
        persistence=persistence, namespace=namespace, clock=FrozenClock(start=T0), **options
    )


# -- reset and wipe remove exactly the namespace's keys -------------------------------------


@pytest.mark.parametrize("names", [["schema"], ["user-schema", "user-schemas"], ["owner", "q"]])
def test_reset_removes_queues_whose_names_end_like_fixed_keys(
    backing: tuple[Any, str], client: Any, names: list[str]
) -> None:
    redis_, namespace = backing
    with _mock(redis_, namespace) as mock:
        for name in names:
            url = client.create_queue(QueueName=name)["QueueUrl"]
            client.send_message(QueueUrl=url, MessageBody=f"old {name}")
        mock.reset()
        for name in names:
            assert _stored_ids(redis_, namespace, name) == set()
    with _mock(redis_, namespace):
        assert "QueueUrls" not in client.list_queues()
    keys = {text(k) for k in redis_.scan_iter(match=namespace + "*")}
    assert keys <= {namespace + "schema", namespace + "commits"}


def test_wipe_and_inspect_without_a_mock(backing: tuple[Any, str], client: Any) -> None:
    redis_, namespace = backing
    nested = namespace + "inner:"
    stranger = namespace + "stranger"
    with _mock(redis_, nested):
        client.create_queue(QueueName="inner")
    with _mock(redis_, namespace):
        url = client.create_queue(QueueName="schema")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        client.send_message(QueueUrl=url, MessageBody="n")
        client.delete_queue(QueueUrl=client.create_queue(QueueName="gone")["QueueUrl"])
        info = sqsmock.inspect_namespace(redis_, namespace)
        assert info.owner is not None and f"pid {os.getpid()}" in info.owner
        with pytest.raises(PersistenceError, match="in use"):
            sqsmock.wipe(redis_, namespace)
    redis_.set(stranger, "not sqsmock's")
    info = sqsmock.inspect_namespace(redis_, namespace)
    assert (info.owner, info.queues, info.deleted) == (
        None,
        {qid("schema"): 2},
        [qid("gone")],
    )
    # Everything under the namespace goes -- also a key sqsmock did not write -- but not the
    # keys of the namespace nested in it.
    assert sqsmock.wipe(redis_, namespace) >= 5
    assert {text(k) for k in redis_.scan_iter(match=namespace + "*")} - {
        text(k) for k in redis_.scan_iter(match=nested + "*")
    } == set()
    with _mock(redis_, nested):
        assert [u.rsplit("/", 1)[1] for u in client.list_queues()["QueueUrls"]] == ["inner"]


@pytest.mark.slow
def test_cli_wipe_and_inspect(
    real: tuple[redis.Redis, str], client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    redis_, namespace = real
    url_option = f"redis://{REAL_HOST}:{REAL_PORT}/0"
    with _mock(url_option, namespace):
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        assert cli_main(["wipe", "--persistence", url_option, "--namespace", namespace]) == 1
        assert "in use" in capsys.readouterr().err
    assert cli_main(["inspect", "--persistence", url_option, "--namespace", namespace]) == 0
    assert f"queue {qid('q')}: 1 message" in capsys.readouterr().out
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sqsmock",
            "inspect",
            "--json",
            "--persistence",
            url_option,
            "--namespace",
            namespace,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout)["queues"] == {qid("q"): 1}
    assert cli_main(["wipe", "--persistence", url_option, "--namespace", namespace]) == 0
    assert "wiped" in capsys.readouterr().out
    assert list(redis_.scan_iter(match=namespace + "*")) == []


# -- one owner per namespace ----------------------------------------------------------------


def test_second_activation_on_a_namespace_is_refused_naming_the_holder(
    backing: tuple[Any, str], client: Any
) -> None:
    redis_, namespace = backing
    first = _mock(redis_, namespace).start()
    try:
        client.create_queue(QueueName="q")
        second = _mock(redis_, namespace)
        with pytest.raises(PersistenceError) as exc:
            second.start()
        message = str(exc.value)
        assert f"pid {os.getpid()}" in message and "host " in message
        assert "sqsmock serve" in message
        assert not second.active
        assert 0 < redis_.pttl(namespace + "owner") <= LEASE_SECONDS * 1000  # it lapses
        client.send_message(QueueUrl="q", MessageBody="still mine")
    finally:
        first.stop()
    assert redis_.get(namespace + "owner") is None  # released on stop
    with _mock(redis_, namespace) as mock:
        assert [v.body for v in mock.peek("q")] == ["still mine"]


@pytest.mark.slow
def test_a_lease_of_another_host_blocks_one_of_a_dead_local_process_does_not(
    backing: tuple[Any, str],
) -> None:
    redis_, namespace = backing
    holder = {"token": "t", "host": "elsewhere.example", "pid": 1234, "since": T0}
    redis_.set(namespace + "owner", json.dumps(holder), px=60_000)
    with pytest.raises(PersistenceError, match=r"host elsewhere\.example, pid 1234"):
        _mock(redis_, namespace).start()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(timeout=30)
    holder = {"token": "t", "host": os.uname().nodename, "pid": dead.pid, "since": T0}
    redis_.set(namespace + "owner", json.dumps(holder), px=60_000)
    with _mock(redis_, namespace):  # the holder is gone: its lease is taken over at once
        assert f'"pid":{os.getpid()}' in text(redis_.get(namespace + "owner"))


def test_a_lease_left_behind_by_this_process_is_taken_over(backing: tuple[Any, str]) -> None:
    """stop() could not release the lease (Redis was away): a new activation of this process
    does not wait for it to lapse."""
    redis_, namespace = backing
    faulty = FaultyRedis(redis_)
    mock = _mock(faulty, namespace).start()
    faulty.fail = True
    mock.stop()  # the release fails
    faulty.fail = False
    assert redis_.get(namespace + "owner") is not None
    with _mock(redis_, namespace):
        pass


def test_a_mock_that_lost_its_lease_writes_nothing(backing: tuple[Any, str], client: Any) -> None:
    redis_, namespace = backing
    with _mock(redis_, namespace) as mock:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        assert sqsmock.wipe(redis_, namespace, force=True) > 0
        store = mock.backend.store
        assert store is not None
        assert store.lease.renew() is False  # type: ignore[attr-defined]  # its renewal sees it
        with pytest.raises(PersistenceError, match="lost the lease"):
            client.send_message(QueueUrl=url, MessageBody="m")
    assert _stored_ids(redis_, namespace, "q") == set()


def test_default_namespace_is_per_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    assert mock_sqs().namespace == "sqsmock:gw3:"
    assert mock_sqs(namespace="mine:").namespace == "mine:"
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert mock_sqs().namespace == "sqsmock:"


TWO_PROCESSES_CHILD = """
import sys, boto3
from sqsmock import mock_sqs
mock = mock_sqs(persistence=sys.argv[1], namespace=sys.argv[2], clock="frozen").start()
boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="from-child")
print("ready", flush=True)
sys.stdin.read()
"""


@pytest.mark.slow
def test_two_processes_on_one_namespace_then_kill_9(
    real: tuple[redis.Redis, str], client: Any
) -> None:
    _, namespace = real
    url_option = f"redis://{REAL_HOST}:{REAL_PORT}/0"
    child = subprocess.Popen(
        [sys.executable, "-c", TWO_PROCESSES_CHILD, url_option, namespace],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], 60)
        assert ready and child.stdout.readline() == b"ready\n"
        with pytest.raises(PersistenceError) as exc:
            _mock(url_option, namespace).start()
        assert f"pid {child.pid}" in str(exc.value)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        with _mock(url_option, namespace):  # a killed owner does not lock the namespace
            assert client.get_queue_url(QueueName="from-child")["QueueUrl"].endswith("/from-child")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                stream.close()


# -- time-outs ------------------------------------------------------------------------------


def test_clients_built_from_a_url_have_time_outs() -> None:
    url = f"redis://{REAL_HOST}:{REAL_PORT}/0"
    for built, expected in (
        (connect(url), 5.0),
        (connect(url, 0.3), 0.3),
        (connect(url + "?socket_timeout=2&socket_connect_timeout=2", 0.3), 2.0),
    ):
        options = built.connection_pool.connection_kwargs
        assert (options["socket_timeout"], options["socket_connect_timeout"]) == (
            expected,
            expected,
        )
    with pytest.raises(ValueError, match="persistence_timeout"):
        mock_sqs(persistence=url, persistence_timeout=0)


@pytest.mark.parametrize(
    ("lease", "timeout", "expected"), [(15.0, 5.0, 1.25), (15.0, 0.5, 0.5), (3.0, 5.0, 0.25)]
)
def test_the_lease_is_renewed_well_inside_its_time_on_a_quick_connection(
    lease: float, timeout: float, expected: float
) -> None:
    """Renewal every sixth of the lease; each round trip gives up after a twelfth of it (or the
    write time-out if shorter) and is not retried: three round trips (WATCH, GET, MULTI/EXEC)
    take at most a quarter of the lease, so one slow attempt cannot let the lease lapse."""
    client = redis_client(REAL_HOST, REAL_PORT)
    client.connection_pool.connection_kwargs["socket_timeout"] = None  # given without one
    namespace = _namespace()
    store = open_store(client, namespace, timeout, lease_seconds=lease)
    try:
        assert store.lease is not None
        quick = store.lease.client
        assert quick is not client
        options = quick.connection_pool.connection_kwargs
        assert options["socket_timeout"] == options["socket_connect_timeout"] == expected
        assert options["retry"].get_retries() == 0
        assert store.lease.seconds == lease
        assert 3 * expected < lease / 3
    finally:
        store.close()
        client.delete(*[k for k in client.scan_iter(match=namespace + "*")] or ["-"])


def _outlast_the_deadline(client: Any) -> None:
    """Keep the paused Redis paused for one more call, which fails after the store's own
    time-out: the deadline of the write that just timed out has then passed in Redis's clock,
    too. That deadline is the moment the client gave up only as far as the store can tell:
    Redis's clock is measured against ours to within half a round trip when the mock starts,
    and compared in whole milliseconds, so on a loaded machine a Redis resumed at once could
    run the write a millisecond or two before it."""
    with pytest.raises(PersistenceError, match="unavailable"):
        client.list_queues()


@pytest.mark.slow
def test_a_paused_redis_fails_calls_within_the_time_out(server: PrivateRedis, client: Any) -> None:
    namespace = _namespace()
    mock = _mock(server.url, namespace, persistence_timeout=SHORT).start()
    try:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        kept = client.send_message(QueueUrl=url, MessageBody="kept")["MessageId"]
        server.pause()
        try:
            started = time.monotonic()
            with pytest.raises(PersistenceError) as exc:
                client.send_message(QueueUrl=url, MessageBody="timed out")
            assert time.monotonic() - started < 10 * SHORT
            assert "Timeout" in str(exc.value)
            _outlast_the_deadline(client)
        finally:
            server.resume()
        # The timed-out write reached the server's socket; now it runs -- and is refused.
        assert _stored_ids(server.client(), namespace, "q") == {kept}
        assert [v.body for v in mock.peek("q")] == ["kept"]
        after = client.send_message(QueueUrl=url, MessageBody="after")["MessageId"]
        assert _stored_ids(server.client(), namespace, "q") == {kept, after}
    finally:
        mock.stop()
    with _mock(server.url, namespace) as again:
        assert [v.body for v in again.peek("q")] == ["kept", "after"]


@pytest.mark.slow
def test_a_timed_out_delete_queue_does_not_land_later(server: PrivateRedis, client: Any) -> None:
    namespace = _namespace()
    mock = _mock(server.url, namespace, persistence_timeout=SHORT).start()
    try:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        server.pause()
        try:
            with pytest.raises(PersistenceError, match="Timeout"):
                client.delete_queue(QueueUrl=url)
            _outlast_the_deadline(client)
        finally:
            server.resume()  # the delete waiting in Redis's socket has run (and was refused)
        assert client.get_queue_url(QueueName="q")["QueueUrl"] == url
        assert server.client().hexists(namespace + "queues", qid("q"))
    finally:
        mock.stop()
    with _mock(server.url, namespace) as again:  # memory and store agree: the start succeeds
        assert [v.body for v in again.peek("q")] == ["m"]
        client.delete_queue(QueueUrl=url)
    assert not server.client().hexists(namespace + "queues", qid("q"))


class _Signalling:
    """A client proxy that signals when a pipeline starts executing (a write under way) or
    the keys are scanned (reset)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.writing = threading.Event()

    def __getattr__(self, name: str) -> Any:
        if name == "scan_iter":
            self.writing.set()
        return getattr(self._inner, name)

    def pipeline(self, *args: Any, **kwargs: Any) -> Any:
        owner, pipe = self, self._inner.pipeline(*args, **kwargs)

        class Pipe:
            def __getattr__(self, name: str) -> Any:
                return getattr(pipe, name)

            def __enter__(self) -> Any:
                return self

            def __exit__(self, *exc: object) -> None:
                pipe.reset()

            def execute(self, *a: Any, **k: Any) -> Any:
                owner.writing.set()
                return pipe.execute(*a, **k)

        return Pipe()


@pytest.mark.slow
@pytest.mark.parametrize("operation", ["create", "reset"])
def test_a_write_waiting_on_redis_blocks_no_lookup(
    server: PrivateRedis, client: Any, operation: str
) -> None:
    namespace = _namespace()
    slow = redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=2.0)
    proxy = _Signalling(slow)
    mock = _mock(proxy, namespace).start()
    failures: list[BaseException] = []

    def create() -> None:
        try:
            if operation == "create":
                client.create_queue(QueueName="blocked")
            else:
                mock.reset()
        except BaseException as error:
            failures.append(error)

    try:
        client.create_queue(QueueName="other")
        proxy.writing.clear()
        server.pause()
        thread = threading.Thread(target=create, daemon=True)
        try:
            thread.start()
            assert proxy.writing.wait(10)
            started = time.monotonic()
            assert [u.rsplit("/", 1)[1] for u in client.list_queues()["QueueUrls"]] == ["other"]
            assert client.get_queue_url(QueueName="other")["QueueUrl"].endswith("/other")
            assert time.monotonic() - started < 1.0  # not held up by the 2 s write
        finally:
            server.resume()
            thread.join(timeout=30)
        assert not thread.is_alive()
    finally:
        mock.stop()
    assert len(failures) <= 1 and all(isinstance(f, PersistenceError) for f in failures)


@pytest.mark.slow
def test_stop_returns_while_redis_is_paused(server: PrivateRedis, client: Any) -> None:
    mock = _mock(server.url, _namespace(), persistence_timeout=SHORT).start()
    client.create_queue(QueueName="q")
    server.pause()
    try:
        started = time.monotonic()
        mock.stop()
        assert time.monotonic() - started < 10 * SHORT
        assert not mock.active
    finally:
        server.resume()


@pytest.mark.slow
def test_a_killed_redis_fails_calls_then_comes_back(server: PrivateRedis, client: Any) -> None:
    namespace = _namespace()
    mock = _mock(server.url, namespace, persistence_timeout=SHORT).start()
    try:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        kept = client.send_message(QueueUrl=url, MessageBody="kept")["MessageId"]
        server.kill()
        started = time.monotonic()
        with pytest.raises(PersistenceError):
            client.send_message(QueueUrl=url, MessageBody="lost")
        assert time.monotonic() - started < 10 * SHORT
        server.start()  # same port, same append-only file
        after = client.send_message(QueueUrl=url, MessageBody="after")["MessageId"]
        assert _stored_ids(server.client(), namespace, "q") == {kept, after}
        assert [v.body for v in mock.peek("q")] == ["kept", "after"]
    finally:
        mock.stop()


# -- a reply lost after Redis applied the write ---------------------------------------------


def test_a_write_whose_reply_was_lost_succeeds(real: tuple[redis.Redis, str], client: Any) -> None:
    redis_, namespace = real
    faulty = FaultyRedis(redis_)
    with _mock(faulty, namespace) as mock:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        faulty.lose_reply = True
        sent = client.send_message(QueueUrl=url, MessageBody="m")["MessageId"]  # no error
        assert _stored_ids(redis_, namespace, "q") == {sent}
        assert [v.message_id for v in mock.peek("q")] == [sent]


def test_a_write_found_applied_later_is_taken_into_memory(
    real: tuple[redis.Redis, str], client: Any
) -> None:
    """The reply is lost and Redis cannot be asked at once: the call raises. The next call
    settles the write first, finds it applied, and memory takes it in (memory = store)."""
    redis_, namespace = real
    faulty = FaultyRedis(redis_)
    with _mock(faulty, namespace) as mock:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        faulty.lose_reply = faulty.fail_commands = True
        with pytest.raises(PersistenceError):
            client.create_queue(QueueName="late")
        with pytest.raises(PersistenceError, match="unavailable"):
            client.list_queues()  # unsettled: nothing answers from memory that may be behind
        faulty.fail_commands = False
        names = [u.rsplit("/", 1)[1] for u in client.list_queues()["QueueUrls"]]
        assert names == ["late", "q"]
        assert redis_.hexists(namespace + "queues", qid("late"))
        client.send_message(QueueUrl=url, MessageBody="m")
        assert [v.body for v in mock.peek("q")] == ["m"]
    with _mock(redis_, namespace):
        names = [u.rsplit("/", 1)[1] for u in client.list_queues()["QueueUrls"]]
        assert names == ["late", "q"]


def test_a_delete_queue_found_applied_later_removes_the_queue_from_memory(
    real: tuple[redis.Redis, str], client: Any
) -> None:
    redis_, namespace = real
    faulty = FaultyRedis(redis_)
    with _mock(faulty, namespace):
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        faulty.lose_reply = faulty.fail_commands = True
        with pytest.raises(PersistenceError):
            client.delete_queue(QueueUrl=url)
        faulty.fail_commands = False
        assert "QueueUrls" not in client.list_queues()  # settled: it was deleted after all
        assert not redis_.hexists(namespace + "queues", qid("q"))
        with pytest.raises(client.exceptions.QueueDeletedRecently):
            client.create_queue(QueueName="q")
    with _mock(redis_, namespace):  # memory and store agreed: the start succeeds
        assert "QueueUrls" not in client.list_queues()
