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
* The ``before-call`` handler (registered last, after botocore's own and the user's handlers)
  hands the call to the innermost active runtime. Its answer becomes ``(http, parsed)`` for
  botocore, which then skips signing and sending, emits ``after-call`` and raises modeled
  errors itself. With no mock active the handler returns None and botocore proceeds as if
  sqsmock were absent.
* A call that a fault-injection rule may change, or one whose request somebody watches after
  ``before-call`` (the full path), is answered at ``before-send`` instead, once per attempt, so
  that botocore builds, signs and retries as against AWS (see "faulted calls" below).
* ``Endpoint._send`` refuses a request bound for real AWS that no mock answered (``_guard``).

The parsed answer is built directly as botocore's parser would build it from SQS's wire answer
(``CHECK_AGAINST_BOTOCORE`` makes every answer prove it); the wire body itself is rendered only
if somebody reads it. See docs/architecture.md for why this point in botocore was chosen.
"""

from __future__ import annotations

import contextvars
import functools
import json
import threading
import weakref
from collections.abc import Callable
from email.utils import formatdate
from typing import Any

import botocore.client
import botocore.endpoint
from botocore.awsrequest import AWSResponse, HeadersDict
from botocore.exceptions import ParamValidationError
from botocore.model import OperationModel
from botocore.parsers import create_parser
from botocore.validate import ParamValidationDecorator

from .._errors import SqsError
from .._protocol import Caller, Result, native, wire
from .._protocol.validate import check_types
from .._runtime import Runtime
from .._service import Request
from ._active import activate, active, deactivate, stack
from ._guard import AwsRequestRefused, refused

__all__ = [
    "CHECK_AGAINST_BOTOCORE",
    "AwsRequestRefused",
    "activate",
    "active",
    "deactivate",
    "install",
    "uninstall",
]

#: sqsmock's own test suite sets this: every answer is then also rendered to the wire and
#: parsed by botocore's own parser, and the direct result must be identical.
CHECK_AGAINST_BOTOCORE = False

_MARK = "_sqsmock_hooked"
_SQS = "_sqsmock_sqs"
_PARAMS = "sqsmock_params"
_PARSER = create_parser("json")


# -- answering --------------------------------------------------------------------------------

_date_cache: tuple[int, str] = (0, "")


def http_date(now: float) -> str:
    """The ``date`` header; formatted once per second of clock time."""
    global _date_cache
    second = int(now)
    if _date_cache[0] != second:
        _date_cache = (second, formatdate(second, usegmt=True))
    return _date_cache[1]


class SqsHttpResponse(AWSResponse):  # type: ignore[misc]
    """The HTTP side of an answer. Its body is rendered only when read (nobody does, usually),
    its headers become a ``HeadersDict`` only when read."""

    def __init__(self, url: str, result: Result, headers: dict[str, str]):
        self.url = url
        self.status_code = result.status
        self.raw = None
        self._result = result
        self._body: bytes | None = None
        self._raw_headers = headers
        self._headers: HeadersDict | None = None

    def body(self) -> bytes:
        """The wire body, rendered on first use."""
        if self._body is None:
            self._body = wire.json_body(self._result)
        return self._body

    @property
    def content(self) -> bytes:
        return self.body()

    @property
    def headers(self) -> HeadersDict:
        if self._headers is None:
            self._headers = HeadersDict(self._raw_headers)
        return self._headers

    @headers.setter
    def headers(self, value: Any) -> None:
        self._headers = HeadersDict(value)


def render(
    model: OperationModel,
    result: Result,
    now: float,
    url: str,
    http_class: type[SqsHttpResponse] = SqsHttpResponse,
) -> tuple[Any, Any]:
    """``(http response, parsed response)`` for botocore, as SQS's wire answer would give."""
    headers = {
        "x-amzn-requestid": result.request_id,
        "date": http_date(now),
        "content-type": wire.JSON_CONTENT_TYPE,
    }
    error = result.error
    if error is not None:
        headers["x-amzn-query-error"] = wire.query_error_header(error)
        parsed: dict[str, Any] = {
            "Error": {
                "Message": error.message,
                "Code": error.code,
                "QueryErrorCode": error.shape,
                "Type": "Sender" if error.status < 500 else "Receiver",
            },
        }
        if _modeled(model, error.code):
            parsed["message"] = error.message
    else:
        payload = result.payload or {}
        parsed = native.from_wire(result.operation, payload) if model.output_shape else {}
    parsed["ResponseMetadata"] = {
        "RequestId": result.request_id,
        "HTTPStatusCode": result.status,
        "HTTPHeaders": dict(headers),
        "RetryAttempts": 0,
    }
    http = http_class(url, result, headers)
    if CHECK_AGAINST_BOTOCORE:
        _check(model, http, parsed)
    return http, parsed


_MODELED: dict[str, bool] = {}


def _modeled(model: OperationModel, code: str) -> bool:
    """Does botocore know the error shape of ``code`` (its members then appear top-level)?"""
    found = _MODELED.get(code)
    if found is None:
        shape = model.service_model.shape_for_error_code(code)
        found = _MODELED[code] = shape is not None and "message" in shape.members
    return found


def botocore_parse(model: OperationModel, http: SqsHttpResponse) -> dict[str, Any]:
    """What botocore's own parser (and its endpoint, for modeled errors) makes of the answer."""
    response = {
        "headers": dict(http._raw_headers),
        "status_code": http.status_code,
        "body": http.body(),
    }
    parsed: dict[str, Any] = _PARSER.parse(response, model.output_shape)
    if http.status_code >= 300:
        code = parsed.get("Error", {}).get("Code")
        shape = model.service_model.shape_for_error_code(code) if code else None
        if shape is not None:
            parsed.update(_PARSER.parse(response, shape))
    parsed.setdefault("ResponseMetadata", {})["RetryAttempts"] = 0
    return parsed


def _check(model: OperationModel, http: SqsHttpResponse, parsed: dict[str, Any]) -> None:
    expected = botocore_parse(model, http)
    if parsed != expected:
        raise AssertionError(f"{model.name}: direct answer {parsed!r} != botocore's {expected!r}")


def prepare(
    runtime: Runtime, model: OperationModel, request_dict: Any, context: Any, validated: bool
) -> tuple[Request, Caller] | Result:
    """The call to hand the runtime -- or, when SQS would reject its types, the error answer."""
    operation = model.name
    params = context.get(_PARAMS)
    if params is None:  # not through _make_api_call (a client built in an unusual way)
        body = request_dict.get("body")
        params = json.loads(body) if body else {}
        wire_params = params
    else:
        wire_params = native.to_wire(operation, params)
    caller = Caller(
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


def answer(
    runtime: Runtime, model: OperationModel, request_dict: Any, context: Any, validated: bool
) -> tuple[Any, Any] | None:
    backend = runtime.backend_or_none
    if backend is None:  # stopped while the call was being made
        return None
    call = prepare(runtime, model, request_dict, context, validated)
    result = call if isinstance(call, Result) else runtime.call(model.name, *call)
    return render(model, result, backend.clock.now(), str(request_dict.get("url") or ""))


def _before_call(validated: bool, model: Any, params: Any, context: Any, **_: Any) -> Any:
    runtime = stack[-1] if stack else None
    if runtime is None:
        return None
    if _FULL in context or (
        runtime.faults.rules and runtime.faults.may_apply(model.name)  # ``defers``, inlined
    ):
        defer(runtime, model, params, context, validated)
        return None
    return answer(runtime, model, params, context, validated)


# -- faulted calls: answered inside botocore's retry loop ---------------------------------------
#
# An answer given at ``before-call`` skips the endpoint, and with it botocore's retry loop. A
# call that a fault rule may change is therefore answered at ``before-send`` instead, once per
# attempt: botocore parses each answer itself, its retry handler (standard, legacy or adaptive)
# decides and computes the back-off, and the next attempt comes back to us. On a frozen clock
# the back-off moves the mock's clock instead of sleeping (``_patch_retry_delay``), so a test
# with retries takes no real time; on a wall clock botocore sleeps as it would against AWS.

_DEFERRED = "sqsmock_deferred"
#: Set by ``_before_send`` on the context: the mock's clock, for the retry back-off.
CLOCK = "sqsmock_clock"


def defers(runtime: Runtime, operation: str) -> bool:
    """Must this call be answered per attempt (a fault rule may change it)?"""
    return bool(runtime.faults.rules) and runtime.faults.may_apply(operation)


def defer(
    runtime: Runtime,
    model: Any,
    request_dict: Any,
    context: Any,
    validated: bool,
    key: str = _DEFERRED,
) -> None:
    """Let the SDK send this call: its ``before-send`` handler (``key`` tells whose) answers
    each attempt."""
    context[key] = (runtime, model, request_dict, validated)
    _patch_retry_delay()
    return None


#: The context of the deferred call this thread (or task) is sending, set around the endpoint's
#: send loop: ``before-send`` finds the call by it where the prepared request carries no
#: context (botocore before 1.4x), and the adaptive rate limiter knows whose clock to move.
SENDING: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "sqsmock_sending", default=None
)


def sending_context(request: Any) -> dict[str, Any] | None:
    context = getattr(request, "context", None)
    return context if context else SENDING.get()


def _before_send(request: Any, **_: Any) -> Any:
    context = sending_context(request)
    if not context or _DEFERRED not in context:
        return None
    runtime, model, request_dict, validated = context[_DEFERRED]
    if _FULL in context:
        request_dict = as_sent(request)
    return attempt_answered(
        runtime, context, answer(runtime, model, request_dict, context, validated)
    )


def frozen_clock(context: Any) -> Any:
    clock = context.get(CLOCK) if isinstance(context, dict) else None
    return clock if clock is not None and clock.frozen else None


def retry_sleep(delay: Any, context: Any) -> Any:
    """What to sleep of a retry back-off ``delay``: nothing after moving the call's frozen mock
    clock by it; the delay itself otherwise."""
    clock = frozen_clock(context)
    if clock is not None and delay:
        clock.advance(delay)
        return 0
    return delay


def attempt_answered(runtime: Runtime, context: Any, answered: tuple[Any, Any] | None) -> Any:
    """The HTTP response of one answered attempt of a deferred call; its clock noted for the
    back-off."""
    if answered is None:  # never let a mocked call reach the network
        raise RuntimeError("sqsmock stopped while an SQS call was being made")
    backend = runtime.backend_or_none  # None: the mock stopped during the call (a long poll)
    context[CLOCK] = backend.clock if backend is not None else None
    return answered[0]


def _patch_retry_delay() -> None:
    """Make botocore's retry back-off advance a frozen mock clock instead of sleeping.

    Patched once, at the first deferred call; for every request sqsmock did not answer on a
    frozen clock the patched methods return exactly what botocore's own do. The endpoint sleeps
    for the delay the ``needs-retry`` handler returns; both retry modes compute it in a method
    looked up at call time (``RetryPolicy.compute_retry_delay`` in standard and adaptive mode,
    ``RetryHandler.__call__`` in legacy mode), so clients created earlier are covered too.
    """
    global _retry_patched
    if _retry_patched:
        return
    with _patch_lock:
        if _retry_patched:
            return
        import botocore.retries.standard as standard
        import botocore.retryhandler as legacy

        compute = standard.RetryPolicy.compute_retry_delay
        call = legacy.RetryHandler.__call__

        @functools.wraps(compute)
        def compute_retry_delay(self: Any, context: Any) -> Any:
            return retry_sleep(compute(self, context), getattr(context, "request_context", None))

        @functools.wraps(call)
        def handler_call(
            self: Any, attempts: Any, response: Any, caught_exception: Any, **kw: Any
        ) -> Any:
            # botocore emits needs-retry with keyword arguments: the names must be botocore's
            delay = call(self, attempts, response, caught_exception, **kw)
            return retry_sleep(delay, context_of(kw.get("request_dict")))

        standard.RetryPolicy.compute_retry_delay = compute_retry_delay
        legacy.RetryHandler.__call__ = handler_call
        _patch_rate_limiter()
        _retry_patched = True


_retry_patched = False
_patch_lock = threading.Lock()


def context_of(request_dict: Any) -> Any:
    return request_dict.get("context") if isinstance(request_dict, dict) else None


def _patch_rate_limiter() -> None:
    """Mark each deferred call while the endpoint sends it (``SENDING``), and make adaptive
    mode's rate limiter -- its token bucket waits, in real time, before an attempt goes out --
    advance a frozen mock clock by the wait instead. Everything else waits as botocore makes
    it."""
    import botocore.endpoint
    import botocore.retries.bucket as bucket

    send = botocore.endpoint.Endpoint._send_request
    acquire = bucket.TokenBucket.acquire

    @functools.wraps(send)
    def send_request(self: Any, request_dict: Any, operation_model: Any) -> Any:
        context = request_dict.get("context")
        if not context or _DEFERRED not in context:
            return send(self, request_dict, operation_model)
        token = SENDING.set(context)
        try:
            return send(self, request_dict, operation_model)
        finally:
            SENDING.reset(token)

    @functools.wraps(acquire)
    def acquire_token(self: Any, amount: int = 1, block: bool = True) -> Any:
        context = SENDING.get()
        deferred = context.get(_DEFERRED) if context else None
        backend = deferred[0].backend_or_none if deferred else None
        if backend is None or not backend.clock.frozen:
            return acquire(self, amount, block)
        with self._new_fill_rate_condition:
            self._refill()
            if amount > self._current_capacity:
                # as if it had waited for them
                backend.clock.advance(self._sleep_amount(amount))
                self._current_capacity = amount
            self._current_capacity -= amount
            return True

    botocore.endpoint.Endpoint._send_request = send_request
    bucket.TokenBucket.acquire = acquire_token


def hook(
    client: Any, before_call: Callable[..., Any], before_send: Callable[..., Any] | None = None
) -> None:
    """Give an SQS client's event emitter ``before_call`` (once per client); mark any client
    as seen. ``before_call(validated, model, params, context, **kwargs)`` answers the call;
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
        send = before_send or _before_send
        events.register_last("before-send", send, unique_id="sqsmock-before-send")
        _yield_to_sqsmock(events)
        setattr(events, _SQS, True)
    setattr(events, _MARK, True)


def _make_api_call(self: Any, operation_name: str, api_params: Any) -> Any:
    if stack and not getattr(self.meta.events, _MARK, False):
        hook(self, _before_call)
    return _previous["_make_api_call"].__get__(self)(operation_name, api_params)


def hooked(client: Any) -> bool:
    """Has the client been seen while a mock is active (then ``hook`` need not run again)?"""
    return bool(getattr(client.meta.events, _MARK, False))


# -- which path a call takes ----------------------------------------------------------------
#
# FAST: nothing but botocore's, boto3's and sqsmock's own handlers would see the request, so it
# is not serialized at all and is answered at ``before-call``.
# SERIALIZED: other ``before-call`` handlers exist (a request logger, a test reading the body):
# the request is serialized as botocore would, so they see what would go on the wire; it is
# still answered at ``before-call``, from that request.
# FULL: something watches what happens after ``before-call`` -- a handler on
# ``request-created``, ``before-sign``, ``before-send``, ``response-received``, ``before-parse``
# or ``needs-retry`` (aws-xray-sdk's, OpenTelemetry's, the user's), or a wrapped request
# builder (``Endpoint.create_request``/``prepare_request``: how aws-xray-sdk and OpenTelemetry
# inject ``X-Amzn-Trace-Id``). botocore then builds, signs and "sends" the request as usual,
# and the last ``before-send`` handler answers from the request as prepared -- with the headers
# the others added, as AWS would receive it.

FAST, SERIALIZED, FULL = 1, 2, 3
_FULL = "sqsmock_full"
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
#: The methods building a request: wrapped by someone (not sqsmock), the full path is taken.
REQUEST_BUILDERS: list[tuple[type, str]] = [
    (botocore.endpoint.Endpoint, "create_request"),
    (botocore.endpoint.Endpoint, "prepare_request"),
]
_PLANS = "_sqsmock_plans"


def _foreign(handler: Any) -> bool:
    """Is ``handler`` someone else's than botocore's, boto3's, sqsmock's or moto's?"""
    while isinstance(handler, functools.partial):
        handler = handler.func
    module = getattr(handler, "__module__", None) or type(handler).__module__ or ""
    return module.partition(".")[0] not in _OWN_PACKAGES and module not in _USER_AGENT_ONLY


def _plan(emitter: Any, operation: str) -> int:
    """The path a call of ``operation`` takes, from the handlers registered on ``emitter``."""
    handlers = emitter._handlers
    for event in _AFTER_BEFORE_CALL:
        if any(_foreign(h) for h in handlers.prefix_search(f"{event}.sqs.{operation}")):
            return FULL
    if any(_foreign(h) for h in handlers.prefix_search(f"before-call.sqs.{operation}")):
        return SERIALIZED
    return FAST


def _builders_wrapped() -> bool:
    for cls, name in REQUEST_BUILDERS:
        method = vars(cls).get(name)
        if method is not None and getattr(method, "__wrapped__", None) is not None:
            return True
    return False


def route(client: Any, operation_model: Any, context: Any) -> int:
    """``FAST``, ``SERIALIZED`` or ``FULL`` for a call sqsmock answers; 0 for any other."""
    if not stack or context is None or not getattr(client.meta.events, _SQS, False):
        return 0
    if _builders_wrapped():
        return FULL
    # Remembered per emitter and operation until a handler is registered or unregistered
    # (botocore then replaces the emitter's lookup cache, whose identity is the key).
    emitter = getattr(client.meta.events, "_emitter", client.meta.events)
    cache = getattr(emitter, "_lookup_cache", None)
    if cache is None or not hasattr(emitter, "_handlers"):  # an emitter of another make
        return FULL
    memo = getattr(emitter, _PLANS, None)
    if memo is None or memo[0] is not cache:
        memo = (cache, {})
        setattr(emitter, _PLANS, memo)
    plans: dict[str, int] = memo[1]
    operation = operation_model.name
    plan = plans.get(operation)
    if plan is None:
        plan = plans[operation] = _plan(emitter, operation)
    return plan


def answers(client: Any, context: Any) -> bool:
    """Will sqsmock answer this client's call?"""
    return bool(stack) and context is not None and getattr(client.meta.events, _SQS, False)


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


def full_path(client: Any, context: Any, credentials: Callable[..., Any] | None = None) -> None:
    """Mark the call for the full path; a client without credentials signs with placeholders
    (AWS needs a signature; nobody under the mock has credentials for it)."""
    context[_FULL] = True
    signer = getattr(client, "_request_signer", None)
    if signer is not None and getattr(signer, "_credentials", False) is None:
        from botocore.credentials import Credentials

        signer._credentials = (credentials or Credentials)(_PLACEHOLDER, _PLACEHOLDER)
        _placeholder_signers.add(signer)


_PLACEHOLDER = "testing"
_placeholder_signers: weakref.WeakSet[Any] = weakref.WeakSet()


def _forget_placeholder_credentials() -> None:
    """Signers given placeholders sign as before (with none) once no mock is active."""
    for signer in list(_placeholder_signers):
        credentials = getattr(signer, "_credentials", None)
        if getattr(credentials, "access_key", None) == _PLACEHOLDER:
            signer._credentials = None
    _placeholder_signers.clear()


def as_sent(request: Any) -> dict[str, Any]:
    """The prepared request of a full-path call, as ``prepare`` reads a request dict."""
    headers: dict[str, str] = {}
    for name, value in request.headers.items():
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
    if context and stack and any(key.startswith(_DEFERRED) for key in context):
        return None
    return moto_handler(request=request, **kwargs)


# -- nothing leaves for AWS -------------------------------------------------------------------


def _send(self: Any, request: Any) -> Any:
    if stack:
        error = refused(self, request)
        if error is not None:
            raise error
    return _previous["_send"].__get__(self)(request)


# -- installing -------------------------------------------------------------------------------

#: What each wrapped method was when sqsmock wrapped it (botocore's own, or another wrapper
#: such as OpenTelemetry's or aws-xray-sdk's): sqsmock's wrappers call it. Kept after the last
#: mock stops: a call in flight then still reaches it.
_previous: dict[str, Callable[..., Any]] = {
    "_make_api_call": botocore.client.BaseClient._make_api_call,
    "_convert_to_request_dict": botocore.client.BaseClient._convert_to_request_dict,
    "_send": botocore.endpoint.Endpoint._send,
}
_WRAPPERS: list[tuple[type, str, Callable[..., Any]]] = [
    (botocore.client.BaseClient, "_make_api_call", _make_api_call),
    (botocore.client.BaseClient, "_convert_to_request_dict", _convert_to_request_dict),
    (botocore.endpoint.Endpoint, "_send", _send),
]


def wraps_ours(method: Any, ours: Any) -> bool:
    """Is ``ours`` ``method`` or inside it (someone wrapped sqsmock's wrapper)?"""
    for _ in range(32):
        if method is ours:
            return True
        method = getattr(method, "__wrapped__", None)
        if method is None:
            return False
    return False


def install_wrappers(
    wrappers: list[tuple[type, str, Callable[..., Any]]], previous: dict[str, Callable[..., Any]]
) -> None:
    """Put each wrapper in place over whatever is there now (remembered in ``previous``),
    unless it is there already -- perhaps inside another's wrapper, which then stays."""
    for cls, name, ours in wrappers:
        current = vars(cls).get(name, getattr(cls, name))
        if not wraps_ours(current, ours):
            previous[name] = current
            setattr(cls, name, ours)


def uninstall_wrappers(
    wrappers: list[tuple[type, str, Callable[..., Any]]], previous: dict[str, Callable[..., Any]]
) -> None:
    """Put back what each wrapper replaced. A wrapper someone wrapped in turn stays (it lets
    every call through while no mock is active); taking it out would take theirs out too."""
    for cls, name, ours in wrappers:
        if vars(cls).get(name) is ours:
            setattr(cls, name, previous[name])


def install() -> None:
    install_wrappers(_WRAPPERS, _previous)


def uninstall() -> None:
    uninstall_wrappers(_WRAPPERS, _previous)
    _forget_placeholder_credentials()
