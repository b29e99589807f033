"""The ``sqsmock`` command: one subcommand per registration in ``SUBCOMMANDS``.

    sqsmock serve --port 9324

A registration adds its parser to the subparsers and sets ``run`` (a function of the parsed
arguments returning the exit status).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ._serving import add_serve_command
from ._store.errors import PersistenceError

__all__ = ["SUBCOMMANDS", "main"]

Register = Callable[[Any], None]

#: Every subcommand's registration, in help order.
SUBCOMMANDS: list[Register] = [add_serve_command]


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="sqsmock", description="sqsmock command-line tools")
    subparsers = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in SUBCOMMANDS:
        register(subparsers)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except PersistenceError as error:
        print(f"sqsmock: {error}", file=sys.stderr)
        return 1
    return status
