"""Queue URLs the server gives out: its own form, a fixed public base, or LocalStack's.

``ServerUrls`` (in ``http.py``) follows each request's ``Host``: ``<base>/queue/<region>/<account>
/<name>``. Behind a port mapping or a proxy the Host a client used is not the one other clients
can reach, so ``--public-url`` fixes the base. In LocalStack mode the URLs take the form its
``SQS_ENDPOINT_STRATEGY`` chooses, built as LocalStack's SQS builds them (``SqsQueue.url``), from
``LOCALSTACK_HOST`` (``<host>`` below; ``localhost.localstack.cloud:<port>`` unless set):

- ``standard`` (LocalStack's default): ``http://sqs.<region>.<host>/<account>/<name>``
- ``domain``: ``http://<region>.queue.<host>/<account>/<name>`` (no region part for us-east-1)
- ``path``: ``http://<host>/queue/<region>/<account>/<name>``
- ``off``: ``http://<host>/<account>/<name>``
- ``dynamic``: the form the request's host suggests, with the rest of that host: ``sqs.*`` the
  standard form, ``queue.*`` and ``<region>.queue.*`` the domain form, any other host (such as
  ``localhost:4566``) the path form on that host.

Every form is read back as input in every mode (``_service.addresses.split_queue_url``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .._service.addresses import split_queue_url

__all__ = ["LOCALSTACK_DOMAIN", "STRATEGIES", "LocalStackUrls", "check_public_url"]

STRATEGIES = ("standard", "domain", "path", "dynamic", "off")
#: The name LocalStack's URLs use; it and every subdomain resolve to 127.0.0.1.
LOCALSTACK_DOMAIN = "localhost.localstack.cloud"


class LocalStackUrls:
    """Queue URLs in one of LocalStack's forms."""

    def __init__(self, strategy: str, scheme: str, host: str, request_host: str) -> None:
        self.strategy = strategy
        self.scheme = scheme
        #: ``host:port`` of every form but ``dynamic`` (``LOCALSTACK_HOST``).
        self.host = host
        #: ``host:port`` the request used (the ``dynamic`` form).
        self.request_host = request_host

    def make(self, region: str, account: str, name: str) -> str:
        strategy, host = self.strategy, self.host
        if strategy == "dynamic":
            strategy, host = guess_strategy(self.request_host)
        if strategy == "standard":
            return f"{self.scheme}://sqs.{region}.{host}/{account}/{name}"
        if strategy == "domain":
            prefix = "" if region == "us-east-1" else f"{region}."
            return f"{self.scheme}://{prefix}queue.{host}/{account}/{name}"
        if strategy == "path":
            return f"{self.scheme}://{host}/queue/{region}/{account}/{name}"
        return f"{self.scheme}://{host}/{account}/{name}"

    def split(self, url: str) -> tuple[str | None, str | None, str]:
        return split_queue_url(url)


def guess_strategy(host: str) -> tuple[str, str]:
    """The ``dynamic`` strategy: the form a request's host suggests, and the host that form is
    built on (LocalStack's ``guess_endpoint_strategy_and_host``)."""
    parts = host.split(".")
    if host.startswith("sqs."):
        return "standard", ".".join(parts[2:])
    if host.startswith("queue."):
        return "domain", ".".join(parts[1:])
    if len(parts) > 2 and parts[1] == "queue":
        return "domain", ".".join(parts[2:])
    return "path", host


def check_public_url(url: str) -> str:
    """A ``--public-url``: ``http(s)://host[:port]`` with no path, query or credentials;
    returned without a trailing slash. ValueError otherwise."""
    parts = urlsplit(url)
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path.strip("/")
        or parts.query
        or parts.fragment
        or parts.username
    ):
        raise ValueError(
            f"public URL must look like http://host:port (scheme, host, optional port), not {url!r}"
        )
    try:
        parts.port  # noqa: B018 - validates the port
    except ValueError:
        raise ValueError(f"public URL has a bad port: {url!r}") from None
    return f"{parts.scheme}://{parts.netloc}"
