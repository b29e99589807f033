"""The options of ``serve()`` and ``sqsmock serve``: the mock's, plus where and how to listen.

Apart from ``_options`` because its checks are the HTTP side's (host names a server answers for,
web origins, LocalStack's surface), which the runtime below must not import.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._options import BY_DEFAULT, DEFAULT_ACCOUNT, StateOptions, about

if TYPE_CHECKING:
    from ._adapters.http.localstack_mode import LocalStackMode

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "LOCALSTACK_PORT", "ServerOptions"]

#: ElasticMQ's port, so that its users can switch without changing their configuration.
DEFAULT_PORT = 9324
#: ElasticMQ's default account (its ``aws.accountId``).
ELASTICMQ_ACCOUNT = "000000000000"
DEFAULT_HOST = "127.0.0.1"
#: Seconds a request body may take to arrive; a connection may idle between requests.
READ_TIMEOUT = 30.0
IDLE_TIMEOUT = 75.0

#: LocalStack's default account and port.
LOCALSTACK_ACCOUNT = "000000000000"
LOCALSTACK_PORT = 4566


@dataclass(frozen=True, kw_only=True)
class ServerOptions(StateOptions):
    """The options of an sqsmock HTTP server."""

    account_id: str = field(
        default=BY_DEFAULT,
        metadata=about(
            f"the default account, 12 digits (default {DEFAULT_ACCOUNT}; "
            f"{LOCALSTACK_ACCOUNT} in LocalStack mode)",
            flag="--account-id",
            default=None,
            help=f"default account (default {DEFAULT_ACCOUNT})",
        ),
    )
    host: str = field(
        default=DEFAULT_HOST,
        metadata=about(
            f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 for other machines)",
            flag="--host",
            first=True,
            default=None,
            help=f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 for every interface)",
        ),
    )
    port: int = field(
        default=DEFAULT_PORT,
        metadata=about(
            f"port (default {DEFAULT_PORT}, ElasticMQ's; 0 picks a free one)",
            flag="--port",
            first=True,
            type=int,
            default=None,
            help=f"port (default {DEFAULT_PORT}; 0 picks a free one)",
        ),
    )
    read_timeout: float = field(
        default=READ_TIMEOUT,
        metadata=about(f"seconds a request body may take to arrive (default {READ_TIMEOUT:g})"),
    )
    idle_timeout: float = field(
        default=IDLE_TIMEOUT,
        metadata=about(
            f"seconds a connection may idle between requests (default {IDLE_TIMEOUT:g})"
        ),
    )
    allow_hosts: Iterable[str] = field(
        default=(),
        metadata=about(
            "names besides IP addresses and localhost that clients may reach it by (such as "
            'sqs in docker-compose; ".example.com" or "*.example.com": subdomains; "*": any)',
            flag="--allow-host",
            action="append",
            default=[],
            metavar="NAME",
            help="also answer requests for host NAME (repeatable; IP addresses, localhost and "
            "*.localhost always pass; .example.com or *.example.com: subdomains; *: any name)",
        ),
    )
    cors_origins: Iterable[str] = field(
        default=(),
        metadata=about(
            'web pages that may call it, such as "http://localhost:3000" ("*": any)',
            flag="--cors-origin",
            action="append",
            default=[],
            metavar="ORIGIN",
            help="let web pages of ORIGIN (such as http://localhost:3000) call the server, with "
            "CORS (repeatable; *: any origin)",
        ),
    )
    public_url: str | None = field(
        default=None,
        metadata=about(
            "scheme, host and port of every queue URL given out (default: the request's Host)",
            flag="--public-url",
            metavar="URL",
            default=None,
            help="scheme, host and port of every queue URL given out, such as "
            "http://localhost:9324 behind a port mapping or proxy (default: the Host each "
            "request used)",
        ),
    )
    localstack: bool = field(
        default=False,
        metadata=about(
            "LocalStack's defaults and surface",
            flag="--localstack",
            action="store_true",
            help="LocalStack's defaults and surface: port 4566, account 000000000000, "
            "*.localhost.localstack.cloud host names, its queue URL forms, /_localstack/health "
            "and init, ready.d init scripts, 'Ready.' once serving",
        ),
    )
    endpoint_strategy: str | None = field(
        default=None,
        metadata=about(
            "in LocalStack mode, its queue URL form (default: $SQS_ENDPOINT_STRATEGY, else "
            "standard)",
            flag="--sqs-endpoint-strategy",
            choices=("standard", "domain", "path", "dynamic", "off"),
            default=None,
            help="with --localstack: LocalStack's queue URL form (default: "
            "$SQS_ENDPOINT_STRATEGY, else standard)",
        ),
    )
    init_dir: str | os.PathLike[str] | None = field(
        default=None,
        metadata=about(
            "in LocalStack mode, a directory of init scripts to run once serving",
            flag="--init-dir",
            metavar="DIR",
            default=None,
            help="with --localstack: run DIR's *.sh and *.py in name order once serving "
            "(default /etc/localstack/init/ready.d when it exists)",
        ),
    )
    #: LocalStack's surface as ``localstack``, ``endpoint_strategy`` and ``init_dir`` ask.
    localstack_mode: LocalStackMode | None = field(
        default=None, init=False, repr=False, compare=False
    )
    #: ElasticMQ mode: the base of queue URLs its conf's ``node-address`` gives (None: the
    #: request's; ``*/<context-path>``: the request's, then that path).
    node_address: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_port(self.port)
        public_url, mode = _localstack_options(
            self.public_url, self.localstack, self.endpoint_strategy, self.init_dir
        )
        self._set("public_url", public_url)
        self._set("localstack_mode", mode)
        elasticmq_account = self._elasticmq_mode()
        allow_hosts = self.allow_hosts
        if mode is not None:
            allow_hosts = (*allow_hosts, *mode.host_names())
        checked = _check_browsers(allow_hosts, self.cors_origins)
        self._set("allow_hosts", checked[0])
        self._set("cors_origins", checked[1])
        if self.account_id is None:
            account = DEFAULT_ACCOUNT
            if self.localstack:
                account = LOCALSTACK_ACCOUNT
            elif self.elasticmq:  # the conf's, else ElasticMQ's own
                account = elasticmq_account or ELASTICMQ_ACCOUNT
            self._set("account_id", account)
        super().__post_init__()

    def _elasticmq_mode(self) -> str | None:
        """Settle ``elasticmq`` (on by default with ElasticMQ's conf) and its node address, and
        give the conf's account, if any: the conf is read here, once, for what the server
        needs of it before the mock's options are checked."""
        from ._config import load

        declarations = None if self.config is None else load(self.config)
        self._set("config", declarations)
        if self.elasticmq is None:  # LocalStack mode wins over the conf's own
            elasticmq = declarations is not None and declarations.elasticmq
            self._set("elasticmq", elasticmq and not self.localstack)
        if self.elasticmq and self.localstack:
            raise ValueError("LocalStack mode and ElasticMQ mode cannot be on together")
        if not self.elasticmq or declarations is None:
            return None
        self._set("node_address", declarations.server.get("node_address"))
        host = _host_of(self.node_address)
        if host and not isinstance(self.allow_hosts, (str, bytes)):  # e.g. sqs, from containers
            self._set("allow_hosts", (*self.allow_hosts, host))
        return declarations.account


def _host_of(url: str | None) -> str:
    """The host name of a URL, for the allow-list ("" for none, or for an IP address: every
    IP address is allowed)."""
    import ipaddress
    from urllib.parse import urlsplit

    host = "" if url is None else urlsplit(url).hostname or ""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host
    return ""


def _check_port(port: Any) -> None:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer from 0 to 65535, not {port!r}")


def _check_browsers(allow_hosts: Any, cors_origins: Any) -> tuple[tuple[str, ...], ...]:
    """``allow_hosts`` and ``cors_origins``, checked and normalised (a lone string is refused:
    it would read as its letters)."""
    from ._adapters.http.browsers import check_allow_host, check_cors_origin

    lists = []
    for option, value in (("allow_hosts", allow_hosts), ("cors_origins", cors_origins)):
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            raise ValueError(f"{option} must be a list of strings, not {value!r}")
        lists.append(list(value))
    return (
        tuple(check_allow_host(name) for name in lists[0]),
        tuple(check_cors_origin(origin) for origin in lists[1]),
    )


def _localstack_options(
    public_url: str | None,
    localstack: bool,
    strategy: str | None,
    init_dir: str | os.PathLike[str] | None,
    environ: Mapping[str, str] = os.environ,
) -> tuple[str | None, LocalStackMode | None]:
    """The public URL and LocalStack mode these options ask for (ValueError if malformed).

    In LocalStack mode ``SQS_ENDPOINT_STRATEGY`` and ``LOCALSTACK_HOST`` are read from the
    environment when not given, and the init scripts come from LocalStack's
    ``/etc/localstack/init/ready.d`` when it exists."""
    from ._adapters.http.localstack_mode import DEFAULT_INIT_DIR, LocalStackMode
    from ._protocol.urls import STRATEGIES, check_public_url

    if public_url is not None:
        public_url = check_public_url(public_url)
    if not localstack:
        if strategy is not None or init_dir is not None:
            raise ValueError("endpoint_strategy and init_dir are LocalStack mode's options")
        return public_url, None
    strategy = strategy or environ.get("SQS_ENDPOINT_STRATEGY") or "standard"
    if strategy not in STRATEGIES:
        raise ValueError(
            f"SQS endpoint strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}"
        )
    host = environ.get("LOCALSTACK_HOST", "").strip() or None  # host[:port], as LocalStack's
    if host is not None:
        try:
            host = check_public_url("http://" + host).split("://")[1]
        except ValueError:
            raise ValueError(
                f"LOCALSTACK_HOST must be host or host:port (such as localstack:4566), not {host!r}"
            ) from None
    if init_dir is None and os.path.isdir(DEFAULT_INIT_DIR):
        init_dir = DEFAULT_INIT_DIR
    if init_dir is not None and not os.path.isdir(init_dir):
        raise ValueError(f"init directory {os.fspath(init_dir)!r} does not exist")
    return public_url, LocalStackMode(
        strategy=strategy, host=host, init_dir=None if init_dir is None else Path(init_dir)
    )
