"""Connecting to Redis: a client from the ``persistence=`` option, and quick clients.

Every round trip is bounded: a client built from a URL waits ``timeout`` seconds at most and
never retries, and the lease's renewal and the health probe use a second client of the same
server that gives up sooner (``quick_client``), so a stopped or paused Redis fails a call in
bounded time instead of hanging it. The connections of both clients also honour the deadline of
the store's operation (``deadline.py``): one operation's round trips together wait no longer
than the time-out. redis-py is imported only here, and only when needed.
"""

from __future__ import annotations

from typing import Any

from . import DEFAULT_TIMEOUT
from .deadline import bounded
from .errors import PersistenceError

__all__ = ["connect", "quick_client", "timed_out"]


def connect(persistence: Any, timeout: float = DEFAULT_TIMEOUT) -> Any:
    """A redis-py client from the ``persistence=`` option (a client or a ``redis://`` URL).

    A client built from a URL gets connect and socket time-outs of ``timeout`` seconds (the URL
    may override them with ``?socket_timeout=..&socket_connect_timeout=..``) and no retries: a
    stopped Redis fails a call within ``timeout`` instead of hanging it.
    """
    if isinstance(persistence, str):
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError:  # pragma: no cover - depends on the environment
            raise PersistenceError(
                reason="persistence by URL needs redis-py: pip install 'sqsmock[redis]'"
            ) from None
        client = redis.Redis.from_url(
            persistence,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry_on_timeout=False,
            retry=Retry(NoBackoff(), 0),
        )
        pool = client.connection_pool  # no connection made yet: all of them will be bounded
        pool.connection_class = bounded(pool.connection_class)
        return client
    if not all(hasattr(persistence, name) for name in ("pipeline", "hgetall", "scan_iter")):
        raise TypeError(
            "persistence must be a redis.Redis (or fakeredis) client or a redis:// URL, "
            f"not {persistence!r}"
        )
    return persistence


def quick_client(client: Any, seconds: float) -> Any:
    """A client of the same Redis whose every round trip gives up after ``seconds``: the
    lease's renewal and the health probe must not wait as long as a write may. A client of
    another kind (fakeredis: in-process, nothing waits) is used as it is."""
    try:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry
    except ImportError:  # pragma: no cover - depends on the environment
        return client
    if not isinstance(client, redis.Redis) or type(client).__module__.startswith("fakeredis"):
        return client
    pool = client.connection_pool
    kwargs = dict(pool.connection_kwargs)
    for name in ("socket_timeout", "socket_connect_timeout"):
        current = kwargs.get(name)
        if not isinstance(current, (int, float)) or current <= 0 or current > seconds:
            kwargs[name] = seconds
    kwargs["retry"] = Retry(NoBackoff(), 0)
    kwargs["retry_on_timeout"] = False
    try:
        quick_pool = type(pool)(
            connection_class=bounded(pool.connection_class), max_connections=4, **kwargs
        )
    except TypeError:  # pragma: no cover - an unusual pool
        return client
    return redis.Redis(connection_pool=quick_pool)


def timed_out(error: BaseException) -> bool:
    return any("Timeout" in c.__name__ for c in type(error).__mro__)
