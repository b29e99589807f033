"""Is anything on botocore's request path someone else's? Then a call takes the full path.

An SQS call answered at ``before-call`` never reaches what a real call runs after it: building
the request (``Endpoint.create_request``/``prepare_request``), signing (``RequestSigner.sign``
and the auth class's ``add_auth``), ``Endpoint.make_request`` and its send loop, and the HTTP
session's ``send``. Monitoring agents wrap exactly these -- Instana wraps
``SigV4Auth.add_auth`` to read the request's headers, New Relic ``Endpoint.make_request`` to
record external-call metrics, aws-xray-sdk and OpenTelemetry ``prepare_request`` to add
``X-Amzn-Trace-Id`` -- and expect them to run as often as against AWS. So when any of these
methods (or aiobotocore's, once its adapter is loaded) is not the SDK's own -- wrapped, or
replaced by a function defined elsewhere -- every call takes the path that runs them all.

sqsmock's own wrappers on that path (``chain.own``) are looked through: what counts is what
they call. The answer is remembered until one of the methods changes, which each call notices
by comparing the identities of the watched methods (``_check``; nothing is walked again).
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

import botocore
import botocore.auth
import botocore.client
import botocore.endpoint
import botocore.httpsession
import botocore.signers

from .chain import below_own

__all__ = ["foreign_on_path", "watch", "watch_sdk"]

_DEPTH = 32
#: The directories of the SDKs' packages: a method whose code lives there is the SDK's own
#: (botocore decorates some of its methods itself, with ``functools.wraps``).
_sdk_dirs: tuple[str, ...] = ()
#: The methods on the path, as (the class's namespace, name); ``vars(cls)`` is a live view.
_namespaces: list[Any] = []
_names: list[str] = []
_get = types.MappingProxyType.get


def watch_sdk(package: ModuleType) -> None:
    """Count code in ``package``'s directory as the SDK's own."""
    global _sdk_dirs
    folder = os.path.dirname(package.__file__ or "") + os.sep
    if folder not in _sdk_dirs:
        _sdk_dirs = (*_sdk_dirs, folder)


def watch(cls: type, names: Iterable[str]) -> None:
    """Watch ``cls``'s own methods ``names``, as defined on the class itself: one it inherits
    counts as the SDK's own (its base class is watched) until someone puts one on ``cls`` --
    as aws-xray-sdk wraps ``AioEndpoint.prepare_request``, which aiobotocore inherits."""
    global _check
    for name in names:
        _namespaces.append(vars(cls))
        _names.append(name)
    _check = _unknown


def _native(method: Any) -> bool:
    """Is ``method`` the SDK's own (looking through sqsmock's wrappers)? None, a method the
    class inherits, is."""
    if method is None:
        return True
    for _ in range(_DEPTH):
        below = below_own(method)
        if below is None:
            code = getattr(method, "__code__", None)
            return (
                type(method) is types.FunctionType
                and code is not None
                and code.co_filename.startswith(_sdk_dirs)
            )
        method = below
    return False


def foreign_on_path() -> bool:
    """Is any method on the request path not the SDK's own?"""
    found = _check()
    return _recheck() if found is None else found


def _recheck() -> bool:
    """Look at every method on the path afresh, and compile ``_check`` for what is there now."""
    global _check
    current = list(map(_get, _namespaces, _names))
    found = not all(map(_native, current))
    env: dict[str, Any] = {"FOUND": found}
    same = []
    for i, (namespace, name, method) in enumerate(zip(_namespaces, _names, current, strict=True)):
        env[f"n{i}"], env[f"m{i}"] = namespace, method
        same.append(f"n{i}.get({name!r}) is m{i}")
    exec(f"def check():\n    return FOUND if {' and '.join(same) or 'True'} else None\n", env)
    _check = env["check"]
    return found


def _unknown() -> bool | None:
    return None


#: ``FOUND`` (whether a method on the path is someone else's) while every method on the path
#: is the one last looked at; None once one has changed. Compiled by ``_recheck`` to compare
#: each method's identity with one expression: a call on the fast path pays about a microsecond
#: for it, a loop over the methods would cost two to three times that.
_check: Callable[[], bool | None] = _unknown


def _auth_classes() -> set[type]:
    """The classes whose ``add_auth`` signs an SQS request: SQS signs with SigV4 only
    (``AUTH_TYPE_MAPS["v4"]``, botocore's own class or awscrt's), and the classes it inherits
    ``add_auth`` from."""
    found: set[type] = set()
    auth = botocore.auth.AUTH_TYPE_MAPS.get("v4")
    if isinstance(auth, type):
        found.update(cls for cls in auth.__mro__ if "add_auth" in vars(cls))
    return found


watch_sdk(botocore)
watch(botocore.client.BaseClient, ["_make_request"])
watch(
    botocore.endpoint.Endpoint,
    [
        "make_request",
        "_send_request",
        "create_request",
        "prepare_request",
        "_get_response",
        "_do_get_response",
        "_send",
    ],
)
watch(botocore.signers.RequestSigner, ["handler", "sign", "get_auth_instance", "_choose_signer"])
watch(botocore.httpsession.URLLib3Session, ["send"])
for _auth in sorted(_auth_classes(), key=lambda cls: cls.__qualname__):
    watch(_auth, ["add_auth"])
