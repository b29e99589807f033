"""The wire layer: answers are what botocore's own parser makes of SQS's JSON."""

from __future__ import annotations

from typing import Any

import pytest

from sqsmock import _protocol


def test_the_suite_checks_every_answer_against_botocores_parser() -> None:
    assert _protocol.CHECK_AGAINST_BOTOCORE is True


def test_a_fast_path_that_differs_from_botocore_is_caught(
    sqs_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _protocol.parse_success

    def tampered(*args: Any) -> dict[str, Any]:
        parsed = real(*args)
        parsed["QueueUrl"] = "https://example.invalid/other"
        return parsed

    monkeypatch.setattr(_protocol, "parse_success", tampered)
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
