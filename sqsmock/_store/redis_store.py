"""The Redis store (a real server through redis-py, or fakeredis in-process).

Keys, under a namespace prefix ``P`` (default ``sqsmock:``); ``<qid>`` is ``region/account/name``:

    P:schema                 string  "1"
    P:queues                 hash    qid -> queue metadata (JSON)
    P:deleted                hash    qid -> when the queue was deleted (the 60-second rule)
    P:sequence               hash    qid -> last FIFO SequenceNumber counter
    P:tasks                  hash    task id -> message move task (JSON)
    P:q:<qid>:messages       hash    MessageId -> message content (JSON, immutable)
    P:q:<qid>:state          hash    MessageId -> delivery state (JSON)
    P:q:<qid>:dedup          hash    deduplication key -> [MessageId, SequenceNumber, expiry]

Every SQS call's writes go in one MULTI/EXEC transaction (one round trip); a delete is an HDEL in
it, so once the call returns the message is gone from Redis too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from . import Op, QueueRecord, Snapshot
from .errors import PersistenceError

__all__ = ["SCHEMA", "RedisStore", "connect"]

SCHEMA = "1"


def connect(persistence: Any) -> Any:
    """A redis-py client from the ``persistence=`` option (a client or a ``redis://`` URL)."""
    if isinstance(persistence, str):
        try:
            import redis
        except ImportError:  # pragma: no cover - depends on the environment
            raise PersistenceError(
                reason="persistence by URL needs redis-py: pip install 'sqsmock[redis]'"
            ) from None
        return redis.Redis.from_url(persistence)
    if not all(hasattr(persistence, name) for name in ("pipeline", "hgetall", "scan_iter")):
        raise TypeError(
            "persistence must be a redis.Redis (or fakeredis) client or a redis:// URL, "
            f"not {persistence!r}"
        )
    return persistence


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _texts(mapping: dict[Any, Any]) -> dict[str, str]:
    return {_text(k): _text(v) for k, v in mapping.items()}


class RedisStore:
    """sqsmock state in one Redis database, under one namespace prefix."""

    def __init__(self, client: Any, namespace: str = "sqsmock:") -> None:
        if not namespace:
            raise ValueError("the persistence namespace must not be empty")
        self.client = client
        self.namespace = namespace
        self.queues_key = f"{namespace}queues"
        self.deleted_key = f"{namespace}deleted"
        self.sequence_key = f"{namespace}sequence"
        self.tasks_key = f"{namespace}tasks"
        self.schema_key = f"{namespace}schema"

    def _queue_keys(self, qid: str) -> tuple[str, str, str]:
        base = f"{self.namespace}q:{qid}:"
        return base + "messages", base + "state", base + "dedup"

    def _fail(self, doing: str, error: BaseException) -> PersistenceError:
        return PersistenceError(
            reason=f"Redis failed while {doing} (namespace {self.namespace!r}): "
            f"{type(error).__name__}: {error}"
        )

    # -- writing ----------------------------------------------------------------------------

    def commit(self, ops: Iterable[Op]) -> None:
        """All ops in one MULTI/EXEC: hash writes grouped per key, deletes after writes."""
        sets: dict[str, dict[str, str]] = defaultdict(dict)
        dels: dict[str, list[str]] = defaultdict(list)
        drops: list[str] = []
        for op in ops:
            kind, qid = op.kind, op.qid
            if kind == "msg":
                messages, state, _ = self._queue_keys(qid)
                sets[messages][op.key] = op.value
                sets[state][op.key] = op.extra
            elif kind == "state":
                sets[self._queue_keys(qid)[1]][op.key] = op.value
            elif kind == "del":
                messages, state, _ = self._queue_keys(qid)
                for key in (messages, state):
                    sets[key].pop(op.key, None)
                    dels[key].append(op.key)
            elif kind == "dedup":
                sets[self._queue_keys(qid)[2]][op.key] = op.value
            elif kind == "undedup":
                sets[self._queue_keys(qid)[2]].pop(op.key, None)
                dels[self._queue_keys(qid)[2]].append(op.key)
            elif kind == "sequence":
                sets[self.sequence_key][qid] = op.value
            elif kind == "queue":
                sets[self.queues_key][qid] = op.value
            elif kind == "clear":  # purge: every message and the deduplication cache
                for key in self._queue_keys(qid):
                    sets.pop(key, None)
                    dels.pop(key, None)
                    drops.append(key)
            elif kind == "drop":  # the queue is deleted
                for key in self._queue_keys(qid):
                    sets.pop(key, None)
                    dels.pop(key, None)
                    drops.append(key)
                for key in (self.queues_key, self.sequence_key):
                    sets[key].pop(qid, None)
                    dels[key].append(qid)
            elif kind == "deleted":
                sets[self.deleted_key][qid] = op.value
            elif kind == "undeleted":
                sets[self.deleted_key].pop(qid, None)
                dels[self.deleted_key].append(qid)
            elif kind == "task":
                sets[self.tasks_key][op.key] = op.value
            else:
                raise ValueError(f"unknown store op {kind!r}")
        try:
            pipe = self.client.pipeline(transaction=True)
            if drops:
                pipe.delete(*drops)
            for key, fields in dels.items():
                if fields:
                    pipe.hdel(key, *fields)
            for key, mapping in sets.items():
                if mapping:
                    pipe.hset(key, mapping=mapping)
            pipe.execute()
        except Exception as error:
            raise self._fail("writing", error) from error

    def clear(self) -> None:
        """Delete this namespace's keys (not those of a namespace nested inside it)."""
        try:
            keys = self._own_keys()
            pipe = self.client.pipeline(transaction=True)
            if keys:
                pipe.delete(*keys)
            pipe.set(self.schema_key, SCHEMA)
            pipe.execute()
        except Exception as error:
            raise self._fail("clearing the namespace", error) from error

    def _own_keys(self) -> set[str]:
        """Every key under the namespace, except those of another sqsmock namespace that starts
        with this one (``X:`` and ``X:inner:``): such a namespace is recognised by its own
        schema key and left alone."""
        escaped = "".join("\\" + c if c in "*?[]\\" else c for c in self.namespace)
        keys = {_text(k) for k in self.client.scan_iter(match=escaped + "*", count=1000)}
        nested = {
            key[: -len("schema")]
            for key in keys
            if key.endswith("schema") and key != self.schema_key
        }
        return {key for key in keys if not any(key.startswith(prefix) for prefix in nested)}

    # -- reading ----------------------------------------------------------------------------

    def load(self) -> Snapshot:
        try:
            keys = self._own_keys()
            pipe = self.client.pipeline(transaction=False)
            pipe.get(self.schema_key)
            pipe.hgetall(self.queues_key)
            pipe.hgetall(self.deleted_key)
            pipe.hgetall(self.sequence_key)
            pipe.hgetall(self.tasks_key)
            schema, queues, deleted, sequences, tasks = pipe.execute()
        except Exception as error:
            raise self._fail("loading", error) from error
        if schema is not None and _text(schema) != SCHEMA:
            raise PersistenceError(
                reason=f"{self.schema_key} is schema {_text(schema)!r}; this sqsmock reads "
                f"schema {SCHEMA!r}"
            )
        queues, sequences = _texts(queues), _texts(sequences)
        expected = {
            self.schema_key,
            self.queues_key,
            self.deleted_key,
            self.sequence_key,
            self.tasks_key,
        }
        for qid in queues:
            expected.update(self._queue_keys(qid))
        foreign = sorted(keys - expected)
        if foreign:
            raise PersistenceError(
                reason=f"key {foreign[0]!r} under the namespace {self.namespace!r} is not one "
                "sqsmock wrote (a foreign or corrupted key); use another namespace or remove it"
            )
        snapshot = Snapshot(tasks=_texts(tasks))
        for qid, when in _texts(deleted).items():
            try:
                snapshot.deleted[qid] = float(when)
            except ValueError:
                raise self._corrupt(self.deleted_key, qid, "not a number") from None
        records = self._read_queues(list(queues))
        for qid, meta in queues.items():
            record = records[qid]
            record.meta = meta
            record.sequence = self._sequence(sequences.get(qid))
            snapshot.queues[qid] = record
        if schema is None and (queues or snapshot.deleted or snapshot.tasks):
            raise PersistenceError(reason=f"{self.schema_key} is missing: not an sqsmock store")
        if schema is None:
            self._write_schema()
        return snapshot

    def _write_schema(self) -> None:
        try:
            self.client.set(self.schema_key, SCHEMA)
        except Exception as error:
            raise self._fail("writing the schema marker", error) from error

    def load_queue(self, qid: str) -> QueueRecord | None:
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.hget(self.queues_key, qid)
            pipe.hget(self.sequence_key, qid)
            meta, sequence = pipe.execute()
        except Exception as error:
            raise self._fail("reloading a queue", error) from error
        if meta is None:
            return None
        record = self._read_queues([qid])[qid]
        record.meta = _text(meta)
        record.sequence = self._sequence(None if sequence is None else _text(sequence))
        return record

    def _read_queues(self, qids: list[str]) -> dict[str, QueueRecord]:
        try:
            pipe = self.client.pipeline(transaction=False)
            for qid in qids:
                for key in self._queue_keys(qid):
                    pipe.hgetall(key)
            results = pipe.execute()
        except Exception as error:
            raise self._fail("loading messages", error) from error
        out: dict[str, QueueRecord] = {}
        for i, qid in enumerate(qids):
            hashes = [
                self._decoded(key, results[3 * i + j])
                for j, key in enumerate(self._queue_keys(qid))
            ]
            out[qid] = QueueRecord(meta="", contents=hashes[0], states=hashes[1], dedup=hashes[2])
        return out

    def _decoded(self, key: str, mapping: dict[Any, Any]) -> dict[str, str]:
        try:
            return _texts(mapping)
        except UnicodeDecodeError:
            for field, value in mapping.items():
                try:
                    _text(field)
                    _text(value)
                except UnicodeDecodeError as error:
                    raise self._corrupt(key, repr(field), f"not UTF-8 text ({error})") from None
            raise

    def _sequence(self, value: str | None) -> int:
        if value is None:
            return 0
        try:
            return int(value)
        except ValueError:
            raise self._corrupt(self.sequence_key, "", "not an integer") from None

    def corrupted(self, reason: str) -> PersistenceError:
        return PersistenceError(
            reason=f"unreadable record under namespace {self.namespace!r}: {reason}"
        )

    def _corrupt(self, key: str, field: str, reason: str) -> PersistenceError:
        where = f"{key} field {field!r}" if field else key
        return PersistenceError(reason=f"corrupted record at {where}: {reason}")
