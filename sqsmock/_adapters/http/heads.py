"""Reading a request head for the express lane (``express``): is it one the lane answers?

The lane reads a head only if it is plainly an SDK's SQS call -- checked against HTTP's grammar
more strictly than aiohttp's parser reads it, within limits below aiohttp's own -- and leaves
every other head to aiohttp, which then decides about it exactly as it would have. Nothing here
raises: a head that would make it raise is, by that, not the lane's.
"""

from __future__ import annotations

import logging
import re

from multidict import CIMultiDict, CIMultiDictProxy

from ..._protocol.http import HttpRequest
from .browsers import Guard

__all__ = ["HEAD_LIMIT", "REQUEST_LINE", "not_ours", "read_head"]

log = logging.getLogger("sqsmock.server")

#: The longest request head the lane reads itself (aiohttp's own limit for a line is 8190).
HEAD_LIMIT = 8190
#: The request line of a call the lane answers: POST, HTTP/1.1, an SQS path (not one of the
#: server's own ``/_...`` routes) of plain characters -- no escapes, no query string.
REQUEST_LINE = re.compile(r"POST (/(?!_)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*) HTTP/1\.1\r\n")
#: A header line of HTTP's grammar: a token, a colon, a value of visible characters, spaces and
#: tabs (no obsolete line folding, nothing outside ASCII), the spaces before it not its own (nor
#: those after it: ``read_head`` strips them). Every line of a head must be one (``findall`` finds
#: as many as there are line ends).
_FIELD = re.compile(r"^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\t\x20-\x7e]*)\r\n", re.M)
#: Headers that make a request aiohttp's to read (bodies framed or encoded otherwise, a
#: protocol switch, a wait for ``100 Continue``) or to answer (a web page's, with CORS).
_UNUSUAL = frozenset(
    {"transfer-encoding", "content-encoding", "expect", "upgrade", "origin", "sec-fetch-site"}
)
#: Header lines a head may have to be the lane's (SDKs send under 20; aiohttp refuses more
#: than its own limit of 128, which it keeps checking for every head it reads).
_MAX_FIELDS = 64


def not_ours(buffer: bytearray) -> bool:
    """Whether an unfinished head already shows it is not one for the lane (a line ended by a
    bare line feed, a first line of another form): aiohttp answers it without waiting for more."""
    if buffer.count(b"\n") != buffer.count(b"\r\n"):
        return True
    first = buffer.find(b"\r\n")
    if first < 0:
        return False
    return REQUEST_LINE.match(buffer[: first + 2].decode("latin-1")) is None


def read_head(
    buffer: bytearray, end: int, guard: Guard, body_limit: int
) -> tuple[HttpRequest, int, bool] | None:
    """The request whose head ends at ``end`` (its body not read yet), the offset its body ends
    at, and whether the connection closes after it; None if it is not one for the lane --
    including a head that makes anything here raise: aiohttp then makes of it what it does."""
    try:
        return _request(buffer, end, guard, body_limit)
    except Exception:
        log.debug("left a request to aiohttp", exc_info=True)
        return None


def _request(
    buffer: bytearray, end: int, guard: Guard, body_limit: int
) -> tuple[HttpRequest, int, bool] | None:
    try:
        head = buffer[: end + 2].decode("ascii")
    except UnicodeDecodeError:
        return None
    line = REQUEST_LINE.match(head)
    if line is None:
        return None
    path = line[1]
    if "/." in path:  # a dot segment: aiohttp's to resolve
        return None
    fields = head[line.end() :]
    pairs = _FIELD.findall(fields)
    lines = fields.count("\n")
    if len(pairs) != lines or fields.count("\r\n") != lines:  # a line of another form
        return None
    if lines > _MAX_FIELDS:  # aiohttp's to refuse (or not) by its own limit
        return None
    if " \r\n" in fields or "\t\r\n" in fields:  # a value with spaces after it
        pairs = [(name, value.rstrip(" \t")) for name, value in pairs]
    names = {name.lower() for name, _ in pairs}
    if len(names) != len(pairs) or not names.isdisjoint(_UNUSUAL):
        return None
    headers = CIMultiDictProxy(CIMultiDict(pairs))
    length_text = headers.get("Content-Length")
    if length_text is None or not length_text.isdigit() or len(length_text) > 18:
        return None
    length = int(length_text)
    if length > body_limit:
        return None  # aiohttp's handler refuses it, unread
    connection = headers.get("Connection")
    close = False
    if connection is not None:
        connection = connection.lower()
        if connection == "close":
            close = True
        elif connection != "keep-alive":
            return None
    if guard.refusal(headers) is not None:
        return None
    return HttpRequest("POST", path, [], headers, b""), end + 4 + length, close
