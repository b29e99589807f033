"""How the call journal keeps an entry: its size as counted, its stored form, reading it back.

A call small enough (``PACKED_UP_TO`` bytes marshalled: nearly every call) is one ``marshal``
string; a larger one keeps copies of its dicts and lists and shares its strings with the mock,
truncated where it is larger than SQS accepts, rejected and large, or alone past the byte limit.
See ``journal`` for why.
"""

from __future__ import annotations

import marshal
from typing import Any

from .recorded_call import snapshot

__all__ = [
    "ENTRY_OVERHEAD",
    "FIELDS",
    "OVERSIZED",
    "PACKED_UP_TO",
    "REJECTED_KEPT",
    "TRUNCATED_KEPT",
    "Stored",
    "check_limit",
    "cost_of",
    "cut",
    "long_bodied",
    "measure",
    "packed_form",
    "read_entry",
    "stored_form",
]

#: A request with more than this is larger than any SQS accepts (1 MiB of message content, and
#: room for queue URLs, ids and attribute names): it is kept truncated.
OVERSIZED = 1024 * 1024 + 64 * 1024
#: A rejected request (an error that was not injected) with more than this is kept truncated.
REJECTED_KEPT = 64 * 1024
#: Characters kept of each string of a truncated entry.
TRUNCATED_KEPT = 1024
#: Bytes counted for an entry besides its stored form (the objects that hold it).
ENTRY_OVERHEAD = 512
#: Entries whose ``marshal`` string is at most this many bytes are stored as it; a larger one (a
#: large body) shares its strings with the mock, as copying them would cost memory that the time
#: saved does not repay.
PACKED_UP_TO = 8192


def measure(value: Any) -> int:
    """The characters of the strings in ``value`` (keys included), 8 for any other leaf."""
    kind = type(value)
    if kind is dict:
        n = 0
        for key, item in value.items():
            kind = type(item)
            if kind is str:
                n += len(key) + len(item)
            elif kind is dict or kind is list:
                n += len(key) + measure(item)
            else:
                n += len(key) + 8
        return n
    if kind is list:
        n = 0
        for item in value:
            kind = type(item)
            if kind is str:
                n += len(item)
            elif kind is dict or kind is list:
                n += measure(item)
            else:
                n += 8
        return n
    return len(value) if kind is str else 8


def cut(value: Any, keep: int = TRUNCATED_KEPT) -> Any:
    """A copy of ``value`` with every string longer than ``keep`` cut to its first ``keep``."""
    kind = type(value)
    if kind is str:
        return value if len(value) <= keep else value[:keep]
    if kind is dict:
        return {key: cut(item, keep) for key, item in value.items()}
    if kind is list:
        return [cut(item, keep) for item in value]
    return value


#: The ``marshal`` format of packed entries: version 2 writes every string in full (later ones
#: write a repeated object as a reference), so a packed entry's strings come to fewer characters
#: than 8 times its length -- too few to be truncated, as ``read_entry`` relies on -- and it is the
#: quickest to write and read.
_MARSHAL_VERSION = 2
assert 8 * PACKED_UP_TO <= REJECTED_KEPT < OVERSIZED  # a packed entry is never truncated

#: An entry as stored: a ``marshal`` string, or a tuple of copies ending with its cost.
Stored = bytes | tuple[Any, ...]

#: An entry's own fields, a ``RecordedCall``'s arguments; a stored tuple ends with its cost.
FIELDS = 12


def stored_form(fields: tuple[Any, ...], byte_limit: int) -> tuple[Stored, int]:
    """How a call's fields (``FIELDS`` of them, but the last two) are kept, and their cost: as
    one ``marshal`` string when small, else ``_unpacked``. A call carrying a message body
    longer than ``PACKED_UP_TO`` is not written out first: its marshalled form would be longer
    still (format 2 writes every string in full)."""
    if long_bodied(fields[0], fields[1], fields[2]):
        return _unpacked(fields, byte_limit)
    return packed_form(fields, byte_limit)


def packed_form(fields: tuple[Any, ...], byte_limit: int) -> tuple[Stored, int]:
    """``stored_form`` of a call known to carry no long body."""
    try:
        stored: Stored = marshal.dumps(fields, _MARSHAL_VERSION)
    except ValueError:  # a value marshal does not take
        return _unpacked(fields, byte_limit)
    cost = ENTRY_OVERHEAD + len(stored)
    if cost > _PACKED_COST or cost > byte_limit:
        return _unpacked(fields, byte_limit)
    return stored, cost


_PACKED_COST = ENTRY_OVERHEAD + PACKED_UP_TO


def _long_body(params: Any, payload: Any) -> bool:
    body = params.get("MessageBody")
    return type(body) is str and len(body) > PACKED_UP_TO


def _long_entry(params: Any, payload: Any) -> bool:
    entries = params.get("Entries")
    return bool(entries) and _long_in(entries, "MessageBody")


def _long_message(params: Any, payload: Any) -> bool:
    messages = payload.get("Messages") if type(payload) is dict else None
    return bool(messages) and _long_in(messages, "Body")


#: The operations that carry message bodies, and how to find a long one in a call's parameters
#: and answer (the only strings of a call that may be that long before it is marshalled).
_BODIES = {
    "SendMessage": _long_body,
    "SendMessageBatch": _long_entry,
    "ReceiveMessage": _long_message,
}


def check_limit(name: str, value: object) -> int | None:
    """A journal limit as given, if it is one (a non-negative int or None)."""
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ValueError(f"{name} must be a non-negative int or None, not {value!r}")
    return value


def long_bodied(operation: str, params: Any, payload: Any) -> bool:
    """Does the call carry a message body longer than ``PACKED_UP_TO``?"""
    look = _BODIES.get(operation)
    return look is not None and look(params, payload)


def cost_of(stored: Stored) -> int:
    return ENTRY_OVERHEAD + len(stored) if type(stored) is bytes else int(stored[-1])


def _long_in(items: Any, key: str) -> bool:
    """Is ``key`` of a dict in the list ``items`` a string longer than ``PACKED_UP_TO``?"""
    if type(items) is list:
        for item in items:
            if type(item) is dict:
                value = item.get(key)
                if type(value) is str and len(value) > PACKED_UP_TO:
                    return True
    return False


def _unpacked(fields: tuple[Any, ...], byte_limit: int) -> tuple[Stored, int]:
    """The stored form and cost of an entry kept unpacked: its dicts and lists copied, its
    strings shared with the mock, cut where it is too large to keep whole."""
    operation, params, payload, code = fields[:4]
    injected = fields[9]
    size = measure(params)
    truncated = size > OVERSIZED or (size > REJECTED_KEPT and code is not None and not injected)
    kept = cut(params) if truncated else params
    answer = 0 if payload is None else measure(payload)
    cost = ENTRY_OVERHEAD + (measure(kept) if truncated else size) + answer
    if cost > byte_limit:  # it could not fit whole: keep what it was
        kept, payload = cut(kept), None if payload is None else cut(payload)
        cost = ENTRY_OVERHEAD + measure(kept) + (0 if payload is None else measure(payload))
        truncated = True
    return (operation, snapshot(kept), payload, *fields[3:], size, truncated, cost), cost


def read_entry(stored: Stored) -> tuple[Any, ...]:
    """An entry's fields, from its stored form. A packed entry was never truncated (its strings
    come to at most ``8 * PACKED_UP_TO`` characters): its size is its parameters' measure."""
    if isinstance(stored, bytes):
        fields: tuple[Any, ...] = marshal.loads(stored)
        return (*fields, measure(fields[1]), False)
    return stored[:FIELDS]
