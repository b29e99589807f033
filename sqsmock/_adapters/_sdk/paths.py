"""Which path an SQS call takes, and the request each path hands on, for both SDK adapters.

The client's ``_convert_to_request_dict`` (wrapped by each adapter) asks ``route`` for the
path and builds the request dict for it; the adapter's handler answers it, from the parameters
or the request as ``prepare`` converts them into the runtime's call.
"""

from __future__ import annotations

import contextlib
import functools
import json
import weakref
from collections.abc import Callable
from typing import Any

from botocore.awsrequest import HeadersDict
from botocore.exceptions import ParamValidationError
from botocore.model import OperationModel
from botocore.validate import ParamValidationDecorator

from ..._errors import SqsError
from ..._protocol import Call, Result, native, wire
from ..._protocol.validate import check_types
from ..._runtime import Runtime
from ..._service import Request
from .._stack import stack
from .hook import SQS_MARK
from .watched import foreign_on_path

__all__ = [
    "DEEP_KEY",
    "FAST",
    "FULL",
    "FULL_KEY",
    "SERIALIZED",
    "as_sent",
    "endpoint_kept",
    "forget_placeholder_signers",
    "full_path",
    "prepare",
    "route",
    "unserialized_request",
]

# -- which path a call takes ----------------------------------------------------------------
#
# FAST: nothing but botocore's, boto3's and sqsmock's own handlers would see the request, so it
# is not serialized at all and is answered at ``before-call``.
# SERIALIZED: other ``before-call`` handlers exist (a request logger, a test reading the body):
# the request is serialized as botocore would, so they see what would go on the wire; it is
# still answered at ``before-call``, from that request.
# FULL: something watches what happens after ``before-call`` -- a handler on
# ``request-created``, ``before-sign``, ``before-send``, ``response-received``, ``before-parse``
# or ``needs-retry`` (aws-xray-sdk's, OpenTelemetry's, the user's), or a method on botocore's
# request path that is not botocore's own (``_sdk.watched``: a wrapped request builder, as
# aws-xray-sdk and OpenTelemetry inject ``X-Amzn-Trace-Id``, a wrapped signer, as Instana's, a
# wrapped ``Endpoint.make_request``, as New Relic's). botocore then builds, signs and "sends"
# the request as usual, and the last ``before-send`` handler answers from the request as
# prepared -- with the headers the others added, as AWS would receive it. When a method on the
# path is someone else's, the answer comes from beneath the HTTP session's ``send`` instead
# (``DEEP_KEY``), so that ``Endpoint._send`` and the session's ``send`` run as well.

FAST, SERIALIZED, FULL = 1, 2, 3
#: ``route``'s three paths; beside them, a plan carries ``_ENDPOINT_WATCHED``.
_PATH = 3
#: In a plan: someone else listens to ``before-endpoint-resolution`` for the operation, so the
#: call's endpoint is resolved every time (``_sdk.endpoints``).
_ENDPOINT_WATCHED = 4
#: In a plan: a method on the request path is someone else's (``_sdk.watched``).
_DEEP = 8
#: The context key of a full-path call answered beneath the HTTP session's ``send``.
DEEP_KEY = "sqsmock_deep"
#: The context key marking a call for the full path.
FULL_KEY = "sqsmock_full"
#: The context key holding a fast-path call's parameters, validated, never serialized.
_PARAMS = "sqsmock_params"
#: The context key holding the plan ``route`` found for the call.
_ROUTE = "sqsmock_route"
_AFTER_BEFORE_CALL = (
    "request-created",
    "before-sign",
    "before-send",
    "response-received",
    "before-parse",
    "needs-retry",
)
#: Handlers from these packages do not change the path: botocore's and aiobotocore's defaults,
#: boto3's, sqsmock's own, and moto's (which stands aside for calls sqsmock answers).
_OWN_PACKAGES = frozenset({"botocore", "aiobotocore", "boto3", "aioboto3", "sqsmock", "moto"})
#: Nor do handlers of these modules, which only add their name to the User-Agent header (which
#: SQS ignores): AWS Lambda Powertools registers one on every session once imported.
_USER_AGENT_ONLY = frozenset({"aws_lambda_powertools.shared.user_agent"})
_PLANS = "_sqsmock_plans"


def _foreign(handler: Any) -> bool:
    """Is ``handler`` someone else's than botocore's, boto3's, sqsmock's or moto's?"""
    while isinstance(handler, functools.partial):
        handler = handler.func
    module = getattr(handler, "__module__", None) or type(handler).__module__ or ""
    return module.partition(".")[0] not in _OWN_PACKAGES and module not in _USER_AGENT_ONLY


def _watched(handlers: Any, event: str, operation: str) -> bool:
    """Does a foreign handler listen to ``event`` for calls of ``operation``?"""
    return any(_foreign(h) for h in handlers.prefix_search(f"{event}.sqs.{operation}"))


def _plan(emitter: Any, operation: str) -> int:
    """The plan of a call of ``operation``, from the handlers registered on ``emitter``: its path,
    and whether its endpoint resolution is watched."""
    handlers = emitter._handlers
    watched = _watched(handlers, "before-endpoint-resolution", operation)
    endpoint = _ENDPOINT_WATCHED if watched else 0
    if any(_watched(handlers, event, operation) for event in _AFTER_BEFORE_CALL):
        return FULL | endpoint
    if _watched(handlers, "before-call", operation):
        return SERIALIZED | endpoint
    return FAST | endpoint


def route(client: Any, operation_model: Any, context: Any) -> int:
    """``FAST``, ``SERIALIZED`` or ``FULL`` for a call sqsmock answers; 0 for any other."""
    return _plan_of(client, operation_model, context) & _PATH


def endpoint_kept(client: Any, operation_model: Any, context: Any) -> bool:
    """May this call use the endpoint its client resolved for an earlier call of the operation?
    Yes on every path sqsmock answers, unless somebody else listens to
    ``before-endpoint-resolution``: the endpoint is the same, and so is every request built
    from it."""
    plan = _plan_of(client, operation_model, context)
    return plan != 0 and not plan & _ENDPOINT_WATCHED


def _plan_of(client: Any, operation_model: Any, context: Any) -> int:
    """The call's plan (0 for a call sqsmock does not answer). Found once per call: botocore
    asks twice (resolving the endpoint, then converting the request), and the plan is kept in
    the call's context in between."""
    if not stack or context is None:
        return 0
    found: int | None = context.get(_ROUTE)
    if found is None:
        found = _route(client, operation_model)
        if found:  # (another service's call, found at once, is left as it came)
            context[_ROUTE] = found
    return found


def _route(client: Any, operation_model: Any) -> int:
    events = client.meta.events
    if not getattr(events, SQS_MARK, False):
        return 0
    plan = _handlers_plan(events, operation_model.name)
    if foreign_on_path():  # the full path, answered beneath everything on it
        return FULL | _DEEP | (plan & _ENDPOINT_WATCHED)
    return plan


def _handlers_plan(events: Any, operation: str) -> int:
    """The plan the handlers registered on ``events`` give a call of ``operation``.

    Remembered per emitter and operation until a handler is registered or unregistered
    (botocore then replaces the emitter's lookup cache, whose identity is the key)."""
    emitter = getattr(events, "_emitter", events)
    cache = getattr(emitter, "_lookup_cache", None)
    memo: tuple[Any, dict[str, int]] | None = getattr(emitter, _PLANS, None)
    if memo is not None and memo[0] is cache and cache is not None:
        plan: int | None = memo[1].get(operation)
        if plan is not None:
            return plan
    if cache is None or not hasattr(emitter, "_handlers"):  # an emitter of another make
        return FULL | _ENDPOINT_WATCHED
    if memo is None or memo[0] is not cache:
        memo = (cache, {})
        setattr(emitter, _PLANS, memo)
    found = memo[1][operation] = _plan(emitter, operation)
    return found


def full_path(client: Any, context: Any, credentials: Callable[..., Any] | None = None) -> None:
    """Mark the call for the full path; a client without credentials signs with placeholders
    (AWS needs a signature; nobody under the mock has credentials for it)."""
    context[FULL_KEY] = True
    if context.get(_ROUTE, 0) & _DEEP:
        context[DEEP_KEY] = True
    signer = getattr(client, "_request_signer", None)
    if signer is not None and getattr(signer, "_credentials", False) is None:
        from botocore.credentials import Credentials

        signer._credentials = (credentials or Credentials)(_PLACEHOLDER, _PLACEHOLDER)
        _placeholder_signers.add(signer)


_PLACEHOLDER = "testing"
_placeholder_signers: weakref.WeakSet[Any] = weakref.WeakSet()


def forget_placeholder_signers() -> None:
    """Signers given placeholders sign as before (with none) once no mock is active."""
    for signer in list(_placeholder_signers):
        credentials = getattr(signer, "_credentials", None)
        if getattr(credentials, "access_key", None) == _PLACEHOLDER:
            signer._credentials = None
    _placeholder_signers.clear()


def _header_items(headers: Any) -> Any:
    """The ``(name, value)`` pairs of a prepared request's headers. botocore's ``HeadersDict``
    keeps them in a dict by case-insensitive key: read there, the pairs come out as its
    ``items()`` gives them (same names, values and order) without a lookup per header."""
    if type(headers) is HeadersDict:
        found = getattr(headers, "_dict", None)
        if type(found) is dict:
            return [(str(key), value) for key, value in found.items()]
    return headers.items()


def as_sent(request: Any) -> dict[str, Any]:
    """The prepared request of a full-path call, as ``prepare`` reads a request dict."""
    headers: dict[str, str] = {}
    for name, value in _header_items(request.headers):
        if isinstance(value, bytes):
            headers[name] = value.decode("utf-8", "replace")
        elif isinstance(value, str):
            headers[name] = value
        else:  # what the email parser made of text it could not encode: nothing SQS could keep
            try:
                headers[name] = str(value)
            except UnicodeError:
                continue
    body = request.body
    if hasattr(body, "read"):  # a stream (nobody streams an SQS request, but be safe)
        body = body.read()
        request.reset_stream()
    return {"body": body or b"", "headers": headers, "url": request.url}


def unserialized_request(
    client: Any,
    api_params: Any,
    operation_model: Any,
    endpoint_url: Any,
    context: Any,
    headers: Any,
) -> dict[str, Any]:
    """The request dict of a call sqsmock answers: parameters validated as the client's
    serializer would, kept in the context; nothing serialized."""
    serializer = client._serializer
    if isinstance(serializer, ParamValidationDecorator):
        report = serializer._param_validator.validate(api_params, operation_model.input_shape)
        if report.has_errors():
            raise ParamValidationError(report=report.generate_report())
    context[_PARAMS] = api_params
    request_headers = {
        "X-Amz-Target": f"{wire.TARGET_PREFIX}{operation_model.name}",
        "Content-Type": wire.JSON_CONTENT_TYPE,
    }
    if headers:
        request_headers.update(headers)
    return {
        "url_path": "/",
        "query_string": "",
        "method": "POST",
        "headers": request_headers,
        "body": b"",
        "url": endpoint_url,
        "context": context,
    }


def _json_params(body: Any) -> Any:
    """The parameters in a serialized request's JSON body. botocore writes UTF-8: decoded first,
    ``json.loads`` is spared guessing the encoding (which it still does for any other)."""
    if not body:
        return {}
    if type(body) is bytes:
        with contextlib.suppress(UnicodeDecodeError):  # json.loads then finds what it is
            body = body.decode("utf-8")
    return json.loads(body)


def prepare(
    runtime: Runtime, model: OperationModel, request_dict: Any, context: Any, validated: bool
) -> tuple[Request, Call] | Result:
    """The call to hand the runtime -- or, when SQS would reject its types, the error answer."""
    operation = model.name
    params = context.get(_PARAMS)
    if params is None:  # serialized (or not through _make_api_call): read the body
        params = wire_params = _json_params(request_dict.get("body"))
    else:
        wire_params = native.to_wire(operation, params)
    caller = Call(
        context.get("client_region") or runtime.region,
        runtime.account,
        request_dict.get("headers") or {},
    )
    if not validated:  # parameter_validation is off: check the types as SQS's deserializer does
        try:
            check_types(operation, wire_params)
        except SqsError as error:
            return Result.of_error(operation, error)
    return wire_params, caller
