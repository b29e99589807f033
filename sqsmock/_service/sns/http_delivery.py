"""The requests SNS posts to http/https subscribers: the subscription confirmation and each
notification, with the headers and JSON bodies AWS sends.

They are built here and handed to the sender the runtime put on the backend's topics (the
service does no network I/O); it posts them off the caller's thread, so Publish and Subscribe
never wait for a subscriber. A notification is counted delivered when the endpoint answers
2xx, dropped otherwise (AWS would retry by the DeliveryPolicy; sqsmock does not). Without a
sender (a backend nobody serves) nothing is posted and notifications count as dropped.
"""

from __future__ import annotations

from ..._engine.outbox import Outgoing
from ..._engine.topics import Subscription, Topic
from .._context import Call

__all__ = ["HTTP_PROTOCOLS", "notify_over_http", "post_confirmation"]

HTTP_PROTOCOLS = frozenset({"http", "https"})
_AGENT = "Amazon Simple Notification Service Agent"


def _headers(kind: str, message_id: str, topic_arn: str) -> dict[str, str]:
    return {
        "x-amz-sns-message-type": kind,
        "x-amz-sns-message-id": message_id,
        "x-amz-sns-topic-arn": topic_arn,
        "Content-Type": "text/plain; charset=UTF-8",
        "User-Agent": _AGENT,
    }


def post_confirmation(
    call: Call, subscription: Subscription, fields: dict[str, str], body: str
) -> None:
    """Post the SubscriptionConfirmation (``fields`` laid out as ``body``) to the endpoint."""
    sender = call.backend.topics.sender
    if sender is None:
        return
    headers = _headers("SubscriptionConfirmation", fields["MessageId"], fields["TopicArn"])
    sender(Outgoing(subscription.endpoint, headers, body.encode()))


def notify_over_http(
    call: Call, topic: Topic, subscription: Subscription, message_id: str, body: str
) -> None:
    """Post a notification (``body``: the envelope, or the message itself with raw delivery)
    to the subscription's endpoint; count it when the endpoint has answered."""
    topics = call.backend.topics
    sender = topics.sender
    if sender is None:
        topics.count(subscription, "dropped")
        return
    headers = _headers("Notification", message_id, topic.arn)
    headers["x-amz-sns-subscription-arn"] = subscription.arn
    if subscription.attributes.get("RawMessageDelivery") == "true":
        headers["x-amz-sns-rawdelivery"] = "true"

    def done(taken: bool) -> None:
        topics.count(subscription, "delivered" if taken else "dropped")

    sender(Outgoing(subscription.endpoint, headers, body.encode(), done))
