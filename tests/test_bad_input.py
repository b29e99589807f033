"""Bad input gets the SQS error AWS would give -- never a Python exception from sqsmock."""

from __future__ import annotations

import threading
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

import sqsmock._engine.queue as engine_queue

FROZEN = pytest.mark.sqsmock(clock="frozen")


@pytest.fixture
def url(sqs_client: Any) -> str:
    return str(sqs_client.create_queue(QueueName="q")["QueueUrl"])


@pytest.fixture
def unvalidated(sqs_mock: Any) -> Any:
    """A client that skips botocore's client-side parameter validation."""
    return boto3.client(
        "sqs", region_name=sqs_mock.region, config=Config(parameter_validation=False)
    )


def error_of(call: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as exc:
        call()
    return dict(exc.value.response["Error"])


@pytest.mark.parametrize("value", ["--5", "²", "1.0", " ", "+-3", "0x1e"])
def test_malformed_integer_attributes_are_invalid_attribute_values(
    sqs_client: Any, url: str, value: str
) -> None:
    error = error_of(
        lambda: sqs_client.set_queue_attributes(
            QueueUrl=url, Attributes={"VisibilityTimeout": value}
        )
    )
    assert error["Code"] == "InvalidAttributeValue"
    assert error["Message"] == "Invalid value for the parameter VisibilityTimeout."
    error = error_of(
        lambda: sqs_client.create_queue(QueueName="other", Attributes={"DelaySeconds": value})
    )
    assert error["Code"] == "InvalidAttributeValue"


def test_fifo_queue_false_on_a_standard_queue_is_an_unknown_attribute(sqs_client: Any) -> None:
    error = error_of(
        lambda: sqs_client.create_queue(QueueName="plain", Attributes={"FifoQueue": "false"})
    )
    assert error["Code"] == "InvalidAttributeName"
    assert error["Message"] == "Unknown Attribute FifoQueue."


def test_lone_surrogate_in_a_custom_data_type_is_rejected(sqs_client: Any, url: str) -> None:
    error = error_of(
        lambda: sqs_client.send_message(
            QueueUrl=url,
            MessageBody="x",
            MessageAttributes={"a": {"DataType": "String.\ud800", "StringValue": "v"}},
        )
    )
    assert error["Code"] == "InvalidParameterValue"


def test_forbidden_character_in_the_trace_header_is_invalid_parameter_value(
    sqs_client: Any, url: str
) -> None:
    error = error_of(
        lambda: sqs_client.send_message(
            QueueUrl=url,
            MessageBody="x",
            MessageSystemAttributes={
                "AWSTraceHeader": {"DataType": "String", "StringValue": "a\ud800"}
            },
        )
    )
    assert error["Code"] == "InvalidParameterValue"


def test_bad_entries_fail_alone_in_a_batch(sqs_client: Any, url: str) -> None:
    response = sqs_client.send_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": "good", "MessageBody": "fine"},
            {
                "Id": "bad",
                "MessageBody": "x",
                "MessageAttributes": {"a": {"DataType": "String.\ud800", "StringValue": "v"}},
            },
        ],
    )
    assert [entry["Id"] for entry in response["Successful"]] == ["good"]
    assert [(f["Id"], f["Code"]) for f in response["Failed"]] == [("bad", "InvalidParameterValue")]


@pytest.mark.parametrize("value", ["1_000", "abc", "1e", "", "NaN", "Infinity"])
def test_number_attributes_must_be_numbers(sqs_client: Any, url: str, value: str) -> None:
    error = error_of(
        lambda: sqs_client.send_message(
            QueueUrl=url,
            MessageBody="x",
            MessageAttributes={"n": {"DataType": "Number", "StringValue": value}},
        )
    )
    assert error["Code"] == "InvalidParameterValue"


@pytest.mark.parametrize(
    ("operation", "params", "parameter"),
    [
        ("get_queue_attributes", {"AttributeNames": [{"a": 1}]}, "AttributeNames[0]"),
        ("receive_message", {"AttributeNames": [{}]}, "AttributeNames[0]"),
        ("receive_message", {"MessageAttributeNames": [5]}, "MessageAttributeNames[0]"),
        ("send_message", {"MessageBody": 5}, "MessageBody"),
        (
            "send_message",
            {"MessageBody": "x", "MessageAttributes": {"a": {"DataType": 5, "StringValue": "v"}}},
            "MessageAttributes.a.DataType",
        ),
        ("list_queues", {"QueueNamePrefix": 5}, "QueueNamePrefix"),
        ("list_queues", {"NextToken": 5}, "NextToken"),
    ],
)
def test_wrong_types_without_client_validation_get_invalid_parameter_value(
    unvalidated: Any, url: str, operation: str, params: dict[str, Any], parameter: str
) -> None:
    if operation != "list_queues":
        params = {"QueueUrl": url, **params}
    error = error_of(lambda: getattr(unvalidated, operation)(**params))
    assert error["Code"] == "InvalidParameterValue"
    assert parameter in error["Message"]


def test_missing_parameters_without_client_validation_get_missing_parameter(
    unvalidated: Any, url: str
) -> None:
    error = error_of(lambda: unvalidated.send_message(QueueUrl=url))
    assert error["Code"] == "MissingParameter"
    assert error["Message"] == "The request must contain the parameter MessageBody."


def test_reading_attributes_while_another_thread_sets_them(sqs_mock: Any, url: str) -> None:
    setter = boto3.client("sqs", region_name=sqs_mock.region)
    getter = boto3.client("sqs", region_name=sqs_mock.region)
    errors: list[BaseException] = []
    stop = threading.Event()

    def flip() -> None:
        try:
            while not stop.is_set():
                setter.set_queue_attributes(QueueUrl=url, Attributes={"Policy": "{}"})
                setter.set_queue_attributes(QueueUrl=url, Attributes={"Policy": ""})
        except BaseException as exc:  # handed to the main thread
            errors.append(exc)

    thread = threading.Thread(target=flip, daemon=True)
    thread.start()
    try:
        for _ in range(300):
            getter.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])
    finally:
        stop.set()
        thread.join(10)
    assert not errors


@FROZEN
def test_short_poll_over_the_in_flight_cap_answers_over_limit(
    sqs_client: Any, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_queue, "MAX_INFLIGHT", 3)
    for i in range(5):
        sqs_client.send_message(QueueUrl=url, MessageBody=str(i))
    got = sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert len(got) == 3
    with pytest.raises(sqs_client.exceptions.OverLimit) as exc:
        sqs_client.receive_message(QueueUrl=url)
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert exc.value.response["Error"]["Code"] == "OverLimit"
    assert "Messages" not in sqs_client.receive_message(QueueUrl=url, WaitTimeSeconds=1)
    sqs_client.delete_message(QueueUrl=url, ReceiptHandle=got[0]["ReceiptHandle"])
    assert len(sqs_client.receive_message(QueueUrl=url)["Messages"]) == 1
