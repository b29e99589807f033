"""Does a queue's Policy let a topic send to it? Read as AWS reads it for SNS's ``sqs:SendMessage``.

On AWS, SNS delivers to a queue only where the queue's policy allows ``sqs:SendMessage`` to the
SNS service (the documented forms: Principal ``*``, ``{"AWS": "*"}`` or ``{"Service":
"sns.amazonaws.com"}``, usually scoped by an ``aws:SourceArn`` or ``aws:SourceAccount``
condition); a refused delivery is a client-side error that sends the message to the
subscription's dead-letter queue, or drops it. An explicit Deny wins over any Allow; with a
policy set, no matching Allow refuses. A principal naming an account or a role (``{"AWS":
"123456789012"}``) is not SNS and neither allows nor denies it.

A queue with no Policy at all receives: AWS would refuse it, but sqsmock's users (as moto's and
LocalStack's) subscribe queues without writing a policy, so the mock delivers there and the
README says so. A policy that is not a JSON object (SetQueueAttributes keeps what it is given)
refuses, as no statement of it allows.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

__all__ = ["lets_topic_send"]

_SERVICE = "sns.amazonaws.com"
_ACTION = "sqs:sendmessage"


def _values(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _like(pattern: Any, value: str, *, ignore_case: bool = False) -> bool:
    if not isinstance(pattern, str):
        return False
    if ignore_case:
        return fnmatchcase(value.lower(), pattern.lower().replace("[", "[[]"))
    return fnmatchcase(value, pattern.replace("[", "[[]"))


def _principal(statement: dict[str, Any]) -> bool:
    principal = statement.get("Principal")
    if principal == "*":
        return True
    if not isinstance(principal, dict):
        return False
    if any(name == "*" for name in _values(principal.get("AWS"))):
        return True
    return any(name == _SERVICE for name in _values(principal.get("Service")))


def _action(statement: dict[str, Any]) -> bool:
    if "NotAction" in statement:
        return not any(_like(a, _ACTION, ignore_case=True) for a in _values(statement["NotAction"]))
    return any(_like(a, _ACTION, ignore_case=True) for a in _values(statement.get("Action")))


def _resource(statement: dict[str, Any], queue_arn: str) -> bool:
    if "NotResource" in statement:
        return not any(_like(r, queue_arn) for r in _values(statement["NotResource"]))
    if "Resource" not in statement:
        return True
    return any(_like(r, queue_arn) for r in _values(statement["Resource"]))


def _test(operator: str, wanted: list[Any], value: str) -> bool:
    """One condition operator (without IfExists) over a present key."""
    if operator in ("ArnEquals", "ArnLike", "StringLike"):
        return any(_like(w, value) for w in wanted)
    if operator in ("ArnNotEquals", "ArnNotLike", "StringNotLike"):
        return not any(_like(w, value) for w in wanted)
    if operator == "StringEquals":
        return value in wanted
    if operator == "StringNotEquals":
        return value not in wanted
    if operator == "StringEqualsIgnoreCase":
        return any(isinstance(w, str) and w.lower() == value.lower() for w in wanted)
    if operator == "StringNotEqualsIgnoreCase":
        return not any(isinstance(w, str) and w.lower() == value.lower() for w in wanted)
    return False  # an operator SNS's request gives no value for


def _conditions(statement: dict[str, Any], context: dict[str, str]) -> bool:
    block = statement.get("Condition", {})
    if not isinstance(block, dict):
        return False
    for name, keys in block.items():
        if not isinstance(keys, dict):
            return False
        if_exists = name.endswith("IfExists")
        operator = name.removesuffix("IfExists")
        negated = "Not" in operator
        for key, wanted in keys.items():
            value = context.get(str(key).lower())
            if value is None:
                if not (if_exists or negated):
                    return False
                continue
            if not _test(operator, _values(wanted), value):
                return False
    return True


@lru_cache(maxsize=1024)  # read once per policy, queue and topic, not at every publish
def lets_topic_send(policy: str | None, queue_arn: str, topic_arn: str) -> bool:
    """Whether the queue (``queue_arn``, its Policy text) takes SNS's send from ``topic_arn``."""
    if not policy:
        return True
    try:
        document = json.loads(policy)
    except ValueError:
        return False
    if not isinstance(document, dict):
        return False
    context = {"aws:sourcearn": topic_arn, "aws:sourceaccount": topic_arn.split(":")[4]}
    allowed = False
    for statement in _values(document.get("Statement")):
        if not isinstance(statement, dict):
            continue
        if not (
            _principal(statement)
            and _action(statement)
            and _resource(statement, queue_arn)
            and _conditions(statement, context)
        ):
            continue
        effect = statement.get("Effect")
        if effect == "Deny":
            return False
        allowed = allowed or effect == "Allow"
    return allowed
