"""A recorded call as a test reads it: ``RecordedCall``, a page of them, and the copies.

The call journal (``journal.py``) keeps each call as a plain tuple, the cheapest thing to build
on the call path, and turns it into a ``RecordedCall`` only when a test reads it. Reading hands
out copies (``snapshot``: the dicts and lists copied, the strings shared), so nothing a test
does to a record reaches the mock. The form a test reads lives here, apart from the recording.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .._protocol.native import copy_containers
from .._service.addresses import split_queue_url

__all__ = ["CallPage", "RecordedCall", "queue_name", "snapshot"]


#: A copy of a value's dicts and lists, its strings and numbers shared (the same copy the
#: in-process answers are handed out as).
snapshot = copy_containers


class RecordedCall:
    """One answered call.

    ``operation``; ``params`` and ``response`` in the JSON-wire form (AWS JSON 1.0: the names
    boto3 uses, binary values as base64 text); ``error`` -- the error code as the SDK shows it
    (``Error.Code``), None on success -- and ``status``; ``region``, ``account``; ``time`` on the
    mock's clock when the call arrived; ``injected``: answered by fault injection; ``size``: the
    request's size in characters of its strings, as sent; ``truncated``: the request (or, for an
    entry larger than the journal's byte limit, the answer too) is kept cut short: long strings
    to their first characters, long lists and dicts to their first items; ``omitted``: how many
    list items and dict entries that left out (0 when none).
    """

    __slots__ = (
        "_params",
        "_response",
        "account",
        "error",
        "injected",
        "omitted",
        "operation",
        "region",
        "request_id",
        "size",
        "status",
        "time",
        "truncated",
    )

    def __init__(
        self,
        operation: str,
        params: Mapping[str, Any],
        response: Mapping[str, Any] | None,
        error: str | None,
        status: int,
        region: str,
        account: str,
        time: float,
        request_id: str,
        injected: bool,
        size: int = 0,
        truncated: bool = False,
        omitted: int = 0,
    ) -> None:
        self.operation = operation
        self._params = params
        self._response = response
        self.error = error
        self.status = status
        self.region = region
        self.account = account
        self.time = time
        self.request_id = request_id
        self.injected = injected
        self.size = size
        self.truncated = truncated
        self.omitted = omitted

    @property
    def params(self) -> dict[str, Any]:
        """The request parameters (a copy)."""
        return snapshot(self._params)  # type: ignore[no-any-return]

    @property
    def response(self) -> dict[str, Any] | None:
        """The answer's parameters (a copy); None when the call failed."""
        return None if self._response is None else snapshot(self._response)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def queue(self) -> str | None:
        """The name of the queue the call named (``QueueUrl`` or ``QueueName``), if any."""
        return queue_name(self._params)

    def __repr__(self) -> str:
        outcome = self.error or "ok"
        queue = self.queue
        where = f" {queue}" if queue else ""
        cut = f" truncated from {self.size}" if self.truncated else ""
        if self.omitted:
            cut += f", {self.omitted} items omitted"
        return f"<RecordedCall {self.operation}{where} {outcome} t={self.time:.3f}{cut}>"


def queue_name(params: Mapping[str, Any]) -> str | None:
    """The queue a request names, by name: from ``QueueUrl`` (URL or name) or ``QueueName``."""
    url = params.get("QueueUrl")
    if isinstance(url, str) and url:
        return split_queue_url(url)[2]
    name = params.get("QueueName")
    return name if isinstance(name, str) else None


class CallPage(NamedTuple):
    """One page of the journal: its calls, oldest first, and the token of the next page (None
    when this page reached the newest call)."""

    calls: list[RecordedCall]
    next_token: str | None
