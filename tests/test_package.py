"""The package introduces itself: its version, its licence in the wheel and sdist, one clear
paragraph when an extra is missing, config files on the command line, one ``sqsmock:`` prefix."""

from __future__ import annotations

import email
import os
import select
import shutil
import socket
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest
from server_support import client

import sqsmock

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sqsmock", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


@pytest.mark.slow
def test_version_from_the_command_and_the_module():
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"sqsmock {sqsmock.__version__}"
    script = Path(sys.executable).with_name("sqsmock")
    assert subprocess.run([script, "--version"], capture_output=True, text=True).stdout.strip() == (
        f"sqsmock {sqsmock.__version__}"
    )


@pytest.mark.slow
def test_a_bad_config_file_exits_non_zero_naming_the_file_queue_and_attribute(tmp_path):
    path = tmp_path / "queues.toml"
    path.write_text("[queues.ok]\n[queues.jobs]\nattributes = { DelaySeconds = 901 }\n")
    result = run("serve", "--port", "0", "--config", str(path), timeout=30)
    assert result.returncode == 2
    assert result.stderr.startswith(f"sqsmock: {path}: queue 'jobs', attribute 'DelaySeconds'")
    assert "Traceback" not in result.stderr
    assert "sqsmock: sqsmock" not in result.stderr


@pytest.mark.slow
def test_a_persistence_failure_is_prefixed_once():
    result = run("wipe", "--persistence", "redis://127.0.0.1:1/0", "--timeout", "1")
    assert result.returncode == 1
    assert result.stderr.startswith("sqsmock persistence failed:"), result.stderr
    assert "sqsmock: sqsmock" not in result.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.slow
def test_serve_takes_port_host_account_and_queues_from_an_elasticmq_conf(tmp_path):
    port = free_port()
    conf = tmp_path / "elasticmq.conf"
    conf.write_text(
        'include classpath("application.conf")\n'
        f'rest-sqs {{ enabled = true\n bind-port = {port}\n bind-hostname = "127.0.0.1" }}\n'
        "rest-stats { enabled = true }\n"
        "aws { region = eu-west-1\n accountId = 000000000000 }\n"
        "queues { jobs { delay = 0 seconds } }\n"
    )
    log = tmp_path / "stderr"
    with open(log, "wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "sqsmock", "serve", "--config", str(conf)],
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready, "sqsmock serve printed no endpoint"
        line = process.stdout.readline().decode()
        served = f"on http://127.0.0.1:{port} (region eu-west-1, account 000000000000; "
        assert served + "ElasticMQ mode" in line
        sqs = client(f"http://127.0.0.1:{port}", region="eu-west-1")
        url = f"http://127.0.0.1:{port}/000000000000/jobs"
        sqs.send_message(QueueUrl=url, MessageBody="hello")
        [message] = sqs.receive_message(QueueUrl=url)["Messages"]
        assert message["Body"] == "hello"
    finally:
        process.terminate()
        process.wait(20)
        if process.stdout is not None:
            process.stdout.close()
    warnings = log.read_text()
    assert "warning:" in warnings and "rest-stats is not supported" in warnings


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and sdist, built from this checkout."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


@pytest.mark.slow
def test_the_wheel_and_sdist_ship_the_licence_as_an_spdx_expression(built):
    [wheel] = built.glob("sqsmock-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        [metadata_name] = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_bytes(archive.read(metadata_name))
        [license_name] = [n for n in names if n.endswith("licenses/LICENSE")]
        assert archive.read(license_name).startswith(b"MIT License")
        assert "sqsmock/py.typed" in names
    assert metadata["Version"] == sqsmock.__version__
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert not [c for c in metadata.get_all("Classifier") if c.startswith("License ::")]
    assert "elasticmq" in metadata.get_all("Provides-Extra")
    [sdist] = built.glob("sqsmock-*.tar.gz")
    with tarfile.open(sdist) as archive:
        assert any(name.endswith("/LICENSE") for name in archive.getnames())


@pytest.mark.slow
def test_serve_without_the_server_extra_names_the_extra_instead_of_a_traceback(built, tmp_path):
    [wheel] = built.glob("sqsmock-*.whl")
    home = tmp_path / "env"
    venv.create(home, with_pip=True)
    python = home / "bin" / "python"
    # the wheel with its own dependencies only: no aiohttp (the server extra), from pip's cache
    subprocess.run(
        [python, "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert subprocess.run([python, "-c", "import aiohttp"], capture_output=True).returncode != 0
    result = subprocess.run(
        [home / "bin" / "sqsmock", "serve", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "pip install 'sqsmock[server]'" in result.stderr
    assert result.stderr.startswith("sqsmock: sqsmock serve needs aiohttp, which is not installed")
    # and from Python: the same paragraph in the exception
    code = (
        "import sqsmock\n"
        "try:\n"
        "    sqsmock.serve(port=0).start()\n"
        "except ModuleNotFoundError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    assert "pip install 'sqsmock[server]'" in out.stdout
    shutil.rmtree(home)
