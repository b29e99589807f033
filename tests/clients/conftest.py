"""Fixtures for the real-client tests: installed clients and the server they talk to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clients_support import (
    AWSCLI_VERSIONS,
    AwsCli,
    AwsCliDriver,
    awscli_venv,
    js_sdk_installed,
)

from sqsmock import serve


@pytest.fixture(scope="session", params=sorted(AWSCLI_VERSIONS))
def awscli_executable(request: pytest.FixtureRequest) -> tuple[str, Path]:
    """(protocol it speaks, path of ``aws``) for each AWS CLI version under test."""
    return request.param, awscli_venv(AWSCLI_VERSIONS[request.param])


@pytest.fixture(scope="session")
def awscli_driver(awscli_executable: tuple[str, Path]) -> Iterator[AwsCliDriver]:
    driver = AwsCliDriver(awscli_executable[1])
    try:
        yield driver
    finally:
        driver.close()


@pytest.fixture
def aws(
    awscli_executable: tuple[str, Path], awscli_driver: AwsCliDriver, sqs_server: Any
) -> AwsCli:
    """Runs ``aws sqs ...`` against ``sqs_server``, once per AWS CLI version."""
    return AwsCli(awscli_driver, awscli_executable[0], sqs_server.endpoint_url)


@pytest.fixture(scope="session")
def js_sdk() -> Path:
    return js_sdk_installed()


# -- the server ------------------------------------------------------------------------------
# ``sqs_server`` comes from sqsmock's pytest plugin.


@pytest.fixture(scope="session")
def _wall_server() -> Iterator[Any]:
    with serve(port=0, clock="wall") as server:
        yield server


@pytest.fixture(scope="session")
def _localstack_server() -> Iterator[Any]:
    with serve(port=0, localstack=True) as server:
        yield server


@pytest.fixture(params=["serve", "localstack"])
def sns_server(request: pytest.FixtureRequest, sqs_server: Any) -> Any:
    """``sqsmock serve``, then ``sqsmock serve --localstack``, emptied for each test: the SNS
    client tests run against both."""
    if request.param == "serve":
        return sqs_server
    running = request.getfixturevalue("_localstack_server")
    running.reset()
    return running


@pytest.fixture
def wall_server(_wall_server: Any) -> Any:
    """A server on the wall clock, emptied for each test: for tests where real processes wait on
    each other (on a frozen clock every empty long poll would move time for everyone)."""
    _wall_server.reset()
    return _wall_server
