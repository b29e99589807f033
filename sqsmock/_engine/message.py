"""A stored message and the snapshot a receive hands out.

The service layer builds ``Message`` objects (validated body, attributes and digests); the queue
owns their mutable state (``state``, ``visible_at``, ``receive_count``, ``receipt`` ...). Message
attributes are kept in their wire form (``BinaryValue`` as base64 text), so they go back out
without conversion. ``__slots__`` keeps a small message well under 1 KiB.

A message that leaves its queue (deleted, expired, moved, purged) is ``release``d: its body and
attributes are dropped at once. Stale schedule entries and FIFO group deques may still point at
the ``Message`` until their amortised clean-up, but then hold only its small delivery record, so
memory follows live messages. Whoever needs the content of a message after it left (a move, a
receive's answer) takes it before: ``carry()`` for a move, ``Received`` for an answer.
"""

from __future__ import annotations

import os
from typing import Any, Literal, NamedTuple

__all__ = [
    "DELAYED",
    "INFLIGHT",
    "STATE_NAMES",
    "SYSTEM_ATTRIBUTE_NAMES",
    "VISIBLE",
    "Message",
    "MessageState",
    "Received",
    "new_message_id",
    "system_attributes",
]

VISIBLE = 0
INFLIGHT = 1
DELAYED = 2
#: The state of a message as ``peek()`` shows it.
MessageState = Literal["visible", "inflight", "delayed"]
STATE_NAMES: tuple[MessageState, MessageState, MessageState] = ("visible", "inflight", "delayed")

#: The message system attributes a receive can ask for (besides "All").
SYSTEM_ATTRIBUTE_NAMES = frozenset(
    {
        "SenderId",
        "SentTimestamp",
        "ApproximateReceiveCount",
        "ApproximateFirstReceiveTimestamp",
        "SequenceNumber",
        "MessageDeduplicationId",
        "MessageGroupId",
        "AWSTraceHeader",
        "DeadLetterQueueSourceArn",
    }
)


def new_message_id() -> str:
    """A random (version 4) UUID string, cheaper than ``str(uuid.uuid4())``."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:32]}"


class Message:
    """One message of one queue, with its body, attributes and delivery state."""

    __slots__ = (
        "attributes",
        "body",
        "dedup_id",
        "dlq_source_arn",
        "first_receive_at",
        "gen",
        "group_id",
        "md5_attributes",
        "md5_body",
        "md5_system",
        "message_id",
        "receipt",
        "receive_count",
        "received_at",
        "sender_id",
        "sent_at",
        "seq",
        "sequence_number",
        "size",
        "slot",
        "state",
        "trace_header",
        "visible_at",
    )

    def __init__(
        self,
        message_id: str,
        body: str,
        md5_body: str,
        *,
        attributes: dict[str, dict[str, Any]] | None = None,
        md5_attributes: str | None = None,
        trace_header: str | None = None,
        md5_system: str | None = None,
        sender_id: str = "",
        group_id: str | None = None,
        dedup_id: str | None = None,
        size: int = 0,
    ) -> None:
        self.message_id = message_id
        self.body = body
        self.md5_body = md5_body
        self.attributes = attributes
        self.md5_attributes = md5_attributes
        self.trace_header = trace_header
        self.md5_system = md5_system
        self.sender_id = sender_id
        self.group_id = group_id
        self.dedup_id = dedup_id
        self.size = size
        self.sequence_number: str | None = None
        self.dlq_source_arn: str | None = None
        # Delivery state, owned by the queue.
        self.sent_at = 0.0
        self.seq = 0
        self.slot = -1
        self.gen = 0
        self.state = VISIBLE
        self.visible_at = 0.0
        self.receive_count = 0
        self.first_receive_at: float | None = None
        self.received_at = 0.0
        self.receipt: str | None = None

    def copy(self) -> Message:
        """The same message (id, body, attributes, digests) with fresh delivery state."""
        return Message(
            self.message_id,
            self.body,
            self.md5_body,
            attributes=self.attributes,
            md5_attributes=self.md5_attributes,
            trace_header=self.trace_header,
            md5_system=self.md5_system,
            sender_id=self.sender_id,
            group_id=self.group_id,
            dedup_id=self.dedup_id,
            size=self.size,
        )

    def carry(self) -> Message:
        """A copy that keeps what a move preserves: enqueue time, receive count and first
        receive, dead-letter source (delivery state starts afresh)."""
        m = self.copy()
        m.sent_at = self.sent_at
        m.receive_count = self.receive_count
        m.first_receive_at = self.first_receive_at
        m.dlq_source_arn = self.dlq_source_arn
        return m

    def release(self) -> None:
        """The message left its queue: drop its body and message attributes, which may be large
        (the record itself may stay referenced a while; see the module's docstring)."""
        self.body = ""
        self.attributes = None

    def __repr__(self) -> str:
        return f"<Message {self.message_id} {STATE_NAMES[self.state]} body={self.body[:40]!r}>"


class Received(NamedTuple):
    """A message as one receive delivered it (taken under the queue lock).

    ``body`` and ``attributes`` are taken with it: the message may be deleted (and released) by
    another caller before this answer is rendered."""

    message: Message
    receipt: str
    receive_count: int
    first_receive_at: float
    body: str
    attributes: dict[str, dict[str, Any]] | None


def system_attributes(
    m: Message,
    receive_count: int,
    first_receive_at: float | None,
    names: frozenset[str] | set[str] | None = None,
) -> dict[str, str]:
    """The message's system attributes as SQS returns them (strings; times in epoch ms).

    ``names`` selects some of them (``None``: all that apply to this message).
    """

    def want(name: str) -> bool:
        return names is None or name in names

    out: dict[str, str] = {}
    if want("SenderId"):
        out["SenderId"] = m.sender_id
    if want("SentTimestamp"):
        out["SentTimestamp"] = str(int(m.sent_at * 1000))
    if want("ApproximateReceiveCount"):
        out["ApproximateReceiveCount"] = str(receive_count)
    if first_receive_at is not None and want("ApproximateFirstReceiveTimestamp"):
        out["ApproximateFirstReceiveTimestamp"] = str(int(first_receive_at * 1000))
    if m.trace_header is not None and want("AWSTraceHeader"):
        out["AWSTraceHeader"] = m.trace_header
    if m.sequence_number is not None and want("SequenceNumber"):
        out["SequenceNumber"] = m.sequence_number
    if m.dedup_id is not None and want("MessageDeduplicationId"):
        out["MessageDeduplicationId"] = m.dedup_id
    if m.group_id is not None and want("MessageGroupId"):
        out["MessageGroupId"] = m.group_id
    if m.dlq_source_arn is not None and want("DeadLetterQueueSourceArn"):
        out["DeadLetterQueueSourceArn"] = m.dlq_source_arn
    return out
