"""moto's services deliver into sqsmock's queues while both mocks are active.

Each delivery path runs with both nesting orders (moto's ``mock_aws`` outside sqsmock's
``mock_sqs``, and the reverse): SNS subscriptions (raw and enveloped, message attributes, FIFO),
S3 event notifications, EventBridge rule targets (with an input transformer, FIFO), and Lambda's
``create_event_source_mapping`` of a sqsmock queue's ARN. moto on its own -- before sqsmock
starts, after it stops, and for a queue only moto has -- keeps its own behaviour.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import boto3
import moto.awslambda.models
import moto.events.models
import moto.sns.models
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.sqs.models import SQSBackend, sqs_backends
from sqs_asserts import attributes_md5

from sqsmock import mock_sqs

REGION = "us-east-1"
ACCOUNT = "123456789012"
ROOT = Path(__file__).resolve().parent.parent


#: The clients of the test running with ``both``, by service: made once each in the test, as
#: an application keeps its clients. Other tests make a new client at every call.
_clients: dict[str, Any] | None = None


@pytest.fixture(params=["moto-outside", "sqsmock-outside"])
def both(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Both mocks active, nested in either order; the sqsmock handle."""
    global _clients
    sqsmock_mock, moto_mock = mock_sqs(), mock_aws()
    with ExitStack() as stack:
        if request.param == "moto-outside":
            stack.enter_context(moto_mock)
            handle = stack.enter_context(sqsmock_mock)
        else:
            handle = stack.enter_context(sqsmock_mock)
            stack.enter_context(moto_mock)
        _clients = {}
        try:
            yield handle
        finally:
            _clients = None


def client(service: str) -> Any:
    if _clients is None:
        return boto3.client(service, region_name=REGION)
    if service not in _clients:
        _clients[service] = boto3.client(service, region_name=REGION)
    return _clients[service]


def make_queue(name: str, **attributes: str) -> tuple[str, str]:
    sqs = client("sqs")
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
    return url, arn["QueueArn"]


def receive(url: str, count: int = 10) -> list[dict[str, Any]]:
    answer = client("sqs").receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=count,
        MessageAttributeNames=["All"],
        AttributeNames=["All"],
    )
    return list(answer.get("Messages", []))


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def moto_queues() -> dict[str, Any]:
    """The queues moto's own SQS backend holds (sqsmock's never appear there)."""
    return dict(sqs_backends[ACCOUNT][REGION].queues)


def subscribe(topic_arn: str, queue_arn: str, raw: bool) -> None:
    attributes = {"RawMessageDelivery": "true"} if raw else {}
    client("sns").subscribe(
        TopicArn=topic_arn, Protocol="sqs", Endpoint=queue_arn, Attributes=attributes
    )


# -- SNS ----------------------------------------------------------------------------------------

SNS_ATTRIBUTES = {
    "colour": {"DataType": "String", "StringValue": "blue"},
    "count": {"DataType": "Number", "StringValue": "12"},
    "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff"},
    "label": {"DataType": "String.custom", "StringValue": "x"},
}


def test_sns_raw_delivery_maps_message_attributes(both: Any) -> None:
    url, arn = make_queue("orders")
    topic = client("sns").create_topic(Name="events")["TopicArn"]
    subscribe(topic, arn, raw=True)

    client("sns").publish(TopicArn=topic, Message="hello", MessageAttributes=SNS_ATTRIBUTES)

    [message] = receive(url)
    assert message["Body"] == "hello"
    assert message["MessageAttributes"] == SNS_ATTRIBUTES
    assert message["MD5OfBody"] == md5("hello")
    assert message["MD5OfMessageAttributes"] == attributes_md5(SNS_ATTRIBUTES)
    assert message["Attributes"]["ApproximateReceiveCount"] == "1"
    # the message is sqsmock's, delivered as a SendMessage it answered; moto's SQS holds nothing
    [sent] = both.calls.of("SendMessage")
    assert sent.params["QueueUrl"] == url
    assert sent.params["MessageBody"] == "hello"
    assert moto_queues() == {}


def test_sns_enveloped_delivery_is_motos_envelope(both: Any) -> None:
    url, arn = make_queue("orders")
    topic = client("sns").create_topic(Name="events")["TopicArn"]
    subscribe(topic, arn, raw=False)

    published = client("sns").publish(
        TopicArn=topic,
        Message='{"order": 7}',
        Subject="new order",
        MessageAttributes={"colour": {"DataType": "String", "StringValue": "blue"}},
    )

    [message] = receive(url)
    envelope = json.loads(message["Body"])
    assert envelope["Type"] == "Notification"
    assert envelope["MessageId"] == published["MessageId"]
    assert envelope["TopicArn"] == topic
    assert envelope["Message"] == '{"order": 7}'
    assert envelope["Subject"] == "new order"
    assert envelope["MessageAttributes"] == {"colour": {"Type": "String", "Value": "blue"}}
    assert set(envelope) == {
        "Type",
        "MessageId",
        "TopicArn",
        "Message",
        "Subject",
        "MessageAttributes",
        "Timestamp",
        "SignatureVersion",
        "Signature",
        "SigningCertURL",
        "UnsubscribeURL",
    }
    # byte for byte as moto writes it: sorted keys, two-space indent
    assert message["Body"] == json.dumps(envelope, sort_keys=True, indent=2, separators=(",", ": "))
    assert message["MD5OfBody"] == md5(message["Body"])
    # an enveloped delivery carries the attributes inside the envelope only
    assert "MessageAttributes" not in message
    assert moto_queues() == {}


def test_sns_fifo_topic_passes_group_and_deduplication_ids(both: Any) -> None:
    url, arn = make_queue("orders.fifo", FifoQueue="true")
    topic = client("sns").create_topic(Name="events.fifo", Attributes={"FifoTopic": "true"})
    subscribe(topic["TopicArn"], arn, raw=True)
    sns = client("sns")

    for body, dedup in [("first", "d1"), ("again", "d1"), ("second", "d2")]:
        sns.publish(
            TopicArn=topic["TopicArn"],
            Message=body,
            MessageGroupId="g1",
            MessageDeduplicationId=dedup,
        )

    messages = receive(url)
    # "again" repeats d1 within five minutes: sqsmock's deduplication drops it
    assert [m["Body"] for m in messages] == ["first", "second"]
    attributes = [m["Attributes"] for m in messages]
    assert [a["MessageGroupId"] for a in attributes] == ["g1", "g1"]
    assert [a["MessageDeduplicationId"] for a in attributes] == ["d1", "d2"]
    sequence = [int(a["SequenceNumber"]) for a in attributes]
    assert sequence[0] < sequence[1]
    assert len(attributes[0]["SequenceNumber"]) == 20


def test_sns_content_based_topic_passes_the_sha256_of_the_message(both: Any) -> None:
    # the queue has no content-based deduplication: SNS's own id must reach it
    url, arn = make_queue("orders.fifo", FifoQueue="true")
    topic = client("sns").create_topic(
        Name="events.fifo",
        Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"},
    )["TopicArn"]
    subscribe(topic, arn, raw=True)

    for body in ["same", "same", "other"]:
        client("sns").publish(TopicArn=topic, Message=body, MessageGroupId="g")

    messages = receive(url)
    assert [m["Body"] for m in messages] == ["same", "other"]
    assert messages[0]["Attributes"]["MessageDeduplicationId"] == (
        hashlib.sha256(b"same").hexdigest()
    )


@pytest.mark.skipif(
    not hasattr(moto.sns.models, "QueueDoesNotExist"),
    reason="this moto's subscribe does not look the queue up",
)
def test_sns_subscribe_refuses_a_fifo_queue_for_a_standard_topic(both: Any) -> None:
    _, arn = make_queue("orders.fifo", FifoQueue="true")
    topic = client("sns").create_topic(Name="events")["TopicArn"]
    with pytest.raises(ClientError) as caught:
        subscribe(topic, arn, raw=True)
    assert "FIFO SQS Queues can not be subscribed" in caught.value.response["Error"]["Message"]


def test_sns_delivery_refused_by_sqsmock_fails_the_publish_as_in_moto(both: Any) -> None:
    url, arn = make_queue("small", MaximumMessageSize="1024")
    topic = client("sns").create_topic(Name="events")["TopicArn"]
    subscribe(topic, arn, raw=True)

    with pytest.raises(ClientError) as caught:
        client("sns").publish(TopicArn=topic, Message="x" * 1025)

    assert caught.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert "Message must be shorter than 1024 bytes" in str(caught.value)
    assert receive(url) == []


def test_sns_fifo_topic_to_a_standard_queue_keeps_the_deduplication_id_out(both: Any) -> None:
    # SQS refuses MessageDeduplicationId on a standard queue: SNS passes it to FIFO queues only
    url, arn = make_queue("orders")
    topic = client("sns").create_topic(Name="events.fifo", Attributes={"FifoTopic": "true"})
    subscribe(topic["TopicArn"], arn, raw=True)

    client("sns").publish(
        TopicArn=topic["TopicArn"], Message="m", MessageGroupId="g", MessageDeduplicationId="d"
    )

    [message] = receive(url)
    assert message["Body"] == "m"
    assert "MessageDeduplicationId" not in message["Attributes"]
    assert "SequenceNumber" not in message["Attributes"]


def test_sqsmock_fault_rules_apply_to_deliveries(both: Any) -> None:
    url, arn = make_queue("orders")
    topic = client("sns").create_topic(Name="events")["TopicArn"]
    subscribe(topic, arn, raw=True)
    both.faults.add("SendMessage", error="RequestThrottled", times=1)

    with pytest.raises(ClientError) as caught:
        client("sns").publish(TopicArn=topic, Message="first")
    client("sns").publish(TopicArn=topic, Message="second")

    assert caught.value.response["Error"]["Code"] == "RequestThrottled"
    assert [m["Body"] for m in receive(url)] == ["second"]


def test_moto_delivers_in_its_own_account_whatever_the_arn_names() -> None:
    # moto's SNS looks the queue up in the subscription's account: a sqsmock of another account
    # does not have it there, and moto, holding no such queue either, refuses as it does alone
    with mock_aws(), mock_sqs(account_id="111111111111") as handle:
        url, arn = make_queue("orders")
        assert ":111111111111:" in arn
        topic = client("sns").create_topic(Name="events")["TopicArn"]
        subscribe(topic, arn, raw=True)
        with pytest.raises(ClientError) as caught:
            client("sns").publish(TopicArn=topic, Message="m")
        assert caught.value.response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
        assert handle.peek(url) == []


# -- S3 -----------------------------------------------------------------------------------------


def test_s3_event_notification(both: Any) -> None:
    url, arn = make_queue("uploads")
    s3 = client("s3")
    s3.create_bucket(Bucket="my-bucket")
    s3.put_bucket_notification_configuration(
        Bucket="my-bucket",
        NotificationConfiguration={
            "QueueConfigurations": [{"QueueArn": arn, "Events": ["s3:ObjectCreated:*"]}]
        },
    )
    s3.put_object(Bucket="my-bucket", Key="report.csv", Body=b"1,2,3")

    test_event, created = (json.loads(m["Body"]) for m in receive(url))
    # S3 checks the configuration with a test event, then reports the upload
    assert test_event["Event"] == "s3:TestEvent"
    assert test_event["Bucket"] == "my-bucket"
    [record] = created["Records"]
    assert record["eventSource"] == "aws:s3"
    assert record["eventName"] == "ObjectCreated:Put"
    assert record["s3"]["bucket"]["name"] == "my-bucket"
    assert record["s3"]["object"]["key"] == "report.csv"
    assert record["s3"]["object"]["size"] == 5
    assert [c.operation for c in both.calls.of("SendMessage")] == ["SendMessage"] * 2
    assert moto_queues() == {}


# -- EventBridge --------------------------------------------------------------------------------


def put_rule(target: dict[str, Any], source: str = "shop.orders") -> None:
    events = client("events")
    events.put_rule(Name="orders", EventPattern=json.dumps({"source": [source]}))
    events.put_targets(Rule="orders", Targets=[{"Id": "to-sqs", **target}])


def put_event(source: str = "shop.orders") -> str:
    answer = client("events").put_events(
        Entries=[
            {
                "Source": source,
                "DetailType": "OrderPlaced",
                "Detail": json.dumps({"order": {"id": 7, "customer": "ann"}}),
            }
        ]
    )
    assert answer["FailedEntryCount"] == 0
    return str(answer["Entries"][0]["EventId"])


def test_eventbridge_rule_target(both: Any) -> None:
    url, arn = make_queue("orders")
    put_rule({"Arn": arn})

    event_id = put_event()
    put_event(source="shop.other")  # matches no rule

    [message] = receive(url)
    event = json.loads(message["Body"])
    assert event["id"] == event_id
    assert event["source"] == "shop.orders"
    assert event["detail-type"] == "OrderPlaced"
    assert event["detail"] == {"order": {"id": 7, "customer": "ann"}}
    assert message["MD5OfBody"] == md5(message["Body"])
    assert moto_queues() == {}


@pytest.mark.skipif(
    not hasattr(moto.events.models, "EventTemplateParser"),
    reason="this moto delivers the event without applying the input transformer",
)
def test_eventbridge_input_transformer(both: Any) -> None:
    url, arn = make_queue("orders")
    put_rule(
        {
            "Arn": arn,
            "InputTransformer": {
                "InputPathsMap": {"who": "$.detail.order.customer", "id": "$.detail.order.id"},
                "InputTemplate": '{"greeting": "hi <who>", "order": <id>}',
            },
        }
    )

    put_event()

    [message] = receive(url)
    assert json.loads(message["Body"]) == {"greeting": "hi ann", "order": 7}


def test_eventbridge_fifo_target_with_group_id(both: Any) -> None:
    url, arn = make_queue("orders.fifo", FifoQueue="true", ContentBasedDeduplication="true")
    put_rule({"Arn": arn, "SqsParameters": {"MessageGroupId": "orders"}})

    put_event()

    [message] = receive(url)
    assert message["Attributes"]["MessageGroupId"] == "orders"
    assert message["Attributes"]["MessageDeduplicationId"] == (
        hashlib.sha256(message["Body"].encode()).hexdigest()
    )
    assert "SequenceNumber" in message["Attributes"]


def test_eventbridge_fifo_target_needs_content_based_deduplication(both: Any) -> None:
    # moto reads the queue's ContentBasedDeduplication (from sqsmock here) and, as EventBridge
    # needs it for a FIFO target, warns and delivers nothing
    url, arn = make_queue("orders.fifo", FifoQueue="true")
    put_rule({"Arn": arn, "SqsParameters": {"MessageGroupId": "orders"}})

    with pytest.warns(UserWarning, match="content-based deduplication"):
        put_event()

    assert receive(url) == []
    assert both.calls.of("SendMessage") == []


# -- Lambda -------------------------------------------------------------------------------------


def make_function() -> str:
    role = client("iam").create_role(RoleName="fn-role", AssumeRolePolicyDocument="{}")
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("handler.py", "def handle(event, context):\n    return None\n")
    function = client("lambda").create_function(
        FunctionName="consume",
        Runtime="python3.11",
        Role=role["Role"]["Arn"],
        Handler="handler.handle",
        Code={"ZipFile": code.getvalue()},
    )
    return str(function["FunctionArn"])


def test_lambda_event_source_mapping_accepts_a_sqsmock_queue(both: Any) -> None:
    _, arn = make_queue("work")
    function_arn = make_function()
    lam = client("lambda")

    created = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName="consume")

    assert created["EventSourceArn"] == arn
    assert created["FunctionArn"] == function_arn
    fetched = lam.get_event_source_mapping(UUID=created["UUID"])
    assert fetched["EventSourceArn"] == arn
    listed = lam.list_event_source_mappings(EventSourceArn=arn)["EventSourceMappings"]
    assert [m["UUID"] for m in listed] == [created["UUID"]]
    # moto's SQS is left as it was: the queue was listed there only during the call
    assert moto_queues() == {}


def test_lambda_event_source_mapping_still_refuses_an_unknown_queue(both: Any) -> None:
    _, arn = make_queue("work")
    make_function()

    for unknown in [f"{arn}-gone", arn.replace(REGION, "eu-west-1")]:
        with pytest.raises(ClientError) as caught:
            client("lambda").create_event_source_mapping(
                EventSourceArn=unknown, FunctionName="consume"
            )
        assert caught.value.response["Error"]["Code"] == "ResourceNotFoundException"


# -- decorators ---------------------------------------------------------------------------------


def _publish_and_receive() -> list[dict[str, Any]]:
    url, arn = make_queue("orders")
    topic = client("sns").create_topic(Name="events")["TopicArn"]
    subscribe(topic, arn, raw=True)
    client("sns").publish(TopicArn=topic, Message="decorated")
    return receive(url)


@mock_aws
@mock_sqs
def test_decorators_moto_outside() -> None:
    assert [m["Body"] for m in _publish_and_receive()] == ["decorated"]
    assert moto_queues() == {}


@mock_sqs
@mock_aws
def test_decorators_sqsmock_outside() -> None:
    assert [m["Body"] for m in _publish_and_receive()] == ["decorated"]
    assert moto_queues() == {}


# -- moto on its own ----------------------------------------------------------------------------


def _moto_sns_to_moto_sqs() -> list[str]:
    """SNS to SQS with moto alone answering: the bodies moto's queue holds."""
    url, arn = make_queue("moto-only")
    assert "moto-only" in moto_queues()
    topic = client("sns").create_topic(Name="events")["TopicArn"]
    subscribe(topic, arn, raw=True)
    client("sns").publish(TopicArn=topic, Message="for moto")
    return [m["Body"] for m in receive(url)]


def test_moto_alone_is_unchanged() -> None:
    with mock_sqs():  # sqsmock has been active in this process, and has stopped
        pass
    with mock_aws():
        assert _moto_sns_to_moto_sqs() == ["for moto"]
    # moto's own methods are back in place
    assert SQSBackend.send_message.__module__ == "moto.sqs.models"
    assert SQSBackend.get_queue.__module__ == "moto.sqs.models"
    assert moto.sns.models.Subscription.publish.__module__ == "moto.sns.models"
    assert moto.awslambda.models.LambdaBackend.create_event_source_mapping.__module__ == (
        "moto.awslambda.models"
    )


def test_moto_alone_after_sqsmock_stops_inside_it() -> None:
    with mock_aws():
        with mock_sqs():
            make_queue("sqsmock-queue")
        # sqsmock stopped: moto answers SQS again, and SNS delivers to moto's queue
        assert _moto_sns_to_moto_sqs() == ["for moto"]
        assert SQSBackend.send_message.__module__ == "moto.sqs.models"


def test_a_queue_only_moto_has_keeps_moto_deliveries() -> None:
    with mock_aws():
        _, arn = make_queue("made-in-moto")  # before sqsmock starts: moto's queue
        with mock_sqs() as handle:
            topic = client("sns").create_topic(Name="events")["TopicArn"]
            subscribe(topic, arn, raw=True)
            client("sns").publish(TopicArn=topic, Message="to moto")
            assert handle.calls.of("SendMessage") == []
            with pytest.raises(LookupError):
                handle.peek("made-in-moto")
        queue = moto_queues()["made-in-moto"]
        assert [m.body for m in queue.messages] == ["to moto"]


@pytest.mark.slow
def test_sqsmock_alone_never_imports_moto() -> None:
    script = (
        "import sys, boto3\n"
        "from sqsmock import mock_sqs\n"
        "with mock_sqs():\n"
        "    boto3.client('sqs', region_name='us-east-1').create_queue(QueueName='q')\n"
        "print(sorted(m for m in sys.modules if m == 'moto' or m.startswith('moto.')))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_moto_imported_after_sqsmock_started() -> None:
    """moto's modules imported only once sqsmock is active (a fresh process): the import hook
    wraps them then."""
    script = (
        "import sys, boto3\n"
        "from sqsmock import mock_sqs\n"
        "with mock_sqs():\n"
        "    assert 'moto.sqs.models' not in sys.modules\n"
        "    from moto import mock_aws\n"
        "    with mock_aws():\n"
        "        sqs = boto3.client('sqs', region_name='us-east-1')\n"
        "        sns = boto3.client('sns', region_name='us-east-1')\n"
        "        url = sqs.create_queue(QueueName='q')['QueueUrl']\n"
        "        arn = 'arn:aws:sqs:us-east-1:123456789012:q'\n"
        "        topic = sns.create_topic(Name='t')['TopicArn']\n"
        "        sns.subscribe(TopicArn=topic, Protocol='sqs', Endpoint=arn,\n"
        "                      Attributes={'RawMessageDelivery': 'true'})\n"
        "        sns.publish(TopicArn=topic, Message='late import')\n"
        "        print(sqs.receive_message(QueueUrl=url)['Messages'][0]['Body'])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "late import"


# -- the oldest moto of the supported range -----------------------------------------------------

#: The oldest moto the ``moto`` extra allows; this environment has the newest pinned (CI's).
OLDEST_MOTO = "5.0.0"
OLD_ENV = ROOT / ".cache" / f"moto-{OLDEST_MOTO}"


def _old_moto_python() -> Path:
    """An environment under ``.cache/`` with the oldest supported moto and this checkout's
    sqsmock (editable), built once and rebuilt when sqsmock's dependencies change."""
    python = OLD_ENV / "bin" / "python"
    # with the oldest botocore sqsmock supports too: moto 5.0.0's Lambda routes predate the
    # paths later botocore releases send CreateEventSourceMapping to
    requirements = [
        f"moto[s3,sns,events,awslambda,iam]=={OLDEST_MOTO}",
        "boto3==1.34.90",
        "botocore==1.34.90",
        "pytest>=7.4",
    ]
    wanted = hashlib.sha256(
        "\n".join([sys.version, *requirements, (ROOT / "pyproject.toml").read_text()]).encode()
    ).hexdigest()
    stamp = OLD_ENV / "sqsmock-fingerprint"
    OLD_ENV.parent.mkdir(exist_ok=True)
    with open(OLD_ENV.parent / f"moto-{OLDEST_MOTO}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and stamp.read_text() == wanted and python.is_file():
            return python
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(OLD_ENV)], check=True)
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "-e", str(ROOT), *requirements],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            raise RuntimeError(f"building {OLD_ENV} failed:\n{done.stdout}\n{done.stderr}")
        stamp.write_text(wanted)
    return python


@pytest.mark.slow
def test_this_module_passes_with_the_oldest_supported_moto() -> None:
    python = _old_moto_python()
    version = subprocess.run(
        [str(python), "-c", "from importlib.metadata import version; print(version('moto'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version == OLDEST_MOTO
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTEST_"))}
    done = subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rA",
            "-m",
            "not slow",
            __file__,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    passed = [line for line in done.stdout.splitlines() if line.startswith("PASSED")]
    assert len(passed) >= 25, done.stdout
