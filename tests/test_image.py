"""The server image, built from this checkout's Dockerfile and driven through a real Docker daemon:
what people running sqsmock as a container rely on (a health check, SDK calls through a port
mapping, LocalStack's mode with its init scripts, another container on a user network reaching it
by its service name, a clean stop on SIGTERM, no root).

The image is built once per session (``docker build``, its layers cached by the daemon) on
``$SQSMOCK_IMAGE_BASE``, else on the ``sqsmock-base:bookworm`` that ``.ci/docker-setup`` imports
when the daemon has it, else on the Dockerfile's own default. Without a daemon these tests are
skipped, except in CI (``CI`` set), where that is a failure. Every container and network a test
starts is removed by its id when the test ends.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import redis
from persist_support import real_namespace

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
IMAGE = "sqsmock:test"
CI_BASE = "sqsmock-base:bookworm"
CREDENTIALS = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}


def docker(*args: str, timeout: float = 60, check: bool = True) -> str:
    done = subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def _daemon_missing() -> str | None:
    if shutil.which("docker") is None:
        return "no docker command"
    done = subprocess.run(["docker", "info"], capture_output=True, text=True, check=False)
    return None if done.returncode == 0 else f"no Docker daemon: {done.stderr.strip()[:200]}"


@pytest.fixture(scope="session")
def image() -> str:
    missing = _daemon_missing()
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}; CI runs .ci/docker-setup to have one")
        pytest.skip(missing)
    base = os.environ.get("SQSMOCK_IMAGE_BASE")
    if base is None and docker("image", "inspect", CI_BASE, check=False):
        base = CI_BASE
    build_arg = [] if base is None else ["--build-arg", f"BASE={base}"]
    docker("build", "-q", *build_arg, "-t", IMAGE, str(ROOT), timeout=900)
    return IMAGE


class Containers:
    """Starts containers and networks, and removes each by its id at the end of the test."""

    def __init__(self, image: str) -> None:
        self.image = image
        self.started: list[str] = []
        self.networks: list[str] = []

    def run(self, *args: str, command: tuple[str, ...] = ()) -> str:
        """A container started in the background: its id."""
        cid = docker("create", *args, self.image, *command)
        self.started.append(cid)
        docker("start", cid)
        return cid

    def run_to_end(self, *args: str, command: tuple[str, ...], timeout: float = 90) -> str:
        """A container run to its exit: its output (AssertionError if its status is not 0)."""
        cid = docker("create", *args, self.image, *command)
        self.started.append(cid)
        docker("start", "-a", cid, timeout=timeout, check=False)
        status = docker("inspect", "-f", "{{.State.ExitCode}}", cid)
        output = self.logs(cid)
        assert status == "0", f"exit status {status}: {output}"
        return output

    def network(self) -> str:
        nid = docker("network", "create", f"sqsmock-test-{uuid.uuid4().hex[:12]}")
        self.networks.append(nid)
        return nid

    def endpoint(self, cid: str, port: int = 9324) -> str:
        """``http://127.0.0.1:<host port>`` of a container's published ``port``, once it answers
        its health check."""
        mapped = docker("port", cid, f"{port}/tcp").splitlines()[0]
        url = f"http://127.0.0.1:{mapped.rsplit(':', 1)[1]}"
        wait_until(lambda: _health(url) == 200, f"{url} to answer", cid)
        return url

    def logs(self, cid: str) -> str:
        done = subprocess.run(["docker", "logs", cid], capture_output=True, text=True, check=True)
        return done.stdout + done.stderr

    def close(self) -> None:
        for cid in reversed(self.started):
            docker("rm", "-f", "-v", cid, check=False)
        for nid in self.networks:
            docker("network", "rm", nid, check=False)


@pytest.fixture
def containers(image: str) -> Iterator[Containers]:
    started = Containers(image)
    try:
        yield started
    finally:
        started.close()


def _health(url: str, path: str = "/_sqsmock/health") -> int | None:
    try:
        with urllib.request.urlopen(url + path, timeout=2) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def wait_until(ready: Callable[[], bool], what: str, cid: str, limit: float = 60) -> None:
    """Poll a real container until ``ready()`` (it starts in its own time, not the mock's)."""
    deadline = time.monotonic() + limit
    while not ready():
        ended = docker("inspect", "-f", "{{.State.Status}}", cid) == "exited"
        if ended or time.monotonic() > deadline:
            logs = subprocess.run(["docker", "logs", cid], capture_output=True, text=True)
            why = "it exited" if ended else f"waited {limit:g}s"
            raise AssertionError(f"{why} before {what}: {logs.stdout}{logs.stderr}")
        time.sleep(0.2)


def client(url: str) -> Any:
    return boto3.client("sqs", endpoint_url=url, region_name="us-east-1", **CREDENTIALS)


def test_it_answers_its_health_check_on_the_port_its_variable_names(containers: Containers):
    cid = containers.run("-e", "SQSMOCK_PORT=9400", "-p", "127.0.0.1::9400")
    url = containers.endpoint(cid, 9400)
    with urllib.request.urlopen(url + "/_sqsmock/health", timeout=5) as answer:
        assert json.load(answer)["status"] == "ok"

    def healthy() -> bool:
        status = docker("inspect", "-f", "{{.State.Health.Status}}", cid)
        assert status in ("starting", "healthy"), status
        return status == "healthy"

    wait_until(healthy, "Docker's HEALTHCHECK to pass", cid)


def test_an_sdk_round_trip_through_the_port_mapping(containers: Containers):
    cid = containers.run("-p", "127.0.0.1::9324")
    sqs = client(containers.endpoint(cid))
    queue_url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    assert queue_url.endswith("/123456789012/orders")
    sqs.send_message(QueueUrl=queue_url, MessageBody="hello from the host")
    got = sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=1)["Messages"]
    assert [m["Body"] for m in got] == ["hello from the host"]
    sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=got[0]["ReceiptHandle"])


def test_localstack_mode_reads_localstacks_variables_and_runs_mounted_init_scripts(
    containers: Containers, tmp_path: Path
):
    scripts = tmp_path / "ready.d"
    scripts.mkdir()
    (scripts / "01-queue.py").write_text(
        "import boto3\n"
        "boto3.client('sqs').create_queue(QueueName='from-init')\n"
        "print('created from-init')\n"
    )
    (scripts / "02-note.sh").write_text('echo "ready.d ran as $(id -un)"\n')
    for path in (tmp_path, scripts, *scripts.iterdir()):
        path.chmod(0o755)  # readable by the image's own user
    cid = containers.run(
        "-e",
        "SQSMOCK_LOCALSTACK=1",
        "-e",
        "SQS_ENDPOINT_STRATEGY=path",
        "-e",
        "LOCALSTACK_HOST=localhost.localstack.cloud:4566",
        "-v",
        f"{scripts}:/etc/localstack/init/ready.d:ro",
        "-p",
        "127.0.0.1::4566",
    )
    url = containers.endpoint(cid, 4566)

    def init_done() -> bool:
        with urllib.request.urlopen(url + "/_localstack/init/ready", timeout=5) as answer:
            return bool(json.load(answer)["completed"])

    wait_until(init_done, "the init scripts to finish", cid)
    sqs = client(url)
    assert sqs.get_queue_url(QueueName="from-init")["QueueUrl"] == (
        "http://localhost.localstack.cloud:4566/queue/us-east-1/000000000000/from-init"
    )
    with urllib.request.urlopen(url + "/_localstack/init", timeout=5) as answer:
        states = {s["name"]: s["state"] for s in json.load(answer)["scripts"]}
    assert states == {"01-queue.py": "SUCCESSFUL", "02-note.sh": "SUCCESSFUL"}
    logs = containers.logs(cid)
    assert "Ready." in logs and "ready.d ran as sqsmock" in logs


def test_it_reads_an_elasticmq_configuration_file_named_by_its_variable(
    containers: Containers, tmp_path: Path
):
    conf = tmp_path / "elasticmq.conf"
    conf.write_text("queues { jobs { defaultVisibilityTimeout = 10 seconds } }\n")
    tmp_path.chmod(0o755)
    conf.chmod(0o644)
    cid = containers.run(
        "-e",
        "SQSMOCK_CONFIG=/etc/sqsmock/elasticmq.conf",
        "-v",
        f"{conf}:/etc/sqsmock/elasticmq.conf:ro",
        "-p",
        "127.0.0.1::9324",
    )
    sqs = client(containers.endpoint(cid))
    queue_url = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])
    assert attributes["Attributes"]["VisibilityTimeout"] == "10"


CLIENT = """
import json, sys, time, urllib.error, urllib.request
import boto3
for _ in range(300):
    try:
        urllib.request.urlopen("http://sqs:9324/_sqsmock/health", timeout=2).close()
        break
    except OSError:
        time.sleep(0.2)
sqs = boto3.client("sqs", endpoint_url="http://sqs:9324", region_name="us-east-1",
                   aws_access_key_id="test", aws_secret_access_key="test")
url = sqs.create_queue(QueueName="jobs")["QueueUrl"]
sqs.send_message(QueueUrl=url, MessageBody="between containers")
body = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"][0]["Body"]
try:
    urllib.request.urlopen("http://unlisted:9324/_sqsmock/health", timeout=5)
    unlisted = 200
except urllib.error.HTTPError as error:
    unlisted = error.code
print(json.dumps({"url": url, "body": body, "unlisted": unlisted}))
"""


def test_a_container_on_its_network_reaches_it_by_the_service_name_it_allows(
    containers: Containers,
):
    network = containers.network()
    containers.run(
        "--network",
        network,
        "--network-alias",
        "sqs",
        "--network-alias",
        "unlisted",
        "-e",
        "SQSMOCK_ALLOW_HOST=sqs",
    )
    output = containers.run_to_end("--network", network, command=("python3", "-c", CLIENT))
    got = json.loads(output.strip().splitlines()[-1])
    assert got["url"] == "http://sqs:9324/queue/us-east-1/123456789012/jobs"
    assert got["body"] == "between containers"
    assert 400 <= got["unlisted"] < 500  # a name not allowed is refused


def test_sigterm_ends_it_cleanly_even_with_a_long_poll_waiting(containers: Containers):
    cid = containers.run("-p", "127.0.0.1::9324")
    url = containers.endpoint(cid)
    sqs = client(url)
    queue_url = sqs.create_queue(QueueName="idle")["QueueUrl"]
    polled: list[Any] = []
    poll = threading.Thread(
        target=lambda: polled.append(
            sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=20).get("Messages", [])
        )
    )
    poll.start()
    wait_until(lambda: _waiting(url) == 1, "the long poll to wait", cid)
    docker("kill", "--signal", "TERM", cid)
    status = docker("wait", cid, timeout=15)  # well before the poll's 20 seconds are up
    poll.join(15)
    assert status == "0", containers.logs(cid)
    assert polled == [[]]  # the waiting poll was answered (empty), not cut off
    assert "stopping" in containers.logs(cid)


def _waiting(url: str) -> int:
    with urllib.request.urlopen(url + "/_sqsmock/queues", timeout=5) as answer:
        return sum(queue["long_polls_waiting"] for queue in json.load(answer))


def test_its_queues_outlive_a_restart_with_redis(containers: Containers):
    """State in Redis (the host's, reached over the host's network) is there again after
    ``docker restart``; the image has the Redis client in it."""
    namespace = f"sqsmock-image-{uuid.uuid4().hex[:12]}:"
    with real_namespace(redis.Redis(host="127.0.0.1", port=6379), namespace):
        cid = containers.run(
            "--network",
            "host",
            "-e",
            "SQSMOCK_PORT=0",
            "-e",
            "SQSMOCK_PERSISTENCE=redis://127.0.0.1:6379/0",
            "-e",
            f"SQSMOCK_NAMESPACE={namespace}",
        )
        sqs = client(_serving_url(containers, cid, starts=1))
        queue_url = sqs.create_queue(QueueName="kept")["QueueUrl"]
        sqs.send_message(QueueUrl=queue_url, MessageBody="still here")
        docker("restart", "-t", "10", cid)
        sqs = client(_serving_url(containers, cid, starts=2))
        queue_url = sqs.get_queue_url(QueueName="kept")["QueueUrl"]
        got = sqs.receive_message(QueueUrl=queue_url)["Messages"]
        assert [m["Body"] for m in got] == ["still here"]
        docker("stop", "-t", "10", cid)


def _serving_url(containers: Containers, cid: str, starts: int) -> str:
    """The URL the ``starts``-th start of a container on the host's network printed."""
    found: list[str] = []

    def serving() -> bool:
        lines = [x for x in containers.logs(cid).splitlines() if "serving SQS on" in x]
        if len(lines) < starts:
            return False
        port = lines[starts - 1].split("http://0.0.0.0:", 1)[1].split()[0]
        found.append(f"http://127.0.0.1:{port}")
        return _health(found[-1]) == 200

    wait_until(serving, f"start {starts} to answer", cid)
    return found[-1]


def test_it_runs_as_a_user_of_its_own_with_nothing_of_the_build_left(
    containers: Containers, image: str
):
    config = json.loads(docker("image", "inspect", "-f", "{{json .Config}}", image))
    assert config["User"] == "sqsmock"
    assert set(config["ExposedPorts"]) == {"9324/tcp", "4566/tcp"}
    assert "/data" in config["Volumes"]
    assert config["Cmd"] == ["sqsmock", "serve", "--host", "0.0.0.0"]
    assert "/_sqsmock/health" in " ".join(config["Healthcheck"]["Test"])
    output = containers.run_to_end(
        command=(
            "sh",
            "-c",
            "id -u; stat -c %U /data; touch /data/written && echo writable; "
            "for c in gcc cc make /opt/sqsmock/bin/pip; do command -v $c || true; done",
        )
    )
    assert output.split() == ["10001", "sqsmock", "writable"]
    left = "for d in /root/.cache /tmp/pip* /src; do [ -e $d ] && echo $d; done; true"
    assert containers.run_to_end("--user", "0", command=("sh", "-c", left)) == ""
