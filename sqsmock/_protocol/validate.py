"""What SQS's deserializer rejects in a JSON-wire request: missing or mistyped members.

The checks and their texts are those of botocore's client-side parameter validation (SQS's model
has no ranges or lengths, so only types and required members), so a client that turned its own
validation off gets the same report from sqsmock. Members the model does not know are ignored,
as AWS ignores them. Runs on every request: one walk over the parameters, no allocation unless
something is wrong.
"""

from __future__ import annotations

from typing import Any, NoReturn

from .._errors import SqsError
from .shapes import OPERATIONS, SHAPES

__all__ = ["MAX_NESTING", "check_types", "nested_too_deep"]

#: How deeply a request's JSON may nest. SQS's own input nests six levels at most (a batch entry's
#: attribute's list of values); members it does not know may nest more, up to this bound, since
#: AWS ignores them. Deeper input is refused as malformed JSON before anything runs: copying it
#: (the call journal does) would exhaust Python's recursion limit.
MAX_NESTING = 64

# The Python types each model type accepts, and how botocore names them in its report.
_SCALARS: dict[str, tuple[tuple[type, ...], str]] = {
    "string": ((str,), "<class 'str'>"),
    "integer": ((int,), "<class 'int'>"),
    "long": ((int,), "<class 'int'>"),
    "boolean": ((bool,), "<class 'bool'>"),
    "blob": ((bytes, bytearray, str), "<class 'bytes'>, <class 'bytearray'>, file-like object"),
}
_DICT = "<class 'dict'>"
_LIST = "<class 'list'>, <class 'tuple'>"

# shape name -> (required member names, member name -> member shape, member name -> the types a
# plain scalar member accepts), for structures only. The last is what most members are: checked
# by one ``isinstance`` where they are met, without a call for each.
_STRUCTURES: dict[str, tuple[tuple[str, ...], dict[str, str], dict[str, tuple[type, ...]]]] = {
    name: (
        tuple(member[0] for member in definition[1] if member[2]),
        {member[0]: member[1] for member in definition[1]},
        {
            member[0]: _SCALARS[member[1]][0]
            for member in definition[1]
            if member[1] in _SCALARS and member[1] != "blob"
        },
    )
    for name, definition in SHAPES.items()
    if definition[0] == "structure"
}
# operation -> its input structure, for operations that take one.
_INPUTS = {
    operation: _STRUCTURES[entry[0]]
    for operation, entry in OPERATIONS.items()
    if entry[0] is not None and entry[0] in _STRUCTURES
}


def check_types(operation: str, params: dict[str, Any]) -> None:
    """Raise the ``SqsError`` SQS answers when ``params`` does not fit ``operation``'s input.

    ``MissingParameter`` for a missing required member (the first one, depth first),
    ``ParameterFailsModel`` for a member of the wrong type. An unknown operation passes: the
    dispatcher answers it.
    """
    structure = _INPUTS.get(operation)
    if structure is not None and isinstance(params, dict) and _fits_structure(structure, params):
        return
    entry = OPERATIONS.get(operation)
    if entry is None or entry[0] is None or _fits(entry[0], params):
        return
    if nested_too_deep(params):  # before a report would have to print it
        raise SqsError("InvalidJsonBody")
    _check(entry[0], params, "")


def nested_too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Do the dicts and lists of ``value`` nest deeper than ``limit`` (the outermost is 1)?

    Iterative, so it answers for any depth; it visits containers only, not strings.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, (list, tuple)):
            continue
        for child in item:
            if isinstance(child, (dict, list, tuple)):
                stack.append((child, depth + 1))
    return False


def _fits(shape: str, value: Any) -> bool:
    """The common case, cheaply: no names are built unless something is wrong."""
    scalar = _SCALARS.get(shape)
    if scalar is not None:
        return isinstance(value, scalar[0]) or (shape == "blob" and hasattr(value, "read"))
    structure = _STRUCTURES.get(shape)
    if structure is not None:
        return isinstance(value, dict) and _fits_structure(structure, value)
    definition = SHAPES[shape]
    if definition[0] == "list":
        if not isinstance(value, (list, tuple)):
            return False
        member_shape = definition[1]
        return all(_fits(member_shape, item) for item in value)
    if not isinstance(value, dict):
        return False
    key_shape, value_shape = definition[1], definition[2]
    return all(_fits(key_shape, key) and _fits(value_shape, item) for key, item in value.items())


def _fits_structure(
    structure: tuple[tuple[str, ...], dict[str, str], dict[str, tuple[type, ...]]],
    value: dict[str, Any],
) -> bool:
    required, members, plain = structure
    for member in required:
        if member not in value:
            return False
    for key, item in value.items():
        types = plain.get(key)
        if types is not None:
            if not isinstance(item, types):
                return False
            continue
        member_shape = members.get(key)
        if member_shape is None:
            if isinstance(item, (dict, list, tuple)) and nested_too_deep(item):
                return False  # ignored, but it must not sink whoever copies it
        elif not _fits(member_shape, item):
            return False
    return True


def _check(shape: str, value: Any, name: str) -> None:
    """``_fits`` again, raising the first error botocore's validator would report."""
    scalar = _SCALARS.get(shape)
    if scalar is not None:
        if not isinstance(value, scalar[0]) and not (shape == "blob" and hasattr(value, "read")):
            _fail(name, value, scalar[1])
        return
    structure = _STRUCTURES.get(shape)
    if structure is not None:
        if not isinstance(value, dict):
            _fail(name, value, _DICT)
        required, members, _ = structure
        for member in required:
            if member not in value:
                raise SqsError("MissingParameter", name=member)
        for key, item in value.items():
            member_shape = members.get(key)
            if member_shape is not None:
                _check(member_shape, item, f"{name}.{key}")
        return
    definition = SHAPES[shape]
    if definition[0] == "list":
        if not isinstance(value, (list, tuple)):
            _fail(name, value, _LIST)
        member_shape = definition[1]
        for index, item in enumerate(value):
            _check(member_shape, item, f"{name}[{index}]")
        return
    # A map.
    if not isinstance(value, dict):
        _fail(name, value, _DICT)
    key_shape, value_shape = definition[1], definition[2]
    for key, item in value.items():
        _check(key_shape, key, f"{name} (key: {key})")
        _check(value_shape, item, f"{name}.{key}")


def _fail(name: str, value: Any, valid: str) -> NoReturn:
    """botocore's wording: ``Invalid type for parameter X, value: 5, type: <class 'int'>, ...``."""
    shown = name[1:] if name.startswith(".") else name or "input"
    try:
        text = f"{value}"
    except ValueError:  # an integer past Python's digit limit for text
        text = f"<an integer of about {int(value.bit_length() * 0.30103)} digits>"
    raise SqsError(
        "ParameterFailsModel",
        report=f"Invalid type for parameter {shown}, value: {text}, type: {type(value)}, "
        f"valid types: {valid}",
    )
