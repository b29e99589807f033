"""Sample requests and answers for every SQS operation, shared by the protocol tests.

Parameters are what a boto3 user passes (bytes for blobs); answers are in the JSON-wire form
(blobs as base64 text), as the service layer returns them.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import botocore.session
from botocore.model import ServiceModel

URL = "https://sqs.us-east-1.amazonaws.com/123456789012/q"
ARN = "arn:aws:sqs:us-east-1:123456789012:q"
QUERY_MODEL_PATH = Path(__file__).parent / "data" / "sqs-2012-11-05-query.service-2.json.gz"

#: The body texts a message may carry: XML specials, carriage returns, emoji, tabs, the edges
#: of the characters XML 1.0 allows.
BODIES = [
    "hello",
    "a\r\nb\rc\n",
    "&amp; <tag attr=\"x\"> 'q' ]]> &#xD;",
    "emoji 😀 ünïcödé 中文",
    "\t leading and trailing spaces \t",
    "\ud7ff\ue000\ufffd\U00010000\U0010ffff",
    " ",
]


def query_model() -> ServiceModel:
    return ServiceModel(json.loads(gzip.decompress(QUERY_MODEL_PATH.read_bytes())), "sqs")


def json_model() -> ServiceModel:
    return botocore.session.get_session().get_service_model("sqs")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


_ATTRIBUTES = {
    "s": {"DataType": "String", "StringValue": "x & <y>\r\n😀"},
    "n": {"DataType": "Number.float", "StringValue": "-1.5e3"},
    "b": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff\r\n"},
    "c": {"DataType": "Binary.gif", "BinaryValue": b""},
    "l": {"DataType": "String", "StringListValues": ["a", "b"]},
    "bl": {"DataType": "Binary", "BinaryListValues": [b"\x00", b"\xfe\xff"]},
}
_WIRE_ATTRIBUTES = {
    "s": {"DataType": "String", "StringValue": "x & <y>\r\n😀"},
    "b": {"DataType": "Binary", "BinaryValue": _b64(b"\x00\x01\xff\r\n")},
    "bl": {"DataType": "Binary", "BinaryListValues": [_b64(b"\x00"), _b64(b"\xfe\xff")]},
}

#: operation -> parameters a user passes.
REQUESTS: dict[str, list[dict[str, Any]]] = {
    "AddPermission": [
        {"QueueUrl": URL, "Label": "l", "AWSAccountIds": ["111122223333"], "Actions": ["*"]},
        {
            "QueueUrl": URL,
            "Label": "two",
            "AWSAccountIds": ["111122223333", "444455556666"],
            "Actions": ["SendMessage", "ReceiveMessage", "DeleteMessage"],
        },
    ],
    "CancelMessageMoveTask": [{"TaskHandle": "eyJ0YXNrSWQiOiIxIn0="}],
    "ChangeMessageVisibility": [
        {"QueueUrl": URL, "ReceiptHandle": "r+/=", "VisibilityTimeout": 0},
        {"QueueUrl": URL, "ReceiptHandle": "r", "VisibilityTimeout": 43200},
        {"QueueUrl": URL, "ReceiptHandle": "r", "VisibilityTimeout": -5},
    ],
    "ChangeMessageVisibilityBatch": [
        {
            "QueueUrl": URL,
            "Entries": [
                {"Id": "a", "ReceiptHandle": "r1", "VisibilityTimeout": 10},
                {"Id": "b", "ReceiptHandle": "r2"},
            ],
        },
        {"QueueUrl": URL, "Entries": []},
    ],
    "CreateQueue": [
        {"QueueName": "q"},
        {
            "QueueName": "q.fifo",
            "Attributes": {"FifoQueue": "true", "VisibilityTimeout": "10", "Policy": '{"a": 1}'},
            "tags": {"team": "a&b", "k2": ""},
        },
        {"QueueName": "ünï"},
    ],
    "DeleteMessage": [{"QueueUrl": URL, "ReceiptHandle": "AQEB+/x=="}],
    "DeleteMessageBatch": [
        {"QueueUrl": URL, "Entries": [{"Id": str(i), "ReceiptHandle": f"r{i}"} for i in range(10)]},
    ],
    "DeleteQueue": [{"QueueUrl": URL}, {"QueueUrl": "q"}],
    "GetQueueAttributes": [
        {"QueueUrl": URL},
        {"QueueUrl": URL, "AttributeNames": ["All"]},
        {"QueueUrl": URL, "AttributeNames": ["VisibilityTimeout", "Policy", "QueueArn"]},
        {"QueueUrl": URL, "AttributeNames": []},
    ],
    "GetQueueUrl": [
        {"QueueName": "q"},
        {"QueueName": "q", "QueueOwnerAWSAccountId": "123456789012"},
    ],
    "ListDeadLetterSourceQueues": [
        {"QueueUrl": URL},
        {"QueueUrl": URL, "NextToken": "tok+/=", "MaxResults": 5},
    ],
    "ListMessageMoveTasks": [{"SourceArn": ARN}, {"SourceArn": ARN, "MaxResults": 10}],
    "ListQueueTags": [{"QueueUrl": URL}],
    "ListQueues": [
        {},
        {"QueueNamePrefix": "pre"},
        {"QueueNamePrefix": "", "NextToken": "t", "MaxResults": 1000},
    ],
    "PurgeQueue": [{"QueueUrl": URL}],
    "ReceiveMessage": [
        {"QueueUrl": URL},
        {
            "QueueUrl": URL,
            "AttributeNames": ["All"],
            "MessageAttributeNames": ["All", "a.*"],
            "MaxNumberOfMessages": 10,
            "VisibilityTimeout": 30,
            "WaitTimeSeconds": 20,
            "ReceiveRequestAttemptId": "attempt-1",
        },
        {"QueueUrl": URL, "AttributeNames": ["SentTimestamp", "ApproximateReceiveCount"]},
    ],
    "RemovePermission": [{"QueueUrl": URL, "Label": "l"}],
    "SendMessage": [
        *({"QueueUrl": URL, "MessageBody": body} for body in BODIES),
        {
            "QueueUrl": URL,
            "MessageBody": "with attributes",
            "DelaySeconds": 900,
            "MessageAttributes": _ATTRIBUTES,
            "MessageSystemAttributes": {
                "AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1-5;Sampled=1"}
            },
        },
        {
            "QueueUrl": URL,
            "MessageBody": "fifo",
            "MessageGroupId": "g",
            "MessageDeduplicationId": "d",
        },
    ],
    "SendMessageBatch": [
        {
            "QueueUrl": URL,
            "Entries": [
                {"Id": f"e{i}", "MessageBody": body, "DelaySeconds": i}
                for i, body in enumerate(BODIES)
            ],
        },
        {
            "QueueUrl": URL,
            "Entries": [
                {
                    "Id": "attrs",
                    "MessageBody": "x",
                    "MessageAttributes": _ATTRIBUTES,
                    "MessageSystemAttributes": {
                        "AWSTraceHeader": {"DataType": "String", "StringValue": "t"}
                    },
                    "MessageGroupId": "g",
                    "MessageDeduplicationId": "d",
                },
                {"Id": "plain", "MessageBody": "y"},
            ],
        },
        {"QueueUrl": URL, "Entries": []},
    ],
    "SetQueueAttributes": [
        {"QueueUrl": URL, "Attributes": {"VisibilityTimeout": "10"}},
        {
            "QueueUrl": URL,
            "Attributes": {
                "RedrivePolicy": json.dumps({"deadLetterTargetArn": ARN, "maxReceiveCount": 3}),
                "DelaySeconds": "0",
                "Policy": "",
            },
        },
    ],
    "StartMessageMoveTask": [
        {"SourceArn": ARN},
        {"SourceArn": ARN, "DestinationArn": ARN + "2", "MaxNumberOfMessagesPerSecond": 500},
    ],
    "TagQueue": [{"QueueUrl": URL, "Tags": {"a": "1", "b": "ü & <>"}}],
    "UntagQueue": [
        {"QueueUrl": URL, "TagKeys": ["a"]},
        {"QueueUrl": URL, "TagKeys": ["a", "b", "c"]},
    ],
}

_MESSAGE = {
    "MessageId": "5fea7756-0ea4-451a-a703-a558b933e274",
    "ReceiptHandle": "AQEB+/==",
    "MD5OfBody": "fafb00f5732ab283681e124bf8747ed1",
    "Body": 'a\r\nb & <c> 😀 "q"',
    "Attributes": {
        "SenderId": "AIDA",
        "SentTimestamp": "1700000000000",
        "ApproximateReceiveCount": "1",
        "AWSTraceHeader": "Root=1",
    },
    "MD5OfMessageAttributes": "d41d8cd98f00b204e9800998ecf8427e",
    "MessageAttributes": _WIRE_ATTRIBUTES,
}

_FAILED = {
    "Id": "bad",
    "SenderFault": True,
    "Code": "InvalidParameterValue",
    "Message": "Value <x> & y is invalid.",
}

#: operation -> answers in JSON-wire form (only operations that answer something).
ANSWERS: dict[str, list[dict[str, Any]]] = {
    "CancelMessageMoveTask": [{"ApproximateNumberOfMessagesMoved": 2**40}, {}],
    "ChangeMessageVisibilityBatch": [
        {"Successful": [{"Id": "a"}, {"Id": "b"}], "Failed": [_FAILED]},
        {"Successful": [{"Id": "a"}], "Failed": []},
    ],
    "CreateQueue": [{"QueueUrl": URL}],
    "DeleteMessageBatch": [
        {"Successful": [{"Id": "a"}], "Failed": [_FAILED, {**_FAILED, "SenderFault": False}]},
    ],
    "GetQueueAttributes": [
        {"Attributes": {"VisibilityTimeout": "30", "Policy": '{"Version":"2012-10-17"}'}},
        {},
    ],
    "GetQueueUrl": [{"QueueUrl": URL}],
    "ListDeadLetterSourceQueues": [
        {"queueUrls": [URL, URL + "2"], "NextToken": "t"},
        {"queueUrls": [URL]},
    ],
    "ListMessageMoveTasks": [
        {
            "Results": [
                {
                    "TaskHandle": "h",
                    "Status": "RUNNING",
                    "SourceArn": ARN,
                    "DestinationArn": ARN + "2",
                    "MaxNumberOfMessagesPerSecond": 10,
                    "ApproximateNumberOfMessagesMoved": 0,
                    "ApproximateNumberOfMessagesToMove": 12,
                    "StartedTimestamp": 1700000000000,
                },
                {"Status": "FAILED", "SourceArn": ARN, "FailureReason": "x & y"},
            ]
        },
        {},
    ],
    "ListQueueTags": [{"Tags": {"a": "1", "b": "ü & <>"}}, {}],
    "ListQueues": [{"QueueUrls": [URL, URL + "2"], "NextToken": "n"}, {"QueueUrls": [URL]}, {}],
    "ReceiveMessage": [
        {"Messages": [_MESSAGE, {**_MESSAGE, "MessageAttributes": {}, "Body": "plain"}]},
        {"Messages": [{**_MESSAGE, "Body": body} for body in BODIES]},
        {},
    ],
    "SendMessage": [
        {
            "MD5OfMessageBody": "fafb00f5732ab283681e124bf8747ed1",
            "MD5OfMessageAttributes": "d41d8cd98f00b204e9800998ecf8427e",
            "MD5OfMessageSystemAttributes": "d41d8cd98f00b204e9800998ecf8427e",
            "MessageId": "5fea7756-0ea4-451a-a703-a558b933e274",
            "SequenceNumber": "18849496460467696128",
        },
        {"MD5OfMessageBody": "x", "MessageId": "m"},
    ],
    "SendMessageBatch": [
        {
            "Successful": [
                {"Id": "a", "MessageId": "m", "MD5OfMessageBody": "x", "SequenceNumber": "1"},
                {
                    "Id": "b",
                    "MessageId": "m2",
                    "MD5OfMessageBody": "y",
                    "MD5OfMessageAttributes": "z",
                },
            ],
            "Failed": [_FAILED],
        },
    ],
    "StartMessageMoveTask": [{"TaskHandle": "eyJ0YXNrSWQiOiIxIn0="}],
}
