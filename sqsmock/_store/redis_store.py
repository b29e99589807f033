"""The Redis store (a real server through redis-py, or fakeredis in-process).

sqsmock's state lives in one Redis database under a namespace prefix (``keys.py`` has the key
schema). A store is opened by one activation, which takes the namespace's lease (``lease.py``)
so that no two mocks or servers write one namespace; each SQS call's writes then reach Redis in
one fenced round trip (``commit.py``), and a mock that starts reads everything back
(``loading.py``). ``connection.py`` makes the clients, with bounded waits.

When Redis fails (or the lease is lost) the store is *unavailable* (``problem()``): every later
operation first checks, with a round trip bounded by the lease's short time-out, that Redis
answers and the lease is ours -- taking a lapsed lease back if nobody owned the namespace
meanwhile (``take_resync``: the engine then reloads everything) -- and raises at once if not.
The lease's renewal thread runs the same check, so the store heals without waiting for a call.

``RedisStore`` is this module's: opening, closing and health. It inherits its write path
(``Commits``) and its reading back (``Loading``), so an SQS call's commit is a method of the
store itself. The names other modules import from here (``connect``, ``encode_qid`` ...) stay
importable from here.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

from . import DEFAULT_NAMESPACE, DEFAULT_TIMEOUT, Op, default_namespace
from .commit import Commits
from .connection import connect, quick_client
from .deadline import within
from .errors import PersistenceError
from .eviction import evicted, evicting, read_policy, refusal
from .keys import SCHEMA, decode_qid, encode_qid, valid_qid
from .lease import LEASE_SECONDS, Lease
from .loading import Loading

__all__ = [
    "DEFAULT_NAMESPACE",
    "DEFAULT_TIMEOUT",
    "SCHEMA",
    "PersistenceError",
    "RedisStore",
    "clock_offset_ms",
    "connect",
    "decode_qid",
    "default_namespace",
    "encode_qid",
    "open_store",
    "valid_qid",
]


def open_store(
    persistence: Any,
    namespace: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    lease_seconds: float | None = None,
) -> RedisStore:
    """The store of one activation: connected, owning the namespace's lease (else
    PersistenceError naming the holder). ``close()`` it to release the lease."""
    store = RedisStore(
        connect(persistence, timeout),
        default_namespace() if namespace is None else namespace,
        timeout=timeout,
        lease_seconds=lease_seconds,
    )
    store.open()
    return store


def clock_offset_ms(before: float, seconds: Any, micros: Any, after: float) -> float:
    """How far Redis's clock is ahead of ours, in ms, for commit deadlines (``commit.py``):
    from Redis's ``TIME`` (``seconds``, ``micros``) read between our ``before`` and ``after``.

    The least it can be -- Redis read its clock no later than ``after`` -- less one millisecond,
    for the commit script's whole-millisecond comparison: a deadline in Redis time then never
    falls after the moment the client gives up, so a write that timed out cannot land, however
    long the ``TIME`` round trip took. (The midpoint of the round trip could be off by half of
    it, and was, by a millisecond or two on a loaded machine.)
    """
    return int(seconds) * 1000 + int(micros) / 1000 - after * 1000 - 1.0


class RedisStore(Commits, Loading):
    """sqsmock state in one Redis database, under one namespace prefix."""

    def __init__(
        self,
        client: Any,
        namespace: str = DEFAULT_NAMESPACE,
        timeout: float = DEFAULT_TIMEOUT,
        lease_seconds: float | None = None,
    ) -> None:
        if not namespace:
            raise ValueError("the persistence namespace must not be empty")
        self.client = client
        self.namespace = namespace
        self.timeout = timeout
        self.queues_key = f"{namespace}queues"
        self.deleted_key = f"{namespace}deleted"
        self.tasks_key = f"{namespace}tasks"
        self.schema_key = f"{namespace}schema"
        self.owner_key = f"{namespace}owner"
        self.commits_key = f"{namespace}commits"
        self.lease: Lease | None = None
        #: How long the client waits for a reply: a write may only apply within that time.
        self._patience = timeout
        pool = getattr(client, "connection_pool", None)
        waits = getattr(pool, "connection_kwargs", {}).get("socket_timeout")
        if isinstance(waits, (int, float)) and not isinstance(waits, bool) and 0 < waits < timeout:
            self._patience = float(waits)
        #: Lua available: commits are fenced (see ``commit.py``).
        self.scripted = False
        self._commit_sha = ""
        #: Redis's clock minus ours, in ms (deadlines are in Redis time).
        self._offset_ms = 0.0
        #: Per commit channel, the id of the last commit this activation knows to be stored.
        self._last: dict[str, str] = {}
        #: Commit ids: unique per activation (random prefix), cheap to make (a counter).
        self._id_prefix = os.urandom(6).hex() + "-"
        self._ids = itertools.count(1)
        #: Commits whose outcome is unknown (Redis failed before it could be asked):
        #: channel -> (commit id, ops). Settled before any later read or write.
        self._pending: dict[str, tuple[str, list[Op]]] = {}
        self._pending_lock = threading.Lock()
        #: Ops of commits that raised but turned out applied: memory must take them in.
        self.late: list[list[Op]] = []
        #: Called with the qids a late-applied commit touched (the engine marks them stale).
        self.on_late: Callable[[set[str]], None] | None = None
        #: How long the lease lasts; its renewal and the health probe wait a twelfth of it.
        self.lease_seconds = float(LEASE_SECONDS if lease_seconds is None else lease_seconds)
        #: Why the store cannot be used now (Redis failed, the lease lapsed), None when fine.
        self._problem: str | None = None
        #: Set for good when the namespace turned out owned by someone else after a lapse.
        self._refused: PersistenceError | None = None
        #: The lease was taken back after a lapse: the engine reloads everything it holds.
        self._resync = False
        self._heal_lock = threading.Lock()
        #: Connections kept for commits (None: commits go through ``client.pipeline()``).
        self._spares: list[Any] | None = None
        self._spares_pid = 0
        #: The schema key was read or written: commits check that it is still there (a key
        #: Redis evicted, or someone deleted, is noticed by the next write).
        self._schema_seen = False
        #: maxmemory-policy could not be read when the store opened (it was warned of).
        self._policy_unknown = False
        #: The lease was taken back and the namespace not yet checked for evicted keys.
        self._unverified = False
        #: How long the lease's renewal and the health probe wait for Redis.
        self._quick_seconds = min(self._patience, self.lease_seconds / 12)

    def queue_key(self, qid: str) -> str:
        return f"{self.namespace}q:{encode_qid(qid)}"

    def _fail(self, doing: str, error: BaseException) -> PersistenceError:
        return PersistenceError(
            reason=f"Redis failed while {doing} (namespace {self.namespace!r}): "
            f"{type(error).__name__}: {error}"
        )

    # -- opening and closing ----------------------------------------------------------------

    def open(self) -> None:
        """Take the lease, load the scripts (if Lua is there), measure Redis's clock."""
        if not self._in_process():
            self._check_policy()
        try:
            quick = quick_client(self.client, self._quick_seconds)
            self.lease = Lease(quick, self.owner_key, self.lease_seconds, self.commits_key)
            self.lease.after_renewal = self._heal_in_background
            self.lease.acquire(self.namespace)
        except PersistenceError:
            self.lease = None
            raise
        except Exception as error:
            self.lease = None
            raise self._fail("taking the namespace's lease", error) from error
        try:
            self._load_scripts()
            if self.scripted:
                self._keep_connections()
            before = time.time()
            seconds, micros = self.client.time()
            after = time.time()
            self._offset_ms = clock_offset_ms(before, seconds, micros, after)
        except Exception as error:
            self.close()
            raise self._fail("opening the store", error) from error

    def _in_process(self) -> bool:
        """fakeredis (or a wrapper of it): in-process, nothing times out, nothing is evicted."""
        pool = getattr(self.client, "connection_pool", None)
        kinds = (type(self.client), getattr(pool, "connection_class", type(None)))
        return any(kind.__module__.split(".")[0] == "fakeredis" for kind in kinds)

    def _check_policy(self) -> None:
        """Refuse a Redis whose ``maxmemory-policy`` evicts any key (``eviction.py``); warn
        when it cannot be read."""
        try:
            policy = read_policy(self.client)
        except Exception as error:
            raise self._fail("reading maxmemory-policy", error) from error
        if policy is None:
            warnings.warn(
                f"sqsmock cannot read Redis's maxmemory-policy (CONFIG and INFO are disabled "
                f"or renamed; namespace {self.namespace!r}): if it evicts keys (allkeys-*), "
                "acknowledged messages can be lost -- make sure it is `maxmemory-policy "
                "noeviction`",
                RuntimeWarning,
                stacklevel=4,
            )
            self._policy_unknown = True
        elif evicting(policy):
            raise refusal(policy, self.namespace)

    def _recheck_policy(self, client: Any) -> None:
        """``CONFIG SET`` can make Redis evict at run time: refuse every call from then on."""
        if self._refused is not None or self._policy_unknown or self._in_process():
            return
        try:
            policy = read_policy(client)
        except Exception:  # Redis away: the lease's renewal reports that
            return
        if evicting(policy):
            assert policy is not None
            self._refused = refusal(policy, self.namespace, running=True)

    def close(self) -> None:
        self._release_connections()
        lease, self.lease = self.lease, None
        if lease is not None:
            lease.release()
            if lease.client is not self.client:  # the lease's own quick connections
                with contextlib.suppress(Exception):
                    lease.client.close()

    # -- health -----------------------------------------------------------------------------

    def problem(self) -> str | None:
        """Why calls cannot be answered now (Redis away, the lease lost), or None."""
        if self._refused is not None:
            return str(self._refused.kwargs.get("reason", self._refused))
        if self._problem is not None:
            return self._problem
        lease = self.lease
        if lease is not None:
            if lease.lost:
                return f"this activation lost the lease of namespace {self.namespace!r}"
            if lease.unreachable is not None:
                return f"Redis does not answer the lease's renewal ({lease.unreachable})"
        return None

    def take_resync(self) -> bool:
        """True once after the lease was taken back: memory must reload what the store holds."""
        resync, self._resync = self._resync, False
        return resync

    def _heal_in_background(self) -> None:
        """From the lease's thread: once Redis answers again, recover (and settle what is
        pending) without waiting for a call, so health says ok as soon as it is."""
        lease = self.lease
        if lease is not None:
            self._recheck_policy(lease.client)
        if self._refused is None and self.problem() is not None:
            with within(self.lease_seconds / 3):  # no call waits: more than one call's time
                self.settle()

    def _unavailable(self, problem: str) -> PersistenceError:
        return PersistenceError(
            reason=f"the store of namespace {self.namespace!r} is unavailable ({problem}); "
            "calls are refused until Redis answers again"
        )

    def _ready(self) -> None:
        """Raise at once while the store cannot be used; else (after a problem) check that
        Redis answers and the lease is ours -- taking it back if it lapsed -- first."""
        if self._refused is not None:
            raise self._refused
        problem = self.problem()
        if problem is None:
            return
        if not self._heal_lock.acquire(blocking=False):  # another call is checking: fail fast
            raise self._unavailable(problem)
        try:
            self._recover()
        finally:
            self._heal_lock.release()

    def _recover(self) -> None:
        lease = self.lease
        if lease is None:
            self._problem = None
            return
        try:
            lease.client.ping()  # a round trip bounded by the lease's short time-out
            if not lease.lost:
                lease.renew()  # finds it lapsed or taken: lease.lost
            if lease.lost:
                lease.reacquire(self.namespace)
                self._unverified = True
            if self._unverified:  # taken back: was it evicted, with other keys?
                self._check_intact(lease.client)
                self._unverified = False
                self._resync = True
        except PersistenceError as refused:
            self._refused = refused
            raise
        except Exception as error:
            self._problem = f"Redis does not answer: {type(error).__name__}: {error}"
            raise self._unavailable(self._problem) from error
        lease.unreachable = None
        self._problem = None

    def _check_intact(self, client: Any) -> None:
        """After the lease was taken back: it may have been evicted -- refuse (for good) if
        Redis evicts any key now, or the schema key is gone too."""
        self._recheck_policy(client)
        if self._refused is None and self._schema_seen and not client.exists(self.schema_key):
            self._refused = evicted(self.namespace, self.schema_key)
        if self._refused is not None:
            raise self._refused
