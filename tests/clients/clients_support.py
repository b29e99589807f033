"""Installing and running real SQS clients for the tests in this folder.

The AWS CLI (v1) pins its own botocore, so each version lives in its own virtualenv; the
JavaScript SDK lives in ``tests/clients/js/node_modules``. Both are installed on first use under
the repository's ignored ``.cache/`` (and ``node_modules/``) and reused while their pinned
versions do not change.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "clients"
JS_DIR = Path(__file__).resolve().parent / "js"

# The newest AWS CLI v1 speaks AWS JSON 1.0 to SQS; 1.32.89 (botocore 1.34.89) is the last
# release that speaks the query protocol.
AWSCLI_VERSIONS = {"json": "awscli==1.46.3", "query": "awscli==1.32.89"}

ACCESS_KEY = "AKIDSQSMOCKTESTING"
SECRET_KEY = "sqsmock-secret"
REGION = "us-east-1"
ACCOUNT = "123456789012"

# Queue URLs as the server answers them.
URL_FORMAT = "{endpoint}/queue/{region}/{account}/{name}"


def queue_url(endpoint: str, name: str, region: str = REGION, account: str = ACCOUNT) -> str:
    return URL_FORMAT.format(endpoint=endpoint, region=region, account=account, name=name)


INSTALL_TIMEOUT = 600
RUN_TIMEOUT = 60

# -- installation ----------------------------------------------------------------------------


@contextlib.contextmanager
def _install_lock(name: str) -> Iterator[None]:
    """Serialise installs of one tool between test runs that share the repository."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _clean_env() -> dict[str, str]:
    """This process's environment without anything that would leak into a tool's Python or AWS
    configuration."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("AWS_", "PYTHON", "VIRTUAL_ENV", "BOTO"))
    }
    return env


def _run_install(args: list[str], cwd: Path | None = None) -> None:
    result = subprocess.run(
        args,
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
        )


def awscli_venv(requirement: str) -> Path:
    """The ``aws`` executable of a virtualenv holding exactly ``requirement``, built if needed."""
    name = "awscli-" + requirement.split("==")[-1]
    venv = CACHE / name
    stamp = venv / "sqsmock-installed"
    wanted = f"{requirement} python={sys.version_info[:2]}"
    aws = venv / "bin" / "aws"
    with _install_lock(name):
        if not (stamp.is_file() and stamp.read_text() == wanted and aws.exists()):
            shutil.rmtree(venv, ignore_errors=True)
            _run_install([sys.executable, "-m", "venv", str(venv)])
            _run_install([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", requirement])
            stamp.write_text(wanted)
    return aws


def js_sdk_installed() -> Path:
    """``tests/clients/js`` with its ``node_modules`` installed from the lock file."""
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((JS_DIR / name).read_bytes())
    stamp = JS_DIR / "node_modules" / ".sqsmock-installed"
    with _install_lock("js"):
        if not (stamp.is_file() and stamp.read_text() == digest.hexdigest()):
            npm = shutil.which("npm")
            if npm is None:
                raise RuntimeError("npm is needed for the JavaScript SDK tests: install Node.js")
            _run_install([npm, "install", "--no-audit", "--no-fund"], cwd=JS_DIR)
            stamp.write_text(digest.hexdigest())
    return JS_DIR


def client_env(**extra: str) -> dict[str, str]:
    """The environment of a client process: dummy credentials, no AWS configuration files."""
    env = _clean_env()
    env.update(
        AWS_ACCESS_KEY_ID=ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY=SECRET_KEY,
        AWS_DEFAULT_REGION=REGION,
        AWS_REGION=REGION,
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        AWS_EC2_METADATA_DISABLED="true",
        AWS_PAGER="",
    )
    env.update(extra)
    return env


# -- the AWS CLI -----------------------------------------------------------------------------


class AwsCliDriver:
    """One long-lived Python of an AWS CLI virtualenv running ``aws`` commands on request
    (see ``awscli_driver.py``): the same CLI code, without a process start per command."""

    def __init__(self, executable: Path) -> None:
        self.process = subprocess.Popen(
            [
                str(executable.with_name("python")),
                str(Path(__file__).with_name("awscli_driver.py")),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=_clean_env(),
            text=True,
            encoding="utf-8",
        )

    def run(self, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"args": args, "env": env}) + "\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], RUN_TIMEOUT)
        if not ready:
            process.kill()
            raise TimeoutError(f"aws {' '.join(args)} did not finish in {RUN_TIMEOUT} s")
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"the AWS CLI driver died (exit {process.wait()})")
        answer = json.loads(line)
        return subprocess.CompletedProcess(
            ["aws", *args], answer["rc"], answer["stdout"], answer["stderr"]
        )

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            stop_process(self.process)


class AwsCli:
    """``aws --endpoint-url <server> --output json sqs ...`` for one CLI version."""

    def __init__(self, driver: AwsCliDriver, protocol: str, endpoint_url: str) -> None:
        self.driver = driver
        self.protocol = protocol
        self.endpoint_url = endpoint_url

    def run(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        full = ["--endpoint-url", self.endpoint_url, "--output", "json", "sqs", *args]
        return self.driver.run(full, env or client_env())

    def __call__(self, *args: str, **kwargs: Any) -> Any:
        """Run a command that must succeed; its JSON output (None when it prints nothing)."""
        result = self.run(*args, **kwargs)
        assert result.returncode == 0, (
            f"aws sqs {' '.join(args)} exited {result.returncode}:\n{result.stderr}"
        )
        return json.loads(result.stdout) if result.stdout.strip() else None

    def fail(self, *args: str, **kwargs: Any) -> str:
        """Run a command that must fail; its error output."""
        result = self.run(*args, **kwargs)
        assert result.returncode != 0, f"aws sqs {' '.join(args)} succeeded:\n{result.stdout}"
        return result.stderr


# -- processes -------------------------------------------------------------------------------


def stop_process(process: subprocess.Popen, timeout: float = 15) -> None:
    """Ask a process to stop (SIGTERM), wait, and kill it if it does not."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout)
