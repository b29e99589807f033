"""Answers recorded from real Amazon SQS, each quoted from the behaviour reference, and sqsmock
giving the same answer."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from sqs_asserts import assert_error, attributes_md5

pytestmark = pytest.mark.sqsmock(clock="frozen")

ATTRIBUTES: dict[str, dict[str, Any]] = {
    "colour": {"DataType": "String", "StringValue": "blue"},
    "size": {"DataType": "Number", "StringValue": "3"},
    "raw": {"DataType": "Binary", "BinaryValue": b"\x00\x01"},
}


@pytest.fixture
def url(sqs_client: Any) -> str:
    return str(sqs_client.create_queue(QueueName="fidelity")["QueueUrl"])


def receive(sqs_client: Any, url: str, **kwargs: Any) -> list[dict[str, Any]]:
    return list(sqs_client.receive_message(QueueUrl=url, **kwargs).get("Messages", []))


# --- ReceiveMessage: MessageAttributeNames ------------------------------------------------------


@pytest.mark.parametrize("names", [["*"], ["All"], [".*"]], ids=["star", "All", "dot-star"])
def test_star_alone_asks_for_every_message_attribute(sqs_client, url, names):
    # AWS: "MessageAttributeNames: `All`, `*`, `.*` ... (`*` alone means all, AWS-recorded.)"
    sqs_client.send_message(QueueUrl=url, MessageBody="m", MessageAttributes=ATTRIBUTES)
    (message,) = receive(sqs_client, url, MessageAttributeNames=names)
    assert message["MessageAttributes"] == ATTRIBUTES
    assert message["MD5OfMessageAttributes"] == attributes_md5(ATTRIBUTES)


# --- GetQueueAttributes: KmsDataKeyReusePeriodSeconds -------------------------------------------


def queue_attributes(sqs_client: Any, url: str) -> dict[str, str]:
    response = sqs_client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])
    return dict(response["Attributes"])


def test_kms_data_key_reuse_period_shows_only_while_a_kms_key_is_set(sqs_client, url):
    # AWS: "KmsDataKeyReusePeriodSeconds appears only while KmsMasterKeyId is set (setting
    # KmsMasterKeyId to "" hides both again, AWS-recorded)."
    sqs_client.set_queue_attributes(
        QueueUrl=url, Attributes={"KmsDataKeyReusePeriodSeconds": "600"}
    )
    assert "KmsDataKeyReusePeriodSeconds" not in queue_attributes(sqs_client, url)
    named = sqs_client.get_queue_attributes(
        QueueUrl=url, AttributeNames=["KmsDataKeyReusePeriodSeconds"]
    )
    assert "Attributes" not in named
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"KmsMasterKeyId": "alias/aws/sqs"})
    shown = queue_attributes(sqs_client, url)
    assert shown["KmsMasterKeyId"] == "alias/aws/sqs"
    assert shown["KmsDataKeyReusePeriodSeconds"] == "600"
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"KmsMasterKeyId": ""})
    hidden = queue_attributes(sqs_client, url)
    assert "KmsMasterKeyId" not in hidden
    assert "KmsDataKeyReusePeriodSeconds" not in hidden


def test_kms_key_without_a_reuse_period_shows_the_default(sqs_client):
    url = sqs_client.create_queue(QueueName="kms", Attributes={"KmsMasterKeyId": "alias/aws/sqs"})[
        "QueueUrl"
    ]
    assert queue_attributes(sqs_client, url)["KmsDataKeyReusePeriodSeconds"] == "300"


# --- SendMessage: characters of message-attribute values ----------------------------------------


@pytest.mark.parametrize(
    "char", ["\x00", "\x08", "\x1f", "\ufffe"], ids=["nul", "bs", "us", "fffe"]
)
def test_forbidden_character_in_a_string_attribute_is_invalid_parameter_value(
    sqs_client, url, char
):
    # AWS (§1 table): "forbidden characters in a String message-attribute value | 400 |
    # InvalidParameterValueException | InvalidParameterValue (AWS-recorded)"
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=url,
            MessageBody="fine",
            MessageAttributes={"a": {"DataType": "String", "StringValue": f"x{char}y"}},
        )
    assert_error(exc, "InvalidParameterValue", "InvalidParameterValueException")
    assert receive(sqs_client, url) == []


def test_forbidden_character_in_the_body_stays_invalid_message_contents(sqs_client, url):
    # AWS (§1 table): "forbidden characters in the body | 400 | InvalidMessageContents"
    with pytest.raises(sqs_client.exceptions.InvalidMessageContents) as exc:
        sqs_client.send_message(QueueUrl=url, MessageBody="x\x00y")
    assert_error(exc, "InvalidMessageContents", "InvalidMessageContents")


# --- ChangeMessageVisibility with an older receipt handle ---------------------------------------


def test_older_receipt_handle_of_a_message_received_again_changes_its_visibility(sqs_client, url):
    # AWS (§5): "Standard queue, an older receipt handle of a message that has since been received
    # again (so is in flight under a newer handle) -> 200 and the change applies to the message
    # (AWS-recorded: receive with timeout 0, receive again with 3, change with the first handle
    # to 0 -> the next receive gets it)."
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    (first,) = receive(sqs_client, url, VisibilityTimeout=0)
    (second,) = receive(sqs_client, url, VisibilityTimeout=3)
    assert second["ReceiptHandle"] != first["ReceiptHandle"]
    assert receive(sqs_client, url) == []
    response = sqs_client.change_message_visibility(
        QueueUrl=url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=0
    )
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    (third,) = receive(sqs_client, url)
    assert third["MessageId"] == first["MessageId"]


def test_older_receipt_handle_can_also_lengthen_the_visibility(sqs_client, sqs_mock, url):
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    (first,) = receive(sqs_client, url, VisibilityTimeout=0)
    receive(sqs_client, url, VisibilityTimeout=3)
    sqs_client.change_message_visibility(
        QueueUrl=url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=60
    )
    sqs_mock.clock.advance(59)
    assert receive(sqs_client, url) == []
    sqs_mock.clock.advance(1)
    assert len(receive(sqs_client, url)) == 1


def test_older_receipt_handle_of_a_visible_message_changes_nothing(sqs_client, sqs_mock, url):
    # AWS (§5): "On a message that is visible (not in flight) -> 200, no change."
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    (first,) = receive(sqs_client, url, VisibilityTimeout=5)
    sqs_mock.clock.advance(5)
    sqs_client.change_message_visibility(
        QueueUrl=url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=600
    )
    assert len(receive(sqs_client, url)) == 1


# --- SendMessageBatch: an oversized entry -------------------------------------------------------


def test_oversized_batch_entry_fails_alone_with_the_batch_wording(sqs_client):
    # AWS (§3): "In a SendMessageBatch the oversized entry fails alone (the others succeed) with
    # Failed entry Code InvalidParameterValue, SenderFault true, Message "One or more parameters
    # cannot be validated. Reason: Message must be shorter than N bytes." (AWS-recorded)."
    url = sqs_client.create_queue(QueueName="small", Attributes={"MaximumMessageSize": "1024"})[
        "QueueUrl"
    ]
    response = sqs_client.send_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "ok", "MessageBody": "fits"},
            {"Id": "big", "MessageBody": "x" * 1025},
        ],
    )
    assert [entry["Id"] for entry in response["Successful"]] == ["ok"]
    assert response["Failed"] == [
        {
            "Id": "big",
            "SenderFault": True,
            "Code": "InvalidParameterValue",
            "Message": "One or more parameters cannot be validated. Reason: Message must be "
            "shorter than 1024 bytes.",
        }
    ]
    assert [m["Body"] for m in receive(sqs_client, url, MaxNumberOfMessages=10)] == ["fits"]


def test_oversized_single_send_keeps_the_send_message_wording(sqs_client):
    # AWS (§3): "Over the limit -> InvalidParameterValue "One or more parameters are invalid.
    # Reason: Message must be shorter than N bytes.""
    url = sqs_client.create_queue(QueueName="small", Attributes={"MaximumMessageSize": "1024"})[
        "QueueUrl"
    ]
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=url, MessageBody="x" * 1025)
    assert_error(
        exc,
        "InvalidParameterValue",
        "InvalidParameterValueException",
        "One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.",
    )


# --- AWSTraceHeader from the X-Amzn-Trace-Id header ---------------------------------------------

TRACE = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"


def test_lambda_trace_id_that_botocore_puts_on_the_request_becomes_the_aws_trace_header(
    sqs_client, url, monkeypatch
):
    # AWS (§3): "the `X-Amzn-Trace-Id` request header sets it too". botocore's own
    # recursion-detection handler (a before-call handler) adds that header inside Lambda.
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "orders")
    monkeypatch.setenv("_X_AMZN_TRACE_ID", TRACE)
    response = sqs_client.send_message(QueueUrl=url, MessageBody="traced")
    assert "MD5OfMessageSystemAttributes" not in response
    monkeypatch.delenv("_X_AMZN_TRACE_ID")
    (message,) = receive(sqs_client, url, MessageSystemAttributeNames=["AWSTraceHeader"])
    assert message["Attributes"] == {"AWSTraceHeader": TRACE}


def test_trace_id_outside_lambda_is_not_sent(sqs_client, url, monkeypatch):
    # botocore adds the header only when AWS_LAMBDA_FUNCTION_NAME is set as well.
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    monkeypatch.setenv("_X_AMZN_TRACE_ID", TRACE)
    sqs_client.send_message(QueueUrl=url, MessageBody="untraced")
    (message,) = receive(sqs_client, url, MessageSystemAttributeNames=["All"])
    assert "AWSTraceHeader" not in message["Attributes"]


def test_explicit_trace_header_wins_over_the_lambda_header(sqs_client, url, monkeypatch):
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "orders")
    monkeypatch.setenv("_X_AMZN_TRACE_ID", "Root=1-00000000-000000000000000000000000")
    sqs_client.send_message(
        QueueUrl=url,
        MessageBody="traced",
        MessageSystemAttributes={"AWSTraceHeader": {"DataType": "String", "StringValue": TRACE}},
    )
    (message,) = receive(sqs_client, url, MessageSystemAttributeNames=["AWSTraceHeader"])
    assert message["Attributes"] == {"AWSTraceHeader": TRACE}


# --- batch answers leave out empty lists --------------------------------------------------------


def test_batch_answers_leave_out_an_empty_failed_or_successful_list(sqs_client, url):
    # AWS (§4): "No `Failed` key when nothing failed." SQS's JSON answers leave out an empty
    # list, so an all-failed batch has no `Successful` key either.
    sent = sqs_client.send_message_batch(QueueUrl=url, Entries=[{"Id": "a", "MessageBody": "m"}])
    assert "Failed" not in sent
    assert [entry["Id"] for entry in sent["Successful"]] == ["a"]
    refused = sqs_client.send_message_batch(
        QueueUrl=url, Entries=[{"Id": "a", "MessageBody": "\x00"}]
    )
    assert "Successful" not in refused
    assert [entry["Id"] for entry in refused["Failed"]] == ["a"]
    for operation, entry in (
        ("delete_message_batch", {"Id": "a", "ReceiptHandle": "garbage"}),
        (
            "change_message_visibility_batch",
            {"Id": "a", "ReceiptHandle": "garbage", "VisibilityTimeout": 0},
        ),
    ):
        response = getattr(sqs_client, operation)(QueueUrl=url, Entries=[entry])
        assert "Successful" not in response
        assert response["Failed"][0]["Code"] == "ReceiptHandleIsInvalid"
