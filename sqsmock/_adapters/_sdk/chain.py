"""Wrapping the SDK's classes beside other libraries' wrappers, stranding none of them.

Tracing and monitoring agents (OpenTelemetry, aws-xray-sdk, Instana, New Relic, Datadog) wrap
the same botocore methods sqsmock does, nearly all with wrapt (or a vendored copy of it), and
undo their wrapping by looking at the class attribute: if it is a proxy, they put back what it
wraps. A plain wrapper of sqsmock's on top of theirs would hide their proxy from them: their
un-instrumenting would do nothing, and their next instrumenting would wrap them twice.

So sqsmock's wrapper goes *beneath* the proxies already in place: the deepest proxy in the
attribute's chain is made to wrap sqsmock's wrapper, which calls what that proxy wrapped. A
library un-instrumenting while a mock is active then takes out exactly its own proxy, and one
instrumenting while a mock is active wraps whatever is on top, as it would anyway. When the
last mock stops, sqsmock's wrapper is taken out of the chain wherever it is -- on top, or
beneath a proxy, which is made to wrap again what sqsmock's wrapper called. Only beneath a
wrapper that is not a proxy (a plain function closing over sqsmock's) does it stay, letting
every call through while no mock is active, until a later mock stops after it was unwrapped.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

__all__ = ["below_own", "install_wrappers", "is_proxy", "own", "uninstall_wrappers", "wraps_ours"]

#: How deep a chain of wrappers is followed: far more than anyone stacks.
_DEPTH = 32
_PLAIN = (types.FunctionType, types.MethodType, types.BuiltinFunctionType)


#: sqsmock's own wrappers of the SDK's methods, by id: ``(the wrapper, what it calls now)``.
_own: dict[int, tuple[Any, Callable[[], Any]]] = {}


def own(wrapper: Any, below: Callable[[], Any]) -> None:
    """Note ``wrapper`` as sqsmock's, calling what ``below()`` returns (``_sdk.watched`` looks
    through it to what it calls)."""
    _own[id(wrapper)] = (wrapper, below)


def below_own(method: Any) -> Any:
    """What ``method`` calls if it is one of sqsmock's wrappers; None otherwise."""
    found = _own.get(id(method))
    return found[1]() if found is not None and found[0] is method else None


def is_proxy(obj: Any) -> bool:
    """Is ``obj`` a wrapt-style proxy (wrapt's own, or a copy vendored by an agent such as New
    Relic's or ddtrace's)? It calls whatever its ``__wrapped__`` holds at the time of the call,
    so setting ``__wrapped__`` changes what it wraps."""
    kind = type(obj)  # (a proxy passes ``isinstance`` checks as what it wraps)
    if issubclass(kind, _PLAIN):
        return False
    return any(cls.__name__ == "ObjectProxy" for cls in kind.__mro__)


def wraps_ours(method: Any, ours: Any) -> bool:
    """Is ``ours`` ``method`` or inside it (someone wrapped sqsmock's wrapper)?"""
    for _ in range(_DEPTH):
        if method is ours:
            return True
        method = getattr(method, "__wrapped__", None)
        if method is None:
            return False
    return False


def _deepest_proxy(method: Any) -> Any:
    """The deepest proxy in ``method``'s chain of wrappers, or None."""
    found = None
    for _ in range(_DEPTH):
        if is_proxy(method):
            found = method
        method = getattr(method, "__wrapped__", None)
        if method is None:
            break
    return found


def install_wrappers(
    wrappers: list[tuple[type, str, Callable[..., Any]]], previous: dict[str, Callable[..., Any]]
) -> None:
    """Put each of sqsmock's wrappers in place, beneath every proxy already there (on top if
    there is none); what it then wraps is remembered in ``previous``. A wrapper already in the
    chain (left under someone's plain wrapper) is not put there twice."""
    for cls, name, ours in wrappers:
        own(ours, lambda name=name: previous[name])  # type: ignore[misc]
        current = vars(cls).get(name, getattr(cls, name))
        if wraps_ours(current, ours):
            continue
        holder = _deepest_proxy(current)
        if holder is None:
            previous[name] = current
            setattr(cls, name, ours)
        else:
            previous[name] = holder.__wrapped__
            holder.__wrapped__ = ours


def uninstall_wrappers(
    wrappers: list[tuple[type, str, Callable[..., Any]]], previous: dict[str, Callable[..., Any]]
) -> None:
    """Take each of sqsmock's wrappers out of its chain, putting back what it wrapped, and
    leaving every other wrapper where it is."""
    for cls, name, ours in wrappers:
        method: Any = vars(cls).get(name)
        if method is ours:
            setattr(cls, name, previous[name])
            continue
        for _ in range(_DEPTH):
            below = getattr(method, "__wrapped__", None)
            if below is None:
                break
            if below is ours:
                if is_proxy(method):
                    method.__wrapped__ = previous[name]
                break  # under a plain wrapper: stays, and lets every call through
            method = below
