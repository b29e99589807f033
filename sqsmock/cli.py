"""The ``sqsmock`` command: one small function per subcommand, registered on ``SUBCOMMANDS``.

    sqsmock serve --port 9324
    SQSMOCK_PORT=9324 SQSMOCK_ALLOW_HOST=sqs,sqs.internal sqsmock serve

Every flag of ``sqsmock serve`` can also be set by an environment variable named after it
(``--allow-host`` is ``SQSMOCK_ALLOW_HOST``): a container's configuration is its environment.
A flag on the command line wins over its variable.

    sqsmock wipe --persistence redis://127.0.0.1:6379/0 --namespace myapp-dev:
    sqsmock inspect --persistence redis://127.0.0.1:6379/0 --namespace myapp-dev: [--json]

A subcommand is ``register(subparsers)`` that adds its parser and sets ``run`` (a function of the
parsed arguments returning the exit status).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ._serving import add_serve_command, error_line
from ._store import DEFAULT_TIMEOUT, default_namespace
from ._store import errors as store_errors
from ._version import __version__

__all__ = ["ENVIRONMENT_PREFIX", "SUBCOMMANDS", "main", "parse_arguments"]

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
    serve = subparsers.choices["serve"]
    serve.epilog = (
        f"{serve.epilog or ''} Every flag can also be set by an environment variable: "
        f"{ENVIRONMENT_PREFIX} and the flag's name in capitals, - as _ ({ENVIRONMENT_PREFIX}PORT, "
        f"{ENVIRONMENT_PREFIX}ALLOW_HOST=sqs,sqs.internal, {ENVIRONMENT_PREFIX}LOCALSTACK=1); a "
        "flag on the command line wins over its variable."
    ).strip()
    return top


# -- sqsmock serve's environment variables -----------------------------------------------------

#: ``--allow-host`` is ``SQSMOCK_ALLOW_HOST``: the prefix, then the flag in capitals, - as _.
ENVIRONMENT_PREFIX = "SQSMOCK_"
_ENVIRONMENT_COMMANDS = ("serve",)
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def environment_variable(action: argparse.Action) -> str:
    """The variable that sets a flag: ``SQSMOCK_`` and its long name (``--port``: SQSMOCK_PORT)."""
    flag = max(action.option_strings, key=len)
    return ENVIRONMENT_PREFIX + flag.lstrip("-").upper().replace("-", "_")


def _from_environment(action: argparse.Action, name: str, text: str) -> Any:
    """A variable's text as the flag's value (ValueError naming the variable if malformed)."""
    if isinstance(action, argparse._StoreTrueAction):
        if text.strip().lower() not in _TRUE + _FALSE:
            raise ValueError(
                f"{name} must be one of {', '.join(_TRUE)} or {', '.join(_FALSE[:-1])}"
            )
        return text.strip().lower() in _TRUE
    texts = [text.strip()]
    if isinstance(action, argparse._AppendAction):  # a list: comma-separated
        texts = [item.strip() for item in text.split(",") if item.strip()]
    values = []
    for item in texts:
        try:
            value = item if action.type is None else action.type(item)  # type: ignore[operator]
        except ValueError:
            kind = {int: "an integer", float: "a number"}.get(action.type, "valid")  # type: ignore[call-overload]
            raise ValueError(f"{name} must be {kind}, not {item!r}") from None
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            raise ValueError(f"{name} must be one of {choices}, not {item!r}")
        values.append(value)
    return values if isinstance(action, argparse._AppendAction) else values[0]


def _apply_environment(
    parser: argparse.ArgumentParser, environ: Mapping[str, str]
) -> dict[str, int]:
    """Make each flag's variable, when set, its default (the command line still wins); the
    count of items each list flag took from its variable, for ``parse_arguments`` to drop when
    the command line gives the flag."""
    taken: dict[str, int] = {}
    for action in parser._actions:
        if not action.option_strings or not isinstance(
            action, (argparse._StoreAction, argparse._StoreTrueAction, argparse._AppendAction)
        ):
            continue  # --help
        name = environment_variable(action)
        if name not in environ:
            continue
        action.default = _from_environment(action, name, environ[name])
        if isinstance(action, argparse._AppendAction):
            taken[action.dest] = len(action.default)
    return taken


def _subcommand(top: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    subparsers = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = subparsers.choices[name]
    return found


def parse_arguments(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] = os.environ
) -> argparse.Namespace:
    """The command line, with ``sqsmock serve``'s flags left out of it taken from ``SQSMOCK_*``
    variables (ValueError for a malformed variable)."""
    top = parser()
    args = top.parse_args(argv)
    if args.command not in _ENVIRONMENT_COMMANDS:
        return args
    taken = _apply_environment(_subcommand(top, args.command), environ)
    args = top.parse_args(argv)  # again, with the variables as defaults
    for dest, count in taken.items():
        given = getattr(args, dest)
        if len(given) > count:  # the command line gave the flag: its values replace the variable's
            setattr(args, dest, given[count:])
    return args


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse_arguments(argv)
    except ValueError as error:  # a malformed SQSMOCK_* variable
        print(error_line(error), file=sys.stderr)
        return 2
    try:
        status: int = args.run(args)
    except store_errors.PersistenceError as error:  # named only once something raised
        print(error_line(error), file=sys.stderr)
        return 1
    return status
