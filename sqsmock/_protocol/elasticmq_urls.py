"""Queue URLs in ElasticMQ's form, for ElasticMQ mode: ``<base>/<account>/<name>``.

ElasticMQ builds every queue URL from its ``node-address`` (``protocol://host:port`` and an
optional context path) and its account, and finds a queue by its name alone: the account in a
URL, and any region a client signs with, name no place (ElasticMQ has one namespace). So a URL
is read back as its name only, and the caller's region and account, which ElasticMQ mode sets
to the server's, say where the queue lives.
"""

from __future__ import annotations

from .._service.addresses import split_queue_url

__all__ = ["ElasticMqUrls"]


class ElasticMqUrls:
    """Queue URLs as ElasticMQ makes them, on ``base`` (its node address, or the request's)."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    def make(self, region: str, account: str, name: str) -> str:
        return f"{self.base}/{account}/{name}"

    def split(self, url: str) -> tuple[str | None, str | None, str]:
        return None, None, split_queue_url(url)[2]
