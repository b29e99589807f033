"""The errors of the SQS API: requests, queues and their attributes and tags, sending,
message attributes, batches, receiving, receipt handles, permissions, dead-letter queues."""

from __future__ import annotations

from .spec import (
    ALLOWED_CHARACTERS,
    ErrorSpec,
    Q,
    bad_attribute_name,
    bad_attribute_value,
    bad_value,
    invalid_value,
    not_found,
    over_limit,
)

__all__ = ["API_ERRORS"]

API_ERRORS: dict[str, ErrorSpec] = {
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
    "InvalidJsonBody": invalid_value("The request body is not valid JSON."),
    # The text is botocore's own report of a parameter that does not fit the service model.
    "ParameterFailsModel": invalid_value("{report}."),
    "ParameterNotString": bad_value("{name}", "{name} must be a string."),
    "ParameterNotStringList": bad_value("{name}", "{name} must be a list of strings."),
    # --- Queues: create, look up, list, delete, purge -----------------------------------------
    "QueueDoesNotExist": ErrorSpec(
        "QueueDoesNotExist", Q + "NonExistentQueue", 400, "The specified queue does not exist."
    ),
    "QueueNameExists": ErrorSpec(
        "QueueNameExists",
        "QueueAlreadyExists",
        400,
        "A queue already exists with the same name and a different value for attribute {name}",
    ),
    "QueueDeletedRecently": ErrorSpec(
        "QueueDeletedRecently",
        Q + "QueueDeletedRecently",
        400,
        "You must wait 60 seconds after deleting a queue before you can create another with the "
        "same name.",
    ),
    "InvalidQueueName": invalid_value(
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
    ),
    "InvalidFifoQueueName": invalid_value(
        "The name of a FIFO queue can only include alphanumeric characters, hyphens, or "
        "underscores, must end with .fifo suffix and be 1 to 80 in length."
    ),
    "MaxResultsOutOfRange": bad_value(
        "MaxResults", "MaxResults must be an integer between 1 and 1000."
    ),
    "InvalidNextToken": invalid_value("Invalid NextToken value."),
    "PurgeQueueInProgress": ErrorSpec(
        "PurgeQueueInProgress",
        Q + "PurgeQueueInProgress",
        403,
        "Only one PurgeQueue operation on {name} is allowed every 60 seconds.",
    ),
    # --- Queue attributes ---------------------------------------------------------------------
    "InvalidAttributeName": bad_attribute_name("Unknown Attribute {name}."),
    "FifoSettingOnStandardQueue": bad_attribute_name(
        "You can specify the {name} only when FifoQueue is set to true."
    ),
    "ConflictingEncryption": bad_attribute_name(
        "You can use one type of server-side encryption (SSE) at one time. You can either enable "
        "KMS SSE or SQS SSE."
    ),
    "InvalidAttributeValue": ErrorSpec(
        "InvalidAttributeValue",
        "InvalidAttributeValue",
        400,
        "Invalid value for the parameter {name}.",
    ),
    "QueueTypeChange": bad_attribute_value("FifoQueue", "Modifying queue type is not supported."),
    "ThroughputLimitNeedsGroupScope": bad_attribute_value(
        "FifoThroughputLimit",
        "The FifoThroughputLimit perMessageGroupId can be used only when the DeduplicationScope "
        "is messageGroup.",
    ),
    "PolicyNotJson": bad_attribute_value("Policy", "Invalid JSON."),
    # --- Queue attributes: RedrivePolicy and RedriveAllowPolicy -------------------------------
    "RedrivePolicyNotJson": bad_value("RedrivePolicy", "Redrive policy is not a valid JSON map."),
    "RedrivePolicyMissingKey": bad_value(
        "RedrivePolicy", "Redrive policy does not contain mandatory attribute: {key}."
    ),
    "RedrivePolicyUnknownKey": bad_value(
        "RedrivePolicy",
        "Only following attributes are supported: [deadLetterTargetArn, maxReceiveCount]. "
        "Found: {key}.",
    ),
    "MaxReceiveCountOutOfRange": bad_value(
        "RedrivePolicy",
        "Invalid value for maxReceiveCount: {count}, valid values are from 1 to 1000 both "
        "inclusive.",
    ),
    "DeadLetterTargetDoesNotExist": bad_value(
        "RedrivePolicy", "Dead letter target does not exist."
    ),
    "DeadLetterTargetTypeMismatch": bad_value(
        "RedrivePolicy", "Dead-letter queue must be same type of queue as the source."
    ),
    "DeadLetterSourceNotAllowed": bad_value(
        "RedrivePolicy",
        "Queue {arn} does not allow this queue as a dead-letter queue source. Check the "
        "RedriveAllowPolicy of the dead-letter queue.",
    ),
    "RedriveAllowPolicyUnsupported": bad_value(
        "RedriveAllowPolicy",
        "Amazon SQS can't create the redrive allow policy, as it's in an unsupported format.",
    ),
    "RedriveAllowPolicySourceCount": bad_value(
        "RedriveAllowPolicy",
        "You must specify 1 to 10 source queue ARNs when redrivePermission is byQueue.",
    ),
    "RedriveAllowPolicySourcesNotByQueue": bad_value(
        "RedriveAllowPolicy",
        "sourceQueueArns can be specified only when redrivePermission is byQueue.",
    ),
    # --- Queue tags ---------------------------------------------------------------------------
    "TagsNotMap": invalid_value("Tags must be a map of tag keys to values."),
    "TagKeyLength": invalid_value("Tag key must be between 1 and 128 characters long: {key!s}."),
    "TagKeyReservedPrefix": invalid_value("Tag key {key} uses the reserved prefix aws:."),
    "TagValueTooLong": invalid_value(
        "Tag value for key {key} must be at most 256 characters long."
    ),
    "TooManyTags": invalid_value("Too many tags added for queue {queue}."),
    "NoTagKeys": invalid_value("Tag keys must be between 1 and 128 characters in length."),
    "TagNotUnicode": invalid_value("Tag {key} must have a key and a value of valid Unicode text."),
    # A character XML 1.0 cannot carry: every query-protocol ListQueueTags would be unreadable.
    "TagInvalidCharacters": invalid_value(
        "Tag {key} has a key or a value with an invalid character, " + ALLOWED_CHARACTERS
    ),
    # --- Sending: body, size, delay, FIFO group and deduplication -----------------------------
    "InvalidMessageContents": ErrorSpec(
        "InvalidMessageContents",
        "InvalidMessageContents",
        400,
        "Invalid binary character '{char}' was found in the message body, " + ALLOWED_CHARACTERS,
    ),
    "MessageTooLong": invalid_value(
        "One or more parameters are invalid. Reason: Message must be shorter than {limit} bytes."
    ),
    # The same check inside SendMessageBatch is worded differently (recorded from SQS).
    "MessageTooLongInBatch": invalid_value(
        "One or more parameters cannot be validated. Reason: Message must be shorter than "
        "{limit} bytes."
    ),
    "DelaySecondsOutOfRange": bad_value("DelaySeconds", "DelaySeconds must be >= 0 and <= 900."),
    # MessageGroupId, MessageDeduplicationId and ReceiveRequestAttemptId share this rule.
    "InvalidIdCharacters": bad_value(
        "{name}",
        "{name} can only include alphanumeric and punctuation characters. 1 to 128 in length.",
    ),
    "ParameterNotForQueueType": bad_value(
        "{name}", "The request include parameter that is not valid for this queue type."
    ),
    "MissingDeduplicationId": invalid_value(
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId "
        "provided explicitly"
    ),
    # In a FIFO batch a missing group id fails the whole request, as InvalidParameterValue.
    "MissingGroupIdInBatch": invalid_value(
        "The request must contain the parameter MessageGroupId."
    ),
    # --- Message attributes (user) ------------------------------------------------------------
    "MessageAttributesNotMap": invalid_value("MessageAttributes must be a map."),
    "TooManyMessageAttributes": invalid_value(
        "Number of message attributes [{count}] exceeds the allowed maximum [{limit}]."
    ),
    "MessageAttributeNameInvalid": invalid_value(
        "Message (user) attribute name '{name}' is invalid. The attribute name can contain "
        "A-Z, a-z, 0-9, underscore (_), hyphen (-), and period (.) characters."
    ),
    "MessageAttributeNameReserved": invalid_value(
        "Message (user) attribute name '{name}' is invalid. The attribute name can't start "
        "with AWS-reserved prefixes 'AWS.' or 'Amazon.' (or any casing variants)."
    ),
    "MessageAttributeNamePeriods": invalid_value(
        "Message (user) attribute name '{name}' is invalid. The attribute name can't start "
        "or end with a period (.), or have successive periods (..)."
    ),
    "MessageAttributeNotStructure": invalid_value(
        "The message attribute '{name}' must be a structure."
    ),
    "MessageAttributeListValues": invalid_value(
        "Message attribute list values in SendMessage operation are not supported."
    ),
    "MessageAttributeMissingType": invalid_value(
        "The message attribute '{name}' must contain a non-empty message attribute type."
    ),
    "MessageAttributeInvalidType": invalid_value(
        "The type of message (user) attribute '{name}' is invalid. You must use only the "
        "following supported type prefixes: Binary, Number, String."
    ),
    "MessageAttributeEmptyValue": invalid_value(
        "Message (user) attribute '{name}' must contain a non-empty value of type '{type}'."
    ),
    "MessageAttributeNotNumber": invalid_value(
        "Can't inspect the value of message (user) attribute '{name}' as a number: {value}."
    ),
    "MessageAttributeNumberOutOfRange": invalid_value(
        "Value {value} of message (user) attribute '{name}' is out of range."
    ),
    "BinaryValueNotBase64": invalid_value("BinaryValue must be base64-encoded."),
    # Unlike the body (InvalidMessageContents), an attribute value with a forbidden character
    # answers InvalidParameterValue (recorded from SQS).
    "InvalidAttributeContents": invalid_value(
        "Invalid binary character '{char}' was found in the value of message attribute '{name}', "
        + ALLOWED_CHARACTERS
    ),
    # --- Message system attributes ------------------------------------------------------------
    "MessageSystemAttributesNotMap": invalid_value("MessageSystemAttributes must be a map."),
    "MessageSystemAttributeNameInvalid": invalid_value(
        "Message system attribute name '{name}' is invalid."
    ),
    "TraceHeaderNotString": invalid_value(
        "Message system attribute 'AWSTraceHeader' must be of type 'String'."
    ),
    "TraceHeaderEmpty": invalid_value(
        "Message system attribute 'AWSTraceHeader' must contain a non-empty value of type 'String'."
    ),
    # --- Batch requests -----------------------------------------------------------------------
    "EmptyBatchRequest": ErrorSpec(
        "EmptyBatchRequest",
        Q + "EmptyBatchRequest",
        400,
        "There should be at least one {entry} in the request.",
    ),
    "EntriesNotList": bad_value("Entries", "Entries must be a list of structures."),
    "TooManyEntriesInBatchRequest": ErrorSpec(
        "TooManyEntriesInBatchRequest",
        Q + "TooManyEntriesInBatchRequest",
        400,
        "Maximum number of entries per request are 10. You have sent {count}.",
    ),
    "InvalidBatchEntryId": ErrorSpec(
        "InvalidBatchEntryId",
        Q + "InvalidBatchEntryId",
        400,
        "A batch entry id can only contain alphanumeric characters, hyphens and underscores. "
        "It can be at most 80 letters long.",
    ),
    "BatchEntryIdsNotDistinct": ErrorSpec(
        "BatchEntryIdsNotDistinct", Q + "BatchEntryIdsNotDistinct", 400, "Id {id} repeated."
    ),
    "BatchRequestTooLong": ErrorSpec(
        "BatchRequestTooLong",
        Q + "BatchRequestTooLong",
        400,
        "Batch requests cannot be longer than 1048576 bytes. You have sent {size} bytes.",
    ),
    # --- Receiving ----------------------------------------------------------------------------
    "MaxNumberOfMessagesOutOfRange": bad_value(
        "MaxNumberOfMessages", "Must be between 1 and 10, if provided."
    ),
    "ReceiveVisibilityTimeoutOutOfRange": bad_value(
        "VisibilityTimeout", "Must be >= 0 and <= 43200, if provided."
    ),
    "WaitTimeSecondsOutOfRange": bad_value(
        "WaitTimeSeconds", "Must be >= 0 and <= 20, if provided."
    ),
    "InFlightLimitReached": over_limit(
        "The maximum number of in-flight messages ({limit}) has been reached for this queue."
    ),
    # --- Receipt handles: delete and change visibility ----------------------------------------
    "ReceiptHandleIsInvalid": ErrorSpec(
        "ReceiptHandleIsInvalid",
        "ReceiptHandleIsInvalid",
        400,
        'The input receipt handle "{handle}" is not a valid receipt handle.',
    ),
    "ReceiptHandleExpired": bad_value("ReceiptHandle", "The receipt handle has expired."),
    "VisibilityTimeoutOutOfRange": bad_value(
        "VisibilityTimeout", "Must be between 0 and 43200, if provided."
    ),
    "VisibilityTimeoutBeyondLimit": bad_value(
        "VisibilityTimeout",
        "Total VisibilityTimeout for the message is beyond the limit [43200 seconds].",
    ),
    "MessageNotInFlight": bad_value(
        "ReceiptHandle",
        "Message does not exist or is not available for visibility timeout change.",
    ),
    # --- Permissions: AddPermission, RemovePermission -----------------------------------------
    "InvalidLabel": bad_value(
        "Label",
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
    ),
    "LabelExists": bad_value("Label", "Already exists."),
    "LabelNotFound": bad_value("Label", "can't find label."),
    "InvalidAccountId": invalid_value(
        "Value [{ids}] for parameter PrincipalId is invalid. Reason: Unable to verify."
    ),
    "TooManyActions": over_limit("{count} Actions were found, maximum allowed is {limit}."),
    "OwnerOnlyAction": bad_value(
        "ActionName", "Only the queue owner is allowed to invoke this action."
    ),
    "UnknownAction": bad_value(
        "ActionName", "Please refer to the appropriate WSDL for a list of valid actions."
    ),
    # --- Dead-letter queues and message move tasks --------------------------------------------
    "ArnDoesNotExist": not_found(
        "The resource that you specified for the {name} parameter doesn't exist."
    ),
    "SourceNotDeadLetterQueue": invalid_value(
        "Source queue must be configured as a Dead Letter Queue."
    ),
    "MoveQueueTypeMismatch": invalid_value(
        "The source queue and the destination queue must be of the same type."
    ),
    "MoveRateOutOfRange": bad_value(
        "MaxNumberOfMessagesPerSecond", "Must be between 1 and 500, if provided."
    ),
    "MoveTaskMaxResultsOutOfRange": bad_value(
        "MaxResults", "Must be between 1 and 10, if provided."
    ),
    "MoveTaskAlreadyRunning": invalid_value(
        "There is already a task running. Only one active task is allowed for a source queue arn "
        "at a given time."
    ),
    "InvalidTaskHandle": invalid_value("Value for parameter TaskHandle is invalid."),
    "TaskDoesNotExist": not_found("Task does not exist."),
}
