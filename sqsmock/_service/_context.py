"""What a handler knows about the call: the backend, the caller's region and account, and how
queue URLs look to the caller (``addresses``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._engine import Backend, Queue
from .._errors import SqsError
from .addresses import AWS_URLS, QueueUrls

__all__ = ["Call"]


class Call:
    """One SQS call as its handler sees it: who calls (region, account), the request headers,
    how queue URLs look where it came in, and the backend that answers it.

    An adapter makes one per request from what it knows of the caller; the protocol layer
    binds the backend (``_protocol.start``) before the handler runs.
    """

    __slots__ = ("account", "backend", "elasticmq_conf", "headers", "region", "unshared", "urls")

    backend: Backend

    def __init__(
        self,
        region: str,
        account: str,
        headers: Mapping[str, str] | None = None,
        urls: QueueUrls = AWS_URLS,
        backend: Backend | None = None,
        unshared: bool = False,
        elasticmq_conf: bool = False,
    ) -> None:
        self.region = region
        self.account = account
        self.headers: Mapping[str, str] = headers if headers is not None else {}
        self.urls = urls
        if backend is not None:
            self.backend = backend
        #: The request's parameters and its answer are objects nobody but sqsmock holds (a
        #: request read off the wire, an answer rendered to bytes): the call journal may keep
        #: them as they are for a while before it writes them out.
        self.unshared = unshared
        #: The call makes a queue an ElasticMQ configuration file declares: ElasticMQ's rules
        #: hold (a FIFO queue's name need not end in ``.fifo``, its dead-letter queue may be
        #: standard), as ElasticMQ applies them to its file and not to its API.
        self.elasticmq_conf = elasticmq_conf

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
        if value is None and headers:  # the last header of that name in any case, if any
            folded = name.lower()
            for key, item in headers.items():
                if key.lower() == folded:
                    value = item
        return None if value is None else str(value)
