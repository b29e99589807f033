"""The SQS service: one handler per action, registered by name in ``ACTIONS``.

Handlers work on the JSON wire parameters of the request and return the response parameters;
errors are raised as ``SqsError``. Importing this package registers every handler.
"""

from __future__ import annotations

from .._errors import SqsError
from . import dead_letters, permissions, queues, receive, send, tags, visibility
from ._context import Call
from ._registry import ACTIONS, Request, Response

__all__ = ["ACTIONS", "Call", "dispatch"]

_MODULES = (dead_letters, permissions, queues, receive, send, tags, visibility)


def dispatch(call: Call, operation: str, request: Request) -> Response:
    handler = ACTIONS.get(operation)
    if handler is None:
        raise SqsError("InvalidAction", action=operation)
    call.backend.tick()
    return handler(call, request)
