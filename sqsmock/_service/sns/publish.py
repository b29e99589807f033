"""Publish and PublishBatch: SNS's checks, FIFO topics' deduplication and sequence numbers, and
delivery (``delivery``) to the topic's subscriptions before the call answers.

Every error fails the whole request, PublishBatch's included (SNS reports no ``Failed`` entry for
bad input). A FIFO topic remembers each deduplication id for five minutes on the mock's clock: a
duplicate answers the first message's MessageId and SequenceNumber and reaches no subscription.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from typing import Any

from ..._engine.ids import new_message_key, uuid_text
from ..._engine.topics import Topic
from ..._errors import SqsError
from .._context import Call
from ._arns import arn_parts, topic_of
from ._registry import sns_action
from .attributes import attributes_size, checked_attributes
from .delivery import Published, deliver

__all__ = ["MESSAGE_LIMIT", "timestamp"]

#: The largest message (UTF-8 bytes of Message and of each attribute's name, type and value).
MESSAGE_LIMIT = 262144
_BATCH_ID = re.compile(r"[A-Za-z0-9_-]+")
#: ASCII starting with a letter, digit or punctuation, no line breaks or control characters,
#: fewer than 100 characters.
_SUBJECT = re.compile(r"[!-~][ -~]{0,98}")


def _limit(topic: Topic) -> int:
    try:
        return int(topic.attributes.get("MaximumMessageSize", MESSAGE_LIMIT))
    except ValueError:
        return MESSAGE_LIMIT


def _for_sqs(message: str, structure: Any) -> str:
    """The message SQS subscriptions get: with MessageStructure=json, the ``sqs`` entry if it is
    a string, else ``default``."""
    if structure is None:
        return message
    if structure != "json":
        raise SqsError("SnsInvalidParameter", name="MessageStructure")
    try:
        document = json.loads(message)
    except json.JSONDecodeError:
        raise SqsError("SnsStructureNotJson") from None
    if not isinstance(document, dict) or not isinstance(document.get("default"), str):
        raise SqsError("SnsNoDefaultEntry")
    chosen = document.get("sqs")
    return chosen if isinstance(chosen, str) else str(document["default"])


def timestamp(now: float) -> str:
    moment = datetime.fromtimestamp(now, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _prepared(call: Call, topic: Topic, entry: dict[str, Any], where: str) -> Published:
    """One message checked as SNS checks it (its size is checked by the caller)."""
    message = entry.get("Message")
    if message is None:
        raise SqsError("SnsMissingParameter", name="Message")
    message = str(message)
    if message == "":
        raise SqsError("SnsEmptyMessage")
    subject = entry.get("Subject")
    if subject is not None:
        subject = str(subject)
        if not _SUBJECT.fullmatch(subject):
            raise SqsError("SnsInvalidParameter", name="Subject")
    for_sqs = _for_sqs(message, entry.get("MessageStructure"))
    attributes = checked_attributes(entry.get("MessageAttributes"), where)
    group = entry.get("MessageGroupId")
    deduplication = entry.get("MessageDeduplicationId")
    if topic.fifo:
        if group is None:
            raise SqsError("SnsGroupRequired")
        if deduplication is None:
            if topic.attributes.get("ContentBasedDeduplication", "false").lower() != "true":
                raise SqsError("SnsDeduplicationRequired")
            deduplication = hashlib.sha256(message.encode()).hexdigest()
    elif deduplication is not None:
        raise SqsError("SnsDeduplicationNotForTopic")
    return Published(
        uuid_text(new_message_key()),
        message,
        for_sqs,
        timestamp(call.backend.clock.now()),
        subject,
        attributes,
        None if group is None else str(group),
        None if deduplication is None else str(deduplication),
        structured=entry.get("MessageStructure") is not None,
    )


def _size(published: Published) -> int:
    return len(published.message.encode()) + attributes_size(published.attributes)


def _publish(call: Call, topic: Topic, published: Published) -> dict[str, Any]:
    """Deliver one checked message; its MessageId (and SequenceNumber on FIFO topics)."""
    if not topic.fifo:
        _deliver(call, topic, published)
        return {"MessageId": published.message_id}
    topics = call.backend.topics
    key = f"{published.deduplication}"
    if topic.attributes.get("FifoThroughputScope", "Topic") == "MessageGroup":
        key = f"{published.group}\n{key}"
    now = call.backend.clock.now()
    with topic.ordering:  # numbered and delivered in one step: queues see sequence order
        with topics.lock:
            seen = topics.deduplicated(topic, key, now)
            if seen is not None:
                return {"MessageId": seen[0], "SequenceNumber": seen[1]}
            published.sequence = topics.next_sequence(topic, key, published.message_id, now)
        _deliver(call, topic, published)
    return {"MessageId": published.message_id, "SequenceNumber": published.sequence}


def _deliver(call: Call, topic: Topic, published: Published) -> None:
    topics = call.backend.topics
    with topics.lock:
        topic.published += 1
    deliver(call, topic, topics.subscriptions_of(topic), published)


def _target(call: Call, params: dict[str, Any]) -> Topic | None:
    """The topic Publish names (TopicArn, or TargetArn naming a topic); None for a phone
    number (SMS, which never delivers in this mock)."""
    if params.get("TopicArn") is not None:
        return topic_of(call, params)
    target = params.get("TargetArn")
    if target is not None:
        parts = arn_parts("TargetArn", str(target))
        if parts[2] == "sns" and ":" not in parts[5] and not parts[5].startswith("endpoint/"):
            return topic_of(call, params, "TargetArn")
        raise SqsError("SnsNoEndpoint")
    if params.get("PhoneNumber"):
        return None
    raise SqsError("SnsMissingParameter", name="TopicArn or TargetArn")


@sns_action("Publish")
def publish(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = _target(call, params)
    if topic is None:
        return {"MessageId": uuid_text(new_message_key())}
    published = _prepared(call, topic, params, "messageAttributes")
    if _size(published) > _limit(topic):
        raise SqsError("SnsMessageTooLong")
    return _publish(call, topic, published)


def _checked_entries(params: dict[str, Any]) -> list[dict[str, Any]]:
    entries = params.get("PublishBatchRequestEntries")
    if entries is None:
        raise SqsError("SnsMissingParameter", name="PublishBatchRequestEntries")
    if not entries:
        raise SqsError("SnsEmptyBatch")
    if len(entries) > 10:
        raise SqsError("SnsTooManyEntries")
    ids = [str(entry.get("Id", "")) for entry in entries]
    if len(set(ids)) != len(ids):
        raise SqsError("SnsBatchIdsNotDistinct")
    for entry_id in ids:
        if len(entry_id) > 80:
            raise SqsError("SnsBatchIdTooLong", id=entry_id)
        if not _BATCH_ID.fullmatch(entry_id):
            raise SqsError("SnsBatchIdCharacters")
    return list(entries)


@sns_action("PublishBatch")
def publish_batch(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    topic = topic_of(call, params)
    entries = _checked_entries(params)
    prepared = [
        _prepared(call, topic, entry, f"publishBatchRequestEntries.{n}.member.messageAttributes")
        for n, entry in enumerate(entries, 1)
    ]
    if sum(_size(published) for published in prepared) > _limit(topic):
        raise SqsError("SnsBatchTooLong")
    successful = []
    for entry, published in zip(entries, prepared, strict=True):
        answer = _publish(call, topic, published)
        successful.append({"Id": str(entry["Id"]), **answer})
    return {"Successful": successful, "Failed": []}
