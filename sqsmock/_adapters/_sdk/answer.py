"""The answer in botocore's shape, for both SDK adapters: ``(http response, parsed response)``.

botocore would build the parsed dict by rendering SQS's JSON answer and running its parser over
it. For SQS's output shapes that parser returns the JSON body itself with blobs decoded, plus
``ResponseMetadata``; ``_protocol.native.from_wire`` builds exactly that, at a fraction of the
cost, and the wire body is rendered only if somebody reads it. ``CHECK_AGAINST_BOTOCORE`` makes
every answer prove it against botocore's own parser.
"""

from __future__ import annotations

from email.utils import formatdate
from typing import Any

from botocore.awsrequest import AWSResponse, HeadersDict
from botocore.model import OperationModel
from botocore.parsers import create_parser

from ..._protocol import Result, native, wire

__all__ = ["CHECK_AGAINST_BOTOCORE", "SqsHttpResponse", "botocore_parse", "render"]

#: sqsmock's own test suite sets this: every answer is then also rendered to the wire and
#: parsed by botocore's own parser, and the direct result must be identical.
CHECK_AGAINST_BOTOCORE = False

_PARSER = create_parser("json")

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
    parsed: bool = True,
) -> tuple[Any, Any]:
    """``(http response, parsed response)`` for botocore, as SQS's wire answer would give.

    ``parsed=False``: the parsed side is None -- an answer given at ``before-send``, which
    botocore parses from the HTTP side itself.
    """
    headers = {
        "x-amzn-requestid": result.request_id,
        "date": http_date(now),
        "content-type": wire.JSON_CONTENT_TYPE,
    }
    error = result.error
    if error is not None:
        headers["x-amzn-query-error"] = wire.query_error_header(error)
    http = http_class(url, result, headers)
    if not parsed:
        return http, None
    answer: dict[str, Any]
    if error is not None:
        answer = {
            "Error": {
                "Message": error.message,
                "Code": error.code,
                "QueryErrorCode": error.shape,
                "Type": "Sender" if error.status < 500 else "Receiver",
            },
        }
        if _modeled(model, error.code):
            answer["message"] = error.message
    else:
        payload = result.payload or {}
        answer = native.from_wire(result.operation, payload) if model.output_shape else {}
    answer["ResponseMetadata"] = {
        "RequestId": result.request_id,
        "HTTPStatusCode": result.status,
        "HTTPHeaders": headers.copy(),
        "RetryAttempts": 0,
    }
    if CHECK_AGAINST_BOTOCORE:
        _check(model, http, answer)
    return http, answer


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
