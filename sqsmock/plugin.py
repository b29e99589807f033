"""pytest plugin (entry point ``pytest11``): fixtures ``sqs_mock`` and ``sqs_client``, the
``@pytest.mark.sqsmock(**options)`` marker that configures them (and activates the mock for the
marked test even when it asks for neither fixture), and ``sqs_server``: one HTTP server for the
session, emptied before each test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ._mock import MockSQS, mock_sqs
from ._serving import SqsServer

__all__ = ["sqs_client", "sqs_mock", "sqs_server"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sqsmock(**options): mock SQS for this test; options as for sqsmock.mock_sqs "
        "(region, account_id, clock)",
    )


@pytest.fixture
def sqs_mock(request: pytest.FixtureRequest) -> Iterator[MockSQS]:
    """An active SQS mock, fresh for each test; configure it with ``@pytest.mark.sqsmock``."""
    marker = request.node.get_closest_marker("sqsmock")
    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    if marker is not None and marker.args:
        raise pytest.UsageError("@pytest.mark.sqsmock takes keyword options only")
    with mock_sqs(**options) as mock:
        yield mock


@pytest.fixture
def sqs_client(sqs_mock: MockSQS) -> Any:
    """A boto3 SQS client in the mock's region."""
    import boto3

    return boto3.client("sqs", region_name=sqs_mock.region)


@pytest.fixture(autouse=True)
def _sqsmock_marker(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("sqsmock") is not None:
        request.getfixturevalue("sqs_mock")


@pytest.fixture(scope="session")
def _sqsmock_session_server() -> Iterator[SqsServer]:
    from ._serving import serve

    with serve(port=0) as server:
        yield server


@pytest.fixture
def sqs_server(_sqsmock_session_server: SqsServer) -> SqsServer:
    """An sqsmock HTTP server (one per session, on a free port), emptied before each test:
    ``.endpoint_url`` for clients, ``.clock``, ``.reset()`` and ``.peek()`` as ``sqs_mock``."""
    _sqsmock_session_server.reset()
    return _sqsmock_session_server
