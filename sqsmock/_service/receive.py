"""ReceiveMessage."""

from __future__ import annotations

import re
from typing import Any

from .._engine import Received
from .._engine.message import SYSTEM_ATTRIBUTE_NAMES, system_attributes
from .._errors import SqsError
from ._context import Call
from ._digest import md5_of_attributes
from ._registry import LongPoll, Request, Response, action
from ._validate import RELAXED, optional_int
from .message_attributes import AttributeFilter

__all__: list[str] = []

_ATTEMPT = re.compile(r"[!-~]{1,128}")


_NO_NAMES: frozenset[str] = frozenset()
#: The filter of a receive that asks for no message attributes (a filter is never changed).
_NO_ATTRIBUTES = AttributeFilter(())


def _system_names(request: Request) -> frozenset[str] | None:
    """The system attributes asked for (both request fields, united); None means all."""
    first, second = request.get("AttributeNames"), request.get("MessageSystemAttributeNames")
    if not first and not second:
        return _NO_NAMES
    names = set(first or ()) | set(second or ())
    if "All" in names:
        return None
    return frozenset(names & SYSTEM_ATTRIBUTE_NAMES)


def _render(got: Received, names: frozenset[str] | None, wanted: AttributeFilter) -> dict[str, Any]:
    m = got.message
    out: dict[str, Any] = {
        "MessageId": m.message_id,
        "ReceiptHandle": got.receipt,
        "MD5OfBody": m.md5_body,
        "Body": got.body,
    }
    if names is None or names:
        attributes = system_attributes(m, got.receive_count, got.first_receive_at, names)
        if attributes:
            out["Attributes"] = attributes
    kept = got.attributes
    if kept and not wanted.empty:
        if wanted.every:
            out["MessageAttributes"] = kept
            out["MD5OfMessageAttributes"] = m.md5_attributes
        else:
            chosen = wanted.select(kept)
            if chosen:
                out["MessageAttributes"] = chosen
                out["MD5OfMessageAttributes"] = md5_of_attributes(chosen)
    return out


@action(
    "ReceiveMessage",
    notes=(
        "long polls on the virtual clock; attribute filters; "
        "FIFO group order, blocking and `ReceiveRequestAttemptId`; dead-letter moves"
    ),
)
def receive_message(call: Call, request: Request) -> Response | LongPoll:
    queue = call.queue(request)
    # ElasticMQ's relaxed limits: any number of messages, any wait.
    high = RELAXED if call.backend.relaxed_limits else 10
    count = optional_int(request, "MaxNumberOfMessages", 1, high, "MaxNumberOfMessagesOutOfRange")
    visibility = optional_int(
        request, "VisibilityTimeout", 0, 43200, "ReceiveVisibilityTimeoutOutOfRange"
    )
    high = RELAXED if call.backend.relaxed_limits else 20
    wait = optional_int(request, "WaitTimeSeconds", 0, high, "WaitTimeSecondsOutOfRange")
    names = _system_names(request)
    requested = request.get("MessageAttributeNames")
    wanted = AttributeFilter(requested) if requested else _NO_ATTRIBUTES
    attempt = request.get("ReceiveRequestAttemptId")
    if attempt is not None and not (isinstance(attempt, str) and _ATTEMPT.fullmatch(attempt)):
        raise SqsError("InvalidIdCharacters", name="ReceiveRequestAttemptId", value=attempt)
    wait = queue.wait_time_seconds if wait is None else wait
    attempt = attempt if queue.fifo else None

    def take() -> Response | None:
        received = queue.receive(count or 1, visibility, attempt, polling=wait > 0)
        if not received:
            return None
        return {"Messages": [_render(got, names, wanted) for got in received]}

    answer = take()
    if answer is not None:
        return answer
    if wait <= 0:
        return {}
    return LongPoll(queue, call.backend.clock.now() + wait, take)
