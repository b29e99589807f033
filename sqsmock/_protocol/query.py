"""The query protocol: form-encoded requests in, XML answers out.

Older SDKs (botocore before 1.34.90, and others) send ``Action=SendMessage&QueueUrl=...`` with
flattened names such as ``MessageAttribute.1.Value.StringValue`` and read XML answers. This module
turns such a form into the JSON-wire form the service layer takes; ``query_answers`` renders the
service's JSON-wire answer (or an error) as the XML SQS sends, and its names are importable from
here too. The names come from the generated ``shapes`` table; only the standard library is used.
"""

from __future__ import annotations

import binascii
import re
from typing import Any
from urllib.parse import unquote, unquote_to_bytes

from .._errors import SqsError
from .query_answers import (
    render_query_error,
    render_query_json_error,
    render_query_json_success,
    render_query_success,
)
from .shapes import OPERATIONS, SHAPES

__all__ = [
    "MAX_DEPTH",
    "MAX_NAME_LENGTH",
    "MAX_PARAMETERS",
    "check_form_size",
    "decode_query",
    "form_pairs",
    "render_query_error",
    "render_query_json_error",
    "render_query_json_success",
    "render_query_success",
]

_VALUE = None  # the key under which a form node keeps its own value
_INTEGER = re.compile(r"[+-]?[0-9]+")
_LIMITS = {"integer": 2**31, "long": 2**63}

# Bounds on a form, far above what any SQS request needs (the largest, a SendMessageBatch of ten
# entries with ten attributes each, has about 400 parameters, names under 90 characters and 7
# dotted parts). A form past them is refused before its names are split, so no request builds
# more than MAX_PARAMETERS * MAX_DEPTH nodes.
MAX_PARAMETERS = 1000
MAX_NAME_LENGTH = 256
MAX_DEPTH = 16

Node = dict[Any, Any]


# --- Requests ---------------------------------------------------------------------------------


def decode_query(pairs: list[tuple[str, str]]) -> tuple[str, dict[str, Any]]:
    """(operation, parameters in JSON-wire form) of a form-encoded SQS request.

    Values take the member's type (``"10"`` -> ``10``); blobs stay base64 text, as on the JSON
    wire. Parameters the operation does not have (``Version``, ``AWSAccessKeyId``,
    ``X-Amz-*``...) are ignored. Raises ``SqsError`` for a missing or unknown ``Action`` and for
    a value that does not convert.
    """
    if len(pairs) > MAX_PARAMETERS:
        raise SqsError("QueryParametersOutOfBounds")
    flat: dict[str, str] = {}
    for key, value in pairs:
        if "." in key:  # names with parts (attributes, batch entries): a tree of them
            return _decode_tree(pairs)
        if len(key) > MAX_NAME_LENGTH:
            raise SqsError("QueryParametersOutOfBounds")
        flat[key] = value
    # Most requests name only members of the request itself: read them as they are.
    shape = _shape_of(flat.get("Action"))
    if shape is None:
        return flat["Action"], {}
    return flat["Action"], _structure(SHAPES[shape][1], flat, "", leaves=True)


def _shape_of(action: str | None) -> str | None:
    """The input shape of ``action`` (None: it takes no input); SqsError if there is none."""
    if not action:
        raise SqsError("MissingAction")
    entry = OPERATIONS.get(action)
    if entry is None:
        raise SqsError("InvalidAction", action=action)
    shape: str | None = entry[0]
    return shape


def _decode_tree(pairs: list[tuple[str, str]]) -> tuple[str, dict[str, Any]]:
    """``decode_query`` of a form whose names have parts: a tree of nodes by part."""
    root: Node = {}
    for key, value in pairs:
        if "." not in key:  # most names: a member of the request itself
            if len(key) > MAX_NAME_LENGTH:
                raise SqsError("QueryParametersOutOfBounds")
            node = root.get(key)
            if node is None:
                node = root[key] = {}
            node[_VALUE] = value
            continue
        if len(key) > MAX_NAME_LENGTH or key.count(".") >= MAX_DEPTH:
            raise SqsError("QueryParametersOutOfBounds")
        node = root
        for segment in key.split("."):
            child = node.get(segment)
            if child is None:
                child = node[segment] = {}
            node = child
        node[_VALUE] = value
    action = root.get("Action", {}).get(_VALUE)
    shape = _shape_of(action)
    if shape is None:
        return action, {}
    return action, _structure(SHAPES[shape][1], root, "")


def form_pairs(text: str) -> list[tuple[str, str]]:
    """The (name, value) pairs of a form or URL query string: what ``urllib.parse.parse_qsl(text,
    keep_blank_values=True, errors="strict")`` returns (a ``UnicodeDecodeError`` for an escape
    that is not UTF-8), in a fraction of its time: names and values with neither ``+`` nor
    ``%`` -- most of them -- are taken as they are."""
    pairs = []
    for field in text.split("&"):
        if not field:
            continue
        name, _, value = field.partition("=")
        if "+" in field:
            name, value = name.replace("+", " "), value.replace("+", " ")
        if "%" in field:
            if "%" in name:
                name = _unquote(name)
            if "%" in value:
                value = _queue_url(value) if name == "QueueUrl" else _unquote(value)
        pairs.append((name, value))
    return pairs


#: Queue URLs as ``_unquote`` decodes them: a client names the same few queues call after call.
#: At most ``_QUEUE_URLS_KEPT`` of them, none longer than ``_QUEUE_URL_LONGEST`` characters.
_QUEUE_URLS: dict[str, str] = {}
_QUEUE_URLS_KEPT, _QUEUE_URL_LONGEST = 1024, 512


def _queue_url(text: str) -> str:
    known = _QUEUE_URLS.get(text)
    if known is None:
        known = _unquote(text)  # (raises for an escape that is not UTF-8: nothing kept)
        if len(text) <= _QUEUE_URL_LONGEST:
            if len(_QUEUE_URLS) >= _QUEUE_URLS_KEPT:
                _QUEUE_URLS.clear()
            _QUEUE_URLS[text] = known
    return known


def _unquote(text: str) -> str:
    """``unquote(text, errors="strict")``; ASCII text (a queue URL, an id) in one piece, as
    ``unquote`` itself decodes an ASCII run -- where every ``%`` starts an escape, by
    ``binascii``'s quoted-printable decoder, whose ``=XX`` is ``%XX``, in C.

    That decoder reads what is not quoted-printable otherwise than ``unquote``, so it is used
    only where it cannot: no ``=``, line break or ``%%`` of the text's own, no ``%`` among its
    last two characters (a soft line break); and an escape that is not two hex digits leaves an
    ``=`` behind, so its answer is taken only if every ``=`` in it came from a ``%3D``.
    """
    if text.isascii():
        if (
            "=" not in text
            and "\n" not in text
            and "\r" not in text
            and "%%" not in text
            and "%" not in text[-2:]
        ):
            decoded = binascii.a2b_qp(text.replace("%", "="))
            if decoded.count(b"=") == text.count("%3D") + text.count("%3d"):
                return decoded.decode("utf-8")
        return unquote_to_bytes(text).decode("utf-8")
    return unquote(text, errors="strict")


def check_form_size(body: bytes, already: int) -> None:
    """Refuse a form body with too many parameters before it is split (``already``: those of
    the URL's query string)."""
    if body and body.count(b"&") + 1 + already > MAX_PARAMETERS:
        raise SqsError("QueryParametersOutOfBounds")


def _structure(
    members: tuple[Any, ...], node: dict[str, Any], prefix: str, leaves: bool = False
) -> dict[str, Any]:
    """The members of a structure from ``node``'s children: nodes of the tree of dotted names,
    or (``leaves``: a form whose names have no dots) the values themselves."""
    result: dict[str, Any] = {}
    for name, shape, _, wire, others in members:
        child = node.get(wire)
        key = wire
        if child is None:
            for other in others:
                child = node.get(other)
                if child is not None:
                    key = other
                    break
            else:
                continue
        if shape == "string":  # most members: a leaf, taken as it is
            text = child if leaves else child.get(_VALUE)
            if text is not None:
                result[name] = text
            continue
        value = _decode(shape, {_VALUE: child} if leaves else child, prefix + key)
        if value is not _ABSENT:
            result[name] = value
    return result


_ABSENT: Any = object()


def _decode(shape: str, node: Node, key: str) -> Any:
    definition = SHAPES.get(shape)
    if definition is None:
        text = node.get(_VALUE)
        if text is None:
            return _ABSENT
        if shape == "string" or shape == "blob":
            return text
        if shape == "boolean":
            lowered = text.lower()
            if lowered not in ("true", "false"):
                raise SqsError("QueryValueNotBoolean", name=key, value=text)
            return lowered == "true"
        if len(text) < 10 and text.isdigit() and text.isascii():  # most: small, unsigned
            return int(text)
        limit = _LIMITS[shape]
        if (
            _INTEGER.fullmatch(text) is None
            or len(text.lstrip("+-0")) > 19  # out of range, and maybe past int()'s digit limit
            or not -limit <= int(text) < limit
        ):
            raise SqsError("QueryValueNotInteger", name=key, value=text)
        return int(text)
    kind = definition[0]
    if kind == "structure":
        return _structure(definition[1], node, key + ".")
    if kind == "list":
        _, member, member_name, flattened = definition
        if not flattened:
            node = node.get(member_name or "member", {})
            key = f"{key}.{member_name or 'member'}"
        items = []
        for index, child in _indexed(node):
            value = _decode(member, child, f"{key}.{index}")
            if value is not _ABSENT:
                items.append(value)
        return items
    _, key_shape, value_shape, key_name, value_name, flattened = definition
    if not flattened:
        node = node.get("entry", {})
        key = key + ".entry"
    result: dict[str, Any] = {}
    for index, child in _indexed(node):
        entry_key = f"{key}.{index}"
        map_key = _member(key_shape, child, key_name, entry_key)
        result[map_key] = _member(value_shape, child, value_name, entry_key)
    return result


def _member(shape: str, entry: Node, name: str, entry_key: str) -> Any:
    """The key or the value of a map entry: both must be there."""
    node = entry.get(name)
    value = _ABSENT if node is None else _decode(shape, node, f"{entry_key}.{name}")
    if value is _ABSENT:
        raise SqsError("MissingParameter", name=f"{entry_key}.{name}")
    return value


def _indexed(node: Node) -> list[tuple[int, Node]]:
    """The numbered children (``.1``, ``.2``...) of a list or map node, in number order."""
    found = [(int(k), child) for k, child in node.items() if k and k.isdecimal() and k.isascii()]
    found.sort(key=lambda pair: pair[0])
    return [pair for pair in found if pair[0] > 0]
