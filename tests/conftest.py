"""Suite-wide settings, and which tests are slow.

``pytest -m "not slow"`` is the selection to run while working; CI runs everything. A test is
slow by nature when it starts another process or program (a real client, a pytest or Python
subprocess, mypy, a browser, a package build, another environment) or when its size is the
point (memory, thousands of messages). Whole modules of that kind are listed in
``SLOW_MODULES`` below; single slow tests in other modules carry ``@pytest.mark.slow``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

import boto3
import botocore.loaders
import botocore.session
import pytest

# Loaded before any in-process pytester run: such a run takes the modules first imported during
# it out of sys.modules afterwards, and a second copy of the activation or of the stack of active
# runtimes would not see the mocks the first copy's installed adapters answer for.
import sqsmock._activation  # noqa: F401
from sqsmock._adapters import _stack  # noqa: F401
from sqsmock._adapters._sdk import answer as sdk_answer

# Every successful answer in the suite is also parsed by botocore's own parser; the fast path
# that users get must produce exactly the same result.
sdk_answer.CHECK_AGAINST_BOTOCORE = True


#: botocore's and boto3's data directories, and the user's own (``~/.aws/models``): nothing in
#: them changes while the suite runs.
_FIXED_DATA = (
    botocore.loaders.Loader.BUILTIN_DATA_PATH,
    os.path.join(os.path.dirname(boto3.__file__), "data"),
    botocore.loaders.Loader.CUSTOMER_DATA_PATH,
)


class _BotocoreFiles(botocore.loaders.JSONFileLoader):
    """Parses each file of the fixed data directories once for the whole run (see ``_Loader``)."""

    parsed: ClassVar[dict[str, Any]] = {}

    def load_file(self, file_path: str) -> Any:
        if not file_path.startswith(_FIXED_DATA):
            return super().load_file(file_path)
        if file_path not in self.parsed:
            self.parsed[file_path] = super().load_file(file_path)
        return self.parsed[file_path]


class _Loader(botocore.loaders.Loader):
    """A botocore session's loader that shares what does not change while the suite runs.

    A new botocore session parses the endpoints, partitions, retry and SQS model files again
    (about 0.2 s of JSON) and lists the services in botocore's data directory again, and the
    suite makes a hundred of them: moto starts a new default session in every mock, and
    aiobotocore's ``get_session()`` is a new session per client. Each session keeps its own
    loader (its search paths, which some tests change, and what it has loaded); only the parse
    of a file in the fixed data directories, and the services listed when the loader searches
    those alone, are shared -- as the clients of one session share theirs.
    """

    FILE_LOADER_CLASS = _BotocoreFiles
    listed: ClassVar[dict[tuple[str, ...], list[str]]] = {}

    def list_available_services(self, type_name: str) -> list[str]:
        if not set(self.search_paths) <= set(_FIXED_DATA):
            return list(super().list_available_services(type_name))
        key = (*self.search_paths, type_name)
        if key not in self.listed:
            self.listed[key] = list(super().list_available_services(type_name))
        return list(self.listed[key])


def _create_loader(search_path_string: str | None = None) -> botocore.loaders.Loader:
    """``botocore.loaders.create_loader``, making a ``_Loader``."""
    if search_path_string is None:
        return _Loader()
    paths = search_path_string.split(os.pathsep)
    return _Loader(extra_search_paths=[os.path.expanduser(os.path.expandvars(p)) for p in paths])


botocore.session.create_loader = _create_loader  # type: ignore[attr-defined]


TESTS = Path(__file__).parent

# Modules whose every test is slow (paths relative to tests/), and why.
SLOW_MODULES = {
    # real clients against the server: the AWS CLI, the JS SDK, a Celery worker, `sqsmock serve`
    "clients": "real external clients and server processes",
    # builds an environment with aiobotocore 2.x (and aioboto3) and runs tests in it
    "test_async_versions.py": "another environment",
    "test_async_aioboto3.py": "another environment",
    # mypy --strict on a user's test file
    "test_typing.py": "a mypy run",
    # `sqsmock serve` as a process: signals, restarts, ports in use
    "test_server_process.py": "server processes",
    # hundreds of 256 KiB bodies measured with tracemalloc: the size is the point
    "test_memory.py": "memory measured over large bodies",
    # a real Redis paused and killed (its own redis-server processes)
    "test_persistence_outage.py": "redis-server processes",
    # headless Chromium
    "test_ui.py": "a browser",
}
# Not listed, though moto makes it slowish: test_moto_interop.py, whose oldest-moto test runs
# the module's quick selection (-m "not slow") in an environment of its own.


def _slow_reason(path: Path) -> str | None:
    try:
        relative = path.relative_to(TESTS)
    except ValueError:
        return None
    for name in (relative.parts[0], relative.as_posix()):
        if name in SLOW_MODULES:
            return SLOW_MODULES[name]
    return None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m "not slow"``, a module whose every test is slow is not even imported: its tests
    would all be deselected, and importing them (a browser driver, Celery, mypy's API) is a good
    part of the quick selection's collection. Any other selection collects them as usual."""
    if config.getoption("markexpr", "").strip() == "not slow" and _slow_reason(collection_path):
        return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _slow_reason(item.path) is not None:
            item.add_marker(pytest.mark.slow)


_clients: dict[str, Any] = {}


@pytest.fixture
def sqs_client(sqs_mock: Any) -> Any:
    """The plugin's ``sqs_client``, but one boto3 client per region for the whole suite.

    Making a botocore client costs about as much as a whole test here, and sqsmock answers
    every client through botocore's classes, so one made in an earlier test's mock is answered
    by this test's. No test changes the client itself (its events or config). The plugin's own
    fixture, a fresh client per test, is what tests/test_plugin.py's inner suites check.
    """
    import boto3

    region = sqs_mock.region
    if region not in _clients:
        _clients[region] = boto3.client("sqs", region_name=region)
    return _clients[region]


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """Generated test suites set pytest-asyncio's fixture loop scope, as a user's suite does
    (pytest-asyncio otherwise warns, in every inner run, that it is unset)."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester
