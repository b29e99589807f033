"""pytest plugin (entry point ``pytest11``): fixtures ``sqs_mock``, ``sqs_client`` and
``sqs_async_client``, the ``@pytest.mark.sqsmock(**options)`` marker that configures them (and
activates the mock for the marked test even when it asks for none of them), and ``sqs_server``:
one HTTP server for the session, emptied before each test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

import pytest

from . import _options
from ._mock import MockSQS
from ._options import MockOptions
from ._serving import SqsServer

if TYPE_CHECKING:
    # boto3's client type, when mypy-boto3-sqs (boto3-stubs[sqs]) is installed; else Any.
    from mypy_boto3_sqs import SQSClient
else:
    SQSClient = Any


_AsyncFixture = Callable[..., AsyncIterator[Any]]
_async_fixture: Callable[[_AsyncFixture], _AsyncFixture]
try:  # pytest-asyncio (strict mode) runs async fixtures only when they are marked as its own
    import pytest_asyncio

    _async_fixture = cast(Any, pytest_asyncio.fixture)
except ImportError:  # anyio's plugin runs plain async fixtures
    _async_fixture = cast(Any, pytest.fixture)

__all__ = ["sqs_async_client", "sqs_client", "sqs_mock", "sqs_server"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "sqsmock_config",
        "queues to declare in every sqsmock fixture and marked test: a TOML file or ElasticMQ "
        ".conf, relative to the rootdir",
        default="",
    )
    parser.addini(
        "sqsmock_allow_aws",
        "let botocore requests to real AWS that no mock answered go out while an SQS mock is "
        "active (default: refused)",
        type="bool",
        default=False,
    )
    parser.addini(
        "sqsmock_join",
        "a mock_sqs() started while a mock with the same options is active shares its state, "
        "as moto's nested mock_aws() do (default: a state of its own)",
        type="bool",
        default=False,
    )


def _ini_config(config: pytest.Config) -> str | None:
    """The ``sqsmock_config`` ini option as a path (relative to the rootdir), or None."""
    value = str(config.getini("sqsmock_config") or "").strip()
    if not value:
        return None
    return str(config.rootpath / value)


_allow_aws_before: list[bool] = []
_join_before: list[bool] = []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sqsmock(**options): mock SQS for this test; options as for sqsmock.mock_sqs "
        "(region, account_id, clock, config, allow_aws, ...)",
    )
    _allow_aws_before.append(_options.ALLOW_AWS_DEFAULT)
    _options.ALLOW_AWS_DEFAULT = bool(config.getini("sqsmock_allow_aws"))
    _join_before.append(_options.JOIN_DEFAULT)
    _options.JOIN_DEFAULT = bool(config.getini("sqsmock_join"))


def pytest_unconfigure(config: pytest.Config) -> None:
    if _allow_aws_before:
        _options.ALLOW_AWS_DEFAULT = _allow_aws_before.pop()
    if _join_before:
        _options.JOIN_DEFAULT = _join_before.pop()


@pytest.fixture
def sqs_mock(request: pytest.FixtureRequest) -> Iterator[MockSQS]:
    """An active SQS mock, fresh for each test; configure it with ``@pytest.mark.sqsmock``."""
    with MockSQS(_marker_options(request)) as mock:
        yield mock


def _marker_options(request: pytest.FixtureRequest) -> MockOptions:
    """The options of the test's ``sqsmock`` marker; ``config`` defaults to the ini's
    ``sqsmock_config`` (``allow_aws`` to its ``sqsmock_allow_aws``, as for every mock)."""
    marker = request.node.get_closest_marker("sqsmock")
    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    if marker is not None and marker.args:
        raise pytest.UsageError("@pytest.mark.sqsmock takes keyword options only")
    if "config" not in options:
        declared = _ini_config(request.config)
        if declared is not None:
            options["config"] = declared
    return MockOptions.from_keywords(options, "mock_sqs")


@pytest.fixture
def sqs_client(sqs_mock: MockSQS) -> SQSClient:
    """A boto3 SQS client in the mock's region (typed ``mypy_boto3_sqs.SQSClient``)."""
    import boto3

    client: SQSClient = boto3.client("sqs", region_name=sqs_mock.region)
    return client


@_async_fixture
async def sqs_async_client(sqs_mock: MockSQS) -> AsyncIterator[Any]:
    """An aiobotocore SQS client in the mock's region (for ``async def`` tests; needs
    aiobotocore, which aioboto3 brings)."""
    from aiobotocore.session import get_session

    async with get_session().create_client("sqs", region_name=sqs_mock.region) as client:
        yield client


@pytest.fixture(autouse=True)
def _sqsmock_marker(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("sqsmock") is not None:
        request.getfixturevalue("sqs_mock")


@pytest.fixture(scope="session")
def _sqsmock_session_server(pytestconfig: pytest.Config) -> Iterator[SqsServer]:
    from ._serving import serve

    with serve(port=0, config=_ini_config(pytestconfig)) as server:
        yield server


@pytest.fixture
def sqs_server(_sqsmock_session_server: SqsServer) -> SqsServer:
    """An sqsmock HTTP server (one per session, on a free port), emptied before each test:
    ``.endpoint_url`` for clients, ``.clock``, ``.reset()`` and ``.peek()`` as ``sqs_mock``."""
    _sqsmock_session_server.reset()
    return _sqsmock_session_server
