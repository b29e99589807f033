"""Waiting on the event log: ``wait_for`` and ``expect_none``, in a thread or a coroutine.

Each wait has an alarm of its own: a thread waits on a ``threading.Event`` (``_Alarm``), a
coroutine awaits an ``asyncio.Event`` that the log sets through ``call_soon_threadsafe``
(``_Awake``), so it never blocks its loop and no wait polls. The alarms are filed by the event
kind and queue the wait looks for (``Waiters``): an event rings only the alarms of waits it can
satisfy, so a wait on a quiet queue costs the traffic of the others nothing, however many there
are (waking every wait at every event made each event cost a read per open wait). A wait keeps
its place in the log (``Watch``) and reads only what arrived since, and keeps at most ``count``
matches, those past the log's byte bound cut short (``QueueEvent.cut``).

A negative assertion (``expect_none``) watches events after the call for ``within`` seconds of
the mock's clock. On a frozen clock it advances the clock by ``within`` -- time passing is what
was asked -- and then checks, so it costs no wall time; on a wall clock it waits ``within`` real
seconds and fails at the first matching event.

This is the ``Waiting`` part of ``EventLog`` (``waiters.py``), which inherits it; of it only
``_ring`` runs when the engine reports an event, and only when a wait is open. This module imports
no log: the log imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from .._engine.clock import Clock, monotonic
from .events import (
    QueueEvent,
    Raw,
    UnexpectedEvent,
    WaitTimeout,
    Where,
    describe_event,
    shorten,
    to_event,
)

__all__ = ["Query", "Waiting", "Watch"]


@dataclass
class Query:
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
            return f" with body {shorten(where)}"
        return f" matching {getattr(where, '__qualname__', None) or repr(where)}"

    def matches(self, raw: Raw) -> QueueEvent | None:
        """The event's record if it counts (a body string is compared before any record is
        built), else None."""
        where = self.where
        if isinstance(where, str):
            return to_event(raw) if raw[6] == where else None
        record = to_event(raw)
        return record if where is None or where(record) else None


class Watch:
    """One wait's place in the log: the position read up to, the matches found (at most the
    count asked for; ``kept``: their bytes) and where the log stood when the wait began
    (``began``)."""

    __slots__ = ("began", "epoch", "found", "kept", "pos")

    def __init__(self, pos: int, epoch: int, began: int) -> None:
        self.pos = pos
        self.began = began
        self.epoch = epoch
        self.found: list[QueueEvent] = []
        self.kept = 0

    def keep(self, record: QueueEvent, size: int, budget: int) -> None:
        """Keep a match; past ``budget`` bytes (the log's byte bound) it is kept cut short, so
        that a wait pins no more than the log would (the first is kept whole, as the log keeps
        its newest)."""
        if self.found and self.kept + size > budget:
            record = record.cut()
            size = record.size()
        self.kept += size
        self.found.append(record)


class Alarm(Protocol):
    """What wakes one wait."""

    def wake(self) -> None: ...


class Waiters:
    """The alarms of the open waits, filed by (event kind, queue id), and their number."""

    def __init__(self) -> None:
        self.filed: dict[tuple[str, str], set[Alarm]] = {}
        self.count = 0

    def add(self, key: tuple[str, str], alarm: Alarm) -> None:
        self.filed.setdefault(key, set()).add(alarm)
        self.count += 1

    def remove(self, key: tuple[str, str], alarm: Alarm) -> None:
        alarms = self.filed.get(key)
        if alarms is not None and alarm in alarms:
            alarms.discard(alarm)
            self.count -= 1
            if not alarms:
                del self.filed[key]

    def ring(self, event: str, qids: Iterable[str]) -> None:
        """Wake the waits for ``event`` on any of ``qids``: a look-up per queue, whatever the
        number of waits elsewhere."""
        filed = self.filed
        for qid in qids:
            for alarm in filed.get((event, qid), ()):
                alarm.wake()

    def ring_all(self) -> None:
        for alarms in self.filed.values():
            for alarm in alarms:
                alarm.wake()


class _Alarm:
    """A thread's alarm."""

    __slots__ = ("flag",)

    def __init__(self) -> None:
        self.flag = threading.Event()

    def wake(self) -> None:
        self.flag.set()


class Waiting:
    """The waits on the log: ``wait``, ``wait_async``, ``expect_none``, ``expect_none_async``."""

    if TYPE_CHECKING:  # what this part uses of the log (``waiters.py``)
        clock: Clock | None
        _cond: threading.Condition
        _started: threading.Condition
        _waiters: Waiters
        _ended: bool

        def _watch(self, since_now: bool) -> Watch: ...
        def _read(self, watch: Watch, query: Query) -> bool: ...
        def _timeout(
            self, query: Query, watch: Watch, timeout: float, ended: bool
        ) -> WaitTimeout: ...

    # -- wait_for ---------------------------------------------------------------------------

    def wait(self, query: Query, timeout: float) -> list[QueueEvent]:
        """Block until ``query.count`` matching events exist; WaitTimeout after ``timeout``
        real seconds."""
        timeout = _check_seconds("timeout", timeout)
        if timeout:
            _not_on_a_loop("wait_for")
        deadline = monotonic() + timeout
        watch = self._watch(since_now=False)
        with self._filed(query, _Alarm()) as alarm:
            while True:
                alarm.flag.clear()  # before reading: an event from now on rings it
                ended = self._read(watch, query)
                if len(watch.found) >= query.count:
                    return watch.found[: query.count]
                left = deadline - monotonic()
                if ended or left <= 0:
                    raise self._timeout(query, watch, timeout, ended)
                alarm.flag.wait(left)

    async def wait_async(self, query: Query, timeout: float) -> list[QueueEvent]:
        """``wait``, awaiting without blocking the event loop."""
        timeout = _check_seconds("timeout", timeout)
        deadline = monotonic() + timeout
        watch = self._watch(since_now=False)
        with self._filed(query, _Awake()) as woken:
            while True:
                woken.clear()
                ended = self._read(watch, query)
                if len(watch.found) >= query.count:
                    return watch.found[: query.count]
                left = deadline - monotonic()
                if ended or left <= 0:
                    raise self._timeout(query, watch, timeout, ended)
                await _wait_flag(woken, left)

    @contextlib.contextmanager
    def _filed(self, query: Query, alarm: _A) -> Iterator[_A]:
        """File ``alarm`` under the events ``query`` looks for while the wait lasts."""
        key = (query.event, query.qid)
        with self._cond:
            self._waiters.add(key, alarm)
            self._started.notify_all()
        try:
            yield alarm
        finally:
            with self._cond:
                self._waiters.remove(key, alarm)

    def waiting(self) -> int:
        """Waits (``wait_for``, ``expect_none``, sync or async) under way now."""
        with self._cond:
            return self._waiters.count

    def until_waiting(self, count: int = 1, timeout: float = 10.0) -> bool:
        """Block until at least ``count`` waits are under way (True), or ``timeout`` real
        seconds pass (False): woken by each wait that starts, never polling."""
        with self._started:
            return self._started.wait_for(lambda: self._waiters.count >= count, timeout)

    # -- expect_none ------------------------------------------------------------------------

    def expect_none(self, query: Query, within: float) -> None:
        """Fail at the first matching event from now on; pass after ``within`` seconds of the
        mock's clock (a frozen clock is advanced by ``within`` at once)."""
        window = self._open_window(query, within)
        if window is None:
            return
        clock, watch, within = window
        _not_on_a_loop("expect_none")
        mock_end, real_end = clock.now() + within, monotonic() + within
        with self._filed(query, _Alarm()) as alarm:
            clock.subscribe(alarm.wake)  # an advance() may end the window early
            try:
                while True:
                    alarm.flag.clear()
                    self._check_none(watch, query, within, frozen=False)
                    left = min(mock_end - clock.now(), real_end - monotonic())
                    if self._ended or left <= 0:
                        return
                    alarm.flag.wait(left)
            finally:
                clock.unsubscribe(alarm.wake)

    async def expect_none_async(self, query: Query, within: float) -> None:
        """``expect_none``, awaiting without blocking the event loop."""
        window = self._open_window(query, within)
        if window is None:
            return
        clock, watch, within = window
        mock_end, real_end = clock.now() + within, monotonic() + within
        with self._filed(query, _Awake()) as woken:
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

    def _open_window(self, query: Query, within: float) -> tuple[Clock, Watch, float] | None:
        """Start an ``expect_none`` window: on a frozen clock it is over at once (the clock
        advanced by ``within`` and checked: None); else the clock, the watch and ``within``."""
        within = _check_seconds("within", within)
        clock = self._clock()
        watch = self._watch(since_now=True)
        if clock.frozen:
            clock.advance(within)
            self._check_none(watch, query, within, frozen=True)
            return None
        return clock, watch, within

    def _check_none(self, watch: Watch, query: Query, within: float, frozen: bool) -> None:
        self._read(watch, query)
        if not watch.found:
            return
        first = watch.found[0]
        how = f"{within:g} s" + (f" (a frozen clock, advanced by {within:g} s)" if frozen else "")
        raise UnexpectedEvent(
            f"expected no {query.event!r} event on queue {query.label!r}{query.describe()} "
            f"within {how}, but one happened: {describe_event(first)}",
            first,
        )

    def _clock(self) -> Clock:
        if self.clock is None:
            raise RuntimeError("this event log is attached to no mock")
        return self.clock


class _Awake:
    """A coroutine's alarm: an ``asyncio.Event`` of its loop, set thread-safely."""

    __slots__ = ("event", "loop", "pending")

    def __init__(self) -> None:
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


_A = TypeVar("_A", _Alarm, _Awake)


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


def _check_seconds(name: str, value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise ValueError(f"{name} must be a number of seconds >= 0, not {value!r}")
    return float(value)
