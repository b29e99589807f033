"""Commits over the store's own connections.

With a plain ``redis.Redis`` client the store sends each commit (one EVALSHA) on a connection it
keeps, not through ``client.pipeline()`` and the pool: those cost about as much as the round
trip. Any other client (a proxy, a subclass) is used through its pipeline, as the fault tests
rely on. These tests check that the kept connections behave like the client's own: every
commit lands, concurrent callers each get a connection, the connections go back to the pool
when the mock stops, and a server that lost its scripts gets them again.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import redis
from persist_support import REAL_HOST, REAL_PORT, PrivateRedis, qid, real_namespace, text

from sqsmock import FrozenClock, mock_sqs

T0 = 1_700_000_000.0


def _namespace() -> str:
    return f"sqsmock-test-{uuid.uuid4().hex}:"


def _stored_bodies(client: Any, namespace: str, name: str) -> list[str]:
    fields = client.hgetall(f"{namespace}q:{qid(name)}")
    return sorted(
        text(value).split('"body":"', 1)[1].split('"', 1)[0]
        for field, value in fields.items()
        if text(field).startswith("m:")
    )


@pytest.fixture
def plain() -> Iterator[tuple[redis.Redis, str]]:
    """A plain redis-py client of the real server, and a fresh namespace (dropped after)."""
    client = redis.Redis(host=REAL_HOST, port=REAL_PORT, socket_timeout=2)
    try:
        with real_namespace(client, _namespace()) as found:
            yield found
    finally:
        client.close()


def test_concurrent_commits_land_without_the_pipeline_and_connections_go_back(
    plain: tuple[redis.Redis, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, namespace = plain
    sqs = boto3.client("sqs", region_name="us-east-1")
    with mock_sqs(persistence=client, namespace=namespace, clock=FrozenClock(start=T0)):
        urls = [sqs.create_queue(QueueName=f"q{i}")["QueueUrl"] for i in range(4)]
        pipelines = 0
        original = redis.Redis.pipeline

        def counted(self: redis.Redis, *args: Any, **kwargs: Any) -> Any:
            nonlocal pipelines
            pipelines += 1
            return original(self, *args, **kwargs)

        monkeypatch.setattr(redis.Redis, "pipeline", counted)
        failures: list[BaseException] = []

        def send(url: str) -> None:
            try:
                for i in range(20):
                    sqs.send_message(QueueUrl=url, MessageBody=f"m{i:02d}")
                got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"]
                sqs.delete_message(QueueUrl=url, ReceiptHandle=got[0]["ReceiptHandle"])
            except BaseException as error:
                failures.append(error)

        threads = [threading.Thread(target=send, args=(url,)) for url in urls]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert failures == []
        assert pipelines == 0
        monkeypatch.undo()
    for i in range(4):
        bodies = _stored_bodies(client, namespace, f"q{i}")
        assert len(bodies) == 19 and set(bodies) < {f"m{n:02d}" for n in range(20)}
    assert not client.connection_pool._in_use_connections  # type: ignore[attr-defined]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[PrivateRedis]:
    private = PrivateRedis(tmp_path)
    private.start()
    try:
        yield private
    finally:
        private.kill()


@pytest.mark.slow
def test_a_server_that_lost_its_scripts_gets_them_again(server: PrivateRedis) -> None:
    namespace = _namespace()
    client = redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=2)
    sqs = boto3.client("sqs", region_name="us-east-1")
    with mock_sqs(persistence=client, namespace=namespace, clock=FrozenClock(start=T0)):
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="before")
        server.client().script_flush()  # this server is the test's own
        sqs.send_message(QueueUrl=url, MessageBody="after")
    assert _stored_bodies(server.client(), namespace, "q") == ["after", "before"]


@pytest.mark.parametrize("round_trip_ms", [0.0, 0.4, 3.0, 40.0])
@pytest.mark.parametrize("read_at", [0.0, 0.5, 1.0], ids=["read-first", "read-midway", "read-last"])
def test_a_commit_deadline_never_falls_after_the_client_gives_up(
    round_trip_ms: float, read_at: float
) -> None:
    """Wherever in the TIME round trip Redis read its clock, the deadline in Redis time is at
    least a millisecond before the moment the client gives up (the script compares whole
    milliseconds), so a write that timed out is refused."""
    from sqsmock._store.redis_store import clock_offset_ms

    ahead_ms = 1234.5678  # how far Redis's clock really is ahead of ours
    before = 1_700_000_000.25
    after = before + round_trip_ms / 1000
    read = before + (after - before) * read_at  # when Redis read its clock, in our time
    redis_ms = read * 1000 + ahead_ms
    seconds, micros = divmod(round(redis_ms * 1000), 1_000_000)
    offset = clock_offset_ms(before, seconds, micros, after)
    patience, now = 0.2, after + 5.0
    deadline = int(now * 1000 + offset + patience * 1000)  # as commit() sends it
    gives_up_redis_ms = (now + patience) * 1000 + ahead_ms
    assert deadline + 1 <= gives_up_redis_ms
