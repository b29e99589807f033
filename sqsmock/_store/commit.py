"""The Redis store's write path: one atomic, fenced round trip per SQS call.

Each SQS call's writes reach Redis in one round trip before the call returns: one Lua script
(``_COMMIT``) that applies them atomically only if (1) this activation still holds the lease,
(2) the namespace's schema key is still there (Redis evicted nothing: ``eviction.py``),
(3) Redis's clock has not passed the call's deadline -- the moment the client gives up waiting --
and (4) the commit channel's last commit id is the one this activation wrote last (a commit
whose id is already recorded is not applied twice: a client's retry is harmless). A write that
timed out can therefore not land later: once the deadline passed it is refused, and before that
the caller *settles* it -- if its id is recorded it took effect (the call succeeds), otherwise
the channel is fenced with a fresh id so the write can never apply. With fakeredis (in-process:
nothing times out) or a server without Lua, the writes go as one command or MULTI/EXEC.
With a plain ``redis.Redis`` client the EVALSHA goes over connections the store keeps
(``direct.py``): redis-py's pipeline and pool would cost about as much as the round trip. A
commit, with whatever settling and recovery precede it, waits for Redis no longer than the
time-out as a whole (``deadline.py``).

This is the ``Commits`` part of ``RedisStore`` (``redis_store.py``), which inherits it: every
SQS call that changes something runs ``commit``, so it is a method of the store itself, not a
call through another object. This module imports no store: the store imports it.
"""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from . import Op
from .connection import timed_out
from .deadline import left, within
from .direct import Direct
from .errors import PersistenceError
from .eviction import evicted
from .keys import DEDUP, MESSAGE, SEQUENCE, STATE, as_text

if TYPE_CHECKING:
    from .lease import Lease

__all__ = ["Commits"]

#: Lua's unpack() limit is a few thousand values: HSET/HDEL go in chunks of this many fields.
_CHUNK = 1000

_COMMIT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if ARGV[6] == '1' and redis.call('EXISTS', KEYS[3]) == 0 then return -4 end
local t = redis.call('TIME')
if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[5]) then
  return -2
end
local last = redis.call('HGET', KEYS[2], ARGV[2]) or ''
if last == ARGV[4] then return 1 end
if last ~= ARGV[3] then return -3 end
local i = 7
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


class Commits(Direct):
    """Writing ops to Redis (``commit``), and settling writes whose outcome is unknown."""

    if TYPE_CHECKING:  # what this part uses of the store (``redis_store.py``)
        client: Any
        namespace: str
        timeout: float
        queues_key: str
        deleted_key: str
        tasks_key: str
        owner_key: str
        commits_key: str
        schema_key: str
        lease: Lease | None
        _schema_seen: bool
        _refused: PersistenceError | None
        scripted: bool
        late: list[list[Op]]
        on_late: Callable[[set[str]], None] | None
        _commit_sha: str
        _patience: float
        _offset_ms: float
        _last: dict[str, str]
        _id_prefix: str
        _ids: itertools.count[int]
        _pending: dict[str, tuple[str, list[Op]]]
        _pending_lock: threading.Lock
        _problem: str | None
        _spares: list[Any] | None
        _spares_pid: int

        def queue_key(self, qid: str) -> str: ...
        def problem(self) -> str | None: ...
        def _fail(self, doing: str, error: BaseException) -> PersistenceError: ...
        def _unavailable(self, problem: str) -> PersistenceError: ...
        def _ready(self) -> None: ...

    def _load_scripts(self) -> None:
        if type(self.client).__module__.split(".")[0] == "fakeredis":
            # In-process: no write can time out or arrive late, and its Lua (lupa) would cost
            # more than the call itself.
            self.scripted = False
            return
        try:
            self._commit_sha = as_text(self.client.script_load(_COMMIT))
        except Exception as error:
            names = {c.__name__ for c in type(error).__mro__}
            if names & {"ConnectionError", "TimeoutError"}:
                raise
            self.scripted = False  # no Lua on this server: unfenced writes
            return
        self.scripted = True

    # -- writing ----------------------------------------------------------------------------

    def _commands(self, ops: Sequence[Op]) -> list[tuple[str, str, Any]]:
        """The ops as commands: per key, a DEL comes first, then HDELs, then HSETs; a later op
        on a field overrides an earlier one."""
        if len(ops) == 1:  # most calls: one message written or deleted
            op = ops[0]
            if op.kind == "msg":
                return [("hset", self.queue_key(op.qid), {MESSAGE + op.key: op.value})]
            if op.kind == "del":
                return [("hdel", self.queue_key(op.qid), [MESSAGE + op.key])]
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
                put(self.queue_key(op.qid), MESSAGE + op.key, op.value)
            elif kind == "del":
                remove(self.queue_key(op.qid), MESSAGE + op.key)
            elif kind == "dedup":
                put(self.queue_key(op.qid), DEDUP + op.key, op.value)
            elif kind == "undedup":
                remove(self.queue_key(op.qid), DEDUP + op.key)
            elif kind == "sequence":
                put(self.queue_key(op.qid), SEQUENCE, op.value)
            elif kind == "state":
                put(self.queue_key(op.qid), STATE + op.key, op.value)
            elif kind == "unstate":
                remove(self.queue_key(op.qid), STATE + op.key)
            elif kind == "clear":  # purge: messages and deduplication entries go
                drop(self.queue_key(op.qid))
                if op.value:
                    put(self.queue_key(op.qid), SEQUENCE, op.value)
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
        with within(self.timeout):
            self._commit(ops, commands, channel)

    def _commit(self, ops: list[Op], commands: list[tuple[str, str, Any]], channel: str) -> None:
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
        keys: list[str] = [self.owner_key, self.commits_key, self.schema_key]
        commit_id = f"{self._id_prefix}{next(self._ids)}"
        wait = self._patience  # until the client gives up: the write may apply until then
        remaining = left()
        if remaining is not None and remaining < wait:
            if remaining <= 0:
                raise self._slow("a write")
            wait = remaining
        deadline = time.time() * 1000 + self._offset_ms + wait * 1000
        args: list[Any] = [lease.value, channel, self._last.get(channel, ""), commit_id]
        args += (int(deadline), "1" if self._schema_seen else "0")
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
                if timed_out(error):  # Redis is slow or paused: asking now would wait again
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
        if result == -4:  # the schema key is gone: evicted (or deleted) behind our back
            self._refused = evicted(self.namespace, self.schema_key)
            raise self._refused
        if result == -2:
            raise self._slow("a write", refused=True)
        raise PersistenceError(
            reason=f"the commit channel {channel!r} of namespace {self.namespace!r} was written "
            "by someone else; the write was refused"
        )

    def _slow(self, doing: str, refused: bool = False) -> PersistenceError:
        return PersistenceError(
            reason=f"Redis took longer than the {self.timeout:g} s time-out to run {doing} "
            f"(namespace {self.namespace!r})" + ("; it was refused" if refused else "")
        )

    def _lost(self) -> PersistenceError:
        return self._unavailable(
            f"this activation lost the lease of namespace {self.namespace!r}: it lapsed, or "
            "the namespace was wiped or taken by another activation"
        )

    def _run_commit(self, keys: list[str], args: list[Any]) -> Any:
        for attempt in (1, 2):
            try:
                if self._spares is not None:
                    return self._evalsha_direct(keys, args)
                pipe = self.client.pipeline(transaction=False)
                pipe.evalsha(self._commit_sha, len(keys), *keys, *args)
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
        with within(self.timeout):
            self._settle()

    def _settle(self) -> None:
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
