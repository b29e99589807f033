"""The virtual clock: the only source of time for the engine.

Everything time-driven in SQS (visibility timeouts, delays, retention, deduplication windows, the
60-second rules) asks a ``Clock``. Tests move it with ``advance()`` instead of sleeping.

* ``WallClock`` follows ``time.time()`` plus an offset that ``advance()`` moves. Because it reads
  ``time.time`` on every call, ``time.sleep``, freezegun and time-machine keep working.
* ``FrozenClock`` stands still until ``advance()`` (or a long poll) moves it.

A long poll waits in real time on a wall clock (woken by a send or by ``advance()``); on a frozen
clock it never sleeps, it ``jump_to``s the moment it was waiting for instead.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from datetime import timedelta

__all__ = ["MAX_TIME", "Clock", "FrozenClock", "WallClock", "make_clock", "monotonic"]


_clock_gettime = getattr(time, "clock_gettime", None)
_real_monotonic = time.monotonic  # captured at import, before any time patching in tests


def monotonic() -> float:
    """Real elapsed time, immune to freezegun/time-machine (they patch ``time.monotonic``).

    Long polls bound their real waiting with it, so a frozen ``time.time`` never hangs a receive.
    """
    if _clock_gettime is not None:
        return float(_clock_gettime(time.CLOCK_MONOTONIC))
    return _real_monotonic()


#: The last moment a clock can show: 9999-12-31T23:59:59Z, the end of what ``datetime`` (and
#: SQS's epoch-millisecond timestamps rendered through it) can represent.
MAX_TIME = 253_402_300_799.0


def _seconds(value: float | timedelta) -> float:
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if not math.isfinite(seconds):
        raise ValueError(f"the clock advances by a finite number of seconds, not {seconds}")
    if seconds < 0:
        raise ValueError(f"the clock only moves forward; cannot advance by {seconds} seconds")
    return seconds


def _representable(when: float) -> float:
    """``when`` if a clock may show it; else ValueError (the caller has changed nothing)."""
    if not math.isfinite(when) or when > MAX_TIME:
        raise ValueError(
            f"the clock cannot show {when} (epoch seconds): it ends at {MAX_TIME} "
            "(9999-12-31T23:59:59Z)"
        )
    return when


class Clock:
    """Base class for sqsmock clocks. Subclass it to plug in a clock of your own."""

    #: True when waiting means jumping forward rather than sleeping.
    frozen: bool = False

    def __init__(self) -> None:
        self._listeners: list[Callable[[], None]] = []

    def now(self) -> float:
        """Current time in epoch seconds."""
        raise NotImplementedError

    def advance(self, seconds: float | timedelta) -> float:
        """Move the clock forward; returns the new ``now()``."""
        raise NotImplementedError

    def jump_to(self, when: float) -> None:
        """A frozen clock's long poll: move to ``when`` (if later) instead of sleeping.

        Only called when ``frozen`` is true. Listeners are not notified: nobody sleeps on a
        frozen clock, and the long poll re-checks by itself.
        """
        now = self.now()
        if when > now:
            self.advance(when - now)

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` whenever ``advance()`` moves the clock (wakes long polls)."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener()


class WallClock(Clock):
    """Real time (``time.time()``) plus an offset that ``advance()`` moves."""

    def __init__(self, offset: float = 0.0) -> None:
        super().__init__()
        offset = float(offset)
        _representable(time.time() + offset)
        self.offset = offset

    def now(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float | timedelta) -> float:
        step = _seconds(seconds)
        _representable(time.time() + self.offset + step)
        self.offset += step
        self._notify()
        return self.now()


class FrozenClock(Clock):
    """A clock that moves only when told to (or when a long poll jumps it forward)."""

    frozen = True

    def __init__(self, start: float | None = None) -> None:
        super().__init__()
        self._now = _representable(time.time() if start is None else float(start))
        self._lock = threading.Lock()

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float | timedelta) -> float:
        step = _seconds(seconds)
        with self._lock:
            now = self._now = _representable(self._now + step)
        self._notify()
        return now

    def jump_to(self, when: float) -> None:
        with self._lock:
            if when > self._now:
                self._now = when


def make_clock(spec: str | Clock | None) -> Clock:
    """Turn the ``clock=`` option into a clock."""
    if spec is None or spec == "wall":
        return WallClock()
    if spec == "frozen":
        return FrozenClock()
    if isinstance(spec, Clock):
        return spec
    raise ValueError(f"clock must be 'wall', 'frozen' or a sqsmock Clock, not {spec!r}")
