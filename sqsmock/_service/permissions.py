"""AddPermission and RemovePermission: statements of the queue's Policy, one per label."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .._engine import Queue
from .._errors import SqsError
from ._context import Call
from ._registry import Request, Response, action
from ._validate import required_str

__all__: list[str] = []

_LABEL = re.compile(r"[A-Za-z0-9_-]{1,80}")
_ACCOUNT = re.compile(r"[0-9]{12}")  # ASCII digits only (\d matches any script's)
#: Actions a queue owner can share with other accounts.
SHAREABLE = frozenset(
    {
        "*",
        "ChangeMessageVisibility",
        "DeleteMessage",
        "GetQueueAttributes",
        "GetQueueUrl",
        "ListDeadLetterSourceQueues",
        "PurgeQueue",
        "ReceiveMessage",
        "SendMessage",
    }
)
#: Actions only the owner may invoke.
OWNER_ONLY = frozenset(
    {
        "AddPermission",
        "CancelMessageMoveTask",
        "CreateQueue",
        "DeleteQueue",
        "ListMessageMoveTasks",
        "ListQueueTags",
        "ListQueues",
        "RemovePermission",
        "SetQueueAttributes",
        "StartMessageMoveTask",
        "TagQueue",
        "UntagQueue",
    }
)
MAX_ACTIONS = 7


def _one_or_many(values: list[str]) -> str | list[str]:
    return values[0] if len(values) == 1 else values


def _policy(queue: Queue, text: str | None) -> dict[str, Any]:
    policy: dict[str, Any] = json.loads(text) if text else {}
    policy.setdefault("Version", "2008-10-17")
    policy.setdefault("Id", f"{queue.arn}/SQSDefaultPolicy")
    if not isinstance(policy.get("Statement"), list):
        statement = policy.get("Statement")
        policy["Statement"] = [statement] if isinstance(statement, dict) else []
    return policy


def _change_policy(queue: Queue, change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
    """Read, change and write the Policy in one step under the queue's lock (concurrent
    AddPermission calls must not lose each other's statements). ``change`` may raise."""

    def update(attributes: dict[str, str]) -> dict[str, str]:
        policy = change(_policy(queue, attributes.get("Policy")))
        return {"Policy": "" if policy is None else json.dumps(policy, separators=(",", ":"))}

    queue.update_attributes(update)


def _string_list(request: Request, name: str, *, may_be_empty: bool = False) -> list[str]:
    values = request.get(name)
    if values is None or (not values and not may_be_empty):
        raise SqsError("MissingParameter", name=name)
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise SqsError("ParameterNotStringList", name=name, value=values)
    return values


@action(
    "AddPermission",
    notes="writes the queue's Policy document",
)
def add_permission(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    label = required_str(request, "Label")
    if not _LABEL.fullmatch(label):
        raise SqsError("InvalidLabel", value=label)
    accounts = _string_list(request, "AWSAccountIds", may_be_empty=True)
    actions = _string_list(request, "Actions")
    if not accounts or not all(_ACCOUNT.fullmatch(account) for account in accounts):
        raise SqsError("InvalidAccountId", ids=", ".join(accounts))
    if len(actions) > MAX_ACTIONS:
        raise SqsError("TooManyActions", count=len(actions), limit=MAX_ACTIONS)
    for name in actions:
        if name in OWNER_ONLY:
            raise SqsError("OwnerOnlyAction", value=f"SQS:{name}")
        if name not in SHAREABLE:
            raise SqsError("UnknownAction", value=f"SQS:{name}")
    statement = {
        "Sid": label,
        "Effect": "Allow",
        "Principal": {"AWS": _one_or_many([f"arn:aws:iam::{a}:root" for a in accounts])},
        "Action": _one_or_many([f"SQS:{a}" for a in actions]),
        "Resource": queue.arn,
    }

    def add(policy: dict[str, Any]) -> dict[str, Any]:
        if any(s.get("Sid") == label for s in policy["Statement"] if isinstance(s, dict)):
            raise SqsError("LabelExists", value=label)
        policy["Statement"].append(statement)
        return policy

    _change_policy(queue, add)
    return {}


@action(
    "RemovePermission",
    notes="removing the last label removes the Policy",
)
def remove_permission(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    label = required_str(request, "Label")

    def remove(policy: dict[str, Any]) -> dict[str, Any] | None:
        statements = policy["Statement"]
        kept = [s for s in statements if not (isinstance(s, dict) and s.get("Sid") == label)]
        if len(kept) == len(statements):
            raise SqsError("LabelNotFound", value=label)
        policy["Statement"] = kept
        return policy if kept else None

    _change_policy(queue, remove)
    return {}
