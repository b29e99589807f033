"""Long polls on a queue: who waits, when the next message falls due, and when to give up.

The engine never waits: a receive that finds nothing answers, and the service's ``_wait.py``
waits outside the engine, retrying the receive whenever the queue wakes it. This is the
``Wakeups`` part of ``Queue``, the registry of those wake-up functions: a long poll adds one,
and the queue calls them all (``_wake``, in ``queue.py``, beside the transitions that call it)
when a message is sent or becomes visible, when the clock moves, or when the queue ends. This
module imports no queue: the queue imports it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .message import Message
    from .scheduler import Schedule
    from .write_through import Journal

__all__ = ["Wakeups"]


class Wakeups:
    """The queue's long polls: ``add_waiter``, ``remove_waiter``, ``next_due``, ``notify``."""

    if TYPE_CHECKING:  # what this part uses of the queue (``queue.py``)
        lock: threading.Lock
        journal: Journal
        schedule: Schedule[Message]
        closed: bool
        _waiters: list[Callable[[], None]]

        def _wake(self) -> None: ...

    @property
    def ended(self) -> bool:
        """Deleted, or the mock stopped: long polls on it answer empty."""
        return self.journal.dropped or self.closed

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
            return self.schedule.next_due()

    def notify(self) -> None:
        """Wake long polls so they re-check (the clock moved, or the queue ended)."""
        with self.lock:
            self._wake()
