"""The message attributes of Publish and PublishBatch, checked as SNS checks them.

Every error here fails the whole request (PublishBatch included), with SNS's texts: most are
``ParameterValueInvalid``, a missing ``DataType`` is a ``ValidationError`` naming where it was.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from ..._errors import SqsError

__all__ = ["attributes_size", "checked_attributes"]

_NAME_CHARACTER = re.compile(r"[^A-Za-z0-9_.-]")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_BASES = ("String", "Number", "Binary")


def _check_name(name: str) -> None:
    if len(name.encode()) > 256:
        raise SqsError("SnsAttributeNameLong")
    bad = _NAME_CHARACTER.search(name)
    if bad is not None:
        raise SqsError("SnsAttributeNameCharacter", char=f"#x{ord(bad.group()):X}")
    if name.startswith("."):
        raise SqsError("SnsAttributeNameStart")
    if name.endswith("."):
        raise SqsError("SnsAttributeNameEnd")
    if ".." in name:
        raise SqsError("SnsAttributeNameDots")


def _base(name: str, data_type: str) -> str:
    base, dot, custom = data_type.partition(".")
    if base not in _BASES or (dot and not custom):
        raise SqsError("SnsAttributeType", name=name)
    return base


def checked_attributes(attributes: Any, where: str) -> dict[str, dict[str, str]]:
    """The attributes as delivered (``DataType`` and ``StringValue`` or ``BinaryValue``, base64
    text), or SNS's error; ``where`` names the request's member in a ValidationError
    (``messageAttributes`` or ``publishBatchRequestEntries.1.member.messageAttributes``)."""
    checked: dict[str, dict[str, str]] = {}
    for name, value in (attributes or {}).items():
        _check_name(name)
        data_type = value.get("DataType")
        if data_type is None:
            raise SqsError("SnsAttributeNoType", path=f"{where}.{name}.member.dataType")
        base = _base(name, str(data_type))
        text = value.get("StringValue")
        binary = value.get("BinaryValue")
        if base == "Binary":
            if binary is None and text is not None:
                raise SqsError("SnsAttributeField", name=name, type=base, field="Binary")
            try:
                decoded = base64.b64decode(binary or "", validate=True)
            except binascii.Error:
                decoded = b""
            if not decoded:
                raise SqsError("SnsAttributeEmpty", name=name, type=base)
            checked[name] = {"DataType": data_type, "BinaryValue": str(binary)}
            continue
        if text is None and binary is not None:
            raise SqsError("SnsAttributeField", name=name, type=base, field="String")
        if not text:
            raise SqsError("SnsAttributeEmpty", name=name, type=base)
        if base == "Number" and _NUMBER.fullmatch(text.strip()) is None:
            raise SqsError("SnsAttributeNotNumber", name=name)
        checked[name] = {"DataType": data_type, "StringValue": str(text)}
    return checked


def attributes_size(attributes: dict[str, dict[str, str]]) -> int:
    """Bytes the attributes count toward the message size: name, type and value of each."""
    size = 0
    for name, value in attributes.items():
        size += len(name.encode()) + len(value["DataType"].encode())
        if "BinaryValue" in value:
            size += len(base64.b64decode(value["BinaryValue"]))
        else:
            size += len(value["StringValue"].encode())
    return size
