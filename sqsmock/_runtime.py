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
from typing import Any, TypeVar

from . import _protocol
from ._declare import apply as apply_declarations
from ._engine import Backend, Clock, MessageView, Queue, make_clock
from ._errors import SqsError
from ._features.chaos import Chaos, as_delivery
from ._features.faults import Faults, Outcome
from ._features.journal import CallJournal
from ._features.waiters import EventLog
from ._options import StateOptions
from ._protocol import Caller, Result
from ._service import Call, Request
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
        self._backend: Backend | None = _open_backend(
            make_clock(options.clock),
            region,
            account,
            options.persistence,
            options.namespace,
            options.persistence_timeout,
        )
        #: Message events for ``wait_for``; kept while the call journal records.
        self.events = EventLog(
            region, account, lambda: self.journal.recording, lambda: self.journal.byte_limit
        )
        self.events.attach(self.backend)
        #: The engine does blocking I/O (a store): async callers run its calls off the loop.
        self.blocking = options.persistence is not None
        #: Fault-injection rules (``handle.faults``).
        self.faults = Faults()
        #: At-least-once delivery and ordering settings (``handle.chaos(...)``).
        self.chaos = Chaos(as_delivery(options.delivery))
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

    def call(self, operation: str, params: Request, caller: Caller) -> Result:
        """Answer one call; a long poll blocks this thread."""
        backend = self.backend
        if self.faults.rules or self.chaos.active:
            return self._call_changed(backend, operation, params, caller)
        journal = self.journal
        if not journal.recording:
            return _protocol.call(backend, operation, params, caller)
        when = backend.clock.now()
        result = _protocol.call(backend, operation, params, caller)
        journal.record(operation, params, result, caller.region, caller.account, when, False)
        return result

    async def call_async(
        self, operation: str, params: Request, caller: Caller, *, remote: bool = False
    ) -> Result:
        """Answer one call; a long poll awaits without blocking the event loop.

        For a ``remote`` caller (over HTTP) a store that fails (Redis away, the lease lost)
        answers the call with a 503 ``ServiceUnavailable``, which SDKs retry; in process it
        raises ``PersistenceError``.
        """
        if not remote or not self.blocking:
            return await self._call_async(operation, params, caller)
        try:
            return await self._call_async(operation, params, caller)
        except store_errors.PersistenceError as error:
            log.warning("sqsmock answered %s with ServiceUnavailable: %s", operation, error)
            return Result.of_error(operation, SqsError("ServiceUnavailable"))

    async def _call_async(self, operation: str, params: Request, caller: Caller) -> Result:
        backend = self.backend
        run = _in_thread if self.blocking else None
        if not (self.faults.rules or self.chaos.active):
            journal = self.journal
            if not journal.recording:
                return await _protocol.call_async(backend, operation, params, caller, run)
            when = backend.clock.now()
            result = await _protocol.call_async(backend, operation, params, caller, run)
            journal.record(operation, params, result, caller.region, caller.account, when, False)
            return result
        plan = _Plan(self, backend, operation, params, caller)
        answer = plan.answer
        if answer is None:
            answer = plan.finish(
                await _protocol.call_async(backend, operation, plan.run_params(), caller, run)
            )
        self._record(operation, params, answer, caller, plan.when, plan.injected)
        return answer

    def _call_changed(
        self, backend: Backend, operation: str, params: Request, caller: Caller
    ) -> Result:
        """A call that fault rules or delivery settings may change."""
        plan = _Plan(self, backend, operation, params, caller)
        result = plan.answer
        if result is None:
            result = plan.finish(_protocol.call(backend, operation, plan.run_params(), caller))
        self._record(operation, params, result, caller, plan.when, plan.injected)
        return result

    def _record(
        self,
        operation: str,
        params: Request,
        result: Result,
        caller: Caller,
        when: float,
        injected: bool,
    ) -> None:
        journal = self.journal
        if journal.recording:
            journal.record(operation, params, result, caller.region, caller.account, when, injected)

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
        call = Call(self.backend, region or self.region, self.account, {})
        try:
            return call.queue({"QueueUrl": queue})
        except SqsError:
            raise LookupError(f"queue {queue!r} does not exist in this mock") from None

    def peek(self, queue: str, region: str | None = None) -> list[MessageView]:
        """Every message of ``queue`` (URL or name), without changing anything."""
        found = self.find_queue(queue, region)
        found.settle()
        return found.peek()


class _Plan:
    """What fault rules and delivery settings make of one call, decided before it runs.

    ``answer``: the result when the call is answered without the engine (an injected error,
    every batch entry failed, an empty short poll); otherwise the engine runs it with
    ``params`` (and ``entries`` for a batch with entries failed) and ``finish`` completes it.
    """

    def __init__(
        self, runtime: Runtime, backend: Backend, operation: str, params: Request, caller: Caller
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
                        _context(backend, caller).queue(params)
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
            queue = _context(backend, caller).queue(params)
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


def _context(backend: Backend, caller: Caller) -> Call:
    return Call(backend, caller.region, caller.account, caller.headers, caller.urls)


_CHAOS_OPERATIONS = frozenset({"ReceiveMessage", "PurgeQueue", "DeleteQueue"})


async def _in_thread(func: Callable[[], T]) -> T:
    return await in_thread(func)  # on asyncio's or trio's threads, whichever loop runs


def _open_backend(
    clock: Clock,
    region: str,
    account: str,
    persistence: Any,
    namespace: str,
    timeout: float,
    lease_seconds: float | None = None,
) -> Backend:
    """A backend: empty, or loaded from the persistence store (taking its ownership lease)."""
    if persistence is None:
        return Backend(clock, region, account)
    from ._store.redis_store import open_store

    store = open_store(persistence, namespace, timeout, lease_seconds)
    backend = Backend(clock, region, account, store)
    try:
        backend.load(store.load())
    except ValueError as error:
        backend.close()
        raise store.corrupted(str(error)) from None
    except BaseException:
        backend.close()
        raise
    return backend
