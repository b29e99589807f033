"""Activating a mock: what is installed in the process while any mock is active.

The in-process adapters answer with the innermost active runtime, the top of the stack in
``_adapters/_stack.py``. Each adapter only reads that stack; putting a runtime on it, and
installing the adapters with the first one, is done here, above them -- so no adapter imports
another to get installed. When the first mock starts:

* the botocore adapter wraps ``BaseClient`` (every botocore client in the process);
* the aiobotocore adapter wraps ``AioBaseClient`` -- now if aiobotocore is already imported, or
  the moment it is imported while a mock is active. sqsmock never imports aiobotocore itself
  (nor requires it): a process that does not use it does not pay for importing it;
* the moto and kombu adapters wrap moto's SQS deliveries and kombu's asynchronous SQS client the
  same way, when those are imported (sqsmock imports neither);
* placeholder credentials and region are set when the environment has none, so clients can be
  created without any AWS set-up and without probing the network for credentials;
* a request bound for real AWS that no mock answered is refused before it opens a connection,
  unless the innermost mock allows it (``allow_aws``): the botocore and aiobotocore adapters'
  endpoint wrappers ask ``_adapters/_guard.py``.

When the last mock stops, all of it is undone. The adapters are imported when the first mock
starts, not with this module: ``import sqsmock`` loads no botocore.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType

import wrapt

from ._adapters import _stack
from ._runtime import Runtime

__all__ = ["activate", "deactivate", "innermost"]

_env_set: dict[str, str | None] = {}
_aio_hook_registered = False
_AIO_MODULE = "aiobotocore.client"
_ADAPTERS = "sqsmock._adapters"


def activate(runtime: Runtime, *, allow_aws: bool = False) -> None:
    """Make ``runtime`` the innermost active mock, installing the adapters if it is the first."""
    with _stack.lock:
        if not _stack.stack:
            _install()
            _prepare_environment(runtime.region)
        _stack.push(runtime, allow_aws=allow_aws)


def deactivate(runtime: Runtime) -> None:
    """Take ``runtime`` off the stack; with the last one, undo everything ``activate`` did."""
    with _stack.lock:
        _stack.remove(runtime)
        if not _stack.stack:
            _uninstall()
            _restore_environment()


def innermost() -> Runtime | None:
    """The runtime of the innermost active mock (the one answering), if any."""
    return _stack.active()


# -- installing -------------------------------------------------------------------------------


def _install() -> None:
    global _aio_hook_registered
    from ._adapters import botocore, kombu, moto

    botocore.install()
    if _AIO_MODULE in sys.modules:
        _install_aio()
    elif not _aio_hook_registered:
        _aio_hook_registered = True
        wrapt.register_post_import_hook(_aio_imported, _AIO_MODULE)
    moto.install()  # moto's deliveries to SQS: wrapped when moto's modules are imported
    kombu.watch()  # kombu's asynchronous SQS client (imports no kombu itself)


def _aio_imported(module: ModuleType) -> None:
    """aiobotocore was imported (perhaps inside a mock): cover its clients if a mock is active.

    Without the lock: ``activate`` may hold it while waiting for this very import to finish in
    another thread. Installing is idempotent, and wrappers left installed with no mock active
    pass every call straight through.
    """
    if _stack.stack:
        _install_aio()


def _install_aio() -> None:
    from ._adapters import aiobotocore

    aiobotocore.install()


def _uninstall() -> None:
    for name in ("botocore", "aiobotocore", "moto", "kombu"):
        adapter = sys.modules.get(f"{_ADAPTERS}.{name}")
        if adapter is not None:  # never installed: nothing to undo
            adapter.uninstall()


# -- environment ------------------------------------------------------------------------------


#: The access key id and secret sqsmock puts in the environment when it holds none.
_PLACEHOLDER = "testing"


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
        wanted["AWS_ACCESS_KEY_ID"] = _PLACEHOLDER
        wanted["AWS_SECRET_ACCESS_KEY"] = _PLACEHOLDER
    if not configured and "AWS_DEFAULT_REGION" not in env and "AWS_REGION" not in env:
        wanted["AWS_DEFAULT_REGION"] = region
    for key, value in wanted.items():
        _env_set[key] = env.get(key)
        env[key] = value


def _restore_environment() -> None:
    placeholder_credentials = "AWS_ACCESS_KEY_ID" in _env_set
    for key, previous in _env_set.items():
        if os.environ.get(key) is not None and previous is None:
            del os.environ[key]
        elif previous is not None:
            os.environ[key] = previous
    _env_set.clear()
    if placeholder_credentials:
        _forget_placeholder_credentials()


def _forget_placeholder_credentials() -> None:
    """boto3's default session caches the credentials it resolved: if it resolved the
    placeholders while the mock was active, make it resolve afresh, so that after ``stop()``
    ``boto3.client(...)`` finds whatever the environment really holds (or none)."""
    boto3 = sys.modules.get("boto3")
    session = getattr(getattr(boto3, "DEFAULT_SESSION", None), "_session", None)
    credentials = getattr(session, "_credentials", None)
    if (
        session is not None
        and credentials is not None
        and getattr(credentials, "access_key", None) == _PLACEHOLDER
        and getattr(credentials, "secret_key", None) == _PLACEHOLDER
        and getattr(credentials, "method", None) == "env"
    ):
        session._credentials = None
