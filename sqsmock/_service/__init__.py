"""The SQS service: one handler per action, registered by name in ``ACTIONS``.

Handlers work on the JSON wire parameters of the request (AWS JSON 1.0's form: blobs as base64
text) and return the response parameters in the same form; errors are raised as ``SqsError``.
A receive that may wait answers a ``LongPoll``, which its caller waits on (``_wait``): a thread
blocks, a coroutine awaits; nothing else differs between the two.
Importing this package registers every handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .._errors import SqsError
from . import dead_letters, permissions, queues, receive, send, tags, visibility
from ._context import Call
from ._registry import ACTIONS, LongPoll, Request, Response
from .addresses import AWS_URLS, QueueUrls

__all__ = [
    "ACTIONS",
    "AWS_URLS",
    "Call",
    "LongPoll",
    "QueueUrls",
    "Request",
    "Response",
    "Runner",
    "dispatch",
]

_MODULES = (dead_letters, permissions, queues, receive, send, tags, visibility)


def dispatch(call: Call, operation: str, request: Request) -> Response | LongPoll:
    """Run the handler once; a receive with nothing to return yet answers a ``LongPoll``."""
    handler = ACTIONS.get(operation)
    if handler is None:
        raise SqsError("InvalidAction", action=operation)
    call.backend.tick()
    return handler(call, request)


#: Runs an engine call off the event loop (when the engine does blocking I/O to a store).
Runner = Callable[[Callable[[], Any]], Awaitable[Any]]
