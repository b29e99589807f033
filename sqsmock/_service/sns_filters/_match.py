"""Deciding whether a published message passes a compiled filter policy.

Attribute scope sees each message attribute by name: a String is one string, a Number one
number, a String.Array each of its elements (any may match); Binary attributes are invisible.
Body scope sees the message as a JSON object flattened to dotted paths (so a policy key
``"a.b"`` finds ``{"a": {"b": ...}}`` and ``{"a.b": ...}`` alike); an array gives its path
several values, and the objects of an array are alternatives: one key's condition and
another's must hold in the same element, as AWS's rule engine requires. A body that is not a
JSON object matches nothing. A policy passes when any of its ``$or`` branches has every key
satisfied; ``exists: false`` is satisfied by a key with no value, every other pattern by one of
the key's values. ``exists: true`` needs a value that is not null; ``exists: false`` never
passes a message without any attribute (or an empty body object), as AWS documents.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from ._compile import Branch
from ._patterns import Exists, Value
from ._source import deep_enough, depth_of

__all__ = ["Policy", "body_document"]

#: Past this many alternative flattenings of one body, the rest are not considered.
MOST_ROWS = 4096

Row = dict[str, list[Value]]


@dataclass(frozen=True, eq=False)
class Policy:
    """A validated filter policy: ``matches(body, message_attributes)`` by its scope."""

    scope: str
    branches: tuple[Branch, ...]
    #: Every dotted prefix of every key path: where a body's flattening need look.
    prefixes: frozenset[str]

    @property
    def body_scope(self) -> bool:
        return self.scope == "MessageBody"

    def matches(self, body: str, message_attributes: Mapping[str, Mapping[str, object]]) -> bool:
        if self.body_scope:
            return self.matches_body(body)
        return self.matches_attributes(message_attributes)

    def matches_attributes(self, message_attributes: Mapping[str, Mapping[str, object]]) -> bool:
        """``message_attributes`` as Publish takes them (``DataType`` + ``StringValue``) or as
        the SNS envelope shows them (``Type`` + ``Value``)."""
        row: Row = {}
        for name, attribute in message_attributes.items():
            if name in self.prefixes:
                values = _attribute_values(attribute)
                if values is not None:
                    row[name] = values
        anything = bool(message_attributes)
        return any(_satisfies(branch, row, anything) for branch in self.branches)

    def matches_body(self, body: str) -> bool:
        """Whether the message body passes (body scope); parse once with ``body_document`` and
        call ``matches_document`` to test one body against many policies."""
        return self.matches_document(body_document(body))

    def matches_document(self, document: object) -> bool:
        """Whether a parsed body (``body_document``) passes; None (not JSON) never does."""
        if not isinstance(document, dict):
            return False
        rows = _rows(document, "", self.prefixes)
        anything = bool(document)
        return any(_satisfies(branch, row, anything) for branch in self.branches for row in rows)


def body_document(body: str) -> object:
    """The message body as JSON, or None when it is not JSON (or nests past what SNS reads)."""
    try:
        return json.loads(body)
    except ValueError:
        return None
    except RecursionError:
        depth, too_deep = depth_of(body, 0)
        if too_deep is not None:
            return None
        try:
            return deep_enough(depth, lambda: json.loads(body))
        except ValueError:
            return None


def _attribute_values(attribute: Mapping[str, object]) -> list[Value] | None:
    kind = attribute.get("DataType", attribute.get("Type"))
    text = attribute.get("StringValue", attribute.get("Value"))
    if not isinstance(kind, str) or not isinstance(text, str):
        return None
    base = kind.split(".", 1)[0]
    if kind in ("String.Array", "Number.Array"):
        try:
            items = json.loads(text)
        except ValueError:
            return []
        if not isinstance(items, list):
            return []
        return [item for item in items if not isinstance(item, (list, dict))]
    if base == "String":
        return [text]
    if base == "Number":
        try:
            number = float(text)
        except ValueError:
            return [text]
        return [int(number) if number.is_integer() and abs(number) < 2**53 else number]
    return None  # Binary: not compared


def _satisfies(branch: Branch, row: Row, anything: bool) -> bool:
    for path, patterns in branch.items():
        values = row.get(path)
        if not _key_matches(patterns, values, anything):
            return False
    return True


def _key_matches(patterns: list, values: list[Value] | None, anything: bool) -> bool:  # type: ignore[type-arg]
    for pattern in patterns:
        if isinstance(pattern, Exists):
            if pattern.present:
                if values and any(value is not None for value in values):
                    return True
            elif not values and anything:
                return True
        elif values and any(pattern.matches(value) for value in values):
            return True
    return False


def _rows(value: object, path: str, prefixes: frozenset[str]) -> list[Row]:
    """The flattenings of ``value`` at ``path``: one row per combination of array elements
    holding objects, each row mapping a dotted path to its values."""
    if isinstance(value, dict):
        rows: list[Row] = [{}]
        for key, member in value.items():
            where = f"{path}.{key}" if path else str(key)
            if where in prefixes:
                rows = _join(rows, _rows(member, where, prefixes))
        return rows
    if isinstance(value, list):
        plain: list[Value] = []
        nested: list[Row] = []
        for item in value:
            if isinstance(item, (dict, list)):
                nested.extend(_rows(item, path, prefixes))
            else:
                plain.append(item)
        base: Row = {path: plain} if plain else {}
        return _join([base], nested) if nested else [base]
    return [{path: [value]}]  # type: ignore[list-item]


def _join(left: list[Row], right: list[Row]) -> list[Row]:
    joined: list[Row] = []
    for first in left:
        for second in right:
            row = dict(first)
            for key, values in second.items():
                row[key] = row[key] + values if key in row else values
            joined.append(row)
            if len(joined) >= MOST_ROWS:
                return joined
    return joined
