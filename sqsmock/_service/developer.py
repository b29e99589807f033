"""LocalStack's SQS developer endpoint (``/_aws/sqs/messages``): every message of a queue in
ReceiveMessage's shape, without a receive's side effects.

Not an SQS action, so not in ``ACTIONS``: it answers ReceiveMessage's output (every system and
message attribute, the digests) for each message a queue holds, with a receipt handle that
names the endpoint rather than a delivery (``SQS/BACKDOOR/ACCESS``). Receive counts, visibility
and FIFO groups stay as they were. In-flight messages (and, on FIFO queues, the messages held
back behind them in their group) are shown with ``ShowInvisible``, delayed ones with
``ShowDelayed``; each then carries ``IsVisible`` / ``IsDelayed``. Order: in-flight first, then
visible, then delayed, each in the queue's order -- as LocalStack lists them.
"""

from __future__ import annotations

from typing import Any

from ._context import Call
from ._digest import md5_of_attributes, md5_of_body
from ._registry import Response

__all__ = ["RECEIPT_HANDLE", "list_messages"]

#: The receipt handle of every listed message: it deletes nothing.
RECEIPT_HANDLE = "SQS/BACKDOOR/ACCESS"


def list_messages(
    call: Call, url: str, *, show_invisible: bool = False, show_delayed: bool = False
) -> Response:
    """ReceiveMessage's output for the messages of the queue at ``url`` (QueueDoesNotExist if
    there is none)."""
    queue = call.queue({"QueueUrl": url})
    queue.settle()
    views = queue.peek()
    held_groups = {v.group_id for v in views if v.state == "inflight" and v.group_id}
    inflight, visible, delayed = [], [], []
    for v in views:
        if v.state == "delayed":
            delayed.append((v, False))
        elif v.state == "inflight" or (v.group_id is not None and v.group_id in held_groups):
            inflight.append((v, False))
        else:
            visible.append((v, True))
    shown = (inflight if show_invisible else []) + visible + (delayed if show_delayed else [])
    messages = []
    for v, is_visible in shown:
        attributes = dict(v.attributes)
        if show_invisible:
            attributes["IsVisible"] = "true" if is_visible else "false"
        if show_delayed:
            attributes["IsDelayed"] = "true" if v.state == "delayed" else "false"
        message: dict[str, Any] = {
            "MessageId": v.message_id,
            "ReceiptHandle": RECEIPT_HANDLE,
            "MD5OfBody": md5_of_body(v.body),
            "Body": v.body,
            "Attributes": attributes,
        }
        if v.message_attributes:
            message["MessageAttributes"] = v.message_attributes
            message["MD5OfMessageAttributes"] = md5_of_attributes(v.message_attributes)
        messages.append(message)
    return {"Messages": messages}
