"""The engine's state as plain records, for a store to keep (see docs/persistence.md).

A queue's write-through is a list of ``Op``s gathered while its lock is held and handed to the
store once per call. A message is one record: what was sent (body, attributes, digests, ids,
enqueue order and time) and its delivery state (``"state"``: state, visible-at, receive count,
first and last receive, receipt handle), rewritten whenever a receive or a visibility change
moves it. Time-driven transitions are not written: on load, a message whose ``visible_at`` has
passed is visible, and one past retention is dropped.

Records are JSON text; ``decode_*`` raise ``ValueError`` with a precise reason on anything that is
not a record this module wrote.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .message import DELAYED, INFLIGHT, VISIBLE, Message

__all__ = [
    "decode_dedup",
    "decode_message",
    "decode_messages",
    "decode_meta",
    "decode_time",
    "encode_dedup",
    "encode_message",
    "encode_meta",
]

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def encode_message(m: Message) -> str:
    (attributes, md5a, trace, md5s, dlq), (group, dedup, number), received = m.compact_fields()
    count, first, last, receipt = received
    return _dumps(
        {
            "id": m.message_id,
            "body": m.body,
            "md5": m.md5_body,
            "attrs": attributes,
            "md5a": md5a,
            "trace": trace,
            "md5s": md5s,
            "sender": m.sender_id,
            "group": group,
            "dedup": dedup,
            "size": m.size,
            "seq": m.seq,
            "sent": m.sent_at,
            "sn": number,
            "dlq": dlq,
            "state": [m.state, m.visible_at, count, first, last, receipt],
        }
    )


_NUMBER = (int, float)


def _field(record: dict[str, Any], name: str, kinds: tuple[type, ...], optional: bool) -> Any:
    value = record.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ValueError(f"field {name!r} is {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"field {name!r} is {value!r}, not a finite number")
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise ValueError(f"field {name!r} is negative ({value!r})")
    return value


def decode_time(value: Any, what: str = "time") -> float:
    """A stored moment or duration: a finite, non-negative number (bools are not numbers)."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise ValueError(f"{what} {value!r} is not a number") from None
    if not isinstance(value, _NUMBER) or isinstance(value, bool):
        raise ValueError(f"{what} {value!r} is not a number")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} {value!r} is not a finite, non-negative number")
    return float(value)


def _attributes(value: Any) -> dict[str, dict[str, Any]] | None:
    """Message attributes in wire form: name -> {DataType, StringValue | BinaryValue}."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError("message attributes must be a JSON object")
    for name, attr in value.items():
        if (
            not isinstance(attr, dict)
            or not isinstance(attr.get("DataType"), str)
            or len(attr) != 2
            or not (
                isinstance(attr.get("StringValue"), str) or isinstance(attr.get("BinaryValue"), str)
            )
        ):
            raise ValueError(
                f"message attribute {name!r} is {attr!r}, not {{DataType, StringValue or "
                "BinaryValue}"
            )
    return value


#: Message record fields by expected type (checked with ``type() is``: runs per message on load).
_REQUIRED_TEXT = ("id", "body", "md5", "sender")
_OPTIONAL_TEXT = ("md5a", "trace", "md5s", "group", "dedup", "sn", "dlq")
_INF = math.inf


def _time(value: Any, what: str) -> float:
    """A stored moment: a finite, non-negative JSON number (the fast path of ``decode_time``)."""
    kind = type(value)
    if (kind is float or kind is int) and 0 <= value < _INF:
        return float(value)
    return decode_time(value, what)  # raises with the reason (NaN fails the comparison above)


def decode_message(text: str | bytes) -> Message:
    record = json.loads(text)
    if type(record) is not dict:
        raise ValueError("a message record must be a JSON object")
    get = record.get
    for name in _REQUIRED_TEXT:
        if type(get(name)) is not str:
            raise ValueError(f"field {name!r} is {get(name)!r}")
    for name in _OPTIONAL_TEXT:
        value = get(name)
        if value is not None and type(value) is not str:
            raise ValueError(f"field {name!r} is {value!r}")
    for name in ("size", "seq"):
        value = get(name)
        if type(value) is not int or value < 0:
            raise ValueError(f"field {name!r} is {value!r}")
    attributes = get("attrs")
    if attributes is not None:
        _attributes(attributes)
    number = get("sn")
    if number is not None and not number.isdigit():
        raise ValueError(f"field 'sn' is {number!r}, not a sequence number")
    m = Message(
        record["id"],
        record["body"],
        record["md5"],
        attributes=attributes,
        md5_attributes=get("md5a"),
        trace_header=get("trace"),
        md5_system=get("md5s"),
        sender_id=record["sender"],
        group_id=get("group"),
        dedup_id=get("dedup"),
        size=record["size"],
    )
    m.seq = record["seq"]
    m.sent_at = _time(get("sent"), "send time")
    m.sequence_number = number
    m.dlq_source_arn = get("dlq")
    _decode_state(m, get("state"))
    return m


def decode_messages(records: dict[str, str]) -> list[Message]:
    """A queue's messages from their records by MessageId, in enqueue order. The ValueError
    for a record that cannot be read names its message."""
    messages: list[Message] = []
    for message_id, text in records.items():
        try:
            m = decode_message(text)
            if m.message_id != message_id:
                raise ValueError(f"the record is for message {m.message_id!r}")
        except (ValueError, TypeError) as error:
            raise ValueError(f"message {message_id!r}: {error}") from None
        messages.append(m)
    messages.sort(key=lambda m: m.seq)
    return messages


def _decode_state(m: Message, record: Any) -> None:
    if type(record) is not list or len(record) != 6:
        raise ValueError("its delivery state must be a list of 6 values")
    state, visible_at, count, first, received, receipt = record
    if state not in (VISIBLE, INFLIGHT, DELAYED) or type(state) is not int:
        raise ValueError(f"unknown message state {state!r}")
    if type(count) is not int or count < 0:
        raise ValueError(f"bad receive count {count!r}")
    if receipt is not None and type(receipt) is not str:
        raise ValueError("a receipt handle must be a string")
    if state == INFLIGHT and receipt is None:
        raise ValueError("a message in flight must have a receipt handle")
    m.state = state
    m.visible_at = _time(visible_at, "visible-at time")
    m.set_received(
        count,
        None if first is None else _time(first, "first receive time"),
        _time(received, "receive time"),
        receipt,
    )


def encode_meta(
    *,
    name: str,
    region: str,
    account: str,
    fifo: bool,
    attributes: dict[str, str],
    tags: dict[str, str],
    created: float,
    modified: float,
    purged: float | None,
    scope: str | None = None,
) -> str:
    return _dumps(
        {
            "name": name,
            "region": region,
            "account": account,
            "fifo": fifo,
            "attributes": attributes,
            "tags": tags,
            "created": created,
            "modified": modified,
            "purged": purged,
            "scope": scope,
        }
    )


def decode_meta(text: str | bytes) -> dict[str, Any]:
    record = json.loads(text)
    if not isinstance(record, dict):
        raise ValueError("queue metadata must be a JSON object")
    number = (int, float)
    for name, kinds, optional in (
        ("name", (str,), False),
        ("region", (str,), False),
        ("account", (str,), False),
        ("fifo", (bool,), False),
        ("attributes", (dict,), False),
        ("tags", (dict,), False),
        ("created", number, False),
        ("modified", number, False),
        ("purged", number, True),
        ("scope", (str,), True),
    ):
        _field(record, name, kinds, optional)
    for mapping in (record["attributes"], record["tags"]):
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
            raise ValueError("attributes and tags must map strings to strings")
    if record["scope"] not in (None, "queue", "messageGroup"):
        raise ValueError(f"unknown deduplication scope {record['scope']!r}")
    return record


def decode_dedup(text: str | bytes) -> tuple[str, str | None, float]:
    """A FIFO deduplication entry: [MessageId, SequenceNumber or null, expiry]."""
    entry = json.loads(text)
    if not isinstance(entry, list) or len(entry) != 3:
        raise ValueError("a deduplication entry must be a list of 3 values")
    message_id, number, expires = entry
    if not isinstance(message_id, str) or not (number is None or isinstance(number, str)):
        raise ValueError(f"deduplication entry {entry!r} has the wrong types")
    return message_id, number, decode_time(expires, "expiry")


def encode_dedup(message_id: str, sequence_number: str | None, expires: float) -> str:
    """A FIFO deduplication entry (``decode_dedup`` reads it back)."""
    return json.dumps([message_id, sequence_number, expires], separators=(",", ":"))
