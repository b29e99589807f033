"""The moto adapter: moto's services deliver into sqsmock's queues while both mocks are active.

moto's SNS subscriptions, S3 event notifications and EventBridge rule targets never make an SQS
call: they call moto's own SQS backend in process, ``sqs_backends[account][region]`` and its
``send_message``, ``get_queue`` and ``get_queue_attributes``; Lambda's
``create_event_source_mapping`` looks the queue's ARN up among that backend's ``queues``. A
sqsmock queue is not there, so under both mocks such a message went to a moto queue nobody reads.

While a sqsmock mock is active this module stands in front of those methods, at class level
(every backend of every account and region):

* ``SQSBackend.send_message`` to a queue the active sqsmock has (same account, region and name)
  becomes a ``SendMessage`` through the runtime, as every adapter's calls are: sqsmock's
  validation, MD5s, message ids, FIFO sequence numbers and deduplication, the call journal and
  fault rules apply. A refusal is raised as moto raises its own SQS errors there. A
  deduplication id is not passed to a standard queue: SNS passes it to FIFO queues only.
* ``get_queue`` answers a stand-in holding what moto's callers read (SNS's subscribe refuses a
  FIFO queue for a standard topic by ``fifo_queue``); ``get_queue_attributes`` answers from the
  sqsmock queue's attributes (EventBridge checks ``ContentBasedDeduplication`` for a FIFO target).
* ``LambdaBackend.create_event_source_mapping`` of a sqsmock queue's ARN runs moto's own code with
  that stand-in listed among the backend's queues for the length of the call, so moto validates
  and records the mapping as for its own queue (nothing invokes the function when a message
  arrives: ``handle.run_lambda`` plays the mapping against sqsmock).
* ``Subscription.publish`` of a FIFO topic with content-based deduplication passes the SHA-256 of
  the message as its deduplication id, as SNS does; moto passes none.

A queue the active sqsmock does not have goes to moto's own methods, unchanged, and with no sqsmock
active every call does: the methods are put back when the last mock stops. The message itself --
the SNS envelope, the S3 event, the EventBridge event after its input transformer -- is the body
moto built; only where it is stored changes.

sqsmock never imports moto: the methods are wrapped when a mock starts if moto's modules are
imported already, or the moment they are imported while a mock is active (moto imports its
backends lazily). Tested with moto 5.0.0 and 5.2.1.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

import wrapt

from .._engine import Queue
from .._protocol import Call
from .._runtime import Runtime
from .._service.addresses import split_arn
from ._stack import stack

__all__ = ["install", "uninstall"]

_SQS_MODULE = "moto.sqs.models"
_LAMBDA_MODULE = "moto.awslambda.models"
_SNS_MODULE = "moto.sns.models"

_lock = threading.Lock()
_hooks_registered = False
#: The (class, method name) pairs wrapped now.
_wrapped: set[tuple[type, str]] = set()
#: moto's own method of every pair ever wrapped, kept for the lifetime of the process.
_kept: dict[tuple[type, str], Callable[..., Any]] = {}


# -- finding the sqsmock queue ----------------------------------------------------------------


def _queue_url(region: str, account: str, name: str) -> str:
    return f"https://sqs.{region}.amazonaws.com/{account}/{name}"


def _sqsmock_queue(backend: Any, name: str) -> tuple[Runtime, Queue] | None:
    """The active sqsmock's queue a moto SQS backend call names, if there is one."""
    runtime = stack[-1] if stack else None
    if runtime is None or runtime.backend_or_none is None or not isinstance(name, str):
        return None
    region, account = backend.region_name, backend.account_id
    try:
        return runtime, runtime.find_queue(_queue_url(region, account, name), region)
    except LookupError:
        return None


class _QueueView:
    """A sqsmock queue as moto's other services read a queue of moto's backend."""

    def __init__(self, queue: Queue) -> None:
        self.name = queue.name
        self.region = queue.region
        self.account_id = queue.account
        self.queue_arn = queue.arn
        self.url = _queue_url(queue.region, queue.account, queue.name)
        self.fifo_queue = queue.fifo
        self.attributes = dict(queue.attributes)
        #: Lambda's create_event_source_mapping records its mapping here.
        self.lambda_event_source_mappings: dict[str, Any] = {}


def _moto_error(code: str, message: str) -> Exception:
    """An SQS refusal as moto raises its own: its SQS errors' base class, with code and message
    (``RESTError`` in moto 5.0, ``SQSException`` later; both take them in that order)."""
    from moto.sqs.exceptions import QueueDoesNotExist

    base: Callable[[str, str], Exception] = QueueDoesNotExist.__bases__[0]
    return base(code, message)


# -- the wrapped methods ----------------------------------------------------------------------


def _send_message(
    self: Any,
    queue_name: str,
    message_body: str,
    message_attributes: dict[str, Any] | None = None,
    delay_seconds: int | None = None,
    deduplication_id: str | None = None,
    group_id: str | None = None,
    system_attributes: dict[str, Any] | None = None,
    **more: Any,
) -> Any:
    found = _sqsmock_queue(self, queue_name)
    if found is None:
        return _original(self, "send_message")(
            self,
            queue_name,
            message_body,
            message_attributes,
            delay_seconds,
            deduplication_id,
            group_id,
            system_attributes,
            **more,
        )
    runtime, queue = found
    params: dict[str, Any] = {
        "QueueUrl": _queue_url(queue.region, queue.account, queue.name),
        "MessageBody": message_body,
    }
    if message_attributes:
        params["MessageAttributes"] = _wire_attributes(message_attributes)
    if delay_seconds is not None:
        params["DelaySeconds"] = int(delay_seconds)
    if group_id is not None:
        params["MessageGroupId"] = group_id
    if deduplication_id is not None and queue.fifo:
        params["MessageDeduplicationId"] = deduplication_id
    if system_attributes:
        params["MessageSystemAttributes"] = system_attributes
    result = runtime.call("SendMessage", params, Call(queue.region, queue.account))
    error = result.error
    if error is not None:
        raise _moto_error(error.code, error.message)
    return result.payload


#: moto 5.0 spells message attribute fields in snake case; later releases as SQS does.
_FIELDS = {
    "data_type": "DataType",
    "string_value": "StringValue",
    "binary_value": "BinaryValue",
    "string_list_values": "StringListValues",
    "binary_list_values": "BinaryListValues",
}


def _wire_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """Message attributes as moto's services hand them to its backend, in SQS's wire form
    (binary values stay base64 text, as SNS keeps them)."""
    return {
        name: {_FIELDS.get(field, field): v for field, v in value.items()}
        if isinstance(value, dict)
        else value
        for name, value in attributes.items()
    }


def _get_queue(self: Any, queue_name: str) -> Any:
    found = _sqsmock_queue(self, queue_name)
    if found is None:
        return _original(self, "get_queue")(self, queue_name)
    return _QueueView(found[1])


def _get_queue_attributes(self: Any, queue_name: str, attribute_names: list[str]) -> Any:
    found = _sqsmock_queue(self, queue_name)
    if found is None:
        return _original(self, "get_queue_attributes")(self, queue_name, attribute_names)
    attributes = found[1].attributes
    if "All" in attribute_names:
        return dict(attributes)
    return {name: attributes[name] for name in attribute_names if name in attributes}


def _create_event_source_mapping(self: Any, spec: dict[str, Any]) -> Any:
    original = _original(self, "create_event_source_mapping")
    view = _esm_queue(self, spec.get("EventSourceArn"))
    if view is None:
        return original(self, spec)
    from moto.sqs.models import sqs_backends

    queues: dict[str, Any] = sqs_backends[self.account_id][self.region_name].queues
    key = f"\x00sqsmock:{view.name}"  # no queue name has a NUL: moto's queue keeps its place
    queues[key] = view
    try:
        return original(self, spec)
    finally:
        if queues.get(key) is view:
            del queues[key]


def _esm_queue(lambda_backend: Any, arn: Any) -> _QueueView | None:
    """The stand-in of the sqsmock queue an event-source ARN names (in the Lambda backend's own
    account and region, the only queues moto looks at), unless moto has a queue of that ARN."""
    if not isinstance(arn, str):
        return None
    where = split_arn(arn)
    if where is None:
        return None
    region, account, name = where
    if region != lambda_backend.region_name or account != lambda_backend.account_id:
        return None
    from moto.sqs.models import sqs_backends

    moto_backend = sqs_backends[account][region]
    if any(q.queue_arn == arn for q in list(moto_backend.queues.values())):
        return None
    found = _sqsmock_queue(moto_backend, name)
    if found is None or found[1].arn != arn:
        return None
    return _QueueView(found[1])


def _publish(self: Any, message: str, message_id: str, *args: Any, **kwargs: Any) -> Any:
    publish = _original(self, "publish")
    topic = getattr(self, "topic", None)
    if (
        stack
        and not args  # moto passes all but the message and its id by keyword
        and not kwargs.get("deduplication_id")
        and self.protocol == "sqs"
        and isinstance(message, str)
        and _flag(getattr(topic, "fifo_topic", False))
        and _flag(getattr(topic, "content_based_deduplication", False))
        and _subscribed_queue(self) is not None
    ):
        kwargs["deduplication_id"] = hashlib.sha256(message.encode("utf-8")).hexdigest()
    return publish(self, message, message_id, *args, **kwargs)


def _subscribed_queue(subscription: Any) -> tuple[Runtime, Queue] | None:
    """The sqsmock queue an SQS subscription delivers to (moto's SNS looks the queue up in the
    subscription's account and the endpoint's region), if the active sqsmock has it."""
    parts = str(subscription.endpoint).split(":")
    if len(parts) != 6:
        return None
    from moto.sqs.models import sqs_backends

    return _sqsmock_queue(sqs_backends[subscription.account_id][parts[3]], parts[5])


def _flag(value: Any) -> bool:
    """A topic flag: a bool in recent moto, "true"/"false" in moto 5.0."""
    return value is True or value == "true"


def _original(instance: Any, name: str) -> Callable[..., Any]:
    """moto's own method ``name`` for ``instance`` (a call in flight while the last mock stops
    still finds it)."""
    for cls in type(instance).__mro__:
        found = _kept.get((cls, name))
        if found is not None:
            return found
    return getattr(type(instance), name)  # type: ignore[no-any-return]


# -- installing -------------------------------------------------------------------------------


#: For each of moto's modules: the class whose methods are wrapped, and their replacements.
_WRAPPED: dict[str, tuple[str, dict[str, Callable[..., Any]]]] = {
    _SQS_MODULE: (
        "SQSBackend",
        {
            "send_message": _send_message,
            "get_queue": _get_queue,
            "get_queue_attributes": _get_queue_attributes,
        },
    ),
    _LAMBDA_MODULE: (
        "LambdaBackend",
        {"create_event_source_mapping": _create_event_source_mapping},
    ),
    _SNS_MODULE: ("Subscription", {"publish": _publish}),
}


def _wrap(module_name: str, module: ModuleType) -> None:
    """Wrap the methods of one of moto's modules, once it is complete (a module seen half
    imported is left to its import hook)."""
    class_name, methods = _WRAPPED[module_name]
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type) or not all(name in cls.__dict__ for name in methods):
        return
    with _lock:
        for name, replacement in methods.items():
            current = cls.__dict__[name]
            if current is not replacement:
                _kept.setdefault((cls, name), current)
                setattr(cls, name, replacement)
                _wrapped.add((cls, name))


def _imported(module: ModuleType) -> None:
    """One of moto's modules was imported: wrap it if a mock is active. Without the stack's
    lock, as for aiobotocore: wrapping is idempotent, and a wrapper with no mock active passes
    every call to moto."""
    if stack:
        _wrap(module.__name__, module)


def install() -> None:
    """Wrap moto's modules imported already; wrap the others when they are imported."""
    global _hooks_registered
    for name in _WRAPPED:
        module = sys.modules.get(name)
        if module is not None:
            _wrap(name, module)
    if not _hooks_registered:
        _hooks_registered = True
        for name in _WRAPPED:
            wrapt.register_post_import_hook(_imported, name)


def uninstall() -> None:
    """Put moto's own methods back."""
    with _lock:
        for cls, name in _wrapped:
            setattr(cls, name, _kept[(cls, name)])
        _wrapped.clear()
