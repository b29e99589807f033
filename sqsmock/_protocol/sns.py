"""SNS's query protocol: a form (``Action=Publish&Version=2010-03-31&...``) in, XML out.

SNS speaks only this protocol, to the server and (serialized by botocore) in-process, so both
ways a call is decoded here into the members of its request shape (``sns_shapes``: blobs stay
base64 text), run by the SNS service (``start``) and answered as the XML document SNS sends --
which the in-process adapter hands to botocore's own parser. Errors are ``ErrorResponse``
documents in SNS's namespace, ``Type`` Sender.
"""

from __future__ import annotations

from typing import Any

from .._engine import Backend
from .._errors import SqsError
from .._service import Call
from .._service.sns import dispatch_sns
from . import Result
from .query_answers import _text
from .sns_shapes import OPERATIONS, SHAPES, XML_NAMESPACE

__all__ = ["CONTENT_TYPE", "OPERATIONS", "decode", "render_error", "render_success", "start"]

CONTENT_TYPE = "text/xml"
_VALUE = None
Node = dict[Any, Any]


def start(backend: Backend, operation: str, params: dict[str, Any], call: Call) -> Result:
    """Run one SNS call to its ``Result`` (SNS has no call that waits)."""
    call.backend = backend
    try:
        backend.tick()
        return Result(operation, 200, dispatch_sns(call, operation, params), None)
    except SqsError as error:
        return Result.of_error(operation, error)


# --- Requests ---------------------------------------------------------------------------------


def decode(pairs: list[tuple[str, str]]) -> tuple[str, dict[str, Any]]:
    """(operation, request members) of a form-encoded SNS request."""
    if len(pairs) > 2000:
        raise SqsError("QueryParametersOutOfBounds")
    root: Node = {}
    for key, value in pairs:
        if len(key) > 256 or key.count(".") >= 16:
            raise SqsError("QueryParametersOutOfBounds")
        node = root
        for segment in key.split("."):
            node = node.setdefault(segment, {})
        node[_VALUE] = value
    action = root.get("Action", {}).get(_VALUE)
    if not action:
        raise SqsError("MissingAction")
    entry = OPERATIONS.get(action)
    if entry is None:
        raise SqsError("InvalidAction", action=action)
    if entry[0] is None:
        return action, {}
    return action, _structure(SHAPES[entry[0]][1], root, "")


def _structure(
    members: tuple[Any, ...], node: Node, prefix: str, checked: bool = True
) -> dict[str, Any]:
    """The members of a structure; SNS's error for a required one that is missing (``checked``:
    not in a map's values, a message attribute's, whose missing ``DataType`` the service
    reports as SNS does, with a ValidationError naming where)."""
    result: dict[str, Any] = {}
    for name, shape, required, wire, others in members:
        child = node.get(wire)
        for other in others:
            if child is None:
                child = node.get(other)
        value = _ABSENT if child is None else _decode(shape, child, prefix + wire)
        if value is not _ABSENT:
            result[name] = value
        elif required and checked:
            raise SqsError("SnsMissingParameter", name=prefix + wire)
    return result


_ABSENT: Any = object()


def _decode(shape: str, node: Node, key: str, checked: bool = True) -> Any:
    definition = SHAPES.get(shape)
    if definition is None:
        text = node.get(_VALUE)
        if text is None:
            return _ABSENT
        if shape == "boolean":
            lowered = text.lower()
            if lowered not in ("true", "false"):
                raise SqsError("QueryValueNotBoolean", name=key, value=text)
            return lowered == "true"
        if shape in ("integer", "long"):
            try:
                return int(text)
            except ValueError:
                raise SqsError("QueryValueNotInteger", name=key, value=text) from None
        return text
    kind = definition[0]
    if kind == "structure":
        return _structure(definition[1], node, key + ".", checked)
    if kind == "list":
        _, member, member_name, flattened = definition
        if not flattened:
            node = node.get(member_name or "member", {})
        items = [_decode(member, child, f"{key}.{n}") for n, child in _indexed(node)]
        return [item for item in items if item is not _ABSENT]
    _, key_shape, value_shape, key_name, value_name, flattened = definition
    if not flattened:
        node = node.get("entry", {})
    result: dict[str, Any] = {}
    for index, child in _indexed(node):
        entry_key = f"{key}.entry.{index}"
        name_node, value_node = child.get(key_name), child.get(value_name)
        if name_node is None or value_node is None:
            missing = key_name if name_node is None else value_name
            raise SqsError("SnsMissingParameter", name=f"{entry_key}.{missing}")
        map_key = _decode(key_shape, name_node, entry_key)
        result[map_key] = _decode(value_shape, value_node, entry_key, checked=False)
    return result


def _indexed(node: Node) -> list[tuple[int, Node]]:
    found = [(int(k), c) for k, c in node.items() if k and k.isdecimal() and k.isascii()]
    found.sort(key=lambda pair: pair[0])
    return [pair for pair in found if pair[0] > 0]


# --- Answers ----------------------------------------------------------------------------------


def render_success(operation: str, payload: dict[str, Any], request_id: str) -> bytes:
    _, output, wrapper = OPERATIONS[operation]
    parts = [f'<{operation}Response xmlns="{XML_NAMESPACE}">']
    if output is not None:
        parts.append(f"<{wrapper}>")
        _members(SHAPES[output][1], payload, parts)
        parts.append(f"</{wrapper}>")
    parts.append(
        f"<ResponseMetadata><RequestId>{_text(request_id)}</RequestId></ResponseMetadata>"
        f"</{operation}Response>"
    )
    return "".join(parts).encode("utf-8")


def render_error(error: SqsError, request_id: str) -> bytes:
    kind = "Sender" if error.status < 500 else "Receiver"
    return (
        f'<ErrorResponse xmlns="{XML_NAMESPACE}"><Error><Type>{kind}</Type>'
        f"<Code>{_text(error.code)}</Code><Message>{_text(error.message)}</Message></Error>"
        f"<RequestId>{_text(request_id)}</RequestId></ErrorResponse>"
    ).encode()


def render(result: Result) -> bytes:
    if result.error is not None:
        return render_error(result.error, result.request_id)
    return render_success(result.operation, result.payload or {}, result.request_id)


def _members(members: tuple[Any, ...], value: dict[str, Any], parts: list[str]) -> None:
    for name, shape, _, wire, _ in members:
        item = value.get(name)
        if item is not None:
            _render(shape, wire, item, parts)


def _render(shape: str, tag: str, value: Any, parts: list[str]) -> None:
    definition = SHAPES.get(shape)
    if definition is None:
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        parts.append(f"<{tag}>{_text(text)}</{tag}>")
        return
    kind = definition[0]
    if kind == "structure":
        parts.append(f"<{tag}>")
        _members(definition[1], value, parts)
        parts.append(f"</{tag}>")
    elif kind == "list":
        _, member, member_name, flattened = definition
        if not flattened:
            parts.append(f"<{tag}>")
        for item in value:
            _render(member, tag if flattened else (member_name or "member"), item, parts)
        if not flattened:
            parts.append(f"</{tag}>")
    else:
        _, key_shape, value_shape, key_name, value_name, flattened = definition
        parts.append(f"<{tag}>")
        for key, item in value.items():
            parts.append("<entry>")
            _render(key_shape, key_name, key, parts)
            _render(value_shape, value_name, item, parts)
            parts.append("</entry>")
        parts.append(f"</{tag}>")


__all__ += ["render"]
