"""Delivering a published message into the queues of a topic's SQS subscriptions.

Each subscription's copy is sent through SQS's own ``build_message`` and ``Queue.send``, so it is
checked, digested (MD5s) and kept exactly as a SendMessage of the same body and attributes
would be; the engine tells its observers (``wait_for``) as for any message. Delivery is
synchronous: a test finds the message in the queue when Publish returns.

A subscription receives either the JSON envelope SNS wraps a notification in (``envelope``, with
its keys in SNS's order and its pretty-printed form) or, with ``RawMessageDelivery``, the message
itself with its attributes as SQS message attributes. A queue that is gone, or refuses the
message (its Policy does not let the topic send, SQS rejects it, a raw message has more
attributes than SQS takes), is a client-side error to SNS: the message goes to the
subscription's dead-letter queue (``RedrivePolicy``) exactly as the queue would have had it -- no
error attributes added, as AWS's recorded deliveries show -- else it is dropped. Every outcome is
counted on the subscription: delivered, filtered, dead-lettered, dropped.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..._engine import Queue
from ..._engine.topics import Subscription, Topic
from ..._errors import SqsError
from .._context import Call
from ..send import build_message
from ..sns_filters import ATTRIBUTES_SCOPE, stored_policy
from .http_delivery import HTTP_PROTOCOLS, notify_over_http
from .queue_policy import lets_topic_send

__all__ = [
    "Published",
    "deliver",
    "envelope",
    "json_document",
    "send_body",
    "signature",
    "signing_certificate_url",
]

#: The protocols this mock delivers to (http/https: on this machine only).
_DELIVERING = frozenset({"sqs"}) | HTTP_PROTOCOLS
#: A raw delivery with more attributes than SQS takes is discarded (SNS: a client-side error).
_RAW_ATTRIBUTE_LIMIT = 10
#: The fields SNS signs, in the order it signs them (those a message has).
_SIGNED = (
    "Message",
    "MessageId",
    "Subject",
    "SubscribeURL",
    "Timestamp",
    "Token",
    "TopicArn",
    "Type",
)
#: What stands in the SigningCertURL's name (SNS's names its certificate by a hash).
_CERTIFICATE = hashlib.md5(b"sqsmock").hexdigest()


@dataclass
class Published:
    """One message as published to a topic, ready for each subscription."""

    message_id: str
    message: str
    #: MessageStructure=json: the message per protocol (``"sqs"`` if a string, else ``default``).
    for_sqs: str
    timestamp: str
    subject: str | None = None
    attributes: dict[str, dict[str, str]] = field(default_factory=dict)
    group: str | None = None
    deduplication: str | None = None
    sequence: str | None = None
    #: MessageStructure=json: ``message`` holds an entry per protocol.
    structured: bool = False

    def for_protocol(self, protocol: str) -> str:
        """The message a subscription of ``protocol`` gets: its entry if it is a string, else
        ``default`` (with MessageStructure=json), else the message."""
        if protocol == "sqs":
            return self.for_sqs
        if not self.structured:
            return self.message
        document = json.loads(self.message)
        chosen = document.get(protocol)
        return chosen if isinstance(chosen, str) else str(document["default"])


def _matches(subscription: Subscription, message: Published) -> bool:
    """Does ``message`` pass the subscription's filter policy (FilterPolicy, FilterPolicyScope)?
    The policy was checked when it was set; it is compiled once for every publish."""
    text = subscription.attributes.get("FilterPolicy")
    if not text:
        return True
    scope = subscription.attributes.get("FilterPolicyScope") or ATTRIBUTES_SCOPE
    return stored_policy(text, scope).matches(message.for_sqs, message.attributes)


def signing_certificate_url(region: str) -> str:
    return f"https://sns.{region}.amazonaws.com/SimpleNotificationService-{_CERTIFICATE}.pem"


def signature(fields: Mapping[str, str]) -> str:
    """A signature-shaped value: base64 of 256 bytes derived from SNS's string to sign. It is
    not an RSA signature (sqsmock holds no SNS private key): it does not verify."""
    signed = "".join(f"{name}\n{fields[name]}\n" for name in _SIGNED if name in fields).encode()
    digest = b"".join(hashlib.sha256(bytes([i]) + signed).digest() for i in range(8))
    return base64.b64encode(digest).decode()


def _dumped(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def json_document(
    fields: Mapping[str, str], attributes: Mapping[str, Mapping[str, str]] | None = None
) -> str:
    """A message SNS sends to SQS, laid out as SNS lays it out: one key a line, in order."""
    lines = [f"  {_dumped(name)} : {_dumped(value)}" for name, value in fields.items()]
    if attributes:
        entries = []
        for name, value in attributes.items():
            text = value.get("StringValue", value.get("BinaryValue", ""))
            kind = _dumped(value["DataType"])
            entries.append(f'    {_dumped(name)} : {{"Type":{kind},"Value":{_dumped(text)}}}')
        lines.append('  "MessageAttributes" : {\n' + ",\n".join(entries) + "\n  }")
    return "{\n" + ",\n".join(lines) + "\n}"


def envelope(
    topic: Topic, subscription_arn: str, message: Published, text: str | None = None
) -> str:
    """The body SQS (or an http endpoint, its ``text``) receives from SNS for a subscription
    without raw delivery."""
    fields: dict[str, str] = {"Type": "Notification", "MessageId": message.message_id}
    if message.sequence is not None:
        fields["SequenceNumber"] = message.sequence
    fields["TopicArn"] = topic.arn
    if message.subject is not None:
        fields["Subject"] = message.subject
    fields["Message"] = message.for_sqs if text is None else text
    fields["Timestamp"] = message.timestamp
    if not topic.fifo:
        fields["SignatureVersion"] = topic.attributes.get("SignatureVersion", "1")
        fields["Signature"] = signature(fields)
        fields["SigningCertURL"] = signing_certificate_url(topic.region)
    host = f"https://sns.{topic.region}.amazonaws.com"
    fields["UnsubscribeURL"] = f"{host}/?Action=Unsubscribe&SubscriptionArn={subscription_arn}"
    return json_document(fields, message.attributes)


def _request(
    topic: Topic, subscription: Subscription, message: Published, fifo_queue: bool
) -> dict[str, Any]:
    raw = subscription.attributes.get("RawMessageDelivery") == "true"
    request: dict[str, Any] = {}
    if raw:
        request["MessageBody"] = message.for_sqs
        if message.attributes:
            request["MessageAttributes"] = message.attributes
    else:
        request["MessageBody"] = envelope(topic, subscription.arn, message)
    if fifo_queue:
        request["MessageGroupId"] = message.group
        request["MessageDeduplicationId"] = message.deduplication
    elif message.group is not None and not topic.fifo:
        request["MessageGroupId"] = message.group  # fair queues: standard topics pass it on
    return request


def _send(
    call: Call, topic: Topic, subscription: Subscription, message: Published, arn: str
) -> bool:
    """Send the subscription's copy of ``message`` to the queue ``arn``; False if the queue is
    gone or refuses it (a client-side error to SNS)."""
    backend = call.backend
    queue = backend.by_arn(arn)
    if queue is None or not lets_topic_send(queue.attributes.get("Policy"), arn, topic.arn):
        return False
    raw = subscription.attributes.get("RawMessageDelivery") == "true"
    if raw and len(message.attributes) > _RAW_ATTRIBUTE_LIMIT:
        return False
    sender = Call(queue.region, queue.account, call.headers, backend=backend)
    request = _request(topic, subscription, message, queue.arn.endswith(".fifo"))
    try:
        built, delay = build_message(sender, queue, request)
        queue.send([built], [delay])
    except SqsError:
        return False
    return True


def _dead_letter_queue(subscription: Subscription) -> str | None:
    """The ARN in the subscription's RedrivePolicy (checked when it was set), if any."""
    text = subscription.attributes.get("RedrivePolicy")
    if not text:
        return None
    try:
        target = json.loads(text).get("deadLetterTargetArn")
    except (ValueError, AttributeError):
        return None
    return target if isinstance(target, str) else None


def deliver(
    call: Call, topic: Topic, subscriptions: list[Subscription], message: Published
) -> None:
    """Send ``message`` to every subscription that takes it."""
    count = call.backend.topics.count
    for subscription in subscriptions:
        protocol = subscription.protocol
        if protocol not in _DELIVERING or subscription.attributes.get("PendingConfirmation"):
            continue  # other protocols never deliver in this mock; nor does a pending one
        if not _matches(subscription, message):
            count(subscription, "filtered")
        elif protocol in HTTP_PROTOCOLS:
            text = message.for_protocol(protocol)
            raw = subscription.attributes.get("RawMessageDelivery") == "true"
            body = text if raw else envelope(topic, subscription.arn, message, text)
            notify_over_http(call, topic, subscription, message.message_id, body)
        elif _send(call, topic, subscription, message, subscription.endpoint):
            count(subscription, "delivered")
        else:
            dead_letters = _dead_letter_queue(subscription)
            if dead_letters is not None and _send(call, topic, subscription, message, dead_letters):
                count(subscription, "dead_lettered")
            else:
                count(subscription, "dropped")


def send_body(call: Call, queue: Queue, body: str) -> None:
    """Send ``body`` to ``queue`` as SNS does (nothing if the queue refuses it)."""
    sender = Call(queue.region, queue.account, call.headers, backend=call.backend)
    try:
        built, delay = build_message(sender, queue, {"MessageBody": body})
        queue.send([built], [delay])
    except SqsError:
        pass
