"""AWS JSON 1.0, the wire protocol botocore (>= 1.34.90) and current SDKs speak to SQS.

Request: ``POST``, ``X-Amz-Target: AmazonSQS.<Operation>``, the parameters as a JSON body.
Answer: the response parameters as JSON; an error is ``{"__type": "com.amazonaws.sqs#<Shape>",
"message": ...}`` with the legacy code in the ``x-amzn-query-error`` header (SQS is
query-compatible: SDKs show that code as ``Error.Code``).
"""

from __future__ import annotations

import json
import json.encoder
from typing import Any

from .._errors import SqsError
from .validate import MAX_NESTING, nested_too_deep

__all__ = [
    "JSON_CONTENT_TYPE",
    "TARGET_PREFIX",
    "decode_json",
    "error_payload",
    "json_body",
    "query_error_header",
]

JSON_CONTENT_TYPE = "application/x-amz-json-1.0"
TARGET_PREFIX = "AmazonSQS."

# ASCII escapes: text with lone surrogates (quoted in an error message) still encodes.
_ENCODER = json.JSONEncoder(separators=(",", ":"))
_dumps = _ENCODER.encode
# The C encoder ``_dumps`` builds on every call (where the accelerator is there).
_MAKE_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)
_ESCAPE: Any = json.encoder.encode_basestring_ascii
# ``json.loads`` of text, without its checks for bytes and keyword arguments (a leading BOM is
# refused all the same: no JSON value starts with one).
_DECODER = json.JSONDecoder()
_loads = _DECODER.decode
# What ``_loads`` calls for a document with no white space around it -- every SDK's body: the
# scanner itself, without the two white-space matches ``decode`` does around it.
_scan: Any = getattr(_DECODER, "scan_once")  # noqa: B009 (typeshed does not declare it)


def _dumps_payload(payload: dict[str, Any]) -> str:
    """``_dumps(payload)``: the same C encoder with the same settings and a fresh check for
    circular references, without the Python set-up ``encode`` does around it on every call."""
    if _MAKE_ENCODER is None:
        return _dumps(payload)
    encoder = _MAKE_ENCODER({}, _ENCODER.default, _ESCAPE, None, ":", ",", False, False, True)
    return "".join(encoder(payload, 0))


def error_payload(error: SqsError) -> dict[str, str]:
    return {"__type": f"com.amazonaws.sqs#{error.shape}", "message": error.message}


def query_error_header(error: SqsError) -> str:
    return f"{error.code};{'Sender' if error.status < 500 else 'Receiver'}"


def json_body(result: Any) -> bytes:
    """The JSON body of a ``Result``."""
    if result.error is not None:
        return _dumps(error_payload(result.error)).encode("utf-8")
    return _dumps_payload(result.payload or {}).encode("utf-8")


def decode_json(body: bytes) -> dict[str, Any]:
    """The request parameters of a JSON body; an empty body is no parameters.

    The body must be UTF-8, the one encoding of the wire format (``json.loads`` would also take
    UTF-16 and UTF-32), and nest at most ``MAX_NESTING`` levels; a number past Python's digit
    limit for integers is malformed too. All of these are refused before any call is made.
    """
    if not body or body.isspace():  # ``not body.strip()``, without copying the body
        return {}
    try:
        text = body.decode("utf-8")
        if text[:1] == "{" and text[-1:] == "}":
            parsed, end = _scan(text, 0)
            if end != len(text):  # more after the object: what ``_loads`` says of it
                parsed = _loads(text)
        else:
            parsed = _loads(text)
    except (ValueError, RecursionError, StopIteration):  # UnicodeDecodeError is a ValueError
        raise SqsError("InvalidJsonBody") from None
    if not isinstance(parsed, dict):
        raise SqsError("InvalidJsonBody")
    # Deep nesting needs as many brackets: most bodies are spared the walk.
    if body.count(b"[") + body.count(b"{") > MAX_NESTING and nested_too_deep(parsed):
        raise SqsError("InvalidJsonBody")
    return parsed
