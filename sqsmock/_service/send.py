"""SendMessage and SendMessageBatch."""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Mapping
from typing import Any

from .._engine import Message, Queue
from .._engine.message import new_message_key
from .._errors import SqsError, batch_entry_error
from ._context import Call
from ._digest import md5_of_attributes, md5_of_bytes
from ._registry import Request, Response, action
from ._validate import (
    RELAXED,
    batch_entries,
    check_body_characters,
    first_forbidden,
    optional_int,
)
from .message_attributes import attributes_size, validate_message_attributes, validate_system

__all__ = ["build_message"]

MAX_BATCH_BYTES = 1048576
_ID_CHARS = re.compile(r"[!-~]{1,128}")  # alphanumerics and punctuation, no spaces


def _check_id(name: str, value: Any) -> str:
    if not isinstance(value, str) or not _ID_CHARS.fullmatch(value):
        raise SqsError("InvalidIdCharacters", name=name, value=value)
    return value


def build_message(
    call: Call, queue: Queue, params: Mapping[str, Any], *, in_batch: bool = False
) -> tuple[Message, int | None]:
    """A validated message and its per-message delay (None: the queue's), or the SQS error.

    ``in_batch``: an entry of SendMessageBatch, where SQS words the size error differently.
    """
    body = params.get("MessageBody")
    if body is None or body == "":
        raise SqsError("MissingParameter", name="MessageBody")
    body = str(body)
    check_body_characters(body)
    delay = optional_int(params, "DelaySeconds", 0, 900, "DelaySecondsOutOfRange")
    raw_attributes = params.get("MessageAttributes")
    attributes = validate_message_attributes(raw_attributes) if raw_attributes else None
    trace = validate_system(params.get("MessageSystemAttributes"))
    md5_system = None
    if trace is not None:
        md5_system = md5_of_attributes(
            {"AWSTraceHeader": {"DataType": "String", "StringValue": trace}}
        )
    else:  # the X-Amzn-Trace-Id header, unless it holds text SQS could not keep
        header = call.header("X-Amzn-Trace-Id")
        trace = header if header and first_forbidden(header) is None else None
    data = body.encode()
    size = len(data) + (attributes_size(attributes) if attributes else 0)
    if size > queue.maximum_message_size:
        too_long = "MessageTooLongInBatch" if in_batch else "MessageTooLong"
        raise SqsError(too_long, limit=queue.maximum_message_size)
    group = params.get("MessageGroupId")
    dedup = params.get("MessageDeduplicationId")
    if group is not None:
        _check_id("MessageGroupId", group)
    if dedup is not None:
        if not queue.fifo:
            raise SqsError("ParameterNotForQueueType", name="MessageDeduplicationId", value=dedup)
        _check_id("MessageDeduplicationId", dedup)
    if queue.fifo:
        if delay:
            raise SqsError("ParameterNotForQueueType", name="DelaySeconds", value=delay)
        delay = None  # the queue's delay applies
        if group is None:
            raise SqsError("MissingParameter", name="MessageGroupId")
        if dedup is None:
            if queue.attributes.get("ContentBasedDeduplication") != "true":
                raise SqsError("MissingDeduplicationId")
            dedup = hashlib.sha256(data).hexdigest()
    message = Message(
        new_message_key(),
        body,
        md5_of_bytes(data),
        attributes=attributes,
        md5_attributes=md5_of_attributes(attributes) if attributes else None,
        trace_header=trace,
        md5_system=md5_system,
        sender_id=call.account,
        group_id=group,
        dedup_id=dedup,
        size=size,
    )
    return message, delay


def _sent(message: Message, ids: tuple[str, str | None]) -> Response:
    """The response for one sent message; ``ids``: (MessageId, SequenceNumber) the queue gave."""
    out: Response = {"MessageId": ids[0], "MD5OfMessageBody": message.md5_body}
    if message.md5_attributes is not None:
        out["MD5OfMessageAttributes"] = message.md5_attributes
    if message.md5_system is not None:
        out["MD5OfMessageSystemAttributes"] = message.md5_system
    if ids[1] is not None:
        out["SequenceNumber"] = ids[1]
    return out


@action(
    "SendMessage",
    notes="size, characters, attributes, delays, FIFO group/deduplication rules; exact MD5s",
)
def send_message(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    message, delay = build_message(call, queue, request)
    return _sent(message, queue.send([message], [delay])[0])


def _check_fifo_batch(queue: Queue, entries: list[dict[str, Any]]) -> None:
    """On FIFO queues a missing group or deduplication id fails the whole batch."""
    content_based = queue.attributes.get("ContentBasedDeduplication") == "true"
    for entry in entries:
        if entry.get("MessageGroupId") is None:
            raise SqsError("MissingGroupIdInBatch")
        if entry.get("MessageDeduplicationId") is None and not content_based:
            raise SqsError("MissingDeduplicationId")


def _entry_size(entry: Mapping[str, Any]) -> int:
    body = entry.get("MessageBody")
    size = len(str(body).encode("utf-8", "surrogatepass")) if body else 0
    attributes = entry.get("MessageAttributes")
    if isinstance(attributes, Mapping):
        with contextlib.suppress(SqsError, AttributeError, TypeError):
            size += attributes_size(attributes)
    return size


@action(
    "SendMessageBatch",
    notes="batch rules; per-entry failures; FIFO whole-request rules",
)
def send_message_batch(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    limit = RELAXED if call.backend.relaxed_limits else 10
    entries = batch_entries(request, "SendMessageBatchRequestEntry", limit)
    if queue.fifo:
        _check_fifo_batch(queue, entries)
    total = sum(_entry_size(entry) for entry in entries)
    if total > MAX_BATCH_BYTES:
        raise SqsError("BatchRequestTooLong", size=total)
    built: list[tuple[str, Message, int | None]] = []
    failed: list[dict[str, object]] = []
    for entry in entries:
        try:
            message, delay = build_message(call, queue, entry, in_batch=True)
        except SqsError as error:
            failed.append(batch_entry_error(entry["Id"], error))
            continue
        built.append((entry["Id"], message, delay))
    ids = queue.send([m for _, m, _ in built], [d for _, _, d in built]) if built else []
    out: Response = {}
    if built:  # SQS leaves out an empty list: no "Successful" when every entry failed
        out["Successful"] = [
            {"Id": entry_id, **_sent(m, sent)}
            for (entry_id, m, _), sent in zip(built, ids, strict=True)
        ]
    if failed:
        out["Failed"] = failed
    return out
