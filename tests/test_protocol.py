"""The in-process answer is what botocore's own parser makes of SQS's wire answer."""

from __future__ import annotations

from typing import Any

import pytest

from sqsmock._adapters._sdk import answer as sdk_answer
from sqsmock._protocol import native


def test_the_suite_checks_every_answer_against_botocores_parser() -> None:
    assert sdk_answer.CHECK_AGAINST_BOTOCORE is True


def test_a_direct_answer_that_differs_from_botocore_is_caught(
    sqs_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = native.from_wire

    def tampered(operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        parsed = real(operation, payload)
        parsed["QueueUrl"] = "https://example.invalid/other"
        return parsed

    monkeypatch.setattr(native, "from_wire", tampered)
    with pytest.raises(AssertionError, match="CreateQueue"):
        sqs_client.create_queue(QueueName="q")


def test_binary_attributes_come_back_as_bytes(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    payload = bytes(range(256))
    sqs_client.send_message(
        QueueUrl=url,
        MessageBody="b",
        MessageAttributes={
            "blob": {"DataType": "Binary", "BinaryValue": payload},
            "text": {"DataType": "String", "StringValue": "t"},
        },
    )
    message = sqs_client.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"][0]
    assert message["MessageAttributes"]["blob"] == {"DataType": "Binary", "BinaryValue": payload}
    assert message["MessageAttributes"]["text"] == {"DataType": "String", "StringValue": "t"}


def test_response_metadata_is_complete(sqs_client: Any) -> None:
    metadata = sqs_client.list_queues()["ResponseMetadata"]
    assert set(metadata) == {"RequestId", "HTTPStatusCode", "HTTPHeaders", "RetryAttempts"}
    assert metadata["HTTPHeaders"]["x-amzn-requestid"] == metadata["RequestId"]
    assert metadata["HTTPHeaders"]["content-type"] == "application/x-amz-json-1.0"


def test_a_modeled_error_carries_its_members_at_the_top_level(sqs_client: Any) -> None:
    """AWS-recorded: botocore adds the error shape's members beside ``Error``."""
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError) as raised:
        sqs_client.create_queue(QueueName="std", Attributes={"FifoQueue": "false"})
    response = raised.value.response
    assert response["Error"]["Code"] == "InvalidAttributeName"
    assert response["message"] == "Unknown Attribute FifoQueue."
    assert response["message"] == response["Error"]["Message"]


def test_an_unmodeled_error_has_no_top_level_members(sqs_client: Any) -> None:
    from botocore.exceptions import ClientError

    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(ClientError) as raised:
        sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=11)
    assert raised.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert "message" not in raised.value.response


def test_the_answer_never_shares_the_engines_objects(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(
        QueueUrl=url,
        MessageBody="b",
        MessageAttributes={"a": {"DataType": "String", "StringValue": "x"}},
    )
    first = sqs_client.receive_message(
        QueueUrl=url, MessageAttributeNames=["All"], VisibilityTimeout=0
    )["Messages"][0]
    first["MessageAttributes"]["a"]["StringValue"] = "changed by the caller"
    first["MessageAttributes"]["b"] = {"DataType": "String", "StringValue": "added"}
    again = sqs_client.receive_message(QueueUrl=url, MessageAttributeNames=["All"])["Messages"][0]
    assert again["MessageAttributes"] == {"a": {"DataType": "String", "StringValue": "x"}}


def test_the_callers_parameters_are_not_changed(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    attributes = {"blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}}
    sqs_client.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=attributes)
    assert attributes == {"blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}}


def test_a_call_finds_a_header_whatever_its_case() -> None:
    """Headers reach a handler as each caller spelled them: ``Call.header`` finds a name in any
    case, the last one given when several spellings were; a plain dict's exact key first."""
    from sqsmock._service import Call

    headers = {"x-amzn-trace-id": "a", "Content-Type": "t", "X-AMZN-TRACE-ID": "b"}
    call = Call("us-east-1", "123456789012", headers)
    assert call.header("X-Amzn-Trace-Id") == "b"
    assert call.header("x-amzn-trace-id") == "a"
    assert call.header("content-type") == "t"
    assert call.header("X-Missing") is None
    assert Call("us-east-1", "123456789012", {}).header("X-Amzn-Trace-Id") is None
