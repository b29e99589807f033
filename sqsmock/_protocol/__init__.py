"""The wire: decode an AWS JSON 1.0 request, render the answer as SQS would send it.

The request is the one botocore serialized (``X-Amz-Target`` names the operation, the body holds
the parameters). The answer is rendered as the JSON body and headers real SQS returns, then parsed
by botocore's own JSON parser for the operation's output shape. So users get exactly what AWS
would give them: ``ResponseMetadata``, base64-decoded binary values, and for errors the legacy
``Error.Code``, ``Error.QueryErrorCode`` and -- through botocore's own error handling -- the
modeled exception class.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping
from email.utils import formatdate
from typing import Any

from botocore.awsrequest import AWSResponse, HeadersDict
from botocore.model import ListShape, MapShape, OperationModel, Shape, StructureShape
from botocore.parsers import create_parser
from botocore.validate import ParamValidator

from .._engine import Backend
from .._errors import SqsError
from .._service import Call, dispatch

__all__ = ["SqsHttpResponse", "answer", "decode_request", "render", "request_id"]

_PARSER = create_parser("json")
_VALIDATOR = ParamValidator()
_CONTENT_TYPE = "application/x-amz-json-1.0"


def request_id() -> str:
    """A fresh request id in the UUID form SQS uses (cheaper than ``uuid.uuid4``)."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_date_cache: tuple[int, str] = (0, "")


def http_date(now: float) -> str:
    """The ``date`` header; formatted once per second of clock time."""
    global _date_cache
    second = int(now)
    if _date_cache[0] != second:
        _date_cache = (second, formatdate(second, usegmt=True))
    return _date_cache[1]


class SqsHttpResponse(AWSResponse):  # type: ignore[misc]
    """The HTTP side of an answer; its headers become a ``HeadersDict`` only when read."""

    def __init__(self, url: str, status_code: int, headers: dict[str, str], body: bytes):
        self.url = url
        self.status_code = status_code
        self.raw = None
        self._content = body
        self._raw_headers = headers
        self._headers: HeadersDict | None = None

    @property
    def headers(self) -> HeadersDict:
        if self._headers is None:
            self._headers = HeadersDict(self._raw_headers)
        return self._headers

    @headers.setter
    def headers(self, value: Any) -> None:
        self._headers = HeadersDict(value)


def decode_request(body: bytes | str | None) -> dict[str, Any]:
    if not body:
        return {}
    parsed = json.loads(body)
    return parsed if isinstance(parsed, dict) else {}


#: sqsmock's own test suite sets this: every successful answer is then parsed by botocore's
#: parser as well, and the fast path's result must be identical.
CHECK_AGAINST_BOTOCORE = False


def render(
    model: OperationModel,
    status: int,
    payload: Mapping[str, Any],
    *,
    error: SqsError | None,
    now: float,
    url: str,
) -> tuple[AWSResponse, dict[str, Any]]:
    """(http response, parsed response) for ``payload`` as SQS would send it.

    Errors go through botocore's own JSON parser (it sets ``Error.Code`` from the
    ``x-amzn-query-error`` header and ``QueryErrorCode`` from the shape). Successful answers take
    ``parse_success``, which builds the same dict botocore's parser builds from the same body --
    a few microseconds cheaper on every call; the test suite checks the equality on every call.
    """
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    headers = {
        "x-amzn-requestid": request_id(),
        "date": http_date(now),
        "content-type": _CONTENT_TYPE,
        "content-length": str(len(body)),
    }
    if error is not None:
        headers["x-amzn-query-error"] = f"{error.code};Sender"
        parsed = botocore_parse(model, status, headers, body)
    else:
        parsed = parse_success(model.output_shape, status, headers, body)
        if CHECK_AGAINST_BOTOCORE:
            expected = botocore_parse(model, status, headers, body)
            if parsed != expected:
                raise AssertionError(
                    f"{model.name}: fast parse {parsed!r} != botocore's {expected!r}"
                )
    return SqsHttpResponse(url, status, headers, body), parsed


def botocore_parse(
    model: OperationModel, status: int, headers: dict[str, str], body: bytes
) -> dict[str, Any]:
    parsed: dict[str, Any] = _PARSER.parse(
        {"headers": headers, "status_code": status, "body": body}, model.output_shape
    )
    parsed.setdefault("ResponseMetadata", {})["RetryAttempts"] = 0
    return parsed


def parse_success(
    shape: Shape | None, status: int, headers: dict[str, str], body: bytes
) -> dict[str, Any]:
    """What botocore's JSON parser makes of a successful SQS answer, built directly.

    For SQS's output shapes that is the JSON body itself (every member is a string, number,
    boolean, list, map or structure, and sqsmock writes only modeled members, never null), with
    blobs base64-decoded, plus ``ResponseMetadata``.
    """
    parsed: dict[str, Any] = json.loads(body) if shape is not None else {}
    if shape is not None and _has_blob(shape):
        parsed = _decode_blobs(shape, parsed)
    parsed["ResponseMetadata"] = {
        "RequestId": headers["x-amzn-requestid"],
        "HTTPStatusCode": status,
        "HTTPHeaders": dict(headers),
        "RetryAttempts": 0,
    }
    return parsed


_BLOBS: dict[str, bool] = {}


def _has_blob(shape: Shape) -> bool:
    found = _BLOBS.get(shape.name)
    if found is None:
        found = _BLOBS[shape.name] = _contains_blob(shape, set())
    return found


def _contains_blob(shape: Shape, seen: set[str]) -> bool:
    if shape.type_name == "blob":
        return True
    if shape.name in seen:
        return False
    seen.add(shape.name)
    if isinstance(shape, StructureShape):
        return any(_contains_blob(member, seen) for member in shape.members.values())
    if isinstance(shape, ListShape):
        return _contains_blob(shape.member, seen)
    if isinstance(shape, MapShape):
        return _contains_blob(shape.value, seen)
    return False


def _decode_blobs(shape: Shape, value: Any) -> Any:
    if shape.type_name == "blob":
        return base64.b64decode(value)
    if not _has_blob(shape):
        return value
    if isinstance(shape, StructureShape):
        members = shape.members
        return {k: _decode_blobs(members[k], v) if k in members else v for k, v in value.items()}
    if isinstance(shape, ListShape):
        return [_decode_blobs(shape.member, v) for v in value]
    if isinstance(shape, MapShape):
        return {k: _decode_blobs(shape.value, v) for k, v in value.items()}
    return value


def check_types(model: OperationModel, request: dict[str, Any]) -> None:
    """What SQS's own deserializer rejects: missing members and members of the wrong type.

    botocore checks this client-side unless ``parameter_validation`` is off; then sqsmock does it,
    so bad input gets an SQS error instead of a Python exception from deep inside a handler.
    """
    if model.input_shape is None:
        return
    report = _VALIDATOR.validate(request, model.input_shape)
    if not report.has_errors():
        return
    kind, _, details = report._errors[0]
    if kind == "missing required field":
        raise SqsError("MissingParameter", name=details["required_name"])
    raise SqsError("ParameterFailsModel", report=report._format_error(report._errors[0]))


def answer(
    backend: Backend,
    model: OperationModel,
    request_dict: Mapping[str, Any],
    region: str | None,
    *,
    validated: bool = True,
) -> tuple[AWSResponse, dict[str, Any]]:
    """Run one SQS call against ``backend`` and return what botocore would have received.

    ``validated``: botocore already checked the parameters against the model (its default).
    """
    headers = request_dict.get("headers") or {}
    call = Call(backend, region or backend.region, backend.account, headers)
    url = str(request_dict.get("url") or "")
    try:
        try:
            request = decode_request(request_dict.get("body"))
        except ValueError:
            raise SqsError("InvalidJsonBody") from None
        if not validated:
            check_types(model, request)
        payload = dispatch(call, model.name, request)
    except SqsError as error:
        body = {"__type": f"com.amazonaws.sqs#{error.shape}", "message": error.message}
        return render(model, error.status, body, error=error, now=backend.clock.now(), url=url)
    return render(model, 200, payload, error=None, now=backend.clock.now(), url=url)
