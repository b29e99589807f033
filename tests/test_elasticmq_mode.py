"""ElasticMQ mode: what ElasticMQ's users rely on holds when its conf is loaded (or with
``--elasticmq``), and AWS's rules stay everywhere else (docs/coming-from-elasticmq.md).

Each convention: its account (000000000000), one namespace for every region a client signs
with (``elasticmq`` included), FIFO queues named without ``.fifo`` in the conf, a deleted queue
re-created at once, queue URLs on the conf's ``node-address``, that host let through the host
check, and ``sqs-limits = relaxed``. ElasticMQ's own example and test confs (tests/data) load
unchanged and serve a boto3 client signed for region ``elasticmq``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from server_support import call_json, client

import sqsmock
from sqsmock import ConfigError, mock_sqs
from sqsmock._server_options import ServerOptions

DATA = Path(__file__).parent / "data"
EXAMPLE = str(DATA / "elasticmq-example.conf")  # ElasticMQ's examples/elasticmq.conf
TEST_CONF = str(DATA / "elasticmq-test.conf")  # its rest-sqs tests' test.conf


def write(tmp_path: Path, text: str, name: str = "elasticmq.conf") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def code(error: pytest.ExceptionInfo[ClientError]) -> str:
    return str(error.value.response["Error"]["Code"])


ORDERS = "queues { orders { } }\n"


# -- the account ---------------------------------------------------------------------------


def test_a_conf_without_an_account_serves_elasticmqs_000000000000(tmp_path: Path) -> None:
    with sqsmock.serve(port=0, config=write(tmp_path, ORDERS)) as server:
        assert server.account_id == "000000000000"
        sqs = client(server.endpoint_url)
        url = f"{server.endpoint_url}/000000000000/orders"  # as the README promises
        sqs.send_message(QueueUrl=url, MessageBody="hi")
        assert sqs.get_queue_url(QueueName="orders")["QueueUrl"] == url
        assert [m.body for m in server.peek("orders")] == ["hi"]


def test_the_account_of_the_conf_or_a_flag_wins(tmp_path: Path) -> None:
    conf = write(tmp_path, 'aws { accountId = "111122223333" }\n' + ORDERS)
    assert ServerOptions(config=conf).account_id == "111122223333"
    assert ServerOptions(config=conf, account_id="444455556666").account_id == "444455556666"
    assert ServerOptions(elasticmq=True).account_id == "000000000000"
    assert ServerOptions().account_id == "123456789012"  # AWS's rules by default


def test_the_elasticmq_flag_of_sqsmock_serve() -> None:
    from sqsmock import _serving
    from sqsmock.cli import parser

    options = _serving._command_line_options(parser().parse_args(["serve", "--elasticmq"]))
    assert options.elasticmq and options.account_id == "000000000000"
    plain = _serving._command_line_options(parser().parse_args(["serve"]))
    assert not plain.elasticmq and plain.account_id == "123456789012"


# -- one namespace for every region --------------------------------------------------------


@pytest.mark.parametrize("region", ["elasticmq", "elastic", "us-east", "eu-west-1"])
def test_any_region_a_client_signs_with_reaches_the_confs_queues(
    tmp_path: Path, region: str
) -> None:
    with sqsmock.serve(port=0, config=write(tmp_path, ORDERS)) as server:
        sqs = client(server.endpoint_url, region=region)
        url = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody=region)
        other = client(server.endpoint_url, region="us-east-1")
        got = other.receive_message(QueueUrl=url)["Messages"]
        assert [m["Body"] for m in got] == [region]
        owned = sqs.get_queue_url(QueueName="orders", QueueOwnerAWSAccountId="111122223333")
        assert owned["QueueUrl"] == url  # found by its name alone, as on ElasticMQ
        made = sqs.create_queue(QueueName=f"made-{len(region)}")["QueueUrl"]
        assert made in other.list_queues()["QueueUrls"]


def test_without_elasticmq_mode_a_region_aws_lacks_is_refused() -> None:
    with sqsmock.serve(port=0) as server:
        with pytest.raises(ClientError) as error:
            client(server.endpoint_url, region="elasticmq").list_queues()
        assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_a_dead_letter_arn_of_any_region_names_the_queue_in_elasticmq_mode() -> None:
    with sqsmock.serve(port=0, elasticmq=True, clock="frozen") as server:
        sqs = client(server.endpoint_url, region="elasticmq")
        sqs.create_queue(QueueName="dlq")
        policy = {"deadLetterTargetArn": "arn:aws:sqs:elasticmq:000000000000:dlq",
                  "maxReceiveCount": 1}  # fmt: skip
        url = sqs.create_queue(QueueName="work", Attributes={"RedrivePolicy": json.dumps(policy)})[
            "QueueUrl"
        ]
        sqs.send_message(QueueUrl=url, MessageBody="poison")
        sqs.receive_message(QueueUrl=url, VisibilityTimeout=1)
        server.clock.advance(1)
        assert sqs.receive_message(QueueUrl=url).get("Messages") is None
        assert [m.body for m in server.peek("dlq")] == ["poison"]
        dlq = sqs.get_queue_url(QueueName="dlq")["QueueUrl"]
        assert sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == [url]


# -- FIFO queues named without .fifo -------------------------------------------------------


def test_elasticmqs_example_conf_loads_unchanged_and_serves_region_elasticmq(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="sqsmock"):
        server = sqsmock.serve(port=0, config=EXAMPLE, clock="frozen")
    named = [r.getMessage() for r in caplog.records if "without .fifo" in r.getMessage()]
    assert len(named) == 1 and "04-fifo-queue" in named[0]
    with server:
        sqs = client(server.endpoint_url, region="elasticmq")
        urls = sqs.list_queues()["QueueUrls"]
        names = [url.rsplit("/", 1)[1] for url in urls]
        assert names == [
            "01-simple-queue",
            "02-queue-with-dead-letter",
            "03-dead-letter-queue",
            "04-fifo-queue",
        ]
        # node-address { port = 9324 }: ElasticMQ's URLs, on its default host.
        assert urls[0] == "http://localhost:9324/000000000000/01-simple-queue"
        fifo = urls[3]
        attributes = sqs.get_queue_attributes(QueueUrl=fifo, AttributeNames=["All"])["Attributes"]
        assert attributes["FifoQueue"] == attributes["ContentBasedDeduplication"] == "true"
        for _ in range(2):  # deduplicated by content
            sqs.send_message(QueueUrl=fifo, MessageBody="once", MessageGroupId="g")
        assert [m["Body"] for m in sqs.receive_message(QueueUrl=fifo)["Messages"]] == ["once"]
        # 02's messages go to 03 after 3 receives, after its 5-second delay.
        source = urls[1]
        sqs.send_message(QueueUrl=source, MessageBody="poison")
        server.clock.advance(5)
        for _ in range(3):
            assert sqs.receive_message(QueueUrl=source)["Messages"][0]["Body"] == "poison"
            server.clock.advance(10)  # its defaultVisibilityTimeout
        assert sqs.receive_message(QueueUrl=source).get("Messages") is None
        assert [m.body for m in server.peek("03-dead-letter-queue")] == ["poison"]


def test_the_example_conf_loads_in_process_too() -> None:
    with mock_sqs(config=EXAMPLE) as sqs:
        assert sqs.peek("04-fifo-queue") == []


def test_elasticmqs_test_conf_a_fifo_queue_with_a_standard_dead_letter_queue() -> None:
    with sqsmock.serve(port=0, config=TEST_CONF, clock="frozen") as server:
        sqs = client(server.endpoint_url, region="elastic")
        url = f"{server.endpoint_url}/1111111/fifoQueue"  # its account, as its users write it
        sqs.send_message(QueueUrl=url, MessageBody="poison", MessageGroupId="g")
        server.clock.advance(5)  # its delay
        for _ in range(3):
            assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "poison"
            server.clock.advance(10)
        assert sqs.receive_message(QueueUrl=url).get("Messages") is None
        assert [m.body for m in server.peek("myDLQ")] == ["poison"]


def test_over_the_api_a_fifo_queue_still_needs_its_suffix_as_on_elasticmq() -> None:
    with sqsmock.serve(port=0, elasticmq=True) as server:
        sqs = client(server.endpoint_url, region="elasticmq")
        with pytest.raises(ClientError) as error:
            sqs.create_queue(QueueName="orders", Attributes={"FifoQueue": "true"})
        assert code(error) == "InvalidParameterValue"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("[queues.orders]\nattributes = { VisibilityTimeout = 45, FifoQueue = true }\n", "t.toml"),
        ('queues { "bad name" { defaultVisibilityTimeout = 5 seconds, fifo = true } }\n', "e.conf"),
    ],
)
def test_a_bad_fifo_queue_name_is_blamed_on_the_name_not_visibilitytimeout(
    tmp_path: Path, text: str, name: str
) -> None:
    with pytest.raises(ConfigError) as error:
        mock_sqs(config=write(tmp_path, text, name))
    assert "VisibilityTimeout" not in str(error.value)
    assert "name of a FIFO queue" in str(error.value)


# -- re-creating a deleted queue -----------------------------------------------------------


def test_a_deleted_queue_is_re_created_at_once_in_elasticmq_mode(tmp_path: Path) -> None:
    with sqsmock.serve(port=0, config=write(tmp_path, ORDERS)) as server:
        sqs = client(server.endpoint_url)
        url = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
        sqs.delete_queue(QueueUrl=url)
        assert sqs.create_queue(QueueName="orders")["QueueUrl"] == url
    with mock_sqs(elasticmq=True):
        import boto3

        local = boto3.client("sqs", region_name="us-east-1")
        url = local.create_queue(QueueName="q")["QueueUrl"]
        local.delete_queue(QueueUrl=url)
        local.create_queue(QueueName="q")


def test_aws_rule_for_re_creating_stays_the_default() -> None:
    with sqsmock.serve(port=0) as server:
        sqs = client(server.endpoint_url)
        sqs.delete_queue(QueueUrl=sqs.create_queue(QueueName="q")["QueueUrl"])
        with pytest.raises(ClientError) as error:
            sqs.create_queue(QueueName="q")
        assert "QueueDeletedRecently" in code(error)


# -- node-address: queue URLs, and the host let through ------------------------------------

NODE = """\
node-address {
  protocol = https
  host = sqs
  port = 9999
  context-path = "/ctx/"
}
queues { orders { } }
"""


def test_queue_urls_are_built_from_node_address(tmp_path: Path) -> None:
    with sqsmock.serve(port=0, config=write(tmp_path, NODE)) as server:
        sqs = client(server.endpoint_url, region="elasticmq")
        expected = "https://sqs:9999/ctx/000000000000/orders"
        assert sqs.get_queue_url(QueueName="orders")["QueueUrl"] == expected
        assert sqs.create_queue(QueueName="made")["QueueUrl"].startswith("https://sqs:9999/ctx/")
        sqs.send_message(QueueUrl=expected, MessageBody="via its URL")
        assert [m.body for m in server.peek("orders")] == ["via its URL"]


def test_node_address_host_star_or_generated_follows_the_request(tmp_path: Path) -> None:
    for text in (
        'node-address { host = "*" }\n' + ORDERS,
        "node-address { host = sqs }\ngenerate-node-address = true\n" + ORDERS,
        ORDERS,
    ):
        with sqsmock.serve(port=0, config=write(tmp_path, text)) as server:
            got = client(server.endpoint_url).get_queue_url(QueueName="orders")["QueueUrl"]
            assert got == f"{server.endpoint_url}/000000000000/orders"


def test_the_node_address_host_is_let_through_the_host_check(tmp_path: Path) -> None:
    with sqsmock.serve(port=0, config=write(tmp_path, NODE)) as server:
        answer = call_json(server.endpoint_url, "ListQueues", {}, {"Host": "sqs:9324"})
        assert answer.status == 200, answer.body
        refused = call_json(server.endpoint_url, "ListQueues", {}, {"Host": "other:9324"})
        assert refused.status != 200


def test_node_address_host_star_keeps_its_context_path(tmp_path: Path) -> None:
    conf = write(tmp_path, 'node-address { host = "*", context-path = ctx }\n' + ORDERS)
    with sqsmock.serve(port=0, config=conf) as server:
        sqs = client(server.endpoint_url + "/ctx", region="elasticmq")
        url = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
        assert url == f"{server.endpoint_url}/ctx/000000000000/orders"
        sqs.send_message(QueueUrl=url, MessageBody="via the context path")
        assert [m.body for m in server.peek("orders")] == ["via the context path"]


def test_a_bad_node_address_or_limits_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"node-address\.protocol"):
        mock_sqs(config=write(tmp_path, "node-address { protocol = ftp }\n"))
    with pytest.raises(ConfigError, match="strict or relaxed"):
        mock_sqs(config=write(tmp_path, "rest-sqs { sqs-limits = loose }\n"))


# -- sqs-limits = relaxed ------------------------------------------------------------------


def relaxed_calls(server: Any) -> None:
    sqs = client(server.endpoint_url, region="elasticmq")
    url = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
    entries = [{"Id": str(n), "MessageBody": f"m{n}"} for n in range(15)]
    assert len(sqs.send_message_batch(QueueUrl=url, Entries=entries)["Successful"]) == 15
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=15)["Messages"]
    assert len(got) == 15
    sqs.receive_message(QueueUrl=url, WaitTimeSeconds=25)  # messages in flight: waits, ends


def test_relaxed_limits_lift_batch_size_receive_count_and_wait(tmp_path: Path) -> None:
    relaxed = write(tmp_path, "rest-sqs { sqs-limits = Relaxed }\n" + ORDERS)
    with sqsmock.serve(port=0, config=relaxed, clock="frozen") as server:
        import threading

        done = threading.Thread(target=relaxed_calls, args=(server,))
        done.start()
        while done.is_alive():
            server.clock.advance(5)
            done.join(0.01)
    strict = write(tmp_path, "rest-sqs { sqs-limits = strict }\n" + ORDERS, "strict.conf")
    with sqsmock.serve(port=0, config=strict) as server:
        sqs = client(server.endpoint_url)
        url = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
        with pytest.raises(ClientError):
            sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=15)
        with pytest.raises(ClientError):
            entries = [{"Id": str(n), "MessageBody": "m"} for n in range(11)]
            sqs.send_message_batch(QueueUrl=url, Entries=entries)


# -- --config names the formats it reads ---------------------------------------------------


@pytest.mark.parametrize("name", ["queues.yaml", "queues.json", "queues.txt"])
def test_a_config_in_another_format_names_the_formats_read(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, "queues:\n  - orders\n", name)
    with pytest.raises(ConfigError) as error:
        mock_sqs(config=path)
    assert "TOML" in str(error.value) and ".conf" in str(error.value)


def test_a_misspelt_queue_setting_is_named_with_elasticmqs_own(tmp_path: Path) -> None:
    from sqsmock._config import load

    text = 'queues { q { deadLetterQueue { name: "dlq", maxReceiveCount = 5 } } }\n'
    (warning,) = load(write(tmp_path, text)).warnings
    assert "deadLetterQueue" in warning and "ElasticMQ's is deadLettersQueue" in warning
    assert "ignored as ElasticMQ ignores it" in warning


def test_auto_create_queues_switched_off_is_what_sqsmock_does(tmp_path: Path) -> None:
    from sqsmock._config import load

    off = load(write(tmp_path, "auto-create-queues { enabled = false }\n" + ORDERS))
    assert off.warnings == ()
    on = load(write(tmp_path, "auto-create-queues { enabled = true }\n", "on.conf"))
    assert any("auto-create-queues" in warning for warning in on.warnings)
