"""SNS's action handlers register themselves here by operation name, apart from SQS's ``ACTIONS``
(the two APIs share names such as ``AddPermission``). A handler takes the call context and the
request's parameters (members by name, blobs as base64 text) and returns the answer's members;
it raises ``SqsError`` with an ``Sns...`` entry for an error answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._context import Call

__all__ = ["SNS_ACTIONS", "SnsHandler", "sns_action"]

SnsHandler = Callable[[Call, dict[str, Any]], dict[str, Any]]

#: Operation name -> handler.
SNS_ACTIONS: dict[str, SnsHandler] = {}


def sns_action(name: str) -> Callable[[SnsHandler], SnsHandler]:
    def register(handler: SnsHandler) -> SnsHandler:
        if name in SNS_ACTIONS:
            raise RuntimeError(f"two handlers for {name}")
        SNS_ACTIONS[name] = handler
        return handler

    return register
