"""Memory brought to what the store holds: loading at start, late writes, a regained lease.

A backend with a store rebuilds every queue from it when a mock starts (``load``). Later, two
rare events make memory and the store disagree: a commit that raised but reached Redis (its
reply was lost: ``_reconcile`` takes it in), and a lease that lapsed and was taken back
(``_resync`` reloads everything). None of this runs on a call's usual path -- ``Backend.tick``
calls in only when the store says so -- so it is the ``StoreSync`` part of ``Backend``, which
inherits it; this module imports no backend.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .._store import Op, QueueRecord, Snapshot, Store
from .fifo import FifoQueue
from .queue import Queue
from .records import decode_meta

if TYPE_CHECKING:
    from .clock import Clock
    from .gate import Gate
    from .move_tasks import MoveTasks

__all__ = ["Key", "StoreSync", "key_of"]

#: A queue's place in the registry: (region, account, name).
Key = tuple[str, str, str]


def key_of(qid: str) -> Key:
    region, account, name = qid.rsplit("/", 2)  # a name and an account hold no "/"
    return region, account, name


class StoreSync:
    """Loading the backend from its store, and catching up with it after a failure."""

    if TYPE_CHECKING:  # what this part uses of the backend (``backend.py``)
        clock: Clock
        store: Store | None
        move_tasks: MoveTasks
        _lock: threading.Lock
        _queues: dict[Key, Queue]
        _deleted: dict[Key, float]
        _gate: Gate

        def _make(
            self,
            region: str,
            account: str,
            name: str,
            fifo: bool,
            attributes: dict[str, str],
            tags: dict[str, str],
        ) -> Queue: ...
        def _new_move_tasks(self) -> MoveTasks: ...

    def mark_stale(self, qids: set[str]) -> None:
        """A write touching these queues failed: each reloads from the store on its next use."""
        for qid in qids:
            queue = self._queues.get(key_of(qid))
            if queue is not None:
                queue.stale = True

    def load(self, snapshot: Snapshot) -> None:
        """Rebuild queues, messages, deleted names and move tasks from the store.

        Raises ValueError naming the record that is corrupted.
        """
        for qid, record in snapshot.queues.items():
            self._queues[key_of(qid)] = self._build(qid, record)
        for qid, when in snapshot.deleted.items():
            self._deleted[key_of(qid)] = when
        self.move_tasks.restore(snapshot.tasks)
        for queue in self._queues.values():
            with queue.lock:
                queue.journal.flush()  # retention that lapsed while nobody was running

    def _build(self, qid: str, record: QueueRecord) -> Queue:
        """A queue rebuilt from its stored record; ValueError names what is corrupted."""
        try:
            meta = decode_meta(record.meta)
            if (meta["region"], meta["account"], meta["name"]) != key_of(qid):
                raise ValueError("its metadata names another queue")
            queue = self._make(
                meta["region"],
                meta["account"],
                meta["name"],
                meta["fifo"],
                dict(meta["attributes"]),
                dict(meta["tags"]),
            )
            queue.created_at = float(meta["created"])
            queue.last_modified = float(meta["modified"])
            queue.last_purge = None if meta["purged"] is None else float(meta["purged"])
            if isinstance(queue, FifoQueue) and meta.get("scope"):
                queue.dedup_scope = meta["scope"]  # as created, whatever the attribute says
            queue.restore(record)
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"queue {qid!r}: {error}") from None
        return queue

    def _resync(self, snapshot: Snapshot) -> None:
        """The store was regained after its lease lapsed: every queue reloads from it before
        its next call, queues it no longer holds go, queues it holds that memory lacks come,
        and the deleted names and move tasks are its own."""
        with self._gate.exclusive():
            with self._lock:
                current = dict(self._queues)
            stored = {key_of(qid): qid for qid in snapshot.queues}
            for key, queue in current.items():
                if key in stored:
                    queue.stale = True
                    continue
                with queue.lock:
                    queue.drop()
                with self._lock:
                    if self._queues.get(key) is queue:
                        del self._queues[key]
                queue.notify()
            for key, qid in stored.items():
                if key not in current:
                    rebuilt = self._build(qid, snapshot.queues[qid])
                    with self._lock:
                        self._queues.setdefault(key, rebuilt)
            with self._lock:
                self._deleted = {key_of(qid): when for qid, when in snapshot.deleted.items()}
            tasks = self._new_move_tasks()
            tasks.restore(snapshot.tasks)
            self.move_tasks = tasks

    def _reconcile(self, late: list[list[Op]]) -> None:
        """Memory takes in commits that raised but reached the store (a reply lost after Redis
        applied the write): queues are reloaded, created or dropped as the store says."""
        assert self.store is not None
        with self._gate.shared():
            for ops in late:
                self._reconcile_one(ops)

    def _reconcile_one(self, ops: list[Op]) -> None:
        """Bring memory to what the store holds for the records ``ops`` touched."""
        assert self.store is not None
        for op in ops:
            if op.kind == "task":
                self.move_tasks.apply_record(op.value)
            elif op.kind in ("deleted", "undeleted"):
                with self._lock:
                    if op.kind == "deleted":
                        self._deleted[key_of(op.qid)] = float(op.value)
                    else:
                        self._deleted.pop(key_of(op.qid), None)
        for qid in sorted({op.qid for op in ops if op.qid}):
            record = self.store.load_queue(qid)
            key = key_of(qid)
            with self._lock:
                queue = self._queues.get(key)
            if queue is None and record is not None:
                rebuilt = self._build(qid, record)
                with self._lock:
                    self._queues.setdefault(key, rebuilt)
            elif queue is not None and record is None:
                with queue.lock:
                    queue.drop()
                with self._lock:
                    if self._queues.get(key) is queue:
                        del self._queues[key]
                queue.notify()
            elif queue is not None:
                queue.stale = True
