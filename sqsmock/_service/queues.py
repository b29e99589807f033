"""Queue lifecycle actions: create, look up, list, delete, attributes, purge."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from .._engine import Queue
from .._errors import SqsError
from . import queue_attributes
from ._context import Call
from ._registry import Request, Response, action
from ._validate import optional_int, required_str
from .addresses import queue_arn
from .tags import validate_tags

__all__ = ["page_of_urls"]

_NAME = re.compile(r"[A-Za-z0-9_-]{1,80}")
_FIFO_NAME = re.compile(r"[A-Za-z0-9_-]{1,75}\.fifo")


def _is_fifo_request(name: str, attributes: dict[str, Any], any_name: bool = False) -> bool:
    """Is this a FIFO queue's creation? ``any_name``: a FIFO queue's name need not end in
    ``.fifo`` (ElasticMQ's rule for the queues its configuration file declares)."""
    flag = str(attributes.get("FifoQueue", "")).lower()
    if flag == "true":
        if not _FIFO_NAME.fullmatch(name) and not (any_name and _NAME.fullmatch(name)):
            raise SqsError("InvalidFifoQueueName")
        return True
    if not _NAME.fullmatch(name):
        raise SqsError("InvalidQueueName")
    return False


@action(
    "CreateQueue",
    notes=(
        "standard and FIFO; name and attribute rules; "
        "re-create compares current attributes; 60-second rule after DeleteQueue"
    ),
)
def create_queue(call: Call, request: Request) -> Response:
    name = request.get("QueueName")
    if name is None:
        raise SqsError("MissingParameter", name="QueueName")
    if not isinstance(name, str) or not name:
        raise SqsError("InvalidQueueName")
    attributes = request.get("Attributes") or {}
    fifo = _is_fifo_request(name, attributes, call.elasticmq_conf)
    values = queue_attributes.validate(
        attributes,
        fifo=fifo,
        backend=call.backend,
        source_arn=queue_arn(call.region, call.account, name),
        creating=True,
        any_dead_letter_type=call.elasticmq_conf,
    )
    tags = validate_tags(request.get("tags") or {}, {}, name)

    def existing(queue: Queue) -> None:
        for attr, value in values.items():
            if queue.attributes.get(attr, "") != value:
                raise SqsError("QueueNameExists", name=attr)

    queue = call.backend.create(
        call.region,
        call.account,
        name,
        fifo=fifo,
        attributes=values,
        tags=tags,
        existing=existing,
    )
    return {"QueueUrl": call.url(queue)}


@action(
    "GetQueueUrl",
    notes="`QueueOwnerAWSAccountId`",
)
def get_queue_url(call: Call, request: Request) -> Response:
    name = required_str(request, "QueueName")
    account = request.get("QueueOwnerAWSAccountId") or call.account
    if call.backend.one_namespace:  # ElasticMQ mode: a queue is found by its name alone
        account = call.account
    return {"QueueUrl": call.url(call.backend.get(call.region, account, name))}


def _encode_token(name: str) -> str:
    return base64.urlsafe_b64encode(f"sqsmock:{name}".encode()).decode()


def _decode_token(token: str) -> str:
    try:
        text = base64.urlsafe_b64decode(token.encode()).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    if not text.startswith("sqsmock:"):
        raise SqsError("InvalidNextToken")
    return text[len("sqsmock:") :]


def page_of_urls(call: Call, request: Request, queues: list[Queue], key: str) -> Response:
    """One page of queue URLs (sorted by name) under ``key``, with ListQueues' paging rules:
    at most 1000; ``NextToken`` only when ``MaxResults`` was given and more remain."""
    limit = optional_int(request, "MaxResults", 1, 1000, "MaxResultsOutOfRange")
    token = request.get("NextToken")
    if token:
        after = _decode_token(token)
        queues = [q for q in queues if q.name > after]
    page = queues[: limit or 1000]
    out: Response = {}
    if page:
        out[key] = [call.url(q) for q in page]
    if limit is not None and len(queues) > len(page):
        out["NextToken"] = _encode_token(page[-1].name)
    return out


@action(
    "ListQueues",
    notes="prefix; `MaxResults`/`NextToken` paging",
)
def list_queues(call: Call, request: Request) -> Response:
    prefix = request.get("QueueNamePrefix") or ""
    queues = call.backend.matching(call.region, call.account, prefix)
    return page_of_urls(call, request, queues, "QueueUrls")


@action(
    "DeleteQueue",
    notes="immediate; the name is reserved for 60 seconds",
)
def delete_queue(call: Call, request: Request) -> Response:
    call.backend.delete(call.queue(request))
    return {}


@action(
    "GetQueueAttributes",
    notes="every attribute; counters maintained, not recomputed",
)
def get_queue_attributes(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    names = request.get("AttributeNames") or []
    attributes = queue_attributes.describe(queue, names)
    return {"Attributes": attributes} if attributes else {}


@action(
    "SetQueueAttributes",
    notes=(
        "names, ranges, FIFO-only attributes, SSE, RedrivePolicy and RedriveAllowPolicy validated"
    ),
)
def set_queue_attributes(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    attributes = request.get("Attributes")
    if not attributes:
        raise SqsError("MissingParameter", name="Attributes")
    values = queue_attributes.validate(
        attributes,
        fifo=queue.fifo,
        backend=call.backend,
        source_arn=queue.arn,
        creating=False,
        queue=queue,
        any_dead_letter_type=call.elasticmq_conf,
    )
    queue.configure(values)
    return {}


@action(
    "PurgeQueue",
    notes=(
        "visible, in-flight and delayed messages and the FIFO deduplication cache; "
        "once per 60 seconds"
    ),
)
def purge_queue(call: Call, request: Request) -> Response:
    call.queue(request).purge()
    return {}
