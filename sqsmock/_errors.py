"""Every SQS error sqsmock can answer, as data: one table, one exception type.

Each entry gives the error shape (``__type`` on the wire, ``Error.QueryErrorCode`` in botocore and
the modeled exception class), the legacy query code (``Error.Code``), the HTTP status and the
message template. Any layer raises ``SqsError(name, **params)``; the protocol layer renders it.
Every message text lives here, so a reader sees in one place what sqsmock can answer and a test
checks the table (placeholders, shapes, statuses) and every raise site against it.
This module imports nothing of sqsmock so that every layer may use it.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ERRORS", "QUERY_MESSAGES", "ErrorSpec", "SqsError", "batch_entry_error"]


class ErrorSpec(NamedTuple):
    shape: str
    code: str
    status: int
    template: str


_Q = "AWS.SimpleQueueService."
_ALLOWED_CHARACTERS = (
    "the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | "
    "#x10000 to #x10FFFF"
)


def _invalid(template: str) -> ErrorSpec:
    """``InvalidParameterValue``: the commonest SQS error (its shape is not in botocore's model)."""
    return ErrorSpec("InvalidParameterValueException", "InvalidParameterValue", 400, template)


def _bad_value(parameter: str, reason: str) -> ErrorSpec:
    """``Value {value} for parameter <parameter> is invalid. Reason: <reason>``."""
    return _invalid(f"Value {{value}} for parameter {parameter} is invalid. Reason: {reason}")


def _bad_attribute_name(template: str) -> ErrorSpec:
    return ErrorSpec("InvalidAttributeName", "InvalidAttributeName", 400, template)


def _bad_attribute_value(attribute: str, reason: str) -> ErrorSpec:
    """``Invalid value for the parameter <attribute>. Reason: <reason>``."""
    return ErrorSpec(
        "InvalidAttributeValue",
        "InvalidAttributeValue",
        400,
        f"Invalid value for the parameter {attribute}. Reason: {reason}",
    )


def _over_limit(template: str) -> ErrorSpec:
    return ErrorSpec("OverLimit", "OverLimit", 403, template)


def _not_found(template: str) -> ErrorSpec:
    return ErrorSpec("ResourceNotFoundException", "ResourceNotFoundException", 404, template)


ERRORS: dict[str, ErrorSpec] = {
    # --- Request and action -------------------------------------------------------------------
    "InvalidAction": ErrorSpec(
        "InvalidAction", "InvalidAction", 400, "The action {action} is not valid for this endpoint."
    ),
    "MissingParameter": ErrorSpec(
        "MissingRequiredParameterException",
        "MissingParameter",
        400,
        "The request must contain the parameter {name}.",
    ),
    "InvalidJsonBody": _invalid("The request body is not valid JSON."),
    # The text is botocore's own report of a parameter that does not fit the service model.
    "ParameterFailsModel": _invalid("{report}."),
    "ParameterNotString": _bad_value("{name}", "{name} must be a string."),
    "ParameterNotStringList": _bad_value("{name}", "{name} must be a list of strings."),
    # --- Queues: create, look up, list, delete, purge -----------------------------------------
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
    "InvalidQueueName": _invalid(
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
    ),
    "InvalidFifoQueueName": _invalid(
        "The name of a FIFO queue can only include alphanumeric characters, hyphens, or "
        "underscores, must end with .fifo suffix and be 1 to 80 in length."
    ),
    "MaxResultsOutOfRange": _bad_value(
        "MaxResults", "MaxResults must be an integer between 1 and 1000."
    ),
    "InvalidNextToken": _invalid("Invalid NextToken value."),
    "PurgeQueueInProgress": ErrorSpec(
        "PurgeQueueInProgress",
        _Q + "PurgeQueueInProgress",
        403,
        "Only one PurgeQueue operation on {name} is allowed every 60 seconds.",
    ),
    # --- Queue attributes ---------------------------------------------------------------------
    "InvalidAttributeName": _bad_attribute_name("Unknown Attribute {name}."),
    "FifoSettingOnStandardQueue": _bad_attribute_name(
        "You can specify the {name} only when FifoQueue is set to true."
    ),
    "ConflictingEncryption": _bad_attribute_name(
        "You can use one type of server-side encryption (SSE) at one time. You can either enable "
        "KMS SSE or SQS SSE."
    ),
    "InvalidAttributeValue": ErrorSpec(
        "InvalidAttributeValue",
        "InvalidAttributeValue",
        400,
        "Invalid value for the parameter {name}.",
    ),
    "QueueTypeChange": _bad_attribute_value("FifoQueue", "Modifying queue type is not supported."),
    "ThroughputLimitNeedsGroupScope": _bad_attribute_value(
        "FifoThroughputLimit",
        "The FifoThroughputLimit perMessageGroupId can be used only when the DeduplicationScope "
        "is messageGroup.",
    ),
    "PolicyNotJson": _bad_attribute_value("Policy", "Invalid JSON."),
    # --- Queue attributes: RedrivePolicy and RedriveAllowPolicy -------------------------------
    "RedrivePolicyNotJson": _bad_value("RedrivePolicy", "Redrive policy is not a valid JSON map."),
    "RedrivePolicyMissingKey": _bad_value(
        "RedrivePolicy", "Redrive policy does not contain mandatory attribute: {key}."
    ),
    "RedrivePolicyUnknownKey": _bad_value(
        "RedrivePolicy",
        "Only following attributes are supported: [deadLetterTargetArn, maxReceiveCount]. "
        "Found: {key}.",
    ),
    "MaxReceiveCountOutOfRange": _bad_value(
        "RedrivePolicy",
        "Invalid value for maxReceiveCount: {count}, valid values are from 1 to 1000 both "
        "inclusive.",
    ),
    "DeadLetterTargetDoesNotExist": _bad_value(
        "RedrivePolicy", "Dead letter target does not exist."
    ),
    "DeadLetterTargetTypeMismatch": _bad_value(
        "RedrivePolicy", "Dead-letter queue must be same type of queue as the source."
    ),
    "DeadLetterSourceNotAllowed": _bad_value(
        "RedrivePolicy",
        "Queue {arn} does not allow this queue as a dead-letter queue source. Check the "
        "RedriveAllowPolicy of the dead-letter queue.",
    ),
    "RedriveAllowPolicyUnsupported": _bad_value(
        "RedriveAllowPolicy",
        "Amazon SQS can't create the redrive allow policy, as it's in an unsupported format.",
    ),
    "RedriveAllowPolicySourceCount": _bad_value(
        "RedriveAllowPolicy",
        "You must specify 1 to 10 source queue ARNs when redrivePermission is byQueue.",
    ),
    "RedriveAllowPolicySourcesNotByQueue": _bad_value(
        "RedriveAllowPolicy",
        "sourceQueueArns can be specified only when redrivePermission is byQueue.",
    ),
    # --- Queue tags ---------------------------------------------------------------------------
    "TagsNotMap": _invalid("Tags must be a map of tag keys to values."),
    "TagKeyLength": _invalid("Tag key must be between 1 and 128 characters long: {key!s}."),
    "TagKeyReservedPrefix": _invalid("Tag key {key} uses the reserved prefix aws:."),
    "TagValueTooLong": _invalid("Tag value for key {key} must be at most 256 characters long."),
    "TooManyTags": _invalid("Too many tags added for queue {queue}."),
    "NoTagKeys": _invalid("Tag keys must be between 1 and 128 characters in length."),
    "TagNotUnicode": _invalid("Tag {key} must have a key and a value of valid Unicode text."),
    # A character XML 1.0 cannot carry: every query-protocol ListQueueTags would be unreadable.
    "TagInvalidCharacters": _invalid(
        "Tag {key} has a key or a value with an invalid character, " + _ALLOWED_CHARACTERS
    ),
    # --- Sending: body, size, delay, FIFO group and deduplication -----------------------------
    "InvalidMessageContents": ErrorSpec(
        "InvalidMessageContents",
        "InvalidMessageContents",
        400,
        "Invalid binary character '{char}' was found in the message body, " + _ALLOWED_CHARACTERS,
    ),
    "MessageTooLong": _invalid(
        "One or more parameters are invalid. Reason: Message must be shorter than {limit} bytes."
    ),
    # The same check inside SendMessageBatch is worded differently (recorded from SQS).
    "MessageTooLongInBatch": _invalid(
        "One or more parameters cannot be validated. Reason: Message must be shorter than "
        "{limit} bytes."
    ),
    "DelaySecondsOutOfRange": _bad_value("DelaySeconds", "DelaySeconds must be >= 0 and <= 900."),
    # MessageGroupId, MessageDeduplicationId and ReceiveRequestAttemptId share this rule.
    "InvalidIdCharacters": _bad_value(
        "{name}",
        "{name} can only include alphanumeric and punctuation characters. 1 to 128 in length.",
    ),
    "ParameterNotForQueueType": _bad_value(
        "{name}", "The request include parameter that is not valid for this queue type."
    ),
    "MissingDeduplicationId": _invalid(
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId "
        "provided explicitly"
    ),
    # In a FIFO batch a missing group id fails the whole request, as InvalidParameterValue.
    "MissingGroupIdInBatch": _invalid("The request must contain the parameter MessageGroupId."),
    # --- Message attributes (user) ------------------------------------------------------------
    "MessageAttributesNotMap": _invalid("MessageAttributes must be a map."),
    "TooManyMessageAttributes": _invalid(
        "Number of message attributes [{count}] exceeds the allowed maximum [{limit}]."
    ),
    "MessageAttributeNameInvalid": _invalid(
        "Message (user) attribute name '{name}' is invalid. The attribute name can contain "
        "A-Z, a-z, 0-9, underscore (_), hyphen (-), and period (.) characters."
    ),
    "MessageAttributeNameReserved": _invalid(
        "Message (user) attribute name '{name}' is invalid. The attribute name can't start "
        "with AWS-reserved prefixes 'AWS.' or 'Amazon.' (or any casing variants)."
    ),
    "MessageAttributeNamePeriods": _invalid(
        "Message (user) attribute name '{name}' is invalid. The attribute name can't start "
        "or end with a period (.), or have successive periods (..)."
    ),
    "MessageAttributeNotStructure": _invalid("The message attribute '{name}' must be a structure."),
    "MessageAttributeListValues": _invalid(
        "Message attribute list values in SendMessage operation are not supported."
    ),
    "MessageAttributeMissingType": _invalid(
        "The message attribute '{name}' must contain a non-empty message attribute type."
    ),
    "MessageAttributeInvalidType": _invalid(
        "The type of message (user) attribute '{name}' is invalid. You must use only the "
        "following supported type prefixes: Binary, Number, String."
    ),
    "MessageAttributeEmptyValue": _invalid(
        "Message (user) attribute '{name}' must contain a non-empty value of type '{type}'."
    ),
    "MessageAttributeNotNumber": _invalid(
        "Can't inspect the value of message (user) attribute '{name}' as a number: {value}."
    ),
    "MessageAttributeNumberOutOfRange": _invalid(
        "Value {value} of message (user) attribute '{name}' is out of range."
    ),
    "BinaryValueNotBase64": _invalid("BinaryValue must be base64-encoded."),
    # Unlike the body (InvalidMessageContents), an attribute value with a forbidden character
    # answers InvalidParameterValue (recorded from SQS).
    "InvalidAttributeContents": _invalid(
        "Invalid binary character '{char}' was found in the value of message attribute '{name}', "
        + _ALLOWED_CHARACTERS
    ),
    # --- Message system attributes ------------------------------------------------------------
    "MessageSystemAttributesNotMap": _invalid("MessageSystemAttributes must be a map."),
    "MessageSystemAttributeNameInvalid": _invalid(
        "Message system attribute name '{name}' is invalid."
    ),
    "TraceHeaderNotString": _invalid(
        "Message system attribute 'AWSTraceHeader' must be of type 'String'."
    ),
    "TraceHeaderEmpty": _invalid(
        "Message system attribute 'AWSTraceHeader' must contain a non-empty value of type 'String'."
    ),
    # --- Batch requests -----------------------------------------------------------------------
    "EmptyBatchRequest": ErrorSpec(
        "EmptyBatchRequest",
        _Q + "EmptyBatchRequest",
        400,
        "There should be at least one {entry} in the request.",
    ),
    "EntriesNotList": _bad_value("Entries", "Entries must be a list of structures."),
    "TooManyEntriesInBatchRequest": ErrorSpec(
        "TooManyEntriesInBatchRequest",
        _Q + "TooManyEntriesInBatchRequest",
        400,
        "Maximum number of entries per request are 10. You have sent {count}.",
    ),
    "InvalidBatchEntryId": ErrorSpec(
        "InvalidBatchEntryId",
        _Q + "InvalidBatchEntryId",
        400,
        "A batch entry id can only contain alphanumeric characters, hyphens and underscores. "
        "It can be at most 80 letters long.",
    ),
    "BatchEntryIdsNotDistinct": ErrorSpec(
        "BatchEntryIdsNotDistinct", _Q + "BatchEntryIdsNotDistinct", 400, "Id {id} repeated."
    ),
    "BatchRequestTooLong": ErrorSpec(
        "BatchRequestTooLong",
        _Q + "BatchRequestTooLong",
        400,
        "Batch requests cannot be longer than 1048576 bytes. You have sent {size} bytes.",
    ),
    # --- Receiving ----------------------------------------------------------------------------
    "MaxNumberOfMessagesOutOfRange": _bad_value(
        "MaxNumberOfMessages", "Must be between 1 and 10, if provided."
    ),
    "ReceiveVisibilityTimeoutOutOfRange": _bad_value(
        "VisibilityTimeout", "Must be >= 0 and <= 43200, if provided."
    ),
    "WaitTimeSecondsOutOfRange": _bad_value(
        "WaitTimeSeconds", "Must be >= 0 and <= 20, if provided."
    ),
    "InFlightLimitReached": _over_limit(
        "The maximum number of in-flight messages ({limit}) has been reached for this queue."
    ),
    # --- Receipt handles: delete and change visibility ----------------------------------------
    "ReceiptHandleIsInvalid": ErrorSpec(
        "ReceiptHandleIsInvalid",
        "ReceiptHandleIsInvalid",
        400,
        'The input receipt handle "{handle}" is not a valid receipt handle.',
    ),
    "ReceiptHandleExpired": _bad_value("ReceiptHandle", "The receipt handle has expired."),
    "VisibilityTimeoutOutOfRange": _bad_value(
        "VisibilityTimeout", "Must be between 0 and 43200, if provided."
    ),
    "VisibilityTimeoutBeyondLimit": _bad_value(
        "VisibilityTimeout",
        "Total VisibilityTimeout for the message is beyond the limit [43200 seconds].",
    ),
    "MessageNotInFlight": _bad_value(
        "ReceiptHandle",
        "Message does not exist or is not available for visibility timeout change.",
    ),
    # --- Permissions: AddPermission, RemovePermission -----------------------------------------
    "InvalidLabel": _bad_value(
        "Label",
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
    ),
    "LabelExists": _bad_value("Label", "Already exists."),
    "LabelNotFound": _bad_value("Label", "can't find label."),
    "InvalidAccountId": _invalid(
        "Value [{ids}] for parameter PrincipalId is invalid. Reason: Unable to verify."
    ),
    "TooManyActions": _over_limit("{count} Actions were found, maximum allowed is {limit}."),
    "OwnerOnlyAction": _bad_value(
        "ActionName", "Only the queue owner is allowed to invoke this action."
    ),
    "UnknownAction": _bad_value(
        "ActionName", "Please refer to the appropriate WSDL for a list of valid actions."
    ),
    # --- Dead-letter queues and message move tasks --------------------------------------------
    "ArnDoesNotExist": _not_found(
        "The resource that you specified for the {name} parameter doesn't exist."
    ),
    "SourceNotDeadLetterQueue": _invalid("Source queue must be configured as a Dead Letter Queue."),
    "MoveQueueTypeMismatch": _invalid(
        "The source queue and the destination queue must be of the same type."
    ),
    "MoveRateOutOfRange": _bad_value(
        "MaxNumberOfMessagesPerSecond", "Must be between 1 and 500, if provided."
    ),
    "MoveTaskMaxResultsOutOfRange": _bad_value(
        "MaxResults", "Must be between 1 and 10, if provided."
    ),
    "MoveTaskAlreadyRunning": _invalid(
        "There is already a task running. Only one active task is allowed for a source queue arn "
        "at a given time."
    ),
    "InvalidTaskHandle": _invalid("Value for parameter TaskHandle is invalid."),
    "TaskDoesNotExist": _not_found("Task does not exist."),
    # --- query protocol -----------------------------------------------------------------------
    # A form-encoded request without ``Action`` (the code and text of AWS's common errors).
    "MissingAction": ErrorSpec(
        "MissingRequiredParameterException",
        "MissingAction",
        400,
        "The request is missing an action or a required parameter.",
    ),
    # A form past sqsmock's bounds (parameters, name length, dotted depth): AWS's common error.
    "QueryParametersOutOfBounds": ErrorSpec(
        "InvalidQueryParameter",
        "InvalidQueryParameter",
        400,
        "The AWS query string is malformed or does not adhere to AWS standards.",
    ),
    # A GET of a queue URL that names no action (AWS-recorded: 404, a bare XML document).
    "UnknownOperation": ErrorSpec(
        "UnknownOperationException",
        "UnknownOperationException",
        404,
        "The request names no operation.",
    ),
    # A form value that does not convert to the member's type.
    "QueryValueNotInteger": _bad_value("{name}", "{name} must be an integer."),
    "QueryValueNotBoolean": _bad_value("{name}", "{name} must be a boolean."),
    # --- HTTP requests (server mode) ----------------------------------------------------------
    "RequestEntityTooLarge": ErrorSpec(
        "RequestEntityTooLarge",
        "RequestEntityTooLarge",
        413,
        "Request body must be no longer than {limit} bytes.",
    ),
    "MalformedQueryString": ErrorSpec(
        "MalformedQueryString",
        "MalformedQueryString",
        400,
        "The request body is not a valid UTF-8 form: {reason}.",
    ),
    "MalformedHttpRequest": ErrorSpec(
        "MalformedHttpRequest",
        "MalformedHttpRequest",
        400,
        "The request is not valid HTTP/1.1: {reason}.",
    ),
    "RequestTimeout": ErrorSpec(
        "RequestTimeout",
        "RequestTimeout",
        408,
        "The request body was not received within {seconds} seconds.",
    ),
    # A region not of AWS's form: in the SigV4 credential scope (AWS checks the scope before
    # anything else), or in a queue URL's path (AWS: a queue URL of another endpoint).
    "CredentialScopeRegion": ErrorSpec(
        "SignatureDoesNotMatch",
        "SignatureDoesNotMatch",
        403,
        "Credential should be scoped to a valid region, not '{region}'. ",
    ),
    "InvalidAddress": ErrorSpec(
        "InvalidAddress",
        "InvalidAddress",
        404,
        "The address {address} is not valid for this endpoint.",
    ),
    # An sqsmock fault, never bad input: the answer says so instead of dropping the connection.
    "InternalFailure": ErrorSpec(
        "InternalFailure",
        "InternalFailure",
        500,
        "The request processing has failed because of an unknown error, exception or failure.",
    ),
    # The server is stopping: calls that arrive now are not run.
    "ServiceUnavailable": ErrorSpec(
        "ServiceUnavailable",
        "ServiceUnavailable",
        503,
        "The request has failed due to a temporary failure of the server.",
    ),
    # --- fault injection ----------------------------------------------------------------------
    # Answered only when a test asks for them (``faults.add``), with ServiceUnavailable and
    # InternalFailure above: SDKs retry these by themselves.
    "InternalError": ErrorSpec(
        "InternalError", "InternalError", 500, "We encountered an internal error. Please try again."
    ),
    "RequestThrottled": ErrorSpec(
        "RequestThrottled", "RequestThrottled", 403, "Request is throttled."
    ),
    "ThrottlingException": ErrorSpec(
        "ThrottlingException", "ThrottlingException", 400, "Rate exceeded"
    ),
    # --- Not SQS: LocalStack's developer endpoint, other services ------------------------------
    # /_aws/sqs/messages answers ReceiveMessage only, as LocalStack's does.
    "DeveloperEndpointReceiveOnly": ErrorSpec(
        "InvalidRequest", "InvalidRequest", 400, "This endpoint only accepts ReceiveMessage calls"
    ),
    # A request signed for another service (S3, SNS, ...) reached the SQS server.
    "NotSqs": ErrorSpec(
        "UnsupportedOperation",
        "UnsupportedOperation",
        501,
        "sqsmock serves SQS only: this request is for the {service} service. Point {service} "
        "clients at another endpoint.",
    ),
}


#: Messages the query protocol words differently from the JSON protocol (AWS-recorded).
QUERY_MESSAGES: dict[str, str] = {
    "QueueDoesNotExist": "The specified queue does not exist for this wsdl version.",
}


def _shown(value: object) -> object:
    if isinstance(value, int) and value.bit_length() > 10_000:
        return f"<an integer of about {int(value.bit_length() * 0.30103)} digits>"
    return value


class SqsError(Exception):
    """An SQS error answer: ``SqsError("QueueDoesNotExist")``, ``SqsError("X", name=...)``."""

    def __init__(self, error: str, /, **params: object) -> None:
        spec = ERRORS[error]
        self.error = error
        self.spec = spec
        self.params = params
        try:
            self.message = spec.template.format(**params)
        except ValueError:  # an integer past Python's digit limit for text: say how long it is
            self.message = spec.template.format(**{k: _shown(v) for k, v in params.items()})
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

    @property
    def query_message(self) -> str:
        """The message as the query protocol words it."""
        template = QUERY_MESSAGES.get(self.error)
        return self.message if template is None else template.format(**self.params)


def batch_entry_error(entry_id: str, error: SqsError) -> dict[str, object]:
    """A ``Failed`` entry of a batch response."""
    return {
        "Id": entry_id,
        "SenderFault": error.status < 500,
        "Code": error.code,
        "Message": error.message,
    }
