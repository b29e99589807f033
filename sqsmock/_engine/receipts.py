"""Receipt handles: opaque to users, decodable by sqsmock.

A handle names its queue and message, plus a random nonce so that every receive issues a new
one. Decoding tells a handle sqsmock issued (possibly stale) from garbage, which SQS answers
differently (success or a specific error versus ReceiptHandleIsInvalid).
"""

from __future__ import annotations

import base64
import binascii

from .ids import new_nonce

__all__ = ["decode_receipt", "new_receipt"]

_PREFIX = "AQEB"
_SEP = "\x1f"


def new_receipt(queue_arn: str, message_id: str) -> str:
    raw = f"{queue_arn}{_SEP}{message_id}{_SEP}{new_nonce(72)}".encode()
    return _PREFIX + base64.b64encode(raw).decode()


def decode_receipt(handle: str) -> tuple[str, str] | None:
    """``(queue_arn, message_id)`` of a handle sqsmock issued, else ``None``."""
    if not handle.startswith(_PREFIX):
        return None
    try:
        raw = base64.b64decode(handle[len(_PREFIX) :], validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    parts = raw.split(_SEP)
    if len(parts) != 3:
        return None
    return parts[0], parts[1]
