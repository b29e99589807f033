"""What a call journal entry's values weigh, and how a value too large to keep whole is cut.

The journal is bounded in bytes, so what it counts for an entry must be what the entry holds in
memory: not the characters of its strings alone (a list of 110 000 tiny batch entries has 2 MB
of characters but takes 30 MB of dicts), and not every list it was sent (truncation that cut
long strings but kept every item of a long list kept those 30 MB). ``weigh`` counts a value as
CPython stores it -- each dict, list and string by ``sys.getsizeof``, numbers past the cached
small ones, a dict's keys by their characters (most keys are the same few names, one object each)
-- and ``cut`` keeps a bounded prefix of it: strings to ``TRUNCATED_KEPT`` characters, lists and
dicts to their first ``ITEMS_KEPT`` items, ``DEPTH_KEPT`` levels, and no more than ``CUT_BUDGET``
bytes in all, counting the list items and dict entries it left out. ``measure`` is the size a
test reads (``RecordedCall.size``): the characters of the strings, 8 for any other leaf.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = [
    "CUT_BUDGET",
    "DEPTH_KEPT",
    "ITEMS_KEPT",
    "TRUNCATED_KEPT",
    "cut",
    "measure",
    "weigh",
]

#: Characters kept of each string of a truncated entry.
TRUNCATED_KEPT = 1024
#: Items kept of each list and dict of a truncated entry (an SQS batch holds at most 10 entries,
#: a message 10 attributes, a queue 50 tags).
ITEMS_KEPT = 100
#: Levels of lists and dicts kept in a truncated entry (SQS's own input nests six at most); a
#: deeper one is kept empty.
DEPTH_KEPT = 16
#: Bytes (as ``weigh`` counts them) a truncated request, or answer, keeps at most.
CUT_BUDGET = 64 * 1024

_sizeof = sys.getsizeof
_EMPTY_DICT = _sizeof({"": 0})  # as small a dict as holds anything
_EMPTY_LIST = _sizeof([])
#: What ``cut`` counts for each item it adds to a list, to a dict (a pointer; a hash, key and
#: value), before it weighs the copy it made exactly.
_LIST_SLOT, _DICT_SLOT = 8, 24


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


def _leaf(value: Any) -> int:
    """The bytes a value other than a str, dict or list holds: none for the objects every use
    shares (None, booleans, small ints)."""
    kind = type(value)
    if value is None or kind is bool or (kind is int and -5 <= value <= 256):
        return 0
    return _sizeof(value, 64)


def weigh(value: Any, limit: int = sys.maxsize) -> tuple[int, int]:
    """``value``'s ``measure`` and the bytes it holds in memory, in one walk -- cut short (both
    then partial) once the bytes pass ``limit``: past it, the bytes are not needed."""
    kind = type(value)
    if kind is dict:
        size, weight = 0, _sizeof(value)
        for key, item in value.items():
            kind = type(item)
            n = len(key)
            if kind is str:
                size += n + len(item)
                weight += n + _sizeof(item)
            elif kind is dict or kind is list:
                s, w = weigh(item, limit - weight)
                size += n + s
                weight += n + w
                if weight > limit:
                    return size, weight
            else:
                size += n + 8
                weight += n + _leaf(item)
        return size, weight
    if kind is list:
        size, weight = 0, _sizeof(value)
        for item in value:
            kind = type(item)
            if kind is str:
                size += len(item)
                weight += _sizeof(item)
            elif kind is dict or kind is list:
                s, w = weigh(item, limit - weight)
                size += s
                weight += w
                if weight > limit:
                    return size, weight
            else:
                size += 8
                weight += _leaf(item)
        return size, weight
    if kind is str:
        return len(value), _sizeof(value)
    return 8, _leaf(value)


def cut(value: Any, keep: int = TRUNCATED_KEPT, budget: int = CUT_BUDGET) -> tuple[Any, int, int]:
    """A truncated copy of ``value`` (its dicts and lists copied, its short strings shared), the
    number of list items and dict entries it left out, and its weight: every string cut to its
    first ``keep`` characters, every list and dict to its first ``ITEMS_KEPT`` items and to
    ``DEPTH_KEPT`` levels, and nothing added once the copy holds ``budget`` bytes."""
    left = [budget, 0]  # bytes left, items left out
    copy = _cut(value, keep, left, DEPTH_KEPT)
    return copy, left[1], weigh(copy)[1]


def _cut(value: Any, keep: int, left: list[int], depth: int) -> Any:
    kind = type(value)
    if kind is str:
        return _cut_str(value, keep, left)
    if kind is dict:
        out: dict[Any, Any] = {}
        left[0] -= _EMPTY_DICT
        for i, (key, item) in enumerate(value.items()):
            if i >= ITEMS_KEPT or left[0] <= 0 or depth <= 0:
                left[1] += len(value) - i
                break
            left[0] -= _DICT_SLOT + (len(key) if type(key) is str else _leaf(key))
            out[key] = _cut(item, keep, left, depth - 1)
        return out
    if kind is list:
        kept: list[Any] = []
        left[0] -= _EMPTY_LIST
        for i, item in enumerate(value):
            if i >= ITEMS_KEPT or left[0] <= 0 or depth <= 0:
                left[1] += len(value) - i
                break
            left[0] -= _LIST_SLOT
            kept.append(_cut(item, keep, left, depth - 1))
        return kept
    left[0] -= _leaf(value)
    return value


def _cut_str(value: str, keep: int, left: list[int]) -> str:
    """``value`` cut to ``keep`` characters, and fewer if the budget left is short."""
    piece = value if len(value) <= keep else value[:keep]
    weight = _sizeof(piece)
    if weight > left[0] and piece:
        if piece.isascii():
            width, header = 1, _sizeof("")
        else:  # 1, 2 or 4 bytes a character, after a header of 72 (and room for a final 0)
            width = (weight - 72) // (len(piece) + 1)
            header = 72 + width
        piece = piece[: max(0, (left[0] - header) // width)]
        weight = _sizeof(piece)
    left[0] -= weight
    return piece
