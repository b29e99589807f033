"""LocalStack mode's init scripts as processes: a script is done when it exits (a job it left in
the background does not hold READY), its output is logged as it comes and in bounded pieces, and
stopping the server stops the scripts and everything they started.

Each test runs real ``bash`` scripts; each script writes the ids of the processes it starts, and
the test kills those by id whatever happens, so that no test leaves a process behind."""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import sqsmock
from sqsmock._adapters.http.localstack_mode import REGION_VARIABLES, InitScripts, LocalStackMode

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or not Path("/proc/self").exists(),
    reason="process groups, and /proc to tell a test's own processes",
)


@pytest.fixture
def logged() -> Iterator[queue.Queue[str]]:
    """The messages the init scripts' logger logs, as they are logged."""
    messages: queue.Queue[str] = queue.Queue()

    class Handler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.put(record.getMessage())

    logger = logging.getLogger("sqsmock.init")
    handler, level = Handler(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


@pytest.fixture
def init_dir(tmp_path: Path) -> Iterator[Path]:
    """A ready.d folder; every process id its scripts write to ``*.pid`` is killed at the end."""
    folder = tmp_path / "ready.d"
    folder.mkdir()
    try:
        yield folder
    finally:
        for written in tmp_path.glob("*.pid"):
            with contextlib.suppress(ValueError, OSError):
                kill_if_ours(int(written.read_text()), tmp_path)


def kill_if_ours(pid: int, tmp_path: Path) -> None:
    """SIGKILL a process a test script started (and its group), if it still runs that script
    or a ``sleep`` of it: a process id may be used again once its process has gone."""
    if not running(pid):
        return
    command = Path(f"/proc/{pid}/cmdline").read_bytes()
    if str(tmp_path).encode() in command or command.startswith(b"sleep"):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)  # a script is the leader of its group
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def running(pid: int) -> bool:
    """The process exists and has not ended (a zombie waits only to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_until(condition: Callable[[], bool], seconds: float = 20.0) -> bool:
    """Poll a real process's progress, boundedly."""
    deadline = time.monotonic() + seconds
    pause = threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.01)
    return True


def pids(folder: Path, *names: str) -> list[int]:
    return [int((folder.parent / f"{name}.pid").read_text()) for name in names]


def stop(scripts: InitScripts) -> None:
    with contextlib.suppress(
        AttributeError
    ):  # (the runner without stop() leaves it to the fixture)
        scripts.stop(0.5)


def test_a_script_is_done_when_it_exits_though_its_background_job_holds_the_pipe(init_dir):
    (init_dir / "01-background.sh").write_text("sleep 60 &\necho $! > ../job.pid\nexit 0\n")
    (init_dir / "02-next.sh").write_text("echo next\n")
    scripts = InitScripts(init_dir)
    try:
        runner = scripts.start({})
        runner.join(15)
        assert not runner.is_alive(), "READY waited for the background job"
        assert scripts.document()["completed"]["READY"] is True
        assert [s["state"] for s in scripts.document()["scripts"]] == ["SUCCESSFUL"] * 2
        [job] = pids(init_dir, "job")
        assert running(job)  # not stopped either: it runs on until the server stops
        scripts.stop(0.5)
        assert not running(job)
    finally:
        stop(scripts)


WAITING = {
    "01-waits.sh": (
        "echo $$ > ../script.pid\necho first\n"
        "while [ ! -e ../go ]; do sleep 0.01; done\necho last\n"
    ),
    "01-waits.py": (  # Python buffers what it prints into a pipe, unless told not to
        "import os, pathlib, time\n"
        "pathlib.Path('../script.pid').write_text(str(os.getpid()))\nprint('first')\n"
        "while not os.path.exists('../go'): time.sleep(0.01)\nprint('last')\n"
    ),
}


@pytest.mark.parametrize("name", sorted(WAITING))
def test_output_is_logged_as_it_comes(init_dir, logged, monkeypatch, name):
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)  # as in most environments
    (init_dir / name).write_text(WAITING[name])
    scripts = InitScripts(init_dir)
    try:
        runner = scripts.start({})
        seen: list[str] = []
        with contextlib.suppress(queue.Empty):
            while f"init: {name}: first" not in seen:
                seen.append(logged.get(timeout=15))
        assert f"init: {name}: first" in seen, seen
        assert scripts.document()["scripts"][0]["state"] == "RUNNING"
        (init_dir.parent / "go").touch()
        runner.join(15)
        assert scripts.document()["scripts"][0]["state"] == "SUCCESSFUL"
        assert f"init: {name}: last" in list(logged.queue)
    finally:
        stop(scripts)


def test_a_long_line_is_logged_in_pieces_of_bounded_size(init_dir, logged):
    size = 1_000_003  # one line of a megabyte: it is not held whole
    (init_dir / "01-long.sh").write_text(f"head -c {size} /dev/zero | tr '\\0' x\necho\necho end\n")
    scripts = InitScripts(init_dir)
    try:
        runner = scripts.start({})
        runner.join(15)
        assert scripts.document()["completed"]["READY"] is True
    finally:
        stop(scripts)
    prefix = "init: 01-long.sh: "
    lines = [m[len(prefix) :] for m in list(logged.queue) if m.startswith(prefix)]
    assert lines[-1] == "end"
    pieces = lines[:-1]
    assert "".join(pieces) == "x" * size
    assert max(len(p) for p in pieces) <= 64 * 1024


def test_a_script_that_ignores_sigterm_is_killed_after_the_grace(init_dir):
    (init_dir / "01-stubborn.sh").write_text(
        "trap '' TERM\necho $$ > ../script.pid\nsleep 300 &\necho $! > ../job.pid\nwait\n"
    )
    scripts = InitScripts(init_dir)
    try:
        scripts.start({})
        assert wait_until(lambda: (init_dir.parent / "job.pid").exists())
        script, job = pids(init_dir, "script", "job")
        scripts.stop(0.2)
        assert not running(script)
        assert wait_until(lambda: not running(job), 5)  # SIGKILL: no more than the kernel's time
        assert scripts.document()["scripts"][0]["state"] == "ERROR"
        assert scripts.document()["completed"]["READY"] is False
    finally:
        stop(scripts)


def test_stopping_the_server_stops_its_scripts_and_what_they_started(init_dir):
    (init_dir / "01-sleeps.sh").write_text(
        "echo $$ > ../script.pid\nsleep 300 &\necho $! > ../job.pid\nwait\n"
    )
    (init_dir / "02-never.sh").write_text("echo $$ > ../never.pid\n")
    with sqsmock.serve(port=0, localstack=True, init_dir=str(init_dir)) as server:
        assert wait_until(lambda: (init_dir.parent / "job.pid").exists())
        script, job = pids(init_dir, "script", "job")
        assert running(script) and running(job)
        mode = server.localstack
    assert not running(script)
    assert wait_until(lambda: not running(job), 5)
    assert not (init_dir.parent / "never.pid").exists()  # no script starts once stopping
    assert mode is not None
    assert [s["state"] for s in mode.scripts.document()["scripts"]] == ["ERROR", "UNKNOWN"]


def test_a_relative_init_dir_is_named_from_the_callers_directory(init_dir, monkeypatch):
    (init_dir / "01-make.sh").write_text("exit 0\n")
    monkeypatch.chdir(init_dir.parent)
    mode = LocalStackMode(init_dir=Path("ready.d"))
    assert mode.init_dir == init_dir
    assert [s.path for s in mode.scripts.scripts] == [init_dir / "01-make.sh"]


@pytest.mark.slow
def test_a_relative_init_dir_is_the_callers(init_dir, monkeypatch):
    (init_dir / "01-make.sh").write_text("echo made > ../made-by-sh\n")
    (init_dir / "02-make.py").write_text("open('../made-by-py', 'w').write('made')\n")
    monkeypatch.chdir(init_dir.parent)
    mode = LocalStackMode(init_dir=Path("ready.d"))
    monkeypatch.chdir("/")  # where the server runs from later does not matter
    scripts = mode.scripts
    try:
        scripts.start({}).join(15)
        assert [s["state"] for s in scripts.document()["scripts"]] == ["SUCCESSFUL"] * 2
        assert (init_dir.parent / "made-by-sh").read_text() == "made\n"
        assert (init_dir.parent / "made-by-py").read_text() == "made"
    finally:
        stop(scripts)


REGIONS = [
    ({}, ("us-west-2", "us-west-2")),  # none set: sqsmock's --region
    ({"AWS_DEFAULT_REGION": "eu-west-2"}, ("eu-west-2", "eu-west-2")),
    ({"AWS_REGION": "eu-west-3"}, ("eu-west-3", "eu-west-3")),
    ({"DEFAULT_REGION": "ap-south-1"}, ("ap-south-1", "ap-south-1")),  # LocalStack's old name
    ({"AWS_DEFAULT_REGION": "eu-west-2", "AWS_REGION": "eu-west-1"}, ("eu-west-2", "eu-west-1")),
]


@pytest.mark.parametrize(("environment", "seen"), REGIONS)
def test_scripts_inherit_the_environments_region(environment, seen):
    given = LocalStackMode().script_environment(4566, "us-west-2", environment)
    assert (given["AWS_DEFAULT_REGION"], given["AWS_REGION"]) == seen


@pytest.mark.slow
def test_a_script_sees_the_environments_region(init_dir, logged, monkeypatch):
    for name in REGION_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-2")
    (init_dir / "01-region.sh").write_text('echo "$AWS_DEFAULT_REGION $AWS_REGION"\n')
    mode = LocalStackMode(init_dir=init_dir)
    try:
        mode.scripts.start(mode.script_environment(4566, "us-west-2")).join(15)
        assert mode.scripts.document()["scripts"][0]["state"] == "SUCCESSFUL"
        assert "init: 01-region.sh: eu-west-2 eu-west-2" in list(logged.queue)
    finally:
        stop(mode.scripts)


def test_scripts_in_subfolders_are_found_as_localstack_finds_them(init_dir):
    for relative in ("b/02-b.sh", "b/01-b.py", "a/z.sh", "10-top.sh", "02-top.py", "notes.txt"):
        path = init_dir / relative
        path.parent.mkdir(exist_ok=True)
        path.write_text("exit 0\n")
    listed = [s["name"] for s in InitScripts(init_dir).document()["scripts"]]
    assert listed == ["02-top.py", "10-top.sh", "z.sh", "01-b.py", "02-b.sh"]


def test_scripts_inherit_the_environments_credentials_and_so_its_account(monkeypatch):
    mode = LocalStackMode()
    environment = mode.script_environment(4566, "us-east-1", {})
    assert (environment["AWS_ACCESS_KEY_ID"], environment["AWS_SECRET_ACCESS_KEY"]) == (
        "test",
        "test",
    )
    given = {"AWS_ACCESS_KEY_ID": "111122223333", "AWS_SECRET_ACCESS_KEY": "s"}
    environment = mode.script_environment(4566, "us-east-1", given)
    assert (environment["AWS_ACCESS_KEY_ID"], environment["AWS_SECRET_ACCESS_KEY"]) == (
        "111122223333",
        "s",
    )
