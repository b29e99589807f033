"""Write-through for a queue: gather its writes during a call, hand them to the store once.

``Journaled`` is mixed into ``Queue``. With no store attached, ``_ops`` is None and every
recording helper is a single ``is None`` test. With one, each public queue method runs in a
``_session()``: under the queue lock it first reloads the queue if an earlier write failed, then
does its work while the helpers append ``Op``s, then commits them in one go before the lock is
released -- so Redis sees one queue's changes in the order memory applied them.

If the commit fails, the queue (and any other queue the ops touched) is marked *stale*: memory
may be ahead of the store. The failed call raises; the next call on that queue reloads it from
the store first, so memory and store agree again and nothing is half-applied.
"""

from __future__ import annotations

import heapq
import json
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from .._errors import SqsError
from .._store import Op, QueueRecord, Store
from .message import DELAYED, INFLIGHT, VISIBLE, Message
from .records import decode_message, decode_meta, encode_message, encode_meta

if TYPE_CHECKING:
    from .clock import Clock
    from .tombstone import TombstoneLog

__all__ = ["Journaled"]


class _Session:
    """``with queue._session():`` -- the queue lock, a reload if stale, a commit on the way out.

    A small class rather than a generator-based context manager: it runs on every call.
    """

    __slots__ = ("queue",)

    def __init__(self, queue: Journaled) -> None:
        self.queue = queue

    def __enter__(self) -> None:
        queue = self.queue
        queue.lock.acquire()
        if queue.deleted:  # deleted between the lookup and now
            queue.lock.release()
            raise SqsError("QueueDoesNotExist")
        if queue.stale:
            try:
                queue._reload()
            except BaseException:
                queue.lock.release()
                raise

    def __exit__(self, *exc: object) -> None:
        queue = self.queue
        try:
            if queue._ops:
                if queue.deleted:  # deleted while this call ran: its writes go with the queue
                    queue._ops = []
                else:
                    queue._flush()
        finally:
            queue.lock.release()


class Journaled:
    """The persistence half of a queue (state and lock are the queue's)."""

    # Provided by Queue.
    name: str
    region: str
    account: str
    fifo: bool
    deleted: bool
    clock: Clock
    lock: threading.Lock
    attributes: dict[str, str]
    tags: dict[str, str]
    created_at: float
    last_modified: float
    last_purge: float | None
    retention_period: int
    log: TombstoneLog[Message]
    n_inflight: int
    n_delayed: int
    _timers: list[tuple[float, int, int, Message]]
    _by_age: list[tuple[float, int, Message]]
    _seq: int

    qid: str
    stale: bool
    #: How often the queue was reloaded from the store (moves compare it, see _dead_letter).
    reloads: int = 0
    _ops: list[Op] | None
    _store: Store | None
    _on_failure: Callable[[set[str]], None] | None

    def attach(self, store: Store | None, on_failure: Callable[[set[str]], None]) -> None:
        """Write through to ``store`` from now on; ``on_failure(qids)`` marks queues stale."""
        self._store = store
        self._ops = [] if store is not None else None
        self._on_failure = on_failure

    # -- the session ------------------------------------------------------------------------

    def _session(self) -> _Session:
        session = self.__dict__.get("_session_cm")
        if session is None:
            session = self.__dict__["_session_cm"] = _Session(self)
        return session

    def settle(self) -> None:
        """Reload now if an earlier write failed, so a read sees what the store holds."""
        if self.stale:
            with self._session():
                pass

    def _flush(self, ops: list[Op] | None = None) -> None:
        """Commit the gathered ops (and ``ops``); on failure mark what they touched stale."""
        pending = [*ops, *(self._ops or [])] if ops else (self._ops or [])
        if self._store is None or not pending:
            return
        self._ops = []
        try:
            self._store.commit(pending, self.qid)
        except BaseException:
            self.stale = True
            if self._on_failure is not None:
                self._on_failure({op.qid for op in pending if op.qid})
            raise

    # -- recording --------------------------------------------------------------------------

    def _record_message(self, m: Message) -> None:
        """``m`` arrived, or its delivery state changed: write its record."""
        if self._ops is not None:
            self._ops.append(Op("msg", self.qid, m.message_id, encode_message(m)))

    def _record_delete(self, m: Message) -> None:
        if self._ops is not None:
            self._ops.append(Op("del", self.qid, m.message_id))

    def _record_meta(self) -> None:
        if self._ops is not None:
            self._ops.append(Op("queue", self.qid, value=self.meta_record()))

    def _record(self, op: Op) -> None:
        if self._ops is not None:
            self._ops.append(op)

    def delete_ops(self, messages: list[Message]) -> list[Op]:
        """The ops that delete ``messages`` from the store (for moves committed elsewhere)."""
        if self._ops is None:
            return []
        return [Op("del", self.qid, m.message_id) for m in messages]

    def meta_record(self) -> str:
        return encode_meta(
            name=self.name,
            region=self.region,
            account=self.account,
            fifo=self.fifo,
            attributes=self.attributes,
            tags=self.tags,
            created=self.created_at,
            modified=self.last_modified,
            purged=self.last_purge,
            scope=getattr(self, "dedup_scope", None),
        )

    # -- loading ----------------------------------------------------------------------------

    def restore(self, record: QueueRecord) -> None:
        """Rebuild messages from a stored record (the queue must be empty).

        Time-driven transitions are applied as of now: a lapsed message is visible, one past
        retention is dropped (and deleted from the store at the next commit). Raises
        ``ValueError`` naming the message whose record is corrupted.
        """
        now = self.clock.now()
        messages: list[Message] = []
        for message_id, text in record.messages.items():
            try:
                m = decode_message(text)
                if m.message_id != message_id:
                    raise ValueError(f"the record is for message {m.message_id!r}")
            except (ValueError, TypeError) as error:
                raise ValueError(f"message {message_id!r}: {error}") from None
            messages.append(m)
        messages.sort(key=lambda m: m.seq)
        oldest = now - self.retention_period
        for m in messages:
            if m.sent_at <= oldest:
                self._record_delete(m)
                continue
            self._restore_message(m, now)
        self._seq = max((m.seq for m in messages), default=0)
        self._restored(record, now)

    def _restore_message(self, m: Message, now: float) -> None:
        m.gen = 0
        self.log.append(m)
        heapq.heappush(self._by_age, (m.sent_at, m.seq, m))
        if m.receipt is not None:
            self.log.mark_inflight(m.slot, m.receipt)
        if m.state != VISIBLE and m.visible_at > now:
            if m.state == INFLIGHT:
                self.n_inflight += 1
            else:
                m.state = DELAYED
                self.n_delayed += 1
            heapq.heappush(self._timers, (m.visible_at, m.seq, m.gen, m))
        else:
            self._make_visible(m)

    def _restored(self, record: QueueRecord, now: float) -> None:
        """Hook: every message is back (FIFO rebuilds groups, deduplication, sequence)."""

    def _make_visible(self, m: Message) -> None:
        raise NotImplementedError

    def _clear(self) -> None:
        raise NotImplementedError

    def _apply(self, attributes: dict[str, str]) -> None:
        raise NotImplementedError

    def _reload(self) -> None:
        """Replace memory with what the store holds (after a failed write)."""
        assert self._store is not None
        record = self._store.load_queue(self.qid)
        self.reloads += 1
        self._clear()
        self._ops = []
        if record is not None:
            try:
                meta = decode_meta(record.meta)
                self.attributes = dict(meta["attributes"])
                self._apply({})
                self.tags = dict(meta["tags"])
                self.last_modified = float(meta["modified"])
                self.last_purge = None if meta["purged"] is None else float(meta["purged"])
                self.restore(record)
            except (ValueError, KeyError, TypeError) as error:
                raise self._store.corrupted(f"queue {self.qid!r}: {error}") from None
        self.stale = False


def dedup_record(message_id: str, sequence_number: str | None, expires: float) -> str:
    return json.dumps([message_id, sequence_number, expires], separators=(",", ":"))
