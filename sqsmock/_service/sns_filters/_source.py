"""A filter policy as SNS hands it to its rule compiler: parsed, re-serialized compactly, and read
token by token with the parser positions AWS quotes in its error messages.

SNS parses the ``FilterPolicy`` text (a parse failure answers ``failed to parse JSON.`` with the
parser's reason), writes it back without whitespace and compiles that text; a compile error
quotes the compact text and the column the streaming parser had reached. Reproducing those
columns needs the parser's rules: after a field name it has also read the colon and the start of
the value (a whole number or literal, the opening quote of a string, the bracket of an array);
a string is read to its closing quote only when its text is asked for.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import NamedTuple, NoReturn, TypeVar

from ..._errors import SqsError

__all__ = ["Cursor", "Token", "compact", "deep_enough", "depth_of", "load"]

T = TypeVar("T")

#: Jackson's cut of the quoted source in a location.
SNIPPET = 500
#: Jackson's limit on nesting (``StreamReadConstraints``).
MOST_DEPTH = 1000
#: Nesting the interpreter's default recursion limit surely allows the recursive steps.
SHALLOW = 150
_DEEP = threading.Lock()
_TOKEN_END = re.compile(r"[^\s\[\]{},:\"]*")


class Token(NamedTuple):
    """``kind``: ``{ } [ ] name string number true false null``; ``pos``: characters consumed
    once the parser has moved to it; ``end``: once its text is read (strings)."""

    kind: str
    value: object
    text: str
    pos: int
    end: int


def java_double(value: float) -> str:
    """``Double.toString``: plain between 1e-3 and 1e7, else ``d.dddE±n``."""
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if math.isinf(value) or math.isnan(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if 1e-3 <= abs(value) < 1e7:
        text = repr(value)
        return text if "e" not in text else format(Decimal(text), "f")
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    shown = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) + int(exponent) - 1
    mantissa = shown[0] + "." + (shown[1:] or "0")
    return ("-" if sign else "") + mantissa + "E" + str(power)


def _number_text(value: float | int) -> str:
    return str(value) if isinstance(value, int) else java_double(value)


def compact(document: object) -> tuple[str, list[Token]]:
    """The compact text of a parsed policy and its tokens, each with the parser's positions."""
    parts: list[str] = []
    tokens: list[Token] = []
    size = 0

    def write(text: str) -> int:
        nonlocal size
        start = size
        parts.append(text)
        size += len(text)
        return start

    def value(item: object) -> Token:
        if isinstance(item, dict):
            start = write("{")
            opening = Token("{", None, "{", start + 1, start + 1)
            tokens.append(opening)
            for index, (key, member) in enumerate(item.items()):
                if index:
                    write(",")
                write(json.dumps(key, ensure_ascii=False) + ":")
                slot = len(tokens)
                tokens.append(opening)  # replaced once the value's position is known
                first = value(member)
                tokens[slot] = Token("name", key, key, first.pos, first.pos)
            end = write("}") + 1
            tokens.append(Token("}", None, "}", end, end))
            return opening
        if isinstance(item, list):
            start = write("[")
            opening = Token("[", None, "[", start + 1, start + 1)
            tokens.append(opening)
            for index, member in enumerate(item):
                if index:
                    write(",")
                value(member)
            end = write("]") + 1
            tokens.append(Token("]", None, "]", end, end))
            return opening
        if isinstance(item, str):
            text = json.dumps(item, ensure_ascii=False)
            start = write(text)
            token = Token("string", item, item, start + 1, start + len(text))
        elif item is None or isinstance(item, bool):
            text = "null" if item is None else ("true" if item else "false")
            start = write(text)
            token = Token(text, item, text, start + len(text), start + len(text))
        else:
            assert isinstance(item, (int, float))
            text = _number_text(item)
            start = write(text)
            token = Token("number", item, text, start + len(text), start + len(text))
        tokens.append(token)
        return token

    value(document)
    return "".join(parts), tokens


class Cursor:
    """Reads the tokens as event-ruler reads them; ``fail`` raises with the parser's location."""

    def __init__(self, source: str, tokens: list[Token], lead: str) -> None:
        self.source = source
        self.tokens = tokens
        self.lead = lead
        self.index = -1
        self.pos = 0

    def next(self) -> Token:
        self.index += 1
        token = self.tokens[self.index]
        self.pos = token.pos
        return token

    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def text(self) -> str:
        """``getText()``: reading a string moves the parser past its closing quote."""
        token = self.current
        self.pos = token.end
        return token.text

    def fail(self, error: str, /, **params: object) -> NoReturn:
        read = self.source[: self.pos]
        column = len(read.encode("utf-16-le")) // 2 + 1
        units = len(self.source.encode("utf-16-le")) // 2
        if units > SNIPPET:
            cut = self.source.encode("utf-16-le")[: SNIPPET * 2].decode("utf-16-le", "ignore")
            source = f'"{cut}"[truncated {units - SNIPPET} chars]'
        else:
            source = f'"{self.source}"'
        raise SqsError(error, lead=self.lead, source=source, column=column, **params)

    def plain(self, error: str, /, **params: object) -> NoReturn:
        raise SqsError(error, lead=self.lead, **params)


def _where(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def _shown(char: str) -> str:
    """Jackson's description of a character."""
    code = ord(char)
    return f"'{char}' (code {code})" if code >= 32 else f"(CTRL-CHAR, code {code})"


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(name)


def load(text: str, lead: str) -> tuple[object, int]:
    """The parsed policy and its nesting depth, or SNS's ``failed to parse JSON.`` with the
    parser's reason. Like the parser SNS uses, it reads the first value and ignores the rest."""
    start = len(text) - len(text.lstrip(" \t\r\n"))
    if start == len(text):
        line, column = _where(text, len(text))
        raise SqsError("SnsFilterPolicyJsonNoContent", lead=lead, line=line, column=column)
    depth, too_deep = depth_of(text, start)
    if too_deep is not None:
        line, column = _where(text, too_deep + 1)
        raise SqsError(
            "SnsFilterPolicyJsonDepth",
            lead=lead,
            depth=MOST_DEPTH + 1,
            most=MOST_DEPTH,
            line=line,
            column=column,
        )
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    try:
        return deep_enough(depth, lambda: decoder.raw_decode(text, start)[0]), depth
    except ValueError as error:
        _explain(text, start, error, lead)


def deep_enough(depth: int, step: Callable[[], T]) -> T:
    """``step()``, under a recursion limit that lets it recurse ``depth`` levels (a few frames
    each): past ``SHALLOW`` levels the limit is raised for the step, one step at a time."""
    if depth <= SHALLOW:
        return step()
    with _raised(depth * 4 + 200):
        return step()


@contextmanager
def _raised(needed: int) -> Iterator[None]:
    with _DEEP:
        before = sys.getrecursionlimit()
        sys.setrecursionlimit(max(before, needed))
        try:
            yield
        finally:
            sys.setrecursionlimit(before)


def depth_of(text: str, start: int) -> tuple[int, int | None]:
    """The deepest nesting of the first value, and where it first passes ``MOST_DEPTH``."""
    level = deepest = 0
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            if level > MOST_DEPTH:
                return deepest, index
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
            if level <= 0:
                break
    return deepest, None


def _explain(text: str, start: int, error: ValueError, lead: str) -> NoReturn:
    """The parser's reason for the first fault of ``text``."""
    if not isinstance(error, json.JSONDecodeError):  # NaN, Infinity, -Infinity
        token = str(error)
        offset = text.find(token.lstrip("-"), start)
        line, column = _where(text, offset)
        raise SqsError("SnsFilterPolicyJsonToken", lead=lead, token=token, line=line, column=column)
    offset, reason = error.pos, error.msg
    params: dict[str, object] = {"lead": lead}
    if offset >= len(text):
        opening = _open_container(text, start)
        if reason.startswith("Unterminated string") or opening is None:
            name = "SnsFilterPolicyJsonEndOfString"
        else:
            name = "SnsFilterPolicyJsonEnd"
            params["container"] = "Object" if text[opening] == "{" else "Array"
            params["start_line"], params["start_column"] = _where(text, opening)
        params["line"], params["column"] = _where(text, len(text))
        raise SqsError(name, **params)
    char = text[offset]
    params["char"] = _shown(char)
    params["line"], params["column"] = _where(text, offset)
    if reason.startswith("Unterminated string"):
        params["line"], params["column"] = _where(text, len(text))
        raise SqsError("SnsFilterPolicyJsonEndOfString", **params)
    if reason.startswith("Invalid control character"):
        raise SqsError("SnsFilterPolicyJsonControl", **params)
    if reason.startswith("Invalid \\escape") or reason.startswith("Invalid \\u"):
        params["char"] = _shown(text[offset + 1 : offset + 2] or "\\")
        raise SqsError("SnsFilterPolicyJsonEscape", **params)
    if reason.startswith("Expecting property name"):
        raise SqsError("SnsFilterPolicyJsonFieldName", **params)
    if reason.startswith("Expecting ':'"):
        raise SqsError("SnsFilterPolicyJsonColon", **params)
    if reason.startswith("Expecting ','"):
        opening = _open_container(text, start, offset)
        params["container"] = "Object" if opening is not None and text[opening] == "{" else "Array"
        raise SqsError("SnsFilterPolicyJsonComma", **params)
    if char.isalpha() or char in "_$":
        word = _TOKEN_END.match(text, offset)
        params["token"] = word.group(0) if word else char
        raise SqsError("SnsFilterPolicyJsonToken", **params)
    raise SqsError("SnsFilterPolicyJsonValue", **params)


def _open_container(text: str, start: int, stop: int | None = None) -> int | None:
    """Where the innermost container still open at ``stop`` (default: the end) began."""
    stack: list[int] = []
    in_string = escaped = False
    for index in range(start, len(text) if stop is None else stop):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            stack.append(index)
        elif char in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else None
