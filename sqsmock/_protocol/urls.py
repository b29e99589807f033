"""Queue URLs the server gives out: its own form, a fixed public base, or LocalStack's.

``ServerUrls`` (in ``http.py``) follows each request's ``Host``: ``<base>/queue/<region>/<account>
/<name>``. Behind a port mapping or a proxy the Host a client used is not the one other clients
can reach, so ``--public-url`` fixes the base. In LocalStack mode the URLs take the form its
``SQS_ENDPOINT_STRATEGY`` chooses:

- ``standard`` (LocalStack's default): ``http://sqs.<region>.localhost.localstack.cloud:4566/<account>/<name>``
- ``domain``: ``http://<region>.queue.localhost.localstack.cloud:4566/<account>/<name>``
  (no region part for us-east-1)
- ``path``: ``http://<host>/queue/<region>/<account>/<name>``
- ``dynamic``: ``http://<host>/<account>/<name>``, the host the request used

``LOCALSTACK_HOST`` (``host[:port]``) replaces ``localhost.localstack.cloud:<port>``. Every form is
read back as input in every mode (``_service.addresses.split_queue_url``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .._service.addresses import split_queue_url

__all__ = ["LOCALSTACK_DOMAIN", "STRATEGIES", "LocalStackUrls", "check_public_url"]

STRATEGIES = ("standard", "domain", "path", "dynamic")
#: The name LocalStack's URLs use; it and every subdomain resolve to 127.0.0.1.
LOCALSTACK_DOMAIN = "localhost.localstack.cloud"


class LocalStackUrls:
    """Queue URLs in one of LocalStack's forms."""

    def __init__(self, strategy: str, scheme: str, host: str, request_host: str) -> None:
        self.strategy = strategy
        self.scheme = scheme
        #: ``host:port`` of the standard and domain forms.
        self.host = host
        #: ``host:port`` the request used (path and dynamic forms).
        self.request_host = request_host

    def make(self, region: str, account: str, name: str) -> str:
        strategy = self.strategy
        if strategy == "standard":
            return f"{self.scheme}://sqs.{region}.{self.host}/{account}/{name}"
        if strategy == "domain":
            prefix = "" if region == "us-east-1" else f"{region}."
            return f"{self.scheme}://{prefix}queue.{self.host}/{account}/{name}"
        if strategy == "path":
            return f"{self.scheme}://{self.request_host}/queue/{region}/{account}/{name}"
        return f"{self.scheme}://{self.request_host}/{account}/{name}"

    def split(self, url: str) -> tuple[str | None, str | None, str]:
        return split_queue_url(url)


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
