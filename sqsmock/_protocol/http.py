"""SQS over HTTP: a raw request in, a raw answer out, for both wire protocols on one port --
and SNS's query protocol on the same port, for a request signed for ``sns`` or naming an action
only SNS has (``Publish``, ``CreateTopic``...).

Chosen per request, as SQS does: an ``X-Amz-Target: AmazonSQS.<Operation>`` header means AWS
JSON 1.0 (``wire``); otherwise the form (body and URL query string) must carry ``Action=`` --
the query protocol (``query``), with XML answers and ``ErrorResponse`` bodies -- or the same
documents as JSON for a client that accepts ``application/json`` (``query-json``), as SQS does.
Requests may be POSTed to ``/`` or to a queue URL's path (older SDKs do); then the path names the
queue, and, as on SQS, a query-protocol ``CreateQueue`` or ``ListQueues`` there is an
``InvalidAction`` and a GET naming no action a 404 ``UnknownOperationException``.

Who is calling comes from the request like on AWS: the region from the SigV4 credential scope
(``Authorization`` header or presigned ``X-Amz-Credential``), the account from a 12-digit access
key id (any other key: the server's default account). Signatures are not verified. Queue URLs
are the server's own: ``<base>/queue/<region>/<account>/<name>``, so one name in two regions
gives two URLs, as on AWS.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._errors import SqsError
from .._service.addresses import QueueUrls, split_queue_url
from . import Call, Result, sns, wire
from .query import (
    check_form_size,
    decode_query,
    form_pairs,
    render_query_error,
    render_query_json_error,
    render_query_json_success,
    render_query_success,
)
from .validate import check_types

__all__ = ["HttpAnswer", "HttpRequest", "ServerUrls", "error_answer", "parse", "render"]

_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/[^/]*/([^/]+)/")
_TARGET_START = len(wire.TARGET_PREFIX)
_QUERY_CONTENT_TYPE = "text/xml"
_QUERY_JSON_CONTENT_TYPE = "application/json"
# Actions SQS refuses when a query-protocol request is sent to a queue's URL (AWS-recorded for
# these two; GetQueueUrl is accepted there).
_NOT_FOR_QUEUE_URL = frozenset({"CreateQueue", "ListQueues"})
# AWS's answer to a GET of a queue URL with no action (AWS-recorded: 404, XML whatever Accept).
_UNKNOWN_OPERATION = b"<UnknownOperationException/>"


class HttpRequest:
    """What the server read: method, path, URL query pairs, headers (lower-case names), body."""

    __slots__ = ("body", "headers", "method", "path", "query")

    def __init__(
        self,
        method: str,
        path: str,
        query: list[tuple[str, str]],
        headers: Mapping[str, str],
        body: bytes,
    ) -> None:
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body


class HttpAnswer:
    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


class ServerUrls:
    """Queue URLs pointing at the server: ``<base>/queue/<region>/<account>/<name>``."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    def make(self, region: str, account: str, name: str) -> str:
        return f"{self.base}/queue/{region}/{account}/{name}"

    #: Every call names its queue by URL, and the server checks the URL's region first: the
    #: memoised split itself, without a method around it.
    split = staticmethod(split_queue_url)


class Parsed:
    """A request understood: its protocol, operation, JSON-wire parameters and caller."""

    __slots__ = ("caller", "operation", "params", "protocol")

    def __init__(self, protocol: str, operation: str, params: dict[str, Any], caller: Call):
        self.protocol = protocol
        self.operation = operation
        self.params = params
        self.caller = caller


def protocol_of(request: HttpRequest) -> str:
    """How to answer this SQS request, even when it is malformed: ``"json"`` (AWS JSON 1.0),
    ``"query"`` (XML), or ``"query-json"`` (the query protocol for a client that accepts JSON:
    SQS then answers its documents as JSON)."""
    headers = request.headers
    if "x-amz-target" in headers:
        return "json"
    accept = headers.get("accept")
    if accept and "json" in accept and _accepts_json(accept):
        return "query-json"
    return "query"


def _accepts_json(accept: str) -> bool:
    return any(
        part.split(";", 1)[0].strip().lower() == "application/json" for part in accept.split(",")
    )


def _queue_url_path(path: str) -> bool:
    """Is ``path`` a queue URL's (``/<account>/<name>``, ``/queue/<region>/<account>/<name>``)?"""
    return path != "/" and not path.startswith("/_sqsmock") and split_queue_url(path)[1] is not None


#: The credential scope at the head of the ``Authorization`` every SigV4 signer (every SDK)
#: writes: access key id, region and service in one match. Where it matches, it finds what
#: ``_CREDENTIAL`` and ``_SERVICE`` would (the same spans at the same, first ``Credential=``);
#: any other header takes those two searches.
_SIGV4 = re.compile(
    r"AWS4-HMAC-SHA256 Credential=([^/,\s]+)/[^/,\s]*/([^/,\s]+)/([A-Za-z0-9._-]{1,64})/"
)
_SERVICE = re.compile(r"Credential=[^/,\s]+/[^/]*/[^/]*/([A-Za-z0-9._-]{1,64})/")


#: ``_signed``'s answers by the header's text up to its first comma (where ``_SIGV4``'s match
#: ends, when it matches): a client signs every call with the same scope, for a day.
_SCOPES: dict[str, tuple[str, str, str]] = {}
_SCOPES_KEPT = 256


def _signed(authorization: str) -> tuple[str | None, str | None, str | None]:
    """(access key id, region, service) of the SigV4 credential scope in ``authorization``;
    the service (``sqs`` for SQS) None when unsigned, the key and region None when absent."""
    head = authorization.partition(",")[0]
    known = _SCOPES.get(head)
    if known is not None:
        return known
    found = _SIGV4.match(head)
    if found is not None:
        key, region, service = found.groups()
        if len(_SCOPES) >= _SCOPES_KEPT:
            _SCOPES.clear()
        known = _SCOPES[head] = key, region, service.lower()
        return known
    scope = _CREDENTIAL.search(authorization)
    signed = _SERVICE.search(authorization)
    return (
        None if scope is None else scope.group(1),
        None if scope is None else scope.group(2),
        None if signed is None else signed.group(1).lower(),
    )


def _scope(request: HttpRequest, pairs: list[tuple[str, str]]) -> tuple[str | None, str | None]:
    """(access key id, region) of the SigV4 credential scope, or of SigV2's access key."""
    key, region, _ = _signed(request.headers.get("authorization", ""))
    return (key, region) if key is not None else _presigned(pairs)


def _presigned(pairs: list[tuple[str, str]]) -> tuple[str | None, str | None]:
    """(access key id, region) of a presigned URL's credential scope, or of SigV2's key."""
    for key, value in pairs:
        if key == "X-Amz-Credential":
            parts = value.split("/")
            return parts[0], parts[2] if len(parts) > 2 else None
        if key == "AWSAccessKeyId":
            return value, None
    return None, None


def parse(
    request: HttpRequest, *, region: str, account: str, urls: QueueUrls, limit: int | None = None
) -> Parsed:
    """The call a request makes, or the ``SqsError`` to answer it with."""
    body = request.body
    if limit is not None and len(body) > limit:
        raise SqsError("RequestEntityTooLarge", limit=limit)
    headers = request.headers
    key, scope_region, service = _signed(headers.get("authorization", ""))
    if service is not None and service != "sqs":
        if service != "sns":
            raise SqsError("NotSqs", service=service)
        return _parse_sns(request, key, scope_region, region, account, urls)
    target = headers.get("x-amz-target")
    path = request.path
    if target is not None:
        protocol = "json"
        if not target.startswith(wire.TARGET_PREFIX):
            raise SqsError("InvalidAction", action=target)
        operation = target[_TARGET_START:]
        params = wire.decode_json(body)
        pairs = request.query
    else:
        protocol = protocol_of(request)
        check_form_size(body, len(request.query))
        try:
            pairs = request.query + form_pairs(body.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise SqsError("MalformedQueryString", reason=error.reason) from None
        to_queue = _queue_url_path(path)
        if to_queue and request.method == "GET" and all(key != "Action" for key, _ in pairs):
            raise SqsError("UnknownOperation")
        try:
            operation, params = decode_query(pairs)
        except SqsError as error:  # an unsigned SNS call names an action only SNS has
            if error.error == "InvalidAction" and error.params.get("action") in sns.OPERATIONS:
                return _parse_sns(request, key, scope_region, region, account, urls)
            raise
        if to_queue and operation in _NOT_FOR_QUEUE_URL:
            raise SqsError("InvalidAction", action=operation)
    if key is None and pairs:
        key, scope_region = _presigned(pairs)
    if key is not None and len(key) == 12 and key.isdigit():
        account = key
    if scope_region:
        region = scope_region
    if "QueueUrl" not in params and path.strip("/") and not path.startswith("/_sqsmock"):
        params["QueueUrl"] = path  # posted to the queue's own URL
    check_types(operation, params)
    caller = Call(region, account, request.headers, urls, unshared=True)  # read off the wire
    return Parsed(protocol, operation, params, caller)


def _parse_sns(
    request: HttpRequest,
    key: str | None,
    scope_region: str | None,
    region: str,
    account: str,
    urls: QueueUrls,
) -> Parsed:
    """An SNS call (signed for ``sns``, or naming an action only SNS has): SNS's query form."""
    check_form_size(request.body, len(request.query))
    try:
        pairs = request.query + form_pairs(request.body.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise SqsError("MalformedQueryString", reason=error.reason) from None
    if key is None and pairs:
        key, scope_region = _presigned(pairs)
    if key is not None and len(key) == 12 and key.isdigit():
        account = key
    operation, params = sns.decode(pairs)
    caller = Call(scope_region or region, account, request.headers, urls, unshared=True)
    return Parsed("sns", operation, params, caller)


def render(protocol: str, result: Result) -> HttpAnswer:
    """The HTTP answer SQS (or, for ``protocol`` "sns", SNS) sends for ``result``."""
    if protocol == "sns":
        headers = {"x-amzn-RequestId": result.request_id, "Content-Type": sns.CONTENT_TYPE}
        return HttpAnswer(result.status, headers, sns.render(result))
    if protocol == "json":
        headers = {"x-amzn-RequestId": result.request_id, "Content-Type": wire.JSON_CONTENT_TYPE}
        if result.error is not None:
            headers["x-amzn-query-error"] = wire.query_error_header(result.error)
        return HttpAnswer(result.status, headers, wire.json_body(result))
    error = result.error
    if error is not None and error.error == "UnknownOperation":
        headers = {"x-amzn-RequestId": result.request_id, "Content-Type": _QUERY_CONTENT_TYPE}
        return HttpAnswer(result.status, headers, _UNKNOWN_OPERATION)
    if protocol == "query-json":
        headers = {"x-amzn-RequestId": result.request_id, "Content-Type": _QUERY_JSON_CONTENT_TYPE}
        if error is not None:
            body = render_query_json_error(
                error.code, error.query_message, error.status < 500, result.request_id
            )
        else:
            body = render_query_json_success(
                result.operation, result.payload or {}, result.request_id
            )
        return HttpAnswer(result.status, headers, body)
    headers = {"x-amzn-RequestId": result.request_id, "Content-Type": _QUERY_CONTENT_TYPE}
    if error is not None:
        body = render_query_error(
            error.code, error.query_message, error.status < 500, result.request_id
        )
    else:
        body = render_query_success(result.operation, result.payload or {}, result.request_id)
    return HttpAnswer(result.status, headers, body)


def error_answer(request: HttpRequest, error: SqsError, operation: str = "") -> HttpAnswer:
    """An error answered before any call was made, in the request's protocol (SNS's for a
    request signed for SNS)."""
    signed_for = _signed(request.headers.get("authorization", ""))[2]
    protocol = "sns" if signed_for == "sns" else protocol_of(request)
    return render(protocol, Result.of_error(operation, error))


__all__ += ["Parsed", "protocol_of"]
