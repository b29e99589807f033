"""CreateTopic, DeleteTopic, ListTopics, GetTopicAttributes and SetTopicAttributes.

A topic's attributes are kept as they were set; the ones SNS computes (the owner, the counts of
subscriptions, the default access policy and delivery policy) are made when asked for.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..._engine.topics import Topic, topic_arn
from ..._errors import SqsError
from .._context import Call
from ._arns import page, required, topic_named, topic_of
from ._registry import sns_action

__all__ = ["effective_attributes"]

_NAME = re.compile(r"[A-Za-z0-9_-]{1,256}")
_FIFO_NAME = re.compile(r"[A-Za-z0-9_-]{1,251}\.fifo")

#: Attributes a topic takes at creation and from SetTopicAttributes.
SETTABLE = frozenset(
    {
        "DisplayName",
        "Policy",
        "DeliveryPolicy",
        "KmsMasterKeyId",
        "SignatureVersion",
        "TracingConfig",
        "ContentBasedDeduplication",
        "FifoThroughputScope",
        "ArchivePolicy",
        "MaximumMessageSize",
        *(
            f"{protocol}{kind}"
            for protocol in ("HTTP", "Firehose", "Lambda", "SQS", "Application")
            for kind in (
                "SuccessFeedbackRoleArn",
                "SuccessFeedbackSampleRate",
                "FailureFeedbackRoleArn",
            )
        ),
    }
)

_DELIVERY_POLICY = json.dumps(
    {
        "http": {
            "defaultHealthyRetryPolicy": {
                "minDelayTarget": 20,
                "maxDelayTarget": 20,
                "numRetries": 3,
                "numMaxDelayRetries": 0,
                "numNoDelayRetries": 0,
                "numMinDelayRetries": 0,
                "backoffFunction": "linear",
            },
            "disableSubscriptionOverrides": False,
            "defaultRequestPolicy": {"headerContentType": "text/plain; charset=UTF-8"},
        }
    },
    separators=(",", ":"),
)

_ACTIONS = [
    "SNS:GetTopicAttributes",
    "SNS:SetTopicAttributes",
    "SNS:AddPermission",
    "SNS:RemovePermission",
    "SNS:DeleteTopic",
    "SNS:Subscribe",
    "SNS:ListSubscriptionsByTopic",
    "SNS:Publish",
]


def default_policy(arn: str, account: str) -> str:
    """The access policy SNS gives a new topic."""
    statement = {
        "Sid": "__default_statement_ID",
        "Effect": "Allow",
        "Principal": {"AWS": "*"},
        "Action": _ACTIONS,
        "Resource": arn,
        "Condition": {"StringEquals": {"AWS:SourceOwner": account}},
    }
    policy = {"Version": "2008-10-17", "Id": "__default_policy_ID", "Statement": [statement]}
    return json.dumps(policy, separators=(",", ":"))


def effective_attributes(call: Call, topic: Topic) -> dict[str, str]:
    """Every attribute GetTopicAttributes answers for ``topic``."""
    subscriptions = call.backend.topics.subscriptions_of(topic)
    pending = sum(1 for s in subscriptions if s.attributes.get("PendingConfirmation") == "true")
    answer = {
        "Policy": default_policy(topic.arn, topic.account),
        "Owner": topic.account,
        "SubscriptionsPending": str(pending),
        "TopicArn": topic.arn,
        "EffectiveDeliveryPolicy": _DELIVERY_POLICY,
        "SubscriptionsConfirmed": str(len(subscriptions) - pending),
        "DisplayName": "",
        "SubscriptionsDeleted": str(topic.subscriptions_deleted),
    }
    if topic.fifo:
        answer["FifoTopic"] = "true"
        answer["ContentBasedDeduplication"] = "false"
    answer.update(topic.attributes)
    return answer


def _as_given(attributes: dict[str, str]) -> dict[str, str]:
    for name in attributes:
        if name not in SETTABLE and name != "FifoTopic":
            raise SqsError("SnsInvalidParameter", name="AttributeName")
    return {k: v for k, v in attributes.items() if k != "FifoTopic"}


@sns_action("CreateTopic")
def create_topic(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    name = required(params, "Name")
    attributes: dict[str, str] = params.get("Attributes") or {}
    fifo = str(attributes.get("FifoTopic", "")).lower() == "true"
    if not (_FIFO_NAME if fifo else _NAME).fullmatch(name):
        raise SqsError("SnsInvalidParameter", name="Topic Name")
    key = (call.region, call.account, name)
    given = params.get("Tags") or []
    tags = {str(tag.get("Key")): str(tag.get("Value")) for tag in given}
    if len(tags) != len(given):
        raise SqsError("SnsDuplicateTagKeys")
    topics = call.backend.topics
    with topics.lock:
        topic = topics.get(key)
        if topic is None:
            topic = topics.create(key, fifo, _as_given(attributes))
            topic.tags.update(tags)
            topic.data_protection_policy = str(params.get("DataProtectionPolicy") or "")
            return {"TopicArn": topic.arn}
        current = effective_attributes(call, topic)
        current.setdefault("FifoTopic", "false")
        for attribute, value in attributes.items():
            if attribute == "FifoTopic":
                value = str(value).lower()
            if current.get(attribute) != value:
                raise SqsError("SnsTopicExists")
        if any(topic.tags.get(k) != v for k, v in tags.items()):
            raise SqsError("SnsTopicTagsDiffer")
    return {"TopicArn": topic_arn(*key)}


@sns_action("DeleteTopic")
def delete_topic(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    key = topic_named(call, "TopicArn", required(params, "TopicArn"))
    call.backend.topics.delete(key)
    return {}


@sns_action("ListTopics")
def list_topics(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topics = call.backend.topics.listed(call.region, call.account)
    shown, following = page(topics, params.get("NextToken"))
    answer: dict[str, Any] = {"Topics": [{"TopicArn": topic.arn} for topic in shown]}
    if following is not None:
        answer["NextToken"] = following
    return answer


@sns_action("GetTopicAttributes")
def get_topic_attributes(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    return {"Attributes": effective_attributes(call, topic_of(call, params))}


@sns_action("SetTopicAttributes")
def set_topic_attributes(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = topic_of(call, params)
    name = required(params, "AttributeName")
    if name not in SETTABLE:
        raise SqsError("SnsInvalidParameter", name="AttributeName")
    value = params.get("AttributeValue")
    with call.backend.topics.lock:
        topic.attributes[name] = "" if value is None else str(value)
    return {}
