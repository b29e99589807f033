"""Long polls: waiting until a message arrives, the clock reaches the poll's end, or the queue
ends (deleted, or the mock stopped).

The engine never waits; a receive that found nothing answers a ``LongPoll`` and its caller
waits here -- a thread blocks on an event (``wait``), a coroutine awaits one (``wait_async``),
so a server or an async client holds no thread per poll. The queue wakes waiters when a message
is sent or becomes visible, when the clock is advanced, and when it ends.

On a frozen clock nobody sleeps: the poll jumps the clock to the next moment something falls
due (a delay or visibility timeout ending) or to its end. On a wall clock real waiting is also
bounded by the monotonic clock, so a frozen ``time.time`` (freezegun) cannot hang a poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from .._engine.clock import Clock, monotonic
from ._registry import LongPoll, Response

__all__ = ["wait", "wait_async"]


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
    """Await the poll's answer without blocking the event loop.

    ``run`` runs a retry (an engine call) -- off the loop when the engine does blocking I/O (a
    Redis store); by default on the loop, where it takes microseconds.
    """
    queue = poll.queue
    loop = asyncio.get_running_loop()
    real_end = _real_end(poll, clock)
    event = asyncio.Event()

    def wake() -> None:  # called from any thread, with the queue lock held
        loop.call_soon_threadsafe(event.set)

    queue.add_waiter(wake)
    try:
        while True:
            event.clear()
            answer: Response | None = poll.retry() if run is None else await run(poll.retry)
            if answer is not None:
                return answer
            delay = _next_wait(poll, clock, real_end)
            if delay is None:
                return {}
            if delay > 0:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(event.wait(), delay)
            else:
                await asyncio.sleep(0)  # let other tasks run between jumps
    finally:
        queue.remove_waiter(wake)
