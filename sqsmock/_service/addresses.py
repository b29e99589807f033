"""Queue URLs and ARNs: how they are made and read, for everyone who parses them.

A queue URL's form depends on where the request came in (AWS's hosts in process, the server's
own address, ElasticMQ's and LocalStack's forms): the layer that knows the endpoint makes them
through a ``QueueUrls``; every form is read back by ``split_queue_url``. ARNs are the engine's
(``arn:aws:sqs:<region>:<account>:<name>``): ``queue_arn`` and ``split_arn`` come from there.
"""

from __future__ import annotations

from typing import Protocol

from .._engine.arns import queue_arn, split_arn
from .._regions import is_region

__all__ = ["AWS_URLS", "QueueUrls", "queue_arn", "split_arn", "split_queue_url"]


class QueueUrls(Protocol):
    """How queue URLs look where the request came in: the layer that knows the endpoint makes
    them (AWS's own hosts in-process, the server's address in server mode)."""

    def make(self, region: str, account: str, name: str) -> str: ...

    def split(self, url: str) -> tuple[str | None, str | None, str]:
        """``(region or None, account or None, name)`` of a queue URL or a bare name."""
        ...


_SPLIT_CACHE: dict[str, tuple[str | None, str | None, str]] = {}


def split_queue_url(url: str) -> tuple[str | None, str | None, str]:
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
        return split_queue_url(url)


AWS_URLS: QueueUrls = _AwsUrls()
