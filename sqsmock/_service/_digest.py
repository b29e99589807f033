"""The MD5 digests SQS returns, computed exactly as the SDKs that check them do.

Body: hex MD5 of the UTF-8 bytes. Attributes (message or system): sorted by name, each encoded as
length-prefixed name, length-prefixed data type, one transport byte (1 for String/Number, 2 for
Binary) and the length-prefixed value; the MD5 of the whole buffer.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Any

__all__ = ["md5_of_attributes", "md5_of_body"]


def md5_of_body(body: str) -> str:
    return hashlib.md5(body.encode("utf-8")).hexdigest()


def _chunk(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def md5_of_attributes(attributes: Mapping[str, Mapping[str, Any]]) -> str:
    """Digest of wire-form attributes (``BinaryValue`` as base64 text or raw bytes)."""
    buf = bytearray()
    for name in sorted(attributes):
        attr = attributes[name]
        data_type = attr["DataType"]
        buf += _chunk(name.encode("utf-8"))
        buf += _chunk(data_type.encode("utf-8"))
        if data_type.startswith("Binary"):
            value = attr["BinaryValue"]
            raw = base64.b64decode(value) if isinstance(value, str) else bytes(value)
            buf += b"\x02" + _chunk(raw)
        else:
            buf += b"\x01" + _chunk(attr["StringValue"].encode("utf-8"))
    return hashlib.md5(buf).hexdigest()
