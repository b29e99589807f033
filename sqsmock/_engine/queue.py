"""A queue: the life of its messages, over the parts it is built from.

A queue holds

* ``config`` (``config.py``) -- its attributes and the values derived from them;
* ``log`` (``tombstone.py``) -- the messages, in slots with O(1) removal and stable indexes;
* ``schedule`` (``scheduler.py``) -- ready, timer and age heaps, so that no call scans the queue;
* ``journal`` (``write_through.py``) -- the write-through to a store, and the session (lock, reload,
  commit) every public method runs in;

and three counters (visible, in flight, delayed), kept on every transition, never recomputed.
The transitions themselves are this module's: a message is sent, received, has its visibility
changed, lapses, is deleted -- and each bumps its generation, which retires its older schedule
entries. Read-only snapshots are in ``views.py``; ``fifo.py`` subclasses the queue for message
groups and deduplication.

What no message call runs is in parts the queue inherits (mixins: a method found there costs
what one defined here does, and none of them imports this module):

* ``metadata.py`` -- attribute and tag changes, and the metadata record the store keeps;
* ``redrive.py`` -- moves between queues: dead-letter moves, and move tasks' take and arrival;
* ``restore.py`` -- rebuilding the queue from a stored record (only the queue knows its state);
* ``wakeups.py`` -- the long polls' wake-up functions (``add_waiter``, ``notify``).

There is no background thread: every call first applies the events that fell due up to
``clock.now()`` (``_advance``). All state is guarded by one lock per queue; its waiters are
woken (``_wake``) when a message is sent or becomes visible, or the clock moves.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .._errors import SqsError
from .._store import Op
from .arns import queue_arn
from .clock import Clock
from .config import QueueConfig
from .message import DELAYED, INFLIGHT, VISIBLE, Message, Received, key_of_id
from .metadata import Metadata
from .receipts import decode_receipt, new_receipt
from .redrive import Redrive, exhausted
from .restore import Restore
from .scheduler import Schedule
from .tombstone import TombstoneLog
from .views import MessageView, Page, page, snapshot
from .wakeups import Wakeups
from .write_through import Journal

__all__ = ["MAX_TOTAL_VISIBILITY", "Queue", "queue_arn"]

#: A message may stay invisible at most 12 hours after it was received.
MAX_TOTAL_VISIBILITY = 43200
#: Seconds between two PurgeQueue calls on one queue.
PURGE_COOLDOWN = 60.0
#: Messages a queue may have in flight; beyond it a short poll answers OverLimit.
MAX_INFLIGHT = 120_000


class Queue(Metadata, Redrive, Restore, Wakeups):
    """One SQS queue. Methods take the queue lock themselves; callers never hold it."""

    fifo = False
    #: FIFO: the deduplication scope, fixed at creation.
    dedup_scope: str | None = None
    #: Told of each event (``Backend.observer``): sent, received, deleted, dead-lettered.
    observe: Callable[[str, Queue | None, list[Message]], None] | None = None

    def __init__(
        self,
        name: str,
        region: str,
        account: str,
        clock: Clock,
        attributes: dict[str, str],
        tags: dict[str, str] | None = None,
        resolve: Callable[[str], Queue | None] | None = None,
    ) -> None:
        self.name = name
        self.qid = f"{region}/{account}/{name}"
        self._resolve = resolve
        self.region = region
        self.account = account
        self.arn = queue_arn(region, account, name)
        self.clock = clock
        self.lock = threading.Lock()
        #: Write-through to a store, once the backend attaches one (``journal.attach``).
        self.journal = Journal(self.qid, self.lock, self._rebuild)
        self._waiters: list[Callable[[], None]] = []
        now = clock.now()
        self.created_at = now
        self.last_modified = now
        self.last_purge: float | None = None
        self.tags: dict[str, str] = dict(tags or {})
        self.config = QueueConfig(attributes, fifo=self.fifo)
        self.closed = False  # the mock stopped: long polls end
        self.log: TombstoneLog[Message] = TombstoneLog()
        self.schedule: Schedule[Message] = Schedule()
        self._seq = 0
        self.n_visible = 0
        self.n_inflight = 0
        self.n_delayed = 0

    # -- attributes -------------------------------------------------------------------------

    @property
    def attributes(self) -> dict[str, str]:
        """The queue's attributes as set (or defaulted), as GetQueueAttributes shows them."""
        return self.config.attributes

    @property
    def maximum_message_size(self) -> int:
        return self.config.maximum_message_size

    @property
    def wait_time_seconds(self) -> int:
        return self.config.wait_time_seconds

    # -- sending ----------------------------------------------------------------------------

    def send(
        self, messages: Sequence[Message], delays: Sequence[int | None]
    ) -> list[tuple[str, str | None]]:
        """Enqueue ``messages``; ``delays[i]`` is the per-message delay or None (queue's).

        Returns (MessageId, SequenceNumber) per message -- for a FIFO duplicate, the original's.
        """
        with self.journal.session():
            now = self.clock.now()
            self._advance(now)
            out = []
            for i, message in enumerate(messages):  # (``zip(strict=True)`` parses keywords)
                delay = delays[i]
                message.sent_at = now
                wait = self.config.delay_seconds if delay is None else delay
                out.append(self._accept(message, now, wait))
            self._wake()
            if self.observe is not None:  # a FIFO duplicate was not enqueued: no slot
                sent = [m for m in messages if m.slot >= 0] if self.fifo else list(messages)
                self.observe("sent", self, sent)
            return out

    def _accept(self, m: Message, now: float, delay: int) -> tuple[str, str | None]:
        self._enqueue(m, now, delay)
        return m.message_id, None

    def _enqueue(self, m: Message, now: float, delay: int) -> None:
        self._seq += 1
        m.seq = self._seq
        m.gen = 0
        self.log.append(m)
        self.schedule.push_age(m)
        if delay > 0:
            m.state = DELAYED
            m.visible_at = now + delay
            self.n_delayed += 1
            self.schedule.push_timer(m, m.visible_at)
        else:
            self._make_visible(m)
        self.journal.record_message(m)

    def _make_visible(self, m: Message) -> None:
        m.state = VISIBLE
        self.n_visible += 1
        self.schedule.push_ready(m)

    # -- receiving --------------------------------------------------------------------------

    def receive(
        self,
        max_messages: int,
        visibility: int | None,
        attempt_id: str | None = None,
        *,
        polling: bool = False,
    ) -> list[Received]:
        """Up to ``max_messages`` messages available now; never waits.

        A long poll is the caller's loop around this (see ``add_waiter`` and ``next_due``), so
        the same engine serves threads and event loops. ``polling``: part of a long poll, where
        the in-flight limit answers empty instead of OverLimit.
        """
        vt = self.config.visibility_timeout if visibility is None else visibility
        dead: list[Message] = []
        journal = self.journal
        epoch = journal.reloads
        try:
            with journal.session():
                epoch = journal.reloads
                return self._receive(max_messages, vt, polling, attempt_id, dead)
        finally:
            if dead:
                self._dead_letter(dead, epoch)

    def _receive(
        self, max_messages: int, vt: int, polling: bool, attempt_id: str | None, dead: list[Message]
    ) -> list[Received]:
        now = self.clock.now()
        self._advance(now)
        if self.n_inflight >= MAX_INFLIGHT and self.n_visible:
            if not polling:
                raise SqsError("InFlightLimitReached", limit=MAX_INFLIGHT)
            return []
        return self._take(min(max_messages, MAX_INFLIGHT - self.n_inflight), vt, now, dead)

    def _wake(self) -> None:
        for wake in self._waiters:
            wake()

    def _take(self, max_messages: int, vt: int, now: float, dead: list[Message]) -> list[Received]:
        out: list[Received] = []
        pop = self.schedule.pop_ready
        policy = self.config.redrive
        while len(out) < max_messages:
            m = pop()
            if m is None:
                break
            if policy is not None and exhausted(policy, m, self._resolve, self):
                dead.append(self._take_out(m))
                continue
            out.append(self._deliver(m, vt, now))
        return out

    def _deliver(self, m: Message, vt: int, now: float) -> Received:
        """Hand ``m`` out: new receipt handle, in flight for ``vt`` seconds."""
        self.n_visible -= 1
        self.n_inflight += 1
        m.state = INFLIGHT
        m.gen += 1
        receipt = new_receipt(self.arn, m.message_id)
        self.log.mark_inflight(m.slot, receipt, m.receipt)
        count, first = m.received(now, receipt)
        m.visible_at = now + vt
        self.schedule.push_timer(m, m.visible_at)
        if self.observe is not None:
            self.observe("received", self, [m])
        self.journal.record_message(m)
        return Received(m, receipt, count, first, m.body, m.attributes)

    # -- deleting and visibility -------------------------------------------------------------

    def issued(self, receipt: str) -> bool:
        """Is ``receipt`` the current handle of a message in this queue? (Then this queue
        surely issued it: a caller need not decode it to tell.)"""
        return self.log.index_of_receipt(receipt) is not None

    def _lookup(self, receipt: str) -> tuple[Message | None, bool]:
        """The live message a handle names, and whether the handle is its current one."""
        slot = self.log.index_of_receipt(receipt)
        if slot is not None:
            return self.log.get(slot), True
        decoded = decode_receipt(receipt)
        slot = None if decoded is None else self.log.index_of_id(key_of_id(decoded[1]))
        return (None, False) if slot is None else (self.log.get(slot), False)

    def delete(self, receipts: Iterable[str]) -> list[str | None]:
        """Delete by receipt handle; per handle ``None`` (done) or a reason code.

        On a standard queue any handle of a live message deletes it, even one whose visibility
        lapsed or that was superseded by a later receive; a handle of a deleted message
        succeeds without effect.
        """
        results: list[str | None] = []
        with self.journal.session():
            self._advance(self.clock.now())
            for receipt in receipts:
                m, current = self._lookup(receipt)
                reason = None if m is None else self._deletable(m, current)
                if reason is None and m is not None:
                    if self.observe is not None:  # before the message lets go of its body
                        self.observe("deleted", self, [m])
                    self._remove(m)
                results.append(reason)
            self._wake()
        return results

    def _deletable(self, m: Message, current: bool) -> str | None:
        """Why this handle may not delete ``m`` (FIFO: ``"expired"``); None if it may."""
        return None

    def change_visibility(self, changes: Iterable[tuple[str, int]]) -> list[str | None]:
        """Per (receipt, timeout): ``None`` when applied (or the message is not in flight),
        else a reason code: ``"gone"`` (message deleted) or ``"limit"`` (12-hour cap).

        On a standard queue an older handle of a message received again since applies to the
        message, as SQS does; a FIFO queue heeds only the current handle."""
        results: list[str | None] = []
        with self.journal.session():
            now = self.clock.now()
            self._advance(now)
            woke = False
            for receipt, timeout in changes:
                m, current = self._lookup(receipt)
                if m is None:
                    results.append("gone")
                    continue
                if m.state != INFLIGHT or (self.fifo and not current):
                    results.append(None)  # accepted, no change
                    continue
                if now - m.received_at + timeout > MAX_TOTAL_VISIBILITY:
                    results.append("limit")
                    continue
                m.gen += 1
                if timeout <= 0:
                    self.n_inflight -= 1
                    m.visible_at = now
                    self._make_visible(m)
                    woke = True
                else:
                    m.visible_at = now + timeout
                    self.schedule.push_timer(m, m.visible_at)
                self.journal.record_message(m)
                results.append(None)
            if woke:
                self._wake()
            self._compact_schedule()
        return results

    def _remove(self, m: Message, record: bool = True) -> None:
        if m.state == VISIBLE:
            self.n_visible -= 1
        elif m.state == INFLIGHT:
            self.n_inflight -= 1
        else:
            self.n_delayed -= 1
        self.log.remove(m.slot, m.receipt)
        m.gen += 1
        if record:
            self.journal.record_delete(m)
        self._removed(m)
        m.release()  # stale heap entries may still name it: they must not keep its body
        self._compact_schedule()

    def _removed(self, m: Message) -> None:
        """Hook: ``m`` was removed from the queue."""

    def purge(self) -> None:
        """Drop every message; a second purge within 60 seconds is refused."""
        with self.journal.session():
            now = self.clock.now()
            if self.last_purge is not None and now - self.last_purge < PURGE_COOLDOWN:
                raise SqsError("PurgeQueueInProgress", name=self.name)
            self.last_purge = now
            self._clear()
            self.journal.record(Op("clear", self.qid, value=self._kept_on_purge()))
            self.journal.record_meta(self.meta_record)

    def _kept_on_purge(self) -> str:
        """What a purge keeps in the store (FIFO: its sequence counter)."""
        return ""

    def _clear(self) -> None:
        self.log.reset()
        self.schedule.clear()
        self.n_visible = self.n_inflight = self.n_delayed = 0

    # -- time -------------------------------------------------------------------------------

    def _advance(self, now: float) -> None:
        """Apply every event due by ``now``: delays and visibility timeouts end, retention."""
        schedule = self.schedule
        for m in schedule.pop_due(now):
            if m.state == INFLIGHT:
                self.n_inflight -= 1
            else:
                self.n_delayed -= 1
            m.gen += 1
            self._make_visible(m)
        for m in schedule.pop_expired(now - self.config.retention_period):
            self._remove(m)

    def _compact_schedule(self) -> None:
        """Rebuild a heap once its stale entries exceed the log's compaction threshold."""
        self.schedule.compact(
            self.n_visible, self.n_inflight + self.n_delayed, self.log.live_count()
        )

    # -- reading ----------------------------------------------------------------------------

    def counts(self) -> tuple[int, int, int]:
        """(visible, in flight, delayed), after applying due events."""
        with self.journal.session():
            self._advance(self.clock.now())
            return self.n_visible, self.n_inflight, self.n_delayed

    def peek(self) -> list[MessageView]:
        """Every live message in enqueue order, as of now, without changing anything (events
        that fell due but were not applied yet are reflected in the snapshot only)."""
        with self.lock:
            now = self.clock.now()
            return snapshot(self.log, now, now - self.config.retention_period)

    def peek_page(self, limit: int, after: int = 0, **options: Any) -> Page:
        """``peek()``, a page at a time: ``views.page``'s ``limit`` messages after ``after``."""
        with self.lock:
            now = self.clock.now()
            return page(self.log, now, now - self.config.retention_period, limit, after, **options)
