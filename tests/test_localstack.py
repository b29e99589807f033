"""Where LocalStack's users land: its SQS developer endpoint (every mode), and ``--localstack``:
port, account, health, queue URL strategies, localstack.cloud host names, init scripts, the
``Ready.`` line; ``--public-url``; requests for other services."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import queue
import select
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.session
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from protocol_samples import QUERY_MODEL_PATH
from server_support import client, request

import sqsmock

ROOT = Path(__file__).resolve().parents[1]
NS = "{http://queue.amazonaws.com/doc/2012-11-05/}"
ACCEPT_JSON = {"Accept": "application/json"}


@pytest.fixture
def server() -> Iterator[sqsmock.SqsServer]:
    with sqsmock.serve(port=0, clock="frozen") as srv:
        yield srv


def get(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def xml_messages(body: bytes) -> list[dict[str, object]]:
    root = ET.fromstring(body)
    out = []
    for m in root.iter(f"{NS}Message"):
        attributes = {
            a.findtext(f"{NS}Name"): a.findtext(f"{NS}Value") for a in m.findall(f"{NS}Attribute")
        }
        out.append({"Body": m.findtext(f"{NS}Body"), "Attributes": attributes})
    return out


def json_messages(body: bytes) -> list[dict[str, object]]:
    found = json.loads(body)["ReceiveMessageResponse"]["ReceiveMessageResult"]
    messages = (found or {}).get("Message", [])
    return messages if isinstance(messages, list) else [messages]


def attributes_of(message: dict[str, object]) -> dict[str, str]:
    entries = message["Attribute"]
    entries = entries if isinstance(entries, list) else [entries]
    return {a["Name"]: a["Value"] for a in entries}  # type: ignore[index]


# -- the developer endpoint, in every mode ------------------------------------------------------


def test_listing_has_no_side_effects(server):
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="message-1")
    sqs.send_message(QueueUrl=url, MessageBody="message-2")
    status, body = get(f"{server.endpoint_url}/_aws/sqs/messages?QueueUrl={url}")
    assert status == 200
    listed = xml_messages(body)
    assert [m["Body"] for m in listed] == ["message-1", "message-2"]
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in listed] == ["0", "0"]
    got = sqs.receive_message(
        QueueUrl=url, VisibilityTimeout=0, MaxNumberOfMessages=1, AttributeNames=["All"]
    )
    assert got["Messages"][0]["Attributes"]["ApproximateReceiveCount"] == "1"
    listed = xml_messages(get(f"{server.endpoint_url}/_aws/sqs/messages?QueueUrl={url}")[1])
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in listed] == ["1", "0"]
    assert [v.receive_count for v in server.peek(url)] == [1, 0]


@pytest.mark.parametrize("protocol", ["query", "json"])
def test_as_a_clients_endpoint_url_for_receive_message(server, protocol, tmp_path):
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    for n, group in ((1, "1"), (2, "1"), (3, "2")):
        sqs.send_message(
            QueueUrl=url,
            MessageBody=f"message-{n}",
            MessageGroupId=group,
            MessageDeduplicationId=str(n),
        )
    endpoint = f"{server.endpoint_url}/_aws/sqs/messages"
    developer = query_client(endpoint, tmp_path) if protocol == "query" else client(endpoint)
    got = developer.receive_message(QueueUrl=url, MaxNumberOfMessages=1)  # max is ignored
    assert [m["Body"] for m in got["Messages"]] == ["message-1", "message-2", "message-3"]
    assert [m["Attributes"]["MessageGroupId"] for m in got["Messages"]] == ["1", "1", "2"]
    assert {m["Attributes"]["ApproximateReceiveCount"] for m in got["Messages"]} == {"0"}
    assert {m["ReceiptHandle"] for m in got["Messages"]} == {"SQS/BACKDOOR/ACCESS"}
    with pytest.raises(ClientError) as exc:
        developer.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="g")
    assert exc.value.response["Error"]["Code"] == "InvalidRequest"
    assert (
        exc.value.response["Error"]["Message"] == "This endpoint only accepts ReceiveMessage calls"
    )
    assert len(server.peek(url)) == 3


def query_client(endpoint: str, tmp_path: Path) -> Any:
    """A botocore SQS client speaking the query protocol (as clients before 1.34.90 do)."""
    models = tmp_path / "models" / "sqs" / "2012-11-05"
    models.mkdir(parents=True)
    (models / "service-2.json").write_bytes(gzip.decompress(QUERY_MODEL_PATH.read_bytes()))
    session = botocore.session.get_session()
    session.get_component("data_loader").search_paths.insert(0, str(tmp_path / "models"))
    return session.create_client(
        "sqs",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        config=Config(retries={"max_attempts": 1}),
    )


def test_listing_gives_every_message_its_first_receive_timestamp(server):
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="received")
    sqs.send_message(QueueUrl=url, MessageBody="never received")
    listed = xml_messages(get(f"{server.endpoint_url}/_aws/sqs/messages?QueueUrl={url}")[1])
    assert [m["Attributes"]["ApproximateFirstReceiveTimestamp"] for m in listed] == ["0", "0"]
    got = sqs.receive_message(
        QueueUrl=url, VisibilityTimeout=0, MaxNumberOfMessages=1, AttributeNames=["All"]
    )
    first = got["Messages"][0]["Attributes"]["ApproximateFirstReceiveTimestamp"]
    assert first != "0"
    listed = xml_messages(get(f"{server.endpoint_url}/_aws/sqs/messages?QueueUrl={url}")[1])
    assert [m["Attributes"]["ApproximateFirstReceiveTimestamp"] for m in listed] == [first, "0"]
    got = client(f"{server.endpoint_url}/_aws/sqs/messages").receive_message(QueueUrl=url)
    assert [m["Attributes"]["ApproximateFirstReceiveTimestamp"] for m in got["Messages"]] == [
        first,
        "0",
    ]


def test_json_on_accept_with_md5s_and_attributes(server):
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="message-1")
    sqs.send_message(QueueUrl=url, MessageBody="message-2")
    status, body = get(
        f"{server.endpoint_url}/_aws/sqs/messages?QueueUrl={url}",
        {"Accept": "application/json"},
    )
    assert status == 200
    messages = json_messages(body)
    assert [m["Body"] for m in messages] == ["message-1", "message-2"]
    assert messages[0]["MD5OfBody"] == "3d6b824fd8c1520e9a047d21fee6fb1f"
    assert messages[1]["MD5OfBody"] == "95ef155b66299d14edf7ed57c468c13b"
    attributes = attributes_of(messages[0])
    assert attributes["SenderId"] and attributes["SentTimestamp"]
    assert "ApproximateReceiveCount" in attributes


def test_show_invisible_and_show_delayed(server):
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    for n in (1, 2, 3):
        sqs.send_message(QueueUrl=url, MessageBody=f"message-{n}")
    sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)
    base = f"{server.endpoint_url}/_aws/sqs/messages?QueueUrl={url}"
    accept = {"Accept": "application/json"}
    hidden = json_messages(get(base + "&ShowInvisible=false", accept)[1])
    assert [m["Body"] for m in hidden] == ["message-2", "message-3"]
    shown = json_messages(get(base + "&ShowInvisible=true", accept)[1])
    assert [m["Body"] for m in shown] == ["message-1", "message-2", "message-3"]
    assert [attributes_of(m)["IsVisible"] for m in shown] == ["false", "true", "true"]

    delayed_url = sqs.create_queue(QueueName="d")["QueueUrl"]
    sqs.send_message(QueueUrl=delayed_url, MessageBody="now")
    sqs.send_message(QueueUrl=delayed_url, MessageBody="later", DelaySeconds=10)
    base = f"{server.endpoint_url}/_aws/sqs/messages?QueueUrl={delayed_url}"
    assert [m["Body"] for m in json_messages(get(base + "&ShowDelayed=0", accept)[1])] == ["now"]
    both = json_messages(get(base + "&ShowDelayed=1", accept)[1])
    assert [(m["Body"], attributes_of(m)["IsDelayed"]) for m in both] == [
        ("now", "false"),
        ("later", "true"),
    ]


def test_is_visible_is_the_messages_own_as_localstack_marks_it(server):
    """Only a message in flight is invisible: one held behind its FIFO group, or delayed, is
    not (LocalStack's test_fifo_list_messages_with_invisible_messages)."""
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(
        QueueName="q.fifo",
        Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
    )["QueueUrl"]
    for n, group in ((1, "1"), (2, "1"), (3, "2")):
        sqs.send_message(QueueUrl=url, MessageBody=f"message-{n}", MessageGroupId=group)
    sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)
    delayed_url = sqs.create_queue(QueueName="d")["QueueUrl"]
    sqs.send_message(QueueUrl=delayed_url, MessageBody="delayed", DelaySeconds=60)
    visible = {}
    for queue_url in (url, delayed_url):
        base = f"{server.endpoint_url}/_aws/sqs/messages?QueueUrl={queue_url}"
        shown = json_messages(get(base + "&ShowInvisible=1&ShowDelayed=1", ACCEPT_JSON)[1])
        visible |= {m["Body"]: attributes_of(m)["IsVisible"] for m in shown}
    assert visible == {
        "message-1": "false",
        "message-2": "true",
        "message-3": "true",
        "delayed": "true",
    }


def test_queue_in_the_path_and_the_errors_localstack_gives(server):
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    accept = {"Accept": "application/json"}
    base = f"{server.endpoint_url}/_aws/sqs/messages"
    assert len(json_messages(get(f"{base}/us-east-1/123456789012/q", accept)[1])) == 1
    status, body = get(f"{base}/us-east-2/123456789012/q", accept)  # another region
    assert status == 400
    assert json.loads(body)["ErrorResponse"]["Error"]["Code"] == (
        "AWS.SimpleQueueService.NonExistentQueue"
    )
    status, body = get(base, accept)  # no queue URL
    assert status == 400
    assert json.loads(body)["ErrorResponse"]["Error"]["Code"] == (
        "AWS.SimpleQueueService.NonExistentQueue"
    )
    status, body = get(f"{base}?QueueUrl=http://localhost:4566/nonsense", accept)
    assert status == 404
    assert json.loads(body)["ErrorResponse"]["Error"]["Code"] == "InvalidAddress"
    status, body = get(f"{base}?QueueUrl=http://localhost:4566/000000000000/nope")
    assert status == 400
    assert ET.fromstring(body).findtext(f"{NS}Error/{NS}Code") == (
        "AWS.SimpleQueueService.NonExistentQueue"
    )


def test_delete_purges(server):
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    status, _ = get(f"{server.endpoint_url}/_aws/sqs/messages?QueueUrl={url}", method="DELETE")
    assert status == 200
    assert server.peek(url) == []


# -- LocalStack mode ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strategy", "made"),
    [
        ("standard", "http://sqs.eu-west-1.localhost.localstack.cloud:{port}/000000000000/q"),
        ("domain", "http://eu-west-1.queue.localhost.localstack.cloud:{port}/000000000000/q"),
        ("path", "http://localhost.localstack.cloud:{port}/queue/eu-west-1/000000000000/q"),
        ("off", "http://localhost.localstack.cloud:{port}/000000000000/q"),
        ("dynamic", "http://127.0.0.1:{port}/queue/eu-west-1/000000000000/q"),
    ],
)
def test_queue_urls_follow_the_endpoint_strategy_and_every_form_is_read(
    strategy, made, monkeypatch
):
    monkeypatch.delenv("LOCALSTACK_HOST", raising=False)
    with sqsmock.serve(port=0, localstack=True, endpoint_strategy=strategy) as srv:
        sqs = client(srv.endpoint_url, region="eu-west-1")
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        assert url == made.format(port=srv.port)
        forms = [
            f"http://sqs.eu-west-1.localhost.localstack.cloud:{srv.port}/000000000000/q",
            f"http://eu-west-1.queue.localhost.localstack.cloud:{srv.port}/000000000000/q",
            f"http://localhost:{srv.port}/queue/eu-west-1/000000000000/q",
            f"http://localhost:{srv.port}/000000000000/q",
            "q",
        ]
        for form in forms:
            sqs.send_message(QueueUrl=form, MessageBody=form)
        assert len(srv.peek(url, region="eu-west-1")) == len(forms)


def create_queue_url(srv: sqsmock.SqsServer, host: str, name: str = "q") -> str:
    """CreateQueue's QueueUrl for a request that names ``host`` in its Host header."""
    answer = request(
        srv.endpoint_url,
        "POST",
        "/",
        f"Action=CreateQueue&QueueName={name}".encode(),
        {"Host": host, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status == 200, answer.body
    return ET.fromstring(answer.body).findtext(f".//{NS}QueueUrl") or ""


@pytest.mark.parametrize(
    ("host", "made"),
    [  # LocalStack's guess_endpoint_strategy_and_host: the form the request's host suggests
        ("sqs.us-east-1.localhost.localstack.cloud:{port}",
         "http://sqs.us-east-1.localhost.localstack.cloud:{port}/000000000000/q"),
        ("queue.localhost.localstack.cloud:{port}",
         "http://queue.localhost.localstack.cloud:{port}/000000000000/q"),
        ("localhost:{port}", "http://localhost:{port}/queue/us-east-1/000000000000/q"),
    ],
)  # fmt: skip
def test_the_dynamic_strategy_builds_the_form_the_requests_host_suggests(host, made):
    with sqsmock.serve(port=0, localstack=True, endpoint_strategy="dynamic") as srv:
        url = create_queue_url(srv, host.format(port=srv.port))
        assert url == made.format(port=srv.port)


@pytest.mark.parametrize(
    ("localstack_host", "strategy", "made"),
    [
        ("127.0.0.1", "standard", "http://sqs.eu-west-2.127.0.0.1:{port}/000000000000/q"),
        ("localstack", "path", "http://localstack:{port}/queue/eu-west-2/000000000000/q"),
        ("localstack:4510", "path", "http://localstack:4510/queue/eu-west-2/000000000000/q"),
        ("[::1]", "off", "http://[::1]:{port}/000000000000/q"),
    ],
)
def test_localstack_host_is_what_urls_are_built_on_with_the_listening_port_by_default(
    localstack_host, strategy, made, monkeypatch
):
    monkeypatch.setenv("LOCALSTACK_HOST", localstack_host)
    monkeypatch.setenv("SQS_ENDPOINT_STRATEGY", strategy)
    with sqsmock.serve(port=0, localstack=True) as srv:
        sqs = client(srv.endpoint_url, region="eu-west-2")
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        assert url == made.format(port=srv.port)
        sqs.send_message(QueueUrl=url, MessageBody="by the URL given out")
        assert [m.body for m in srv.peek(url, region="eu-west-2")] == ["by the URL given out"]


@pytest.mark.parametrize("value", ["http://localstack:4566", "localstack:port", "a/b"])
def test_a_malformed_localstack_host_is_refused_by_name(value, monkeypatch):
    monkeypatch.setenv("LOCALSTACK_HOST", value)
    with pytest.raises(ValueError, match="LOCALSTACK_HOST must be host or host:port"):
        sqsmock.serve(port=0, localstack=True)


def test_the_name_localstack_host_gives_passes_the_host_check(monkeypatch):
    monkeypatch.setenv("LOCALSTACK_HOST", "localstack")
    with sqsmock.serve(port=0, localstack=True) as srv:
        for host in ("localstack", "sqs.us-east-1.localstack"):
            assert create_queue_url(srv, f"{host}:{srv.port}").endswith("/000000000000/q")
        assert "/000000000000/q" in create_queue_url(srv, f"localhost.localstack.cloud:{srv.port}")
        answer = request(srv.endpoint_url, "GET", "/?Action=ListQueues", b"", {"Host": "other"})
        assert answer.status == 403


def test_get_root_answers_as_localstack_does_for_a_health_check():
    with sqsmock.serve(port=0, localstack=True) as srv:
        assert get(srv.endpoint_url) == (200, b"")
        assert get(srv.endpoint_url + "/", method="HEAD")[0] == 200
        status, body = get(f"{srv.endpoint_url}/?Action=ListQueues")
        assert status == 200 and b"ListQueuesResponse" in body  # an SQS call still is one
    with sqsmock.serve(port=0) as srv:  # elsewhere, GET / is an SQS request without an action
        status, body = get(srv.endpoint_url)
        assert status == 400 and b"MissingAction" in body


def test_localstack_mode_defaults_health_and_host_names():
    with sqsmock.serve(port=0, localstack=True) as srv:
        assert srv.account_id == "000000000000"
        status, body = get(f"{srv.endpoint_url}/_localstack/health")
        assert status == 200
        health = json.loads(body)
        assert health["services"]["sqs"] == "running"
        sqs = client(srv.endpoint_url)
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        assert "/000000000000/q" in url
        # LocalStack's host names reach it (they resolve to 127.0.0.1)
        for host in ("localhost.localstack.cloud", "sqs.us-east-1.localhost.localstack.cloud"):
            answer = request(
                srv.endpoint_url,
                "POST",
                "/",
                b"Action=ListQueues",
                {"Host": f"{host}:{srv.port}", "Content-Type": "application/x-www-form-urlencoded"},
            )
            assert answer.status == 200, answer.body


def test_a_request_for_another_service_names_it(server):
    s3 = boto3.client(
        "s3",
        endpoint_url=server.endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        config=Config(retries={"max_attempts": 1}),
    )
    with pytest.raises(ClientError) as exc:
        s3.list_buckets()
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501
    sts = boto3.client(
        "sts",
        endpoint_url=server.endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        config=Config(retries={"max_attempts": 1}),
    )
    with pytest.raises(ClientError) as exc:
        sts.get_caller_identity()
    assert "sqsmock serves SQS and SNS only" in exc.value.response["Error"]["Message"]
    assert "sts" in exc.value.response["Error"]["Message"]


def test_public_url_sets_every_queue_url_and_is_read_back():
    with sqsmock.serve(port=0, public_url="http://sqs.example.test:9999") as srv:
        sqs = client(srv.endpoint_url)
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        assert url == "http://sqs.example.test:9999/queue/us-east-1/123456789012/q"
        assert sqs.list_queues()["QueueUrls"] == [url]
        sqs.send_message(QueueUrl=url, MessageBody="via the public URL")
        [message] = sqs.receive_message(QueueUrl=url)["Messages"]
        assert message["Body"] == "via the public URL"


# -- the command: Ready., init scripts with awslocal and boto3 --------------------------------


@pytest.mark.slow
def test_init_scripts_run_once_serving_and_report_their_state(tmp_path):
    awslocal = shutil.which("awslocal", path=str(Path(sys.executable).parent))
    assert awslocal, "awscli-local is part of the test extra"
    init = tmp_path / "ready.d"
    init.mkdir()
    (init / "01-queues.sh").write_text(
        "set -e\nawslocal sqs create-queue --queue-name from-awslocal\necho created\n"
    )
    (init / "02-send.py").write_text(
        "import boto3\n"
        "sqs = boto3.client('sqs')\n"
        "url = sqs.get_queue_url(QueueName='from-awslocal')['QueueUrl']\n"
        "sqs.send_message(QueueUrl=url, MessageBody='from boto3')\n"
        "print('sent')\n"
    )
    (init / "03-fails.sh").write_text("echo about to fail\nexit 3\n")
    log = tmp_path / "stderr"
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }
    with open(log, "wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "sqsmock", "serve", "--localstack", "--port", "0",
             "--init-dir", str(init)],
            stdout=subprocess.PIPE, stderr=stderr, cwd=ROOT, env=env, bufsize=0,
        )  # fmt: skip
    try:
        assert process.stdout is not None
        stdout = process.stdout
        printed: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: [printed.put(line.decode().strip()) for line in stdout], daemon=True
        ).start()
        lines: list[str] = []
        deadline = time.monotonic() + 30
        while "Ready." not in lines and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                lines.append(printed.get(timeout=1))
        assert "Ready." in lines, lines
        endpoint = lines[0].split(" on ", 1)[1].split(" ", 1)[0]
        state: dict[str, object] = {}
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            state = json.loads(get(f"{endpoint}/_localstack/init/ready")[1])
            if state["completed"]:
                break
            select.select([], [], [], 0.2)  # a real process's scripts: a bounded poll
        assert state["completed"] is True, state
        assert [(s["name"], s["state"]) for s in state["scripts"]] == [  # type: ignore[union-attr]
            ("01-queues.sh", "SUCCESSFUL"),
            ("02-send.py", "SUCCESSFUL"),
            ("03-fails.sh", "ERROR"),
        ]
        whole = json.loads(get(f"{endpoint}/_localstack/init")[1])
        assert whole["completed"]["READY"] is True
        sqs = client(endpoint)
        url = sqs.get_queue_url(QueueName="from-awslocal")["QueueUrl"]
        assert "/000000000000/from-awslocal" in url
        [message] = sqs.receive_message(QueueUrl=url)["Messages"]
        assert message["Body"] == "from boto3"
    finally:
        process.terminate()
        process.wait(20)
        if process.stdout is not None:
            process.stdout.close()
    text = log.read_text()
    assert "01-queues.sh" in text and "created" in text
    assert "03-fails.sh failed (exit status 3)" in text


@pytest.mark.slow
def test_a_compose_style_start_relative_init_dir_environment_region_and_localstack_host(tmp_path):
    """As a compose file starts it: ``--init-dir ready.d`` relative to the working directory,
    ``AWS_DEFAULT_REGION`` and ``LOCALSTACK_HOST`` (no port) in the environment, a script that
    makes a queue with a dead-letter queue by an ARN of that region, ``curl -f`` on ``/``."""
    init = tmp_path / "ready.d"
    init.mkdir()
    (init / "01-queues.py").write_text(
        "import boto3\n"
        "sqs = boto3.client('sqs')\n"
        "sqs.create_queue(QueueName='orders-dlq')\n"
        "policy = '{\"deadLetterTargetArn\": \"arn:aws:sqs:eu-west-2:000000000000:orders-dlq\",'\n"
        "policy += ' \"maxReceiveCount\": \"3\"}'\n"
        "url = sqs.create_queue(QueueName='orders', Attributes={'RedrivePolicy': policy})\n"
        "print(url['QueueUrl'])\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "AWS_DEFAULT_REGION": "eu-west-2",
        "LOCALSTACK_HOST": "localstack",
    }
    env.pop("AWS_REGION", None)
    log = tmp_path / "stderr"
    with open(log, "wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "sqsmock", "serve", "--localstack", "--port", "0",
             "--init-dir", "ready.d"],
            stdout=subprocess.PIPE, stderr=stderr, cwd=tmp_path, env=env,
        )  # fmt: skip
    try:
        assert process.stdout is not None
        first = process.stdout.readline().decode()
        endpoint = first.split(" on ", 1)[1].split(" ", 1)[0]
        port = endpoint.rsplit(":", 1)[1]
        assert get(endpoint) == (200, b"")  # curl -f http://localhost:4566
        state: dict[str, object] = {}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = json.loads(get(f"{endpoint}/_localstack/init/ready")[1])
            if state["completed"]:
                break
            select.select([], [], [], 0.2)  # a real process's scripts: a bounded poll
        assert state["scripts"] == [
            {"stage": "READY", "name": "01-queues.py", "state": "SUCCESSFUL"}
        ], log.read_text()
        url = client(endpoint, region="eu-west-2").get_queue_url(QueueName="orders")["QueueUrl"]
        assert url == f"http://sqs.eu-west-2.localstack:{port}/000000000000/orders"
    finally:
        process.terminate()
        process.wait(20)
        if process.stdout is not None:
            process.stdout.close()
    assert f"01-queues.py: http://sqs.eu-west-2.localstack:{port}/000000000000/orders" in (
        log.read_text()
    )
