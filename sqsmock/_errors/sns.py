"""The errors of the SNS API, in the table's form (``ErrorSpec``), beside SQS's.

SNS speaks only the query protocol: ``code`` is what ``Error.Code`` says (``InvalidParameter``,
``NotFound``...), ``shape`` the modeled exception botocore maps it to. The texts are AWS's as
recorded (see the SNS behaviour reference); every entry's name starts with ``Sns``.
"""

from __future__ import annotations

from .spec import ErrorSpec

__all__ = ["SNS_ERRORS"]

_P = "Invalid parameter: "


def _invalid(template: str) -> ErrorSpec:
    """``InvalidParameter``: nearly every SNS validation error."""
    return ErrorSpec("InvalidParameterException", "InvalidParameter", 400, _P + template)


def _attribute(template: str) -> ErrorSpec:
    """``ParameterValueInvalid``: the errors of message attributes."""
    return ErrorSpec("InvalidParameterValueException", "ParameterValueInvalid", 400, template)


def _batch(shape: str, template: str) -> ErrorSpec:
    return ErrorSpec(shape + "Exception", shape, 400, template)


SNS_ERRORS: dict[str, ErrorSpec] = {
    # --- Parameters and ARNs --------------------------------------------------------------------
    "SnsInvalidParameter": _invalid("{name}"),
    "SnsMissingParameter": _invalid("{name} Reason: no value for required parameter"),
    "SnsArnTooShort": _invalid("{name} Reason: An ARN must have at least 6 elements, not {count}"),
    "SnsTopicNotFound": ErrorSpec("NotFoundException", "NotFound", 404, "Topic does not exist"),
    "SnsSubscriptionNotFound": ErrorSpec(
        "NotFoundException", "NotFound", 404, "Subscription does not exist"
    ),
    # --- Topics ---------------------------------------------------------------------------------
    "SnsTopicExists": _invalid("Attributes Reason: Topic already exists with different attributes"),
    "SnsTopicTagsDiffer": _invalid("Tags Reason: Topic already exists with different tags"),
    "SnsDuplicateTagKeys": _invalid("Duplicated keys are not allowed."),
    # Inferred (not AWS-recorded): the modeled ResourceNotFoundException for a missing topic.
    "SnsResourceNotFound": ErrorSpec(
        "ResourceNotFoundException", "ResourceNotFound", 404, "Resource does not exist"
    ),
    # --- Subscriptions --------------------------------------------------------------------------
    "SnsSqsEndpoint": _invalid("SQS endpoint ARN"),
    "SnsUnsupportedProtocol": _invalid(
        "Amazon SNS does not support this protocol string: {protocol}"
    ),
    "SnsSubscriptionExists": _invalid(
        "Attributes Reason: Subscription already exists with different attributes"
    ),
    "SnsFifoQueueOnStandardTopic": _invalid(
        "Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard "
        "SNS topics"
    ),
    "SnsFifoDeadLetterQueue": _invalid(
        "RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic."
    ),
    # At Subscribe the reason follows "Attributes Reason: "; SetSubscriptionAttributes has none.
    "SnsNotBoolean": _invalid("{lead}{name}: Invalid value [{value}]. Must be true or false."),
    "SnsFilterPolicyScope": _invalid(
        "{lead}FilterPolicyScope: Invalid value [{value}]. Please use either MessageBody or "
        "MessageAttributes"
    ),
    "SnsNotJson": _invalid("{lead}{name}: failed to parse JSON. {detail}"),
    "SnsDeadLetterArn": _invalid("{lead}RedrivePolicy: deadLetterTargetArn is an invalid arn"),
    # --- Publish --------------------------------------------------------------------------------
    "SnsEmptyMessage": _invalid("Empty message"),
    "SnsMessageTooLong": _invalid("Message too long"),
    "SnsNoDefaultEntry": _invalid("Message Structure - No default entry in JSON message body"),
    "SnsStructureNotJson": _invalid("Message Structure - JSON message body failed to parse"),
    "SnsNoEndpoint": _invalid("TargetArn Reason: No endpoint found for the target arn specified"),
    "SnsGroupRequired": _invalid("The MessageGroupId parameter is required for FIFO topics"),
    "SnsDeduplicationRequired": _invalid(
        "The topic should either have ContentBasedDeduplication enabled or "
        "MessageDeduplicationId provided explicitly"
    ),
    "SnsDeduplicationNotForTopic": _invalid(
        "MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter "
        "that is not valid for this topic type"
    ),
    # --- PublishBatch ---------------------------------------------------------------------------
    "SnsEmptyBatch": _batch("EmptyBatchRequest", "The batch request doesn't contain any entries."),
    "SnsTooManyEntries": _batch(
        "TooManyEntriesInBatchRequest", "The batch request contains more entries than permissible."
    ),
    "SnsBatchIdsNotDistinct": _batch(
        "BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id."
    ),
    "SnsBatchIdCharacters": _batch(
        "InvalidBatchEntryId",
        "The Id of a batch entry in the batch request contains an impermissible character.",
    ),
    "SnsBatchIdTooLong": _batch(
        "InvalidBatchEntryId", "The Id of a batch entry in the batch request is too long: {id}"
    ),
    "SnsBatchTooLong": _batch(
        "BatchRequestTooLong",
        "The length of all the messages put together is more than the limit.",
    ),
    # --- Message attributes ---------------------------------------------------------------------
    "SnsAttributeEmpty": _attribute(
        "The message attribute '{name}' must contain non-empty message attribute value for "
        "message attribute type '{type}'."
    ),
    "SnsAttributeField": _attribute(
        "The message attribute '{name}' with type '{type}' must use field '{field}'."
    ),
    "SnsAttributeType": _attribute(
        "The message attribute '{name}' has an invalid message attribute type, the set of "
        "supported type prefixes is Binary, Number, and String."
    ),
    "SnsAttributeNotNumber": _attribute(
        "Could not cast message attribute '{name}' value to number."
    ),
    "SnsAttributeNameLong": _attribute(
        "Length of message attribute name must be less than 256 bytes."
    ),
    "SnsAttributeNameCharacter": _attribute(
        "Invalid non-alphanumeric character '{char}' was found in the message attribute name. "
        "Can only include alphanumeric characters, hyphens, underscores, or dots."
    ),
    "SnsAttributeNameStart": _attribute(
        "Invalid message attribute name starting with character '.' was found."
    ),
    "SnsAttributeNameEnd": _attribute(
        "Invalid message attribute name ending with character '.' was found."
    ),
    "SnsAttributeNameDots": _attribute(
        "Message attribute name can not have successive '.' character."
    ),
    "SnsAttributeNoType": ErrorSpec(
        "ValidationException",
        "ValidationError",
        400,
        "1 validation error detected: Value null at '{path}' failed to satisfy constraint: "
        "Member must not be null",
    ),
}
