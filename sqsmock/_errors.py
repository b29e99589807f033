"""Every SQS error sqsmock can answer, as data: one table, one exception type.

Each entry gives the error shape (``__type`` on the wire, ``Error.QueryErrorCode`` in botocore and
the modeled exception class), the legacy query code (``Error.Code``), the HTTP status and the
message template. Any layer raises ``SqsError(name, **params)``; the protocol layer renders it.
This module imports nothing of sqsmock so that every layer may use it.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ERRORS", "ErrorSpec", "SqsError", "batch_entry_error"]


class ErrorSpec(NamedTuple):
    shape: str
    code: str
    status: int
    template: str


_Q = "AWS.SimpleQueueService."

ERRORS: dict[str, ErrorSpec] = {
    "QueueDoesNotExist": ErrorSpec(
        "QueueDoesNotExist", _Q + "NonExistentQueue", 400, "The specified queue does not exist."
    ),
    "QueueNameExists": ErrorSpec(
        "QueueNameExists",
        "QueueAlreadyExists",
        400,
        "A queue already exists with the same name and a different value for attribute {name}",
    ),
    "QueueDeletedRecently": ErrorSpec(
        "QueueDeletedRecently",
        _Q + "QueueDeletedRecently",
        400,
        "You must wait 60 seconds after deleting a queue before you can create another with the "
        "same name.",
    ),
    "PurgeQueueInProgress": ErrorSpec(
        "PurgeQueueInProgress",
        _Q + "PurgeQueueInProgress",
        403,
        "Only one PurgeQueue operation on {name} is allowed every 60 seconds.",
    ),
    "TooManyEntriesInBatchRequest": ErrorSpec(
        "TooManyEntriesInBatchRequest",
        _Q + "TooManyEntriesInBatchRequest",
        400,
        "Maximum number of entries per request are 10. You have sent {count}.",
    ),
    "EmptyBatchRequest": ErrorSpec(
        "EmptyBatchRequest",
        _Q + "EmptyBatchRequest",
        400,
        "There should be at least one {entry} in the request.",
    ),
    "BatchEntryIdsNotDistinct": ErrorSpec(
        "BatchEntryIdsNotDistinct", _Q + "BatchEntryIdsNotDistinct", 400, "Id {id} repeated."
    ),
    "InvalidBatchEntryId": ErrorSpec(
        "InvalidBatchEntryId",
        _Q + "InvalidBatchEntryId",
        400,
        "A batch entry id can only contain alphanumeric characters, hyphens and underscores. "
        "It can be at most 80 letters long.",
    ),
    "BatchRequestTooLong": ErrorSpec(
        "BatchRequestTooLong",
        _Q + "BatchRequestTooLong",
        400,
        "Batch requests cannot be longer than 1048576 bytes. You have sent {size} bytes.",
    ),
    "InvalidParameterValue": ErrorSpec(
        "InvalidParameterValueException", "InvalidParameterValue", 400, "{message}"
    ),
    "InvalidParameterFor": ErrorSpec(
        "InvalidParameterValueException",
        "InvalidParameterValue",
        400,
        "Value {value} for parameter {name} is invalid. Reason: {reason}",
    ),
    "MissingParameter": ErrorSpec(
        "MissingRequiredParameterException",
        "MissingParameter",
        400,
        "The request must contain the parameter {name}.",
    ),
    "InvalidAttributeName": ErrorSpec(
        "InvalidAttributeName", "InvalidAttributeName", 400, "Unknown Attribute {name}."
    ),
    "InvalidAttributeNameText": ErrorSpec(
        "InvalidAttributeName", "InvalidAttributeName", 400, "{message}"
    ),
    "InvalidAttributeValue": ErrorSpec(
        "InvalidAttributeValue",
        "InvalidAttributeValue",
        400,
        "Invalid value for the parameter {name}.",
    ),
    "InvalidAttributeValueReason": ErrorSpec(
        "InvalidAttributeValue",
        "InvalidAttributeValue",
        400,
        "Invalid value for the parameter {name}. Reason: {reason}",
    ),
    "InvalidMessageContents": ErrorSpec(
        "InvalidMessageContents",
        "InvalidMessageContents",
        400,
        "Invalid binary character '{char}' was found in the message body, the set of allowed "
        "characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF",
    ),
    "InvalidAttributeContents": ErrorSpec(
        "InvalidMessageContents",
        "InvalidMessageContents",
        400,
        "Invalid binary character '{char}' was found in the value of message attribute '{name}', "
        "the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | "
        "#x10000 to #x10FFFF",
    ),
    "ReceiptHandleIsInvalid": ErrorSpec(
        "ReceiptHandleIsInvalid",
        "ReceiptHandleIsInvalid",
        400,
        'The input receipt handle "{handle}" is not a valid receipt handle.',
    ),
    "OverLimit": ErrorSpec("OverLimit", "OverLimit", 403, "{message}"),
    "ResourceNotFoundException": ErrorSpec(
        "ResourceNotFoundException", "ResourceNotFoundException", 404, "{message}"
    ),
    "UnsupportedOperation": ErrorSpec(
        "UnsupportedOperation", _Q + "UnsupportedOperation", 400, "{message}"
    ),
    "InvalidAction": ErrorSpec(
        "InvalidAction", "InvalidAction", 400, "The action {action} is not valid for this endpoint."
    ),
}


class SqsError(Exception):
    """An SQS error answer: ``SqsError("QueueDoesNotExist")``, ``SqsError("X", name=...)``."""

    def __init__(self, error: str, /, **params: object) -> None:
        spec = ERRORS[error]
        self.error = error
        self.spec = spec
        self.message = spec.template.format(**params) if params else spec.template
        super().__init__(f"{spec.code}: {self.message}")

    @property
    def code(self) -> str:
        return self.spec.code

    @property
    def shape(self) -> str:
        return self.spec.shape

    @property
    def status(self) -> int:
        return self.spec.status


def invalid(message: str) -> SqsError:
    """InvalidParameterValue with a free-form message (the commonest SQS error)."""
    return SqsError("InvalidParameterValue", message=message)


def invalid_for(name: str, value: object, reason: str) -> SqsError:
    """``Value <value> for parameter <name> is invalid. Reason: <reason>``."""
    return SqsError("InvalidParameterFor", name=name, value=value, reason=reason)


def batch_entry_error(entry_id: str, error: SqsError) -> dict[str, object]:
    """A ``Failed`` entry of a batch response."""
    return {
        "Id": entry_id,
        "SenderFault": error.status < 500,
        "Code": error.code,
        "Message": error.message,
    }
