"""pytest plugin (entry point ``pytest11``): fixtures ``sqs_mock`` and ``sqs_client``, and the
``@pytest.mark.sqsmock(**options)`` marker that configures them (and activates the mock for the
marked test even when it asks for neither fixture)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ._mock import MockSQS, mock_sqs

if TYPE_CHECKING:
    # boto3's client type, when mypy-boto3-sqs (boto3-stubs[sqs]) is installed; else Any.
    from mypy_boto3_sqs import SQSClient
else:
    SQSClient = Any

__all__ = ["sqs_client", "sqs_mock"]


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
def sqs_client(sqs_mock: MockSQS) -> SQSClient:
    """A boto3 SQS client in the mock's region (typed ``mypy_boto3_sqs.SQSClient``)."""
    import boto3

    client: SQSClient = boto3.client("sqs", region_name=sqs_mock.region)
    return client


@pytest.fixture(autouse=True)
def _sqsmock_marker(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("sqsmock") is not None:
        request.getfixturevalue("sqs_mock")
