"""sqsmock's types catch mistakes in a user's tests: ``mypy --strict`` on a small test file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

USER_TESTS = """
import fakeredis
import redis
from mypy_boto3_sqs import SQSClient

import sqsmock
from sqsmock import FrozenClock, mock_sqs


def test_options() -> None:
    mock_sqs(clock="frozen")
    mock_sqs(clock=FrozenClock(start=0))
    mock_sqs(persistence=redis.Redis())
    mock_sqs(persistence=fakeredis.FakeRedis())
    mock_sqs(persistence="redis://localhost:6379/0")


def test_state() -> None:
    with mock_sqs(clock="frozen") as sqs:
        reveal_type(sqs.peek("q")[0].state)  # state


def test_client(sqs_client: SQSClient) -> None:
    sqs_client.send_message(QueueUrl="q", MessageBody="fine")


def test_mistakes(sqs_client: SQSClient) -> None:
    mock_sqs(clock="forzen")  # mistake
    mock_sqs(persistence=6379)  # mistake
    sqs_client.send_message(QueueUrl="q", MessageBody=42)  # mistake
    sqsmock.mock_sqss()  # mistake
    sqsmock.serve(port=0).endpoint_url.upper()
"""


def lines_marked(marker: str) -> list[str]:
    """Numbers of the user file's lines ending with ``# <marker>``."""
    lines = USER_TESTS.lstrip().splitlines()
    return [str(n) for n, line in enumerate(lines, 1) if line.endswith(f"# {marker}")]


def run_mypy(tmp_path: Path) -> list[str]:
    path = tmp_path / "test_user.py"
    path.write_text(USER_TESTS.lstrip())
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(tmp_path / "cache"),
            path.name,
        ],
        cwd=tmp_path,  # no configuration of sqsmock's own applies
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_mypy_strict_catches_mistakes_in_a_user_test(tmp_path):
    lines = run_mypy(tmp_path)
    errors = sorted({line.split(":")[1] for line in lines if ": error:" in line}, key=int)
    assert errors == lines_marked("mistake"), "\n".join(lines)
    forzen = lines_marked("mistake")[0]
    assert any(
        line.startswith(f'test_user.py:{forzen}: error: No overload variant of "mock_sqs"')
        for line in lines
    )
    assert any("clock: Literal['wall', 'frozen'] | Clock" in line for line in lines)
    (state,) = lines_marked("state")
    assert (
        f"test_user.py:{state}: note: Revealed type is "
        + ("\"Literal['visible'] | Literal['inflight'] | Literal['delayed']\"")
        in lines
    )
