"""All queues of one mock activation, by region, account and name (and its SNS ``topics``).

Regions and accounts are separate namespaces. The backend owns the queue registry (guarded by
its own lock, held only for lookups and updates of the registry, never across a store write)
and the 60-second rule for re-creating a deleted queue. It wakes every queue's long polls when
the clock is advanced.

``observer``, when set, is told of what happens to messages -- ``"sent"``, ``"received"`` (handed
out by a receive), ``"deleted"`` (by DeleteMessage, not by expiry or a purge), ``"dead-lettered"``
(moved to a dead-letter queue) -- with the queue and the messages, and ``"ended"`` (no queue, no
message) when waits end because the mock stops. Queues call it with or without their lock held,
so it must be quick and must not call back into the engine; unset, an event costs one attribute
test.

With a store, creating and deleting a queue are written before memory changes (a failed write
changes nothing); one queue name's create and delete are serialised by a lock of their own (one
of ``NAME_LOCKS`` stripes), so a slow store delays only calls on that name. Loading from the
store, and catching up with it after a failure, is in ``sync.py`` (``StoreSync``, which the
backend inherits); the gate that lets a reset pass alone in ``gate.py``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable

from .._errors import SqsError
from .._store import Op, Store
from .arns import split_arn
from .clock import Clock
from .fifo import FifoQueue
from .gate import Gate
from .message import Message
from .move_tasks import MoveTasks
from .queue import Queue
from .sync import Key, StoreSync
from .topics import Topics

__all__ = ["QUEUE_DELETE_COOLDOWN", "Backend"]

log = logging.getLogger("sqsmock")

#: Seconds after DeleteQueue before the same name may be created again.
QUEUE_DELETE_COOLDOWN = 60.0

#: Create/DeleteQueue of one name are serialised by one of this many locks.
NAME_LOCKS = 64

#: ``observer(event, queue, messages)``: see the module's docstring.
Observer = Callable[[str, Queue | None, list[Message]], None]


class Backend(StoreSync):
    def __init__(self, clock: Clock, region: str, account: str, store: Store | None = None) -> None:
        self.clock = clock
        self.region = region
        self.account = account
        self.store = store
        self._lock = threading.Lock()
        self._queues: dict[Key, Queue] = {}
        self._deleted: dict[Key, float] = {}
        #: Seconds after DeleteQueue before the name may be created again: AWS's 60, or 0 in
        #: ElasticMQ mode (ElasticMQ lets a deleted queue be re-created at once).
        self.delete_cooldown = QUEUE_DELETE_COOLDOWN
        #: One namespace (ElasticMQ mode's server): an ARN names a queue by its name alone, in
        #: this backend's region and account, whatever region and account it spells.
        self.one_namespace = False
        #: ElasticMQ's ``sqs-limits = relaxed``: the service lifts the limits it names
        #: (docs/coming-from-elasticmq.md).
        self.relaxed_limits = False
        self._name_locks = [threading.Lock() for _ in range(NAME_LOCKS)]
        #: Creates and deletes pass it together; reset() passes it alone.
        self._gate = Gate()
        #: Bumped by reset(): a create or delete that wrote before a reset does not touch the
        #: registry after it.
        self._generation = 0
        self._observer: Observer | None = None
        self.move_tasks = self._new_move_tasks()
        #: SNS topics and subscriptions (in memory only, for now).
        self.topics = Topics()
        if store is not None:
            store.on_late = self.mark_stale
        clock.subscribe(self._wake_all)

    def _new_move_tasks(self) -> MoveTasks:
        store = self.store
        commit = None if store is None else (lambda ops: store.commit(ops, ""))
        return MoveTasks(self.by_arn, self.clock.now, commit)

    def _commit(self, ops: list[Op], channel: str) -> None:
        if self.store is not None:
            self.store.commit(ops, channel)

    def _name_lock(self, key: Key) -> threading.Lock:
        return self._name_locks[hash(key) % NAME_LOCKS]

    @property
    def observer(self) -> Observer | None:
        """Told of each message event (see the module's docstring); None: nobody listens."""
        return self._observer

    @observer.setter
    def observer(self, observer: Observer | None) -> None:
        self._observer = observer
        for queue in self.queues():
            queue.observe = observer

    def _make(
        self,
        region: str,
        account: str,
        name: str,
        fifo: bool,
        attributes: dict[str, str],
        tags: dict[str, str],
    ) -> Queue:
        kind = FifoQueue if fifo else Queue
        queue = kind(name, region, account, self.clock, attributes, tags, resolve=self.by_arn)
        queue.journal.attach(self.store, self.mark_stale)
        queue.observe = self._observer
        return queue

    def close(self) -> None:
        """The mock stopped: end waiting long polls (they answer empty), stop listening, and
        release the store (its namespace's lease)."""
        self.end_waits()
        if self.store is not None:
            self.store.close()

    def end_waits(self) -> None:
        """End waiting long polls (they answer empty), leaving the store open: a server that is
        stopping does this first, then lets the calls under way finish writing."""
        self.clock.unsubscribe(self._wake_all)
        for queue in self.queues():
            queue.closed = True  # not deleted: a call still under way writes through as usual
            queue.notify()
        if self._observer is not None:
            self._observer("ended", None, [])

    # -- lookups ----------------------------------------------------------------------------

    def get(self, region: str, account: str, name: str) -> Queue:
        queue = self._queues.get((region, account, name))
        if queue is None:
            raise self._missing(region, account, name)
        return queue

    def _missing(self, region: str, account: str, name: str) -> SqsError:
        """QueueDoesNotExist, in AWS's words; when a queue of that name lives in another region
        or account of this mock (a client in the wrong region is the commonest cause), the
        ``sqsmock`` logger says where, so a failing test's captured log points at it."""
        elsewhere = sorted((r, a) for r, a, n in list(self._queues) if n == name)
        if elsewhere:
            where = " and ".join(
                f"region {r}" if a == account else f"account {a} of region {r}"
                for r, a in elsewhere[:3]
            )
            log.warning(
                "QueueDoesNotExist: no queue %r in region %s, account %s; a queue of that name "
                "exists in %s: check the client's region and the queue URL's account",
                name,
                region,
                account,
                where,
            )
        return SqsError("QueueDoesNotExist")

    def by_arn(self, arn: str) -> Queue | None:
        found = split_arn(arn)
        if found is not None and self.one_namespace:
            found = (self.region, self.account, found[2])
        return None if found is None else self._queues.get(found)

    def matching(self, region: str, account: str, prefix: str = "") -> list[Queue]:
        """Queues of one region and account whose name starts with ``prefix``, sorted by name."""
        with self._lock:
            found = [
                q
                for (r, a, name), q in self._queues.items()
                if r == region and a == account and name.startswith(prefix)
            ]
        found.sort(key=lambda q: q.name)
        return found

    def queues(self) -> list[Queue]:
        with self._lock:
            return list(self._queues.values())

    # -- create / delete --------------------------------------------------------------------

    def create(
        self,
        region: str,
        account: str,
        name: str,
        *,
        fifo: bool,
        attributes: dict[str, str],
        tags: dict[str, str],
        existing: Callable[[Queue], None],
    ) -> Queue:
        """The queue ``name``: ``existing(queue)`` vets a queue that already exists (it raises
        QueueNameExists on a conflict), else a new queue is made."""
        key = (region, account, name)
        with self._gate.shared(), self._name_lock(key):
            with self._lock:
                queue = self._queues.get(key)
                if queue is not None:
                    existing(queue)
                    return queue
                deleted_at = self._deleted.get(key)
                if deleted_at is not None and self.clock.now() - deleted_at < self.delete_cooldown:
                    raise SqsError("QueueDeletedRecently")
                generation = self._generation
            queue = self._make(region, account, name, fifo, attributes, tags)
            self._commit(
                [Op("queue", queue.qid, value=queue.meta_record()), Op("undeleted", queue.qid)],
                queue.qid,
            )
            with self._lock:
                if generation != self._generation:  # reset meanwhile: the store was cleared
                    raise SqsError("QueueDoesNotExist")
                self._deleted.pop(key, None)
                self._queues[key] = queue
            return queue

    def delete(self, queue: Queue) -> None:
        key = (queue.region, queue.account, queue.name)
        with self._gate.shared(), self._name_lock(key):
            with self._lock:
                if self._queues.get(key) is not queue:
                    raise SqsError("QueueDoesNotExist")
            now = self.clock.now()
            with queue.lock:  # no call on the queue commits after its drop
                if queue.deleted:  # reset meanwhile
                    raise SqsError("QueueDoesNotExist")
                self._commit(
                    [Op("drop", queue.qid), Op("deleted", queue.qid, value=repr(now))], queue.qid
                )
                queue.drop()
            with self._lock:
                if self._queues.get(key) is queue:
                    del self._queues[key]
                    self._deleted[key] = now
        queue.notify()

    def reset(self) -> None:
        """Drop every queue (and the memory of deleted ones), in the store too.

        No create or delete runs meanwhile (the gate); the registry lock is not held while the
        store is cleared, so lookups and ListQueues go on answering.
        """
        with self._gate.exclusive():
            queues = self.queues()
            # Every queue lock, so that no call under way commits after the store is cleared.
            # Only reset holds more than one queue lock; calls hold one and wait for none.
            with contextlib.ExitStack() as locks:
                for queue in queues:
                    locks.enter_context(queue.lock)
                if self.store is not None:
                    self.store.clear()  # if this fails, nothing has changed
                for queue in queues:
                    queue.drop()
            with self._lock:
                self._queues.clear()
                self._deleted.clear()
                self._generation += 1
                self.move_tasks = self._new_move_tasks()
            self.topics.reset()
        for queue in queues:
            queue.notify()

    def tick(self) -> None:
        """Before every SQS call: take in writes found applied late, then catch time-driven
        work that spans queues (message move tasks) up to the clock."""
        store = self.store
        if store is not None:
            store.settle()  # nothing to do unless an earlier write's outcome is unknown
            if store.take_resync():
                self._resync(store.load())
            if store.late:
                self._reconcile(store.take_late())
        if self.move_tasks.active:
            self.move_tasks.run(wait=False)

    def dead_letter_sources(self, arn: str) -> list[Queue]:
        """Queues whose RedrivePolicy names ``arn``, sorted by name."""
        queues = self.queues()
        for queue in queues:
            queue.settle()
        found = [
            q for q in queues if q.config.redrive is not None and q.config.redrive.target_arn == arn
        ]
        found.sort(key=lambda q: q.name)
        return found

    def _wake_all(self) -> None:
        # advance() must not fail because a move task's write did: the next SQS call retries
        # the task (and reports the failure).
        with contextlib.suppress(Exception):
            self.move_tasks.run()
        for queue in self.queues():
            queue.notify()
