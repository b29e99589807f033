"""LocalStack's SQS developer endpoint (``/_aws/sqs/messages``): every message of a queue in
ReceiveMessage's shape, without a receive's side effects.

Not an SQS action, so not in ``ACTIONS``: it answers ReceiveMessage's output (every system and
message attribute, the digests) for each message a queue holds, with a receipt handle that
names the endpoint rather than a delivery (``SQS/BACKDOOR/ACCESS``). Receive counts, visibility
and FIFO groups stay as they were. In-flight messages (and, on FIFO queues, the messages held
back behind them in their group) are shown with ``ShowInvisible``, delayed ones with
``ShowDelayed``; each then carries ``IsVisible`` / ``IsDelayed`` (``IsVisible`` is the
message's own: ``false`` in flight only, ``true`` for one held behind its group or delayed, as
LocalStack marks them). Every message has
``ApproximateFirstReceiveTimestamp``, ``0`` until it is first received, as LocalStack's listing
gives it. Order: in-flight first, then visible, then delayed, each in the queue's order -- as
LocalStack lists them.

LocalStack lists every message at once; on a deep queue that is one answer of any size, built
while other clients wait, so here an answer lists at most ``PAGE`` messages (``MaxResults``
asks for fewer) and stops once their bodies hold ``PAGE_BYTES``, with a token for the rest:
``NextToken`` names the part and the last message listed, so it stays right while the queue
changes (a message that moves between parts meanwhile may be listed twice or not at all).
"""

from __future__ import annotations

import re
from typing import Any

from .._engine.message import DELAYED, INFLIGHT, VISIBLE
from .._engine.views import HELD
from .._errors import SqsError
from ._context import Call
from ._digest import md5_of_attributes, md5_of_body
from ._registry import Response

__all__ = ["PAGE", "PAGE_BYTES", "RECEIPT_HANDLE", "list_messages"]

#: The receipt handle of every listed message: it deletes nothing.
RECEIPT_HANDLE = "SQS/BACKDOOR/ACCESS"
#: Messages one answer lists unless ``MaxResults`` asks for fewer (and at most).
PAGE = 1000
#: An answer stops once its messages' bodies hold this many characters (it lists one at least).
PAGE_BYTES = 4 * 1024 * 1024
#: The listing's three parts, in LocalStack's order: in flight (and held behind them), visible,
#: delayed -- the states each part shows.
_PARTS = (frozenset({INFLIGHT, HELD}), frozenset({VISIBLE}), frozenset({DELAYED}))
FIRST_RECEIVE = "ApproximateFirstReceiveTimestamp"
_TOKEN = re.compile(r"([0-2])\.([0-9]{1,19})").fullmatch


def _start(token: str | None, parts: list[int]) -> tuple[int, int]:
    """Where a ``NextToken`` says to go on: (part, sequence number of the last message listed)."""
    if token is None:
        return parts[0], 0
    found = _TOKEN(token) if token.isascii() else None
    if found is None or int(found[1]) not in parts:
        raise SqsError("InvalidNextToken")
    return int(found[1]), int(found[2])


def _with_first_receive(attributes: dict[str, str]) -> dict[str, str]:
    """A listed message's attributes: LocalStack's listing gives every message
    ``ApproximateFirstReceiveTimestamp``, ``0`` for one never received."""
    if FIRST_RECEIVE in attributes:
        return dict(attributes)
    out: dict[str, str] = {}
    for name, value in attributes.items():
        out[name] = value
        if name == "ApproximateReceiveCount":
            out[FIRST_RECEIVE] = "0"
    out.setdefault(FIRST_RECEIVE, "0")
    return out


def list_messages(
    call: Call,
    url: str,
    *,
    show_invisible: bool = False,
    show_delayed: bool = False,
    limit: int = PAGE,
    next_token: str | None = None,
) -> tuple[Response, str | None]:
    """ReceiveMessage's output for up to ``limit`` messages of the queue at ``url`` (and no
    more than ``PAGE_BYTES`` of bodies), from where ``next_token`` says; and the token of the
    rest (None: none is left). QueueDoesNotExist if there is no such queue."""
    queue = call.queue({"QueueUrl": url})
    queue.settle()
    parts = [i for i, on in enumerate((show_invisible, True, show_delayed)) if on]
    part, after = _start(next_token, parts)
    listed: list[Any] = []
    size, token = 0, None
    for index in parts[parts.index(part) :]:
        if index != part:
            after = 0
        if len(listed) >= limit or size >= PAGE_BYTES:  # full: the next part from its start
            token = f"{index}.{after}"
            break
        page = queue.peek_page(
            limit - len(listed), after, byte_limit=PAGE_BYTES - size, states=_PARTS[index]
        )
        listed += page.views
        size += sum(len(v.body) for v in page.views)
        if page.next_after is not None:
            token = f"{index}.{page.next_after}"
            break
    messages = []
    for v in listed:
        attributes = _with_first_receive(v.attributes)
        if show_invisible:
            attributes["IsVisible"] = "false" if v.state == "inflight" else "true"
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
    return {"Messages": messages}, token
