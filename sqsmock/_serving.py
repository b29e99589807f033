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
import gc
import logging
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from ._config import load as load_declarations
from ._handle import Handle
from ._options import add_arguments, describe, from_arguments
from ._runtime import Runtime
from ._server_options import DEFAULT_PORT, LOCALSTACK_PORT, ServerOptions

if TYPE_CHECKING:
    from ._adapters.http import SqsHttpServer
    from ._adapters.http.localstack_mode import LocalStackMode

__all__ = ["DEFAULT_PORT", "SqsServer", "add_serve_command", "run_serve", "serve"]


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


class SqsServer(Handle):
    """An sqsmock HTTP server and its handle; ``with serve() as server:`` or ``start()``."""

    _INACTIVE = "this sqsmock server is not running; start() it or enter it first"

    def __init__(self, options: ServerOptions | None = None, /, **keywords: Any) -> None:
        if options is None:
            options = ServerOptions.from_keywords(keywords, "serve")
        elif keywords:
            raise TypeError("SqsServer() takes a ServerOptions or keyword options, not both")
        super().__init__(options)
        self.options: ServerOptions = options
        self.public_url = options.public_url
        self.localstack: LocalStackMode | None = options.localstack_mode
        self.allow_hosts, self.cors_origins = list(options.allow_hosts), list(options.cors_origins)
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
            server = _http_server(SqsHttpServer, runtime, self.options)
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
            await server.start(self.options.host, self.options.port)
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


def serve(**options: Any) -> SqsServer:
    """An SQS server over HTTP for any client: ``with sqsmock.serve(port=0) as server:``.

    The handle has ``calls``, ``faults``, ``chaos()``, ``lambda_event()`` and ``run_lambda()`` as
    ``mock_sqs``'s has. Its options are checked at once: a misspelt one raises TypeError, a bad
    value ValueError.
    """
    return SqsServer(ServerOptions.from_keywords(options, "serve"))


if serve.__doc__ is not None:  # None under python -OO
    serve.__doc__ += f"\n    Options (``ServerOptions``):\n\n{describe(ServerOptions, '    ')}\n"


def _http_server(
    server_class: type[SqsHttpServer], runtime: Runtime, options: ServerOptions
) -> SqsHttpServer:
    """The HTTP server of ``runtime`` that these options describe."""
    return server_class(
        runtime,
        read_timeout=options.read_timeout,
        idle_timeout=options.idle_timeout,
        allow_hosts=options.allow_hosts,
        cors_origins=options.cors_origins,
        public_url=options.public_url,
        localstack=options.localstack_mode,
        elasticmq=options.elasticmq,
        node_address=options.node_address,
    )


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
    add_arguments(parser, ServerOptions)
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
        options = _command_line_options(args)
    except ValueError as error:  # ConfigError too
        print(error_line(error), file=sys.stderr)
        return 2
    try:
        from ._adapters.http import SqsHttpServer
    except ImportError as error:
        print(missing_extra(error, "server", "sqsmock serve"), file=sys.stderr)
        return 1
    try:
        runtime = Runtime(options)
    except ValueError as error:  # e.g. not a Redis URL, a declared queue the store contradicts
        print(error_line(error), file=sys.stderr)
        return 2
    server = _http_server(SqsHttpServer, runtime, options)
    return asyncio.run(_serve_until_signalled(server, options))


def _command_line_options(args: argparse.Namespace) -> ServerOptions:
    """The options of the command line; those it left out come from the config file (ElasticMQ's
    ``rest-sqs`` address and ``aws`` account), then the defaults. In LocalStack mode its port
    and account come before the file's. The file's warnings are printed."""
    given = from_arguments(args, ServerOptions)
    declarations = None if args.config is None else load_declarations(args.config)
    if args.localstack and args.port is None:
        given["port"] = LOCALSTACK_PORT
    if declarations is not None:
        for warning in declarations.warnings:
            print(f"sqsmock: warning: {declarations.source}: {warning}", file=sys.stderr)
        from_file = {
            "host": declarations.server.get("host"),
            "port": declarations.server.get("port"),
            "region": declarations.region,
            "account_id": None if args.localstack else declarations.account,
        }
        for name, value in from_file.items():
            if given.get(name) is None and value is not None:
                given[name] = value
        given["config"] = declarations
    return ServerOptions(**given)


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


async def _serve_until_signalled(server: SqsHttpServer, options: ServerOptions) -> int:
    try:
        await server.start(options.host, options.port)
    except OSError as error:
        server.runtime.close()
        print(f"sqsmock: cannot listen on {options.host}:{options.port}: {error}", file=sys.stderr)
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
        f"sqsmock: serving SQS on {endpoint} "
        f"(region {options.region}, account {options.account_id}"
        f"{'; ElasticMQ mode: any region reaches these queues' if options.elasticmq else ''})",
        flush=True,
    )
    if server.host not in ("127.0.0.1", "::1", "localhost") and not options.allow_hosts:
        print(
            "sqsmock: clients reaching this server by a name other than an IP address or "
            "localhost (such as http://sqs:9324 from another container) need --allow-host NAME",
            flush=True,
        )
    if server.localstack is not None:
        print("Ready.", flush=True)  # what LocalStack's Testcontainers modules wait for
        server.run_init_scripts()
    # What starting built (modules, tables, the runtime) lives as long as the process: the
    # cyclic garbage collector, which runs every few hundred calls' allocations, skips it.
    gc.freeze()
    await stopping.wait()
    logging.getLogger("sqsmock.server").info("stopping: ending long polls, finishing calls")
    await server.close()
    return 0
