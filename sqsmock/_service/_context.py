"""What a handler knows about the call: the backend, the caller's region and account."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._engine import Backend, Queue
from .._errors import SqsError

__all__ = ["Call", "split_queue_url"]


def split_queue_url(url: str, default_account: str) -> tuple[str, str]:
    """``(account, name)`` from a queue URL or a bare queue name; the host is ignored."""
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


@dataclass
class Call:
    backend: Backend
    region: str
    account: str
    headers: Mapping[str, str]

    def queue(self, request: Mapping[str, Any]) -> Queue:
        """The queue named by the request's ``QueueUrl`` (a URL or a bare name)."""
        url = request.get("QueueUrl")
        if not url or not isinstance(url, str):
            raise SqsError("MissingParameter", name="QueueUrl")
        account, name = split_queue_url(url, self.account)
        return self.backend.get(self.region, account, name)

    def header(self, name: str) -> str | None:
        """A request header, whatever its case."""
        value = self.headers.get(name)
        if value is None:
            lowered = name.lower()
            for key, candidate in self.headers.items():
                if key.lower() == lowered:
                    return str(candidate)
        return None if value is None else str(value)

    @property
    def now(self) -> float:
        return self.backend.clock.now()
