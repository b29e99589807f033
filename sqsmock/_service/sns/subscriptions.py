"""Subscribe, Unsubscribe, ListSubscriptions(ByTopic), Get/SetSubscriptionAttributes.

Subscriptions of protocol ``sqs`` name a queue by ARN, in any region or account this mock holds
(a queue that does not exist yet is accepted, as SNS accepts it; messages for it are dropped and
counted until it exists); one of another account than the caller's waits for a confirmation
(``confirmation``). Other protocols SNS knows are accepted and kept, and never deliver.
"""

from __future__ import annotations

import json
from typing import Any

from ..._engine.topics import Subscription, Topic
from ..._errors import SqsError
from .._context import Call
from ..sns_filters import ATTRIBUTES_SCOPE, parse_policy
from ._arns import arn_parts, page, required, subscription_of, topic_of
from ._registry import sns_action
from .confirmation import ask_to_confirm
from .http_delivery import HTTP_PROTOCOLS

__all__ = ["PROTOCOLS"]

#: Every protocol SNS knows. Only ``sqs`` and ``http``/``https`` (on this machine) deliver here.
PROTOCOLS = frozenset(
    {"http", "https", "email", "email-json", "sms", "sqs", "application", "lambda", "firehose"}
)
#: Protocols whose subscriptions wait for a confirmation (email ones wait for ever here).
_CONFIRMED_BY_ENDPOINT = frozenset({"http", "https", "email", "email-json"})
SETTABLE = frozenset(
    {
        "DeliveryPolicy",
        "FilterPolicy",
        "FilterPolicyScope",
        "RawMessageDelivery",
        "RedrivePolicy",
        "SubscriptionRoleArn",
        "ReplayPolicy",
    }
)
_DEFAULTS = {"RawMessageDelivery": "false", "FilterPolicyScope": "MessageAttributes"}
_SCOPES = ("MessageAttributes", "MessageBody")


#: Python's JSON errors as Jackson (SNS's parser) words them, where one maps onto another.
_JACKSON = {
    "Expecting property name enclosed in double quotes": "was expecting double-quote to start "
    "field name",
    "Expecting ',' delimiter": "was expecting comma to separate Object entries",
    "Expecting ':' delimiter": "was expecting a colon to separate field name and value",
}


def _json_detail(error: json.JSONDecodeError) -> str:
    """What follows "failed to parse JSON. " in SNS's error: Jackson's report and location."""
    found = error.doc[error.pos : error.pos + 1]
    expected = _JACKSON.get(error.msg)
    if expected is not None and found:
        report = f"Unexpected character ('{found}' (code {ord(found)})): {expected}"
    else:
        report = error.msg
    location = "REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)"
    return f"{report}\n at [Source: {location}; line: {error.lineno}, column: {error.colno}]"


def checked_attribute(
    call: Call, topic: Topic | None, endpoint: str, name: str, value: str, lead: str
) -> str:
    """``value`` as the subscription keeps it, or SNS's error (``lead``: "Attributes Reason: "
    at Subscribe, "" at SetSubscriptionAttributes)."""
    if name not in SETTABLE:
        raise SqsError("SnsInvalidParameter", name="AttributeName")
    if name == "RawMessageDelivery":
        lowered = value.lower()
        if lowered not in ("true", "false"):
            raise SqsError("SnsNotBoolean", lead=lead, name=name, value=value)
        return lowered
    if name == "FilterPolicyScope":
        if value not in _SCOPES:
            raise SqsError("SnsFilterPolicyScope", lead=lead, value=value)
        return value
    if name in ("FilterPolicy", "RedrivePolicy", "DeliveryPolicy") and value:
        try:
            document = json.loads(value)
        except json.JSONDecodeError as error:
            raise SqsError("SnsNotJson", lead=lead, name=name, detail=_json_detail(error)) from None
        if name == "RedrivePolicy":
            _check_redrive(call, topic, endpoint, document, lead)
    return value


def _check_filter(attributes: dict[str, str], scope: str | None, subscribe: bool = False) -> None:
    """A filter policy as AWS checks it, in the scope it will be read in (the one given beside
    it, else the subscription's, else MessageAttributes)."""
    policy = attributes.get("FilterPolicy")
    if policy:
        in_scope = attributes.get("FilterPolicyScope") or scope or ATTRIBUTES_SCOPE
        parse_policy(policy, in_scope, subscribe=subscribe)


def _check_redrive(
    call: Call, topic: Topic | None, endpoint: str, document: Any, lead: str
) -> None:
    target = document.get("deadLetterTargetArn") if isinstance(document, dict) else None
    parts = str(target).split(":") if isinstance(target, str) else []
    if len(parts) != 6 or parts[0] != "arn" or parts[2] != "sqs" or not parts[5]:
        raise SqsError("SnsDeadLetterArn", lead=lead)
    fifo_queue = endpoint.endswith(".fifo")
    if topic is not None and topic.fifo and fifo_queue and not parts[5].endswith(".fifo"):
        raise SqsError("SnsFifoDeadLetterQueue")


def _check_endpoint(topic: Topic, protocol: str, endpoint: str) -> None:
    if protocol not in PROTOCOLS:
        raise SqsError("SnsUnsupportedProtocol", protocol=protocol)
    if protocol != "sqs":
        return
    parts = endpoint.split(":")
    if len(parts) != 6 or parts[0] != "arn" or parts[2] != "sqs" or not parts[5]:
        raise SqsError("SnsSqsEndpoint")
    if parts[5].endswith(".fifo") and not topic.fifo:
        raise SqsError("SnsFifoQueueOnStandardTopic")


@sns_action("Subscribe")
def subscribe(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = topic_of(call, params)
    protocol = required(params, "Protocol")
    endpoint = str(params.get("Endpoint") or "")
    _check_endpoint(topic, protocol, endpoint)
    given: dict[str, str] = params.get("Attributes") or {}
    attributes = {
        name: checked_attribute(call, topic, endpoint, name, str(value), "Attributes Reason: ")
        for name, value in given.items()
    }
    if attributes.get("FilterPolicy") == "":
        del attributes["FilterPolicy"]
    _check_filter(attributes, "MessageAttributes", subscribe=True)
    topics = call.backend.topics
    with topics.lock:
        found = topics.find(topic, protocol, endpoint)
        if found is not None:
            current = {**_DEFAULTS, **found.attributes}
            if any(current.get(name) != value for name, value in attributes.items()):
                raise SqsError("SnsSubscriptionExists")
            made = found
        else:
            # A queue of another account than the caller's confirms first (a message to it).
            other_account = protocol == "sqs" and endpoint.split(":")[4] != call.account
            if protocol in _CONFIRMED_BY_ENDPOINT or other_account:
                attributes["PendingConfirmation"] = "true"
            principal = f"arn:aws:iam::{call.account}:user/sqsmock"
            made = topics.subscribe(topic, protocol, endpoint, call.account, principal, attributes)
            if other_account or protocol in HTTP_PROTOCOLS:
                ask_to_confirm(call, topic, made)
    pending = made.attributes.get("PendingConfirmation") == "true"
    if pending and not params.get("ReturnSubscriptionArn"):
        return {"SubscriptionArn": "pending confirmation"}
    return {"SubscriptionArn": made.arn}


@sns_action("Unsubscribe")
def unsubscribe(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    value = required(params, "SubscriptionArn")
    parts = arn_parts("SubscriptionArn", value)
    if ":" not in parts[5]:
        raise SqsError("SnsInvalidParameter", name="SubscriptionId")
    call.backend.topics.unsubscribe(value)
    return {}


def _listed(subscription: Subscription, topic_arn: str) -> dict[str, str]:
    pending = subscription.attributes.get("PendingConfirmation") == "true"
    return {
        "SubscriptionArn": "PendingConfirmation" if pending else subscription.arn,
        "Owner": subscription.owner,
        "Protocol": subscription.protocol,
        "Endpoint": subscription.endpoint,
        "TopicArn": topic_arn,
    }


def _topic_arn(subscription: Subscription) -> str:
    return subscription.arn.rsplit(":", 1)[0]


@sns_action("ListSubscriptions")
def list_subscriptions(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    found = call.backend.topics.subscriptions_in(call.region, call.account)
    shown, following = page(found, params.get("NextToken"))
    answer: dict[str, Any] = {"Subscriptions": [_listed(s, _topic_arn(s)) for s in shown]}
    if following is not None:
        answer["NextToken"] = following
    return answer


@sns_action("ListSubscriptionsByTopic")
def list_subscriptions_by_topic(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = topic_of(call, params)
    found = call.backend.topics.subscriptions_of(topic)
    shown, following = page(found, params.get("NextToken"))
    answer: dict[str, Any] = {"Subscriptions": [_listed(s, topic.arn) for s in shown]}
    if following is not None:
        answer["NextToken"] = following
    return answer


@sns_action("GetSubscriptionAttributes")
def get_subscription_attributes(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    found = subscription_of(call, params)
    kept = dict(found.attributes)
    pending = kept.pop("PendingConfirmation", "false")
    answer = {
        "ConfirmationWasAuthenticated": "false" if pending == "true" else "true",
        "Endpoint": found.endpoint,
        "Owner": found.owner,
        "PendingConfirmation": pending,
        "Protocol": found.protocol,
        "RawMessageDelivery": "false",
        "SubscriptionArn": found.arn,
        "SubscriptionPrincipal": found.principal,
        "TopicArn": _topic_arn(found),
    }
    scope = kept.pop("FilterPolicyScope", "MessageAttributes")
    if "FilterPolicy" in kept:  # the scope shows only beside a policy
        answer["FilterPolicyScope"] = scope
    answer.update(kept)
    return {"Attributes": answer}


@sns_action("SetSubscriptionAttributes")
def set_subscription_attributes(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    found = subscription_of(call, params)
    name = required(params, "AttributeName")
    value = str(params.get("AttributeValue") or "")
    topic = call.backend.topics.get(found.topic)
    kept = checked_attribute(call, topic, found.endpoint, name, value, "")
    if name in ("FilterPolicy", "FilterPolicyScope"):
        _check_filter({**found.attributes, name: kept}, None)
    with call.backend.topics.lock:
        if name == "FilterPolicy" and kept == "":
            found.attributes.pop(name, None)
        else:
            found.attributes[name] = kept
    return {}
