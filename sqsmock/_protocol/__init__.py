"""The protocol layer: SQS calls in, answers out, with no SDK in it.

Every call comes through here, by way of the runtime: the botocore hook with an operation name
and the parameters botocore already validated, an async client the same way, the HTTP server
with a raw request decoded by ``http.parse`` (AWS JSON 1.0 or the query protocol, chosen per
request). Each brings a ``Call`` (who calls, from where, how queue URLs look to them). ``start``
runs the call up to its answer, a ``Result`` -- the status and the JSON-wire payload or the
``SqsError``, which each adapter renders for its caller: a parsed dict in-process
(``native.from_wire``), JSON or XML bytes over HTTP (``http.render``: ``wire``, ``query``) --
or up to the ``LongPoll`` of a receive that waits, which a thread blocks on
(``wait_blocking``) and a coroutine awaits (``wait_awaiting``).
"""

from __future__ import annotations

from .._engine import Backend, Clock
from .._engine.ids import new_request_id
from .._errors import SqsError
from .._service import Call, LongPoll, Request, Response, Runner, dispatch
from .._service._wait import wait, wait_async

__all__ = [
    "Call",
    "LongPoll",
    "Result",
    "call",
    "finish",
    "start",
    "wait_awaiting",
    "wait_blocking",
]


class Result:
    """One answered call: ``payload`` (JSON-wire form) on success, else ``error``."""

    __slots__ = ("error", "operation", "payload", "request_id", "status")

    def __init__(
        self,
        operation: str,
        status: int,
        payload: Response | None,
        error: SqsError | None,
    ) -> None:
        self.operation = operation
        self.status = status
        self.payload = payload
        self.error = error
        self.request_id = new_request_id()

    @classmethod
    def of_error(cls, operation: str, error: SqsError) -> Result:
        return cls(operation, error.status, None, error)

    def __repr__(self) -> str:
        outcome = self.error.code if self.error is not None else "ok"
        return f"<Result {self.operation} {self.status} {outcome}>"


def start(backend: Backend, operation: str, params: Request, call: Call) -> Result | LongPoll:
    """Run one SQS call as far as it goes without waiting: its ``Result``, or the ``LongPoll`` of
    a receive that has to wait for a message (``finish`` answers it once waited for).

    This is the one dispatch every caller shares: the sync driver (``call``, ``Runtime.call``)
    blocks on the poll, the async one (``Runtime.call_async``) awaits it.
    """
    call.backend = backend
    try:
        answer = dispatch(call, operation, params)
    except SqsError as error:
        return Result.of_error(operation, error)
    if isinstance(answer, LongPoll):
        return answer
    return Result(operation, 200, answer, None)


def finish(operation: str, waited: Response | SqsError) -> Result:
    """The result of a long poll, from what the wait returned or raised."""
    if isinstance(waited, SqsError):
        return Result.of_error(operation, waited)
    return Result(operation, 200, waited, None)


def call(backend: Backend, operation: str, params: Request, caller: Call) -> Result:
    """Run one SQS call (a long poll blocks this thread until it has its answer)."""
    step = start(backend, operation, params, caller)
    if isinstance(step, Result):
        return step
    return finish(operation, wait_blocking(step, backend.clock))


def wait_blocking(poll: LongPoll, clock: Clock) -> Response | SqsError:
    """Block this thread until the poll has its answer (or its error)."""
    try:
        return wait(poll, clock)
    except SqsError as error:
        return error


async def wait_awaiting(poll: LongPoll, clock: Clock, run: Runner | None) -> Response | SqsError:
    """Await the poll's answer (or its error) without blocking the event loop."""
    try:
        return await wait_async(poll, clock, run)
    except SqsError as error:
        return error
