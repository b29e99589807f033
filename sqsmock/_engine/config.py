"""A queue's attributes: the strings SQS shows, and the typed values the engine reads.

``GetQueueAttributes`` answers with the strings exactly as they were set (or defaulted), while
every call reads a few of them as numbers (the visibility timeout, the delay, retention ...).
``QueueConfig`` keeps both, and derives the typed values again whenever the strings change, so no
call parses an attribute. The service layer has validated every value before it arrives here.
The RedrivePolicy is parsed here too, into a ``RedrivePolicy``: the dead-letter moves
(``redrive.py``) read it, and this module imports no other part of the engine.
"""

from __future__ import annotations

import json
from typing import NamedTuple

__all__ = ["DEFAULT_ATTRIBUTES", "FIFO_DEFAULT_ATTRIBUTES", "QueueConfig", "RedrivePolicy"]

DEFAULT_ATTRIBUTES: dict[str, str] = {
    "DelaySeconds": "0",
    "MaximumMessageSize": "1048576",
    "MessageRetentionPeriod": "345600",
    "ReceiveMessageWaitTimeSeconds": "0",
    "VisibilityTimeout": "30",
    "SqsManagedSseEnabled": "true",
}

FIFO_DEFAULT_ATTRIBUTES: dict[str, str] = {
    "FifoQueue": "true",
    "ContentBasedDeduplication": "false",
    "DeduplicationScope": "queue",
    "FifoThroughputLimit": "perQueue",
}


class RedrivePolicy(NamedTuple):
    """A queue's RedrivePolicy attribute, parsed."""

    target_arn: str
    max_receive_count: int

    @classmethod
    def parse(cls, text: str) -> RedrivePolicy:
        """The policy of a RedrivePolicy attribute the service layer validated."""
        parsed = json.loads(text)
        return cls(parsed["deadLetterTargetArn"], int(parsed["maxReceiveCount"]))


#: Attributes that setting to "" removes (SQS then answers without them).
_REMOVABLE = ("Policy", "RedrivePolicy", "RedriveAllowPolicy", "KmsMasterKeyId")


class QueueConfig:
    """The attributes of one queue (``attributes``) and the values derived from them."""

    __slots__ = (
        "attributes",
        "delay_seconds",
        "maximum_message_size",
        "redrive",
        "retention_period",
        "visibility_timeout",
        "wait_time_seconds",
    )

    def __init__(self, attributes: dict[str, str], *, fifo: bool) -> None:
        self.attributes: dict[str, str] = dict(DEFAULT_ATTRIBUTES)
        if fifo:
            self.attributes.update(FIFO_DEFAULT_ATTRIBUTES)
        self.visibility_timeout = 30
        self.delay_seconds = 0
        self.retention_period = 345600
        self.maximum_message_size = 1048576
        self.wait_time_seconds = 0
        self.redrive: RedrivePolicy | None = None
        self.apply(attributes)

    def apply(self, attributes: dict[str, str]) -> None:
        """Set these attributes (the others keep their values).

        An empty ``Policy``, ``RedrivePolicy``, ``RedriveAllowPolicy`` or ``KmsMasterKeyId``
        removes it; removing the KMS key also removes its data key reuse period. A queue with a
        KMS key is not also SSE-SQS encrypted: ``SqsManagedSseEnabled`` turns "false".
        """
        for name, value in attributes.items():
            if value == "" and name in _REMOVABLE:
                self.attributes.pop(name, None)
                if name == "KmsMasterKeyId":
                    self.attributes.pop("KmsDataKeyReusePeriodSeconds", None)
                continue
            self.attributes[name] = value
        if "KmsMasterKeyId" in self.attributes:
            self.attributes["SqsManagedSseEnabled"] = "false"
        a = self.attributes
        self.visibility_timeout = int(a["VisibilityTimeout"])
        self.delay_seconds = int(a["DelaySeconds"])
        self.retention_period = int(a["MessageRetentionPeriod"])
        self.maximum_message_size = int(a["MaximumMessageSize"])
        self.wait_time_seconds = int(a["ReceiveMessageWaitTimeSeconds"])
        policy = a.get("RedrivePolicy")
        self.redrive = RedrivePolicy.parse(policy) if policy else None

    def restore(self, attributes: dict[str, str]) -> None:
        """Replace every attribute with stored ones (a reload from the store)."""
        self.attributes = dict(attributes)
        self.apply({})
