"""Action handlers register themselves here by SQS operation name.

A handler takes the call context and the decoded request (the JSON wire parameters) and returns
the response parameters; it raises ``SqsError`` for an error answer. A test checks this registry
against botocore's list of SQS operations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._engine import Queue
from ._context import Call

__all__ = ["ACTIONS", "NOTES", "Handler", "LongPoll", "action"]

Request = dict[str, Any]
Response = dict[str, Any]


class LongPoll:
    """A receive that found nothing and may wait: ``retry()`` tries again (None: still
    nothing) until the clock reaches ``end``. The waiting itself belongs to the caller, which
    knows whether it may block a thread or must await (see ``_wait``)."""

    __slots__ = ("end", "queue", "retry")

    def __init__(self, queue: Queue, end: float, retry: Callable[[], Response | None]) -> None:
        self.queue = queue
        self.end = end
        self.retry = retry


Handler = Callable[[Call, Request], "Response | LongPoll"]

#: Operation name -> handler.
ACTIONS: dict[str, Handler] = {}
#: Operation name -> what a user should know about sqsmock's version of it (for the docs).
NOTES: dict[str, str] = {}


def action(name: str, *, notes: str = "") -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        if name in ACTIONS:
            raise RuntimeError(f"two handlers for {name}")
        ACTIONS[name] = handler
        NOTES[name] = notes
        return handler

    return register
