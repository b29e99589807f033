"""What a handler knows about the call: the backend, the caller's region and account, and how
queue URLs look to the caller."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .._engine import Backend, Queue
from .._errors import SqsError
from .._regions import is_region

__all__ = ["AWS_URLS", "Call", "QueueUrls"]


class QueueUrls(Protocol):
    """How queue URLs look where the request came in: the layer that knows the endpoint makes
    them (AWS's own hosts in-process, the server's address in server mode)."""

    def make(self, region: str, account: str, name: str) -> str: ...

    def split(self, url: str) -> tuple[str | None, str | None, str]:
        """``(region or None, account or None, name)`` of a queue URL or a bare name."""
        ...


_SPLIT_CACHE: dict[str, tuple[str | None, str | None, str]] = {}


def split_path(url: str) -> tuple[str | None, str | None, str]:
    """``(region, account, name)`` from a queue URL's path or a bare queue name; the host is
    ignored (users point clients at many hosts). The region is known only from the server's
    ``/queue/<region>/<account>/<name>`` form and LocalStack's host names
    (``sqs.<region>.localhost.localstack.cloud``); ElasticMQ's ``/<account>/<name>`` and
    ``/queue/<name>`` name the caller's region.

    Every call names its queue, usually by the same few URLs: answers are memoised.
    """
    found = _SPLIT_CACHE.get(url)
    if found is None:
        if len(_SPLIT_CACHE) > 4096:
            _SPLIT_CACHE.clear()
        found = _SPLIT_CACHE[url] = _split(url)
    return found


def _split(url: str) -> tuple[str | None, str | None, str]:
    host_region = None
    if "://" in url:
        url = url.split("://", 1)[1]
        host, _, url = url.partition("/")
        host_region = _localstack_region(host)
    url = url.split("?", 1)[0]
    parts = [p for p in url.split("/") if p]
    if not parts:
        return None, None, ""
    if len(parts) == 1:
        return host_region, None, parts[0]
    if len(parts) == 2 and parts[0] == "queue":  # ElasticMQ's older form, /queue/<name>
        return host_region, None, parts[1]
    if len(parts) >= 4 and parts[-4] == "queue":
        return parts[-3], parts[-2], parts[-1]
    return host_region, parts[-2], parts[-1]


def _localstack_region(host: str) -> str | None:
    """The region in a LocalStack queue URL's host name: ``sqs.<region>.localhost.localstack
    .cloud`` (its standard form), ``<region>.queue.localhost.localstack.cloud`` and
    ``queue.localhost.localstack.cloud`` (us-east-1) (its domain form)."""
    if "localstack" not in host:
        return None
    labels = host.split(":", 1)[0].split(".")
    if len(labels) > 2 and labels[0] == "sqs" and is_region(labels[1]):
        return labels[1]
    if len(labels) > 2 and labels[1] == "queue" and is_region(labels[0]):
        return labels[0]
    if labels[0] == "queue":
        return "us-east-1"
    return None


class _AwsUrls:
    """Queue URLs as AWS makes them: ``https://sqs.<region>.amazonaws.com/<account>/<name>``."""

    def make(self, region: str, account: str, name: str) -> str:
        return f"https://sqs.{region}.amazonaws.com/{account}/{name}"

    def split(self, url: str) -> tuple[str | None, str | None, str]:
        return split_path(url)


AWS_URLS: QueueUrls = _AwsUrls()


class Call:
    """One SQS call as its handler sees it: who calls (region, account), the request headers,
    how queue URLs look where it came in, and the backend that answers it.

    An adapter makes one per request from what it knows of the caller; the protocol layer
    binds the backend (``_protocol.start``) before the handler runs.
    """

    __slots__ = ("account", "backend", "headers", "region", "urls")

    backend: Backend

    def __init__(
        self,
        region: str,
        account: str,
        headers: Mapping[str, str] | None = None,
        urls: QueueUrls = AWS_URLS,
        backend: Backend | None = None,
    ) -> None:
        self.region = region
        self.account = account
        self.headers: Mapping[str, str] = headers if headers is not None else {}
        self.urls = urls
        if backend is not None:
            self.backend = backend

    def url(self, queue: Queue) -> str:
        return self.urls.make(queue.region, queue.account, queue.name)

    def queue(self, request: Mapping[str, Any]) -> Queue:
        """The queue named by the request's ``QueueUrl`` (a URL or a bare name)."""
        url = request.get("QueueUrl")
        if not url or not isinstance(url, str):
            raise SqsError("MissingParameter", name="QueueUrl")
        region, account, name = self.urls.split(url)
        queue = self.backend.get(region or self.region, account or self.account, name)
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
