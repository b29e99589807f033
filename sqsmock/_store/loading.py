"""The Redis store's namespace read back: loading it, recognising its keys, wiping, migrating.

When a mock starts, ``load`` reads everything under the namespace in a few round trips, checks
that every key is one sqsmock wrote (a foreign or corrupted key is refused, naming it, rather
than misread), and migrates an older schema (``_migrate``); a queue whose write failed is read
back alone (``load_queue``). A namespace nested in this one (``app:`` and ``app:inner:``) is
recognised by its fixed keys and never read nor wiped as this one's.

This is the ``Loading`` part of ``RedisStore`` (``redis_store.py``), which inherits it; none of
it runs on an SQS call's usual path. This module imports no store: the store imports it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from . import QueueRecord, Snapshot
from .deadline import within
from .errors import PersistenceError
from .keys import (
    DEDUP,
    FIXED,
    MESSAGE,
    OLD_SCHEMAS,
    SCHEMA,
    SEQUENCE,
    STATE,
    as_text,
    as_texts,
    decode_qid,
    valid_qid,
)
from .lease import MARKER_FIELD

if TYPE_CHECKING:
    from .lease import Lease

__all__ = ["Loading"]


class Loading:
    """Reading the namespace back (``load``, ``load_queue``), and clearing it (``clear``)."""

    if TYPE_CHECKING:  # what this part uses of the store (``redis_store.py``)
        client: Any
        namespace: str
        timeout: float
        queues_key: str
        deleted_key: str
        tasks_key: str
        schema_key: str
        owner_key: str
        commits_key: str
        lease: Lease | None
        _last: dict[str, str]
        _schema_seen: bool

        def queue_key(self, qid: str) -> str: ...
        def settle(self) -> None: ...
        def _fail(self, doing: str, error: BaseException) -> PersistenceError: ...

    # -- the namespace's keys ---------------------------------------------------------------

    def clear(self) -> None:
        """Delete this namespace's keys (the lease stays: this activation still owns it)."""
        self.settle()
        try:
            keys = self._own_keys(include_owner=False)
            pipe = self.client.pipeline(transaction=True)
            if keys:
                pipe.delete(*keys)
            pipe.set(self.schema_key, SCHEMA)
            if self.lease is not None:  # this activation still took the lease last
                pipe.hset(self.commits_key, MARKER_FIELD, self.lease.token)
            pipe.execute()
        except Exception as error:
            raise self._fail("clearing the namespace", error) from error
        self._last.clear()
        self._schema_seen = True

    def _scan(self) -> set[str]:
        escaped = "".join("\\" + c if c in "*?[]\\" else c for c in self.namespace)
        return {as_text(k) for k in self.client.scan_iter(match=escaped + "*", count=1000)}

    def own(self, key: str) -> bool:
        """Is ``key`` one sqsmock writes for this namespace (fixed key or a queue's hash)?"""
        rest = key[len(self.namespace) :] if key.startswith(self.namespace) else None
        if rest is None:
            return False
        if rest in FIXED:
            return True
        return rest.startswith("q:") and decode_qid(rest[2:]) is not None

    def _own_keys(self, include_owner: bool = True) -> set[str]:
        """This namespace's keys: every key under its prefix -- its fixed keys, its queues'
        hashes, and anything else found there (a corrupted record, a key of an older format)
        -- but never those of another sqsmock namespace nested in it (``app:`` and
        ``app:inner:``), recognised by their fixed keys."""
        keys = self._scan()
        nested = self._nested(keys)
        keys = {key for key in keys if not any(key.startswith(prefix) for prefix in nested)}
        if not include_owner:
            keys.discard(self.owner_key)
        return keys

    # -- reading ----------------------------------------------------------------------------

    def _nested(self, keys: set[str]) -> list[str]:
        """Prefixes of other namespaces nested in this one ("X:" and "X:inner:"), recognised by
        their fixed keys (``X:inner:schema``, ``X:inner:owner`` ...)."""
        nested = []
        for key in keys:
            if self.own(key):
                continue
            for suffix in ("schema", "owner"):
                if key.endswith(suffix) and len(key) > len(self.namespace) + len(suffix):
                    nested.append(key[: -len(suffix)])
        return nested

    def load(self) -> Snapshot:
        """Everything under the namespace. Each round trip waits the time-out at most, not
        the load as a whole: a large namespace takes longer than one call's write."""
        self.settle()
        try:
            keys = self._scan()
            pipe = self.client.pipeline(transaction=False)
            pipe.get(self.schema_key)
            pipe.hgetall(self.queues_key)
            pipe.hgetall(self.deleted_key)
            pipe.hgetall(self.tasks_key)
            pipe.hgetall(self.commits_key)
            schema, queues, deleted, tasks, commits = pipe.execute()
        except Exception as error:
            raise self._fail("loading", error) from error
        nested = self._nested(keys)
        keys = {key for key in keys if not any(key.startswith(prefix) for prefix in nested)}
        if schema is not None and as_text(schema) in OLD_SCHEMAS:
            keys = self._migrate(keys, as_texts(queues))
            schema = SCHEMA
        if schema is not None and as_text(schema) != SCHEMA:
            raise PersistenceError(
                reason=f"{self.schema_key} is schema {as_text(schema)!r}; this sqsmock reads "
                f"schema {SCHEMA!r}"
            )
        queues = as_texts(queues)
        expected = {
            self.schema_key,
            self.queues_key,
            self.deleted_key,
            self.tasks_key,
            self.owner_key,
            self.commits_key,
        }
        expected.update(self.queue_key(qid) for qid in queues)
        foreign = sorted(keys - expected)
        if foreign:
            raise PersistenceError(
                reason=f"key {foreign[0]!r} under the namespace {self.namespace!r} is not one "
                "sqsmock wrote (a foreign or corrupted key); use another namespace or remove it"
            )
        snapshot = Snapshot(tasks=as_texts(tasks))
        for qid, when in as_texts(deleted).items():
            try:
                moment = float(when)
            except ValueError:
                moment = math.nan
            if not math.isfinite(moment) or moment < 0 or not valid_qid(qid):
                raise self._corrupt(self.deleted_key, qid, f"not a deleted queue's time ({when!r})")
            snapshot.deleted[qid] = moment
        self._last = as_texts(commits)
        records = self._read_queues(list(queues))
        for qid, meta in queues.items():
            record = records[qid]
            record.meta = meta
            snapshot.queues[qid] = record
        if schema is None and (queues or snapshot.deleted or snapshot.tasks):
            raise PersistenceError(reason=f"{self.schema_key} is missing: not an sqsmock store")
        if schema is None:
            self._write_schema()
        self._schema_seen = True  # from now on, commits check that it is still there
        return snapshot

    def _migrate(self, keys: set[str], queues: dict[str, str]) -> set[str]:
        """Schema 2 -> 3. Schema 2 put a queue id in its key as it was, so a region holding
        ``:`` (or ``%``) made a key the loader misread; schema 3 percent-encodes those
        (``encode_qid``). Every id AWS allows is the same in both. The hash of each stored
        queue (known from ``P:queues``, which holds ids as they are) is renamed to its new
        key; other schema-2 queue keys that no stored queue owns and whose id held ``:`` --
        left behind by a reset or DeleteQueue of such a queue -- are deleted. Returns the keys
        as they are now."""
        prefix = self.namespace + "q:"
        renames = {}
        for qid in queues:
            old, new = prefix + qid, self.queue_key(qid)
            if old != new and old in keys:
                renames[old] = new
        kept = set(renames.values()) | {self.queue_key(qid) for qid in queues}
        orphans = [
            key
            for key in keys
            if key.startswith(prefix)
            and key not in renames
            and key not in kept
            and ":" in key[len(prefix) :]
        ]
        try:
            pipe = self.client.pipeline(transaction=True)
            for old, new in renames.items():
                pipe.rename(old, new)
            if orphans:
                pipe.delete(*orphans)
            pipe.set(self.schema_key, SCHEMA)
            pipe.execute()
        except Exception as error:
            raise self._fail("migrating the namespace to schema " + SCHEMA, error) from error
        return (keys - set(renames) - set(orphans)) | set(renames.values())

    def _write_schema(self) -> None:
        try:
            self.client.set(self.schema_key, SCHEMA)
        except Exception as error:
            raise self._fail("writing the schema marker", error) from error

    def load_queue(self, qid: str) -> QueueRecord | None:
        with within(self.timeout):
            return self._load_queue(qid)

    def _load_queue(self, qid: str) -> QueueRecord | None:
        self.settle()
        try:
            meta = self.client.hget(self.queues_key, qid)
        except Exception as error:
            raise self._fail("reloading a queue", error) from error
        if meta is None:
            return None
        record = self._read_queues([qid])[qid]
        record.meta = as_text(meta)
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
                field, text = as_text(name), as_text(value)
            except UnicodeDecodeError as error:
                raise self._corrupt(key, repr(name), f"not UTF-8 text ({error})") from None
            if field.startswith(MESSAGE):
                record.messages[field[len(MESSAGE) :]] = text
            elif field.startswith(DEDUP):
                record.dedup[field[len(DEDUP) :]] = text
            elif field.startswith(STATE):
                record.state[field[len(STATE) :]] = text
            elif field == SEQUENCE:
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
