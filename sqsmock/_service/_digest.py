"""The MD5 digests SQS returns, computed exactly as the SDKs that check them do.

Body: hex MD5 of the UTF-8 bytes. Attributes (message or system): sorted by name, each encoded as
length-prefixed name, length-prefixed data type, one transport byte (1 for String/Number, 2 for
Binary) and the length-prefixed value; the MD5 of the whole buffer.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["md5_of_attributes", "md5_of_body", "md5_of_bytes"]


def _md5_function() -> Callable[[bytes], Any]:
    """Python's own MD5 where it has one: OpenSSL 3's ``hashlib.md5`` looks the algorithm up on
    every call, which costs more than hashing a small message. Both give the same digest."""
    try:
        md5: Callable[[bytes], Any] = importlib.import_module("_md5").md5
    except ImportError:  # a Python built without it
        return lambda data: hashlib.md5(data, usedforsecurity=False)
    return md5


_md5 = _md5_function()


def md5_of_body(body: str) -> str:
    return md5_of_bytes(body.encode())


def md5_of_bytes(data: bytes) -> str:
    """The MD5 of a body already encoded as UTF-8."""
    return str(_md5(data).hexdigest())


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
    return str(_md5(bytes(buf)).hexdigest())
