"""How SQS calls reach sqsmock: a botocore ``before-call`` handler on every SQS client.

While at least one mock is active:

* ``BaseClient._make_api_call`` is wrapped at class level, so every client in the process is
  covered -- created before or after the mock started, even before sqsmock was imported. The
  wrapper only makes sure an SQS client's event emitter carries our handler (once per client) and
  then runs botocore's normal path: parameter validation, serialization, endpoint resolution.
* The ``before-call`` handler (registered last, so user handlers that add headers run first)
  hands the serialized request to the innermost active mock and returns ``(http, parsed)``;
  botocore then skips signing and sending, emits ``after-call`` and raises modeled errors itself.
  With no mock active the handler returns None and the call proceeds as if sqsmock were absent.

See docs/architecture.md for why this point in botocore's pipeline was chosen.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import botocore.client
from botocore.validate import ParamValidationDecorator

__all__ = ["Responder", "activate", "active", "deactivate"]


class Responder(Protocol):
    """What an active mock offers the hook."""

    region: str

    def respond(self, model: Any, request_dict: Any, context: Any, validated: bool) -> Any: ...


_lock = threading.Lock()
_stack: list[Responder] = []
_env_set: dict[str, str | None] = {}
_MARK = "_sqsmock_hooked"
_UNIQUE_ID = "sqsmock-before-call"


def active() -> Responder | None:
    """The innermost active mock, if any."""
    return _stack[-1] if _stack else None


def _before_call(validated: bool, model: Any, params: Any, context: Any, **_: Any) -> Any:
    responder = _stack[-1] if _stack else None
    if responder is None:
        return None
    return responder.respond(model, params, context, validated)


def _hook(client: Any) -> None:
    events = client.meta.events
    if client.meta.service_model.service_name == "sqs":
        # botocore wraps the serializer in a validator unless parameter_validation is off.
        validated = isinstance(getattr(client, "_serializer", None), ParamValidationDecorator)
        handler = functools.partial(_before_call, validated)
        # On the generic ``before-call``, last: botocore calls the handlers of more specific
        # events first, so every other before-call handler -- the user's, and botocore's own
        # (its recursion detection adds X-Amzn-Trace-Id inside Lambda) -- runs before ours.
        events.register_last("before-call", handler, unique_id=_UNIQUE_ID)
    setattr(events, _MARK, True)


def _make_api_call(self: Any, operation_name: str, api_params: Any) -> Any:
    if _stack and not getattr(self.meta.events, _MARK, False):
        _hook(self)
    return _ORIGINAL(self, operation_name, api_params)


#: botocore's own method, kept for the lifetime of the process (a call in flight while the last
#: mock stops still reaches it).
_ORIGINAL: Callable[..., Any] = botocore.client.BaseClient._make_api_call


def _install() -> None:
    if botocore.client.BaseClient._make_api_call is not _make_api_call:
        botocore.client.BaseClient._make_api_call = _make_api_call


def _uninstall() -> None:
    if botocore.client.BaseClient._make_api_call is _make_api_call:
        botocore.client.BaseClient._make_api_call = _ORIGINAL


# -- environment ------------------------------------------------------------------------------


def _aws_files_exist() -> bool:
    home = Path.home() / ".aws"
    files = [
        os.environ.get("AWS_SHARED_CREDENTIALS_FILE") or str(home / "credentials"),
        os.environ.get("AWS_CONFIG_FILE") or str(home / "config"),
    ]
    return any(Path(f).expanduser().is_file() for f in files)


def _prepare_environment(region: str) -> None:
    """Make clients creatable with no AWS set-up at all, touching nothing that is configured.

    Without any credentials botocore's provider chain ends by probing the EC2 metadata service
    over the network; without a region ``boto3.client("sqs")`` fails. When the environment and
    the AWS config files supply neither, placeholders are set for the mock's lifetime.
    """
    env = os.environ
    configured = _aws_files_exist() or "AWS_PROFILE" in env
    wanted: dict[str, str] = {}
    if not configured and "AWS_ACCESS_KEY_ID" not in env:
        wanted["AWS_ACCESS_KEY_ID"] = "testing"
        wanted["AWS_SECRET_ACCESS_KEY"] = "testing"
    if not configured and "AWS_DEFAULT_REGION" not in env and "AWS_REGION" not in env:
        wanted["AWS_DEFAULT_REGION"] = region
    for key, value in wanted.items():
        _env_set[key] = env.get(key)
        env[key] = value


def _restore_environment() -> None:
    for key, previous in _env_set.items():
        if os.environ.get(key) is not None and previous is None:
            del os.environ[key]
        elif previous is not None:
            os.environ[key] = previous
    _env_set.clear()


# -- activation -------------------------------------------------------------------------------


def activate(responder: Responder) -> None:
    with _lock:
        if not _stack:
            _install()
            _prepare_environment(responder.region)
        _stack.append(responder)


def deactivate(responder: Responder) -> None:
    with _lock:
        for i in range(len(_stack) - 1, -1, -1):
            if _stack[i] is responder:
                del _stack[i]
                break
        if not _stack:
            _uninstall()
            _restore_environment()
