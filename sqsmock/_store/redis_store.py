"""The Redis store (a real server through redis-py, or fakeredis in-process).

Keys, under a namespace prefix ``P`` (default ``sqsmock:``); ``<qid>`` is ``region/account/name``
and ``<qid*>`` the same percent-encoded (``encode_qid``: no input can put the ``:`` separator in
a key, nor make two ids one key):

    P:schema       string  "3" ("2" is migrated when a mock starts, see ``_migrate``)
    P:owner        string  the ownership lease: token, host, pid (expires unless renewed)
    P:commits      hash    commit channel -> id of its last commit (fencing, see below);
                           owner -> token of the last activation to take the lease
    P:queues       hash    qid -> queue metadata (JSON)
    P:deleted      hash    qid -> when the queue was deleted (the 60-second rule)
    P:tasks        hash    task id -> message move task (JSON)
    P:q:<qid*>     hash    m:<MessageId> -> the message: content and delivery state (JSON)
                           d:<deduplication key> -> [MessageId, SequenceNumber, expiry]
                           seq -> the FIFO SequenceNumber counter
                           s:<name> -> engine state that decides later answers (FIFO rotation
                           tickets, receive attempts)

Each SQS call's writes reach Redis in one round trip before the call returns: one Lua script
(``COMMIT``) that applies them atomically only if (1) this activation still holds the lease,
(2) Redis's clock has not passed the call's deadline -- the moment the client gives up waiting --
and (3) the commit channel's last commit id is the one this activation wrote last (a commit
whose id is already recorded is not applied twice: a client's retry is harmless). A write that
timed out can therefore not land later: once the deadline passed it is refused, and before that
the caller *settles* it -- if its id is recorded it took effect (the call succeeds), otherwise
the channel is fenced with a fresh id so the write can never apply. With fakeredis (in-process:
nothing times out) or a server without Lua, the writes go as one command or MULTI/EXEC.

When Redis fails (or the lease is lost) the store is *unavailable* (``problem()``): every later
operation first checks, with a round trip bounded by the lease's short time-out, that Redis
answers and the lease is ours -- taking a lapsed lease back if nobody owned the namespace
meanwhile (``take_resync``: the engine then reloads everything) -- and raises at once if not.
The lease's renewal thread runs the same check, so the store heals without waiting for a call.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import os
import re
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from . import DEFAULT_NAMESPACE, DEFAULT_TIMEOUT, Op, QueueRecord, Snapshot, default_namespace
from .errors import PersistenceError
from .lease import LEASE_SECONDS, MARKER_FIELD, Lease

__all__ = [
    "DEFAULT_NAMESPACE",
    "DEFAULT_TIMEOUT",
    "SCHEMA",
    "RedisStore",
    "connect",
    "default_namespace",
    "open_store",
]

SCHEMA = "3"
#: Schemas this version reads: "2" is migrated to "3" when a mock starts (see ``_migrate``).
_OLD_SCHEMAS = ("2",)
_MESSAGE = "m:"
_DEDUP = "d:"
_SEQUENCE = "seq"
#: Engine state that decides later answers (FIFO group rotation, receive attempts ...).
_STATE = "s:"
#: Characters a queue id keeps as they are in a key: printable ASCII but ``%`` and ``:``.
_PLAIN = frozenset(chr(c) for c in range(0x21, 0x7F)) - {"%", ":"}
_ESCAPE = re.compile(r"%([0-9A-F]{2})")
#: Suffixes of the fixed keys of a namespace (a nested namespace ends its keys the same way).
_FIXED = ("schema", "owner", "commits", "queues", "deleted", "tasks")
#: Lua's unpack() limit is a few thousand values: HSET/HDEL go in chunks of this many fields.
_CHUNK = 1000

_COMMIT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local t = redis.call('TIME')
if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[5]) then
  return -2
end
local last = redis.call('HGET', KEYS[2], ARGV[2]) or ''
if last == ARGV[4] then return 1 end
if last ~= ARGV[3] then return -3 end
local i = 6
while i <= #ARGV do
  local op, key = ARGV[i], KEYS[tonumber(ARGV[i + 1])]
  if op == 'D' then
    redis.call('DEL', key)
    i = i + 2
  else
    local n = tonumber(ARGV[i + 2])
    local args = {}
    for j = 1, n do args[j] = ARGV[i + 2 + j] end
    redis.call(op == 'S' and 'HSET' or 'HDEL', key, unpack(args))
    i = i + 3 + n
  end
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
return 1
"""

_SETTLE = """
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current == ARGV[2] then return 1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 0
"""


@functools.lru_cache(maxsize=4096)
def encode_qid(qid: str) -> str:
    """A queue id as it appears in a key: ``%``, ``:``, space, control and non-ASCII characters
    percent-encoded (UTF-8), so no region, account or name can forge a separator. Ids of
    printable ASCII without ``%`` or ``:`` -- every id AWS allows -- are unchanged."""
    if all(c in _PLAIN for c in qid):
        return qid
    out = []
    for c in qid:
        if c in _PLAIN:
            out.append(c)
        else:
            out.extend(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
    return "".join(out)


def decode_qid(text: str) -> str | None:
    """The queue id ``encode_qid`` made ``text`` from, or None if it did not make it."""
    if not all(c in _PLAIN or c == "%" for c in text):
        return None
    parts = _ESCAPE.split(text)
    data = bytearray()
    for i, part in enumerate(parts):
        if i % 2:
            data.append(int(part, 16))
        elif "%" in part:
            return None
        else:
            data += part.encode("ascii")
    try:
        qid = data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None
    return qid if encode_qid(qid) == text and valid_qid(qid) else None


def valid_qid(qid: str) -> bool:
    """``region/account/name``: three non-empty parts (the name and account hold no ``/``)."""
    parts = qid.rsplit("/", 2)
    return len(parts) == 3 and all(parts)


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
        return redis.Redis.from_url(
            persistence,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry_on_timeout=False,
            retry=Retry(NoBackoff(), 0),
        )
    if not all(hasattr(persistence, name) for name in ("pipeline", "hgetall", "scan_iter")):
        raise TypeError(
            "persistence must be a redis.Redis (or fakeredis) client or a redis:// URL, "
            f"not {persistence!r}"
        )
    return persistence


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


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _quick_client(client: Any, seconds: float) -> Any:
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
        quick_pool = type(pool)(connection_class=pool.connection_class, max_connections=4, **kwargs)
    except TypeError:  # pragma: no cover - an unusual pool
        return client
    return redis.Redis(connection_pool=quick_pool)


def _timed_out(error: BaseException) -> bool:
    return any("Timeout" in c.__name__ for c in type(error).__mro__)


def _texts(mapping: dict[Any, Any]) -> dict[str, str]:
    return {_text(k): _text(v) for k, v in mapping.items()}


class RedisStore:
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
        #: Lua available: commits are fenced (see the module docstring).
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
        self.on_late: Any = None
        #: How long the lease lasts; its renewal and the health probe wait a twelfth of it.
        self.lease_seconds = float(LEASE_SECONDS if lease_seconds is None else lease_seconds)
        #: Why the store cannot be used now (Redis failed, the lease lapsed), None when fine.
        self._problem: str | None = None
        #: Set for good when the namespace turned out owned by someone else after a lapse.
        self._refused: PersistenceError | None = None
        #: The lease was taken back after a lapse: the engine reloads everything it holds.
        self._resync = False
        self._heal_lock = threading.Lock()

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
        try:
            quick = _quick_client(self.client, min(self._patience, self.lease_seconds / 12))
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
            before = time.time()
            seconds, micros = self.client.time()
            after = time.time()
            self._offset_ms = (int(seconds) * 1000 + int(micros) / 1000) - (before + after) * 500
        except Exception as error:
            self.close()
            raise self._fail("opening the store", error) from error

    def _load_scripts(self) -> None:
        if type(self.client).__module__.split(".")[0] == "fakeredis":
            # In-process: no write can time out or arrive late, and its Lua (lupa) would cost
            # more than the call itself.
            self.scripted = False
            return
        try:
            self._commit_sha = _text(self.client.script_load(_COMMIT))
        except Exception as error:
            names = {c.__name__ for c in type(error).__mro__}
            if names & {"ConnectionError", "TimeoutError"}:
                raise
            self.scripted = False  # no Lua on this server: unfenced writes
            return
        self.scripted = True

    def close(self) -> None:
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
        if self._refused is None and self.problem() is not None:
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
                self._resync = True
        except PersistenceError as refused:
            self._refused = refused
            raise
        except Exception as error:
            self._problem = f"Redis does not answer: {type(error).__name__}: {error}"
            raise self._unavailable(self._problem) from error
        lease.unreachable = None
        self._problem = None

    # -- writing ----------------------------------------------------------------------------

    def _commands(self, ops: Iterable[Op]) -> list[tuple[str, str, Any]]:
        """The ops as commands: per key, a DEL comes first, then HDELs, then HSETs; a later op
        on a field overrides an earlier one."""
        sets: dict[str, dict[str, str]] = defaultdict(dict)
        dels: dict[str, dict[str, None]] = defaultdict(dict)
        drops: dict[str, None] = {}

        def put(key: str, name: str, value: str) -> None:
            sets[key][name] = value
            dels[key].pop(name, None)

        def remove(key: str, name: str) -> None:
            sets[key].pop(name, None)
            dels[key][name] = None

        def drop(key: str) -> None:
            sets.pop(key, None)
            dels.pop(key, None)
            drops[key] = None

        for op in ops:
            kind = op.kind
            if kind == "msg":
                put(self.queue_key(op.qid), _MESSAGE + op.key, op.value)
            elif kind == "del":
                remove(self.queue_key(op.qid), _MESSAGE + op.key)
            elif kind == "dedup":
                put(self.queue_key(op.qid), _DEDUP + op.key, op.value)
            elif kind == "undedup":
                remove(self.queue_key(op.qid), _DEDUP + op.key)
            elif kind == "sequence":
                put(self.queue_key(op.qid), _SEQUENCE, op.value)
            elif kind == "state":
                put(self.queue_key(op.qid), _STATE + op.key, op.value)
            elif kind == "unstate":
                remove(self.queue_key(op.qid), _STATE + op.key)
            elif kind == "clear":  # purge: messages and deduplication entries go
                drop(self.queue_key(op.qid))
                if op.value:
                    put(self.queue_key(op.qid), _SEQUENCE, op.value)
            elif kind == "queue":
                put(self.queues_key, op.qid, op.value)
            elif kind == "drop":  # the queue is deleted
                drop(self.queue_key(op.qid))
                remove(self.queues_key, op.qid)
            elif kind == "deleted":
                put(self.deleted_key, op.qid, op.value)
            elif kind == "undeleted":
                remove(self.deleted_key, op.qid)
            elif kind == "task":
                put(self.tasks_key, op.key, op.value)
            else:
                raise ValueError(f"unknown store op {kind!r}")
        commands: list[tuple[str, str, Any]] = [("delete", key, None) for key in drops]
        commands += [("hdel", key, list(names)) for key, names in dels.items() if names]
        commands += [("hset", key, mapping) for key, mapping in sets.items() if mapping]
        return commands

    def commit(self, ops: list[Op], channel: str = "") -> None:
        """Apply the ops atomically (all or nothing) -- or raise PersistenceError, in which case
        they did not apply and never will. ``channel``: who commits (a queue's id, or '' for
        namespace-wide writes); one channel's commits never run concurrently."""
        commands = self._commands(ops)
        if not commands:
            return
        self.settle()
        lease = self.lease
        if lease is not None and lease.lost:
            raise self._lost()
        if not self.scripted or lease is None:
            try:
                self._commit_plain(commands)
            except PersistenceError:
                self._problem = "a write failed"
                raise
            return
        keys: list[str] = [self.owner_key, self.commits_key]
        commit_id = f"{self._id_prefix}{next(self._ids)}"
        deadline = time.time() * 1000 + self._offset_ms + self._patience * 1000
        args: list[Any] = [lease.value, channel, self._last.get(channel, ""), commit_id]
        args.append(int(deadline))
        for command, key, arguments in commands:
            keys.append(key)  # a key may appear twice (DEL then HSET): KEYS may repeat
            k = len(keys)
            if command == "delete":
                args += ("D", k)
            elif command == "hdel":
                names = list(arguments)
                for i in range(0, len(names), _CHUNK):
                    chunk = names[i : i + _CHUNK]
                    args += ("H", k, len(chunk), *chunk)
            else:
                pairs = [x for item in arguments.items() for x in item]
                for i in range(0, len(pairs), 2 * _CHUNK):
                    chunk = pairs[i : i + 2 * _CHUNK]
                    args += ("S", k, len(chunk), *chunk)
        try:
            result = self._run_commit(keys, args)
        except Exception as error:
            self._problem = f"a write failed: {type(error).__name__}: {error}"
            with self._pending_lock:
                self._pending[channel] = (commit_id, list(ops))
                if _timed_out(error):  # Redis is slow or paused: asking now would wait again
                    raise self._fail("writing", error) from error
                try:
                    applied = self._settle_one(channel)
                except Exception:
                    raise self._fail("writing", error) from error
            self._problem = None
            if applied:
                return  # it took effect; only its reply was lost
            raise self._fail("writing", error) from error
        if result == 1:
            self._last[channel] = commit_id
            return
        if result == -1:
            lease.lost = True
            raise self._unavailable(self.problem() or "the lease was lost")
        if result == -2:
            raise PersistenceError(
                reason=f"Redis took longer than the {self.timeout:g} s time-out to run a write "
                f"(namespace {self.namespace!r}); it was refused"
            )
        raise PersistenceError(
            reason=f"the commit channel {channel!r} of namespace {self.namespace!r} was written "
            "by someone else; the write was refused"
        )

    def _lost(self) -> PersistenceError:
        return self._unavailable(
            f"this activation lost the lease of namespace {self.namespace!r}: it lapsed, or "
            "the namespace was wiped or taken by another activation"
        )

    def _run_commit(self, keys: list[str], args: list[Any]) -> Any:
        for attempt in (1, 2):
            pipe = self.client.pipeline(transaction=False)
            pipe.evalsha(self._commit_sha, len(keys), *keys, *args)
            try:
                return pipe.execute()[0]
            except Exception as error:
                if attempt == 1 and type(error).__name__ == "NoScriptError":
                    self._load_scripts()  # the server restarted or flushed its scripts
                    continue
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _commit_plain(self, commands: list[tuple[str, str, Any]]) -> None:
        """Without the script: one command or one MULTI/EXEC. A lease taken away is noticed by
        its renewal (``lease.lost``), within a third of its duration."""
        try:
            pipe = self.client.pipeline(transaction=len(commands) > 1)
            for command, key, arguments in commands:
                if command == "delete":
                    pipe.delete(key)
                elif command == "hdel":
                    pipe.hdel(key, *arguments)
                else:
                    pipe.hset(key, mapping=arguments)
            pipe.execute()
        except Exception as error:
            raise self._fail("writing", error) from error

    # -- settling writes whose outcome is unknown ---------------------------------------------

    def settle(self) -> None:
        """Decide every commit whose outcome is unknown, before anything else reads or writes:
        applied (its ops go to ``late`` for memory to take in) or fenced (it never applies).
        Raises at once while the store is unavailable (see ``problem``)."""
        self._ready()
        if not self._pending:
            return
        with self._pending_lock:
            for channel in list(self._pending):
                ops = self._pending[channel][1]  # only changed under the lock
                try:
                    applied = self._settle_one(channel)
                except Exception as error:
                    self._problem = f"settling a write failed: {type(error).__name__}: {error}"
                    raise self._fail("settling an earlier failed write", error) from error
                if applied:
                    self.late.append(ops)
                    if self.on_late is not None:
                        self.on_late({op.qid for op in ops if op.qid})

    def _settle_one(self, channel: str) -> bool:
        """True if the channel's pending commit applied; else fence it so it never will."""
        commit_id, _ = self._pending[channel]
        fence = "fence-" + uuid.uuid4().hex[:14]
        # EVAL, not EVALSHA: settling is rare, and a restarted server has no scripts loaded.
        applied = self.client.eval(_SETTLE, 1, self.commits_key, channel, commit_id, fence)
        del self._pending[channel]
        if int(applied) == 1:
            self._last[channel] = commit_id
            return True
        self._last[channel] = fence
        return False

    def take_late(self) -> list[list[Op]]:
        """Ops of earlier commits that raised but were found applied (memory lacks them)."""
        late, self.late = self.late, []
        return late

    def clear(self) -> None:
        """Delete this namespace's keys (the lease stays: this activation still owns it)."""
        self.settle()
        try:
            keys = self._own_keys(include_owner=False)
            pipe = self.client.pipeline(transaction=True)
            if keys:
                pipe.delete(*keys)
            pipe.set(self.schema_key, SCHEMA)
            if self.lease is not None:  # this activation still took the lease last
                pipe.hset(self.commits_key, MARKER_FIELD, self.lease.token)
            pipe.execute()
        except Exception as error:
            raise self._fail("clearing the namespace", error) from error
        self._last.clear()

    def _scan(self) -> set[str]:
        escaped = "".join("\\" + c if c in "*?[]\\" else c for c in self.namespace)
        return {_text(k) for k in self.client.scan_iter(match=escaped + "*", count=1000)}

    def own(self, key: str) -> bool:
        """Is ``key`` one sqsmock writes for this namespace (fixed key or a queue's hash)?"""
        rest = key[len(self.namespace) :] if key.startswith(self.namespace) else None
        if rest is None:
            return False
        if rest in _FIXED:
            return True
        return rest.startswith("q:") and decode_qid(rest[2:]) is not None

    def _own_keys(self, include_owner: bool = True) -> set[str]:
        """This namespace's keys: every key under its prefix -- its fixed keys, its queues'
        hashes, and anything else found there (a corrupted record, a key of an older format)
        -- but never those of another sqsmock namespace nested in it (``app:`` and
        ``app:inner:``), recognised by their fixed keys."""
        keys = self._scan()
        nested = self._nested(keys)
        keys = {key for key in keys if not any(key.startswith(prefix) for prefix in nested)}
        if not include_owner:
            keys.discard(self.owner_key)
        return keys

    # -- reading ----------------------------------------------------------------------------

    def _nested(self, keys: set[str]) -> list[str]:
        """Prefixes of other namespaces nested in this one ("X:" and "X:inner:"), recognised by
        their fixed keys (``X:inner:schema``, ``X:inner:owner`` ...)."""
        nested = []
        for key in keys:
            if self.own(key):
                continue
            for suffix in ("schema", "owner"):
                if key.endswith(suffix) and len(key) > len(self.namespace) + len(suffix):
                    nested.append(key[: -len(suffix)])
        return nested

    def load(self) -> Snapshot:
        self.settle()
        try:
            keys = self._scan()
            pipe = self.client.pipeline(transaction=False)
            pipe.get(self.schema_key)
            pipe.hgetall(self.queues_key)
            pipe.hgetall(self.deleted_key)
            pipe.hgetall(self.tasks_key)
            pipe.hgetall(self.commits_key)
            schema, queues, deleted, tasks, commits = pipe.execute()
        except Exception as error:
            raise self._fail("loading", error) from error
        nested = self._nested(keys)
        keys = {key for key in keys if not any(key.startswith(prefix) for prefix in nested)}
        if schema is not None and _text(schema) in _OLD_SCHEMAS:
            keys = self._migrate(keys, _texts(queues))
            schema = SCHEMA
        if schema is not None and _text(schema) != SCHEMA:
            raise PersistenceError(
                reason=f"{self.schema_key} is schema {_text(schema)!r}; this sqsmock reads "
                f"schema {SCHEMA!r}"
            )
        queues = _texts(queues)
        expected = {
            self.schema_key,
            self.queues_key,
            self.deleted_key,
            self.tasks_key,
            self.owner_key,
            self.commits_key,
        }
        expected.update(self.queue_key(qid) for qid in queues)
        foreign = sorted(keys - expected)
        if foreign:
            raise PersistenceError(
                reason=f"key {foreign[0]!r} under the namespace {self.namespace!r} is not one "
                "sqsmock wrote (a foreign or corrupted key); use another namespace or remove it"
            )
        snapshot = Snapshot(tasks=_texts(tasks))
        for qid, when in _texts(deleted).items():
            try:
                moment = float(when)
            except ValueError:
                moment = math.nan
            if not math.isfinite(moment) or moment < 0 or not valid_qid(qid):
                raise self._corrupt(self.deleted_key, qid, f"not a deleted queue's time ({when!r})")
            snapshot.deleted[qid] = moment
        self._last = _texts(commits)
        records = self._read_queues(list(queues))
        for qid, meta in queues.items():
            record = records[qid]
            record.meta = meta
            snapshot.queues[qid] = record
        if schema is None and (queues or snapshot.deleted or snapshot.tasks):
            raise PersistenceError(reason=f"{self.schema_key} is missing: not an sqsmock store")
        if schema is None:
            self._write_schema()
        return snapshot

    def _migrate(self, keys: set[str], queues: dict[str, str]) -> set[str]:
        """Schema 2 -> 3. Schema 2 put a queue id in its key as it was, so a region holding
        ``:`` (or ``%``) made a key the loader misread; schema 3 percent-encodes those
        (``encode_qid``). Every id AWS allows is the same in both. The hash of each stored
        queue (known from ``P:queues``, which holds ids as they are) is renamed to its new
        key; other schema-2 queue keys that no stored queue owns and whose id held ``:`` --
        left behind by a reset or DeleteQueue of such a queue -- are deleted. Returns the keys
        as they are now."""
        prefix = self.namespace + "q:"
        renames = {}
        for qid in queues:
            old, new = prefix + qid, self.queue_key(qid)
            if old != new and old in keys:
                renames[old] = new
        kept = set(renames.values()) | {self.queue_key(qid) for qid in queues}
        orphans = [
            key
            for key in keys
            if key.startswith(prefix)
            and key not in renames
            and key not in kept
            and ":" in key[len(prefix) :]
        ]
        try:
            pipe = self.client.pipeline(transaction=True)
            for old, new in renames.items():
                pipe.rename(old, new)
            if orphans:
                pipe.delete(*orphans)
            pipe.set(self.schema_key, SCHEMA)
            pipe.execute()
        except Exception as error:
            raise self._fail("migrating the namespace to schema " + SCHEMA, error) from error
        return (keys - set(renames) - set(orphans)) | set(renames.values())

    def _write_schema(self) -> None:
        try:
            self.client.set(self.schema_key, SCHEMA)
        except Exception as error:
            raise self._fail("writing the schema marker", error) from error

    def load_queue(self, qid: str) -> QueueRecord | None:
        self.settle()
        try:
            meta = self.client.hget(self.queues_key, qid)
        except Exception as error:
            raise self._fail("reloading a queue", error) from error
        if meta is None:
            return None
        record = self._read_queues([qid])[qid]
        record.meta = _text(meta)
        return record

    def _read_queues(self, qids: list[str]) -> dict[str, QueueRecord]:
        try:
            pipe = self.client.pipeline(transaction=False)
            for qid in qids:
                pipe.hgetall(self.queue_key(qid))
            results = pipe.execute()
        except Exception as error:
            raise self._fail("loading messages", error) from error
        return {qid: self._queue_record(qid, raw) for qid, raw in zip(qids, results, strict=True)}

    def _queue_record(self, qid: str, raw: dict[Any, Any]) -> QueueRecord:
        key = self.queue_key(qid)
        record = QueueRecord(meta="")
        for name, value in raw.items():
            try:
                field, text = _text(name), _text(value)
            except UnicodeDecodeError as error:
                raise self._corrupt(key, repr(name), f"not UTF-8 text ({error})") from None
            if field.startswith(_MESSAGE):
                record.messages[field[len(_MESSAGE) :]] = text
            elif field.startswith(_DEDUP):
                record.dedup[field[len(_DEDUP) :]] = text
            elif field.startswith(_STATE):
                record.state[field[len(_STATE) :]] = text
            elif field == _SEQUENCE:
                try:
                    record.sequence = int(text)
                except ValueError:
                    raise self._corrupt(key, field, "not an integer") from None
            else:
                raise self._corrupt(key, field, "not a field sqsmock writes")
        return record

    def corrupted(self, reason: str) -> PersistenceError:
        return PersistenceError(
            reason=f"unreadable record under namespace {self.namespace!r}: {reason}"
        )

    def _corrupt(self, key: str, field: str, reason: str) -> PersistenceError:
        where = f"{key} field {field!r}" if field else key
        return PersistenceError(reason=f"corrupted record at {where}: {reason}")
