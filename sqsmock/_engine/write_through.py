"""Write-through for a queue: gather its writes during a call, hand them to the store once.

Each queue holds a ``Journal``, given what it needs: the queue's id (its commit channel), its
lock, and a function that rebuilds the queue from a stored record. ``attach`` gives it a store
and the function that marks queues stale when a write fails. With no store, ``ops`` is None and
every ``record_*`` method is a single ``is None`` test. With one, each public queue method runs in
a ``session()``: under the queue lock it first reloads the queue if an earlier write failed, then
does its work while the queue records ``Op``s here, then commits them in one go before the lock
is released -- so the store sees one queue's changes in the order memory applied them.

If the commit fails, the queue (and any other queue the ops touched) is marked *stale*: memory
may be ahead of the store. The failed call raises; the next call on that queue reloads it from
the store first, so memory and store agree again and nothing is half-applied. Whether a failed
write may still land, and how the store decides (fencing, leases), is the store's business: a
commit either applies or raises, never both (see docs/persistence.md).

A dropped journal (the queue was deleted) refuses new sessions with QueueDoesNotExist and
discards writes gathered by a call under way: they go with the queue.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .._errors import SqsError
from .._store import Op, QueueRecord, Store
from .message import Message
from .records import encode_message

__all__ = ["Journal"]


class _Session:
    """``with journal.session():`` -- the queue lock, a reload if stale, a commit on the way out.

    A small class rather than a generator-based context manager: it runs on every call.
    """

    __slots__ = ("journal",)

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def __enter__(self) -> None:
        journal = self.journal
        journal.lock.acquire()
        if journal.dropped:  # deleted between the lookup and now
            journal.lock.release()
            raise SqsError("QueueDoesNotExist")
        if journal.stale:
            try:
                journal.reload()
            except BaseException:
                journal.lock.release()
                raise

    def __exit__(self, *exc: object) -> None:
        journal = self.journal
        try:
            if journal.ops:
                if journal.dropped:  # deleted while this call ran: its writes go with the queue
                    journal.ops = []
                else:
                    journal.flush()
        finally:
            journal.lock.release()


class Journal:
    """The write-through of one queue: its pending ``Op``s, its session, its stale flag."""

    __slots__ = (
        "_rebuild",
        "_session",
        "dropped",
        "lock",
        "on_failure",
        "ops",
        "qid",
        "reloads",
        "stale",
        "store",
    )

    def __init__(
        self, qid: str, lock: threading.Lock, rebuild: Callable[[QueueRecord | None], None]
    ) -> None:
        """``rebuild(record)`` replaces the queue's memory with a stored record (None: the
        store holds no such queue); it raises ValueError, KeyError or TypeError on a record it
        cannot read."""
        self.qid = qid
        self.lock = lock
        self._rebuild = rebuild
        self._session = _Session(self)
        self.store: Store | None = None
        #: Writes gathered by the call under way (None: no store, nothing is recorded).
        self.ops: list[Op] | None = None
        self.on_failure: Callable[[set[str]], None] | None = None
        #: Memory may be ahead of the store (a write failed): the next session reloads.
        self.stale = False
        #: The queue was deleted: sessions are refused.
        self.dropped = False
        #: How often the queue was reloaded from the store (moves compare it before and after
        #: taking messages: a reload in between may have brought them back).
        self.reloads = 0

    def attach(self, store: Store | None, on_failure: Callable[[set[str]], None]) -> None:
        """Write through to ``store`` from now on; ``on_failure(qids)`` marks queues stale."""
        self.store = store
        self.ops = [] if store is not None else None
        self.on_failure = on_failure

    # -- the session ------------------------------------------------------------------------

    def session(self) -> _Session:
        return self._session

    def settle(self) -> None:
        """Reload now if an earlier write failed, so a read sees what the store holds."""
        if self.stale:
            with self._session:
                pass

    def reload(self) -> None:
        """Replace the queue's memory with what the store holds (after a failed write); the
        caller holds the queue lock."""
        assert self.store is not None
        record = self.store.load_queue(self.qid)
        self.reloads += 1
        self.ops = []
        try:
            self._rebuild(record)
        except (ValueError, KeyError, TypeError) as error:
            raise self.store.corrupted(f"queue {self.qid!r}: {error}") from None
        self.stale = False

    def drop(self) -> None:
        """The queue was deleted (the caller holds its lock): refuse later sessions, and let the
        writes of a call under way go with the queue."""
        self.dropped = True
        if self.ops:
            self.ops = []

    def flush(self, first: list[Op] | None = None) -> None:
        """Commit the gathered ops (after ``first``); on failure mark what they touched stale."""
        pending = [*first, *(self.ops or [])] if first else (self.ops or [])
        if self.store is None or not pending:
            return
        self.ops = []
        try:
            self.store.commit(pending, self.qid)
        except BaseException:
            self.stale = True
            if self.on_failure is not None:
                self.on_failure({op.qid for op in pending if op.qid})
            raise

    # -- recording --------------------------------------------------------------------------

    def record_message(self, m: Message) -> None:
        """``m`` arrived, or its delivery state changed: write its record."""
        if self.ops is not None:
            self.ops.append(Op("msg", self.qid, m.message_id, encode_message(m)))

    def record_delete(self, m: Message) -> None:
        if self.ops is not None:
            self.ops.append(Op("del", self.qid, m.message_id))

    def record_meta(self, meta: Callable[[], str]) -> None:
        """The queue's metadata changed: write ``meta()`` (only called with a store)."""
        if self.ops is not None:
            self.ops.append(Op("queue", self.qid, value=meta()))

    def record(self, op: Op) -> None:
        if self.ops is not None:
            self.ops.append(op)

    def delete_ops(self, messages: list[Message]) -> list[Op]:
        """The ops that delete ``messages`` from the store (for moves committed elsewhere)."""
        if self.ops is None:
            return []
        return [Op("del", self.qid, m.message_id) for m in messages]
