"""Waiting for consumers: what happened to messages, kept so that a test can wait on it.

A test of a consumer -- a worker thread, a Celery worker, a Lambda-style handler, another
process -- has to know when a message was consumed or dead-lettered, or that nothing arrives,
and must not sleep to find out. The engine tells its observer (``Backend.observer``) of every
message sent, handed out by a receive, deleted and dead-lettered; ``EventLog.observe`` keeps a
flat tuple of the message's values as they are at that moment and wakes whoever waits, so a
waiter returns within moments of the event, from any thread. A thread waits on a
``threading.Condition``; a coroutine awaits an ``asyncio.Event`` set through
``call_soon_threadsafe``, so it never blocks its loop.

Waits count every event since the mock started or was last reset: a wait that starts after the
consumer finished finds what it did. The log is bounded (``MAX_EVENTS`` events, and
``byte_limit()`` bytes of message sizes, ``MAX_BYTES`` unless the runtime hands it the call
journal's bound, so that what sqsmock keeps for a test to look back on has one bound), the
oldest dropped first; ``dropped`` counts them. Whether it records at all follows the call
journal. Records (``QueueEvent``) are built only when a wait reads them.

A negative assertion (``expect_none``) watches events after the call for ``within`` seconds of
the mock's clock. On a frozen clock it advances the clock by ``within`` -- time passing is what
was asked -- and then checks, so it costs no wall time; on a wall clock it waits ``within`` real
seconds and fails at the first matching event.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import math
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any

from .._engine.clock import Clock, monotonic
from .._engine.message import Message, system_attributes
from .._service._context import split_path

if TYPE_CHECKING:
    from .._engine import Backend, Queue

__all__ = [
    "EVENTS",
    "MAX_BYTES",
    "MAX_EVENTS",
    "EventLog",
    "QueueEvent",
    "UnexpectedEvent",
    "WaitTimeout",
]

#: The events a test can wait for, in the order a message lives them.
EVENTS = ("sent", "received", "deleted", "dead-lettered")
#: The log keeps at most this many events ...
MAX_EVENTS = 100_000
#: ... and at most this many bytes of message sizes (a message counts once per event), unless
#: the log is given a byte limit of its own (the call journal's).
MAX_BYTES = 64 * 1024 * 1024
#: Events of the queue a time-out's message shows.
LAST_SHOWN = 5

# A raw event: event, queue id, dead-letter queue id or None, time, size, then the message's
# receive count, first receive, id, body, message attributes, sender, sent time, trace header,
# sequence number, deduplication id, group id, dead-letter source ARN. Queue ids are
# "region/account/name", as the engine's.
_Raw = tuple[Any, ...]
Where = Callable[["QueueEvent"], object] | str | None


@dataclass(frozen=True)
class QueueEvent:
    """Something that happened to a message, as a wait hands it out.

    ``event``: ``"sent"``, ``"received"`` (handed out by a receive), ``"deleted"`` (by
    DeleteMessage or DeleteMessageBatch) or ``"dead-lettered"`` (moved to the dead-letter queue
    by its source's RedrivePolicy); ``queue``, ``region``, ``account``: the queue it happened
    to (for a dead-lettered message, the queue it left; ``dead_letter_queue`` names the one it
    went to); ``attributes``: its system attributes as a receive would show them then;
    ``message_attributes`` in the form ``peek()`` shows; ``receive_count`` as of the event;
    ``time`` on the mock's clock.
    """

    event: str
    queue: str
    region: str
    account: str
    message_id: str
    body: str
    attributes: dict[str, str] = field(hash=False)
    message_attributes: dict[str, dict[str, Any]] = field(hash=False)
    receive_count: int
    time: float
    dead_letter_queue: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-able dict (what ``POST /_sqsmock/wait`` answers)."""
        return {
            "event": self.event,
            "queue": self.queue,
            "region": self.region,
            "account": self.account,
            "message_id": self.message_id,
            "body": self.body,
            "attributes": dict(self.attributes),
            "message_attributes": {k: dict(v) for k, v in self.message_attributes.items()},
            "receive_count": self.receive_count,
            "time": self.time,
            "dead_letter_queue": self.dead_letter_queue,
        }


class WaitTimeout(AssertionError):
    """``wait_for`` saw fewer matching events than asked for before its time-out (or the mock
    stopped). ``found``: the matching events seen; ``counts``: that queue's events by kind
    since the mock started or was reset, and ``during`` the wait; ``last``: its last few
    events; ``stopped``: the mock stopped before the time-out."""

    def __init__(
        self,
        text: str,
        found: list[QueueEvent],
        counts: dict[str, int],
        during: dict[str, int],
        last: list[QueueEvent],
        stopped: bool = False,
    ) -> None:
        super().__init__(text)
        self.stopped = stopped
        self.found = found
        self.counts = counts
        self.during = during
        self.last = last

    def to_json(self) -> dict[str, Any]:
        return {
            "error": str(self),
            "found": [e.to_json() for e in self.found],
            "counts": self.counts,
            "during_wait": self.during,
            "last": [e.to_json() for e in self.last],
        }


class UnexpectedEvent(AssertionError):
    """``expect_none`` saw a matching event (``event``) within its window."""

    def __init__(self, text: str, event: QueueEvent) -> None:
        super().__init__(text)
        self.event = event


@dataclass
class _Query:
    """What a wait looks for, checked; ``qid`` is the queue's engine id."""

    label: str
    qid: str
    event: str
    where: Where
    count: int

    def describe(self) -> str:
        where = self.where
        if where is None:
            return ""
        if isinstance(where, str):
            return f" with body {_short(where)}"
        return f" matching {getattr(where, '__qualname__', None) or repr(where)}"

    def matches(self, record: QueueEvent) -> bool:
        where = self.where
        if where is None:
            return True
        if isinstance(where, str):
            return record.body == where
        return bool(where(record))


class _Watch:
    """One wait's place in the log: the position read up to, the matches found, and where the
    log stood when the wait began (``began``)."""

    __slots__ = ("began", "epoch", "found", "pos")

    def __init__(self, pos: int, epoch: int, began: int) -> None:
        self.pos = pos
        self.began = began
        self.epoch = epoch
        self.found: list[QueueEvent] = []


class EventLog:
    """Message events since the mock started or was last reset, and the waits on them."""

    def __init__(
        self,
        region: str,
        account: str,
        recording: Callable[[], bool] = lambda: True,
        byte_limit: Callable[[], int | None] = lambda: MAX_BYTES,
    ) -> None:
        self.region = region
        self.account = account
        #: Whether events are kept now (the call journal's setting, read live): when not, the
        #: observer keeps nothing and waits are refused.
        self.recording = recording
        #: The most bytes of messages kept now (None: no byte bound), read live.
        self.byte_limit = byte_limit
        self.clock: Clock | None = None
        self._lock = threading.Lock()  # the event path takes it bare: cheaper than the condition
        self._cond = threading.Condition(self._lock)
        self._events: deque[_Raw] = deque()
        self._first = 0  # position of the oldest event kept
        self._next = 0  # position of the next event
        self._bytes = 0
        self._epoch = 0  # bumped by clear(): waits forget what they found
        self._ended = False
        self._wakers: list[Callable[[], None]] = []
        self._sleeping = 0  # threads blocked in a wait
        #: Events dropped to stay within the bounds since the last clear().
        self.dropped = 0

    def attach(self, backend: Backend) -> None:
        """Hear ``backend``'s events (unless recording is off: then the engine pays one
        attribute test per event) and read its clock."""
        self.clock = backend.clock
        if self.recording():
            backend.observer = self.observe

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
                    self._wake()
            return
        if not self.recording():  # turned off since
            return
        now = queue.clock.now()
        if event == "dead-lettered":  # told with the queue they went to
            qid, dlq = "", queue.qid
        else:
            qid, dlq = queue.qid, None
        with self._lock:
            events = self._events
            for m in messages:
                body = m.body
                size = m.size or len(body)
                self._bytes += size
                events.append(
                    (
                        event,
                        qid or _qid_of_arn(m.dlq_source_arn),
                        dlq,
                        now,
                        size,
                        m.receive_count,
                        m.first_receive_at,
                        m.message_id,
                        body,
                        m.attributes or None,
                        m.sender_id,
                        m.sent_at,
                        m.trace_header,
                        m.sequence_number,
                        m.dedup_id,
                        m.group_id,
                        m.dlq_source_arn,
                    )
                )
            self._next += len(messages)
            limit = self.byte_limit()
            while len(events) > MAX_EVENTS or (
                limit is not None and self._bytes > limit and len(events) > 1
            ):
                self._bytes -= events.popleft()[4]
                self._first += 1
                self.dropped += 1
            if self._sleeping or self._wakers:
                self._wake()

    def _wake(self) -> None:
        """Wake every wait (the caller holds the lock)."""
        self._cond.notify_all()
        for wake in self._wakers:
            wake()

    def clear(self) -> None:
        """Forget every event (a reset): waits under way start counting afresh."""
        with self._cond:
            self._events.clear()
            self._bytes = 0
            self._first = self._next
            self._epoch += 1
            self.dropped = 0
            self._wake()

    # -- queries ----------------------------------------------------------------------------

    def query(
        self,
        queue: str,
        event: str,
        count: int = 1,
        where: Where = None,
        region: str | None = None,
    ) -> _Query:
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
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"count must be an int >= 1, not {count!r}")
        if where is not None and not isinstance(where, str) and not callable(where):
            raise TypeError(
                f"where must be a callable on the event or a body string, not {where!r}"
            )
        url_region, account, name = split_path(queue)
        if not name:
            raise ValueError(f"{queue!r} names no queue")
        region = region or url_region or self.region
        return _Query(name, f"{region}/{account or self.account}/{name}", event, where, count)

    def _watch(self, since_now: bool) -> _Watch:
        with self._cond:
            return _Watch(self._next if since_now else self._first, self._epoch, self._next)

    def _take(self, watch: _Watch, query: _Query) -> list[_Raw]:
        """The events of ``query``'s kind and queue after ``watch``'s place (lock held)."""
        if watch.epoch != self._epoch:  # a reset: start again
            watch.epoch, watch.found = self._epoch, []
            watch.pos = watch.began = self._first
        new = self._next - max(watch.pos, self._first)
        watch.pos = self._next
        if new <= 0:
            return []
        event, qid = query.event, query.qid
        taken = [
            raw
            for raw in islice(reversed(self._events), new)
            if raw[0] == event and (raw[1] == qid or raw[2] == qid)
        ]
        taken.reverse()
        return taken

    def _read(self, watch: _Watch, query: _Query) -> bool:
        """Take new matching events into ``watch.found``; whether the log has ended."""
        with self._cond:
            raws = self._take(watch, query)
            ended = self._ended
        for raw in raws:
            record = _record(raw)
            if query.matches(record):
                watch.found.append(record)
        return ended

    def _idle(self, watch: _Watch) -> bool:
        """Nothing new for ``watch`` (lock held)."""
        return watch.pos == self._next and watch.epoch == self._epoch and not self._ended

    # -- wait_for ---------------------------------------------------------------------------

    def wait(self, query: _Query, timeout: float) -> list[QueueEvent]:
        """Block until ``query.count`` matching events exist; WaitTimeout after ``timeout``
        real seconds."""
        timeout = _seconds("timeout", timeout)
        if timeout:
            _not_on_a_loop("wait_for")
        deadline = monotonic() + timeout
        watch = self._watch(since_now=False)
        while True:
            ended = self._read(watch, query)
            if len(watch.found) >= query.count:
                return watch.found[: query.count]
            left = deadline - monotonic()
            if ended or left <= 0:
                raise self._timeout(query, watch, timeout, ended)
            self._sleep(watch, left)

    async def wait_async(self, query: _Query, timeout: float) -> list[QueueEvent]:
        """``wait``, awaiting without blocking the event loop."""
        timeout = _seconds("timeout", timeout)
        deadline = monotonic() + timeout
        watch = self._watch(since_now=False)
        async with self._awake() as woken:
            while True:
                woken.clear()
                ended = self._read(watch, query)
                if len(watch.found) >= query.count:
                    return watch.found[: query.count]
                left = deadline - monotonic()
                if ended or left <= 0:
                    raise self._timeout(query, watch, timeout, ended)
                await _wait_flag(woken, left)

    def _sleep(self, watch: _Watch, seconds: float) -> None:
        """Block until something happens (or ``seconds`` pass), unless it already has."""
        with self._cond:
            if self._idle(watch):
                self._sleeping += 1
                try:
                    self._cond.wait(seconds)
                finally:
                    self._sleeping -= 1

    def _awake(self) -> _Awake:
        return _Awake(self)

    def waiting(self) -> int:
        """Waits (``wait_for``, ``expect_none``, sync or async) blocked now."""
        with self._cond:
            return self._sleeping + len(self._wakers)

    # -- expect_none ------------------------------------------------------------------------

    def expect_none(self, query: _Query, within: float) -> None:
        """Fail at the first matching event from now on; pass after ``within`` seconds of the
        mock's clock (a frozen clock is advanced by ``within`` at once)."""
        within = _seconds("within", within)
        clock = self._clock()
        watch = self._watch(since_now=True)
        if clock.frozen:
            clock.advance(within)
            self._check_none(watch, query, within, frozen=True)
            return
        _not_on_a_loop("expect_none")
        mock_end, real_end = clock.now() + within, monotonic() + within

        def tick() -> None:
            with self._cond:
                self._cond.notify_all()

        clock.subscribe(tick)  # an advance() may end the window early
        try:
            while True:
                self._check_none(watch, query, within, frozen=False)
                left = min(mock_end - clock.now(), real_end - monotonic())
                if self._ended or left <= 0:
                    return
                self._sleep(watch, left)
        finally:
            clock.unsubscribe(tick)

    async def expect_none_async(self, query: _Query, within: float) -> None:
        """``expect_none``, awaiting without blocking the event loop."""
        within = _seconds("within", within)
        clock = self._clock()
        watch = self._watch(since_now=True)
        if clock.frozen:
            clock.advance(within)
            self._check_none(watch, query, within, frozen=True)
            return
        mock_end, real_end = clock.now() + within, monotonic() + within
        async with self._awake() as woken:
            clock.subscribe(woken.wake)
            try:
                while True:
                    woken.clear()
                    self._check_none(watch, query, within, frozen=False)
                    left = min(mock_end - clock.now(), real_end - monotonic())
                    if self._ended or left <= 0:
                        return
                    await _wait_flag(woken, left)
            finally:
                clock.unsubscribe(woken.wake)

    def _check_none(self, watch: _Watch, query: _Query, within: float, frozen: bool) -> None:
        self._read(watch, query)
        if not watch.found:
            return
        first = watch.found[0]
        how = f"{within:g} s" + (f" (a frozen clock, advanced by {within:g} s)" if frozen else "")
        raise UnexpectedEvent(
            f"expected no {query.event!r} event on queue {query.label!r}{query.describe()} "
            f"within {how}, but one happened: {_line(first)}",
            first,
        )

    def _clock(self) -> Clock:
        if self.clock is None:
            raise RuntimeError("this event log is attached to no mock")
        return self.clock

    # -- what a time-out says ---------------------------------------------------------------

    def summary(
        self, qid: str, since: int | None = None
    ) -> tuple[dict[str, int], dict[str, int], list[QueueEvent]]:
        """The events of queue ``qid`` by kind, those from position ``since`` on, and its last
        few."""
        with self._cond:
            first = self._first
            mine = [
                (first + i, raw)
                for i, raw in enumerate(self._events)
                if raw[1] == qid or raw[2] == qid
            ]
        counts = dict.fromkeys(EVENTS, 0)
        during = dict.fromkeys(EVENTS, 0)
        for pos, raw in mine:
            counts[raw[0]] += 1
            if since is not None and pos >= since:
                during[raw[0]] += 1
        return counts, during, [_record(raw) for _, raw in mine[-LAST_SHOWN:]]

    def _timeout(self, query: _Query, watch: _Watch, timeout: float, ended: bool) -> WaitTimeout:
        counts, during, last = self.summary(query.qid, watch.began)
        found = len(watch.found)
        region, account, _ = query.qid.split("/", 2)
        why = "before the mock stopped" if ended else f"within {timeout:g} s"
        lines = [
            f"waited for {query.count} {query.event!r} event{'s' if query.count > 1 else ''} on "
            f"queue {query.label!r} (region {region}, account {account}){query.describe()} "
            f"{why}: {found} happened"
            + (f" ({', '.join(_line(e) for e in watch.found)})" if watch.found else ""),
        ]
        if any(counts.values()):
            lines.append(
                f"queue {query.label!r} since the mock started or was reset: {_counts(counts)}; "
                f"during this wait: {_counts(during)}"
            )
            lines.append(f"its last {len(last)} event{'s' if len(last) > 1 else ''}:")
            lines += [f"  {_line(e)}" for e in last]
        else:
            lines.append(
                f"nothing happened to queue {query.label!r} since the mock started or was reset"
            )
            lines += self._elsewhere(query)
        if self.dropped:
            limit = self.byte_limit()
            most = "" if limit is None else f" or {_amount(limit)} of messages"
            lines.append(
                f"({self.dropped} older events were dropped: the log keeps the latest "
                f"{MAX_EVENTS} events{most})"
            )
        return WaitTimeout("\n".join(lines), list(watch.found), counts, during, last, ended)

    def _elsewhere(self, query: _Query) -> list[str]:
        """Hints when nothing happened to the queue: same name elsewhere, or queues that did
        see events."""
        with self._cond:
            qids = {raw[1] for raw in self._events}
        name = query.qid.split("/", 2)[2]
        same = sorted(q for q in qids if q.split("/", 2)[2] == name)
        if same:
            where = ", ".join(f"region {q.split('/')[0]} account {q.split('/')[1]}" for q in same)
            return [f"a queue named {name!r} had events in {where} (pass region= or a full URL)"]
        others = sorted(q.split("/", 2)[2] for q in qids)
        if others:
            shown = ", ".join(map(repr, others[:10]))
            return [f"queues with events: {shown}{' ...' if len(others) > 10 else ''}"]
        return []


class _Awake:
    """An ``asyncio.Event`` the log sets (thread-safely) whenever something happens, for the
    duration of an ``async with``."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.event = asyncio.Event()
        self.loop = asyncio.get_running_loop()
        self.pending = False

    def wake(self) -> None:
        if self.pending:  # already on its way
            return
        self.pending = True
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            self.loop.call_soon_threadsafe(self.event.set)

    def clear(self) -> None:
        self.pending = False
        self.event.clear()

    async def __aenter__(self) -> _Awake:
        with self.log._cond:
            self.log._wakers.append(self.wake)
        return self

    async def __aexit__(self, *exc: object) -> None:
        with self.log._cond:
            self.log._wakers.remove(self.wake)


async def _wait_flag(woken: _Awake, seconds: float) -> None:
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(woken.event.wait(), seconds)


def _not_on_a_loop(name: str) -> None:
    """Refuse to block a thread that runs an event loop: a consumer on that loop could never
    act, and the wait would time out for nothing."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(
        f"{name} would block this thread's event loop (and any consumer running on it): "
        f"use await {name}_async(...)"
    )


def _seconds(name: str, value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise ValueError(f"{name} must be a number of seconds >= 0, not {value!r}")
    return float(value)


def _qid_of_arn(arn: str | None) -> str:
    parts = (arn or "").split(":")
    return "/".join(parts[3:6]) if len(parts) == 6 else ""


def _name(qid: str) -> tuple[str, str, str]:
    region, account, name = [*qid.split("/", 2), "", "", ""][:3]
    return region, account, name


def _record(raw: _Raw) -> QueueEvent:
    event, qid, dlq, now, _, receive_count, first_receive_at, message_id, body = raw[:9]
    attributes, sender_id, sent_at, trace_header, sequence_number = raw[9:14]
    dedup_id, group_id, source = raw[14:]
    m = Message(
        message_id,
        body,
        "",
        sender_id=sender_id,
        trace_header=trace_header,
        group_id=group_id,
        dedup_id=dedup_id,
    )
    m.sent_at, m.sequence_number, m.dlq_source_arn = sent_at, sequence_number, source
    region, account, name = _name(qid)
    return QueueEvent(
        event=event,
        queue=name,
        region=region,
        account=account,
        message_id=message_id,
        body=body,
        attributes=system_attributes(m, receive_count, first_receive_at),
        message_attributes={k: dict(v) for k, v in (attributes or {}).items()},
        receive_count=receive_count,
        time=now,
        dead_letter_queue=None if dlq is None else _name(dlq)[2],
    )


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _amount(size: int) -> str:
    return f"{size / 2**20:g} MiB" if size >= 2**20 else f"{size} bytes"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{event} {n}" for event, n in counts.items())


def _line(e: QueueEvent) -> str:
    when = datetime.datetime.fromtimestamp(e.time, datetime.timezone.utc).strftime("%H:%M:%S.%f")
    into = f" into {e.dead_letter_queue!r}" if e.dead_letter_queue else ""
    return (
        f"{when[:-3]} {e.event}{into} {e.message_id} body {_short(e.body)} "
        f"receive count {e.receive_count}"
    )
