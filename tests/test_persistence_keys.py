"""Redis keys no input can break: any region, account or name round-trips through the store.

A queue id (``region/account/name``) is part of its hash's key; ``:`` is the namespace's
separator. Schema 3 percent-encodes ``%``, ``:``, space, control and non-ASCII characters of the
id in keys, so a region taken from a SigV4 scope (``a:b``) can no longer make the loader misread
a key. Schema 2 stores (every id AWS allows is spelled the same in both) are migrated on start;
``wipe`` removes whatever lies under a namespace, debris of the old format included.

Every test runs against fakeredis and the real Redis server.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import fakeredis
import pytest
from persist_support import ACCOUNT, REAL_HOST, REAL_PORT, Store, redis_client, text

import sqsmock
from sqsmock import FrozenClock, mock_sqs
from sqsmock._protocol import Call, Result
from sqsmock._store.redis_store import decode_qid, encode_qid

T0 = 1_700_000_000.0
REGIONS = ["a:b", "50%3A:x", "r é\x07\n", "a/b", "us-east-1/123456789012/q:q:"]


@pytest.fixture(params=["fakeredis", "redis"])
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    namespace = f"sqsmock-test-{uuid.uuid4().hex}:"
    if request.param == "fakeredis":
        server = fakeredis.FakeServer()
        yield Store(
            "fakeredis",
            fakeredis.FakeRedis(server=server),
            namespace,
            lambda: fakeredis.FakeRedis(server=server),
        )
        return
    client = redis_client(REAL_HOST, REAL_PORT)
    found = Store("redis", client, namespace, lambda: redis_client(REAL_HOST, REAL_PORT))
    try:
        yield found
    finally:
        found.drop()


def _mock(store: Store) -> sqsmock.MockSQS:
    return mock_sqs(
        persistence=store.client, namespace=store.namespace, clock=FrozenClock(start=T0)
    )


class _Region:
    """Calls made as a caller of ``region`` would make them (the region of a SigV4 scope)."""

    def __init__(self, mock: sqsmock.MockSQS, region: str) -> None:
        self.runtime = mock.runtime
        self.caller = Call(region, ACCOUNT)

    def __call__(self, operation: str, **params: Any) -> Result:
        return self.runtime.call(operation, params, self.caller)

    def url(self, name: str) -> str:
        result = self("GetQueueUrl", QueueName=name)
        assert result.payload is not None, result
        return str(result.payload["QueueUrl"])

    def bodies(self, name: str) -> list[str]:
        got = self("ReceiveMessage", QueueUrl=self.url(name), MaxNumberOfMessages=10)
        assert got.payload is not None, got
        return sorted(m["Body"] for m in got.payload.get("Messages", []))


def _fill(mock: sqsmock.MockSQS, region: str) -> None:
    call = _Region(mock, region)
    for name in ("q", "gone", "purged"):
        assert call("CreateQueue", QueueName=name).error is None
    call("SendMessage", QueueUrl=call.url("q"), MessageBody="kept")
    call("SendMessage", QueueUrl=call.url("purged"), MessageBody="purged")
    call("PurgeQueue", QueueUrl=call.url("purged"))
    call("DeleteQueue", QueueUrl=call.url("gone"))


@pytest.mark.parametrize("qid", [f"{r}/{ACCOUNT}/q" for r in REGIONS] + ["us-east-1/1/q"])
def test_queue_ids_encode_without_separators_and_decode_back(qid: str) -> None:
    encoded = encode_qid(qid)
    assert ":" not in encoded
    assert all(0x21 <= ord(c) < 0x7F for c in encoded)
    assert decode_qid(encoded) == qid


def test_ids_aws_allows_are_spelled_as_they_are() -> None:
    assert (
        encode_qid(f"eu-west-1/{ACCOUNT}/my_queue-1.fifo") == f"eu-west-1/{ACCOUNT}/my_queue-1.fifo"
    )
    assert decode_qid("a%3Ab/1/q") == "a:b/1/q"
    assert decode_qid("a%3ab/1/q") is None  # not how encode_qid spells it
    assert decode_qid("a:b/1/q") is None
    assert decode_qid("schema") is None


@pytest.mark.parametrize("region", REGIONS)
def test_any_region_survives_restart_delete_queue_and_reset(store: Store, region: str) -> None:
    with _mock(store) as mock:
        _fill(mock, region)
    with _mock(store) as mock:
        call = _Region(mock, region)
        assert call.bodies("q") == ["kept"]
        assert call.bodies("purged") == []
        again = call("CreateQueue", QueueName="gone")  # the 60-second rule was kept
        assert again.error is not None and again.error.shape == "QueueDeletedRecently"
        mock.reset()
    with _mock(store) as mock:
        call = _Region(mock, region)
        assert call("ListQueues").payload == {}
    assert store.key_names() <= {store.namespace + k for k in ("schema", "commits")}


@pytest.mark.parametrize("region", REGIONS)
def test_wipe_removes_every_key_of_any_region(store: Store, region: str) -> None:
    with _mock(store) as mock:
        _fill(mock, region)
    assert sqsmock.wipe(store.client, store.namespace) >= 3
    assert store.key_names() == set()


def _downgrade(store: Store) -> None:
    """Turn the namespace into what the previous version wrote: schema 2, every queue's hash
    under its id as it is."""
    ns, client = store.namespace, store.client
    for raw in client.hkeys(ns + "queues"):
        qid = text(raw)
        new = f"{ns}q:{encode_qid(qid)}"
        if new != f"{ns}q:{qid}" and client.exists(new):
            client.rename(new, f"{ns}q:{qid}")
    client.hdel(ns + "commits", "owner")
    client.set(ns + "schema", "2")


def test_a_schema_2_store_loads_and_is_migrated(store: Store) -> None:
    with _mock(store) as mock:
        _fill(mock, "us-east-1")
        _fill(mock, "a:b")
    _downgrade(store)
    assert f"{store.namespace}q:a:b/{ACCOUNT}/q" in store.key_names()
    with _mock(store) as mock:
        for region in ("us-east-1", "a:b"):
            assert _Region(mock, region).bodies("q") == ["kept"]
    assert text(store.client.get(store.namespace + "schema")) == "3"
    keys = store.key_names()
    assert f"{store.namespace}q:a%3Ab/{ACCOUNT}/q" in keys
    assert f"{store.namespace}q:us-east-1/{ACCOUNT}/q" in keys
    assert not any(":b/" in key for key in keys)


def test_debris_of_the_old_format_is_migrated_away_or_wiped(store: Store) -> None:
    """The previous version's reset left the hash of a queue whose region held ':' behind (it
    did not recognise the key as its own), and the next start failed on it."""
    ns, client = store.namespace, store.client
    with _mock(store) as mock:
        _fill(mock, "us-east-1")
    _downgrade(store)
    client.hset(f"{ns}q:a:b/{ACCOUNT}/q", "m:left-behind", "{}")
    with _mock(store) as mock:  # migrated: the debris is gone, the rest loads
        assert _Region(mock, "us-east-1").bodies("q") == ["kept"]
    assert f"{ns}q:a:b/{ACCOUNT}/q" not in store.key_names()
    # Whatever else lies under the namespace, wipe removes it.
    client.hset(f"{ns}q:a:b/{ACCOUNT}/q", "m:left-behind", "{}")
    client.set(f"{ns}q:not a queue", "x")
    client.set(f"{ns}stray", "x")
    with pytest.raises(sqsmock.PersistenceError, match="not one sqsmock wrote"):
        _mock(store).start()
    assert sqsmock.wipe(store.client, store.namespace) >= 4
    assert store.key_names() == set()
    with _mock(store) as mock:
        assert _Region(mock, "us-east-1")("ListQueues").payload == {}
