"""Waiting on the event log: ``wait_for`` and ``expect_none``, in a thread or a coroutine.

A thread waits on the log's ``threading.Condition``; a coroutine awaits an ``asyncio.Event``
that the log sets through ``call_soon_threadsafe`` (``_Awake``), so it never blocks its loop and
no wait polls. A wait keeps its place in the log (``Watch``) and reads only what arrived since.

A negative assertion (``expect_none``) watches events after the call for ``within`` seconds of
the mock's clock. On a frozen clock it advances the clock by ``within`` -- time passing is what
was asked -- and then checks, so it costs no wall time; on a wall clock it waits ``within`` real
seconds and fails at the first matching event.

This is the ``Waiting`` part of ``EventLog`` (``waiters.py``), which inherits it; none of it runs
when the engine reports an event. This module imports no log: the log imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._engine.clock import Clock, monotonic
from .events import QueueEvent, UnexpectedEvent, WaitTimeout, Where, describe_event, shorten

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

    def matches(self, record: QueueEvent) -> bool:
        where = self.where
        if where is None:
            return True
        if isinstance(where, str):
            return record.body == where
        return bool(where(record))


class Watch:
    """One wait's place in the log: the position read up to, the matches found, and where the
    log stood when the wait began (``began``)."""

    __slots__ = ("began", "epoch", "found", "pos")

    def __init__(self, pos: int, epoch: int, began: int) -> None:
        self.pos = pos
        self.began = began
        self.epoch = epoch
        self.found: list[QueueEvent] = []


class Waiting:
    """The waits on the log: ``wait``, ``wait_async``, ``expect_none``, ``expect_none_async``."""

    if TYPE_CHECKING:  # what this part uses of the log (``waiters.py``)
        clock: Clock | None
        _cond: threading.Condition
        _started: threading.Condition
        _wakers: list[Callable[[], None]]
        _sleeping: int
        _ended: bool

        def _watch(self, since_now: bool) -> Watch: ...
        def _read(self, watch: Watch, query: Query) -> bool: ...
        def _idle(self, watch: Watch) -> bool: ...
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
        while True:
            ended = self._read(watch, query)
            if len(watch.found) >= query.count:
                return watch.found[: query.count]
            left = deadline - monotonic()
            if ended or left <= 0:
                raise self._timeout(query, watch, timeout, ended)
            self._sleep(watch, left)

    async def wait_async(self, query: Query, timeout: float) -> list[QueueEvent]:
        """``wait``, awaiting without blocking the event loop."""
        timeout = _check_seconds("timeout", timeout)
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

    def _sleep(self, watch: Watch, seconds: float) -> None:
        """Block until something happens (or ``seconds`` pass), unless it already has."""
        with self._cond:
            if self._idle(watch):
                self._sleeping += 1
                self._started.notify_all()
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

    def until_waiting(self, count: int = 1, timeout: float = 10.0) -> bool:
        """Block until at least ``count`` waits are blocked (True), or ``timeout`` real seconds
        pass (False): woken by each wait that starts, never polling."""
        with self._started:
            return self._started.wait_for(
                lambda: self._sleeping + len(self._wakers) >= count, timeout
            )

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

    async def expect_none_async(self, query: Query, within: float) -> None:
        """``expect_none``, awaiting without blocking the event loop."""
        window = self._open_window(query, within)
        if window is None:
            return
        clock, watch, within = window
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
    """An ``asyncio.Event`` the log sets (thread-safely) whenever something happens, for the
    duration of an ``async with``."""

    def __init__(self, log: Waiting) -> None:
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
            self.log._started.notify_all()
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


def _check_seconds(name: str, value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise ValueError(f"{name} must be a number of seconds >= 0, not {value!r}")
    return float(value)
