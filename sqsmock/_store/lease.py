"""One owner per namespace: an ownership lease kept in Redis.

Two activations writing one namespace would each number messages with their own counters and
overwrite each other's records, so an activation takes the namespace's lease when it starts and
a second one is refused with an error naming the holder (host, pid). The lease is a key
``P:owner`` holding the owner's token, host and pid, with an expiry that a daemon thread renews:
a process killed with SIGKILL does not lock the namespace for ever -- its lease lapses after
``LEASE_SECONDS``, or at once for a process on the same host that is no longer running.

Renewal runs every sixth of the lease, each attempt bounded by the short time-out of the client
it is given (a twelfth of the lease per round trip), so one slow attempt -- a Redis paused for
a few seconds -- never lets the lease lapse. A lease that lapsed anyway (Redis away for longer
than the lease) is taken again only if nobody owned the namespace meanwhile: each acquisition
writes its token to the ``owner`` field of ``P:commits`` (no expiry), and ``reacquire`` finds
its own token there or refuses (another activation took the namespace, or it was wiped).

Only compare-and-set operations under WATCH are used, so the lease works on fakeredis without Lua.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from .errors import PersistenceError

__all__ = ["LEASE_SECONDS", "Lease", "describe_holder"]

#: How long a lease lasts without renewal; it is renewed every sixth of that.
LEASE_SECONDS = 15.0
#: The field of ``P:commits`` naming the activation that took the lease last.
MARKER_FIELD = "owner"


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _holder(raw: Any) -> dict[str, Any]:
    try:
        holder = json.loads(_text(raw))
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) else {}


def describe_holder(raw: Any) -> str:
    """``host H, pid P, since T`` for a stored lease value."""
    holder = _holder(raw)
    since = holder.get("since")
    when = (
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since))
        if isinstance(since, (int, float))
        else "?"
    )
    return f"host {holder.get('host', '?')}, pid {holder.get('pid', '?')}, since {when}"


#: Tokens of the leases this process holds now.
_HELD: set[str] = set()


def _gone(holder: dict[str, Any]) -> bool:
    """Is the holder a process of this host that no longer runs -- or this process, in an
    activation that has ended (its release failed while Redis was away)?"""
    pid = holder.get("pid")
    if holder.get("host") != socket.gethostname() or not isinstance(pid, int) or pid <= 0:
        return False
    if pid == os.getpid():
        return holder.get("token") not in _HELD
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists (owned by someone else)
        return False
    return False


class Lease:
    """The ownership lease of one namespace, renewed in the background while held."""

    def __init__(
        self, client: Any, key: str, seconds: float = LEASE_SECONDS, marker_key: str = ""
    ) -> None:
        self.client = client
        self.key = key
        self.seconds = seconds
        #: The hash whose ``owner`` field names the last activation to take the lease.
        self.marker_key = marker_key
        self.token = uuid.uuid4().hex
        self.value = json.dumps(
            {
                "token": self.token,
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "since": round(time.time(), 3),
            },
            separators=(",", ":"),
        )
        #: Set when renewal found the lease lapsed or held by someone else: commits refuse
        #: until ``reacquire`` takes it back.
        self.lost = False
        #: Why the last renewal failed (Redis unreachable), None once one succeeds.
        self.unreachable: str | None = None
        #: Called by the renewal thread after each attempt (the store heals from there too, so
        #: its health comes back once Redis does, even when no call is made).
        self.after_renewal: Callable[[], None] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def ms(self) -> int:
        return int(self.seconds * 1000)

    def acquire(self, namespace: str) -> None:
        """Take the lease, or raise PersistenceError naming the activation that holds it."""
        if not self.client.set(self.key, self.value, nx=True, px=self.ms):
            current = self.client.get(self.key)
            if current is None or _gone(_holder(current)):
                if not self._replace(current):
                    self._refuse(namespace, self.client.get(self.key))
            else:
                self._refuse(namespace, current)
        self._mark()
        _HELD.add(self.token)
        self._thread = threading.Thread(
            target=self._renew_loop, name=f"sqsmock-lease {self.key}", daemon=True
        )
        self._thread.start()

    def _mark(self) -> None:
        if self.marker_key:
            self.client.hset(self.marker_key, MARKER_FIELD, self.token)

    def reacquire(self, namespace: str) -> None:
        """Take back a lease that lapsed (Redis was away for longer than it lasts), or raise
        PersistenceError naming the namespace if anyone else owned it meanwhile or wiped it:
        this activation's memory is then no longer what the store holds."""
        with self.client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(self.key, self.marker_key)
                current = pipe.get(self.key)
                if self._mine(current):
                    pipe.multi()
                    pipe.pexpire(self.key, self.ms)
                    pipe.execute()
                    self.lost = False
                    return
                marker = pipe.hget(self.marker_key, MARKER_FIELD) if self.marker_key else None
                if current is not None:
                    self._refuse(namespace, current, lost=True)
                if marker is None or _text(marker) != self.token:
                    raise PersistenceError(
                        reason=f"this activation lost the lease of namespace {namespace!r} and "
                        "cannot take it back: while Redis was away the namespace was wiped or "
                        "owned by another activation, so this mock's memory is no longer what "
                        "the store holds -- stop this mock and start it again"
                    )
                pipe.multi()
                pipe.set(self.key, self.value, px=self.ms)
                pipe.execute()
            except Exception as error:
                if type(error).__name__ == "WatchError":
                    raise PersistenceError(
                        reason=f"namespace {namespace!r} changed hands while this activation "
                        "took its lease back; stop this mock and start it again"
                    ) from None
                raise
        self.lost = False

    def _refuse(self, namespace: str, current: Any, lost: bool = False) -> None:
        if lost:
            raise PersistenceError(
                reason=f"this activation lost the lease of namespace {namespace!r}: it is owned "
                f"by another sqsmock activation now ({describe_holder(current)}); stop this "
                "mock (and that one, or use another namespace)"
            )
        raise PersistenceError(
            reason=f"namespace {namespace!r} is owned by another sqsmock activation "
            f"({describe_holder(current)}); a namespace has one owner at a time: stop that "
            "one, use another namespace, or let processes share queues through one server "
            f"(`sqsmock serve`). A lease that is not renewed lapses after {self.seconds:g} s"
        )

    def _replace(self, expected: Any) -> bool:
        """Take over the lease if it still holds ``expected`` (None: if it is absent)."""
        with self.client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(self.key)
                if pipe.get(self.key) != expected:
                    return False
                pipe.multi()
                pipe.set(self.key, self.value, px=self.ms)
                pipe.execute()
            except Exception as error:
                if type(error).__name__ == "WatchError":
                    return False
                raise
        return True

    def _mine(self, raw: Any) -> bool:
        return raw is not None and _holder(raw).get("token") == self.token

    def renew(self) -> bool:
        """Extend the lease; False (and ``lost``) if it lapsed or someone else holds it now.

        A lapsed lease is not taken again: meanwhile another activation may have owned the
        namespace, or someone wiped it, so this activation's memory can no longer be trusted.
        """
        for _ in range(3):
            with self.client.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(self.key)
                    if not self._mine(pipe.get(self.key)):
                        self.lost = True
                        return False
                    self.lost = False
                    pipe.multi()
                    pipe.pexpire(self.key, self.ms)
                    pipe.execute()
                    return True
                except Exception as error:
                    if type(error).__name__ != "WatchError":
                        raise
        return True  # changed under us three times: the next renewal looks again

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.seconds / 6):
            if not self.lost:  # a lost lease is taken back by ``reacquire``, not here
                try:
                    self.renew()
                except Exception as error:  # Redis away: try again next time
                    self.unreachable = f"{type(error).__name__}: {error}"
                else:
                    self.unreachable = None
            after = self.after_renewal
            if after is not None and not self._stop.is_set():
                with contextlib.suppress(Exception):
                    after()

    def release(self) -> None:
        """Stop renewing and delete the lease if it is still ours (best effort)."""
        self._stop.set()
        _HELD.discard(self.token)
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=self.seconds / 3)
        with contextlib.suppress(Exception), self.client.pipeline(transaction=True) as pipe:
            pipe.watch(self.key)
            if self._mine(pipe.get(self.key)):
                pipe.multi()
                pipe.delete(self.key)
                pipe.execute()
