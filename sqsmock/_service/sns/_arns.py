"""Reading the ARNs an SNS request names (topics, subscriptions, SQS endpoints), with SNS's errors
for each malformed form, and the paging tokens of SNS's lists."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from ..._engine.topics import Subscription, Topic
from ..._errors import SqsError
from .._context import Call

__all__ = ["arn_parts", "page", "required", "subscription_of", "topic_named", "topic_of"]

T = TypeVar("T")
#: Entries per page of ListTopics, ListSubscriptions and ListSubscriptionsByTopic.
PAGE = 100


def required(params: Mapping[str, Any], name: str) -> str:
    value = params.get(name)
    if value is None:
        raise SqsError("SnsMissingParameter", name=name)
    return str(value)


def arn_parts(name: str, value: str) -> list[str]:
    """The six ``:``-separated parts of an ARN (the last may hold more ``:``)."""
    parts = value.split(":", 5)
    if len(parts) < 6:
        raise SqsError("SnsArnTooShort", name=name, count=len(value.split(":")))
    return parts


def topic_named(call: Call, name: str, value: str) -> tuple[str, str, str]:
    """(region, account, name) of a topic ARN the caller may name (its own region)."""
    parts = arn_parts(name, value)
    if parts[0] != "arn" or parts[2] != "sns" or ":" in parts[5] or not parts[5]:
        raise SqsError("SnsInvalidParameter", name=name)
    if parts[3] != call.region:
        raise SqsError("SnsInvalidParameter", name=name)
    return parts[3], parts[4], parts[5]


def topic_of(call: Call, params: Mapping[str, Any], name: str = "TopicArn") -> Topic:
    """The topic the request names; NotFound if there is none."""
    key = topic_named(call, name, required(params, name))
    topic = call.backend.topics.get(key)
    if topic is None:
        raise SqsError("SnsTopicNotFound")
    return topic


def subscription_of(call: Call, params: Mapping[str, Any]) -> Subscription:
    value = required(params, "SubscriptionArn")
    parts = arn_parts("SubscriptionArn", value)
    if ":" not in parts[5]:
        raise SqsError("SnsInvalidParameter", name="SubscriptionId")
    found = call.backend.topics.subscription(value)
    if found is None:
        raise SqsError("SnsSubscriptionNotFound")
    return found


def page(items: Sequence[T], token: Any) -> tuple[Sequence[T], str | None]:
    """One page of ``items`` from ``token`` (None: the first) and the token of the next."""
    start = 0
    if token:
        try:
            start = int(base64.b64decode(str(token), validate=True).decode("ascii"))
        except (binascii.Error, ValueError, UnicodeDecodeError):
            raise SqsError("SnsInvalidParameter", name="NextToken") from None
        if start < 0:
            raise SqsError("SnsInvalidParameter", name="NextToken")
    end = start + PAGE
    following = base64.b64encode(str(end).encode()).decode() if end < len(items) else None
    return items[start:end], following
