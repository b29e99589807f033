"""What a handler knows about the call: the backend, the caller's region and account."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._engine import Backend, Queue
from .._errors import SqsError

__all__ = ["Call", "split_queue_url"]


_SPLIT_CACHE: dict[tuple[str, str], tuple[str, str]] = {}


def split_queue_url(url: str, default_account: str) -> tuple[str, str]:
    """``(account, name)`` from a queue URL or a bare queue name; the host is ignored.

    Every call names its queue, usually by the same few URLs: answers are memoised.
    """
    key = (url, default_account)
    found = _SPLIT_CACHE.get(key)
    if found is None:
        if len(_SPLIT_CACHE) > 4096:
            _SPLIT_CACHE.clear()
        found = _SPLIT_CACHE[key] = _split(url, default_account)
    return found


def _split(url: str, default_account: str) -> tuple[str, str]:
    if "://" in url:
        url = url.split("://", 1)[1]
        url = url.split("/", 1)[1] if "/" in url else ""
    url = url.split("?", 1)[0]
    parts = [p for p in url.split("/") if p]
    if not parts:
        return default_account, ""
    if len(parts) == 1:
        return default_account, parts[0]
    return parts[-2], parts[-1]


class Call:
    __slots__ = ("account", "backend", "headers", "region")

    def __init__(
        self, backend: Backend, region: str, account: str, headers: Mapping[str, str]
    ) -> None:
        self.backend = backend
        self.region = region
        self.account = account
        self.headers = headers

    def queue(self, request: Mapping[str, Any]) -> Queue:
        """The queue named by the request's ``QueueUrl`` (a URL or a bare name)."""
        url = request.get("QueueUrl")
        if not url or not isinstance(url, str):
            raise SqsError("MissingParameter", name="QueueUrl")
        account, name = split_queue_url(url, self.account)
        queue = self.backend.get(self.region, account, name)
        if queue.stale:  # a write failed earlier: read what the store holds
            queue.settle()
        return queue

    def header(self, name: str) -> str | None:
        """A request header, whatever its case."""
        headers = self.headers
        value = headers.get(name)
        if value is None and headers:
            lowered = name.lower()
            value = headers.get(lowered)
            if value is None:
                for key, candidate in headers.items():
                    if key.lower() == lowered:
                        return str(candidate)
        return None if value is None else str(value)
