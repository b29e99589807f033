"""In-process callers (SDK hooks): their parameters in, a fresh answer out -- no JSON on the way.

An SDK hands over the parameters it validated: the JSON-wire form, except that blobs are bytes
(or text) rather than base64. ``to_wire`` converts just those, touching nothing else, so the
caller's own objects are read, never changed. ``from_wire`` gives the caller a fresh copy of the
answer -- never the engine's own dicts -- with base64 blobs turned back into bytes.
"""

from __future__ import annotations

import base64
from typing import Any

__all__ = ["copy_containers", "from_wire", "to_wire"]

_SENDS = frozenset({"SendMessage", "SendMessageBatch"})


def _blob_out(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, str):
        return base64.b64encode(value.encode("utf-8")).decode("ascii")
    read = getattr(value, "read", None)
    if callable(read):  # botocore accepts file-like blobs too
        return _blob_out(read())
    return value  # a wrong type: the service's type check reports it


def _attributes_to_wire(attributes: Any) -> Any:
    if not isinstance(attributes, dict):
        return attributes
    out: dict[str, Any] = {}
    for name, value in attributes.items():
        if isinstance(value, dict) and ("BinaryValue" in value or "BinaryListValues" in value):
            value = dict(value)
            if "BinaryValue" in value:
                value["BinaryValue"] = _blob_out(value["BinaryValue"])
            listed = value.get("BinaryListValues")
            if isinstance(listed, list):
                value["BinaryListValues"] = [_blob_out(v) for v in listed]
        out[name] = value
    return out


def _message_to_wire(params: dict[str, Any]) -> dict[str, Any]:
    changed = None
    for key in ("MessageAttributes", "MessageSystemAttributes"):
        attributes = params.get(key)
        if attributes:
            if changed is None:
                changed = dict(params)
            changed[key] = _attributes_to_wire(attributes)
    return params if changed is None else changed


def to_wire(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """The JSON-wire form of an SDK's parameters (blobs base64-encoded), sharing what it can."""
    if operation not in _SENDS:
        return params
    if operation == "SendMessage":
        return _message_to_wire(params)
    entries = params.get("Entries")
    if not isinstance(entries, list):
        return params
    out = dict(params)
    out["Entries"] = [_message_to_wire(e) if isinstance(e, dict) else e for e in entries]
    return out


def copy_containers(value: Any) -> Any:
    """A copy of ``value``'s dicts and lists (strings and numbers shared): most answers are
    flat, so only the nested containers cost a call."""
    kind = type(value)
    if kind is dict:
        out = value.copy()
        for key, item in out.items():
            kind = type(item)
            if kind is dict or kind is list:
                out[key] = copy_containers(item)
        return out
    if kind is list:
        return [item if type(item) is str else copy_containers(item) for item in value]
    return value


def _attributes_from_wire(attributes: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in attributes.items():
        value = dict(value)
        if "BinaryValue" in value:
            value["BinaryValue"] = base64.b64decode(value["BinaryValue"])
        if "BinaryListValues" in value:
            value["BinaryListValues"] = [base64.b64decode(v) for v in value["BinaryListValues"]]
        if "StringListValues" in value:
            value["StringListValues"] = list(value["StringListValues"])
        out[name] = value
    return out


def _message_from_wire(message: dict[str, Any]) -> dict[str, Any]:
    out = message.copy()
    attributes = out.get("Attributes")
    if attributes is not None:
        out["Attributes"] = dict(attributes)
    attributes = out.get("MessageAttributes")
    if attributes is not None:
        out["MessageAttributes"] = _attributes_from_wire(attributes)
    return out


def from_wire(operation: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy of an answer for an SDK caller, blobs as bytes."""
    if operation == "ReceiveMessage":
        messages = payload.get("Messages")
        if messages is None:
            return {}
        return {"Messages": [_message_from_wire(m) for m in messages]}
    return copy_containers(payload)  # type: ignore[no-any-return]
