"""A stored message and the snapshot a receive hands out.

The service layer builds ``Message`` objects (validated body, attributes and digests); the queue
owns their mutable state (``state``, ``visible_at``, ``receive_count``, ``receipt`` ...). Message
attributes are kept in their wire form (``BinaryValue`` as base64 text), so they go back out
without conversion. A small message is kept in about 500 bytes (see ``Message``).

A message that leaves its queue (deleted, expired, moved, purged) is ``release``d: its body and
attributes are dropped at once. Stale schedule entries and FIFO group deques may still point at
the ``Message`` until their amortised clean-up, but then hold only its small delivery record, so
memory follows live messages. Whoever needs the content of a message after it left (a move, a
receive's answer) takes it before: ``carry()`` for a move, ``Received`` for an answer.
"""

from __future__ import annotations

import re
from typing import Any, Literal, NamedTuple

from .ids import new_message_key, uuid_text

__all__ = [
    "DELAYED",
    "INFLIGHT",
    "STATE_NAMES",
    "SYSTEM_ATTRIBUTE_NAMES",
    "VISIBLE",
    "Message",
    "MessageState",
    "Received",
    "id_text",
    "key_of_id",
    "new_message_id",
    "new_message_key",
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
    return uuid_text(new_message_key())


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").fullmatch
_HEX32 = re.compile(r"[0-9a-f]{32}").fullmatch


def key_of_id(text: str | int) -> int | str:
    """A MessageId as a message keeps it (``Message.id_key``, the key the log indexes): a
    canonical (lower-case) UUID as its 128-bit number, anything else as given -- ``id_text``
    gives back exactly the same text either way."""
    if isinstance(text, int):  # a key already (``new_message_key``)
        return text
    return int(text.replace("-", ""), 16) if _UUID(text) else text


def id_text(value: int | str) -> str:
    return value if isinstance(value, str) else uuid_text(value)


def _pack_md5(text: str) -> int | str:
    """An MD5 hex digest as kept: lower-case hex as its 128-bit number, anything else as
    given (``_md5_text`` gives back the same text)."""
    return int(text, 16) if _HEX32(text) else text


def _md5_text(value: int | str) -> str:
    return value if isinstance(value, str) else value.to_bytes(16, "big").hex()


#: ``Message._extra``: what most messages lack, kept in one tuple (or None) instead of slots.
_ATTRIBUTES, _MD5_ATTRIBUTES, _TRACE, _MD5_SYSTEM, _DLQ = range(5)
#: ``Message._fifo``: (MessageGroupId, MessageDeduplicationId, SequenceNumber), or None.
_GROUP, _DEDUP, _NUMBER = range(3)


_NO_EXTRA: tuple[Any, ...] = (None,) * 5
_NO_FIFO: tuple[str | None, ...] = (None,) * 3
_NEVER_RECEIVED: tuple[int, float | None, float, str | None] = (0, None, 0.0, None)


def _replaced(fields: tuple[Any, ...] | None, size: int, index: int, value: Any) -> Any:
    """``fields`` (None: all None) with ``fields[index] = value``; None when all are None."""
    values = list(fields) if fields is not None else [None] * size
    values[index] = value
    return None if all(v is None for v in values) else tuple(values)


class Message:
    """One message of one queue, with its body, attributes and delivery state.

    A million small messages are held at once, so each one is kept small: the MessageId and
    the body's MD5 as 128-bit numbers (their text is made when read), the fields most messages
    lack (message attributes and their digests, trace header, dead-letter source; FIFO ids;
    what receives left: count, first and last receive, receipt handle) in a tuple each that is
    None when all are, behind properties of the same names.
    """

    __slots__ = (
        "_extra",
        "_fifo",
        "_md5",
        "_received",
        "body",
        "gen",
        "id_key",
        "sender_id",
        "sent_at",
        "seq",
        "size",
        "slot",
        "state",
        "visible_at",
    )

    def __init__(
        self,
        message_id: str | int,
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
        self.id_key = key_of_id(message_id)
        self.body = body
        self._md5 = _pack_md5(md5_body)
        self._extra: tuple[Any, ...] | None = (
            None
            if attributes is None
            and md5_attributes is None
            and trace_header is None
            and md5_system is None
            else (attributes, md5_attributes, trace_header, md5_system, None)
        )
        self.sender_id = sender_id
        self._fifo: tuple[Any, ...] | None = (
            None if group_id is None and dedup_id is None else (group_id, dedup_id, None)
        )
        self.size = size
        # Delivery state, owned by the queue.
        self.sent_at = 0.0
        self.seq = 0
        self.slot = -1
        self.gen = 0
        self.state = VISIBLE
        self.visible_at = 0.0
        #: (receive count, first receive, last receive, receipt handle); None: never received.
        self._received: tuple[int, float | None, float, str | None] | None = None

    # -- fields kept compactly ----------------------------------------------------------------

    @property
    def message_id(self) -> str:
        return id_text(self.id_key)

    @message_id.setter
    def message_id(self, value: str) -> None:
        self.id_key = key_of_id(value)

    @property
    def md5_body(self) -> str:
        return _md5_text(self._md5)

    @property
    def attributes(self) -> dict[str, dict[str, Any]] | None:
        extra = self._extra
        return None if extra is None else extra[_ATTRIBUTES]

    @property
    def md5_attributes(self) -> str | None:
        extra = self._extra
        return None if extra is None else extra[_MD5_ATTRIBUTES]

    @property
    def trace_header(self) -> str | None:
        extra = self._extra
        return None if extra is None else extra[_TRACE]

    @property
    def md5_system(self) -> str | None:
        extra = self._extra
        return None if extra is None else extra[_MD5_SYSTEM]

    @property
    def dlq_source_arn(self) -> str | None:
        extra = self._extra
        return None if extra is None else extra[_DLQ]

    @dlq_source_arn.setter
    def dlq_source_arn(self, value: str | None) -> None:
        self._extra = _replaced(self._extra, 5, _DLQ, value)

    @property
    def receive_count(self) -> int:
        received = self._received
        return 0 if received is None else received[0]

    @receive_count.setter
    def receive_count(self, value: int) -> None:
        self.set_received(value, self.first_receive_at, self.received_at, self.receipt)

    @property
    def first_receive_at(self) -> float | None:
        received = self._received
        return None if received is None else received[1]

    @first_receive_at.setter
    def first_receive_at(self, value: float | None) -> None:
        self.set_received(self.receive_count, value, self.received_at, self.receipt)

    @property
    def received_at(self) -> float:
        received = self._received
        return 0.0 if received is None else received[2]

    @received_at.setter
    def received_at(self, value: float) -> None:
        self.set_received(self.receive_count, self.first_receive_at, value, self.receipt)

    @property
    def receipt(self) -> str | None:
        """The receipt handle of the latest receive (None: never received)."""
        received = self._received
        return None if received is None else received[3]

    @receipt.setter
    def receipt(self, value: str | None) -> None:
        self.set_received(self.receive_count, self.first_receive_at, self.received_at, value)

    def set_received(
        self, count: int, first: float | None, last: float, receipt: str | None
    ) -> None:
        self._received = (
            None
            if count == 0 and first is None and last == 0.0 and receipt is None
            else (count, first, last, receipt)
        )

    def compact_fields(
        self,
    ) -> tuple[
        tuple[Any, ...], tuple[str | None, ...], tuple[int, float | None, float, str | None]
    ]:
        """The three records behind the properties, for whoever reads them all at once (the
        store's encoder): (attributes, MD5 of attributes, trace header, MD5 of system
        attributes, dead-letter source); (group, deduplication id, sequence number); (receive
        count, first receive, last receive, receipt handle)."""
        return (
            self._extra or _NO_EXTRA,
            self._fifo or _NO_FIFO,
            self._received or _NEVER_RECEIVED,
        )

    def received(self, now: float, receipt: str) -> tuple[int, float]:
        """A receive handed the message out at ``now`` with ``receipt``: count it. Returns
        the receive count and the first receive's time."""
        got = self._received
        count, first = (1, now) if got is None else (got[0] + 1, got[1])
        if first is None:
            first = now
        self._received = (count, first, now, receipt)
        return count, first

    @property
    def group_id(self) -> str | None:
        fifo = self._fifo
        return None if fifo is None else fifo[_GROUP]

    @property
    def dedup_id(self) -> str | None:
        fifo = self._fifo
        return None if fifo is None else fifo[_DEDUP]

    @property
    def sequence_number(self) -> str | None:
        fifo = self._fifo
        return None if fifo is None else fifo[_NUMBER]

    @sequence_number.setter
    def sequence_number(self, value: str | None) -> None:
        self._fifo = _replaced(self._fifo, 3, _NUMBER, value)

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
        extra = self._extra
        if extra is not None and extra[_ATTRIBUTES] is not None:
            self._extra = _replaced(extra, 5, _ATTRIBUTES, None)

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
