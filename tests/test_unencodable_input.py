"""Text that is not Unicode (a lone surrogate, which JSON carries as an escape) is refused with
the same SQS error whether or not the mock persists: the service checks every string a queue
keeps before the store would have to write it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import boto3
import fakeredis
import pytest
from botocore.exceptions import ClientError

from sqsmock import PersistenceError, mock_sqs

BAD = "a\ud800b"
POLICY = '{"Version":"2012-10-17","Statement":[{"Sid":"%s"}]}'


@pytest.fixture(params=["memory", "fakeredis"])
def client(request: pytest.FixtureRequest) -> Iterator[Any]:
    options: dict[str, Any] = {}
    if request.param == "fakeredis":
        options["persistence"] = fakeredis.FakeRedis()
    with mock_sqs(**options):
        yield boto3.client("sqs", region_name="us-east-1")


@pytest.fixture
def url(client: Any) -> str:
    return str(client.create_queue(QueueName="q")["QueueUrl"])


CASES: dict[str, tuple[Callable[[Any, str], Any], str]] = {
    "tag key": (lambda c, u: c.tag_queue(QueueUrl=u, Tags={BAD: "v"}), "InvalidParameterValue"),
    "tag value": (lambda c, u: c.tag_queue(QueueUrl=u, Tags={"k": BAD}), "InvalidParameterValue"),
    "create tag": (
        lambda c, u: c.create_queue(QueueName="t", tags={"k": BAD}),
        "InvalidParameterValue",
    ),
    "kms key": (
        lambda c, u: c.set_queue_attributes(QueueUrl=u, Attributes={"KmsMasterKeyId": BAD}),
        "InvalidAttributeValue",
    ),
    "create kms key": (
        lambda c, u: c.create_queue(QueueName="k", Attributes={"KmsMasterKeyId": BAD}),
        "InvalidAttributeValue",
    ),
    "policy": (
        lambda c, u: c.set_queue_attributes(QueueUrl=u, Attributes={"Policy": POLICY % BAD}),
        "InvalidAttributeValue",
    ),
    "queue name": (lambda c, u: c.create_queue(QueueName=BAD), "InvalidParameterValue"),
    "fifo queue name": (
        lambda c, u: c.create_queue(QueueName=BAD + ".fifo", Attributes={"FifoQueue": "true"}),
        "InvalidParameterValue",
    ),
    "label": (
        lambda c, u: c.add_permission(
            QueueUrl=u, Label=BAD, AWSAccountIds=["111111111111"], Actions=["SendMessage"]
        ),
        "InvalidParameterValue",
    ),
    "account id in another script": (
        lambda c, u: c.add_permission(
            QueueUrl=u, Label="l", AWSAccountIds=["\u0661" * 12], Actions=["SendMessage"]
        ),
        "InvalidParameterValue",
    ),
    "body": (lambda c, u: c.send_message(QueueUrl=u, MessageBody=BAD), "InvalidMessageContents"),
    "attribute name": (
        lambda c, u: c.send_message(
            QueueUrl=u,
            MessageBody="x",
            MessageAttributes={BAD: {"DataType": "String", "StringValue": "v"}},
        ),
        "InvalidParameterValue",
    ),
    "attribute value": (
        lambda c, u: c.send_message(
            QueueUrl=u,
            MessageBody="x",
            MessageAttributes={"n": {"DataType": "String", "StringValue": BAD}},
        ),
        "InvalidParameterValue",
    ),
    "attribute type": (
        lambda c, u: c.send_message(
            QueueUrl=u,
            MessageBody="x",
            MessageAttributes={"n": {"DataType": "String." + BAD, "StringValue": "v"}},
        ),
        "InvalidParameterValue",
    ),
    "trace header": (
        lambda c, u: c.send_message(
            QueueUrl=u,
            MessageBody="x",
            MessageSystemAttributes={"AWSTraceHeader": {"DataType": "String", "StringValue": BAD}},
        ),
        "InvalidParameterValue",
    ),
    "group id": (
        lambda c, u: c.send_message(QueueUrl=u, MessageBody="x", MessageGroupId=BAD),
        "InvalidParameterValue",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_text_that_is_not_unicode_gets_the_sqs_error(client: Any, url: str, case: str) -> None:
    call, code = CASES[case]
    try:
        call(client, url)
    except PersistenceError as error:  # pragma: no cover - the failure this test guards against
        pytest.fail(f"reached the store: {error}")
    except ClientError as error:
        assert error.response["Error"]["Code"] == code
    else:
        pytest.fail("accepted")
    # Nothing was kept: the queue is as it was, and still works.
    assert "Tags" not in client.list_queue_tags(QueueUrl=url)
    attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert "KmsMasterKeyId" not in attributes
    assert "Policy" not in attributes
    assert client.list_queues()["QueueUrls"] == [url]


def test_unicode_beyond_ascii_is_kept(client: Any, url: str) -> None:
    text = "naïve 🎉 ключ"
    client.tag_queue(QueueUrl=url, Tags={text: text})
    client.set_queue_attributes(QueueUrl=url, Attributes={"KmsMasterKeyId": f"alias/{text}"})
    assert client.list_queue_tags(QueueUrl=url)["Tags"] == {text: text}
    attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["KmsMasterKeyId"])
    assert attributes["Attributes"] == {"KmsMasterKeyId": f"alias/{text}"}


def test_trace_header_from_a_request_header_that_is_not_unicode_is_left_out(
    client: Any, url: str
) -> None:
    def add_header(params: dict[str, Any], **_: Any) -> None:
        params["headers"]["X-Amzn-Trace-Id"] = BAD

    client.meta.events.register("before-call.sqs.SendMessage", add_header)
    client.send_message(QueueUrl=url, MessageBody="x")
    (message,) = client.receive_message(QueueUrl=url, MessageSystemAttributeNames=["All"])[
        "Messages"
    ]
    assert "AWSTraceHeader" not in message["Attributes"]
