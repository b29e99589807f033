"""Lambda's SQS event source: the event a function gets, and the mapping that drives it.

``lambda_event`` receives a batch and shapes it as Lambda does: ``{"Records": [...]}``, each
record with lower-camel keys, the system attributes Lambda passes on and the message
attributes in Lambda's form (``stringValue``, ``binaryValue`` as base64, the two list fields,
``dataType``). ``run_lambda`` plays the event-source mapping: receive, invoke the handler,
delete what succeeded; with ``ReportBatchItemFailures`` the ids the handler reports stay on the
queue, and when the handler raises the whole batch does -- they come back after the visibility
timeout, and the redrive policy moves them to the dead-letter queue in the end. Every call goes
through the runtime like a user's, so it shows in the call journal and fault rules apply.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._protocol import Call

__all__ = ["LambdaContext", "LambdaRun", "lambda_event", "run_lambda", "to_record"]

#: System attributes Lambda puts in a record, in its order; others are left out.
_ATTRIBUTES = (
    "ApproximateReceiveCount",
    "SentTimestamp",
    "SequenceNumber",
    "MessageGroupId",
    "SenderId",
    "MessageDeduplicationId",
    "ApproximateFirstReceiveTimestamp",
    "AWSTraceHeader",
    "DeadLetterQueueSourceArn",
)
#: Lambda reads at most this many messages per receive, like any consumer.
_RECEIVE_MAX = 10
#: Receives that may come back empty while messages wait before a batch is given up.
_POLLS = 20


def _message_attribute(value: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "StringValue" in value:
        out["stringValue"] = value["StringValue"]
    if "BinaryValue" in value:
        out["binaryValue"] = value["BinaryValue"]  # already base64 on the wire
    out["stringListValues"] = list(value.get("StringListValues") or ())
    out["binaryListValues"] = list(value.get("BinaryListValues") or ())
    out["dataType"] = value["DataType"]
    return out


def to_record(message: dict[str, Any], arn: str, region: str) -> dict[str, Any]:
    """One ``ReceiveMessage`` message (JSON-wire form) as a record of Lambda's SQS event."""
    attributes = message.get("Attributes") or {}
    record: dict[str, Any] = {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": {name: attributes[name] for name in _ATTRIBUTES if name in attributes},
        "messageAttributes": {
            name: _message_attribute(value)
            for name, value in (message.get("MessageAttributes") or {}).items()
        },
        "md5OfBody": message["MD5OfBody"],
    }
    if "MD5OfMessageAttributes" in message:
        record["md5OfMessageAttributes"] = message["MD5OfMessageAttributes"]
    record["eventSource"] = "aws:sqs"
    record["eventSourceARN"] = arn
    record["awsRegion"] = region
    return record


def _caller(runtime: Any) -> Call:
    return Call(runtime.region, runtime.account)


def _call(runtime: Any, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    result = runtime.call(operation, params, _caller(runtime))
    if result.error is not None:
        raise result.error
    return result.payload or {}


def _resolve(runtime: Any, queue: str) -> tuple[str, str]:
    """(ARN, region) of the queue named ``queue`` (a name or URL)."""
    found = runtime.find_queue(queue)
    return found.arn, found.region


def _visible(runtime: Any, queue: str) -> int:
    call = Call(runtime.region, runtime.account, backend=runtime.backend)
    return call.queue({"QueueUrl": queue}).counts()[0]


def _receive(runtime: Any, queue: str, count: int) -> list[dict[str, Any]]:
    """Up to ``count`` messages, in receives of at most ten, until one brings fewer than it
    asked for (the queue has no more for now)."""
    messages: list[dict[str, Any]] = []
    polls = 0
    while len(messages) < count:
        wanted = min(_RECEIVE_MAX, count - len(messages))
        answer = _call(
            runtime,
            "ReceiveMessage",
            {
                "QueueUrl": queue,
                "MaxNumberOfMessages": wanted,
                "MessageSystemAttributeNames": ["All"],
                "MessageAttributeNames": ["All"],
                "WaitTimeSeconds": 0,
            },
        )
        got = answer.get("Messages") or []
        polls += 1
        if not got and not messages and polls < _POLLS and _visible(runtime, queue):
            continue  # an empty short poll while messages wait: Lambda's poller polls again
        messages.extend(got)
        if len(got) < wanted:
            break
    return messages


def lambda_event(runtime: Any, queue: str, max_messages: int = 10) -> dict[str, Any]:
    """Receive up to ``max_messages`` (1 to 10 000) and return Lambda's event for them."""
    if not isinstance(max_messages, int) or not 1 <= max_messages <= 10_000:
        raise ValueError(f"max_messages must be between 1 and 10000, not {max_messages!r}")
    arn, region = _resolve(runtime, queue)
    return {"Records": [to_record(m, arn, region) for m in _receive(runtime, queue, max_messages)]}


class LambdaContext:
    """A stand-in for the context object Lambda passes a handler."""

    def __init__(self, region: str, account: str, function_name: str = "sqsmock-function"):
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:{region}:{account}:function:{function_name}"
        self.memory_limit_in_mb = 128
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "sqsmock"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


@dataclass
class LambdaRun:
    """What ``run_lambda`` did."""

    #: Invocations of the handler.
    batches: int = 0
    #: Messages handed to the handler (a message received twice counts twice).
    received: int = 0
    #: MessageIds deleted after the handler succeeded with them.
    deleted: list[str] = field(default_factory=list)
    #: MessageIds left on the queue: reported in batchItemFailures, or in a batch that raised.
    failed: list[str] = field(default_factory=list)
    #: Exceptions the handler raised (its batch was not deleted).
    errors: list[BaseException] = field(default_factory=list)
    #: What each invocation returned (None where it raised).
    responses: list[Any] = field(default_factory=list)


def _failures(response: Any, ids: list[str]) -> set[str] | None:
    """The ids a ``batchItemFailures`` response names; None if it is malformed, which Lambda
    takes as the whole batch failing."""
    if response is None:
        return set()
    if not isinstance(response, dict):
        return None
    items = response.get("batchItemFailures")
    if items is None:
        return set()
    if not isinstance(items, list):
        return None
    named: set[str] = set()
    for item in items:
        identifier = item.get("itemIdentifier") if isinstance(item, dict) else None
        if not isinstance(identifier, str) or identifier not in ids:
            return None
        named.add(identifier)
    return named


def run_lambda(
    runtime: Any,
    handler: Callable[[dict[str, Any], Any], Any],
    queue: str,
    *,
    batch_size: int = 10,
    report_batch_item_failures: bool = True,
    context: Any = None,
    max_batches: int | None = None,
) -> LambdaRun:
    """Play an event-source mapping until a receive finds nothing (or ``max_batches``)."""
    if not isinstance(batch_size, int) or not 1 <= batch_size <= 10_000:
        raise ValueError(f"batch_size must be between 1 and 10000, not {batch_size!r}")
    arn, region = _resolve(runtime, queue)
    if context is None:
        context = LambdaContext(runtime.region, runtime.account)
    run = LambdaRun()
    failed_here: set[str] = set()
    while max_batches is None or run.batches < max_batches:
        messages = _receive(runtime, queue, batch_size)
        if not messages:
            break
        ids = [m["MessageId"] for m in messages]
        if failed_here.issuperset(ids):
            break  # only messages that failed in this run, back at once: the mapping would wait
        records = [to_record(m, arn, region) for m in messages]
        run.batches += 1
        run.received += len(records)
        try:
            response = handler({"Records": records}, context)
        except Exception as error:  # Lambda reports it and retries the batch
            run.errors.append(error)
            run.responses.append(None)
            run.failed.extend(ids)
            failed_here.update(ids)
            continue
        run.responses.append(response)
        failures = _failures(response, ids) if report_batch_item_failures else set()
        if failures is None:
            failures = set(ids)
        done = [m for m in messages if m["MessageId"] not in failures]
        for start in range(0, len(done), 10):
            chunk = done[start : start + 10]
            _call(
                runtime,
                "DeleteMessageBatch",
                {
                    "QueueUrl": queue,
                    "Entries": [
                        {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                        for i, m in enumerate(chunk)
                    ],
                },
            )
        run.deleted.extend(m["MessageId"] for m in done)
        left = [i for i in ids if i in failures]
        run.failed.extend(left)
        failed_here.update(left)
    return run
