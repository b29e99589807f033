"""Message attributes (user and system): validation, size, and filtering on receive."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from .._errors import SqsError
from ._validate import first_forbidden

__all__ = ["AttributeFilter", "attributes_size", "validate_message_attributes", "validate_system"]

MAX_ATTRIBUTES = 10
_NAME_CHARS = re.compile(r"[\w.-]+")
_DATA_TYPE = re.compile(r"(String|Number|Binary)(\..+)?", re.DOTALL)
_RESERVED = ("aws.", "amazon.")
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _check_name(name: str) -> None:
    if not name or len(name) > 256 or not _NAME_CHARS.fullmatch(name):
        raise SqsError("MessageAttributeNameInvalid", name=name)
    if name.lower().startswith(_RESERVED):
        raise SqsError("MessageAttributeNameReserved", name=name)
    if name.startswith(".") or name.endswith(".") or ".." in name:
        raise SqsError("MessageAttributeNamePeriods", name=name)


def _check_number(name: str, value: str) -> None:
    try:
        number = Decimal(value) if _NUMBER.fullmatch(value) else None
    except InvalidOperation:
        number = None
    digits = len(number.as_tuple().digits) if number is not None and number.is_finite() else 0
    if number is None or not number.is_finite() or digits > 38:
        raise SqsError("MessageAttributeNotNumber", name=name, value=value)
    if number != 0 and not Decimal("1e-128") <= abs(number) <= Decimal("1e126"):
        raise SqsError("MessageAttributeNumberOutOfRange", name=name, value=value)


def validate_message_attributes(attributes: Any) -> dict[str, dict[str, Any]]:
    """Checked user attributes in wire form (``BinaryValue`` as base64 text)."""
    if not isinstance(attributes, Mapping):
        raise SqsError("MessageAttributesNotMap")
    if len(attributes) > MAX_ATTRIBUTES:
        raise SqsError("TooManyMessageAttributes", count=len(attributes), limit=MAX_ATTRIBUTES)
    out: dict[str, dict[str, Any]] = {}
    for name, attr in attributes.items():
        _check_name(name)
        if not isinstance(attr, Mapping):
            raise SqsError("MessageAttributeNotStructure", name=name)
        if attr.get("StringListValues") or attr.get("BinaryListValues"):
            raise SqsError("MessageAttributeListValues")
        data_type = attr.get("DataType")
        if not data_type:
            raise SqsError("MessageAttributeMissingType", name=name)
        match = _DATA_TYPE.fullmatch(data_type) if isinstance(data_type, str) else None
        if match is None or len(data_type) > 256 or first_forbidden(data_type) is not None:
            raise SqsError("MessageAttributeInvalidType", name=name)
        base = match.group(1)
        if base == "Binary":
            value = attr.get("BinaryValue")
            raw = _binary(value)
            if not raw:
                raise SqsError("MessageAttributeEmptyValue", name=name, type="Binary")
            out[name] = {"DataType": data_type, "BinaryValue": base64.b64encode(raw).decode()}
            continue
        text = attr.get("StringValue")
        if text is None or text == "":
            raise SqsError("MessageAttributeEmptyValue", name=name, type=base)
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
        raise SqsError("BinaryValueNotBase64") from None


def validate_system(attributes: Any) -> str | None:
    """The AWSTraceHeader of ``MessageSystemAttributes`` (the only one SQS accepts)."""
    if not attributes:
        return None
    if not isinstance(attributes, Mapping):
        raise SqsError("MessageSystemAttributesNotMap")
    trace: str | None = None
    for name, attr in attributes.items():
        if name != "AWSTraceHeader":
            raise SqsError("MessageSystemAttributeNameInvalid", name=name)
        if not isinstance(attr, Mapping) or attr.get("DataType") != "String":
            raise SqsError("TraceHeaderNotString")
        value = attr.get("StringValue")
        if not value:
            raise SqsError("TraceHeaderEmpty")
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
    """Which message attributes a receive asked for (``All``, ``*``, ``.*``, ``prefix.*`` or
    names)."""

    __slots__ = ("every", "names", "prefixes")

    def __init__(self, requested: Iterable[str]) -> None:
        self.every = False
        self.names: set[str] = set()
        self.prefixes: list[str] = []
        for name in requested:
            if name in ("All", "*", ".*"):
                self.every = True
            elif name.endswith(".*"):
                self.prefixes.append(name[:-2])
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
