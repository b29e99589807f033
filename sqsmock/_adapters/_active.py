"""Which mocks are active, and what is installed in the process while any is.

The in-process adapters (botocore, aiobotocore) answer with the innermost active runtime, the top
of a stack shared by both. When the first mock starts:

* the botocore adapter wraps ``BaseClient`` (every botocore client in the process);
* the aiobotocore adapter wraps ``AioBaseClient`` -- now if aiobotocore is already imported, or
  the moment it is imported while a mock is active. sqsmock never imports aiobotocore itself
  (nor requires it): a process that does not use it does not pay for importing it;
* placeholder credentials and region are set when the environment has none, so clients can be
  created without any AWS set-up and without probing the network for credentials;
* a request bound for real AWS that no mock answered is refused before it opens a connection,
  unless the innermost mock allows it (``allow_aws``).

When the last mock stops, all of it is undone.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from types import ModuleType

import wrapt

from .._runtime import Runtime

__all__ = ["activate", "active", "aws_allowed", "deactivate", "stack"]

_lock = threading.Lock()
#: The active runtimes, innermost last. Read without the lock (a list read is atomic).
stack: list[Runtime] = []
_env_set: dict[str, str | None] = {}
_aio_hook_registered = False
_AIO_MODULE = "aiobotocore.client"
#: The active runtimes whose mock lets requests reach real AWS (``allow_aws=True``).
_allowing_aws: set[int] = set()


def active() -> Runtime | None:
    """The innermost active runtime, if any."""
    return stack[-1] if stack else None


def aws_allowed() -> bool:
    """May a request no mock answered leave for real AWS? Not while the innermost active mock
    refuses it; always when no mock is active."""
    return not stack or id(stack[-1]) in _allowing_aws


# -- installing -------------------------------------------------------------------------------


def _install() -> None:
    global _aio_hook_registered
    from . import botocore

    botocore.install()
    if _AIO_MODULE in sys.modules:
        _install_aio()
    elif not _aio_hook_registered:
        _aio_hook_registered = True
        wrapt.register_post_import_hook(_aio_imported, _AIO_MODULE)
    from . import moto  # moto's deliveries to SQS: wrapped when moto's modules are imported

    moto.install()
    from . import kombu  # kombu's asynchronous SQS client (imports no kombu itself)

    kombu.watch()


def _aio_imported(module: ModuleType) -> None:
    """aiobotocore was imported (perhaps inside a mock): cover its clients if a mock is active.

    Without the lock: ``activate`` may hold it while waiting for this very import to finish in
    another thread. Installing is idempotent, and wrappers left installed with no mock active
    pass every call straight through.
    """
    if stack:
        _install_aio()


def _install_aio() -> None:
    from . import aiobotocore

    aiobotocore.install()


def _uninstall() -> None:
    from . import botocore

    botocore.uninstall()
    aiobotocore = sys.modules.get(f"{__package__}.aiobotocore")
    if aiobotocore is not None:
        aiobotocore.uninstall()
    moto = sys.modules.get(f"{__package__}.moto")
    if moto is not None:
        moto.uninstall()
    kombu = sys.modules.get(f"{__package__}.kombu")
    if kombu is not None:
        kombu.uninstall()


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


def activate(runtime: Runtime, *, allow_aws: bool = False) -> None:
    with _lock:
        if not stack:
            _install()
            _prepare_environment(runtime.region)
        if allow_aws:
            _allowing_aws.add(id(runtime))
        stack.append(runtime)


def deactivate(runtime: Runtime) -> None:
    with _lock:
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is runtime:
                del stack[i]
                break
        _allowing_aws.discard(id(runtime))
        if not stack:
            _uninstall()
            _restore_environment()
