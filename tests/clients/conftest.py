"""Fixtures for the real-client tests: installed clients and the server they talk to."""

from __future__ import annotations

import subprocess
import sys
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
    stop_process,
)


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
# TEMPORARY, until sqsmock's server mode is available: run the tests against moto's server.

try:
    from sqsmock import serve
except ImportError:
    _HAVE_SERVE = False
else:
    _HAVE_SERVE = True

    @pytest.fixture(scope="session")
    def _wall_server() -> Iterator[Any]:
        with serve(port=0, clock="wall") as server:
            yield server

    @pytest.fixture
    def wall_server(_wall_server: Any) -> Any:
        """A server on the wall clock (``sqs_server``'s may be frozen), emptied for each test:
        for tests where real processes wait on each other."""
        _wall_server.reset()
        return _wall_server


if not _HAVE_SERVE:
    import json
    import os
    import socket

    import clients_support

    if not os.environ.get("CLIENTS_SCRATCH"):
        clients_support.URL_FORMAT = "{endpoint}/{account}/{name}"
    import os
    import time
    import urllib.request

    class _AdminClock:
        def __init__(self, server: Any) -> None:
            self.server = server

        def advance(self, seconds: float) -> None:
            if self.server.admin:
                self.server.admin("clock/advance", {"seconds": seconds})

    class _MotoServer:
        def __init__(self, endpoint_url: str, admin: bool) -> None:
            self.endpoint_url = endpoint_url
            self.admin_ok = admin
            self.clock = _AdminClock(self)

        def admin(self, what: str, payload: Any = None) -> Any:
            if not self.admin_ok:
                return None
            data = json.dumps(payload).encode() if payload is not None else b""
            request = urllib.request.Request(
                f"{self.endpoint_url}/_sqsmock/{what}", data=data, method="POST"
            )
            with urllib.request.urlopen(request, timeout=10) as answer:
                return json.loads(answer.read() or b"null")

        def reset(self) -> None:
            if self.admin_ok:
                self.admin("reset")
                return
            request = urllib.request.Request(self.endpoint_url + "/moto-api/reset", method="POST")
            urllib.request.urlopen(request, timeout=10).close()

    def _start(clock: str) -> Iterator[_MotoServer]:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        scratch = os.environ.get("CLIENTS_SCRATCH")
        if scratch:
            script, path = scratch.split(":")
            command = [sys.executable, script, str(port), clock]
            env = dict(os.environ, PYTHONPATH=path)
        else:
            command = [str(Path(sys.executable).with_name("moto_server")), "-p", str(port)]
            env = None
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        try:
            server = _MotoServer(f"http://127.0.0.1:{port}", bool(scratch))
            for _ in range(100):
                try:
                    server.reset()
                    break
                except OSError:
                    time.sleep(0.1)
            yield server
        finally:
            stop_process(process)

    @pytest.fixture(scope="session")
    def _moto_server() -> Iterator[_MotoServer]:
        yield from _start("frozen")

    @pytest.fixture(scope="session")
    def _moto_wall_server() -> Iterator[_MotoServer]:
        yield from _start("wall")

    @pytest.fixture
    def sqs_server(_moto_server: _MotoServer) -> _MotoServer:
        _moto_server.reset()
        return _moto_server

    @pytest.fixture
    def wall_server(_moto_wall_server: _MotoServer) -> _MotoServer:
        _moto_wall_server.reset()
        return _moto_wall_server
