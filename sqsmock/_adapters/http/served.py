"""What the route modules need of the server: ``Served``, which ``server.SqsHttpServer`` is.

The SQS endpoint (``sqs``), the admin API (``admin``), the metrics page (``metrics``) and
LocalStack's routes (``localstack``) are handed the server that routes to them; they know it by
this protocol, so none of them imports the server module that imports them. The call counters
the SQS endpoint keeps and the metrics page reads (``Metrics``) live here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..._service import ACTIONS

if TYPE_CHECKING:
    from ..._runtime import Runtime
    from ..._service.addresses import QueueUrls
    from .localstack_mode import LocalStackMode

__all__ = ["Metrics", "Served"]


class Metrics:
    """Counters for ``GET /_sqsmock/metrics``: calls by operation and outcome."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = {}

    def count(self, operation: str, outcome: str) -> None:
        key = (operation if operation in ACTIONS else "unknown", outcome)
        calls = self.calls
        calls[key] = calls.get(key, 0) + 1


class Served(Protocol):
    """The server as its routes see it."""

    #: The activation calls run against.
    runtime: Runtime
    #: LocalStack's surface (``--localstack``), if on.
    localstack: LocalStackMode | None
    #: ElasticMQ mode: every caller reaches one region and account, the server's.
    elasticmq: bool
    #: Seconds a request body may take to arrive.
    read_timeout: float
    #: Bytes a request body may hold.
    body_limit: int
    #: Calls answered, by operation and outcome.
    metrics: Metrics

    def urls(self, host: str | None) -> QueueUrls:
        """Queue URLs as the client sees the server."""
        ...
