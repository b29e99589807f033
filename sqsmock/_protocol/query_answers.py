"""The query protocol's answers: the XML document SQS sends for a JSON-wire answer or an error,
and the JSON it sends instead when the client asks for it (``Accept: application/json``).

``query`` reads the requests and names these for its callers; the element names come from the
generated ``shapes`` table.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .shapes import OPERATIONS, SHAPES, XML_NAMESPACE

__all__ = [
    "render_query_error",
    "render_query_json_error",
    "render_query_json_success",
    "render_query_success",
]

# --- Answers ----------------------------------------------------------------------------------

_ESCAPES = {ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord('"'): "&quot;"}
# A carriage return must travel as a reference: XML parsers turn a literal one into a line feed.
_ESCAPES[ord("\r")] = "&#xD;"
# What XML 1.0 cannot carry at all, not even as a reference (and lone surrogates, which UTF-8
# cannot encode). SQS refuses such text wherever it keeps it; in an error message quoting the
# request it is shown as U+FFFD, so that the answer stays a well-formed document.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    if not (value.isascii() and value.isprintable()) and _NOT_XML.search(value) is not None:
        value = _NOT_XML.sub("\ufffd", value)
    if "&" in value or "<" in value or ">" in value or '"' in value or "\r" in value:
        return value.translate(_ESCAPES)
    return value


def render_query_success(operation: str, payload: dict[str, Any], request_id: str) -> bytes:
    """The XML document SQS answers for a successful ``operation`` given its JSON-wire answer."""
    _, output, wrapper = OPERATIONS[operation]
    parts = [f'<?xml version="1.0"?><{operation}Response xmlns="{XML_NAMESPACE}">']
    if output is not None:
        inner: list[str] = []
        _render_members(SHAPES[output][1], payload, inner)
        if inner:
            parts.append(f"<{wrapper}>")
            parts.extend(inner)
            parts.append(f"</{wrapper}>")
        else:
            parts.append(f"<{wrapper}/>")
    parts.append(
        f"<ResponseMetadata><RequestId>{_text(request_id)}</RequestId></ResponseMetadata>"
        f"</{operation}Response>"
    )
    return "".join(parts).encode("utf-8")


def render_query_error(code: str, message: str, sender: bool, request_id: str) -> bytes:
    """The ``ErrorResponse`` XML document SQS answers for an error (``code`` is the legacy one)."""
    kind = "Sender" if sender else "Receiver"
    return (
        f'<?xml version="1.0"?><ErrorResponse xmlns="{XML_NAMESPACE}"><Error><Type>{kind}</Type>'
        f"<Code>{_text(code)}</Code><Message>{_text(message)}</Message><Detail/></Error>"
        f"<RequestId>{_text(request_id)}</RequestId></ErrorResponse>"
    ).encode()


def _render_members(members: tuple[Any, ...], value: dict[str, Any], parts: list[str]) -> None:
    for name, shape, _, wire, _ in members:
        item = value.get(name)
        if item is None:
            continue
        if shape == "string":  # the common case, inline
            parts.append(f"<{wire}>{_text(item)}</{wire}>")
        else:
            _render(shape, wire, item, parts)


def _render(shape: str, tag: str, value: Any, parts: list[str]) -> None:
    definition = SHAPES.get(shape)
    if definition is None:
        parts.append(f"<{tag}>{_scalar(value)}</{tag}>")
        return
    kind = definition[0]
    if kind == "structure":
        parts.append(f"<{tag}>")
        _render_members(definition[1], value, parts)
        parts.append(f"</{tag}>")
    elif kind == "list":
        _, member, member_name, flattened = definition
        if flattened:
            for item in value:
                _render(member, tag, item, parts)
        else:
            parts.append(f"<{tag}>")
            for item in value:
                _render(member, member_name or "member", item, parts)
            parts.append(f"</{tag}>")
    else:
        _, key_shape, value_shape, key_name, value_name, flattened = definition
        entry = tag if flattened else "entry"
        if not flattened:
            parts.append(f"<{tag}>")
        if key_shape == value_shape == "string":  # attributes and tags, inline
            for key, item in value.items():
                parts.append(
                    f"<{entry}><{key_name}>{_text(key)}</{key_name}>"
                    f"<{value_name}>{_text(item)}</{value_name}></{entry}>"
                )
        else:
            for key, item in value.items():
                parts.append(f"<{entry}>")
                _render(key_shape, key_name, key, parts)
                _render(value_shape, value_name, item, parts)
                parts.append(f"</{entry}>")
        if not flattened:
            parts.append(f"</{tag}>")


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --- Answers in JSON (``Accept: application/json``) ------------------------------------------
#
# SQS answers a query-protocol request that accepts JSON with the same document as JSON
# (AWS-recorded): ``{"<Op>Response": {"<Op>Result": {...}, "ResponseMetadata": {"RequestId":
# ...}}}``. Every member of a result structure is there, ``null`` when absent; a map is a list of
# its entries (``{"Name": ..., "Value": ...}``); a list that the XML form flattens is named in
# lower camel case (``queueUrls``, ``messages``). An error is ``{"Error": {"Type", "Code",
# "Message"}, "RequestId"}``.

_dumps_json = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode
# Members SQS's document has beyond the service model (AWS-recorded, always null).
_EXTRA_MEMBERS = {"ListQueues": ("NextExclusiveStartQueueName",)}


def render_query_json_success(operation: str, payload: dict[str, Any], request_id: str) -> bytes:
    """The JSON document SQS answers for a successful query-protocol ``operation``."""
    _, output, wrapper = OPERATIONS[operation]
    inner: dict[str, Any] = {"ResponseMetadata": {"RequestId": request_id}}
    if output is not None:
        result = _json_members(SHAPES[output][1], payload)
        for name in _EXTRA_MEMBERS.get(operation, ()):
            result[name] = None
        inner[wrapper] = result
    return _dumps_json({f"{operation}Response": inner}).encode("utf-8")


def render_query_json_error(code: str, message: str, sender: bool, request_id: str) -> bytes:
    """The JSON form of the ``ErrorResponse`` document."""
    error = {"Type": "Sender" if sender else "Receiver", "Code": code, "Message": message}
    return _dumps_json({"Error": error, "RequestId": request_id}).encode("utf-8")


def _json_members(members: tuple[Any, ...], value: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, shape, _, _, _ in members:
        item = value.get(name)
        definition = SHAPES.get(shape)
        if definition is not None and definition[0] == "list" and definition[3]:
            name = name[:1].lower() + name[1:]
        out[name] = None if item is None else _json_value(shape, item)
    return out


def _json_value(shape: str, value: Any) -> Any:
    definition = SHAPES.get(shape)
    if definition is None:
        return value
    kind = definition[0]
    if kind == "structure":
        return _json_members(definition[1], value)
    if kind == "list":
        return [_json_value(definition[1], item) for item in value]
    _, _, value_shape, key_name, value_name, _ = definition
    return [
        {key_name: key, value_name: _json_value(value_shape, item)} for key, item in value.items()
    ]
