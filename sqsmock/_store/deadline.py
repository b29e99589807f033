"""One time-out for a store operation as a whole, however many round trips it makes.

``persistence_timeout`` bounds an SQS call's wait for Redis. An operation of the store may make
several round trips -- settling an earlier write, checking that Redis answers and taking the
lease back, then the write itself -- and each waiting for a whole time-out made a call wait a
multiple of it. So the store's operations run ``within(timeout)``: the thread gets a deadline
(the outermost operation's: nested ones keep it), and every round trip on a connection of a
class made by ``bounded`` (the clients sqsmock builds: from a URL, and the lease's quick client)
or run under ``capped`` (the commit's own connections) waits only for what is left of it, and
is not started once it has passed. A client the user passes in keeps its own waits for the
round trips sqsmock does not make on connections of its own.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["bounded", "capped", "left", "within"]

_local = threading.local()


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Run the block with a deadline ``seconds`` from now, unless one is set already."""
    if getattr(_local, "until", None) is not None:
        yield
        return
    _local.until = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.until = None


def left() -> float | None:
    """Seconds left before this thread's deadline (None: no deadline)."""
    until: float | None = getattr(_local, "until", None)
    return None if until is None else until - time.monotonic()


def _out_of_time() -> Exception:
    from redis.exceptions import TimeoutError as RedisTimeout

    return RedisTimeout("sqsmock's persistence time-out passed before Redis answered")


@contextlib.contextmanager
def capped(conn: Any) -> Iterator[None]:
    """A round trip on the redis-py connection ``conn`` waits only for what is left of the
    deadline (its socket's time-out lowered for the trip); past the deadline it is not made."""
    remaining = left()
    if remaining is None:
        yield
        return
    if remaining <= 0:
        conn.disconnect()  # a reply may be due on it: it must not answer a later command
        raise _out_of_time()
    sock = getattr(conn, "_sock", None)
    own = getattr(conn, "socket_timeout", None)
    if sock is None or (own is not None and own <= remaining):
        yield
        return
    sock.settimeout(remaining)
    try:
        yield
    finally:
        sock = getattr(conn, "_sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.settimeout(own)


_BOUNDED: dict[type, type] = {}
_bounded_lock = threading.Lock()


def bounded(connection_class: type) -> type:
    """A subclass of a redis-py connection class whose connecting and reading of replies
    honour the thread's deadline (``capped``)."""
    with _bounded_lock:
        made = _BOUNDED.get(connection_class)
        if made is not None:
            return made

        class Bounded(connection_class):  # type: ignore[misc]
            def connect(self, *args: Any, **kwargs: Any) -> Any:
                remaining = left()
                if remaining is None or getattr(self, "_sock", None) is not None:
                    return super().connect(*args, **kwargs)
                if remaining <= 0:
                    raise _out_of_time()
                own: float | None = getattr(self, "socket_connect_timeout", None)
                if own is None or own > remaining:
                    setattr(self, "socket_connect_timeout", remaining)  # noqa: B010
                try:
                    return super().connect(*args, **kwargs)
                finally:
                    setattr(self, "socket_connect_timeout", own)  # noqa: B010

            def read_response(self, *args: Any, **kwargs: Any) -> Any:
                with capped(self):
                    return super().read_response(*args, **kwargs)

        Bounded.__name__ = Bounded.__qualname__ = f"Bounded{connection_class.__name__}"
        _BOUNDED[connection_class] = Bounded
        return Bounded
