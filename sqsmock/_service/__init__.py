"""The SQS service: one handler per action, registered by name in ``ACTIONS``.

Handlers work on the JSON wire parameters of the request (AWS JSON 1.0's form: blobs as base64
text) and return the response parameters in the same form; errors are raised as ``SqsError``.
A receive that may wait answers a ``LongPoll``; ``execute`` and ``execute_async`` finish it.
Importing this package registers every handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .._errors import SqsError
from . import dead_letters, permissions, queues, receive, send, tags, visibility
from ._context import AWS_URLS, Call, QueueUrls
from ._registry import ACTIONS, LongPoll, Request, Response
from ._wait import wait, wait_async

__all__ = [
    "ACTIONS",
    "AWS_URLS",
    "Call",
    "LongPoll",
    "QueueUrls",
    "Request",
    "Response",
    "dispatch",
    "execute",
    "execute_async",
]

_MODULES = (dead_letters, permissions, queues, receive, send, tags, visibility)


def dispatch(call: Call, operation: str, request: Request) -> Response | LongPoll:
    """Run the handler once; a receive with nothing to return yet answers a ``LongPoll``."""
    handler = ACTIONS.get(operation)
    if handler is None:
        raise SqsError("InvalidAction", action=operation)
    call.backend.tick()
    return handler(call, request)


def execute(call: Call, operation: str, request: Request) -> Response:
    """One call, answered in full; a long poll blocks the calling thread."""
    answer = dispatch(call, operation, request)
    if isinstance(answer, LongPoll):
        return wait(answer, call.backend.clock)
    return answer


#: Runs an engine call off the event loop (when the engine does blocking I/O to a store).
Runner = Callable[[Callable[[], Any]], Awaitable[Any]]


async def execute_async(
    call: Call, operation: str, request: Request, run: Runner | None = None
) -> Response:
    """One call, answered in full; a long poll awaits without blocking the event loop."""
    if run is None:
        answer = dispatch(call, operation, request)
    else:
        answer = await run(lambda: dispatch(call, operation, request))
    if isinstance(answer, LongPoll):
        return await wait_async(answer, call.backend.clock, run)
    return answer
