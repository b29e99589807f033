"""``serve``: sqsmock as an HTTP server, from Python (a background thread) or the command line.

``serve(**options)`` gives an ``SqsServer``: a context manager (and ``start()``/``stop()``) whose
server runs on its own event loop in a background thread, with the same handle as ``mock_sqs``
(``clock``, ``reset()``, ``peek()``) plus ``endpoint_url``. ``sqsmock serve`` runs the same
server in the foreground until SIGTERM or SIGINT.

This module imports aiohttp only when a server starts: the in-process mock does not need it
(``pip install 'sqsmock[server]'`` brings it).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._declare import Declarations
from ._declare import load as load_declarations
from ._engine import Clock
from ._handle import DEFAULT_ACCOUNT, DEFAULT_NAMESPACE, DEFAULT_REGION, Handle, check_options
from ._runtime import Runtime
from ._store import DEFAULT_TIMEOUT, check_timeout
from ._testing.chaos import Delivery
from ._testing.journal import DEFAULT_BYTE_LIMIT, DEFAULT_LIMIT

if TYPE_CHECKING:
    from ._adapters.http import SqsHttpServer
    from ._adapters.http.localstack_mode import LocalStackMode

__all__ = ["DEFAULT_PORT", "SqsServer", "add_serve_command", "run_serve", "serve"]

#: ElasticMQ's port, so that its users can switch without changing their configuration.
DEFAULT_PORT = 9324
DEFAULT_HOST = "127.0.0.1"


def _bracketed(host: str) -> str:
    """``host`` as a URL's host part (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


def _url_host(host: str) -> str:
    """The host part of a URL that reaches a server listening on ``host``."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return _bracketed(host)


def _check_port(port: Any) -> None:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer from 0 to 65535, not {port!r}")


def _check_browsers(allow_hosts: Any, cors_origins: Any) -> tuple[list[str], list[str]]:
    """``allow_hosts`` and ``cors_origins``, checked and normalised (a lone string is refused:
    it would read as its letters)."""
    from ._adapters.http.browsers import check_allow_host, check_cors_origin

    lists = []
    for option, value in (("allow_hosts", allow_hosts), ("cors_origins", cors_origins)):
        if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
            raise ValueError(f"{option} must be a list of strings, not {value!r}")
        lists.append(list(value))
    return (
        [check_allow_host(name) for name in lists[0]],
        [check_cors_origin(origin) for origin in lists[1]],
    )


class SqsServer(Handle):
    """An sqsmock HTTP server and its handle; ``with serve() as server:`` or ``start()``."""

    _INACTIVE = "this sqsmock server is not running; start() it or enter it first"

    def __init__(
        self,
        *,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        region: str = DEFAULT_REGION,
        account_id: str | None = None,
        clock: str | Clock | None = "wall",
        persistence: Any = None,
        namespace: str | None = None,
        persistence_timeout: float = DEFAULT_TIMEOUT,
        read_timeout: float = 30.0,
        idle_timeout: float = 75.0,
        journal_limit: int | None = DEFAULT_LIMIT,
        journal_byte_limit: int | None = DEFAULT_BYTE_LIMIT,
        delivery: Delivery | dict[str, Any] | None = None,
        config: Any = None,
        allow_hosts: Iterable[str] = (),
        cors_origins: Iterable[str] = (),
        public_url: str | None = None,
        localstack: bool = False,
        endpoint_strategy: str | None = None,
        init_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        _check_port(port)
        self.public_url, self.localstack = _localstack_options(
            public_url, localstack, endpoint_strategy, init_dir
        )
        if self.localstack is not None:
            allow_hosts = (*allow_hosts, *LOCALSTACK_HOSTS)
        self.allow_hosts, self.cors_origins = _check_browsers(allow_hosts, cors_origins)
        if account_id is None:
            account_id = LOCALSTACK_ACCOUNT if localstack else DEFAULT_ACCOUNT
        super().__init__(
            region=region,
            account_id=account_id,
            clock=clock,
            persistence=persistence,
            namespace=namespace,
            persistence_timeout=persistence_timeout,
            journal_limit=journal_limit,
            journal_byte_limit=journal_byte_limit,
            delivery=delivery,
            config=config,
        )
        self._host = host
        self._port = port
        self._timeouts = (read_timeout, idle_timeout)
        self._server: SqsHttpServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- activation -------------------------------------------------------------------------

    def start(self) -> SqsServer:
        """Start serving (with empty state, or the store's) unless already serving."""
        with self._lock:
            if self._thread is not None:
                return self
            try:
                from ._adapters.http import SqsHttpServer
            except ImportError as error:
                raise ModuleNotFoundError(
                    missing_extra(error, "server", "sqsmock.serve()"), name=error.name
                ) from None

            runtime = self._new_runtime()
            server = SqsHttpServer(
                runtime,
                read_timeout=self._timeouts[0],
                idle_timeout=self._timeouts[1],
                allow_hosts=self.allow_hosts,
                cors_origins=self.cors_origins,
                public_url=self.public_url,
                localstack=self.localstack,
            )
            ready = threading.Event()
            failure: list[BaseException] = []
            thread = threading.Thread(
                target=self._run, args=(server, ready, failure), name="sqsmock-server", daemon=True
            )
            thread.start()
            ready.wait()
            if failure:
                thread.join()
                runtime.close()
                raise failure[0]
            self._runtime, self._server, self._thread = runtime, server, thread
        return self

    def stop(self) -> None:
        """Stop serving: long polls end, calls under way finish. Extra calls do nothing."""
        with self._lock:
            thread, loop, stopping = self._thread, self._loop, self._stopping
            if thread is None or loop is None or stopping is None:
                return
            loop.call_soon_threadsafe(stopping.set)
            thread.join()
            self._thread = self._loop = self._stopping = None
            self._server = None
            self._runtime = None

    def _run(
        self, server: SqsHttpServer, ready: threading.Event, failure: list[BaseException]
    ) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._main(server, ready, failure))
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()
            ready.set()

    async def _main(
        self, server: SqsHttpServer, ready: threading.Event, failure: list[BaseException]
    ) -> None:
        try:
            await server.start(self._host, self._port)
        except BaseException as error:
            failure.append(error)
            ready.set()
            return
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        ready.set()
        server.run_init_scripts()
        await self._stopping.wait()
        await server.close()

    @property
    def active(self) -> bool:
        return self._thread is not None

    # -- where it listens -------------------------------------------------------------------

    @property
    def _live(self) -> SqsHttpServer:
        server = self._server
        if server is None:
            raise RuntimeError(self._INACTIVE)
        return server

    @property
    def host(self) -> str:
        return self._live.host

    @property
    def port(self) -> int:
        """The port listened on (the one chosen, with ``port=0``)."""
        return self._live.port

    @property
    def endpoint_url(self) -> str:
        """``http://host:port``: give it to clients as their ``endpoint_url``."""
        server = self._live
        return f"http://{_url_host(server.host)}:{server.port}"

    def __repr__(self) -> str:
        where = self.endpoint_url if self.active else "stopped"
        return f"<SqsServer {self.region}/{self.account_id} {where}>"


#: LocalStack's default account, port and host names (they resolve to 127.0.0.1).
LOCALSTACK_ACCOUNT = "000000000000"
LOCALSTACK_PORT = 4566
LOCALSTACK_HOSTS = (".localhost.localstack.cloud",)


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
    if strategy == "off":  # LocalStack's name for its plain form
        strategy = "dynamic"
    if strategy not in STRATEGIES:
        raise ValueError(
            f"SQS endpoint strategy must be one of {', '.join(STRATEGIES)}, not {strategy!r}"
        )
    host = None
    if public_url is not None:
        host = public_url.split("://", 1)[1]
    elif environ.get("LOCALSTACK_HOST"):
        public_url = check_public_url("http://" + environ["LOCALSTACK_HOST"].strip())
        host = public_url.split("://", 1)[1]
    if init_dir is None and os.path.isdir(DEFAULT_INIT_DIR):
        init_dir = DEFAULT_INIT_DIR
    if init_dir is not None and not os.path.isdir(init_dir):
        raise ValueError(f"init directory {os.fspath(init_dir)!r} does not exist")
    return public_url, LocalStackMode(
        strategy=strategy, host=host, init_dir=None if init_dir is None else Path(init_dir)
    )


def serve(**options: Any) -> SqsServer:
    """An SQS server over HTTP for any client: ``with sqsmock.serve(port=0) as server:``.

    Options: ``host`` (default ``127.0.0.1``; ``0.0.0.0`` for other machines or containers),
    ``port`` (default 9324, ElasticMQ's; 0 picks a free one), ``region``, ``account_id``,
    ``clock`` (``"wall"``, ``"frozen"`` or a ``Clock``), ``persistence`` (a ``redis://`` URL or a
    client: state survives restarts), ``namespace``, ``persistence_timeout``, ``journal_limit``,
    ``journal_byte_limit``, ``delivery`` and ``config`` (queues declared in a TOML or ElasticMQ
    file, or a dict), as for ``mock_sqs``; ``read_timeout`` and ``idle_timeout`` (seconds a
    request body may take, a connection may idle); ``allow_hosts`` (names besides IP addresses
    and ``localhost`` that clients may reach it by, such as ``["sqs"]`` in docker-compose;
    ``".example.com"`` or ``"*.example.com"`` for subdomains, ``"*"`` for any) and
    ``cors_origins`` (web pages that may call it, such as ``["http://localhost:3000"]``; ``"*"``
    for any). The handle has ``calls``, ``faults``,
    ``chaos()``, ``lambda_event()`` and ``run_lambda()`` as ``mock_sqs``'s has.
    """
    return SqsServer(**options)


# -- the command line --------------------------------------------------------------------------


def add_serve_command(subparsers: Any) -> None:
    """``sqsmock serve``: register the subcommand on the ``sqsmock`` command's subparsers."""
    parser = subparsers.add_parser(
        "serve",
        help="serve SQS over HTTP for the AWS CLI, any SDK or process",
        description="Serve SQS over HTTP (AWS JSON 1.0 and the query protocol on one port) "
        "until SIGTERM or SIGINT. Signatures are not verified.",
        epilog="Web pages open in a browser can send requests to a local server too. sqsmock "
        "answers only requests for an IP address, localhost or *.localhost, or a name given "
        "with --allow-host (a page re-pointing its own name at the server, DNS rebinding, is "
        "refused), and refuses requests from web pages (an Origin header, or Sec-Fetch-Site "
        "cross-site) unless their origin is the server's own or given with --cors-origin. "
        "Programs (SDKs, the AWS CLI, curl) are not affected. In a container: --host 0.0.0.0 "
        "--allow-host <the name other containers use, e.g. sqs>.",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="queues to create at start: a TOML file, or ElasticMQ's .conf (its rest-sqs "
        "bind-port and bind-hostname and aws accountId apply unless these flags say otherwise)",
    )
    parser.add_argument(
        "--host",
        default=None,
        help=f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 for every interface)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument("--region", default=None, help=f"default region (default {DEFAULT_REGION})")
    parser.add_argument(
        "--account-id", default=None, help=f"default account (default {DEFAULT_ACCOUNT})"
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "frozen"),
        default="wall",
        help="wall: real time; frozen: moves only when advanced (default %(default)s)",
    )
    parser.add_argument(
        "--persistence",
        metavar="URL",
        default=None,
        help="keep state in Redis, e.g. redis://127.0.0.1:6379/0",
    )
    parser.add_argument(
        "--namespace", default=DEFAULT_NAMESPACE, help="Redis key prefix (default %(default)s)"
    )
    parser.add_argument(
        "--persistence-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="how long a call waits for Redis before it fails (default %(default)s)",
    )
    parser.add_argument(
        "--journal-limit",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help="calls kept in the call journal, /_sqsmock/calls (default %(default)s; 0: none)",
    )
    parser.add_argument(
        "--journal-byte-limit",
        type=int,
        default=DEFAULT_BYTE_LIMIT,
        metavar="BYTES",
        help="bytes kept in the call journal (default %(default)s: 64 MiB; 0: none)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests for host NAME (repeatable; IP addresses, localhost and "
        "*.localhost always pass; .example.com or *.example.com: subdomains; *: any name)",
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let web pages of ORIGIN (such as http://localhost:3000) call the server, with "
        "CORS (repeatable; *: any origin)",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        default=None,
        help="scheme, host and port of every queue URL given out, such as "
        "http://localhost:9324 behind a port mapping or proxy (default: the Host each "
        "request used)",
    )
    parser.add_argument(
        "--localstack",
        action="store_true",
        help="LocalStack's defaults and surface: port 4566, account 000000000000, "
        "*.localhost.localstack.cloud host names, its queue URL forms, /_localstack/health "
        "and init, ready.d init scripts, 'Ready.' once serving",
    )
    parser.add_argument(
        "--sqs-endpoint-strategy",
        choices=("standard", "domain", "path", "dynamic"),
        default=None,
        help="with --localstack: LocalStack's queue URL form (default: $SQS_ENDPOINT_STRATEGY, "
        "else standard)",
    )
    parser.add_argument(
        "--init-dir",
        metavar="DIR",
        default=None,
        help="with --localstack: run DIR's *.sh and *.py in name order once serving (default "
        "/etc/localstack/init/ready.d when it exists)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("debug", "info", "warning", "error"),
        help="default %(default)s",
    )
    parser.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    """Serve until SIGTERM or SIGINT; exit status 0 after a clean stop."""
    logging.basicConfig(
        level=args.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        public_url, localstack = _localstack_options(
            args.public_url, args.localstack, args.sqs_endpoint_strategy, args.init_dir
        )
        if localstack is not None:
            args.port = LOCALSTACK_PORT if args.port is None else args.port
            args.account_id = args.account_id or LOCALSTACK_ACCOUNT
            args.allow_host = [*(args.allow_host or ()), *LOCALSTACK_HOSTS]
        declarations = _settle_options(args)
        check_options(args.region, args.account_id, args.namespace)
        _check_port(args.port)
        allow_hosts, cors_origins = _check_browsers(args.allow_host, args.cors_origin)
    except ValueError as error:  # ConfigError too
        print(error_line(error), file=sys.stderr)
        return 2
    try:
        from ._adapters.http import SqsHttpServer
    except ImportError as error:
        print(missing_extra(error, "server", "sqsmock serve"), file=sys.stderr)
        return 1
    try:
        runtime = Runtime(
            region=args.region,
            account=args.account_id,
            clock=args.clock,
            persistence=args.persistence,
            namespace=args.namespace,
            persistence_timeout=check_timeout(args.persistence_timeout),
            journal_limit=args.journal_limit,
            declarations=declarations,
        )
        runtime.journal.byte_limit = args.journal_byte_limit
    except ValueError as error:  # e.g. not a Redis URL, a negative journal limit, a config
        print(error_line(error), file=sys.stderr)
        return 2
    server = SqsHttpServer(
        runtime,
        allow_hosts=allow_hosts,
        cors_origins=cors_origins,
        public_url=public_url,
        localstack=localstack,
    )
    return asyncio.run(_serve_until_signalled(server, args))


def _settle_options(args: argparse.Namespace) -> Declarations | None:
    """Fill the options the command line left out from the config file, then the defaults;
    returns the file's declarations (its warnings printed)."""
    declarations = None if args.config is None else load_declarations(args.config)
    from_file: dict[str, Any] = {}
    if declarations is not None:
        for warning in declarations.warnings:
            print(f"sqsmock: warning: {declarations.source}: {warning}", file=sys.stderr)
        from_file = {
            "host": declarations.server.get("host"),
            "port": declarations.server.get("port"),
            "region": declarations.region,
            "account_id": declarations.account,
        }
    defaults = {
        "host": DEFAULT_HOST,
        "port": DEFAULT_PORT,
        "region": DEFAULT_REGION,
        "account_id": DEFAULT_ACCOUNT,
    }
    for name, default in defaults.items():
        if getattr(args, name) is None:
            value = from_file.get(name)
            setattr(args, name, default if value is None else value)
    return declarations


def error_line(error: object) -> str:
    """An error as one line for the terminal, prefixed once with ``sqsmock:``."""
    text = str(error)
    return text if text.startswith("sqsmock") else f"sqsmock: {text}"


def missing_extra(error: ImportError, extra: str, feature: str) -> str:
    """One paragraph for a feature whose optional dependency is not installed."""
    module = error.name or "a module"
    return (
        f"sqsmock: {feature} needs {module}, which is not installed. Install the "
        f"'{extra}' extra:\n\n    pip install 'sqsmock[{extra}]'\n"
    )


async def _serve_until_signalled(server: SqsHttpServer, args: argparse.Namespace) -> int:
    try:
        await server.start(args.host, args.port)
    except OSError as error:
        server.runtime.close()
        print(f"sqsmock: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(signum, stopping.set)
        except NotImplementedError:  # Windows: no signal handlers on the event loop
            signal.signal(signum, lambda *_: loop.call_soon_threadsafe(stopping.set))
    endpoint = f"http://{_bracketed(server.host)}:{server.port}"
    print(
        f"sqsmock: serving SQS on {endpoint} (region {args.region}, account {args.account_id})",
        flush=True,
    )
    if server.host not in ("127.0.0.1", "::1", "localhost") and not args.allow_host:
        print(
            "sqsmock: clients reaching this server by a name other than an IP address or "
            "localhost (such as http://sqs:9324 from another container) need --allow-host NAME",
            flush=True,
        )
    if server.localstack is not None:
        print("Ready.", flush=True)  # what LocalStack's Testcontainers modules wait for
        server.run_init_scripts()
    await stopping.wait()
    logging.getLogger("sqsmock.server").info("stopping: ending long polls, finishing calls")
    await server.close()
    return 0
