"""Queues declared in a file: TOML (and the same shape as a dict) for ``mock_sqs``, ``serve()``,
``sqsmock serve --config`` and the pytest ini option; validated whole before anything is made."""

from __future__ import annotations

import json
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
import redis
from botocore.exceptions import ClientError
from server_support import client

import sqsmock
from sqsmock import ConfigError, mock_sqs

EXAMPLE = """\
[defaults]                      # optional: region, account
region = "us-east-1"
[queues."orders.fifo"]
region = "eu-west-1"            # optional per queue
attributes = { VisibilityTimeout = 45, ContentBasedDeduplication = true, RedrivePolicy = { deadLetterTargetArn = "orders-dlq.fifo", maxReceiveCount = 5 } }
tags = { team = "payments" }
[queues."orders-dlq.fifo"]
region = "eu-west-1"
"""


def write(tmp_path: Path, text: str, name: str = "queues.toml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def queue_names(region: str = "us-east-1") -> list[str]:
    urls = boto3.client("sqs", region_name=region).list_queues().get("QueueUrls", [])
    return sorted(url.rsplit("/", 1)[1] for url in urls)


def test_the_example_file_makes_its_queues_and_a_failing_message_lands_in_the_dlq(tmp_path):
    with mock_sqs(config=write(tmp_path, EXAMPLE), clock="frozen") as mock:
        sqs = boto3.client("sqs", region_name="eu-west-1")
        url = sqs.get_queue_url(QueueName="orders.fifo")["QueueUrl"]
        attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        assert attributes["FifoQueue"] == "true"  # from the name
        assert attributes["VisibilityTimeout"] == "45"
        assert attributes["ContentBasedDeduplication"] == "true"
        assert json.loads(attributes["RedrivePolicy"]) == {
            "deadLetterTargetArn": "arn:aws:sqs:eu-west-1:123456789012:orders-dlq.fifo",
            "maxReceiveCount": 5,
        }
        assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "payments"}
        assert queue_names("us-east-1") == []  # both queues said eu-west-1

        sqs.send_message(QueueUrl=url, MessageBody="pay 5", MessageGroupId="g")
        for _ in range(5):
            assert len(sqs.receive_message(QueueUrl=url)["Messages"]) == 1
            mock.clock.advance(45)  # the consumer fails: the message comes back
        assert "Messages" not in sqs.receive_message(QueueUrl=url)
        dlq = sqs.get_queue_url(QueueName="orders-dlq.fifo")["QueueUrl"]
        [dead] = sqs.receive_message(QueueUrl=dlq)["Messages"]
        assert dead["Body"] == "pay 5"


def test_defaults_place_queues_and_a_dict_works_as_a_file():
    config = {
        "defaults": {"region": "ap-southeast-2", "account": "111122223333"},
        "queues": {"jobs": {"attributes": {"DelaySeconds": 5}}},
    }
    with mock_sqs(config=config):
        sqs = boto3.client("sqs", region_name="ap-southeast-2")
        url = sqs.get_queue_url(QueueName="jobs", QueueOwnerAWSAccountId="111122223333")["QueueUrl"]
        assert url.endswith("/111122223333/jobs")
        delay = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["DelaySeconds"])
        assert delay["Attributes"]["DelaySeconds"] == "5"


@pytest.mark.parametrize("dlq_first", [True, False])
def test_order_in_the_file_does_not_matter(tmp_path, dlq_first):
    source = '[queues.work]\nattributes = { RedrivePolicy = { deadLetterTargetArn = "dead", maxReceiveCount = 2 } }\n'
    dead = '[queues.dead]\nattributes = { RedriveAllowPolicy = { redrivePermission = "byQueue", sourceQueueArns = ["work"] } }\n'
    text = dead + source if dlq_first else source + dead
    with mock_sqs(config=write(tmp_path, text)):
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.get_queue_url(QueueName="dead")["QueueUrl"]
        allow = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["RedriveAllowPolicy"])
        assert json.loads(allow["Attributes"]["RedriveAllowPolicy"])["sourceQueueArns"] == [
            "arn:aws:sqs:us-east-1:123456789012:work"
        ]
        assert queue_names() == ["dead", "work"]


def test_values_may_be_strings_numbers_booleans_and_policies_json_strings(tmp_path):
    text = """\
    [queues.a]
    attributes = { VisibilityTimeout = "12", MessageRetentionPeriod = 600, SqsManagedSseEnabled = false }
    [queues.b]
    attributes = { RedrivePolicy = '{"deadLetterTargetArn": "arn:aws:sqs:us-east-1:123456789012:a", "maxReceiveCount": 3}' }
    """
    with mock_sqs(config=write(tmp_path, text)):
        sqs = boto3.client("sqs", region_name="us-east-1")
        a = sqs.get_queue_attributes(
            QueueUrl=sqs.get_queue_url(QueueName="a")["QueueUrl"], AttributeNames=["All"]
        )["Attributes"]
        assert (a["VisibilityTimeout"], a["MessageRetentionPeriod"]) == ("12", "600")
        assert a["SqsManagedSseEnabled"] == "false"
        b = sqs.get_queue_attributes(
            QueueUrl=sqs.get_queue_url(QueueName="b")["QueueUrl"], AttributeNames=["RedrivePolicy"]
        )["Attributes"]
        assert json.loads(b["RedrivePolicy"])["maxReceiveCount"] == 3


# -- validation: every error names the file, the queue and the attribute; nothing is made -----

BAD = {
    "attribute value out of range": (
        "[queues.ok]\n[queues.bad]\nattributes = { VisibilityTimeout = 99999 }\n",
        ["queue 'bad'", "attribute 'VisibilityTimeout'", "InvalidAttributeValue"],
    ),
    "unknown attribute": (
        "[queues.ok]\n[queues.bad]\nattributes = { VisibilityTimeOut = 5 }\n",
        ["queue 'bad'", "attribute 'VisibilityTimeOut'", "Unknown Attribute"],
    ),
    "FIFO attribute on a standard queue": (
        "[queues.ok]\n[queues.bad]\nattributes = { ContentBasedDeduplication = true }\n",
        ["queue 'bad'", "attribute 'ContentBasedDeduplication'"],
    ),
    "dead-letter queue that is not declared": (
        '[queues.ok]\n[queues.bad]\nattributes = { RedrivePolicy = { deadLetterTargetArn = "nope", maxReceiveCount = 5 } }\n',
        ["queue 'bad'", "attribute 'RedrivePolicy'", "Dead letter target does not exist"],
    ),
    "dead-letter queue of the other type": (
        '[queues.ok]\n[queues."d.fifo"]\n[queues.bad]\nattributes = { RedrivePolicy = { deadLetterTargetArn = "d.fifo", maxReceiveCount = 5 } }\n',
        ["queue 'bad'", "attribute 'RedrivePolicy'", "same type"],
    ),
    "bad queue name": ('[queues.ok]\n[queues."no spaces"]\n', ["queue 'no spaces'"]),
    "table where a number belongs": (
        "[queues.ok]\n[queues.bad]\nattributes = { DelaySeconds = { a = 1 } }\n",
        ["queue 'bad'", "attribute 'DelaySeconds'", "a number, a boolean or a string"],
    ),
    "tag that is not a string": (
        "[queues.ok]\n[queues.bad]\ntags = { n = 1 }\n",
        ["queue 'bad'", "tag 'n' must be a string"],
    ),
    "unknown key of a queue": (
        "[queues.ok]\n[queues.bad]\nattribute = { DelaySeconds = 1 }\n",
        ["queue 'bad'", "unknown key 'attribute'"],
    ),
    "unknown section": ("[queue.ok]\n", ["unknown section 'queue'"]),
    "region typo": (
        '[queues.ok]\n[queues.bad]\nregion = "us-east-l"\n',
        ["queue 'bad'", "did you mean 'us-east-1'?"],
    ),
    "account that is not 12 digits": (
        '[defaults]\naccount = "12345"\n[queues.ok]\n',
        ["[defaults]", "account must be 12 digits"],
    ),
    "not TOML": ("[queues.ok\n", ["not valid TOML"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_every_mistake_is_named_and_nothing_is_created(tmp_path, case):
    text, says = BAD[case]
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as exc:
        mock_sqs(config=path)
    message = str(exc.value)
    assert message.startswith(f"{path}: "), message
    for part in says:
        assert part in message, message
    # the same file given to an active mock's server (all-or-nothing at start)
    with pytest.raises(ConfigError), sqsmock.serve(port=0, config=path):
        pass  # pragma: no cover - the server does not start


def test_a_file_that_is_not_there_is_named(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        mock_sqs(config=str(tmp_path / "missing.toml"))


def test_an_error_at_start_creates_nothing_in_a_persisted_store(tmp_path, fake_redis):
    namespace = f"sqsmock-config-{uuid.uuid4().hex}:"
    bad = write(tmp_path, "[queues.ok]\n[queues.bad]\nattributes = { DelaySeconds = 9999 }\n")
    with pytest.raises(ConfigError):
        mock_sqs(config=bad, persistence=fake_redis, namespace=namespace).start()
    with mock_sqs(persistence=fake_redis, namespace=namespace):
        assert queue_names() == []


def test_reset_brings_the_declared_queues_back_empty(tmp_path):
    with mock_sqs(config=write(tmp_path, "[queues.jobs]\n[queues.more]\n")) as mock:
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="x")
        sqs.create_queue(QueueName="made-by-the-test")
        mock.reset()
        assert queue_names() == ["jobs", "more"]
        assert mock.peek("jobs") == []


def test_a_type_change_against_an_existing_queue_is_refused_before_anything(tmp_path, fake_redis):
    namespace = f"sqsmock-config-{uuid.uuid4().hex}:"
    with mock_sqs(persistence=fake_redis, namespace=namespace):
        boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="jobs")
    # a FIFO-only attribute on "jobs" plus a new queue: the new one must not appear either
    text = "[queues.fresh]\n[queues.jobs]\nattributes = { FifoQueue = true }\n"
    with pytest.raises(ConfigError, match="queue 'jobs'"):
        mock_sqs(config=write(tmp_path, text), persistence=fake_redis, namespace=namespace).start()
    with mock_sqs(persistence=fake_redis, namespace=namespace):
        assert queue_names() == ["jobs"]


@pytest.fixture
def fake_redis() -> Iterator[object]:
    import fakeredis

    yield fakeredis.FakeRedis()


@pytest.fixture
def real_redis_namespace() -> Iterator[str]:
    namespace = f"sqsmock-test-config-{uuid.uuid4().hex}:"
    yield namespace
    client = redis.Redis.from_url("redis://127.0.0.1:6379/0")
    keys = list(client.scan_iter(match=namespace + "*"))
    if keys:
        client.delete(*keys)


def test_starting_again_with_the_same_file_keeps_messages_and_applies_changes(
    tmp_path, real_redis_namespace
):
    options = {"persistence": "redis://127.0.0.1:6379/0", "namespace": real_redis_namespace}
    first = write(tmp_path, "[queues.jobs]\nattributes = { VisibilityTimeout = 30 }\n")
    with mock_sqs(config=first, **options):
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="kept")
    with mock_sqs(config=first, **options):  # the same file again: idempotent
        assert [m.body for m in mock_sqs_peek("jobs")] == ["kept"]
        assert queue_names() == ["jobs"]
    changed = write(
        tmp_path,
        '[queues.jobs]\nattributes = { VisibilityTimeout = 90 }\ntags = { team = "ops" }\n',
    )
    with mock_sqs(config=changed, **options):
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.get_queue_url(QueueName="jobs")["QueueUrl"]
        got = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])
        assert got["Attributes"]["VisibilityTimeout"] == "90"
        assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "ops"}
        [message] = sqs.receive_message(QueueUrl=url)["Messages"]
        assert message["Body"] == "kept"


def mock_sqs_peek(queue: str) -> list[sqsmock.MessageView]:
    url = boto3.client("sqs", region_name="us-east-1").get_queue_url(QueueName=queue)["QueueUrl"]
    from sqsmock._adapters import _stack

    runtime = _stack.active()
    assert runtime is not None
    return runtime.peek(url)


# -- the server ---------------------------------------------------------------------------------


def test_serve_with_a_config_declares_queues_and_its_reset_declares_them_again(tmp_path):
    with sqsmock.serve(port=0, config=write(tmp_path, EXAMPLE)) as server:
        sqs = client(server.endpoint_url, region="eu-west-1")
        url = sqs.get_queue_url(QueueName="orders.fifo")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="g")
        server.reset()
        assert server.peek(url) == []
        assert sqs.get_queue_url(QueueName="orders-dlq.fifo")["QueueUrl"]


# -- ElasticMQ ------------------------------------------------------------------------------------

# ElasticMQ's README, "Configuration" and "Queues" sections.
ELASTICMQ_CONF = """\
include classpath("application.conf")

// What is the outside visible address of this ElasticMQ node
// Used to create the queue URL (may be different from bind address!)
node-address {
  protocol = http
  host = localhost
  port = 9324
  context-path = ""
}

rest-sqs {
  enabled = true
  bind-port = 9324
  bind-hostname = "0.0.0.0"
  // Possible values: relaxed, strict
  sqs-limits = strict
}

rest-stats {
  enabled = true
  bind-port = 9325
  bind-hostname = "0.0.0.0"
}

// Should the node-address be generated from the bind port/hostname
// Set this to true e.g. when assigning port automatically by using port 0.
generate-node-address = false

queues {
  queue1 {
    defaultVisibilityTimeout = 10 seconds
    delay = 5 seconds
    receiveMessageWait = 0 seconds
    deadLettersQueue {
      name = "queue1-dead-letters"
      maxReceiveCount = 3 // from 1 to 1000
    }
    fifo = false
    contentBasedDeduplication = false
    copyTo = "audit-queue-name"
    moveTo = "redirect-queue-name"
    tags {
      tag1 = "tagged1"
      tag2 = "tagged2"
    }
  }
  queue1-dead-letters { }
  audit-queue-name { }
  redirect-queue-name { }
  "orders.fifo" {
    fifo = true
    contentBasedDeduplication = true
  }
}

// Region and accountId which will be included in resource ids
aws {
  region = us-west-2
  accountId = 000000000000
}
"""


def test_an_elasticmq_conf_reads_queues_and_names_what_it_does_not_support(tmp_path):
    from sqsmock._config import load

    declarations = load(write(tmp_path, ELASTICMQ_CONF, "elasticmq.conf"))
    assert declarations.region == "us-west-2"
    assert declarations.account == "000000000000"
    assert declarations.server == {
        "port": 9324,
        "host": "0.0.0.0",
        "node_address": "http://localhost:9324",
    }
    assert declarations.elasticmq
    queue1 = next(q for q in declarations.queues if q.name == "queue1")
    assert queue1.attributes == {
        "VisibilityTimeout": 10,
        "DelaySeconds": 5,
        "ReceiveMessageWaitTimeSeconds": 0,
        "RedrivePolicy": {"deadLetterTargetArn": "queue1-dead-letters", "maxReceiveCount": 3},
    }
    assert queue1.tags == {"tag1": "tagged1", "tag2": "tagged2"}
    warnings = "\n".join(declarations.warnings)
    for unsupported in ("rest-stats", "copyTo", "moveTo"):
        assert unsupported in warnings
    assert "node-address" not in warnings  # the base of queue URLs in ElasticMQ mode


def test_an_elasticmq_conf_serves_through_elasticmq_style_urls(tmp_path):
    path = write(tmp_path, ELASTICMQ_CONF, "elasticmq.conf")
    with sqsmock.serve(port=0, region="us-west-2", account_id="000000000000", config=path) as srv:
        sqs = client(srv.endpoint_url, region="us-west-2")
        base = srv.endpoint_url
        for url in (f"{base}/000000000000/queue1", f"{base}/queue/queue1"):
            sqs.send_message(QueueUrl=url, MessageBody=f"via {url}")
        srv.clock.advance(5)  # the queue's delay
        bodies = set()
        for _ in range(2):
            for message in sqs.receive_message(
                QueueUrl=f"{base}/queue/queue1", MaxNumberOfMessages=10
            ).get("Messages", []):
                bodies.add(message["Body"])
        assert bodies == {f"via {base}/000000000000/queue1", f"via {base}/queue/queue1"}
        fifo = f"{base}/000000000000/orders.fifo"
        sqs.send_message(QueueUrl=fifo, MessageBody="once", MessageGroupId="g")
        sqs.send_message(QueueUrl=fifo, MessageBody="once", MessageGroupId="g")  # deduplicated
        assert len(srv.peek(fifo)) == 1
        with pytest.raises(ClientError) as exc:
            sqs.send_message(QueueUrl=f"{base}/queue/nope", MessageBody="x")
        assert exc.value.response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"


def test_an_elasticmq_conf_with_a_bad_duration_is_refused(tmp_path):
    path = write(tmp_path, "queues { q { delay = soon } }\n", "elasticmq.conf")
    with pytest.raises(ConfigError, match=r"queue 'q': delay: not a duration"):
        mock_sqs(config=path)


# -- the pytest ini option ---------------------------------------------------------------------


@pytest.mark.slow
def test_the_ini_option_declares_queues_for_the_fixtures_and_the_marker(pytester):
    pytester.makefile(".toml", queues="[queues.jobs]\nattributes = { DelaySeconds = 3 }\n")
    pytester.makeini("[pytest]\nsqsmock_config = queues.toml\n")
    pytester.makepyfile(
        """
        import boto3
        import pytest

        def test_fixture(sqs_client):
            url = sqs_client.get_queue_url(QueueName="jobs")["QueueUrl"]
            got = sqs_client.get_queue_attributes(QueueUrl=url, AttributeNames=["DelaySeconds"])
            assert got["Attributes"]["DelaySeconds"] == "3"

        @pytest.mark.sqsmock(region="us-east-1")
        def test_marker():
            boto3.client("sqs", region_name="us-east-1").get_queue_url(QueueName="jobs")

        @pytest.mark.sqsmock(config={"queues": {"other": {}}})
        def test_marker_overrides():
            urls = boto3.client("sqs", region_name="us-east-1").list_queues()["QueueUrls"]
            assert [u.rsplit("/", 1)[1] for u in urls] == ["other"]

        def test_server(sqs_server):
            import sqsmock
            assert sqs_server.peek("jobs") == []
        """
    )
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(passed=4)
