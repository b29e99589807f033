"""The protocol layer: SQS calls in, answers out, with no SDK in it.

Every call comes through here, by way of the runtime: the botocore hook with an operation name
and the parameters botocore already validated (``call``), an async client the same way
(``call_async``), the HTTP server with a raw request decoded by ``http.parse`` (AWS JSON 1.0 or
the query protocol, chosen per request). The answer is a ``Result``: the status and the
JSON-wire payload or the ``SqsError``, which each adapter renders for its caller -- a parsed dict
in-process (``native.from_wire``), JSON or XML bytes over HTTP (``http.render``: ``wire``,
``query``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .._engine import Backend
from .._errors import SqsError
from .._service import AWS_URLS, QueueUrls, Request, Response, execute, execute_async
from .._service import Call as _Call

__all__ = ["Caller", "Result", "call", "call_async", "request_id"]


def request_id() -> str:
    """A fresh request id in the UUID form SQS uses (cheaper than ``uuid.uuid4``)."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class Caller:
    """Who is calling: region, account, request headers, and how queue URLs look to them."""

    __slots__ = ("account", "headers", "region", "urls")

    def __init__(
        self,
        region: str,
        account: str,
        headers: Mapping[str, str] | None = None,
        urls: QueueUrls = AWS_URLS,
    ) -> None:
        self.region = region
        self.account = account
        self.headers: Mapping[str, str] = headers if headers is not None else {}
        self.urls = urls


class Result:
    """One answered call: ``payload`` (JSON-wire form) on success, else ``error``."""

    __slots__ = ("error", "operation", "payload", "request_id", "status")

    def __init__(
        self,
        operation: str,
        status: int,
        payload: Response | None,
        error: SqsError | None,
    ) -> None:
        self.operation = operation
        self.status = status
        self.payload = payload
        self.error = error
        self.request_id = request_id()

    @classmethod
    def of_error(cls, operation: str, error: SqsError) -> Result:
        return cls(operation, error.status, None, error)

    def __repr__(self) -> str:
        outcome = self.error.code if self.error is not None else "ok"
        return f"<Result {self.operation} {self.status} {outcome}>"


def call(backend: Backend, operation: str, params: Request, caller: Caller) -> Result:
    """Run one SQS call (a long poll blocks this thread until it has its answer)."""
    context = _Call(backend, caller.region, caller.account, caller.headers, caller.urls)
    try:
        payload = execute(context, operation, params)
    except SqsError as error:
        return Result.of_error(operation, error)
    return Result(operation, 200, payload, None)


async def call_async(
    backend: Backend, operation: str, params: Request, caller: Caller, run: Any = None
) -> Result:
    """Run one SQS call; a long poll awaits without blocking the event loop.

    ``run``: how to run an engine call off the loop, for engines that do blocking I/O (a store).
    """
    context = _Call(backend, caller.region, caller.account, caller.headers, caller.urls)
    try:
        payload = await execute_async(context, operation, params, run)
    except SqsError as error:
        return Result.of_error(operation, error)
    return Result(operation, 200, payload, None)
