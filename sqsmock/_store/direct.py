"""The commit's own connections: EVALSHA without redis-py's pipeline and pool.

With a plain ``redis.Redis`` client the store keeps connections of its own for its commits
(``_spares``): redis-py's pipeline and pool cost about as much as the round trip itself. Each
round trip on them waits no longer than what is left of the operation's deadline
(``deadline.capped``). This is the ``Direct`` part of the store's write path (``commit.py``).
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

from .deadline import capped

__all__ = ["Direct"]


class Direct:
    """Kept connections of a plain ``redis.Redis`` client, for the commit's EVALSHA."""

    if TYPE_CHECKING:  # what this part uses of the store (``redis_store.py``)
        client: Any
        _commit_sha: str
        _spares: list[Any] | None
        _spares_pid: int

    def _keep_connections(self) -> None:
        """Commit over connections of the store's own (``_spares``) when the client is a plain
        ``redis.Redis``: redis-py's pipeline and pool cost about as much as the round trip
        itself. Any other client (a subclass, a proxy, a single-connection client) commits
        through its ``pipeline()``, as it expects."""
        client = self.client
        kind = type(client)
        plain = kind.__module__ == "redis.client" and kind.__name__ == "Redis"
        if plain and getattr(client, "connection", None) is None:
            self._spares = []
            self._spares_pid = os.getpid()

    def _evalsha_direct(self, keys: list[str], args: list[Any]) -> Any:
        """One EVALSHA on a kept connection, with the client's retry policy (as redis-py runs
        a command). A connection that failed goes back to the pool, disconnected."""
        spares = self._spares
        assert spares is not None
        if self._spares_pid != os.getpid():  # forked: those sockets are the parent's
            spares.clear()
            self._spares_pid = os.getpid()
        try:
            conn = spares.pop()
        except IndexError:
            conn = self._pool_connection()

        def run() -> Any:
            conn.send_command("EVALSHA", self._commit_sha, len(keys), *keys, *args)
            with capped(conn):
                return conn.read_response()

        try:
            result = conn.retry.call_with_retry(run, lambda _error: conn.disconnect())
        except BaseException:
            conn.disconnect()  # whatever is left unread on it must not answer a later command
            self.client.connection_pool.release(conn)
            raise
        spares.append(conn)
        return result

    def _pool_connection(self) -> Any:
        pool = self.client.connection_pool
        try:
            return pool.get_connection()
        except TypeError:  # redis-py before 5.3 wants a command name
            return pool.get_connection("EVALSHA")

    def _release_connections(self) -> None:
        """Give the kept connections back to the client's pool (the store closes)."""
        spares, self._spares = self._spares, None
        if spares and self._spares_pid == os.getpid():
            for conn in spares:
                with contextlib.suppress(Exception):
                    self.client.connection_pool.release(conn)
