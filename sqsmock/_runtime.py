"""One activation of sqsmock: the clock, the store, the engine, and the door calls come in by.

``mock_sqs`` (in-process) and ``serve`` (the HTTP server) each build a ``Runtime`` when they
start and close it when they stop. Adapters hand it calls (``call``/``call_async``); it runs them
through the protocol layer against its backend. The handle's ``clock``, ``reset()`` and
``peek()`` are read from it too.

Every call passes here, whichever adapter brought it, so this is where the testing aids act
(``_features``): the call journal records each answered call, fault-injection rules may delay a
call on the mock's clock or answer it with an error, and delivery settings may change what
``ReceiveMessage`` hands out on standard queues. With no rule and no setting in force a call
costs one journal append more than the protocol layer itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from math import inf
from typing import Any, TypeVar

from . import _protocol
from ._declare import apply as apply_declarations
from ._engine import Backend, Clock, MessageView, Queue, make_clock
from ._errors import SqsError
from ._features.chaos import Chaos, as_delivery
from ._features.faults import Faults, Outcome
from ._features.journal import CallJournal
from ._features.sns_http import send_over_loopback
from ._features.waiters import EventLog
from ._options import StateOptions
from ._protocol import Call, LongPoll, Result
from ._protocol.sns import start as start_sns
from ._service import Request, Response
from ._service._wait import in_thread
from ._store import errors as store_errors

__all__ = ["Runtime"]

T = TypeVar("T")
log = logging.getLogger("sqsmock")


class Runtime:
    """The live state behind an active mock or server."""

    def __init__(self, options: StateOptions) -> None:
        region, account = options.region, options.account_id
        self.region = region
        self.account = account
        #: Every call answered (``handle.calls``); built first: a bad limit opens no store.
        self.journal = CallJournal(options.journal_limit, options.journal_byte_limit)
        self._backend: Backend | None = _open_backend(options)
        #: Message events for ``wait_for``; kept while the call journal records.
        self.events = EventLog(region, account, self.journal)
        self.events.attach(self.backend)
        self.journal.on_change = self.events.follow
        self.backend.topics.sender = send_over_loopback  # SNS's posts to http subscribers
        #: The engine does blocking I/O (a store): async callers run its calls off the loop.
        self.blocking = options.persistence is not None
        self.faults = Faults()  #: Fault-injection rules (``handle.faults``).
        self.chaos = Chaos(as_delivery(options.delivery))  #: ``handle.chaos(...)`` settings
        self.sns = True  #: answer SNS (always over HTTP; in-process when the mock asks)
        #: Queues declared ahead (``config=``): made now and again after every reset.
        self.declarations = options.declarations
        try:
            self._declare()
        except BaseException:
            self.close()
            raise

    def _declare(self) -> None:
        if self.declarations is not None:
            apply_declarations(self.declarations, self.backend, self.region, self.account)

    @property
    def backend(self) -> Backend:
        backend = self._backend
        if backend is None:
            raise RuntimeError("this sqsmock is not active; start() it or enter it first")
        return backend

    @property
    def backend_or_none(self) -> Backend | None:
        return self._backend

    @property
    def clock(self) -> Clock:
        return self.backend.clock

    def health(self) -> tuple[bool, str]:
        """(True, "ok"), or (False, why calls cannot be answered now): the store's Redis does
        not answer, or this activation lost its namespace's lease (it is taken back, and the
        state reloaded, by the first call once Redis answers). For a health check: answer 503
        with the reason while it is False."""
        backend = self._backend
        if backend is None:
            return False, "stopped"
        store = backend.store
        problem = None if store is None else store.problem()
        return (True, "ok") if problem is None else (False, problem)

    def close(self) -> None:
        """End waiting long polls and release the store; calls after this are not answered."""
        backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()

    # -- calls ------------------------------------------------------------------------------
    #
    # One dispatch for every caller: ``start`` runs a call as far as it goes without waiting
    # (fault rules, delivery settings, the protocol layer, the journal) and answers its
    # ``Result``, or a ``_Waiting`` for a receive that has to wait. The two drivers differ only
    # in how they wait: ``call`` blocks its thread, ``call_async`` awaits (and, over a store,
    # runs the engine's part off the event loop).

    def call(self, operation: str, params: Request, caller: Call) -> Result:
        """Answer one call; a long poll blocks this thread."""
        step = self.start(operation, params, caller)
        if isinstance(step, Result):
            return step
        return step.finish(_protocol.wait_blocking(step.poll, step.clock))

    async def call_async(
        self, operation: str, params: Request, caller: Call, *, remote: bool = False
    ) -> Result:
        """Answer one call; a long poll awaits without blocking the event loop.

        For a ``remote`` caller (over HTTP) a store that fails (Redis away, the lease lost)
        answers the call with a 503 ``ServiceUnavailable``, which SDKs retry; in process it
        raises ``PersistenceError``.
        """
        if not self.blocking:
            step = self.start(operation, params, caller)
            if isinstance(step, Result):
                return step
            return await self.wait_async(step)
        try:
            step = await _in_thread(lambda: self.start(operation, params, caller))
            if isinstance(step, Result):
                return step
            waited = await _protocol.wait_awaiting(step.poll, step.clock, _in_thread)
            return step.finish(waited)
        except store_errors.PersistenceError as error:
            if not remote:
                raise
            log.warning("sqsmock answered %s with ServiceUnavailable: %s", operation, error)
            return Result.of_error(operation, SqsError("ServiceUnavailable"))

    async def wait_async(self, step: _Waiting) -> Result:
        """Finish a call that ``start`` left waiting (a long poll), when the engine does no
        blocking I/O: the wait awaits on the loop."""
        return step.finish(await _protocol.wait_awaiting(step.poll, step.clock, None))

    def start(self, operation: str, params: Request, caller: Call) -> Result | _Waiting:
        """Run one call up to its answer, or up to the wait of a long poll."""
        backend = self._backend
        if backend is None:
            backend = self.backend  # raises: not active
        if self.faults.rules or self.chaos.active:
            return self._start_changed(backend, operation, params, caller)
        journal = self.journal
        if not journal.keeping:
            step = _protocol.start(backend, operation, params, caller)
            if isinstance(step, Result):
                return step
            return _Waiting(step, backend.clock, operation, params, caller, None, 0.0, None)
        when = backend.clock.now()
        step = _protocol.start(backend, operation, params, caller)
        if isinstance(step, Result):
            journal.record(
                operation, params, step, caller.region, caller.account, when, False, caller.unshared
            )
            return step
        return _Waiting(step, backend.clock, operation, params, caller, journal, when, None)

    def _start_changed(
        self, backend: Backend, operation: str, params: Request, caller: Call
    ) -> Result | _Waiting:
        """A call that fault rules or delivery settings may change."""
        caller.backend = backend
        plan = _Plan(self, backend, operation, params, caller)
        journal = self.journal
        result = plan.answer
        if result is None:
            step = _protocol.start(backend, operation, plan.run_params(), caller)
            if not isinstance(step, Result):
                return _Waiting(
                    step, backend.clock, operation, params, caller, journal, plan.when, plan
                )
            result = plan.finish(step)
        if journal.keeping:
            journal.record(
                operation, params, result, caller.region, caller.account, plan.when, plan.injected
            )
        return result

    def call_sns(self, operation: str, params: Request, caller: Call) -> Result:  # none waits
        return start_sns(self.backend, operation, params, caller)

    async def run_engine(self, func: Callable[[], T]) -> T:
        """Run engine work from a coroutine: in a thread when the engine does blocking I/O (a
        store), else at once (it takes microseconds)."""
        if not self.blocking:
            return func()
        return await _in_thread(func)

    # -- the handle -------------------------------------------------------------------------

    def reset(self) -> None:
        self.backend.reset()
        self.events.clear()
        self.chaos.forget()
        self._declare()

    def find_queue(self, queue: str, region: str | None = None) -> Queue:
        """The queue named ``queue`` (URL or name) as a call would find it; LookupError if
        there is none."""
        call = Call(region or self.region, self.account, backend=self.backend)
        try:
            return call.queue({"QueueUrl": queue})
        except SqsError:
            raise LookupError(f"queue {queue!r} does not exist in this mock") from None

    def peek(
        self, queue: str, region: str | None = None, limit: int | None = None
    ) -> list[MessageView]:
        """Every message of ``queue`` (URL or name), or its first ``limit``, changing nothing."""
        found = self.find_queue(queue, region)
        found.settle()
        return found.peek() if limit is None else found.peek_page(limit, byte_limit=inf).views


class _Plan:
    """What fault rules and delivery settings make of one call, decided before it runs.

    ``answer``: the result when the call is answered without the engine (an injected error,
    every batch entry failed, an empty short poll); otherwise the engine runs it with
    ``params`` (and ``entries`` for a batch with entries failed) and ``finish`` completes it.
    """

    def __init__(
        self, runtime: Runtime, backend: Backend, operation: str, params: Request, caller: Call
    ) -> None:
        self.operation = operation
        self.params: Request = params
        self.entries: list[Any] | None = None
        self.failed: list[dict[str, object]] = []
        self.answer: Result | None = None
        self.injected = False
        self.queue: Queue | None = None
        self.chaos = runtime.chaos
        clock = backend.clock
        self.when = clock.now()
        outcome: Outcome | None = None
        if runtime.faults.rules:
            outcome = runtime.faults.decide(operation, params)
        if outcome is not None:
            if outcome.latency:
                clock.advance(outcome.latency)
            rule = outcome.rule
            if rule is not None and rule.error is not None:
                self.injected = True
                self.answer = Result.of_error(operation, rule.make_error())
                return
            if rule is not None and isinstance(params.get("Entries"), list):
                kept, failed = rule.fail_entries(params["Entries"])
                if failed:
                    self.injected = True
                    self.entries, self.failed = kept, failed
                if failed and not kept:
                    try:  # a call on a missing queue still answers that
                        caller.queue(params)
                    except SqsError as error:
                        self.injected = False
                        self.answer = Result.of_error(operation, error)
                        return
                    payload = {"Successful": [], "Failed": failed}
                    self.answer = Result(operation, 200, payload, None)
                    return
        chaos = self.chaos
        if not chaos.active or operation not in _CHAOS_OPERATIONS:
            return
        try:
            queue = caller.queue(params)
        except SqsError:
            return  # the call answers the error itself
        if operation != "ReceiveMessage":
            chaos.forget(queue)  # purged or deleted: no copy of its messages comes back
            return
        self.queue = queue
        early, self.params = chaos.before_receive(queue, params)
        if early is not None:
            self.answer = Result(operation, 200, early, None)

    def run_params(self) -> Request:
        """The parameters the engine runs the call with: without the entries failed."""
        if self.entries is None:
            return self.params
        return {**self.params, "Entries": self.entries}

    def finish(self, result: Result) -> Result:
        if self.failed and result.error is None:
            payload = dict(result.payload or {})
            payload["Failed"] = [*payload.get("Failed", ()), *self.failed]
            payload.setdefault("Successful", [])
            result.payload = payload
        elif self.queue is not None and result.error is None and result.payload is not None:
            result.payload = self.chaos.after_receive(self.queue, self.params, result.payload)
        return result


class _Waiting:
    """A call whose receive waits for a message: what finishing it needs once the wait ends."""

    __slots__ = ("caller", "clock", "journal", "operation", "params", "plan", "poll", "when")

    def __init__(
        self,
        poll: LongPoll,
        clock: Clock,
        operation: str,
        params: Request,
        caller: Call,
        journal: CallJournal | None,
        when: float,
        plan: _Plan | None,
    ) -> None:
        self.poll = poll
        self.clock = clock
        self.operation = operation
        self.params = params
        self.caller = caller
        self.journal = journal
        self.when = when
        self.plan = plan

    def finish(self, waited: Response | SqsError) -> Result:
        """The call's result from what the wait returned or raised, recorded in the journal."""
        operation = self.operation
        result = _protocol.finish(operation, waited)
        plan = self.plan
        if plan is not None:
            result = plan.finish(result)
        journal = self.journal
        if journal is not None and journal.keeping:
            caller = self.caller
            injected = plan is not None and plan.injected
            journal.record(
                operation,
                self.params,
                result,
                caller.region,
                caller.account,
                self.when,
                injected,
                caller.unshared and plan is None,
            )
        return result


_CHAOS_OPERATIONS = frozenset({"ReceiveMessage", "PurgeQueue", "DeleteQueue"})


async def _in_thread(func: Callable[[], T]) -> T:
    return await in_thread(func)  # on asyncio's or trio's threads, whichever loop runs


def _open_backend(options: StateOptions) -> Backend:
    """A backend: empty, or loaded from the persistence store (taking its ownership lease); in
    ElasticMQ mode a deleted queue is re-created at once, and its conf's relaxed limits hold."""
    clock, region, account = make_clock(options.clock), options.region, options.account_id
    if options.persistence is None:
        return _elasticmq_rules(Backend(clock, region, account), options)
    from ._store.redis_store import open_store

    timeout = options.persistence_timeout
    store = open_store(options.persistence, options.namespace, timeout)
    backend = _elasticmq_rules(Backend(clock, region, account, store), options)
    try:
        backend.load(store.load())
    except ValueError as error:
        backend.close()
        raise store.corrupted(str(error)) from None
    except BaseException:
        backend.close()
        raise
    return backend


def _elasticmq_rules(backend: Backend, options: StateOptions) -> Backend:
    if options.elasticmq:
        backend.delete_cooldown = 0.0
        backend.relaxed_limits = options.relaxed_limits
    return backend
