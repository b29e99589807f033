"""Queue tags: TagQueue, UntagQueue, ListQueueTags (and the checks CreateQueue shares)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import SqsError
from ._context import Call
from ._registry import Request, Response, action
from ._validate import first_forbidden, is_encodable

__all__ = ["MAX_TAGS", "validate_tags"]

MAX_TAGS = 50


def validate_tags(tags: Any, current: Mapping[str, str], queue_name: str) -> dict[str, str]:
    """``current`` merged with ``tags``, checked against SQS's limits."""
    if not isinstance(tags, Mapping):
        raise SqsError("TagsNotMap")
    merged = dict(current)
    for key, value in tags.items():
        if not isinstance(key, str) or not 1 <= len(key) <= 128:
            raise SqsError("TagKeyLength", key=key)
        if key.lower().startswith("aws:"):
            raise SqsError("TagKeyReservedPrefix", key=key)
        text = "" if value is None else str(value)
        if not (is_encodable(key) and is_encodable(text)):
            raise SqsError("TagNotUnicode", key=ascii(key))
        if first_forbidden(key) is not None or first_forbidden(text) is not None:
            # Control characters: no query-protocol ListQueueTags could carry them.
            raise SqsError("TagInvalidCharacters", key=ascii(key))
        if len(text) > 256:
            raise SqsError("TagValueTooLong", key=key)
        merged[key] = text
    if len(merged) > MAX_TAGS:
        raise SqsError("TooManyTags", queue=queue_name)
    return merged


@action(
    "TagQueue",
    notes="at most 50 tags",
)
def tag_queue(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    tags = request.get("Tags")
    if not tags:
        raise SqsError("MissingParameter", name="Tags")
    queue.update_tags(lambda current: validate_tags(tags, current, queue.name))
    return {}


@action(
    "UntagQueue",
    notes="unknown keys ignored",
)
def untag_queue(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    keys = request.get("TagKeys")
    if not keys:
        raise SqsError("NoTagKeys")
    removed = set(keys)
    queue.update_tags(lambda current: {k: v for k, v in current.items() if k not in removed})
    return {}


@action("ListQueueTags")
def list_queue_tags(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    return {"Tags": dict(queue.tags)} if queue.tags else {}
