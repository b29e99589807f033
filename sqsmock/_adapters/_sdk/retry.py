"""Faulted calls, answered per attempt inside botocore's retry loop, for both SDK adapters.

An answer given at ``before-call`` skips the endpoint, and with it botocore's retry loop. A call
that a fault rule may change is therefore *deferred*: the SDK sends it, and the adapter's
``before-send`` handler answers each attempt. botocore parses each answer itself, its retry
handler (standard, legacy or adaptive) decides and computes the back-off, and the next attempt
comes back to the adapter. On a frozen clock the back-off moves the mock's clock instead of
sleeping (``_patch_retry_delay``), so a test with retries takes no real time; on a wall clock
botocore sleeps as it would against AWS. aiobotocore's standard and adaptive modes use botocore's
own back-off, patched here; its legacy mode is patched by the aiobotocore adapter with
``retry_sleep``.
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any

from ..._runtime import Runtime
from .chain import install_wrappers

__all__ = [
    "CLOCK",
    "DEFERRED",
    "SENDING",
    "attempt_answered",
    "context_of",
    "defer",
    "defers",
    "retry_sleep",
    "sending_context",
]

#: The context key of a deferred call (the botocore adapter's; the aiobotocore adapter's extends
#: it): ``(runtime, model, request_dict, validated)``.
DEFERRED = "sqsmock_deferred"
#: Set on the context of each answered attempt: the mock's clock, for the retry back-off.
CLOCK = "sqsmock_clock"


def defers(runtime: Runtime, operation: str) -> bool:
    """Must this call be answered per attempt (a fault rule may change it)?"""
    return bool(runtime.faults.rules) and runtime.faults.may_apply(operation)


def defer(
    runtime: Runtime,
    model: Any,
    request_dict: Any,
    context: Any,
    validated: bool,
    key: str,
) -> None:
    """Let the SDK send this call: its ``before-send`` handler (``key`` tells whose) answers
    each attempt."""
    context[key] = (runtime, model, request_dict, validated)
    _patch_retry_delay()
    return None


#: The context of the deferred call this thread (or task) is sending, set around the endpoint's
#: send loop (and None around any other call's, as one made while signing fetches credentials):
#: ``before-send``, ``Endpoint._send`` and the HTTP session's ``send`` find the call by it where
#: the prepared request carries no context (botocore before 1.43.72, as aiobotocore 2.x pins),
#: and the adaptive rate limiter knows whose clock to move.
SENDING: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "sqsmock_sending", default=None
)


def sending_context(request: Any) -> dict[str, Any] | None:
    context = getattr(request, "context", None)
    return context if context else SENDING.get()


def frozen_clock(context: Any) -> Any:
    clock = context.get(CLOCK) if isinstance(context, dict) else None
    return clock if clock is not None and clock.frozen else None


def retry_sleep(delay: Any, context: Any) -> Any:
    """What to sleep of a retry back-off ``delay``: nothing after moving the call's frozen mock
    clock by it; the delay itself otherwise."""
    clock = frozen_clock(context)
    if clock is not None and delay:
        clock.advance(delay)
        return 0
    return delay


def attempt_answered(runtime: Runtime, context: Any, answered: tuple[Any, Any] | None) -> Any:
    """The HTTP response of one answered attempt of a deferred call; its clock noted for the
    back-off."""
    if answered is None:  # never let a mocked call reach the network
        raise RuntimeError("sqsmock stopped while an SQS call was being made")
    backend = runtime.backend_or_none  # None: the mock stopped during the call (a long poll)
    context[CLOCK] = backend.clock if backend is not None else None
    return answered[0]


def _patch_retry_delay() -> None:
    """Make botocore's retry back-off advance a frozen mock clock instead of sleeping.

    Patched once, at the first deferred call; for every request sqsmock did not answer on a
    frozen clock the patched methods return exactly what botocore's own do. The endpoint sleeps
    for the delay the ``needs-retry`` handler returns; both retry modes compute it in a method
    looked up at call time (``RetryPolicy.compute_retry_delay`` in standard and adaptive mode,
    ``RetryHandler.__call__`` in legacy mode), so clients created earlier are covered too.
    """
    global _retry_patched
    if _retry_patched:
        return
    with _patch_lock:
        if _retry_patched:
            return
        import botocore.retries.standard as standard
        import botocore.retryhandler as legacy

        def compute_retry_delay(self: Any, context: Any) -> Any:
            compute = _patched["compute_retry_delay"]
            return retry_sleep(compute(self, context), getattr(context, "request_context", None))

        def handler_call(
            self: Any, attempts: Any, response: Any, caught_exception: Any, **kw: Any
        ) -> Any:
            # botocore emits needs-retry with keyword arguments: the names must be botocore's
            delay = _patched["__call__"](self, attempts, response, caught_exception, **kw)
            return retry_sleep(delay, context_of(kw.get("request_dict")))

        install_wrappers(
            [
                (standard.RetryPolicy, "compute_retry_delay", compute_retry_delay),
                (legacy.RetryHandler, "__call__", handler_call),
            ],
            _patched,
        )
        _patch_rate_limiter()
        _retry_patched = True


_retry_patched = False
_patch_lock = threading.Lock()
#: What each method patched here called when it was patched (``chain.install_wrappers``: put
#: beneath any other library's proxy, never stranding it). Patched for the process's lifetime:
#: they change nothing for a request sqsmock did not answer on a frozen clock.
_patched: dict[str, Any] = {}


def context_of(request_dict: Any) -> Any:
    return request_dict.get("context") if isinstance(request_dict, dict) else None


def _patch_rate_limiter() -> None:
    """Mark each deferred call while the endpoint sends it (``SENDING``), and make adaptive
    mode's rate limiter -- its token bucket waits, in real time, before an attempt goes out --
    advance a frozen mock clock by the wait instead. Everything else waits as botocore makes
    it."""
    import botocore.endpoint
    import botocore.retries.bucket as bucket

    def send_request(self: Any, request_dict: Any, operation_model: Any) -> Any:
        send = _patched["_send_request"]
        context = request_dict.get("context")
        if not context or DEFERRED not in context:
            if SENDING.get() is None:
                return send(self, request_dict, operation_model)
            context = None  # another call, made while a deferred one is sent: not that one
        token = SENDING.set(context)
        try:
            return send(self, request_dict, operation_model)
        finally:
            SENDING.reset(token)

    def acquire_token(self: Any, amount: int = 1, block: bool = True) -> Any:
        acquire = _patched["acquire"]
        context = SENDING.get()
        deferred = context.get(DEFERRED) if context else None
        backend = deferred[0].backend_or_none if deferred else None
        if backend is None or not backend.clock.frozen:
            return acquire(self, amount, block)
        with self._new_fill_rate_condition:
            self._refill()
            if amount > self._current_capacity:
                # as if it had waited for them
                backend.clock.advance(self._sleep_amount(amount))
                self._current_capacity = amount
            self._current_capacity -= amount
            return True

    install_wrappers(
        [
            (botocore.endpoint.Endpoint, "_send_request", send_request),
            (bucket.TokenBucket, "acquire", acquire_token),
        ],
        _patched,
    )
