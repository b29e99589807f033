"""SNS in-process: a ``before-call`` handler on every SNS client, answering while the innermost
active mock asks for SNS (``mock_sqs(sns=True)``); otherwise it stands aside, and whatever else
answers SNS (moto's ``mock_aws``) does.

botocore has serialized the request by ``before-call`` (SNS speaks the query protocol: the body
is still the form as a dict), so the call is decoded from that form as the server decodes it,
and its XML answer is parsed by botocore's own query parser: both ways give the same answer.
Errors come back as botocore expects them, so it raises the modeled exception itself.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from botocore.awsrequest import AWSResponse
from botocore.parsers import create_parser

from ..._errors import SqsError
from ..._protocol import Call, Result, sns
from .._stack import stack

__all__ = ["before_call"]

_PARSER = create_parser("query")


class _Raw:
    """The raw side of the answer, for anyone who reads ``http.raw`` / ``http.content``."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Any:
        yield self._body


def before_call(model: Any, params: Any, context: Any, **_: Any) -> Any:
    runtime = stack[-1] if stack else None
    if runtime is None or not runtime.sns:
        return None
    backend = runtime.backend_or_none
    if backend is None:
        return None
    body = params.get("body")
    if isinstance(body, dict):
        pairs = [(str(k), str(v)) for k, v in body.items()]
    else:
        text = body.decode() if isinstance(body, bytes) else str(body or "")
        pairs = parse_qsl(text, keep_blank_values=True)
    caller = Call(
        context.get("client_region") or runtime.region,
        runtime.account,
        params.get("headers") or {},
    )
    try:
        operation, decoded = sns.decode(pairs)
    except SqsError as error:
        result = Result.of_error(model.name, error)
    else:
        result = runtime.call_sns(operation, decoded, caller)
    document = sns.render(result)
    headers = {"x-amzn-requestid": result.request_id, "content-type": sns.CONTENT_TYPE}
    url = str(params.get("url") or "")
    http = AWSResponse(url, result.status, headers, _Raw(document))
    parsed = _PARSER.parse(
        {"body": document, "headers": headers, "status_code": result.status},
        model.output_shape,
    )
    return http, parsed
