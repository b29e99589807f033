"""Compiling a filter policy as SNS's rule engine compiles it, reason for reason.

The walk follows AWS's event-ruler (the release SNS runs: ``anything-but`` takes a value, a list
or a ``prefix``) token by token, so the first fault found is the one AWS reports, with the same
words and the same parser position. It yields the policy's branches: ``$or`` multiplies them,
and each maps a dotted key path to the patterns any one of which satisfies that key.
"""

from __future__ import annotations

import re
from ipaddress import IPv6Address

from ._patterns import (
    AnythingBut,
    AnythingButPrefix,
    Cidr,
    Exact,
    Exists,
    Pattern,
    Range,
    StringTest,
    number_key,
)
from ._source import Cursor

__all__ = ["Branch", "compile_rules"]

Branch = dict[str, list[Pattern]]

OR = "$or"
_STRING_OPERATORS = frozenset({"exactly", "prefix", "suffix", "equals-ignore-case", "wildcard"})
_RESERVED_IN_OR = frozenset(
    {
        "exactly",
        "equals-ignore-case",
        "prefix",
        "suffix",
        "anything-but",
        "exists",
        "wildcard",
        "numeric",
        "cidr",
        "=",
        "<",
        "<=",
        ">",
        ">=",
        "regex",
        "not-wildcard",
        "not-equals-ignore-case",
        "date-after",
        "date-on-or-after",
        "date-before",
        "date-on-or-before",
        "in-date-range",
        "ip-address-in-range",
        "ip-address-not-in-range",
    }
)
#: How event-ruler names an operator in "... match pattern must be a string".
_WORDS = {"exactly": "exact"}
_SCALARS = frozenset({"string", "number", "true", "false", "null"})
_MASK = re.compile(r"[+-]?[0-9]+")
_IPV4 = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")
_IPV6 = re.compile(r"[0-9a-fA-F:]*:[0-9a-fA-F:]*")


def compile_rules(cursor: Cursor) -> list[Branch]:
    rules: list[Branch] = []
    if cursor.next().kind != "{":
        cursor.fail("SnsFilterPolicyNotObject")
    _object(cursor, rules, [], in_or=False)
    return rules


def _object(cursor: Cursor, rules: list[Branch], path: list[str], *, in_or: bool) -> None:
    present = False
    while (token := cursor.next()).kind != "}":
        present = True
        name = token.text
        if name == OR:
            _or(cursor, rules, path)
            continue
        if in_or and name in _RESERVED_IN_OR:
            cursor.fail("SnsFilterPolicyReservedInOr", name=name)
        kind = cursor.next().kind
        if kind == "{":
            _object(cursor, rules, [*path, name], in_or=in_or)
        elif kind == "[":
            _write(cursor, rules, ".".join([*path, name]))
        else:
            cursor.fail("SnsFilterPolicyNotObjectOrArray", name=name)
    if not present:
        cursor.fail("SnsFilterPolicyEmptyObject")


def _or(cursor: Cursor, rules: list[Branch], path: list[str]) -> None:
    before = [dict(rule) for rule in rules]
    rules.clear()
    if cursor.next().kind != "[":
        cursor.fail("SnsFilterPolicyOrNotArray")
    count = 0
    while (token := cursor.next()).kind != "]":
        count += 1
        if token.kind != "{":
            cursor.fail("SnsFilterPolicyOrNotObject")
        branch = [dict(rule) for rule in before] or [{}]
        _object(cursor, branch, path, in_or=True)
        rules.extend(branch)
    if count < 2:
        cursor.fail("SnsFilterPolicyOrTooFew")


def _write(cursor: Cursor, rules: list[Branch], name: str) -> None:
    values: list[Pattern] = []
    while (token := cursor.next()).kind != "]":
        if token.kind == "{":
            values.append(_expression(cursor))
        elif token.kind in _SCALARS:
            if token.kind == "string":
                cursor.text()
            values.append(Exact(token.value))  # type: ignore[arg-type]
        else:
            cursor.fail("SnsFilterPolicyMatchValue")
    if not values:
        cursor.fail("SnsFilterPolicyEmptyArray")
    if not rules:
        rules.append({})
    for rule in rules:
        rule[name] = values


def _end(cursor: Cursor, error: str = "SnsFilterPolicyOneKey") -> None:
    if cursor.next().kind != "}":
        cursor.fail(error)


def _expression(cursor: Cursor) -> Pattern:
    token = cursor.next()
    if token.kind != "name":
        cursor.fail("SnsFilterPolicyNoMatchName")
    operator = token.text
    if operator in _STRING_OPERATORS:
        if cursor.next().kind != "string":
            cursor.fail("SnsFilterPolicyNotString", operator=_WORDS.get(operator, operator))
        pattern: Pattern = StringTest(operator, cursor.text())
        _end(cursor)
        return pattern
    if operator == "numeric":
        if cursor.next().kind != "[":
            cursor.fail("SnsFilterPolicyNumericNotArray")
        pattern = _numeric(cursor)
        _end(cursor, "SnsFilterPolicyNumericElements")
        return pattern
    if operator == "anything-but":
        return _anything_but(cursor)
    if operator == "exists":
        value = cursor.next()
        if value.kind not in ("true", "false"):
            cursor.fail("SnsFilterPolicyExistsValue")
        _end(cursor)
        return Exists(value.kind == "true")
    if operator == "cidr":
        if cursor.next().kind != "string":
            cursor.fail("SnsFilterPolicyNotString", operator="prefix")
        pattern = _cidr(cursor, cursor.text())
        _end(cursor)
        return pattern
    cursor.fail("SnsFilterPolicyUnknownMatch", name=operator)


def _anything_but(cursor: Cursor) -> Pattern:
    token = cursor.next()
    if token.kind == "{":
        name = cursor.next()
        if name.kind != "name":
            cursor.fail("SnsFilterPolicyAnythingButNoName")
        if name.text != "prefix":
            cursor.fail("SnsFilterPolicyAnythingButPattern", name=name.text)
        if cursor.next().kind != "string":
            cursor.fail("SnsFilterPolicyNotString", operator="prefix")
        prefix = cursor.text()
        if not prefix:
            cursor.fail("SnsFilterPolicyNullPrefix")
        _end(cursor)
        _end(cursor)
        return AnythingButPrefix(prefix)
    if token.kind not in ("[", "string", "number"):
        cursor.fail("SnsFilterPolicyAnythingButValue")
    strings: set[str] = set()
    numbers: set[int] = set()
    if token.kind == "[":
        while (member := cursor.next()).kind != "]":
            if member.kind == "string":
                strings.add(cursor.text())
            elif member.kind == "number":
                numbers.add(_comparable(cursor, float(member.value)))  # type: ignore[arg-type]
            else:
                cursor.fail("SnsFilterPolicyAnythingButListMember")
        if bool(strings) == bool(numbers):
            cursor.fail("SnsFilterPolicyAnythingButMixed")
    elif token.kind == "string":
        strings.add(cursor.text())
    else:
        numbers.add(_comparable(cursor, float(token.value)))  # type: ignore[arg-type]
    _end(cursor, "SnsFilterPolicyNumericElements")
    return AnythingBut(frozenset(strings), frozenset(numbers) if numbers else None)


def _comparable(cursor: Cursor, value: float) -> int:
    key = number_key(value)
    if key is None:
        cursor.fail("SnsFilterPolicyNumberRange")
    return key


def _numeric(cursor: Cursor) -> Pattern:
    token = cursor.next()
    if token.kind != "string":
        cursor.fail("SnsFilterPolicyNumericMember", text=cursor.text())
    operator = cursor.text()
    value = cursor.next()
    named = "equals" if operator == "=" else operator
    if operator not in ("=", ">=", ">", "<=", "<"):
        cursor.fail("SnsFilterPolicyNumericOperator", operator=operator)
    if value.kind != "number":
        cursor.fail("SnsFilterPolicyNumericValue", operator=named)
    number = float(value.value)  # type: ignore[arg-type]
    if operator in ("=", "<=", "<"):
        if cursor.next().kind != "]":
            cursor.fail("SnsFilterPolicyNumericElements")
        key = _comparable(cursor, number)
        if operator == "=":
            return Range(key, False, key, False)
        return Range(None, False, key, operator == "<")
    following = cursor.next()
    if following.kind == "]":
        return Range(_comparable(cursor, number), operator == ">", None, False)
    return _range(cursor, following.kind, number, operator == ">")


def _range(cursor: Cursor, kind: str, bottom: float, open_bottom: bool) -> Pattern:
    if kind != "string":
        cursor.fail("SnsFilterPolicyRangeValue", text=cursor.text())
    operator = cursor.text()
    if operator not in ("<", "<="):
        cursor.fail("SnsFilterPolicyRangeOperator", operator=operator)
    top = cursor.next()
    if top.kind != "number":
        cursor.fail("SnsFilterPolicyNumericValue", operator=operator)
    if cursor.next().kind != "]":
        cursor.fail("SnsFilterPolicyRangeTerms")
    high = float(top.value)  # type: ignore[arg-type]
    if bottom >= high:
        cursor.fail("SnsFilterPolicyRangeOrder")
    return Range(
        _comparable(cursor, bottom), open_bottom, _comparable(cursor, high), operator == "<"
    )


def _java_int(text: str) -> int | None:
    if not _MASK.fullmatch(text):
        return None
    value = int(text)
    return value if -(2**31) <= value < 2**31 else None


def _ip_bytes(cursor: Cursor, text: str) -> tuple[int, int]:
    """event-ruler's ``ipToBytes``: the address's width in bits and its value."""
    if _IPV4.fullmatch(text):
        octets = [int(part) for part in text.split(".")]
        if any(octet > 255 for octet in octets):
            cursor.plain("SnsFilterPolicyInvalidIp", ip=text)
        return 32, int.from_bytes(bytes(octets), "big")
    if _IPV6.fullmatch(text):
        try:
            return 128, int(IPv6Address(text))
        except ValueError:
            cursor.plain("SnsFilterPolicyInvalidIp", ip=text)
    cursor.plain("SnsFilterPolicyNonstandardIp", ip=text)


def _cidr(cursor: Cursor, text: str) -> Pattern:
    parts = text.split("/")
    while parts and parts[-1] == "":  # Java's split drops trailing empty strings
        parts.pop()
    if len(parts) != 2:
        cursor.plain("SnsFilterPolicyCidrSlash")
    mask = _java_int(parts[1])
    if mask is None:
        cursor.plain("SnsFilterPolicyCidrMaskInteger")
    if mask < 0:
        cursor.plain("SnsFilterPolicyCidrMaskNegative")
    bits, address = _ip_bytes(cursor, parts[0])
    if bits == 32 and mask > 31:
        cursor.plain("SnsFilterPolicyCidrMaskV4")
    if bits == 128 and mask > 127:
        cursor.plain("SnsFilterPolicyCidrMaskV6")
    return Cidr(bits, address, address | ((1 << (bits - mask)) - 1))
