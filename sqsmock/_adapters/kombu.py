"""The kombu adapter: kombu's asynchronous SQS client -- a Celery worker's -- answered in process.

kombu's SQS transport reaches SQS two ways. Creating queues, sending and deleting go through a
boto3 client, which the botocore adapter answers. A consumer on kombu's event loop (the *hub*, a
Celery worker's) receives through ``AsyncSQSConnection`` instead: it builds each request with
botocore -- AWS JSON 1.0 or the query protocol, as botocore's SQS model says -- signs it, and
hands it to kombu's own HTTP client (pycurl), past botocore's hooks and out to the network.

While a mock is active this module replaces that hand-over, ``AsyncSQSConnection._mexe``: the
signed request is built into kombu's HTTP request exactly as kombu builds it, with kombu's own
callbacks on it, but instead of being given to pycurl it goes, as raw method, URL, headers and
body, through the protocol layer's HTTP path (``_protocol.http.parse``/``render``, the server's),
and the answer comes back as kombu's HTTP ``Response`` -- headers named as its curl client names
them -- delivered on the hub like a real one, never from inside the call.

The hub must never block. A call that cannot wait is answered at once; a receive that may
long-poll waits in a thread of its own on the mock's clock, like any blocking client (woken by a
send, jumping a frozen clock, ended when the mock stops). Either answer reaches the hub as a
real one does, through a socket the hub polls (one socket pair per hub): the hub wakes for it at
once and runs kombu's callbacks on its next turn, never from inside the call.

sqsmock never imports kombu: ``sqsmock._activation`` calls ``watch`` when a mock starts, which
wraps the class now if kombu's SQS connection module is loaded, or the moment it is loaded while
a mock is active. With no mock active the wrapper hands every request to kombu's own code.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable
from io import BytesIO
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import wrapt

from .._errors import SqsError
from .._protocol import Call
from .._protocol.http import HttpAnswer, HttpRequest, Parsed, error_answer, parse, render
from .._runtime import Runtime
from .._service.addresses import AWS_URLS as _AWS_URLS
from ._stack import stack

__all__ = ["install", "uninstall", "watch"]

log = logging.getLogger("sqsmock.kombu")

_MODULE = "kombu.asynchronous.aws.sqs.connection"
_hook_registered = False
#: ``AsyncSQSConnection``'s own ``_mexe`` when a kombu version defines one (else inherited).
_own_mexe: Any = None


# -- installing -------------------------------------------------------------------------------


def watch() -> None:
    """Cover kombu's asynchronous SQS client now if kombu has loaded it, else once it does."""
    global _hook_registered
    module = sys.modules.get(_MODULE)
    if module is not None:
        install(module)
    elif not _hook_registered:
        _hook_registered = True
        wrapt.register_post_import_hook(_imported, _MODULE)


def _imported(module: ModuleType) -> None:
    """kombu's SQS connection was imported (perhaps inside a mock): cover it if one is active.
    Without the stack's lock, for the reason ``sqsmock._activation``'s aiobotocore hook gives."""
    if stack:
        install(module)


def install(module: ModuleType | None = None) -> None:
    global _own_mexe
    cls = (module or sys.modules[_MODULE]).AsyncSQSConnection
    own = vars(cls).get("_mexe")
    if own is not _mexe:
        _own_mexe = own
        cls._mexe = _mexe


def uninstall() -> None:
    module = sys.modules.get(_MODULE)
    if module is None:
        return
    cls = module.AsyncSQSConnection
    if vars(cls).get("_mexe") is _mexe:
        if _own_mexe is None:
            del cls._mexe
        else:
            cls._mexe = _own_mexe


# -- the hand-over ----------------------------------------------------------------------------


def _mexe(self: Any, request: Any, sender: Any = None, callback: Any = None) -> Any:
    """``AsyncConnection._mexe``: send a signed request, its answer to go to ``callback``."""
    runtime = stack[-1] if stack else None
    if runtime is None or sender is not None:  # no mock (or a custom sender): kombu's own way
        if _own_mexe is not None:
            return _own_mexe(self, request, sender, callback)
        cls = sys.modules[_MODULE].AsyncSQSConnection
        return super(cls, self)._mexe(request, sender, callback)
    from vine import promise, transform

    callback = callback or promise()
    conn = self.get_http_connection()
    conn.request(request.method, request.url, request.body, request.headers)
    http_request = conn.getrequest()
    http_request.then(transform(conn.Response, callback))
    _dispatch(runtime, conn.http_client, http_request)
    return callback


def _dispatch(runtime: Runtime, client: Any, request: Any) -> None:
    """Answer kombu's HTTP ``request``; deliver the answer on the client's hub."""
    post = _inbox(client.hub).post
    deliver = functools.partial(_deliver, client, request)
    http = _raw(request)
    try:
        parsed = parse(http, region=runtime.region, account=runtime.account, urls=_AWS_URLS)
    except SqsError as error:
        post(functools.partial(deliver, error_answer(http, error)))
        return
    if parsed.operation == "ReceiveMessage" and str(parsed.params.get("WaitTimeSeconds")) != "0":
        # may long-poll (WaitTimeSeconds, or the queue's ReceiveMessageWaitTimeSeconds): off
        # the hub, which must keep turning meanwhile
        threading.Thread(
            target=_long_poll,
            args=(runtime, http, parsed, post, deliver),
            name="sqsmock-kombu-receive",
            daemon=True,
        ).start()
        return
    post(functools.partial(deliver, _answer(runtime, http, parsed)))


def _long_poll(
    runtime: Runtime,
    http: HttpRequest,
    parsed: Parsed,
    post: Callable[[Callable[[], None]], None],
    deliver: Callable[[HttpAnswer], None],
) -> None:
    answer = _answer(runtime, http, parsed)
    post(functools.partial(deliver, answer))


def _answer(runtime: Runtime, http: HttpRequest, parsed: Parsed) -> HttpAnswer:
    """The HTTP answer, as sqsmock's server would give it (an unexpected fault: 500)."""
    # The account is the mock's, as for the botocore adapter answering the same transport's
    # boto3 calls (the HTTP path would take a 12-digit access key id for the account).
    caller = Call(parsed.caller.region, runtime.account, http.headers)
    try:
        return render(parsed.protocol, runtime.call(parsed.operation, parsed.params, caller))
    except SqsError as error:
        return error_answer(http, error, parsed.operation)
    except Exception:
        if runtime.backend_or_none is None:  # the mock stopped meanwhile
            return error_answer(http, SqsError("ServiceUnavailable"), parsed.operation)
        log.exception("sqsmock failed to answer kombu's %s", parsed.operation)
        return error_answer(http, SqsError("InternalFailure"), parsed.operation)


def _raw(request: Any) -> HttpRequest:
    """kombu's HTTP request as the protocol layer reads one: what would go on the wire."""
    url = urlsplit(str(request.url))
    try:
        query = parse_qsl(url.query, keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        query = parse_qsl(url.query, keep_blank_values=True)
    headers = {str(k).lower(): str(v) for k, v in request.headers.items()}
    body = request.body
    if body is None:
        body = b""
    elif isinstance(body, str):
        body = body.encode("utf-8")
    return HttpRequest(request.method, url.path or "/", query, headers, bytes(body))


def _deliver(client: Any, request: Any, answer: HttpAnswer) -> None:
    """On the hub: hand kombu the answer as its curl client hands over a response."""
    from kombu.asynchronous.http.base import normalize_header

    headers = client.Headers()
    for name, value in answer.headers.items():
        headers[normalize_header(name)] = value
    headers["Content-Length"] = str(len(answer.body))
    headers.complete = True
    buffer = BytesIO(answer.body)
    request.on_ready(
        client.Response(
            request=request,
            code=answer.status,
            headers=headers,
            buffer=buffer,
            effective_url=request.url,
        )
    )


# -- answers from threads reach the hub through a socket it polls -----------------------------


class _Inbox:
    """Callbacks posted from any thread, run on the hub's thread.

    kombu's hub polls the file descriptors of its readers; a byte on this socket pair wakes it
    at once, as a response arriving on pycurl's socket would. (A ``Hub.call_soon`` callback
    waits for the poll's timeout, up to a second, when nothing else wakes the hub.) Closed, and
    forgotten, when the hub closes.
    """

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.ready: deque[Callable[[], None]] = deque()
        self.reader, self.writer = socket.socketpair()
        self.reader.setblocking(False)
        self.writer.setblocking(False)
        self.closed = False
        hub.add_reader(self.reader, self._run)
        hub.on_close.add(self.close)

    def registered(self) -> bool:
        return not self.closed and self.reader.fileno() in self.hub.readers

    def post(self, callback: Callable[[], None]) -> None:  # any thread
        self.ready.append(callback)
        with contextlib.suppress(OSError):  # closed meanwhile: nobody is left to answer
            self.writer.send(b"\0")

    def _run(self) -> None:  # the hub's thread
        with contextlib.suppress(OSError):
            self.reader.recv(4096)
        while self.ready:
            self.ready.popleft()()

    def close(self, *_: Any) -> None:
        if self.closed:
            return
        self.closed = True
        self.hub.on_close.discard(self.close)
        with contextlib.suppress(Exception):
            self.hub.remove_reader(self.reader)
        if getattr(self.hub, _INBOX, None) is self:
            delattr(self.hub, _INBOX)
        self.reader.close()
        self.writer.close()


_INBOX = "_sqsmock_inbox"


def _inbox(hub: Any) -> _Inbox:
    """The hub's inbox, made (again, after the hub was reset) on the hub's thread."""
    inbox: _Inbox | None = getattr(hub, _INBOX, None)
    if inbox is None or not inbox.registered():
        if inbox is not None:
            inbox.close()
        inbox = _Inbox(hub)
        setattr(hub, _INBOX, inbox)
    return inbox
