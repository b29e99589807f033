"""What ``--localstack`` turns on: LocalStack's URL form, its health document, init scripts.

In LocalStack mode (``sqsmock serve --localstack``) the server answers what LocalStack's users
and tools look for: the health document Testcontainers and compose health checks read, and the
``ready.d`` init scripts that create queues once the server is up, with their state at
``/_localstack/init`` (the routes are ``localstack``'s). This module imports no aiohttp: the
front ends build a ``LocalStackMode`` from their options before they know whether the server
can start.

Scripts (``*.sh`` run with ``bash``, ``*.py`` with this Python) run one after another in name
order, in a thread, once the server is serving. Each gets the server's endpoint, a region and
dummy credentials in its environment (``AWS_ENDPOINT_URL``, ``LOCALSTACK_HOST``, ...), so
``aws``, ``awslocal`` and boto3 inside it reach this server. Each script's output and exit
status are logged under its name; a failing script is reported (state ``ERROR``) and the server
keeps serving.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_INIT_DIR", "STAGES", "InitScripts", "LocalStackMode", "health_document"]

log = logging.getLogger("sqsmock.init")

#: Where LocalStack's image reads its ready-stage scripts from.
DEFAULT_INIT_DIR = "/etc/localstack/init/ready.d"
#: LocalStack's init stages; sqsmock runs scripts in READY only (the others have none).
STAGES = ("BOOT", "START", "READY", "SHUTDOWN")
#: Seconds one script may run before it is stopped and reported as failed.
SCRIPT_TIMEOUT = 600.0


def health_document(version: str) -> dict[str, Any]:
    """``GET /_localstack/health`` in LocalStack's shape."""
    return {"services": {"sqs": "running"}, "edition": "community", "version": version}


@dataclass
class Script:
    path: Path
    state: str = "UNKNOWN"  # UNKNOWN, RUNNING, SUCCESSFUL, ERROR (LocalStack's names)
    returncode: int | None = None


@dataclass
class InitScripts:
    """The ready-stage scripts of one directory, and what became of them."""

    directory: Path | None
    scripts: list[Script] = field(default_factory=list)
    completed: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.directory is not None and self.directory.is_dir():
            self.scripts = [
                Script(p)
                for p in sorted(self.directory.iterdir())
                if p.is_file() and p.suffix in (".sh", ".py")
            ]

    def start(self, environment: dict[str, str]) -> threading.Thread:
        """Run the scripts in a thread (the server goes on serving meanwhile)."""
        thread = threading.Thread(
            target=self._run, args=(environment,), name="sqsmock-init", daemon=True
        )
        thread.start()
        return thread

    def _run(self, environment: dict[str, str]) -> None:
        env = {**os.environ, **environment}
        for script in self.scripts:
            with self._lock:
                script.state = "RUNNING"
            command = (
                [sys.executable, str(script.path)]
                if script.path.suffix == ".py"
                else ["bash", str(script.path)]
            )
            log.info("init: running %s", script.path.name)
            try:
                done = subprocess.run(
                    command,
                    env=env,
                    cwd=script.path.parent,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    timeout=SCRIPT_TIMEOUT,
                    check=False,
                )
                output, returncode = done.stdout.decode("utf-8", "replace"), done.returncode
            except (OSError, subprocess.TimeoutExpired) as error:
                output, returncode = str(error), -1
            for line in output.splitlines():
                log.info("init: %s: %s", script.path.name, line)
            with self._lock:
                script.returncode = returncode
                script.state = "SUCCESSFUL" if returncode == 0 else "ERROR"
            if returncode == 0:
                log.info("init: %s finished (exit status 0)", script.path.name)
            else:
                log.error("init: %s failed (exit status %s)", script.path.name, returncode)
        with self._lock:
            self.completed = True

    def _listed(self) -> list[dict[str, str]]:
        return [{"stage": "READY", "name": s.path.name, "state": s.state} for s in self.scripts]

    def document(self) -> dict[str, Any]:
        """``GET /_localstack/init``."""
        with self._lock:
            return {
                "completed": {
                    "BOOT": True,
                    "START": True,
                    "READY": self.completed,
                    "SHUTDOWN": False,
                },
                "scripts": self._listed(),
            }

    def stage_document(self, stage: str) -> dict[str, Any] | None:
        """``GET /_localstack/init/<stage>`` (None: no such stage)."""
        name = stage.upper()
        if name not in STAGES:
            return None
        with self._lock:
            completed = {"BOOT": True, "START": True, "READY": self.completed, "SHUTDOWN": False}
            return {
                "completed": completed[name],
                "scripts": self._listed() if name == "READY" else [],
            }


@dataclass
class LocalStackMode:
    """What ``--localstack`` turns on: LocalStack's queue URL form, its health and init
    endpoints, and the ready-stage scripts of ``init_dir``."""

    #: ``SQS_ENDPOINT_STRATEGY``: standard, domain, path or dynamic.
    strategy: str = "standard"
    #: ``LOCALSTACK_HOST`` (``host:port``) for the standard and domain URL forms; None:
    #: ``localhost.localstack.cloud:<the server's port>``.
    host: str | None = None
    init_dir: Path | None = None
    scripts: InitScripts = field(init=False)

    def __post_init__(self) -> None:
        self.scripts = InitScripts(self.init_dir)

    def script_environment(self, port: int, region: str) -> dict[str, str]:
        """What an init script needs to reach this server with aws, awslocal or boto3."""
        endpoint = f"http://localhost:{port}"
        return {
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ENDPOINT_URL_SQS": endpoint,
            "LOCALSTACK_HOST": f"localhost:{port}",
            "EDGE_PORT": str(port),
            "AWS_DEFAULT_REGION": region,
            "AWS_REGION": region,
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
        }
