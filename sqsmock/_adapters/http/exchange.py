"""What every route of the HTTP adapter does with aiohttp: read the request, build the answer.

Kept in one place so that the SQS endpoint, the admin API and LocalStack's routes read bodies
and answer alike: the request as the protocol layer sees it before its body is read, the
``100 Continue`` a client may wait for, a rendered SQS answer, a JSON document.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web
from aiohttp.web_request import BaseRequest

from ..._protocol.http import HttpAnswer, HttpRequest

__all__ = ["expect_continue", "json_answer", "request_of", "sqs_answer"]


def request_of(request: BaseRequest) -> HttpRequest:
    """The request as the protocol layer sees it, before its body is read."""
    return HttpRequest(request.method, request.path, [], request.headers, b"")


async def expect_continue(request: BaseRequest) -> None:
    """Answer ``Expect: 100-continue`` (curl sends it for bodies over 1 KiB) before reading:
    the client then sends the body at once instead of after a pause of its own."""
    if request.version >= (1, 1) and request.headers.get("Expect", "").lower() == "100-continue":
        await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        request.writer.output_size = 0  # the answer proper is still to come


def sqs_answer(answer: HttpAnswer) -> web.Response:
    """An answer the protocol layer rendered."""
    return web.Response(status=answer.status, body=answer.body, headers=answer.headers)


def json_answer(value: Any, status: int = 200, **headers: str) -> web.Response:
    """A JSON document: what the admin API and LocalStack's routes answer."""
    return web.Response(
        status=status,
        body=json.dumps(value).encode("utf-8"),
        content_type="application/json",
        headers=headers or None,
    )
