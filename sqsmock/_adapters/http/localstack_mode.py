"""What ``--localstack`` turns on: LocalStack's URL form, its health document, init scripts.

In LocalStack mode (``sqsmock serve --localstack``) the server answers what LocalStack's users
and tools look for: the health document Testcontainers and compose health checks read, and the
``ready.d`` init scripts that create queues once the server is up, with their state at
``/_localstack/init`` (the routes are ``localstack``'s). This module imports no aiohttp: the
front ends build a ``LocalStackMode`` from their options before they know whether the server
can start.

Scripts (``*.sh`` run with ``bash``, ``*.py`` with this Python; a subfolder's after its
folder's files, as LocalStack finds them) run one after another in name order, in a thread,
once the server is serving, each in its own directory. Each gets the server's endpoint in its
environment (``AWS_ENDPOINT_URL``, ``LOCALSTACK_HOST``, ...), so ``aws``, ``awslocal`` and
boto3 inside it reach this server, and the environment's region and credentials, as
LocalStack's scripts inherit the container's (``--region`` and dummy credentials only where
the environment has none). Each script's output is logged line by line under its name as it
comes (none of it is kept: a script printing gigabytes costs no memory), then its exit status;
a failing script is reported (state ``ERROR``) and the server keeps serving.

A script is done when its process exits: a job it left in the background (``sleep 40 &``) holds
its output pipe open, but does not hold up READY or the next script (its output is still
logged). Each script runs in a process group of its own, so that stopping the server stops it
and everything it started: SIGTERM to the group, then SIGKILL to what is left after a grace.
"""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from ..._protocol.urls import LOCALSTACK_DOMAIN

__all__ = [
    "DEFAULT_INIT_DIR",
    "REGION_VARIABLES",
    "STAGES",
    "InitScripts",
    "LocalStackMode",
    "health_document",
]

log = logging.getLogger("sqsmock.init")

#: Where LocalStack's image reads its ready-stage scripts from.
DEFAULT_INIT_DIR = "/etc/localstack/init/ready.d"
#: LocalStack's init stages; sqsmock runs scripts in READY only (the others have none).
STAGES = ("BOOT", "START", "READY", "SHUTDOWN")
#: Seconds one script may run before it is stopped and reported as failed.
SCRIPT_TIMEOUT = 600.0
#: Seconds to wait, once a script has exited, for the output it wrote before exiting.
OUTPUT_DRAIN = 0.25
#: Seconds a stopped script's process group has between SIGTERM and SIGKILL.
STOP_GRACE = 3.0
#: The longest piece of output logged as one line (a longer line is logged in pieces).
LINE_LIMIT = 16 * 1024


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
    #: Every script started (their process groups are stopped with the server).
    _started: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _stopping: bool = False
    _runner: threading.Thread | None = None

    def __post_init__(self) -> None:
        if self.directory is not None:  # scripts run in their own directory: named absolutely
            self.directory = self.directory.absolute()
        if self.directory is not None and self.directory.is_dir():
            self.scripts = [Script(p) for p in _found(self.directory)]

    def start(self, environment: dict[str, str]) -> threading.Thread:
        """Run the scripts in a thread (the server goes on serving meanwhile)."""
        thread = threading.Thread(
            target=self._run, args=(environment,), name="sqsmock-init", daemon=True
        )
        with self._lock:
            self._stopping = False
            self._runner = thread
        thread.start()
        return thread

    def stop(self, grace: float = STOP_GRACE) -> None:
        """Stop the script running and whatever any script left running (SIGTERM to each
        script's process group, SIGKILL to what is left after ``grace`` seconds); run no more."""
        with self._lock:
            self._stopping = True
            started, self._started = self._started, []
            runner, self._runner = self._runner, None
        _end_groups(started, grace)
        if runner is not None:
            runner.join(grace)  # its script has ended: the runner records that, and stops

    def _run(self, environment: dict[str, str]) -> None:
        env = {**os.environ, **environment}
        for script in self.scripts:
            with self._lock:
                if self._stopping:
                    break
                script.state = "RUNNING"
            log.info("init: running %s", script.path.name)
            returncode = self._run_one(script, env)
            with self._lock:
                script.returncode = returncode
                script.state = "SUCCESSFUL" if returncode == 0 else "ERROR"
                stopped = self._stopping
            if returncode == 0:
                log.info("init: %s finished (exit status 0)", script.path.name)
            elif stopped:
                log.warning("init: %s stopped with the server", script.path.name)
            else:
                log.error("init: %s failed (exit status %s)", script.path.name, returncode)
        with self._lock:
            self.completed = not self._stopping

    def _run_one(self, script: Script, env: dict[str, str]) -> int:
        """Run one script to its exit; its output is logged by a thread of its own."""
        command = ["bash", str(script.path)]
        if script.path.suffix == ".py":
            command = [sys.executable, str(script.path)]
            env = {"PYTHONUNBUFFERED": "1", **env}  # its prints are logged as they happen
        name = script.path.name
        with self._lock:  # stop() either sees this process or stops it from starting
            if self._stopping:
                return -1
            try:
                process = subprocess.Popen(
                    command,
                    env=env,
                    cwd=script.path.parent,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own process group: stopped with the server
                )
            except OSError as error:
                log.error("init: %s: %s", name, error)
                return -1
            self._started.append(process)
        assert process.stdout is not None
        reader = threading.Thread(
            target=_log_output, args=(name, process.stdout), name=f"sqsmock-init-{name}"
        )
        reader.daemon = True
        reader.start()
        try:
            returncode = process.wait(SCRIPT_TIMEOUT)
        except subprocess.TimeoutExpired:
            log.error("init: %s still running after %g s: stopping it", name, SCRIPT_TIMEOUT)
            _end_groups([process], STOP_GRACE)
            returncode = -1
        # What it wrote before exiting is read now; a job it left in the background may hold
        # the pipe open for long, and is not waited for (the reader goes on logging it).
        reader.join(OUTPUT_DRAIN)
        return returncode

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


def _found(directory: Path) -> list[Path]:
    """The scripts of ``directory`` and its subfolders, in the order LocalStack runs them (a
    folder's files by name, then its subfolders by name, each the same way)."""
    found = []
    for root, folders, files in os.walk(directory):
        folders.sort()
        for name in sorted(files):
            path = Path(root, name)
            if path.suffix in (".sh", ".py") and path.is_file():
                found.append(path)
    return found


def _log_output(name: str, pipe: IO[bytes]) -> None:
    """Log a script's output line by line as it comes, until every writer has closed it."""
    with io.TextIOWrapper(pipe, encoding="utf-8", errors="replace") as text:
        while line := text.readline(LINE_LIMIT):
            log.info("init: %s: %s", name, line.rstrip("\r\n"))


def _end_groups(processes: list[subprocess.Popen[bytes]], grace: float) -> None:
    """SIGTERM to each process's group, SIGKILL after ``grace`` seconds to the groups left."""
    if not processes:
        return
    if not hasattr(os, "killpg"):  # Windows: no process groups to signal
        for process in processes:
            process.terminate()
        deadline = time.monotonic() + grace
        for process in processes:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
        return
    groups = [p.pid for p in processes if _signal_group(p.pid, signal.SIGTERM)]
    deadline = time.monotonic() + grace
    while groups and time.monotonic() < deadline:
        for process in processes:
            process.poll()  # reap the scripts themselves
        groups = [g for g in groups if _group_running(g)]
        if groups:
            time.sleep(0.02)
    for group in groups:
        _signal_group(group, signal.SIGKILL)
    for process in processes:
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not refused
            log.error("init: process %s did not end", process.pid)


def _group_running(group: int) -> bool:
    """Whether a process of the group still runs. Where /proc tells, zombies do not count: a
    job orphaned by its script may wait long to be reaped (when the container's first process
    reaps nothing), and its group has ended all the same."""
    try:
        entries = os.scandir("/proc")
    except OSError:
        return _signal_group(group, 0)
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as file:
                    fields = file.read().rpartition(b")")[2].split()
            except OSError:  # it ended meanwhile
                continue
            if len(fields) > 2 and int(fields[2]) == group and fields[0] not in (b"Z", b"X"):
                return True
    return False


def _signal_group(group: int, signum: int) -> bool:
    """Send ``signum`` to a process group; False if the group no longer exists."""
    try:
        os.killpg(group, signum)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its user: nothing sqsmock may stop
        return False
    return True


#: LocalStack's host names (they and their subdomains resolve to 127.0.0.1).
LOCALSTACK_HOSTS = (f".{LOCALSTACK_DOMAIN}",)
#: Where an init script's AWS tools read their region from; the environment's win.
REGION_VARIABLES = ("AWS_DEFAULT_REGION", "AWS_REGION", "DEFAULT_REGION")


@dataclass
class LocalStackMode:
    """What ``--localstack`` turns on: LocalStack's queue URL form, its health and init
    endpoints, and the ready-stage scripts of ``init_dir``."""

    #: ``SQS_ENDPOINT_STRATEGY``: standard, domain, path, dynamic or off.
    strategy: str = "standard"
    #: ``LOCALSTACK_HOST`` (``host[:port]``), which every URL form but ``dynamic`` is built on;
    #: None: ``localhost.localstack.cloud``. Without a port, the port listened on.
    host: str | None = None
    init_dir: Path | None = None
    scripts: InitScripts = field(init=False)

    def __post_init__(self) -> None:
        if self.init_dir is not None:  # the caller's directory, not the scripts' own
            self.init_dir = self.init_dir.absolute()
        self.scripts = InitScripts(self.init_dir)

    def url_host(self, port: int) -> str:
        """``host:port`` of the queue URLs, as LocalStack's config reads ``LOCALSTACK_HOST``: the
        port listened on where it names none."""
        host = self.host or LOCALSTACK_DOMAIN
        if urlsplit(f"http://{host}").port is None:
            return f"{host}:{port}"
        return host

    def host_names(self) -> tuple[str, ...]:
        """What the host check lets through besides IP addresses: LocalStack's names, and the
        name ``LOCALSTACK_HOST`` gives with its subdomains (the URLs given out name them)."""
        name = urlsplit(f"http://{self.host}").hostname if self.host else None
        if not name or name.replace(".", "").isdigit() or ":" in name:  # an IP address passes
            return LOCALSTACK_HOSTS
        return (*LOCALSTACK_HOSTS, f".{name}")

    def script_environment(
        self, port: int, region: str, environ: Mapping[str, str] = os.environ
    ) -> dict[str, str]:
        """What an init script needs to reach this server with aws, awslocal or boto3. Its region
        is the environment's, as LocalStack's scripts inherit the container's: the variables
        set there keep their values, and one left unset gets the first of ``REGION_VARIABLES``
        set (``region``, sqsmock's ``--region``, where none is). Credentials likewise: the
        environment's where set, else dummy ones."""
        endpoint = f"http://localhost:{port}"
        inherited = next((environ[name] for name in REGION_VARIABLES if environ.get(name)), None)
        region = inherited or region
        return {
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ENDPOINT_URL_SQS": endpoint,
            "LOCALSTACK_HOST": f"localhost:{port}",
            "EDGE_PORT": str(port),
            "AWS_DEFAULT_REGION": environ.get("AWS_DEFAULT_REGION") or region,
            "AWS_REGION": environ.get("AWS_REGION") or region,
            # The environment's credentials too: a 12-digit key names the account, as the
            # clients of the same compose file sign with it.
            "AWS_ACCESS_KEY_ID": environ.get("AWS_ACCESS_KEY_ID") or "test",
            "AWS_SECRET_ACCESS_KEY": environ.get("AWS_SECRET_ACCESS_KEY") or "test",
        }
