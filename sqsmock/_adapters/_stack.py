"""The stack of active mocks' runtimes, which every in-process adapter reads on every call.

Mocks nest: the innermost active one answers. Its runtime is the top of one stack shared by the
botocore, aiobotocore, kombu and moto adapters -- so a client of any family sees the same mock
-- and by the AWS guard, which asks whether the innermost mock lets requests reach real AWS.

This module holds the stack and nothing else: it imports no adapter, so each adapter can read it
without importing its siblings. Putting runtimes on it and taking them off, and installing the
adapters while it is not empty, is the front end's business (``sqsmock._activation``), done under
``lock``.
"""

from __future__ import annotations

import threading

from .._runtime import Runtime

__all__ = ["active", "aws_allowed", "lock", "push", "remove", "stack"]

#: Held while a runtime is put on or taken off the stack (and the adapters installed or removed
#: with the first or last). Readers do not take it.
lock = threading.Lock()
#: The active runtimes, innermost last. Read without the lock (a list read is atomic); changed in
#: place only, so a module holding it by name sees every change.
stack: list[Runtime] = []
#: The active runtimes whose mock lets requests reach real AWS (``allow_aws=True``), by id.
_allowing_aws: set[int] = set()


def active() -> Runtime | None:
    """The innermost active runtime, if any."""
    return stack[-1] if stack else None


def aws_allowed() -> bool:
    """May a request no mock answered leave for real AWS? Not while the innermost active mock
    refuses it; always when no mock is active."""
    return not stack or id(stack[-1]) in _allowing_aws


def push(runtime: Runtime, *, allow_aws: bool) -> None:
    """Make ``runtime`` the innermost active one. The caller holds ``lock``."""
    if allow_aws:
        _allowing_aws.add(id(runtime))
    stack.append(runtime)


def remove(runtime: Runtime) -> None:
    """Take ``runtime`` off the stack, wherever it is (mocks may stop out of order). The caller
    holds ``lock``."""
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is runtime:
            del stack[i]
            break
    _allowing_aws.discard(id(runtime))
