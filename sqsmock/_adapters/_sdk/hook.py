"""Reaching every SDK client: sqsmock's handlers on each SQS client, its wrappers on the classes.

Each client copies its session's event emitter when it is created, so a handler registered on a
session misses clients created earlier. The adapters therefore wrap methods of the SDK's classes
(``chain.install_wrappers``), and the wrapper of ``_make_api_call`` gives a client's own emitter
sqsmock's handlers the first time it sees the client while a mock is active (``hook``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from botocore.validate import ParamValidationDecorator

from .._stack import stack
from . import sns
from .retry import DEFERRED, sending_context

__all__ = ["HOOKED_MARK", "SQS_MARK", "hook", "hooked"]

#: On a client's event emitter: the client has been seen while a mock was active.
HOOKED_MARK = "_sqsmock_hooked"
#: On an SQS client's event emitter: sqsmock's handlers are registered on it.
SQS_MARK = "_sqsmock_sqs"


def hook(client: Any, before_call: Callable[..., Any], before_send: Callable[..., Any]) -> None:
    """Give an SQS client's event emitter ``before_call`` (once per client), an SNS client's
    ``sns.before_call``; mark any client as seen.
    ``before_call(validated, model, params, context, **kwargs)`` answers the call;
    ``before_send(request, **kwargs)`` each attempt of a deferred one."""
    events = client.meta.events
    if client.meta.service_model.service_name == "sqs":
        # botocore wraps the serializer in a validator unless parameter_validation is off.
        validated = isinstance(getattr(client, "_serializer", None), ParamValidationDecorator)
        handler = functools.partial(before_call, validated)
        # On the generic ``before-call``, last: botocore calls the handlers of more specific
        # events first, so every other before-call handler -- the user's, and botocore's own
        # (its recursion detection adds X-Amzn-Trace-Id inside Lambda) -- runs before ours.
        events.register_last("before-call", handler, unique_id="sqsmock-before-call")
        # Deferred calls (fault rules, the full path) are answered per attempt, inside the
        # retry loop, by the last before-send handler: after every other one has run.
        events.register_last("before-send", before_send, unique_id="sqsmock-before-send")
        _yield_to_sqsmock(events)
        setattr(events, SQS_MARK, True)
    elif client.meta.service_model.service_name == "sns":
        # Answers only while the innermost mock asks for SNS; else stands aside (moto...).
        events.register_last("before-call", sns.before_call, unique_id="sqsmock-sns-before-call")
    setattr(events, HOOKED_MARK, True)


def hooked(client: Any) -> bool:
    """Has the client been seen while a mock is active (then ``hook`` need not run again)?"""
    return bool(getattr(client.meta.events, HOOKED_MARK, False))


# -- moto beside sqsmock ----------------------------------------------------------------------


def _yield_to_sqsmock(events: Any) -> None:
    """moto's ``before-send`` handler answers every AWS URL while ``mock_aws`` is active: on an
    SQS client, make it stand aside for the calls sqsmock answers at ``before-send`` (the
    deferred and full-path ones). It keeps answering everything else, and everything once no
    sqsmock mock is active."""
    emitter = getattr(events, "_emitter", events)
    handlers = getattr(emitter, "_handlers", None)
    if handlers is None:
        return
    for handler in list(handlers.prefix_search("before-send")):
        if type(handler).__module__.partition(".")[0] != "moto":
            continue
        events.unregister("before-send", handler)
        events.register_first("before-send", functools.partial(_moto_unless_ours, handler))


def _moto_unless_ours(moto_handler: Any, request: Any = None, **kwargs: Any) -> Any:
    context = sending_context(request)
    if context and stack and any(key.startswith(DEFERRED) for key in context):
        return None
    return moto_handler(request=request, **kwargs)
