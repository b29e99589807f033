"""How the call journal keeps an entry: its size as counted, its stored form, reading it back.

A call small enough (``PACKED_UP_TO`` bytes marshalled: nearly every call) is one ``marshal``
string, counted as the bytes object it is. A larger one keeps copies of its dicts and lists and
shares its strings with the mock, counted as what they hold in memory (``journal_weights``),
truncated where it is larger than SQS accepts, rejected and large, or alone past the byte limit.
A truncated entry, small once cut, is packed too: the copies ``cut`` made were allocated among
the request's own objects, and kept, a few of them would pin the allocator's arenas that held
the whole request (a megabyte of resident memory for each such call). See ``journal`` for why.
"""

from __future__ import annotations

import marshal
import sys
from typing import Any

from .journal_weights import CUT_BUDGET, TRUNCATED_KEPT, cut, measure, weigh
from .recorded_call import snapshot

__all__ = [
    "ENTRY_OVERHEAD",
    "FIELDS",
    "OVERSIZED",
    "OVERWEIGHT",
    "PACKED_UP_TO",
    "REJECTED_KEPT",
    "TRUNCATED_KEPT",
    "Stored",
    "check_limit",
    "cost_of",
    "cut",
    "deferrable",
    "measure",
    "packed_form",
    "read_entry",
    "stored_form",
    "unpackable",
]

#: A request with more than this is larger than any SQS accepts (1 MiB of message content, and
#: room for queue URLs, ids and attribute names): it is kept truncated.
OVERSIZED = 1024 * 1024 + 64 * 1024
#: A request holding more than this in memory is larger than any SQS accepts (a str holds at
#: most the bytes of its UTF-8, and SQS's batches and attributes are few): kept truncated.
OVERWEIGHT = 2 * OVERSIZED
#: A rejected request (an error that was not injected) with more than this, in characters or in
#: memory, is kept truncated.
REJECTED_KEPT = 64 * 1024
#: Bytes counted for a packed entry besides its ``marshal`` string: the bytes object's header
#: and its place in the journal's deque, and the allocator's rounding.
ENTRY_OVERHEAD = sys.getsizeof(b"") + 8 + 8
#: Entries whose ``marshal`` string is at most this many bytes are stored as it; a larger one (a
#: large body) shares its strings with the mock, as copying them would cost memory that the time
#: saved does not repay.
PACKED_UP_TO = 8192


#: The ``marshal`` format of packed entries: version 2 writes every string in full (later ones
#: write a repeated object as a reference), so a packed entry's strings come to fewer characters
#: than 8 times its length -- too few to be truncated, as ``read_entry`` relies on -- and it is the
#: quickest to write and read.
_MARSHAL_VERSION = 2
assert 8 * PACKED_UP_TO <= REJECTED_KEPT < OVERSIZED  # a packed entry is never truncated

#: An entry as stored: a ``marshal`` string, or a tuple of copies ending with its cost.
Stored = bytes | tuple[Any, ...]

#: An entry's own fields, a ``RecordedCall``'s arguments; a stored tuple ends with its cost.
FIELDS = 13
#: What an unpacked entry holds besides its parameters, answer and request id: its tuple, its
#: place in the journal's deque, its time, size and cost.
_HOLDER = (
    sys.getsizeof((None,) * (FIELDS + 1)) + 8 + sys.getsizeof(0.5) + 2 * sys.getsizeof(1 << 20)
)


def stored_form(fields: tuple[Any, ...], byte_limit: int) -> tuple[Stored, int]:
    """How a call's fields (``FIELDS`` of them, but the last three) are kept, and their cost: as
    one ``marshal`` string when small, else ``_unpacked``. A call that is ``unpackable`` is not
    written out first: its marshalled form could not be small."""
    if unpackable(fields[0], fields[1], fields[2]):
        return _unpacked(fields, byte_limit)
    return packed_form(fields, byte_limit)


def packed_form(fields: tuple[Any, ...], byte_limit: int) -> tuple[Stored, int]:
    """``stored_form`` of a call known not to be ``unpackable``."""
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
    return bool(entries) and (_many_entries(params, payload) or _long_in(entries, "MessageBody"))


def _many_entries(params: Any, payload: Any) -> bool:
    """More batch entries than a marshalled form of ``PACKED_UP_TO`` bytes holds (each dict
    takes at least two)."""
    entries = params.get("Entries")
    return type(entries) is list and len(entries) > PACKED_UP_TO // 2


def _long_message(params: Any, payload: Any) -> bool:
    messages = payload.get("Messages") if type(payload) is dict else None
    return bool(messages) and _long_in(messages, "Body")


#: The operations that carry message bodies, and how to find a long one in a call's parameters
#: and answer (the only strings of a call that may be that long before it is marshalled); and
#: the batches, how to find too many entries for a packed form.
_BODIES = {
    "SendMessage": _long_body,
    "SendMessageBatch": _long_entry,
    "ReceiveMessage": _long_message,
    "DeleteMessageBatch": _many_entries,
    "ChangeMessageVisibilityBatch": _many_entries,
}


def check_limit(name: str, value: object) -> int | None:
    """A journal limit as given, if it is one (a non-negative int or None)."""
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ValueError(f"{name} must be a non-negative int or None, not {value!r}")
    return value


def unpackable(operation: str, params: Any, payload: Any) -> bool:
    """Does the call carry a message body longer than ``PACKED_UP_TO``, or more batch entries
    than a packed form holds? (A cheap look: other calls too large are found by packing.)"""
    look = _BODIES.get(operation)
    return look is not None and look(params, payload)


#: The most list items and dict entries (at every level) of a call that may wait to be written
#: out: SQS's largest request (ten batch entries of ten attributes each) has about 400.
WAITS_UP_TO = 1024


def deferrable(operation: str, params: Any, payload: Any) -> bool:
    """May an unshared call wait to be written out with the next ones? Not if it is
    ``unpackable``, nor if its parameters hold more than ``WAITS_UP_TO`` items: waiting, it
    would keep them whole (a request of 4 MiB may parse into 100 MB of empty dicts), and
    written at once it keeps only what truncation leaves."""
    look = _BODIES.get(operation)
    if look is not None and look(params, payload):
        return False
    left = WAITS_UP_TO - len(params)
    nested = None
    for item in params.values():
        kind = type(item)
        if kind is dict or kind is list:
            left -= len(item)
            if nested is None:
                nested = [item]
            else:
                nested.append(item)
    while nested and left >= 0:  # (none in nearly every call)
        value = nested.pop()
        for item in value.values() if type(value) is dict else value:
            kind = type(item)
            if kind is dict or kind is list:
                left -= len(item)
                nested.append(item)
    return left >= 0


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
    strings shared with the mock, cut where it is too large to keep whole; its cost is what
    it holds in memory."""
    operation, params, payload, code = fields[:4]
    holder = _HOLDER + sys.getsizeof(fields[8])
    rejected = code is not None and not fields[9]
    bound = REJECTED_KEPT if rejected else OVERWEIGHT
    size, weight = weigh(params, bound)
    if weight > bound:  # truncated: weighed no further, the rest measured only for its size
        size = measure(params)
    truncated = weight > bound or size > (REJECTED_KEPT if rejected else OVERSIZED)
    answer = 0 if payload is None else weigh(payload)[1]
    omitted = 0
    kept = params
    if truncated:
        kept, omitted, weight = cut(params)
    if holder + weight + answer > byte_limit:  # it could not fit whole: keep what it was
        truncated = True
        for budget in (CUT_BUDGET, max(0, byte_limit - holder) // 2):  # then to fit at all
            kept, omitted, weight = cut(params, budget=budget)
            if payload is not None:
                payload, left_out, answer = cut(fields[2], budget=budget)
                omitted += left_out
            if holder + weight + answer <= byte_limit:
                break
    elif not truncated:
        kept = snapshot(params)
    entry = (operation, kept, payload, *fields[3:], size, truncated, omitted)
    if truncated:  # small now: one object, not copies made among the request's own objects
        try:
            packed = marshal.dumps(entry, _MARSHAL_VERSION)
        except ValueError:  # a value marshal does not take
            pass
        else:
            if ENTRY_OVERHEAD + len(packed) <= byte_limit:
                return packed, ENTRY_OVERHEAD + len(packed)
    cost = holder + weight + answer
    return (*entry, cost), cost


def read_entry(stored: Stored) -> tuple[Any, ...]:
    """An entry's fields, from its stored form. A packed call was never truncated (its strings
    come to at most ``8 * PACKED_UP_TO`` characters): its size is its parameters' measure. A
    truncated entry packed after it was cut holds its size, ``truncated`` and ``omitted``."""
    if isinstance(stored, bytes):
        fields: tuple[Any, ...] = marshal.loads(stored)
        if len(fields) == FIELDS:
            return fields
        return (*fields, measure(fields[1]), False, 0)
    return stored[:FIELDS]
