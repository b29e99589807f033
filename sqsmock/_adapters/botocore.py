"""The botocore adapter: a ``before-call`` hook on every botocore SQS client in the process.

While at least one mock is active:

* ``BaseClient._make_api_call`` is wrapped at class level, so every client in the process is
  covered -- created before or after the mock started, even before sqsmock was imported. The
  wrapper only makes sure an SQS client's event emitter carries our handlers (once per client)
  and then runs botocore's normal path: parameter validation, serialization, endpoint
  resolution, the user's own event handlers.
* For such a client, ``BaseClient._convert_to_request_dict`` picks the call's path from the
  handlers that would see it (see "which path a call takes" below). On the fast path it
  validates the parameters as botocore would (``ParamValidationError`` as usual) but does not
  serialize them: they are kept for the answer, and the request carries only its headers --
  nobody will send it, and nobody else looks. When another handler looks, botocore serializes
  the request as usual.
* ``BaseClient._resolve_endpoint_ruleset`` hands back the endpoint it resolved for the
  client's first call of the operation (``_sdk.endpoints``), unless somebody else listens to
  ``before-endpoint-resolution``: for SQS it cannot change from one call to the next, and
  resolving it is a sizeable share of a call's cost.
* The ``before-call`` handler (registered last, after botocore's own and the user's handlers)
  hands the call to the innermost active runtime. Its answer becomes ``(http, parsed)`` for
  botocore, which then skips signing and sending, emits ``after-call`` and raises modeled
  errors itself. With no mock active the handler returns None and botocore proceeds as if
  sqsmock were absent.
* A call that a fault-injection rule may change, or one whose request somebody watches after
  ``before-call`` (the full path), is answered at ``before-send`` instead, once per attempt, so
  that botocore builds, signs and retries as against AWS (see "faulted calls" below).
* ``Endpoint._send`` refuses a request bound for real AWS that no mock answered (``_guard``).
* When a method on botocore's request path is someone else's (``_sdk.watched``), the full-path
  call is answered beneath the HTTP session's ``send`` (``URLLib3Session.send``) instead of at
  ``before-send``, so that everything on the path runs as often as against AWS.

What both SDK adapters share -- hooking a client, choosing the path, converting the request,
building the answer, the retry back-off -- lives in ``_sdk``; this module is botocore's shell.

The parsed answer is built directly as botocore's parser would build it from SQS's wire answer
(``_sdk.answer.CHECK_AGAINST_BOTOCORE`` makes every answer prove it); the wire body itself is
rendered only if somebody reads it. See docs/architecture.md for why this point in botocore was
chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import botocore.client
import botocore.endpoint
import botocore.httpsession
from botocore.model import OperationModel

from .._protocol import Result
from .._runtime import Runtime
from ._guard import refused
from ._sdk.answer import render
from ._sdk.chain import install_wrappers, uninstall_wrappers, wraps_ours
from ._sdk.endpoints import lookup_endpoint, remember_endpoint
from ._sdk.hook import HOOKED_MARK, hook
from ._sdk.paths import (
    DEEP_KEY,
    FAST,
    FULL,
    FULL_KEY,
    as_sent,
    forget_placeholder_signers,
    full_path,
    prepare,
    route,
    unserialized_request,
)
from ._sdk.retry import DEFERRED, attempt_answered, defer, sending_context
from ._stack import stack

__all__ = ["install", "uninstall"]


# -- answering --------------------------------------------------------------------------------


def answer(
    runtime: Runtime,
    model: OperationModel,
    request_dict: Any,
    context: Any,
    validated: bool,
    parsed: bool = True,
) -> tuple[Any, Any] | None:
    """``(http, parsed)``; ``parsed=False`` for an attempt answered at ``before-send``, whose
    HTTP side botocore parses itself."""
    backend = runtime.backend_or_none
    if backend is None:  # stopped while the call was being made
        return None
    call = prepare(runtime, model, request_dict, context, validated)
    result = call if isinstance(call, Result) else runtime.call(model.name, *call)
    url = str(request_dict.get("url") or "")
    return render(model, result, backend.clock.now(), url, parsed=parsed)


def _before_call(validated: bool, model: Any, params: Any, context: Any, **_: Any) -> Any:
    runtime = stack[-1] if stack else None
    if runtime is None:
        return None
    if FULL_KEY in context or (
        runtime.faults.rules and runtime.faults.may_apply(model.name)  # ``defers``, inlined
    ):
        defer(runtime, model, params, context, validated, DEFERRED)
        return None
    return answer(runtime, model, params, context, validated)


def _before_send(request: Any, **_: Any) -> Any:
    """Answer one attempt of a deferred call (``_sdk.retry``), unless it is answered beneath
    the HTTP session's ``send``."""
    context = sending_context(request)
    if not context or DEFERRED not in context or DEEP_KEY in context:
        return None
    return _answer_attempt(context, request)


def _answer_attempt(context: Any, request: Any) -> Any:
    runtime, model, request_dict, validated = context[DEFERRED]
    if FULL_KEY in context:
        request_dict = as_sent(request)
    return attempt_answered(
        runtime, context, answer(runtime, model, request_dict, context, validated, False)
    )


# -- the client's wrappers --------------------------------------------------------------------


def _make_api_call(self: Any, operation_name: str, api_params: Any) -> Any:
    if stack and not getattr(self.meta.events, HOOKED_MARK, False):  # ``hooked``, inlined
        hook(self, _before_call, _before_send)
    return _previous["_make_api_call"].__get__(self)(operation_name, api_params)


def _convert_to_request_dict(
    self: Any,
    api_params: Any,
    operation_model: Any,
    endpoint_url: Any,
    context: Any = None,
    headers: Any = None,
    set_user_agent_header: bool = True,
) -> Any:
    path = route(self, operation_model, context)
    if path == FAST:
        return unserialized_request(
            self, api_params, operation_model, endpoint_url, context, headers
        )
    if path == FULL:
        full_path(self, context)
    return _previous["_convert_to_request_dict"].__get__(self)(
        api_params, operation_model, endpoint_url, context, headers, set_user_agent_header
    )


def _resolve_endpoint_ruleset(
    self: Any,
    operation_model: Any,
    params: Any,
    request_context: Any,
    ignore_signing_region: bool = False,
) -> Any:
    memo, found = lookup_endpoint(self, operation_model, request_context, ignore_signing_region)
    if found is not None:
        return found
    resolved = _previous["_resolve_endpoint_ruleset"].__get__(self)(
        operation_model, params, request_context, ignore_signing_region
    )
    if memo is not None:
        remember_endpoint(memo, self, operation_model, resolved)
    return resolved


# -- nothing leaves for AWS -------------------------------------------------------------------


def _send(self: Any, request: Any) -> Any:
    context = sending_context(request)
    if context and DEEP_KEY in context and DEFERRED in context:
        if not wraps_ours(getattr(type(self.http_session), "send", None), _session_send):
            return _answer_attempt(context, request)  # a session sqsmock does not wrap
    elif stack:
        error = refused(self, request)
        if error is not None:
            raise error
    return _previous["_send"].__get__(self)(request)


def _session_send(self: Any, request: Any) -> Any:
    """The HTTP session's ``send``: answers an attempt of a call that runs everything on
    botocore's request path (``DEEP_KEY``), beneath whatever wraps the session's ``send``."""
    context = sending_context(request)
    if context and DEEP_KEY in context and DEFERRED in context:
        return _answer_attempt(context, request)
    return _previous["send"].__get__(self)(request)


# -- installing -------------------------------------------------------------------------------

#: What each wrapped method was when sqsmock wrapped it (botocore's own, or another wrapper
#: such as OpenTelemetry's or aws-xray-sdk's): sqsmock's wrappers call it. Kept after the last
#: mock stops: a call in flight then still reaches it.
_previous: dict[str, Callable[..., Any]] = {
    "_make_api_call": botocore.client.BaseClient._make_api_call,
    "_convert_to_request_dict": botocore.client.BaseClient._convert_to_request_dict,
    "_resolve_endpoint_ruleset": botocore.client.BaseClient._resolve_endpoint_ruleset,
    "_send": botocore.endpoint.Endpoint._send,
    "send": botocore.httpsession.URLLib3Session.send,
}
_WRAPPERS: list[tuple[type, str, Callable[..., Any]]] = [
    (botocore.client.BaseClient, "_make_api_call", _make_api_call),
    (botocore.client.BaseClient, "_convert_to_request_dict", _convert_to_request_dict),
    (botocore.client.BaseClient, "_resolve_endpoint_ruleset", _resolve_endpoint_ruleset),
    (botocore.endpoint.Endpoint, "_send", _send),
    (botocore.httpsession.URLLib3Session, "send", _session_send),
]


def install() -> None:
    install_wrappers(_WRAPPERS, _previous)


def uninstall() -> None:
    uninstall_wrappers(_WRAPPERS, _previous)
    forget_placeholder_signers()
