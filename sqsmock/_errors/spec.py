"""The form of an error entry (``ErrorSpec``) and the helpers the table builds its entries with."""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "ALLOWED_CHARACTERS",
    "ErrorSpec",
    "Q",
    "bad_attribute_name",
    "bad_attribute_value",
    "bad_value",
    "invalid_value",
    "not_found",
    "over_limit",
]


class ErrorSpec(NamedTuple):
    shape: str
    code: str
    status: int
    template: str


Q = "AWS.SimpleQueueService."
ALLOWED_CHARACTERS = (
    "the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | "
    "#x10000 to #x10FFFF"
)


def invalid_value(template: str) -> ErrorSpec:
    """``InvalidParameterValue``: the commonest SQS error (its shape is not in botocore's model)."""
    return ErrorSpec("InvalidParameterValueException", "InvalidParameterValue", 400, template)


def bad_value(parameter: str, reason: str) -> ErrorSpec:
    """``Value {value} for parameter <parameter> is invalid. Reason: <reason>``."""
    return invalid_value(f"Value {{value}} for parameter {parameter} is invalid. Reason: {reason}")


def bad_attribute_name(template: str) -> ErrorSpec:
    return ErrorSpec("InvalidAttributeName", "InvalidAttributeName", 400, template)


def bad_attribute_value(attribute: str, reason: str) -> ErrorSpec:
    """``Invalid value for the parameter <attribute>. Reason: <reason>``."""
    return ErrorSpec(
        "InvalidAttributeValue",
        "InvalidAttributeValue",
        400,
        f"Invalid value for the parameter {attribute}. Reason: {reason}",
    )


def over_limit(template: str) -> ErrorSpec:
    return ErrorSpec("OverLimit", "OverLimit", 403, template)


def not_found(template: str) -> ErrorSpec:
    return ErrorSpec("ResourceNotFoundException", "ResourceNotFoundException", 404, template)
