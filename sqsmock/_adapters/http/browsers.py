"""Which browsers may call the server: the Host allow-list, the Origin check, CORS, and GETs.

A server on 127.0.0.1 is out of other machines' reach, but not out of a web page's: any page the
user opens may send it requests. A form or ``fetch(..., {mode: "no-cors"})`` POST, an ``<img>``
GET, are "simple requests" a browser sends cross-origin without asking, so without these checks a
page could reset or wipe the server, advance its clock, inject faults or call SQS. With DNS
rebinding (the page's own name re-pointed at 127.0.0.1) it could read answers too, as if
same-origin: queues, messages, the call journal. So, before anything runs:

* the ``Host`` must be an IP literal, ``localhost`` or ``*.localhost``, or a name the user
  allowed (``--allow-host``; ``*`` for any): a rebinding page's requests carry its own name. An
  IP literal is read as browsers and the C library read one (``127.1``, ``0x7f.0.0.1``,
  ``2130706433``; ``[::ffff:127.0.0.1]`` is 127.0.0.1): no name a page could re-point looks so;
* a request from a page -- one with an ``Origin``, or ``Sec-Fetch-Site: cross-site``/``same-site``
  -- must come from an allowed origin: the server's own (scheme, host and port of the ``Host``)
  or one given with ``--cors-origin`` (``*`` for any). Allowed origins get CORS answers (preflights
  and headers) so that the AWS SDK for JavaScript works from a local web app.

Those two checks do not cover every GET: a browser sends an ``<img>`` or link GET with no
``Origin``, and sends ``Sec-Fetch-Site`` only to a URL it deems potentially trustworthy --
``127.0.0.1`` and ``localhost`` yes, but not ``[::ffff:127.0.0.1]``, the machine's other addresses
or ``0.0.0.0``, which reach the same server. So a GET runs an SQS action that changes state
(``READ_ONLY`` are those that do not) only if it is ``signed``: it carries an AWS signature in its
``Authorization`` header or an ``X-Amz-*`` header, which no page can send to another origin
without a preflight (and a preflight carries ``Origin``). A signature in the query string does not
count: an ``<img>`` URL can carry one, and signatures are not verified. Every POST a browser sends
carries ``Origin``, so the checks above cover it.

Programs (SDKs outside a browser, the AWS CLI, curl) send neither ``Origin`` nor ``Sec-Fetch-*``
and are not affected, but for an unsigned GET that would change state. Kept apart from aiohttp:
plain functions of header values.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from ..._regions import shown

__all__ = [
    "EXPOSED_HEADERS",
    "PREFLIGHT_METHODS",
    "READ_ONLY",
    "Guard",
    "check_allow_host",
    "check_cors_origin",
    "signed",
]

#: Methods a preflight allows: SQS takes GET and POST, the admin API also DELETE.
PREFLIGHT_METHODS = "GET, POST, DELETE"
#: Answer headers a page's script may read: what the AWS SDKs look at.
EXPOSED_HEADERS = "x-amzn-RequestId, x-amzn-query-error, x-amzn-ErrorType, x-amz-crc32, Date"
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_NAME = re.compile(
    r"(?:\*\.|\.)?[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*"
)
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_TOKEN = re.compile(r"[a-z0-9!#$%&'*+.^_`|~-]+")
_SDK_HEADERS = frozenset({"authorization", "content-type"})
_SDK_PREFIXES = ("x-amz-", "x-amzn-", "amz-sdk-")
_CACHE_LIMIT = 256
#: SQS actions that change nothing: answered to any GET, signed or not, as SQS answers them.
#: (``ReceiveMessage`` is not one: it puts messages in flight and counts a receive.)
READ_ONLY = frozenset(
    {
        "GetQueueAttributes",
        "GetQueueUrl",
        "ListDeadLetterSourceQueues",
        "ListMessageMoveTasks",
        "ListQueueTags",
        "ListQueues",
    }
)
_HEX = frozenset("0123456789abcdefABCDEF")
#: The characters of an IP literal (an IPv6 zone after ``%`` aside).
_LITERAL = _HEX | frozenset("xX.:")
_OCTAL = frozenset("01234567")


def check_allow_host(name: object) -> str:
    """An ``--allow-host`` value, normalised: ``*``, a name, or ``.example.com``/``*.example.com``
    (``.example.com``: the name and its subdomains; ``*.example.com``: subdomains only)."""
    if not isinstance(name, str):
        raise ValueError(f"allowed hosts are names (strings), not {name!r}")
    text = name.strip().lower().rstrip(".")
    if text == "*" or _NAME.fullmatch(text):
        return text
    hint = ""
    if _split_host(text)[1] is not None:
        hint = " (give the name without its port: every port of an allowed name is allowed)"
    raise ValueError(
        f"{name!r} is not a host name to allow: give a name such as 'sqs' or 'myhost.internal', "
        f"'.example.com' or '*.example.com' for subdomains, or '*' for any{hint}"
    )


def check_cors_origin(origin: object) -> str:
    """A ``--cors-origin`` value, normalised: ``*`` or ``scheme://host[:port]``."""
    if not isinstance(origin, str):
        raise ValueError(
            f"CORS origins are strings such as 'http://localhost:3000', not {origin!r}"
        )
    text = origin.strip()
    if text == "*":
        return text
    key = _origin_key(text[:-1] if text.endswith("/") else text)
    if key is None:
        raise ValueError(
            f"{origin!r} is not a web origin: give scheme://host[:port] such as "
            "'http://localhost:3000' (no path), or '*' for any origin"
        )
    return _origin_text(key)


@functools.lru_cache(maxsize=_CACHE_LIMIT)
def _origin_key(origin: str) -> tuple[str, str, int | None] | None:
    """``(scheme, host, port)`` of an origin (the port None when the scheme has no default; an
    IP literal host as the address it stands for). Kept for the origins last seen: a web app's
    SDK sends one with every call."""
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), _canonical((parts.hostname or "").lower())
    if (
        not _SCHEME.fullmatch(scheme)
        or not host
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username is not None
        or origin.count("://") != 1
    ):
        return None
    return scheme, host, port if port is not None else _DEFAULT_PORTS.get(scheme)


def _origin_text(key: tuple[str, str, int | None]) -> str:
    scheme, host, port = key
    shown = f"[{host}]" if ":" in host else host
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{shown}"
    return f"{scheme}://{shown}:{port}"


def _split_host(value: str) -> tuple[str, int | None]:
    """``(host, port or None)`` of a ``Host`` header value; an IPv6 address loses its brackets.
    A port is at most five digits (no longer text reaches ``int``, which refuses 4 300)."""
    value = value.strip()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
        return host, int(port) if _is_port(port) else None
    host, colon, port = value.rpartition(":")
    if colon and ":" not in host and _is_port(port):
        return host, int(port)
    return value, None


def _is_port(text: str) -> bool:
    return text.isdigit() and text.isascii() and len(text) <= 5


def _literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address an IP literal host stands for, None for a name. IPv4 is read as browsers
    (the URL standard) and ``inet_aton`` read it -- one to four parts, each decimal, octal
    (``0177``) or hexadecimal (``0x7f``), the last filling the bytes left -- so ``127.1`` and
    ``2130706433`` are 127.0.0.1; an IPv4-mapped IPv6 address (``::ffff:7f00:1``) is its IPv4."""
    if not _LITERAL.issuperset(host.partition("%")[0]):  # a name (at once: no parse attempted)
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return _ipv4(host)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _ipv4(host: str) -> ipaddress.IPv4Address | None:
    parts = host.split(".")
    if len(parts) > 4:
        return None
    numbers = []
    for part in parts:
        number = _ipv4_number(part)
        if number is None:
            return None
        numbers.append(number)
    *head, last = numbers
    if any(number > 255 for number in head) or last >= 256 ** (5 - len(parts)):
        return None
    for index, number in enumerate(head):
        last += number << (24 - 8 * index)
    return ipaddress.IPv4Address(last)


def _ipv4_number(part: str) -> int | None:
    """One part of an IPv4 literal: decimal, ``0``-led octal or ``0x``-led hexadecimal."""
    if not part or len(part) > 64:
        return None
    if part[:2] in ("0x", "0X"):
        digits = part[2:]
        if not digits:
            return 0
        return int(digits, 16) if _HEX.issuperset(digits) else None
    if part[0] == "0":
        return int(part, 8) if _OCTAL.issuperset(part) else None
    return int(part) if part.isascii() and part.isdigit() else None


def _canonical(host: str) -> str:
    """A host as compared: an IP literal as the address it stands for, a name as it is."""
    address = _literal(host)
    return host if address is None else str(address)


def signed(headers: Mapping[str, str]) -> bool:
    """Whether a request carries what no web page can send another origin unasked: an AWS
    signature in ``Authorization`` (a browser adds only its own schemes, Basic and the like), or
    an ``X-Amz-*`` header (``X-Amz-Target``, ``X-Amz-Date``...). A page's script can set either
    only after a preflight, which the ``Origin`` check answers."""
    authorization = headers.get("Authorization")
    if authorization is not None and authorization.lstrip()[:3].upper() == "AWS":
        return True
    return any(name[:6].lower() == "x-amz-" for name in headers)


def sdk_header(name: str) -> bool:
    """Whether a page may send request header ``name``: those the AWS SDKs send."""
    name = name.strip().lower()
    return _TOKEN.fullmatch(name) is not None and (
        name in _SDK_HEADERS or name.startswith(_SDK_PREFIXES)
    )


def _echoed(origin: str) -> str:
    """The origin as ``Access-Control-Allow-Origin`` repeats it (``*`` if it is no header text:
    only ``--cors-origin '*'`` lets such an origin through)."""
    return origin if origin.isascii() and origin.isprintable() else "*"


class Guard:
    """The server's allowed hosts and origins, and the answers they give."""

    def __init__(self, allow_hosts: Iterable[str] = (), cors_origins: Iterable[str] = ()) -> None:
        hosts = [check_allow_host(name) for name in allow_hosts]
        origins = [check_cors_origin(origin) for origin in cors_origins]
        self.any_host = "*" in hosts
        self.names = frozenset(h for h in hosts if not h.startswith(("*", ".")))
        #: (suffix, the bare domain too?): ``.example.com`` -> (".example.com", True)
        self.suffixes = tuple(
            (h[1:] if h.startswith("*") else h, h.startswith("."))
            for h in hosts
            if h.startswith(("*.", "."))
        )
        self.any_origin = "*" in origins
        self.origins = frozenset(_origin_key(o) for o in origins if o != "*")
        self._hosts: dict[str, bool] = {}

    # -- Host -------------------------------------------------------------------------------

    def host_allowed(self, value: str | None) -> bool:
        """Whether to answer a request for this ``Host`` (no ``Host``: not from a browser)."""
        if not value:
            return True
        found = self._hosts.get(value)
        if found is None:
            if len(self._hosts) >= _CACHE_LIMIT:
                self._hosts.clear()
            found = self._hosts[value] = self._decide_host(value)
        return found

    def _decide_host(self, value: str) -> bool:
        host = _split_host(value)[0].lower()
        host = host[:-1] if host.endswith(".") else host
        if (
            _literal(host) is not None
            or host == "localhost"
            or host.endswith(".localhost")
            or self.any_host
        ):
            return True
        if host in self.names:
            return True
        return any(
            host.endswith(suffix) or (bare and host == suffix[1:]) for suffix, bare in self.suffixes
        )

    @staticmethod
    def host_name(value: str) -> str:
        """The name ``--allow-host`` takes for a refused ``Host``."""
        host = _split_host(value)[0].lower()
        return host[:-1] if host.endswith(".") else host

    # -- Origin -----------------------------------------------------------------------------

    def origin_allowed(self, origin: str, host: str | None) -> bool:
        """Whether a page of ``origin`` may call the server reached as ``host``."""
        if self.any_origin:
            return True
        key = _origin_key(origin) if origin != "null" else None
        if key is None:
            return False
        if key in self.origins:
            return True
        if not host or key[0] not in ("http", "https"):
            return False
        name, port = _split_host(host)
        return key[1] == _canonical(name.lower()) and key[2] == (port or _DEFAULT_PORTS[key[0]])

    def refusal(self, headers: Mapping[str, str]) -> str | None:
        """Why a request may not run (a plain sentence naming the option), or None."""
        host = headers.get("Host")
        if not self.host_allowed(host):
            name = shown(self.host_name(host or ""))
            return (
                f"Blocked request: this sqsmock server does not answer for host {name!r}, "
                "in case a web page re-pointed that name at it (DNS rebinding). To reach it by "
                f"that name, allow it: sqsmock serve --allow-host {name} "
                f"(serve(allow_hosts=[{name!r}]) in Python).\n"
            )
        origin = headers.get("Origin")
        if origin is not None:
            if self.origin_allowed(origin, host):
                return None
            origin = shown(origin, 256)
            return (
                f"Blocked request from a web page of origin {origin!r}: web pages may not call "
                "this sqsmock server unless it allows their origin: sqsmock serve --cors-origin "
                f"{origin} (serve(cors_origins=[{origin!r}]) in Python).\n"
            )
        site = (headers.get("Sec-Fetch-Site") or "").strip().lower()
        if site in ("cross-site", "same-site"):
            return (
                f"Blocked request from a {site} web page: web pages may not call "
                "this sqsmock server unless it allows their origin: sqsmock serve --cors-origin "
                "ORIGIN.\n"
            )
        return None

    # -- CORS answers -----------------------------------------------------------------------

    @staticmethod
    def preflight_headers(origin: str, headers: Mapping[str, str]) -> dict[str, str]:
        """The answer to an allowed origin's preflight: GET/POST/DELETE and the SDKs' headers."""
        requested = headers.get("Access-Control-Request-Headers", "")
        allowed = [name.strip() for name in requested.split(",") if sdk_header(name)]
        answer = {
            "Access-Control-Allow-Origin": _echoed(origin),
            "Access-Control-Allow-Methods": PREFLIGHT_METHODS,
            "Access-Control-Max-Age": "600",
            "Vary": "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
        }
        if allowed:
            answer["Access-Control-Allow-Headers"] = ", ".join(allowed)
        if headers.get("Access-Control-Request-Private-Network", "").lower() == "true":
            answer["Access-Control-Allow-Private-Network"] = "true"
        return answer

    @staticmethod
    def cors_headers(origin: str) -> dict[str, str]:
        """Headers of an answer to an allowed origin, so that its script may read it."""
        return {
            "Access-Control-Allow-Origin": _echoed(origin),
            "Access-Control-Expose-Headers": EXPOSED_HEADERS,
            "Vary": "Origin",
        }
