"""Request checks shared by several actions (botocore leaves almost all of them to SQS)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._errors import SqsError

__all__ = [
    "batch_entries",
    "check_body_characters",
    "first_forbidden",
    "is_encodable",
    "optional_int",
    "required_str",
]

_ENTRY_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")
# Characters SQS rejects in bodies and attribute values (XML 1.0 minus the restricted ones).
_FORBIDDEN = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# A lone surrogate: JSON can carry it (as an escape), but it is no Unicode text.
_SURROGATE = re.compile("[\ud800-\udfff]")


def required_str(request: Mapping[str, Any], name: str) -> str:
    value = request.get(name)
    if value is None or value == "":
        raise SqsError("MissingParameter", name=name)
    if not isinstance(value, str):
        raise SqsError("ParameterNotString", name=name, value=value)
    return value


def optional_int(
    request: Mapping[str, Any], name: str, low: int, high: int, error: str
) -> int | None:
    """An integer parameter within [low, high], or None when absent.

    ``error``: the entry of ``ERRORS`` (formatted with ``value``) SQS answers for a bad value; each
    parameter words its range differently, so each has its own entry.
    """
    value = request.get(name)
    if value is None:
        return None
    try:
        number = int(value)
        if isinstance(value, (bool, float)) or (isinstance(value, str) and not value.strip()):
            raise ValueError
    except (TypeError, ValueError):
        raise SqsError(error, value=value) from None
    if not low <= number <= high:
        raise SqsError(error, value=value)
    return number


def is_encodable(text: str) -> bool:
    """Is ``text`` Unicode text (no lone surrogate)? SQS refuses other text wherever it keeps
    it, and a store could not write it: check every string a queue keeps before it keeps it."""
    return _SURROGATE.search(text) is None


def first_forbidden(text: str) -> str | None:
    """``#xNN`` of the first character SQS does not accept in message text, or None."""
    match = _FORBIDDEN.search(text)
    return None if match is None else f"#x{ord(match.group()):X}"


def check_body_characters(body: str) -> None:
    char = first_forbidden(body)
    if char is not None:
        raise SqsError("InvalidMessageContents", char=char)


#: The upper bound of a limit ElasticMQ's ``sqs-limits = relaxed`` lifts.
RELAXED = 2**31 - 1


def batch_entries(
    request: Mapping[str, Any], entry_name: str, limit: int = 10
) -> list[dict[str, Any]]:
    """The ``Entries`` of a batch request after the whole-request checks (at most ``limit``:
    SQS's 10, or ``RELAXED``)."""
    entries = request.get("Entries")
    if entries is None or (isinstance(entries, list) and not entries):
        raise SqsError("EmptyBatchRequest", entry=entry_name)
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise SqsError("EntriesNotList", value=entries)
    if len(entries) > limit:
        raise SqsError("TooManyEntriesInBatchRequest", count=len(entries))
    seen: set[str] = set()
    for entry in entries:
        entry_id = entry.get("Id")
        if not isinstance(entry_id, str) or not _ENTRY_ID.fullmatch(entry_id):
            raise SqsError("InvalidBatchEntryId")
        if entry_id in seen:
            raise SqsError("BatchEntryIdsNotDistinct", id=entry_id)
        seen.add(entry_id)
    return entries
