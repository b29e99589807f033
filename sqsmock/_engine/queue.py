"""A queue: metadata, and the message engine of a standard queue.

Storage is the ``TombstoneLog`` (O(1) removal, stable slots). On top of it the queue keeps three
heaps and three counters, so that no operation scans the queue:

* ``_ready``  -- visible messages by enqueue order: receive pops k of them, O(k log n). A message
  whose visibility lapses goes back with its original sequence, i.e. to its old place.
* ``_timers`` -- delayed and in-flight messages by the moment they become visible.
* ``_by_age`` -- every message by send time: retention evicts from the oldest end.

Heap entries are invalidated lazily: each carries the message's generation (``gen``), bumped on
every state change and on removal; a popped entry whose generation is stale is skipped. When stale
entries outnumber live ones (same threshold as the log), the heap is rebuilt -- amortised O(1).

There is no background thread: every call first applies the events that fell due up to
``clock.now()`` (``_advance``). All state is guarded by one lock per queue; its waiters
(``add_waiter``) are woken when a message is sent or the clock moves.
"""

from __future__ import annotations

import heapq
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._errors import SqsError
from .._store import Op
from .clock import Clock
from .journal import Journaled
from .message import (
    DELAYED,
    INFLIGHT,
    STATE_NAMES,
    VISIBLE,
    Message,
    MessageState,
    Received,
    system_attributes,
)
from .receipts import decode_receipt, new_receipt
from .tombstone import COMPACT_MIN_DEAD, TombstoneLog

__all__ = ["DEFAULT_ATTRIBUTES", "MAX_TOTAL_VISIBILITY", "MessageView", "Queue", "queue_arn"]

#: A message may stay invisible at most 12 hours after it was received.
MAX_TOTAL_VISIBILITY = 43200
#: Seconds between two PurgeQueue calls on one queue.
PURGE_COOLDOWN = 60.0
#: Messages a queue may have in flight; beyond it a short poll answers OverLimit.
MAX_INFLIGHT = 120_000

DEFAULT_ATTRIBUTES: dict[str, str] = {
    "DelaySeconds": "0",
    "MaximumMessageSize": "1048576",
    "MessageRetentionPeriod": "345600",
    "ReceiveMessageWaitTimeSeconds": "0",
    "VisibilityTimeout": "30",
    "SqsManagedSseEnabled": "true",
}

FIFO_DEFAULT_ATTRIBUTES: dict[str, str] = {
    "FifoQueue": "true",
    "ContentBasedDeduplication": "false",
    "DeduplicationScope": "queue",
    "FifoThroughputLimit": "perQueue",
}


def queue_arn(region: str, account: str, name: str) -> str:
    return f"arn:aws:sqs:{region}:{account}:{name}"


@dataclass(frozen=True)
class MessageView:
    """A read-only snapshot of a stored message, as ``peek()`` returns it."""

    message_id: str
    body: str
    state: MessageState
    receive_count: int
    attributes: dict[str, str]
    message_attributes: dict[str, dict[str, Any]] = field(default_factory=dict)
    group_id: str | None = None
    receipt_handle: str | None = None
    visible_at: float | None = None


class Queue(Journaled):
    """One SQS queue. Methods take the queue lock themselves; callers never hold it."""

    fifo = False

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
        self._store = None
        self._ops = None
        self._on_failure = None
        self.stale = False
        self.region = region
        self.account = account
        self.arn = queue_arn(region, account, name)
        self.clock = clock
        self.lock = threading.Lock()
        self._waiters: list[Callable[[], None]] = []
        now = clock.now()
        self.created_at = now
        self.last_modified = now
        self.last_purge: float | None = None
        self.tags: dict[str, str] = dict(tags or {})
        self.attributes: dict[str, str] = dict(DEFAULT_ATTRIBUTES)
        if self.fifo:
            self.attributes.update(FIFO_DEFAULT_ATTRIBUTES)
        self.visibility_timeout = 30
        self.delay_seconds = 0
        self.retention_period = 345600
        self.maximum_message_size = 1048576
        self.wait_time_seconds = 0
        self.redrive: tuple[str, int] | None = None
        self.deleted = False
        self.closed = False  # the mock stopped: long polls end
        self._apply(attributes)
        self.log: TombstoneLog[Message] = TombstoneLog()
        self._ready: list[tuple[int, int, Message]] = []
        self._timers: list[tuple[float, int, int, Message]] = []
        self._by_age: list[tuple[float, int, Message]] = []
        self._seq = 0
        self.n_visible = 0
        self.n_inflight = 0
        self.n_delayed = 0

    # -- attributes -------------------------------------------------------------------------

    def configure(self, attributes: dict[str, str]) -> None:
        """Apply validated attribute values (SetQueueAttributes)."""
        self.update_attributes(lambda _current: attributes)

    def update_attributes(self, change: Callable[[dict[str, str]], dict[str, str]]) -> None:
        """Apply ``change(current attributes)`` -- the changed values -- in one step under the
        lock (read-modify-write callers such as AddPermission). ``change`` may raise to refuse."""
        with self._session():
            self._apply(change(dict(self.attributes)))
            self.last_modified = self.clock.now()
            self._record_meta()

    def update_tags(self, change: Callable[[dict[str, str]], dict[str, str]]) -> None:
        """Replace the tags with ``change(current tags)`` (which may raise to refuse)."""
        with self._session():
            self.tags = change(dict(self.tags))
            self._record_meta()

    def _apply(self, attributes: dict[str, str]) -> None:
        for name, value in attributes.items():
            if value == "" and name in (
                "Policy",
                "RedrivePolicy",
                "RedriveAllowPolicy",
                "KmsMasterKeyId",
            ):
                self.attributes.pop(name, None)
                if name == "KmsMasterKeyId":
                    self.attributes.pop("KmsDataKeyReusePeriodSeconds", None)
                continue
            self.attributes[name] = value
        if "KmsMasterKeyId" in self.attributes:
            self.attributes["SqsManagedSseEnabled"] = "false"
        a = self.attributes
        self.visibility_timeout = int(a["VisibilityTimeout"])
        self.delay_seconds = int(a["DelaySeconds"])
        self.retention_period = int(a["MessageRetentionPeriod"])
        self.maximum_message_size = int(a["MaximumMessageSize"])
        self.wait_time_seconds = int(a["ReceiveMessageWaitTimeSeconds"])
        policy = a.get("RedrivePolicy")
        if policy:
            parsed = json.loads(policy)
            self.redrive = (parsed["deadLetterTargetArn"], int(parsed["maxReceiveCount"]))
        else:
            self.redrive = None

    # -- sending ----------------------------------------------------------------------------

    def send(
        self, messages: Sequence[Message], delays: Sequence[int | None]
    ) -> list[tuple[str, str | None]]:
        """Enqueue ``messages``; ``delays[i]`` is the per-message delay or None (queue's).

        Returns (MessageId, SequenceNumber) per message -- for a FIFO duplicate, the original's.
        """
        with self._session():
            now = self.clock.now()
            self._advance(now)
            out = []
            for message, delay in zip(messages, delays, strict=True):
                message.sent_at = now
                wait = self.delay_seconds if delay is None else delay
                out.append(self._accept(message, now, wait))
            self._wake()
            return out

    def _accept(self, m: Message, now: float, delay: int) -> tuple[str, str | None]:
        self._enqueue(m, now, delay)
        return m.message_id, None

    def _enqueue(self, m: Message, now: float, delay: int) -> None:
        self._seq += 1
        m.seq = self._seq
        m.gen = 0
        self.log.append(m)
        heapq.heappush(self._by_age, (m.sent_at, m.seq, m))
        if delay > 0:
            m.state = DELAYED
            m.visible_at = now + delay
            self.n_delayed += 1
            heapq.heappush(self._timers, (m.visible_at, m.seq, 0, m))
        else:
            self._make_visible(m)
        self._record_message(m)

    def _make_visible(self, m: Message) -> None:
        m.state = VISIBLE
        self.n_visible += 1
        heapq.heappush(self._ready, (m.seq, m.gen, m))

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
        vt = self.visibility_timeout if visibility is None else visibility
        dead: list[Message] = []
        epoch = self.reloads
        try:
            with self._session():
                epoch = self.reloads
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

    # -- long polls -------------------------------------------------------------------------

    @property
    def ended(self) -> bool:
        """Deleted, or the mock stopped: long polls on it answer empty."""
        return self.deleted or self.closed

    def add_waiter(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` (from any thread, with the queue lock held, so it must not block)
        whenever a message may have become available or the queue ended."""
        with self.lock:
            self._waiters.append(wake)

    def remove_waiter(self, wake: Callable[[], None]) -> None:
        with self.lock:
            if wake in self._waiters:
                self._waiters.remove(wake)

    def waiting(self) -> int:
        """Long polls waiting on this queue now."""
        return len(self._waiters)

    def next_due(self) -> float | None:
        """When the next delayed or in-flight message becomes visible."""
        with self.lock:
            return self._next_due()

    def _wake(self) -> None:
        for wake in self._waiters:
            wake()

    def _take(self, max_messages: int, vt: int, now: float, dead: list[Message]) -> list[Received]:
        out: list[Received] = []
        ready = self._ready
        pop = heapq.heappop
        while ready and len(out) < max_messages:
            _, gen, m = pop(ready)
            if m.gen != gen:
                continue
            if self._exhausted(m):
                self._remove(m, record=False)  # deleted from the store with the move
                dead.append(m)
                continue
            out.append(self._deliver(m, vt, now))
        return out

    # -- dead-letter queue --------------------------------------------------------------------

    def _exhausted(self, m: Message) -> bool:
        """Would delivering ``m`` exceed the RedrivePolicy's maxReceiveCount (and is there a
        dead-letter queue to move it to)?"""
        redrive = self.redrive
        if redrive is None or m.receive_count < redrive[1] or self._resolve is None:
            return False
        return self._resolve(redrive[0]) is not None

    def _dead_letter(self, messages: list[Message], epoch: int) -> None:
        """Move exhausted messages to the dead-letter queue (called without our lock held).

        They keep MessageId, body, attributes and receive count and gain the source's ARN;
        a standard message keeps its enqueue time, a FIFO one gets a new one. Their departure
        and arrival are written in one transaction. ``epoch``: our reload count when they were
        taken -- if we reloaded since, memory may hold them again, so we reload once more.
        """
        target = self._resolve(self.redrive[0]) if self._resolve and self.redrive else None
        copies = []
        for old in messages:
            m = old.carry()
            m.dlq_source_arn = self.arn
            if target is not None and target.fifo:
                m.sent_at = -1.0
            copies.append(m)
        try:
            if target is None:
                raise SqsError("QueueDoesNotExist")
            target.accept_messages(copies, self.delete_ops(messages))
        except SqsError:  # the dead-letter queue is gone: the messages stay here
            self.accept_messages([old.carry() for old in messages])
        if self.reloads != epoch:
            self.stale = True

    def accept_messages(self, messages: list[Message], moved_from: Sequence[Op] = ()) -> None:
        # ``moved_from`` goes first in the transaction: with a queue that is its own dead-letter
        # queue, the arrival must win over the departure of the same message id.
        """Enqueue messages moved from another queue, bypassing deduplication.

        ``moved_from``: the ops deleting them from their old queue, committed together with
        their arrival here so the store never loses nor doubles a moved message. A message
        whose ``sent_at`` is negative is stamped with the current time.
        """
        with self._session():
            now = self.clock.now()
            self._advance(now)
            for m in messages:
                if m.sent_at < 0:
                    m.sent_at = now
                self._enqueue(m, now, 0)
            self._flush(list(moved_from))
            self._wake()

    def take_visible(self, limit: int) -> tuple[list[Message], int]:
        """Remove and return up to ``limit`` visible messages, oldest first (move tasks), with
        the queue's reload count at that moment.

        Their deletion is not written here: pass ``delete_ops(messages)`` along to wherever
        they arrive, so both sides commit together.
        """
        with self._session():
            self._advance(self.clock.now())
            out: list[Message] = []
            ready = self._ready
            while ready and len(out) < limit:
                _, gen, m = heapq.heappop(ready)
                if m.gen == gen:
                    self._remove(m, record=False)
                    out.append(m)
            return out, self.reloads

    def _deliver(self, m: Message, vt: int, now: float) -> Received:
        """Hand ``m`` out: new receipt handle, in flight for ``vt`` seconds."""
        self.n_visible -= 1
        self.n_inflight += 1
        m.state = INFLIGHT
        m.gen += 1
        m.receive_count += 1
        if m.first_receive_at is None:
            m.first_receive_at = now
        m.received_at = now
        receipt = new_receipt(self.arn, m.message_id)
        self.log.mark_inflight(m.slot, receipt, m.receipt)
        m.receipt = receipt
        m.visible_at = now + vt
        heapq.heappush(self._timers, (m.visible_at, m.seq, m.gen, m))
        self._record_message(m)
        return Received(m, receipt, m.receive_count, m.first_receive_at)

    # -- deleting and visibility -------------------------------------------------------------

    def _lookup(self, receipt: str) -> tuple[Message | None, bool]:
        """The live message a handle names, and whether the handle is its current one."""
        slot = self.log.index_of_receipt(receipt)
        if slot is not None:
            return self.log.get(slot), True
        decoded = decode_receipt(receipt)
        slot = None if decoded is None else self.log.index_of_id(decoded[1])
        return (None, False) if slot is None else (self.log.get(slot), False)

    def delete(self, receipts: Iterable[str]) -> list[str | None]:
        """Delete by receipt handle; per handle ``None`` (done) or a reason code.

        On a standard queue any handle of a live message deletes it, even one whose visibility
        lapsed or that was superseded by a later receive; a handle of a deleted message
        succeeds without effect.
        """
        results: list[str | None] = []
        with self._session():
            self._advance(self.clock.now())
            for receipt in receipts:
                m, current = self._lookup(receipt)
                reason = None if m is None else self._deletable(m, current)
                if reason is None and m is not None:
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
        with self._session():
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
                    heapq.heappush(self._timers, (m.visible_at, m.seq, m.gen, m))
                self._record_message(m)
                results.append(None)
            if woke:
                self._wake()
            self._compact_indexes()
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
            self._record_delete(m)
        self._removed(m)
        self._compact_indexes()

    def _removed(self, m: Message) -> None:
        """Hook: ``m`` was removed from the queue."""

    def purge(self) -> None:
        """Drop every message; a second purge within 60 seconds is refused."""
        with self._session():
            now = self.clock.now()
            if self.last_purge is not None and now - self.last_purge < PURGE_COOLDOWN:
                raise SqsError("PurgeQueueInProgress", name=self.name)
            self.last_purge = now
            self._clear()
            self._record(Op("clear", self.qid, value=self._kept_on_purge()))
            self._record_meta()

    def _kept_on_purge(self) -> str:
        """What a purge keeps in the store (FIFO: its sequence counter)."""
        return ""

    def _clear(self) -> None:
        self.log.reset()
        self._ready = []
        self._timers = []
        self._by_age = []
        self.n_visible = self.n_inflight = self.n_delayed = 0

    # -- time -------------------------------------------------------------------------------

    def _advance(self, now: float) -> None:
        """Apply every event due by ``now``: delays and visibility timeouts end, retention."""
        timers = self._timers
        while timers and timers[0][0] <= now:
            _, _, gen, m = heapq.heappop(timers)
            if m.gen != gen:
                continue
            if m.state == INFLIGHT:
                self.n_inflight -= 1
            else:
                self.n_delayed -= 1
            m.gen += 1
            self._make_visible(m)
        age = self._by_age
        limit = now - self.retention_period
        while age and age[0][0] <= limit:
            _, _, m = heapq.heappop(age)
            if m.slot >= 0:
                self._remove(m)

    def _next_due(self) -> float | None:
        """When the next delayed or in-flight message becomes visible (stale entries dropped)."""
        timers = self._timers
        while timers:
            due, _, gen, m = timers[0]
            if m.gen == gen:
                return due
            heapq.heappop(timers)
        return None

    def _compact_indexes(self) -> None:
        """Rebuild a heap once its stale entries exceed the log's compaction threshold."""
        if len(self._timers) > COMPACT_MIN_DEAD + 2 * (self.n_inflight + self.n_delayed):
            self._timers = [e for e in self._timers if e[3].gen == e[2]]
            heapq.heapify(self._timers)
        if len(self._by_age) > COMPACT_MIN_DEAD + 2 * self.log.live_count():
            self._by_age = [e for e in self._by_age if e[2].slot >= 0]
            heapq.heapify(self._by_age)
        if len(self._ready) > COMPACT_MIN_DEAD + 2 * self.n_visible:
            self._ready = [e for e in self._ready if e[2].gen == e[1]]
            heapq.heapify(self._ready)

    # -- reading ----------------------------------------------------------------------------

    def counts(self) -> tuple[int, int, int]:
        """(visible, in flight, delayed), after applying due events."""
        with self._session():
            self._advance(self.clock.now())
            return self.n_visible, self.n_inflight, self.n_delayed

    def peek(self) -> list[MessageView]:
        """Every live message in enqueue order, as of now, without changing anything.

        Events that fell due but were not applied yet are reflected in the snapshot only.
        """
        with self.lock:
            now = self.clock.now()
            limit = now - self.retention_period
            return [self._view(m, now) for m in self.log if m.sent_at > limit]

    def _view(self, m: Message, now: float) -> MessageView:
        state = m.state
        if state != VISIBLE and m.visible_at <= now:
            state = VISIBLE
        inflight = state == INFLIGHT
        return MessageView(
            message_id=m.message_id,
            body=m.body,
            state=STATE_NAMES[state],
            receive_count=m.receive_count,
            attributes=system_attributes(m, m.receive_count, m.first_receive_at),
            message_attributes=dict(m.attributes or {}),
            group_id=m.group_id,
            receipt_handle=m.receipt if inflight else None,
            visible_at=m.visible_at if state != VISIBLE else None,
        )

    def notify(self) -> None:
        """Wake long polls so they re-check (the clock moved, or the queue ended)."""
        with self.lock:
            self._wake()
