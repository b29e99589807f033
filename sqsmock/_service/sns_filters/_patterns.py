"""The match patterns a filter policy compiles to, each testing one value of a message.

A message value is what SNS sees for a key: a string, a number, ``true``/``false`` or ``null``.
Numbers compare as AWS's rule engine compares them: both sides scaled to six decimal places
within -5e9..5e9 (a number outside that range matches no numeric condition); IP addresses in
strings compare as addresses, inside a CIDR block whose base address is taken as written.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

__all__ = [
    "AnythingBut",
    "AnythingButPrefix",
    "Cidr",
    "Exact",
    "Exists",
    "Pattern",
    "Range",
    "StringTest",
    "Value",
    "ip_number",
    "number_key",
]

Value = str | int | float | bool | None

LIMIT = 5e9
_IPV4 = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")
_IPV6 = re.compile(r"[0-9a-fA-F:]*:[0-9a-fA-F:]*")


def number_key(value: float) -> int | None:
    """The rule engine's comparable form of a number, or None outside -5e9..5e9."""
    if not -LIMIT <= value <= LIMIT:
        return None
    return int(1e6 * (LIMIT + value))


def is_number(value: Value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def ip_number(text: str) -> tuple[int, int] | None:
    """``(bits, address)`` of an IPv4 or IPv6 literal, or None."""
    if _IPV4.fullmatch(text):
        octets = [int(part) for part in text.split(".")]
        if all(octet < 256 for octet in octets):
            return 32, int.from_bytes(bytes(octets), "big")
        return None
    if _IPV6.fullmatch(text):
        try:
            return 128, int(ipaddress.IPv6Address(text))
        except ValueError:
            return None
    return None


class Pattern:
    """One value test of a policy key."""

    __slots__ = ()

    def matches(self, value: Value) -> bool:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Exact(Pattern):
    """A string, number, ``true``, ``false`` or ``null`` in a key's list."""

    expected: Value
    #: An IP address literal matches the same address however it is written.
    address: tuple[int, int] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        if isinstance(self.expected, str):
            object.__setattr__(self, "address", ip_number(self.expected))

    def matches(self, value: Value) -> bool:
        expected = self.expected
        if isinstance(expected, str):
            if not isinstance(value, str):
                return False
            if value == expected:
                return True
            return self.address is not None and ip_number(value) == self.address
        if is_number(expected):
            if not is_number(value):
                return False
            assert isinstance(expected, (int, float)) and isinstance(value, (int, float))
            mine, theirs = number_key(expected), number_key(value)
            return mine == theirs if mine is not None and theirs is not None else expected == value
        return value is expected


@dataclass(frozen=True, slots=True)
class StringTest(Pattern):
    """``prefix``, ``suffix``, ``equals-ignore-case``, ``wildcard``, ``exactly``."""

    kind: str
    operand: str

    def matches(self, value: Value) -> bool:
        if not isinstance(value, str):
            return False
        kind, operand = self.kind, self.operand
        if kind == "prefix":
            return value.startswith(operand)
        if kind == "suffix":
            return value.endswith(operand)
        if kind == "equals-ignore-case":
            return value.lower() == operand.lower()
        if kind == "wildcard":
            return _wildcard(operand).fullmatch(value) is not None
        return value == operand


_WILDCARDS: dict[str, re.Pattern[str]] = {}


def _wildcard(operand: str) -> re.Pattern[str]:
    compiled = _WILDCARDS.get(operand)
    if compiled is None:
        regex = ".*".join(re.escape(part) for part in operand.split("*"))
        compiled = _WILDCARDS.setdefault(operand, re.compile(regex, re.DOTALL))
    return compiled


@dataclass(frozen=True, slots=True)
class AnythingBut(Pattern):
    """``anything-but`` a string or strings (any other value matches), or a number or numbers
    (any other number matches)."""

    strings: frozenset[str]
    numbers: frozenset[int] | None

    def matches(self, value: Value) -> bool:
        if self.numbers is not None:
            if not is_number(value):
                return False
            assert isinstance(value, (int, float))
            return number_key(value) not in self.numbers
        return not (isinstance(value, str) and value in self.strings)


@dataclass(frozen=True, slots=True)
class AnythingButPrefix(Pattern):
    prefix: str

    def matches(self, value: Value) -> bool:
        return not (isinstance(value, str) and value.startswith(self.prefix))


@dataclass(frozen=True, slots=True)
class Range(Pattern):
    """``numeric``: bounds in comparable form; None for an unbounded side."""

    bottom: int | None
    open_bottom: bool
    top: int | None
    open_top: bool

    def matches(self, value: Value) -> bool:
        if not is_number(value):
            return False
        assert isinstance(value, (int, float))
        key = number_key(value)
        if key is None:
            return False
        if self.bottom is not None and (
            key <= self.bottom if self.open_bottom else key < self.bottom
        ):
            return False
        return self.top is None or (key < self.top if self.open_top else key <= self.top)


@dataclass(frozen=True, slots=True)
class Cidr(Pattern):
    bits: int
    low: int
    high: int

    def matches(self, value: Value) -> bool:
        if not isinstance(value, str):
            return False
        address = ip_number(value)
        return (
            address is not None and address[0] == self.bits and self.low <= address[1] <= self.high
        )


@dataclass(frozen=True, slots=True)
class Exists(Pattern):
    """``exists``: decided by the key's presence, never by a value."""

    present: bool

    def matches(self, value: Value) -> bool:
        return False
