"""The Redis store (a real server through redis-py, or fakeredis in-process).

Keys, under a namespace prefix ``P`` (default ``sqsmock:``); ``<qid>`` is ``region/account/name``:

    P:schema       string  "2"
    P:queues       hash    qid -> queue metadata (JSON)
    P:deleted      hash    qid -> when the queue was deleted (the 60-second rule)
    P:tasks        hash    task id -> message move task (JSON)
    P:q:<qid>      hash    m:<MessageId> -> the message: content and delivery state (JSON)
                           d:<deduplication key> -> [MessageId, SequenceNumber, expiry]
                           seq -> the FIFO SequenceNumber counter

Each SQS call's writes reach Redis in one round trip before the call returns: usually a single
command (one HSET or HDEL on the queue's hash -- a send, a receive or a delete of any number of
messages), otherwise one MULTI/EXEC transaction. A delete is an HDEL of the message's field.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from . import Op, QueueRecord, Snapshot
from .errors import PersistenceError

__all__ = ["SCHEMA", "RedisStore", "connect"]

SCHEMA = "2"
_MESSAGE = "m:"
_DEDUP = "d:"
_SEQUENCE = "seq"


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
        self.tasks_key = f"{namespace}tasks"
        self.schema_key = f"{namespace}schema"

    def queue_key(self, qid: str) -> str:
        return f"{self.namespace}q:{qid}"

    def _fail(self, doing: str, error: BaseException) -> PersistenceError:
        return PersistenceError(
            reason=f"Redis failed while {doing} (namespace {self.namespace!r}): "
            f"{type(error).__name__}: {error}"
        )

    # -- writing ----------------------------------------------------------------------------

    def commit(self, ops: Iterable[Op]) -> None:
        """Apply the ops atomically: one command when they touch one hash one way, else one
        MULTI/EXEC. Per key, a DEL comes first, then HDELs, then HSETs; a later op on a field
        overrides an earlier one."""
        sets: dict[str, dict[str, str]] = defaultdict(dict)
        dels: dict[str, dict[str, None]] = defaultdict(dict)
        drops: dict[str, None] = {}

        def put(key: str, name: str, value: str) -> None:
            sets[key][name] = value
            dels[key].pop(name, None)

        def remove(key: str, name: str) -> None:
            sets[key].pop(name, None)
            dels[key][name] = None

        def drop(key: str) -> None:
            sets.pop(key, None)
            dels.pop(key, None)
            drops[key] = None

        for op in ops:
            kind = op.kind
            if kind == "msg":
                put(self.queue_key(op.qid), _MESSAGE + op.key, op.value)
            elif kind == "del":
                remove(self.queue_key(op.qid), _MESSAGE + op.key)
            elif kind == "dedup":
                put(self.queue_key(op.qid), _DEDUP + op.key, op.value)
            elif kind == "undedup":
                remove(self.queue_key(op.qid), _DEDUP + op.key)
            elif kind == "sequence":
                put(self.queue_key(op.qid), _SEQUENCE, op.value)
            elif kind == "clear":  # purge: messages and deduplication entries go
                drop(self.queue_key(op.qid))
                if op.value:
                    put(self.queue_key(op.qid), _SEQUENCE, op.value)
            elif kind == "queue":
                put(self.queues_key, op.qid, op.value)
            elif kind == "drop":  # the queue is deleted
                drop(self.queue_key(op.qid))
                remove(self.queues_key, op.qid)
            elif kind == "deleted":
                put(self.deleted_key, op.qid, op.value)
            elif kind == "undeleted":
                remove(self.deleted_key, op.qid)
            elif kind == "task":
                put(self.tasks_key, op.key, op.value)
            else:
                raise ValueError(f"unknown store op {kind!r}")
        commands: list[tuple[str, str, Any]] = [("delete", key, None) for key in drops]
        commands += [("hdel", key, list(names)) for key, names in dels.items() if names]
        commands += [("hset", key, mapping) for key, mapping in sets.items() if mapping]
        if not commands:
            return
        try:
            pipe = self.client.pipeline(transaction=len(commands) > 1)
            for command, key, arguments in commands:
                if command == "delete":
                    pipe.delete(key)
                elif command == "hdel":
                    pipe.hdel(key, *arguments)
                else:
                    pipe.hset(key, mapping=arguments)
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
            pipe.hgetall(self.tasks_key)
            schema, queues, deleted, tasks = pipe.execute()
        except Exception as error:
            raise self._fail("loading", error) from error
        if schema is not None and _text(schema) != SCHEMA:
            raise PersistenceError(
                reason=f"{self.schema_key} is schema {_text(schema)!r}; this sqsmock reads "
                f"schema {SCHEMA!r}"
            )
        queues = _texts(queues)
        expected = {self.schema_key, self.queues_key, self.deleted_key, self.tasks_key}
        expected.update(self.queue_key(qid) for qid in queues)
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
            meta = self.client.hget(self.queues_key, qid)
        except Exception as error:
            raise self._fail("reloading a queue", error) from error
        if meta is None:
            return None
        record = self._read_queues([qid])[qid]
        record.meta = _text(meta)
        return record

    def _read_queues(self, qids: list[str]) -> dict[str, QueueRecord]:
        try:
            pipe = self.client.pipeline(transaction=False)
            for qid in qids:
                pipe.hgetall(self.queue_key(qid))
            results = pipe.execute()
        except Exception as error:
            raise self._fail("loading messages", error) from error
        return {qid: self._queue_record(qid, raw) for qid, raw in zip(qids, results, strict=True)}

    def _queue_record(self, qid: str, raw: dict[Any, Any]) -> QueueRecord:
        key = self.queue_key(qid)
        record = QueueRecord(meta="")
        for name, value in raw.items():
            try:
                field, text = _text(name), _text(value)
            except UnicodeDecodeError as error:
                raise self._corrupt(key, repr(name), f"not UTF-8 text ({error})") from None
            if field.startswith(_MESSAGE):
                record.messages[field[len(_MESSAGE) :]] = text
            elif field.startswith(_DEDUP):
                record.dedup[field[len(_DEDUP) :]] = text
            elif field == _SEQUENCE:
                try:
                    record.sequence = int(text)
                except ValueError:
                    raise self._corrupt(key, field, "not an integer") from None
            else:
                raise self._corrupt(key, field, "not a field sqsmock writes")
        return record

    def corrupted(self, reason: str) -> PersistenceError:
        return PersistenceError(
            reason=f"unreadable record under namespace {self.namespace!r}: {reason}"
        )

    def _corrupt(self, key: str, field: str, reason: str) -> PersistenceError:
        where = f"{key} field {field!r}" if field else key
        return PersistenceError(reason=f"corrupted record at {where}: {reason}")
