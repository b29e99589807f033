"""The aiobotocore adapter: the botocore adapter's hook, awaited, on every aiobotocore SQS client.

aiobotocore's ``AioBaseClient`` overrides ``_make_api_call`` and ``_convert_to_request_dict``
with coroutines (aioboto3 clients and resources are ``AioBaseClient``\\ s too), so the botocore
adapter's class-level wrappers never run for them. While a mock is active this module wraps
those two coroutines the same way, at class level -- every client is covered, created before or
after the mock started, before or after sqsmock was imported:

* ``_make_api_call`` gives an SQS client's event emitter our ``before-call`` handler (once per
  client) and runs aiobotocore's normal path;
* ``_convert_to_request_dict`` validates without serializing, exactly as for botocore;
* the handler returns a coroutine, which aiobotocore's emitter awaits: it awaits
  ``Runtime.call_async``, so a long poll waits without blocking the event loop (a send from
  another task or thread wakes it at once; on a frozen clock it jumps time). Its answer is the
  botocore adapter's ``(http, parsed)``, with an http response whose ``content`` is awaitable
  as aiobotocore's are. aiobotocore then skips signing and sending, emits ``after-call`` and
  raises the modeled error classes itself.

Imported only when aiobotocore is (see ``_active``); sqsmock does not require aiobotocore.
Supported: aiobotocore 2.x (from 2.13, the first on botocore >= 1.34.90) and 3.x.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any

from aiobotocore.awsrequest import AioAWSResponse
from aiobotocore.client import AioBaseClient
from botocore.model import OperationModel

from .._protocol import Result
from .._runtime import Runtime
from . import botocore as sync
from ._active import stack

__all__ = ["AioSqsHttpResponse", "install", "uninstall"]


class AioSqsHttpResponse(sync.SqsHttpResponse, AioAWSResponse):  # type: ignore[misc]
    """The HTTP side of an answer, read as aiobotocore reads its own: ``await http.content``."""

    @property
    def content(self) -> Any:
        return _ready(self.body())

    @property
    def text(self) -> Any:
        return _ready(self.body().decode("utf-8"))


async def _ready(value: Any) -> Any:
    return value


async def answer_async(
    runtime: Runtime, model: OperationModel, request_dict: Any, context: Any, validated: bool
) -> tuple[Any, Any] | None:
    backend = runtime.backend_or_none
    if backend is None:  # stopped while the call was being made
        return None
    clock = backend.clock
    call = sync.prepare(runtime, model, request_dict, context, validated)
    if isinstance(call, Result):
        result = call
    else:
        result = await runtime.call_async(model.name, *call)
    url = str(request_dict.get("url") or "")
    return sync.render(model, result, clock.now(), url, AioSqsHttpResponse)


def _before_call(
    validated: bool, model: Any, params: Any, context: Any, **_: Any
) -> Coroutine[Any, Any, tuple[Any, Any] | None] | None:
    runtime = stack[-1] if stack else None
    if runtime is None:
        return None
    return answer_async(runtime, model, params, context, validated)


async def _make_api_call(self: Any, operation_name: str, api_params: Any) -> Any:
    if stack and not sync.hooked(self):
        sync.hook(self, _before_call)
    return await _ORIGINAL(self, operation_name, api_params)


async def _convert_to_request_dict(
    self: Any,
    api_params: Any,
    operation_model: Any,
    endpoint_url: Any,
    context: Any = None,
    headers: Any = None,
    set_user_agent_header: bool = True,
) -> Any:
    if not sync.answers(self, context):
        assert _ORIGINAL_CONVERT is not None  # installed only then
        return await _ORIGINAL_CONVERT(
            self, api_params, operation_model, endpoint_url, context, headers, set_user_agent_header
        )
    return sync.unserialized_request(
        self, api_params, operation_model, endpoint_url, context, headers
    )


_CLASS = AioBaseClient
#: aiobotocore's own coroutines, kept for the lifetime of the process.
_ORIGINAL: Callable[..., Any] = _CLASS._make_api_call
#: aiobotocore defines its own (a coroutine) in every supported version; should one inherit
#: botocore's, the botocore adapter's wrapper covers it.
_ORIGINAL_CONVERT: Callable[..., Any] | None = (
    vars(_CLASS).get("_convert_to_request_dict")
    if inspect.iscoroutinefunction(vars(_CLASS).get("_convert_to_request_dict"))
    else None
)


def install() -> None:
    if _CLASS._make_api_call is not _make_api_call:
        _CLASS._make_api_call = _make_api_call
        if _ORIGINAL_CONVERT is not None:
            _CLASS._convert_to_request_dict = _convert_to_request_dict


def uninstall() -> None:
    if _CLASS._make_api_call is _make_api_call:
        _CLASS._make_api_call = _ORIGINAL
        if _ORIGINAL_CONVERT is not None:
            _CLASS._convert_to_request_dict = _ORIGINAL_CONVERT
