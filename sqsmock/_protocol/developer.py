"""LocalStack's SQS developer endpoint over HTTP: ``/_aws/sqs/messages``.

What LocalStack documents and its tests check, so tests and tools written for it run unchanged:

- ``GET /_aws/sqs/messages?QueueUrl=<url>`` (or the URL in a form body), and
  ``GET /_aws/sqs/messages/<region>/<account>/<name>``: every message of the queue, in
  ReceiveMessage's shape, with no side effect; ``ShowInvisible`` and ``ShowDelayed`` (``true`` or
  ``1``) add in-flight and delayed messages, marked ``IsVisible`` / ``IsDelayed``.
- usable as a client's ``endpoint_url`` for ReceiveMessage in both protocols
  (``MaxNumberOfMessages`` is ignored); any other action: ``InvalidRequest``;
- no queue URL or an unknown queue: ``AWS.SimpleQueueService.NonExistentQueue``; a URL that is
  not a queue URL: 404 ``InvalidAddress``;
- XML by default, JSON for a JSON-protocol request; ``DELETE`` purges the queue.

Unlike LocalStack's, an answer is bounded (``_service.developer``): at most 1,000 messages
(``MaxResults`` asks for fewer) and 4 MiB of bodies, in ReceiveMessage's shape still; when more
are left, the ``X-Sqsmock-Next-Token`` header holds the ``NextToken`` to ask for the rest with.

Every queue URL form is read: sqsmock's, AWS's, ElasticMQ's and LocalStack's four strategies
(the region from ``sqs.<region>.`` / ``<region>.queue.`` host names or the ``/queue/<region>/``
path, else the request's credential scope, else the default).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .._engine import Backend
from .._errors import SqsError
from .._regions import shown
from .._service.developer import PAGE, list_messages
from . import Call, Result
from . import call as run_call
from .http import HttpRequest, _scope, parse, protocol_of

__all__ = ["NEXT_TOKEN", "PATH", "DeveloperCall", "answer", "parse_developer"]

#: Where the endpoint lives; ``PATH/<region>/<account>/<name>`` names a queue in the path.
PATH = "/_aws/sqs/messages"
#: The answer's header that holds the ``NextToken`` of the messages left.
NEXT_TOKEN = "X-Sqsmock-Next-Token"
_TRUE = ("true", "1")
#: The address LocalStack's endpoint names when it cannot read a queue URL (its own words).
_LOCALSTACK_ADDRESS = "https://queue.amazonaws.com/"


class DeveloperCall:
    """A request to the developer endpoint, understood."""

    __slots__ = (
        "caller",
        "limit",
        "next_token",
        "protocol",
        "purge",
        "show_delayed",
        "show_invisible",
        "url",
    )

    def __init__(
        self,
        url: str,
        caller: Call,
        protocol: str,
        *,
        show_invisible: bool = False,
        show_delayed: bool = False,
        purge: bool = False,
        limit: int = PAGE,
        next_token: str | None = None,
    ) -> None:
        self.limit = limit
        self.next_token = next_token
        self.url = url
        self.caller = caller
        self.protocol = protocol
        self.show_invisible = show_invisible
        self.show_delayed = show_delayed
        self.purge = purge


def _values(request: HttpRequest) -> dict[str, str]:
    """The request's parameters: URL query, then a form body (as ``request.values`` reads)."""
    values = dict(request.query)
    if request.body and "form" in request.headers.get("content-type", ""):
        try:
            values.update(parse_qsl(request.body.decode("utf-8"), keep_blank_values=True))
        except UnicodeDecodeError as error:
            raise SqsError("MalformedQueryString", reason=error.reason) from None
    return values


def _from_client(request: HttpRequest) -> bool:
    """Sent by an AWS SDK (JSON 1.0 or the query protocol's form), not by hand."""
    content_type = request.headers.get("content-type", "")
    return (
        "x-amz-" in content_type
        or "x-amz-target" in request.headers
        or ("x-www-form-urlencoded" in content_type and "Action=" in request.body.decode("latin-1"))
    )


def queue_path(url: str) -> str:
    """A queue URL's path as sqsmock reads it, with the region a LocalStack host name gives
    moved into the path (``/queue/<region>/<account>/<name>``); InvalidAddress for a URL that
    names no queue (as LocalStack's ``parse_queue_url``)."""
    parts = urlsplit(url if "://" in url else f"http://host/{url.lstrip('/')}")
    path = [p for p in parts.path.split("/") if p]
    if len(path) not in (2, 4) or (len(path) == 4 and path[0] != "queue"):
        raise SqsError("InvalidAddress", address=_LOCALSTACK_ADDRESS)
    if len(path) == 4:
        return "/" + "/".join(path)
    account, name = path
    host = (parts.hostname or "").split(".")
    region = None
    if len(host) > 2 and host[0] == "sqs":
        region = host[1]
    elif len(host) > 2 and host[1] == "queue":
        region = host[0]
    elif host and host[0] == "queue" and "localstack" in (parts.hostname or ""):
        region = "us-east-1"
    if region is None:
        return f"/{account}/{name}"
    return f"/queue/{region}/{account}/{name}"


def _caller(request: HttpRequest, region: str, account: str, urls: Any) -> Call:
    """Who is asking: the credential scope's region and a 12-digit key's account, if signed."""
    key, scope_region = _scope(request, request.query)
    if key is not None and len(key) == 12 and key.isdigit():
        account = key
    return Call(scope_region or region, account, request.headers, urls)


def parse_developer(request: HttpRequest, *, region: str, account: str, urls: Any) -> DeveloperCall:
    """The developer-endpoint call a request makes, or the SqsError to answer it with."""
    values = _values(request)
    rest = request.path[len(PATH) :].strip("/")
    from_client = _from_client(request) and request.method == "POST"
    if rest:  # the queue in the path
        parts = rest.split("/")
        if len(parts) != 3:
            raise SqsError("InvalidAddress", address=_LOCALSTACK_ADDRESS)
        url = "/queue/" + "/".join(parts)
        caller = _caller(request, region, account, urls)
    elif from_client:  # a client whose endpoint_url is this endpoint
        parsed = parse(
            HttpRequest("POST", "/", request.query, request.headers, request.body),
            region=region,
            account=account,
            urls=urls,
        )
        if parsed.operation != "ReceiveMessage":
            raise SqsError("DeveloperEndpointReceiveOnly")
        caller = parsed.caller
        url = str(parsed.params.get("QueueUrl") or "")
    else:
        caller = _caller(request, region, account, urls)
        url = values.get("QueueUrl", "")
    if not url:
        raise SqsError("QueueDoesNotExist")
    return DeveloperCall(
        queue_path(url),
        caller,
        protocol_of(request) if from_client else "query",
        show_invisible=values.get("ShowInvisible", "").lower() in _TRUE,
        show_delayed=values.get("ShowDelayed", "").lower() in _TRUE,
        purge=request.method == "DELETE",
        limit=_limit(values.get("MaxResults")),
        next_token=values.get("NextToken") or None,
    )


def _limit(text: str | None) -> int:
    """``MaxResults``: 1 to ``PAGE`` in ASCII digits (default ``PAGE``)."""
    if text is None:
        return PAGE
    if not (0 < len(text) <= 4 and text.isascii() and text.isdigit() and 1 <= int(text) <= PAGE):
        raise SqsError("MaxResultsOutOfRange", value=shown(text))
    return int(text)


def as_json_document(xml: bytes) -> bytes:
    """An XML answer as the JSON LocalStack's endpoint gives for ``Accept: application/json``:
    each element a member named by its tag (namespace dropped), repeated elements a list, a
    single one an object, text as strings."""

    def convert(element: ET.Element) -> Any:
        children = list(element)
        if not children:
            return element.text
        out: dict[str, Any] = {}
        for child in children:
            tag = child.tag.split("}", 1)[-1]
            value = convert(child)
            if tag in out:
                if not isinstance(out[tag], list):
                    out[tag] = [out[tag]]
                out[tag].append(value)
            else:
                out[tag] = value
        return out

    root = ET.fromstring(xml)
    return json.dumps({root.tag.split("}", 1)[-1]: convert(root)}).encode("utf-8")


def answer(backend: Backend, call: DeveloperCall) -> tuple[Result, str | None]:
    """List (or, for DELETE, purge) the queue's messages; the result renders as
    ReceiveMessage's (PurgeQueue's) answer. With it, the ``NextToken`` of the messages left
    (None: none is)."""
    context = call.caller
    if call.purge:
        return run_call(backend, "PurgeQueue", {"QueueUrl": call.url}, context), None
    context.backend = backend
    try:
        payload, token = list_messages(
            context,
            call.url,
            show_invisible=call.show_invisible,
            show_delayed=call.show_delayed,
            limit=call.limit,
            next_token=call.next_token,
        )
    except SqsError as error:
        return Result.of_error("ReceiveMessage", error), None
    return Result("ReceiveMessage", 200, payload, None), token
