"""The ``sqsmock`` command: one small function per subcommand, registered on ``SUBCOMMANDS``.

    sqsmock serve --port 9324

    sqsmock wipe --persistence redis://127.0.0.1:6379/0 --namespace myapp-dev:
    sqsmock inspect --persistence redis://127.0.0.1:6379/0 --namespace myapp-dev: [--json]

A subcommand is ``register(subparsers)`` that adds its parser and sets ``run`` (a function of the
parsed arguments returning the exit status).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from ._serving import add_serve_command, error_line
from ._store import DEFAULT_TIMEOUT, default_namespace
from ._store import errors as store_errors
from ._version import __version__

__all__ = ["SUBCOMMANDS", "main"]

Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def _store_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--persistence", required=True, metavar="URL", help="the Redis URL, redis://host:port/db"
    )
    parser.add_argument(
        "--namespace",
        default=default_namespace(),
        metavar="P",
        help="the key prefix (default %(default)s)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="connect and reply time-out (default %(default)s)",
    )


def _run_wipe(args: argparse.Namespace) -> int:
    from ._store.maintenance import (
        wipe,  # the store's modules load only for the commands using them
    )

    count = wipe(args.persistence, args.namespace, force=args.force, timeout=args.timeout)
    print(f"wiped {count} key{'s' * (count != 1)} of namespace {args.namespace!r}")
    return 0


def register_wipe(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "wipe", help="delete every key of a namespace (refused while a mock owns it)"
    )
    _store_options(parser)
    parser.add_argument(
        "--force", action="store_true", help="wipe even while an activation owns the namespace"
    )
    parser.set_defaults(run=_run_wipe)


def _run_inspect(args: argparse.Namespace) -> int:
    from ._store.maintenance import inspect_namespace

    info = inspect_namespace(args.persistence, args.namespace, timeout=args.timeout)
    if args.json:
        print(json.dumps(asdict(info), indent=2))
        return 0
    print(f"namespace {info.namespace!r} (schema {info.schema or 'none'})")
    print(f"  owner: {info.owner or 'none'}")
    for qid, count in info.queues.items():
        print(f"  queue {qid}: {count} message{'s' * (count != 1)}")
    if not info.queues:
        print("  no queues")
    if info.deleted:
        print(f"  deleted recently: {', '.join(info.deleted)}")
    print(f"  move tasks: {info.tasks}")
    return 0


def register_inspect(subparsers: Any) -> None:
    parser = subparsers.add_parser("inspect", help="show a namespace's queues and message counts")
    _store_options(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=_run_inspect)


#: Every subcommand's registration, in help order.
SUBCOMMANDS: list[Register] = [add_serve_command, register_wipe, register_inspect]


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="sqsmock", description="sqsmock command-line tools")
    top.add_argument("--version", action="version", version=f"sqsmock {__version__}")
    subparsers = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in SUBCOMMANDS:
        register(subparsers)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except store_errors.PersistenceError as error:  # named only once something raised
        print(error_line(error), file=sys.stderr)
        return 1
    return status
