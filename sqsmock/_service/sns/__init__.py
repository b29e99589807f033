"""The SNS service: topics, subscriptions and publishing into sqsmock's own queues.

One handler per action, registered by name in ``SNS_ACTIONS`` (apart from SQS's ``ACTIONS``:
the APIs share names). Handlers take and answer the members of SNS's request and response
shapes (``_protocol.sns_shapes``) and raise ``SqsError`` with the table's ``Sns...`` entries.
State lives in the engine (``Backend.topics``); delivery goes through SQS's own send path.
Importing this package registers every handler.
"""

from __future__ import annotations

from typing import Any

from ..._errors import SqsError
from .._context import Call
from . import confirmation, publish, subscriptions, tags, topics
from ._registry import SNS_ACTIONS

__all__ = ["SNS_ACTIONS", "dispatch_sns"]

_MODULES = (confirmation, publish, subscriptions, tags, topics)


def dispatch_sns(call: Call, operation: str, request: dict[str, Any]) -> dict[str, Any]:
    """Run one SNS call; ``InvalidAction`` for an operation sqsmock does not answer."""
    handler = SNS_ACTIONS.get(operation)
    if handler is None:
        raise SqsError("InvalidAction", action=operation)
    return handler(call, request)
