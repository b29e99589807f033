"""An environment with aiobotocore 2.x and aioboto3, where the async tests run too.

The ``test`` extra installs aiobotocore 3.x; aiobotocore 2.x pins an older botocore, and aioboto3
pins aiobotocore 2.x, so neither can share the main environment. The environment is built once
under ``.cache/`` (gitignored) with sqsmock installed editable -- it always runs this checkout's
code -- and rebuilt when its requirements or sqsmock's dependencies change.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = ROOT / ".cache" / "aiobotocore2"
#: aioboto3 brings the aiobotocore 2.x it pins (an old aioboto3 without a pin is no use).
REQUIREMENTS = [
    "aioboto3>=13",
    "aiobotocore>=2.13,<3",
    "pytest>=7.4",
    "pytest-asyncio>=0.23",
    "anyio>=4",
    "fakeredis>=2.20",
    "opentelemetry-sdk>=1.30",
    "opentelemetry-instrumentation-botocore>=0.66b0",
]
#: The modules run there.
MODULES = [
    "tests/test_async.py",
    "tests/test_async_aioboto3.py",
    "tests/test_interception_async.py",
]


def _python() -> Path:
    return ENV / "bin" / "python"


def _fingerprint() -> str:
    text = "\n".join([sys.version, *REQUIREMENTS, (ROOT / "pyproject.toml").read_text()])
    return hashlib.sha256(text.encode()).hexdigest()


def build() -> Path:
    """The environment's python, building the environment first if needed."""
    ENV.parent.mkdir(exist_ok=True)
    stamp = ENV / "sqsmock-fingerprint"
    wanted = _fingerprint()
    with open(ENV.parent / "aiobotocore2.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and stamp.read_text() == wanted and _python().is_file():
            return _python()
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(ENV)], check=True)
        done = subprocess.run(
            [str(_python()), "-m", "pip", "install", "-q", "-e", str(ROOT), *REQUIREMENTS],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            raise RuntimeError(f"building {ENV} failed:\n{done.stdout}\n{done.stderr}")
        stamp.write_text(wanted)
    return _python()


@dataclass
class Run:
    versions: dict[str, str]
    outcomes: dict[str, dict[str, str]]  # module -> test name -> outcome
    output: str
    returncode: int


_OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (tests/\S+?\.py)::(\S+)")


@functools.lru_cache(maxsize=1)
def run() -> Run:
    """The async modules run once (per test session) in the aiobotocore 2.x environment."""
    python = build()
    versions = subprocess.run(
        [
            str(python),
            "-c",
            "from importlib.metadata import version as v\n"
            "for name in ['aiobotocore', 'aioboto3', 'botocore', 'pytest-asyncio']:\n"
            "    print(name, v(name))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTEST_"))}
    done = subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-q", *MODULES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    outcomes: dict[str, dict[str, str]] = {}
    for line in done.stdout.splitlines():
        found = _OUTCOME.match(line)
        if found:
            outcomes.setdefault(found[2], {})[found[3]] = found[1]
    return Run(
        dict(line.split(" ", 1) for line in versions.splitlines()),
        outcomes,
        done.stdout + done.stderr,
        done.returncode,
    )
