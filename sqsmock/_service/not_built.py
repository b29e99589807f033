"""Operations routed but not built yet: each answers a clear UnsupportedOperation naming it."""

from __future__ import annotations

from .._errors import SqsError
from ._context import Call
from ._registry import Request, Response, action

__all__ = ["NOT_BUILT"]

NOT_BUILT = (
    "AddPermission",
    "RemovePermission",
    "ListDeadLetterSourceQueues",
    "StartMessageMoveTask",
    "CancelMessageMoveTask",
    "ListMessageMoveTasks",
)


def _not_built(operation: str) -> None:
    def handler(call: Call, request: Request) -> Response:
        raise SqsError(
            "UnsupportedOperation",
            message=f"sqsmock does not implement {operation} yet.",
        )

    action(operation)(handler)


for _operation in NOT_BUILT:
    _not_built(_operation)
