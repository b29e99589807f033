"""Long polls: waiting until a message arrives, the clock reaches the poll's end, or the queue
ends (deleted, or the mock stopped).

The engine never waits; a receive that found nothing answers a ``LongPoll`` and its caller
waits here -- a thread blocks on an event (``wait``), a coroutine awaits one (``wait_async``),
so a server or an async client holds no thread per poll. A coroutine waits with the primitives
of the event loop running it: asyncio's, or trio's (aiobotocore's httpx backend runs on both),
told apart by sniffio, which sqsmock does not require: without it only asyncio can be running.
The queue wakes waiters when a message is sent or becomes visible, when the clock is advanced,
and when it ends.

On a frozen clock nobody sleeps: the poll jumps the clock to the next moment something falls
due (a delay or visibility timeout ending) or to its end. On a wall clock real waiting is also
bounded by the monotonic clock, so a frozen ``time.time`` (freezegun) cannot hang a poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from .._engine.clock import Clock, monotonic
from ._registry import LongPoll, Response

__all__ = ["in_thread", "wait", "wait_async"]

T = TypeVar("T")


def _until(poll: LongPoll, now: float) -> float:
    due = poll.queue.next_due()
    return poll.end if due is None or due > poll.end else max(due, now)


def _real_end(poll: LongPoll, clock: Clock) -> float:
    """The monotonic time past which the poll waits no longer, whatever its clock says."""
    return monotonic() + max(0.0, poll.end - clock.now())


def _next_wait(poll: LongPoll, clock: Clock, real_end: float) -> float | None:
    """After a retry that found nothing: None when the poll is over (it answers empty), else
    the seconds to wait for a wake -- 0 on a frozen clock, which jumps to the next moment
    instead."""
    now = clock.now()
    real_left = real_end - monotonic()
    if now >= poll.end or real_left <= 0 or poll.queue.ended:
        return None
    until = _until(poll, now)
    if clock.frozen:
        clock.jump_to(until)
        return 0.0
    return min(until - now, real_left)


def wait(poll: LongPoll, clock: Clock) -> Response:
    """Block the calling thread until the poll has an answer."""
    queue = poll.queue
    real_end = _real_end(poll, clock)
    event = threading.Event()
    wake = event.set
    queue.add_waiter(wake)
    try:
        while True:
            event.clear()  # a wake from here on is not lost
            answer = poll.retry()
            if answer is not None:
                return answer
            delay = _next_wait(poll, clock, real_end)
            if delay is None:
                return {}
            if delay > 0:
                event.wait(delay)
    finally:
        queue.remove_waiter(wake)


async def wait_async(
    poll: LongPoll,
    clock: Clock,
    run: Callable[[Callable[[], Any]], Awaitable[Any]] | None = None,
) -> Response:
    """Await the poll's answer without blocking the event loop -- asyncio's or trio's, whichever
    runs the calling task.

    ``run`` runs a retry (an engine call) -- off the loop when the engine does blocking I/O (a
    Redis store); by default on the loop, where it takes microseconds.
    """
    queue = poll.queue
    real_end = _real_end(poll, clock)
    signal = _TrioSignal() if _library() == "trio" else _AsyncioSignal()
    wake = signal.set  # called from any thread, with the queue lock held
    queue.add_waiter(wake)
    try:
        while True:
            signal.clear()  # a wake from here on is not lost
            answer: Response | None = poll.retry() if run is None else await run(poll.retry)
            if answer is not None:
                return answer
            delay = _next_wait(poll, clock, real_end)
            if delay is None:
                return {}
            if delay > 0:
                await signal.wait(delay)
            else:
                await signal.pause()  # let other tasks run between jumps
    finally:
        queue.remove_waiter(wake)


async def in_thread(func: Callable[[], T]) -> T:
    """Run ``func`` in a worker thread of the running event loop (asyncio's or trio's)."""
    if _library() == "trio":
        import trio

        return await trio.to_thread.run_sync(func)
    return await asyncio.get_running_loop().run_in_executor(None, func)


# -- the event loop's own primitives ---------------------------------------------------------


def _library() -> str:
    """The async library running the current task: ``"trio"`` or ``"asyncio"``.

    An asyncio task is asked first (trio can be running in the same thread, as when a test
    runner drives asyncio fixtures inside a trio test); else sniffio, which is how async
    libraries tell each other apart. trio depends on sniffio, so without it only asyncio can be
    running.
    """
    try:
        if asyncio.current_task() is not None:
            return "asyncio"
    except RuntimeError:  # no asyncio loop running in this thread
        pass
    sniffio = sys.modules.get("sniffio")
    if sniffio is None:
        return "asyncio"
    try:
        return str(sniffio.current_async_library())
    except sniffio.AsyncLibraryNotFoundError:
        return "asyncio"


class _AsyncioSignal:
    """A wake-up flag on the running asyncio loop, set from any thread."""

    __slots__ = ("_event", "_loop")

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()

    def set(self) -> None:
        self._loop.call_soon_threadsafe(self._event.set)

    def clear(self) -> None:
        self._event.clear()

    async def wait(self, timeout: float) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._event.wait(), timeout)

    async def pause(self) -> None:
        await asyncio.sleep(0)


class _TrioSignal:
    """A wake-up flag on the running trio run, set from any thread (through its token)."""

    __slots__ = ("_event", "_token", "_trio")

    def __init__(self) -> None:
        import trio

        self._trio: Any = trio
        self._token = trio.lowlevel.current_trio_token()
        self._event = trio.Event()

    def set(self) -> None:
        with contextlib.suppress(self._trio.RunFinishedError):  # the run ended meanwhile
            self._token.run_sync_soon(self._set)

    def _set(self) -> None:
        self._event.set()

    def clear(self) -> None:
        if self._event.is_set():  # trio's events cannot be cleared: take a fresh one
            self._event = self._trio.Event()

    async def wait(self, timeout: float) -> None:
        with self._trio.move_on_after(timeout):
            await self._event.wait()

    async def pause(self) -> None:
        await self._trio.lowlevel.checkpoint()
