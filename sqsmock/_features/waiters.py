"""Waiting for consumers: what happened to messages, kept so that a test can wait on it.

A test of a consumer -- a worker thread, a Celery worker, a Lambda-style handler, another
process -- has to know when a message was consumed or dead-lettered, or that nothing arrives,
and must not sleep to find out. The engine tells its observer (``Backend.observer``) of every
message sent, handed out by a receive, deleted and dead-lettered; ``EventLog.observe`` keeps a
flat tuple of the message's values as they are at that moment and wakes whoever waits, so a
waiter returns within moments of the event, from any thread. An event wakes only the waits for
its kind and queue (``waiting.Waiters``): open waits on other queues cost it nothing. A thread
waits on a ``threading.Event`` of its own; a coroutine awaits an ``asyncio.Event`` set through
``call_soon_threadsafe``, so it never blocks its loop.

Waits count every event since the mock started or was last reset: a wait that starts after the
consumer finished finds what it did. The log is bounded (``MAX_EVENTS`` events, and
``byte_limit()`` bytes of message sizes, ``MAX_BYTES`` unless the runtime hands it the call
journal's bound, so that what sqsmock keeps for a test to look back on has one bound), the
oldest dropped first; ``dropped`` counts them. Whether it records at all follows the call
journal. Records (``QueueEvent``) are built only when a wait reads them. A wait asks for at most
``MAX_COUNT`` events and keeps no more than the log's byte bound of them whole (the rest cut
short), so that an open wait never pins more than the log would.

The log also notes the position of the latest event of each kind and queue (``_latest``), so
that a wait reads nothing when nothing of its kind happened to its queue since its place, and
scans no further back than that event: a wait that starts on a quiet queue, however full the
log, costs a look-up, not a scan of 100 000 events under the log's lock.

This module is the log and the engine's side of it (``observe``, on every message event); the
records and errors are in ``events.py``, the waits themselves (``wait_for``, ``expect_none``,
sync and async) in ``waiting.py`` and what a time-out says in ``wait_timeouts.py``, which
``EventLog`` inherits.
The names importable from here before (``QueueEvent``, ``WaitTimeout`` ...) still are.
"""

from __future__ import annotations

import threading
from collections import deque
from itertools import islice
from typing import TYPE_CHECKING, Protocol

from .._engine.clock import Clock
from .._engine.message import Message
from .._service.addresses import split_queue_url
from .events import (
    EVENTS,
    QueueEvent,
    Raw,
    UnexpectedEvent,
    WaitTimeout,
    Where,
    qid_of_arn,
)
from .wait_timeouts import TimeOuts
from .waiting import Query, Waiters, Waiting, Watch

#: Where the dead-letter source ARN sits in ``Message.compact_fields()``'s first record.
_DLQ_SOURCE = 4

if TYPE_CHECKING:
    from .._engine import Backend, Queue

__all__ = [
    "EVENTS",
    "MAX_BYTES",
    "MAX_COUNT",
    "MAX_EVENTS",
    "EventLog",
    "QueueEvent",
    "UnexpectedEvent",
    "WaitTimeout",
    "Where",
]

#: The log keeps at most this many events ...
MAX_EVENTS = 100_000
#: ... and at most this many bytes of message sizes (a message counts once per event), unless
#: the log is given a byte limit of its own (the call journal's).
MAX_BYTES = 64 * 1024 * 1024
#: ``_latest`` is pruned when it has more entries than this (an event notes at most two).
_LATEST_MOST = 2 * MAX_EVENTS + 1000
#: The most events one wait asks for (``count``).
MAX_COUNT = 1000


class Bounds(Protocol):
    """What bounds the log, read live at every event: the call journal's settings.
    ``keeping``: whether events are recorded now; ``most_bytes`` is ``byte_limit`` as a number
    (``sys.maxsize`` for no limit)."""

    @property
    def keeping(self) -> bool: ...

    @property
    def byte_limit(self) -> int | None: ...

    @property
    def most_bytes(self) -> int: ...


class _OwnBounds:
    """A log of its own: always recording, at most ``MAX_BYTES``."""

    keeping = True
    byte_limit: int | None = MAX_BYTES
    most_bytes = MAX_BYTES


class EventLog(Waiting, TimeOuts):
    """Message events since the mock started or was last reset, and the waits on them."""

    def __init__(
        self,
        region: str,
        account: str,
        bounds: Bounds | None = None,
    ) -> None:
        self.region = region
        self.account = account
        #: Whether events are kept now (when not, the observer keeps nothing and waits are
        #: refused) and the most bytes of messages kept (None: no byte bound), read live.
        self.bounds: Bounds = _OwnBounds() if bounds is None else bounds
        self.clock: Clock | None = None
        self._backend: Backend | None = None
        self._lock = threading.Lock()  # the event path takes it bare: cheaper than the condition
        self._cond = threading.Condition(self._lock)
        #: Notified when a wait starts (``until_waiting``), apart from ``_cond`` so that a
        #: starting wait never wakes the others.
        self._started = threading.Condition(self._lock)
        self._events: deque[Raw] = deque()
        self._first = 0  # position of the oldest event kept
        self._next = 0  # position of the next event
        self._bytes = 0
        self._epoch = 0  # bumped by clear(): waits forget what they found
        self._ended = False
        self._waiters = Waiters()  # the open waits' alarms, by event kind and queue
        #: (event kind, queue id) -> position of its latest event (a dead-lettered one: under
        #: both queues); entries older than the log are dropped when it holds too many.
        self._latest: dict[tuple[str, str], int] = {}
        #: Events dropped to stay within the bounds since the last clear().
        self.dropped = 0

    def recording(self) -> bool:
        """Whether events are kept now."""
        return self.bounds.keeping

    def byte_limit(self) -> int | None:
        """The most bytes of messages kept now (None: no byte bound)."""
        return self.bounds.byte_limit

    def _most_events(self) -> int:
        return MAX_EVENTS

    def attach(self, backend: Backend) -> None:
        """Hear ``backend``'s events (unless recording is off: then the engine pays one
        attribute test per event) and read its clock."""
        self.clock = backend.clock
        self._backend = backend
        self.follow()

    def follow(self) -> None:
        """Recording was turned on or off (the call journal's ``on_change``): hear the backend's
        events while it is on, from the next one."""
        backend = self._backend
        if backend is not None:
            backend.observer = self.observe if self.recording() else None

    # -- the engine's side ------------------------------------------------------------------

    def observe(self, event: str, queue: Queue | None, messages: list[Message]) -> None:
        """The engine's observer: keep the events, wake the waits. Quick, never blocks long.

        Each event is a flat tuple of the message's values (no reference to the message, which
        the queue goes on changing): strings and numbers, which the garbage collector does not
        track, so a full log does not make every collection longer.
        """
        if queue is None:
            if event == "ended":
                with self._cond:
                    self._ended = True
                    self._waiters.ring_all()
            return
        bounds = self.bounds
        if not bounds.keeping:  # turned off since
            return
        now = queue.clock.now()
        qid, dlq = queue.qid, None
        if event == "dead-lettered":  # told with the queue they went to
            qid, dlq = "", qid
        added = 0
        lock = self._lock
        lock.acquire()  # not ``with``: half the cost, on every event
        try:
            events = self._events
            for m in messages:
                body = m.body
                size = m.size or len(body)
                added += size
                # The message's own compact records (immutable tuples: a change replaces them),
                # decoded only when a wait reads the event (``to_event``).
                extra, fifo, received = m.compact_fields()
                events.append(
                    (
                        event,
                        qid or qid_of_arn(extra[_DLQ_SOURCE]),
                        dlq,
                        now,
                        size,
                        m.id_key,
                        body,
                        m.sender_id,
                        m.sent_at,
                        extra,
                        fifo,
                        received,
                    )
                )
            self._next += len(messages)
            latest = self._latest
            if dlq is None:
                latest[event, qid] = self._next - 1
            else:
                self._note_moves(event, dlq, len(messages))
            if len(latest) > _LATEST_MOST:
                self._forget_latest()
            total = self._bytes = self._bytes + added
            if len(events) > MAX_EVENTS or total > bounds.most_bytes:
                self._trim(bounds.most_bytes)
            if self._waiters.count:
                self._ring(event, qid, dlq, len(messages))
        finally:
            lock.release()

    def _trim(self, most_bytes: int) -> None:
        """Drop the oldest events until the log is within its bounds (the caller holds the
        lock); the newest event stays, however large."""
        events = self._events
        while len(events) > MAX_EVENTS or (self._bytes > most_bytes and len(events) > 1):
            self._bytes -= events.popleft()[4]
            self._first += 1
            self.dropped += 1

    def _note_moves(self, event: str, dlq: str, n: int) -> None:
        """Note the last ``n`` events, dead-lettered into ``dlq``, under both their queues."""
        newest: dict[tuple[str, str], int] = {(event, dlq): self._next - 1}
        pos = self._next
        for raw in islice(reversed(self._events), n):  # newest first: the first seen is latest
            pos -= 1
            newest.setdefault((event, raw[1]), pos)
        self._latest.update(newest)

    def _forget_latest(self) -> None:
        """Drop the entries of ``_latest`` older than the log (kept, at most two per event)."""
        first = self._first
        self._latest = {key: pos for key, pos in self._latest.items() if pos >= first}

    def _ring(self, event: str, qid: str, dlq: str | None, n: int) -> None:
        """Wake the waits the last ``n`` events may satisfy (the caller holds the lock): a
        dead-lettered message's by either queue."""
        if dlq is None:
            self._waiters.ring(event, (qid,))
        else:
            qids = {dlq, *(raw[1] for raw in islice(reversed(self._events), n))}
            self._waiters.ring(event, qids)

    def clear(self) -> None:
        """Forget every event (a reset): waits under way start counting afresh."""
        with self._cond:
            self._events.clear()
            self._bytes = 0
            self._first = self._next
            self._latest.clear()
            self._epoch += 1
            self.dropped = 0
            self._waiters.ring_all()

    # -- queries ----------------------------------------------------------------------------

    def query(
        self,
        queue: str,
        event: str,
        count: int = 1,
        where: Where = None,
        region: str | None = None,
    ) -> Query:
        """Check a wait's arguments; the queue by name or URL (default region: the mock's)."""
        if not self.recording():
            raise RuntimeError(
                "message events are not recorded: journal_limit=0 turns off the call journal "
                "and the events wait_for and expect_none read"
            )
        if not isinstance(queue, str) or not queue:
            raise TypeError(f"queue must be a queue name or URL, not {queue!r}")
        if event not in EVENTS:
            raise ValueError(f"event must be one of {', '.join(map(repr, EVENTS))}, not {event!r}")
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
            raise ValueError(f"count must be an int from 1 to {MAX_COUNT}, not {count!r}")
        if where is not None and not isinstance(where, str) and not callable(where):
            raise TypeError(
                f"where must be a callable on the event or a body string, not {where!r}"
            )
        url_region, account, name = split_queue_url(queue)
        if not name:
            raise ValueError(f"{queue!r} names no queue")
        region = region or url_region or self.region
        return Query(name, f"{region}/{account or self.account}/{name}", event, where, count)

    def _watch(self, since_now: bool) -> Watch:
        with self._cond:
            return Watch(self._next if since_now else self._first, self._epoch, self._next)

    def _take(self, watch: Watch, query: Query) -> list[Raw]:
        """The events of ``query``'s kind and queue after ``watch``'s place (lock held)."""
        if watch.epoch != self._epoch:  # a reset: start again
            watch.epoch, watch.found, watch.kept = self._epoch, [], 0
            watch.pos = watch.began = self._first
        start = max(watch.pos, self._first)
        watch.pos = self._next
        event, qid = query.event, query.qid
        latest = self._latest.get((event, qid), -1)
        if latest < start:  # nothing of its kind on its queue since
            return []
        # From its latest event back to the wait's place: islice skips the newer at C speed.
        taken = [
            raw
            for raw in islice(reversed(self._events), self._next - 1 - latest, self._next - start)
            if raw[0] == event and (raw[1] == qid or raw[2] == qid)
        ]
        taken.reverse()
        return taken

    def _read(self, watch: Watch, query: Query) -> bool:
        """Take new matching events into ``watch.found``, up to ``query.count`` of them;
        whether the log has ended."""
        with self._cond:
            raws = self._take(watch, query)
            ended = self._ended
        budget = self.bounds.most_bytes
        for raw in raws:
            if len(watch.found) >= query.count:
                break
            record = query.matches(raw)
            if record is not None:
                watch.keep(record, raw[4], budget)
        return ended
