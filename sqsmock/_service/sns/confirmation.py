"""Subscriptions that wait for a confirmation: an SQS queue of another account than the
caller's, and every http/https endpoint.

SNS sends the queue a ``SubscriptionConfirmation`` message (its token, the URL that confirms it),
or posts it to the http endpoint (through the runtime's sender, off the caller's thread), and
keeps the subscription pending -- it delivers nothing -- until ``ConfirmSubscription`` brings
the token back. (A queue's owner subscribing it needs no confirmation.)

Its ``SubscribeURL`` is AWS's in-process; over the server it is the server's own address, where
a GET of it (what most http subscribers do with it) confirms, as on AWS.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..._engine.ids import new_message_key, new_nonce, uuid_text
from ..._engine.topics import Subscription, Topic
from ..._errors import SqsError
from .._context import Call
from ..addresses import AWS_URLS
from ._arns import required, topic_of
from ._registry import sns_action
from .delivery import json_document, send_body, signature, signing_certificate_url
from .http_delivery import HTTP_PROTOCOLS, post_confirmation
from .publish import timestamp

__all__ = ["ask_to_confirm"]


def ask_to_confirm(call: Call, topic: Topic, subscription: Subscription) -> None:
    """Give ``subscription`` a token and send its queue (or endpoint) the message that
    carries it."""
    token = new_nonce(1024)
    subscription.token = token
    host = f"https://sns.{topic.region}.amazonaws.com"
    if call.urls is not AWS_URLS:  # over the server: its address, where a GET confirms
        parts = urlsplit(call.urls.make(topic.region, topic.account, "q"))
        host = f"{parts.scheme}://{parts.netloc}"
    fields = {
        "Type": "SubscriptionConfirmation",
        "MessageId": uuid_text(new_message_key()),
        "Token": token,
        "TopicArn": topic.arn,
        "Message": f"You have chosen to subscribe to the topic {topic.arn}.\n"
        "To confirm the subscription, visit the SubscribeURL included in this message.",
        "SubscribeURL": f"{host}/?Action=ConfirmSubscription&TopicArn={topic.arn}&Token={token}",
        "Timestamp": timestamp(call.backend.clock.now()),
        "SignatureVersion": "1",
    }
    fields["Signature"] = signature(fields)
    fields["SigningCertURL"] = signing_certificate_url(topic.region)
    if subscription.protocol in HTTP_PROTOCOLS:
        post_confirmation(call, subscription, fields, json_document(fields))
        return
    queue = call.backend.by_arn(subscription.endpoint)
    if queue is not None:
        send_body(call, queue, json_document(fields))


@sns_action("ConfirmSubscription")
def confirm_subscription(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = topic_of(call, params)
    confirmed = call.backend.topics.confirm(topic, required(params, "Token"))
    if confirmed is None:
        raise SqsError("SnsInvalidParameter", name="Token")
    return {"SubscriptionArn": confirmed.arn}
