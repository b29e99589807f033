"""The aiobotocore adapter: the botocore adapter's hook, awaited, on every aiobotocore SQS client.

aiobotocore's ``AioBaseClient`` overrides ``_make_api_call`` and ``_convert_to_request_dict``
with coroutines (aioboto3 clients and resources are ``AioBaseClient``\\ s too), so the botocore
adapter's class-level wrappers never run for them. While a mock is active this module wraps
those two coroutines the same way, at class level -- every client is covered, created before or
after the mock started, before or after sqsmock was imported:

* ``_make_api_call`` gives an SQS client's event emitter our ``before-call`` handler (once per
  client) and runs aiobotocore's normal path;
* ``_convert_to_request_dict`` picks the call's path exactly as for botocore: validated
  without serializing when nobody else looks, serialized when another ``before-call`` handler
  does, built, signed and answered at ``before-send`` when somebody watches later events or
  wraps the request building (aws-xray-sdk, OpenTelemetry);
* the handler returns a coroutine, which aiobotocore's emitter awaits: it awaits
  ``Runtime.call_async``, so a long poll waits without blocking the event loop (a send from
  another task or thread wakes it at once; on a frozen clock it jumps time). Its answer is the
  botocore adapter's ``(http, parsed)``, with an http response whose ``content`` is awaitable
  as aiobotocore's are. aiobotocore then skips signing and sending, emits ``after-call`` and
  raises the modeled error classes itself;
* ``AioEndpoint._send`` refuses a request bound for real AWS that no mock answered;
* when a method on aiobotocore's (or botocore's) request path is someone else's, a full-path
  call is answered beneath ``AIOHTTPSession.send``, so that everything on the path runs.

It shares everything but the awaiting with the botocore adapter, through ``_sdk``; neither imports
the other. Imported only when aiobotocore is (see ``sqsmock._activation``); sqsmock does not
require aiobotocore.

Supported: aiobotocore 2.x (from 2.13, the first on botocore >= 1.34.90) and 3.x.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any

import aiobotocore
from aiobotocore.awsrequest import AioAWSResponse
from aiobotocore.client import AioBaseClient
from aiobotocore.credentials import AioCredentials
from aiobotocore.endpoint import AioEndpoint
from aiobotocore.httpsession import AIOHTTPSession
from aiobotocore.signers import AioRequestSigner
from botocore.model import OperationModel

from .._protocol import Result
from .._runtime import Runtime
from ._guard import refused
from ._sdk.answer import SqsHttpResponse, render
from ._sdk.chain import install_wrappers, uninstall_wrappers, wraps_ours
from ._sdk.endpoints import lookup_endpoint, remember_endpoint
from ._sdk.hook import hook, hooked
from ._sdk.paths import (
    DEEP_KEY,
    FAST,
    FULL,
    FULL_KEY,
    as_sent,
    full_path,
    prepare,
    route,
    unserialized_request,
)
from ._sdk.retry import (
    DEFERRED,
    SENDING,
    attempt_answered,
    context_of,
    defer,
    defers,
    retry_sleep,
    sending_context,
)
from ._sdk.watched import watch, watch_sdk
from ._stack import stack

__all__ = ["AioSqsHttpResponse", "install", "uninstall"]


class AioSqsHttpResponse(SqsHttpResponse, AioAWSResponse):  # type: ignore[misc]
    """The HTTP side of an answer, read as aiobotocore reads its own: ``await http.content``."""

    @property
    def content(self) -> Any:
        return _ready(self.body())

    @property
    def text(self) -> Any:
        return _ready(self.body().decode("utf-8"))


async def _ready(value: Any) -> Any:
    return value


async def answer_async(
    runtime: Runtime,
    model: OperationModel,
    request_dict: Any,
    context: Any,
    validated: bool,
    parsed: bool = True,
) -> tuple[Any, Any] | None:
    """``(http, parsed)``; ``parsed=False`` for an attempt answered at ``before-send``, whose
    HTTP side aiobotocore parses itself."""
    backend = runtime.backend_or_none
    if backend is None:  # stopped while the call was being made
        return None
    clock = backend.clock
    call = prepare(runtime, model, request_dict, context, validated)
    if isinstance(call, Result):
        result = call
    else:
        result = await runtime.call_async(model.name, *call)
    url = str(request_dict.get("url") or "")
    return render(model, result, clock.now(), url, AioSqsHttpResponse, parsed)


def _before_call(
    validated: bool, model: Any, params: Any, context: Any, **_: Any
) -> Coroutine[Any, Any, tuple[Any, Any] | None] | None:
    runtime = stack[-1] if stack else None
    if runtime is None:
        return None
    if FULL_KEY in context or defers(runtime, model.name):
        _patch_for_deferred_calls()
        defer(runtime, model, params, context, validated, _DEFERRED)
        return None
    return answer_async(runtime, model, params, context, validated)


# -- faulted calls: answered per attempt, inside aiobotocore's retry loop (see ``_sdk.retry``);
# standard mode's back-off is botocore's own method, patched there.

_DEFERRED = f"{DEFERRED}_async"


def _before_send(request: Any, **_: Any) -> Coroutine[Any, Any, Any] | None:
    context = sending_context(request)
    if not context or _DEFERRED not in context or DEEP_KEY in context:
        return None
    return _answer_attempt(context, request)


async def _answer_attempt(context: Any, request: Any) -> Any:
    runtime, model, request_dict, validated = context[_DEFERRED]
    if FULL_KEY in context:
        request_dict = as_sent(request)
    answered = await answer_async(runtime, model, request_dict, context, validated, False)
    return attempt_answered(runtime, context, answered)


_legacy_patched = False
#: What each method patched for deferred calls called when it was patched (beneath any other
#: library's proxy: ``chain.install_wrappers``); patched for the process's lifetime.
_patched: dict[str, Callable[..., Any]] = {}


def _patch_for_deferred_calls() -> None:
    """Mark each deferred call while the endpoint sends it (``SENDING``). Legacy mode:
    aiobotocore's retry handler computes the back-off in its own coroutine; on a frozen mock
    clock the delay advances the clock and the endpoint sleeps 0."""
    global _legacy_patched
    if _legacy_patched:
        return
    _legacy_patched = True
    import aiobotocore.endpoint
    import aiobotocore.retryhandler as legacy

    async def _send_request(self: Any, request_dict: Any, operation_model: Any) -> Any:
        send = _patched["_send_request"]
        context = request_dict.get("context")
        if not context or _DEFERRED not in context:
            if SENDING.get() is None:
                return await send(self, request_dict, operation_model)
            context = None  # another call, made while a deferred one is sent: not that one
        token = SENDING.set(context)  # before-send and _send find the call by it
        try:
            return await send(self, request_dict, operation_model)
        finally:
            SENDING.reset(token)

    install_wrappers([(aiobotocore.endpoint.AioEndpoint, "_send_request", _send_request)], _patched)

    if not inspect.iscoroutinefunction(vars(legacy.AioRetryHandler).get("_call")):
        return  # another layout: it sleeps as it would

    async def _call(
        self: Any, attempts: Any, response: Any, caught_exception: Any, **kw: Any
    ) -> Any:
        delay = await _patched["_call"](self, attempts, response, caught_exception, **kw)
        return retry_sleep(delay, context_of(kw.get("request_dict")))

    install_wrappers([(legacy.AioRetryHandler, "_call", _call)], _patched)


async def _make_api_call(self: Any, operation_name: str, api_params: Any) -> Any:
    if stack and not hooked(self):
        hook(self, _before_call, _before_send)
    return await _previous["_make_api_call"].__get__(self)(operation_name, api_params)


async def _convert_to_request_dict(
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
        full_path(self, context, AioCredentials)
    return await _previous["_convert_to_request_dict"].__get__(self)(
        api_params, operation_model, endpoint_url, context, headers, set_user_agent_header
    )


async def _resolve_endpoint_ruleset(
    self: Any,
    operation_model: Any,
    params: Any,
    request_context: Any,
    ignore_signing_region: bool = False,
) -> Any:
    memo, found = lookup_endpoint(self, operation_model, request_context, ignore_signing_region)
    if found is not None:
        return found
    resolved = await _previous["_resolve_endpoint_ruleset"].__get__(self)(
        operation_model, params, request_context, ignore_signing_region
    )
    if memo is not None:
        remember_endpoint(memo, self, operation_model, resolved)
    return resolved


async def _send(self: Any, request: Any) -> Any:
    context = sending_context(request)
    if context and DEEP_KEY in context and _DEFERRED in context:
        if not wraps_ours(getattr(type(self.http_session), "send", None), _session_send):
            return await _answer_attempt(context, request)  # a session sqsmock does not wrap
    elif stack:
        error = refused(self, request)
        if error is not None:
            raise error
    return await _previous["_send"].__get__(self)(request)


async def _session_send(self: Any, request: Any) -> Any:
    """The HTTP session's ``send``: answers an attempt of a call that runs everything on the
    request path (``DEEP_KEY``), beneath whatever wraps the session's ``send``."""
    context = sending_context(request)
    if context and DEEP_KEY in context and _DEFERRED in context:
        return await _answer_attempt(context, request)
    return await _previous["send"].__get__(self)(request)


_CLASS = AioBaseClient
#: What each wrapped coroutine was when sqsmock wrapped it, kept for the lifetime of the process.
_previous: dict[str, Callable[..., Any]] = {
    "_make_api_call": _CLASS._make_api_call,
    "_send": AioEndpoint._send,
}
_WRAPPERS: list[tuple[type, str, Callable[..., Any]]] = [
    (_CLASS, "_make_api_call", _make_api_call),
    (AioEndpoint, "_send", _send),
]
#: aiobotocore defines its own ``_convert_to_request_dict`` (a coroutine) in every supported
#: version; should one inherit botocore's, the botocore adapter's wrapper covers it.
if inspect.iscoroutinefunction(vars(_CLASS).get("_convert_to_request_dict")):
    _previous["_convert_to_request_dict"] = vars(_CLASS)["_convert_to_request_dict"]
    _WRAPPERS.append((_CLASS, "_convert_to_request_dict", _convert_to_request_dict))
#: Likewise its own ``_resolve_endpoint_ruleset`` (a coroutine).
if inspect.iscoroutinefunction(vars(_CLASS).get("_resolve_endpoint_ruleset")):
    _previous["_resolve_endpoint_ruleset"] = vars(_CLASS)["_resolve_endpoint_ruleset"]
    _WRAPPERS.append((_CLASS, "_resolve_endpoint_ruleset", _resolve_endpoint_ruleset))
#: The HTTP session aiobotocore sends with (``aiohttp``'s; an ``httpx`` one is not covered).
if inspect.iscoroutinefunction(vars(AIOHTTPSession).get("send")):
    _previous["send"] = vars(AIOHTTPSession)["send"]
    _WRAPPERS.append((AIOHTTPSession, "send", _session_send))
# aiobotocore's own request path: a method on it that is someone else's sends calls down the
# full path (``_sdk.watched``).
watch_sdk(aiobotocore)
watch(_CLASS, ["_make_request"])
watch(
    AioEndpoint,
    [
        "make_request",
        "_send_request",
        "create_request",
        "prepare_request",
        "_get_response",
        "_do_get_response",
        "_send",
    ],
)
watch(AioRequestSigner, ["handler", "sign", "get_auth_instance", "_choose_signer"])
watch(AIOHTTPSession, ["send"])


def install() -> None:
    install_wrappers(_WRAPPERS, _previous)


def uninstall() -> None:
    uninstall_wrappers(_WRAPPERS, _previous)
