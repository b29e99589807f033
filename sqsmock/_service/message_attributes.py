"""Message attributes (user and system): validation, size, and filtering on receive."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from .._errors import SqsError, invalid
from ._validate import first_forbidden

__all__ = ["AttributeFilter", "attributes_size", "validate_message_attributes", "validate_system"]

MAX_ATTRIBUTES = 10
_NAME_CHARS = re.compile(r"[\w.-]+")
_DATA_TYPE = re.compile(r"(String|Number|Binary)(\..+)?", re.DOTALL)
_RESERVED = ("aws.", "amazon.")
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _check_name(name: str) -> None:
    if not name or len(name) > 256 or not _NAME_CHARS.fullmatch(name):
        raise invalid(
            f"Message (user) attribute name '{name}' is invalid. The attribute name can contain "
            "A-Z, a-z, 0-9, underscore (_), hyphen (-), and period (.) characters."
        )
    if name.lower().startswith(_RESERVED):
        raise invalid(
            f"Message (user) attribute name '{name}' is invalid. The attribute name can't start "
            "with AWS-reserved prefixes 'AWS.' or 'Amazon.' (or any casing variants)."
        )
    if name.startswith(".") or name.endswith(".") or ".." in name:
        raise invalid(
            f"Message (user) attribute name '{name}' is invalid. The attribute name can't start "
            "or end with a period (.), or have successive periods (..)."
        )


def _check_number(name: str, value: str) -> None:
    try:
        number = Decimal(value) if _NUMBER.fullmatch(value) else None
    except InvalidOperation:
        number = None
    digits = len(number.as_tuple().digits) if number is not None and number.is_finite() else 0
    if number is None or not number.is_finite() or digits > 38:
        raise invalid(
            f"Can't inspect the value of message (user) attribute '{name}' as a number: {value}."
        )
    if number != 0 and not Decimal("1e-128") <= abs(number) <= Decimal("1e126"):
        raise invalid(f"Value {value} of message (user) attribute '{name}' is out of range.")


def validate_message_attributes(attributes: Any) -> dict[str, dict[str, Any]]:
    """Checked user attributes in wire form (``BinaryValue`` as base64 text)."""
    if not isinstance(attributes, Mapping):
        raise invalid("MessageAttributes must be a map.")
    if len(attributes) > MAX_ATTRIBUTES:
        raise invalid(
            f"Number of message attributes [{len(attributes)}] exceeds the allowed maximum "
            f"[{MAX_ATTRIBUTES}]."
        )
    out: dict[str, dict[str, Any]] = {}
    for name, attr in attributes.items():
        _check_name(name)
        if not isinstance(attr, Mapping):
            raise invalid(f"The message attribute '{name}' must be a structure.")
        if attr.get("StringListValues") or attr.get("BinaryListValues"):
            raise invalid(
                "Message attribute list values in SendMessage operation are not supported."
            )
        data_type = attr.get("DataType")
        if not data_type:
            raise invalid(
                f"The message attribute '{name}' must contain a non-empty message attribute type."
            )
        match = _DATA_TYPE.fullmatch(data_type) if isinstance(data_type, str) else None
        if match is None or len(data_type) > 256 or first_forbidden(data_type) is not None:
            raise invalid(
                f"The type of message (user) attribute '{name}' is invalid. You must use only the "
                "following supported type prefixes: Binary, Number, String."
            )
        base = match.group(1)
        if base == "Binary":
            value = attr.get("BinaryValue")
            raw = _binary(value)
            if not raw:
                raise invalid(
                    f"Message (user) attribute '{name}' must contain a non-empty value of type "
                    "'Binary'."
                )
            out[name] = {"DataType": data_type, "BinaryValue": base64.b64encode(raw).decode()}
            continue
        text = attr.get("StringValue")
        if text is None or text == "":
            raise invalid(
                f"Message (user) attribute '{name}' must contain a non-empty value of type "
                f"'{base}'."
            )
        text = str(text)
        char = first_forbidden(text)
        if char is not None:
            raise SqsError("InvalidAttributeContents", char=char, name=name)
        if base == "Number":
            _check_number(name, text)
        out[name] = {"DataType": data_type, "StringValue": text}
    return out


def _binary(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError):
        raise invalid("BinaryValue must be base64-encoded.") from None


def validate_system(attributes: Any) -> str | None:
    """The AWSTraceHeader of ``MessageSystemAttributes`` (the only one SQS accepts)."""
    if not attributes:
        return None
    if not isinstance(attributes, Mapping):
        raise invalid("MessageSystemAttributes must be a map.")
    trace: str | None = None
    for name, attr in attributes.items():
        if name != "AWSTraceHeader":
            raise invalid(f"Message system attribute name '{name}' is invalid.")
        if not isinstance(attr, Mapping) or attr.get("DataType") != "String":
            raise invalid("Message system attribute 'AWSTraceHeader' must be of type 'String'.")
        value = attr.get("StringValue")
        if not value:
            raise invalid(
                "Message system attribute 'AWSTraceHeader' must contain a non-empty value of "
                "type 'String'."
            )
        trace = str(value)
        char = first_forbidden(trace)
        if char is not None:
            raise SqsError("InvalidAttributeContents", char=char, name="AWSTraceHeader")
    return trace


def attributes_size(attributes: Mapping[str, Mapping[str, Any]]) -> int:
    """Bytes the attributes count toward the message size: name + type + value."""
    size = 0
    for name, attr in attributes.items():
        size += len(name.encode("utf-8", "surrogatepass"))
        size += len(str(attr.get("DataType", "")).encode("utf-8", "surrogatepass"))
        if "BinaryValue" in attr:
            value = attr["BinaryValue"]
            size += len(_binary(value)) if isinstance(value, str) else len(value or b"")
        else:
            size += len(str(attr.get("StringValue", "")).encode("utf-8", "surrogatepass"))
    return size


class AttributeFilter:
    """Which message attributes a receive asked for (``All``, ``.*``, ``prefix.*`` or names)."""

    __slots__ = ("every", "names", "prefixes")

    def __init__(self, requested: Iterable[str]) -> None:
        self.every = False
        self.names: set[str] = set()
        self.prefixes: list[str] = []
        for name in requested:
            if name in ("All", ".*"):
                self.every = True
            elif name.endswith(".*"):
                self.prefixes.append(name[:-1])
            else:
                self.names.add(name)

    @property
    def empty(self) -> bool:
        return not (self.every or self.names or self.prefixes)

    def select(self, attributes: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        if self.every:
            return dict(attributes)
        return {
            name: attr
            for name, attr in attributes.items()
            if name in self.names or any(name.startswith(p) for p in self.prefixes)
        }
